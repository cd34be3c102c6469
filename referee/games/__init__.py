"""The rules engines, by name. Each module defines ``GAME``, a :class:`Game`."""

from __future__ import annotations

from referee.games.base import Game, GameConfigError, GameRecord, State
from referee.games import flea_circus
from referee.games import flohcati
from referee.games import animal_circus

__all__ = ["GAMES", "Game", "GameConfigError", "GameRecord", "State", "get_game", "replay"]

GAMES: dict[str, Game] = {
    game.name: game
    for game in (
        flea_circus.GAME,
        flohcati.GAME,
        animal_circus.GAME,
    )
}


def get_game(name: str) -> Game:
    try:
        return GAMES[name]
    except KeyError:
        raise GameConfigError(
            f"unknown game {name!r} (games: {', '.join(sorted(GAMES))})") from None


def replay(record: GameRecord) -> State:
    """Rebuild a game's final state from its record."""
    state = get_game(record.game).new_state(record.players, record.variant, record.seed)
    for index in record.actions:
        state.apply(index)
    return state
