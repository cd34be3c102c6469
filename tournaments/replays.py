"""Stored games replayed with their engine, for what is not a page: the decision points
of a game (how alike two games are). Their HTML replays are :mod:`pages.replays`."""

from __future__ import annotations

from referee.errors import CircusError
from referee.games import GameConfigError, get_game
from referee.games.base import IllegalActionError
from tournaments.store import StoredGame


class ReplayError(CircusError, ValueError):
    """A stored game whose record does not replay; the message is one line."""


def decision_points(game: StoredGame) -> list[tuple[int, int]]:
    """Each decision of a stored game, replayed from its record: the seat that made it
    and how many actions it had to choose from (a forced move has one), so two games of
    one deal can be compared decision by decision (the same deal and the same actions
    before a decision make the same decision point)."""
    try:
        state = get_game(game.game).new_state(len(game.seats), game.variant, game.seed)
        points = []
        for index in game.actions:
            actions = state.legal_actions()
            points.append((state.current_seat(), len(actions)))
            state.apply(index, actions)
    except (GameConfigError, IllegalActionError) as error:
        raise ReplayError(f"game {game.id} does not replay: {error}") from None
    return points
