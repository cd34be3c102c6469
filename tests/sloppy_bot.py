"""A bot that makes a fault in every game, for tests that show faults."""

from __future__ import annotations

from bots.random_bot import RandomBot


class Sloppy(RandomBot):
    """A random bot that answers out of range at its first decision of each game: faults
    to show in every game, however the game goes."""

    name = "sloppy"

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def decide(self, request) -> int:
        if request.game_id not in self.seen:
            self.seen.add(request.game_id)
            return len(request.legal_actions) + 3
        return super().decide(request)
