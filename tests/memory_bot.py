"""A bot that remembers every deal it is shown and tries to recognise it when dealt again.

It plays Circus Flohcati, where the deck's order is public as it is flipped: every
``flip`` event names the card. For every game it finishes it keeps the cards it saw
flipped, in order (the deck from the top); in a new
game, once it has seen the first :data:`PREFIX` flips, it looks for a remembered
game whose flips start the same way. A match means it is playing a deal it saw
before, and then it knows the next cards: it flips on only when the next card will
not bust it. Each recognition goes to stderr ("recognised A as B"), where the
tests read it.

It also tries to carry its memory over to a fresh process of itself: it writes it
to every place it can (``$HOME``, the temporary folder, the working folder) and
reads it back at start. The sandbox gives every process fresh, empty folders, so
under the defaults that must fail too.

Run as ``python tests/memory_bot.py`` (the address or port comes from the
environment, as for every SDK bot), or ``python tests/memory_bot.py --stdio`` on the
stdio transport.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.sdk import Bot, rng_for, serve  # noqa: E402
from bots.stdio.serve import serve_stdio  # noqa: E402

PREFIX = 4
MEMORY_FILE = "circus-memory-bot.json"


def memory_places() -> list[Path]:
    """Every folder a bot might find again in its next process."""
    places = [Path(tempfile.gettempdir()), Path.cwd()]
    if os.environ.get("HOME"):
        places.insert(0, Path(os.environ["HOME"]))
    return [place / MEMORY_FILE for place in places]


class MemoryBot(Bot):
    name = "memory"
    games = {"flohcati": ()}

    def __init__(self, persist: bool = True) -> None:
        self.persist = persist
        self.remembered: list[list[str]] = self._load() if persist else []
        self.flips: dict[str, list[str]] = {}
        self.known: dict[str, list[str]] = {}
        self.recognitions = 0

    # -- memory across games and processes -----------------------------------------
    def _load(self) -> list[list[str]]:
        for place in memory_places():
            try:
                return json.loads(place.read_text())
            except (OSError, ValueError):
                continue
        return []

    def _save(self) -> None:
        for place in memory_places():
            try:
                place.write_text(json.dumps(self.remembered))
            except OSError:
                continue

    # -- play ------------------------------------------------------------------------
    def decide(self, request) -> int:
        flips = self.flips.setdefault(request.game_id, [])
        flips += [event.data["card"] for event in request.events if event.kind == "flip"]
        if request.game_id not in self.known and len(flips) >= PREFIX:
            self._recognise(request.game_id, flips)
        known = self.known.get(request.game_id)
        if known is not None:
            choice = self._informed(request, known, len(flips))
            if choice is not None:
                return choice
        return rng_for(request).randrange(len(request.legal_actions))

    def _recognise(self, game_id: str, flips: list[str]) -> None:
        for order in self.remembered:
            if order[:len(flips)] == flips:
                self.known[game_id] = order
                self.recognitions += 1
                print(f"recognised {game_id} after {len(flips)} flips", file=sys.stderr,
                      flush=True)
                return

    @staticmethod
    def _informed(request, known: list[str], position: int) -> int | None:
        """Flip when the remembered next card will not bust; otherwise take or stop."""
        if position >= len(known):
            return None
        actions = [action.payload.flohcati for action in request.legal_actions]
        kinds = [action.type for action in actions]
        if "flip" not in kinds:
            return None
        shown = {card.colour for card in request.observation.flohcati.display}
        upcoming = known[position]
        colour = upcoming.rsplit("-", 1)[0] if "-" in upcoming else ""
        if colour not in shown:
            return kinds.index("flip")
        takes = [i for i, kind in enumerate(kinds) if kind == "take"]
        if takes:
            return max(takes, key=lambda i: actions[i].card.value)
        return kinds.index("stop") if "stop" in kinds else None

    def end_game(self, request) -> None:
        flips = self.flips.pop(request.game_id, [])
        self.known.pop(request.game_id, None)
        # The flips are the deck from the top; the final state's remaining deck follows
        # them after the flips this seat no longer saw, so only the flips are an order.
        if len(flips) >= PREFIX:
            self.remembered.append(flips)
        if self.persist:
            self._save()


if __name__ == "__main__":
    if sys.argv[1:] == ["--stdio"]:
        serve_stdio(MemoryBot())
    else:
        serve(MemoryBot())
