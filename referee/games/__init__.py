"""The rules engines, by name. Each module defines ``GAME``, a :class:`Game`."""

from __future__ import annotations

from referee.games.base import Game, GameConfigError, GameRecord, State
from referee.games import flea_circus
from referee.games import flohcati
from referee.games import animal_circus

__all__ = ["END_WORDS", "GAMES", "Game", "GameConfigError", "GameRecord", "State", "end_words",
           "get_game", "replay"]

GAMES: dict[str, Game] = {
    game.name: game
    for game in (
        flea_circus.GAME,
        flohcati.GAME,
        animal_circus.GAME,
    )
}

#: Every game's end reasons in words (a reason two games share, "turn-limit", reads the same).
END_WORDS: dict[str, str] = {str(reason): words for game in GAMES.values()
                             for reason, words in game.end_reasons.items()}


def end_words(reason: str) -> str:
    """An end reason for people; an unknown code (a newer engine's) unchanged."""
    return END_WORDS.get(reason, reason or "not ended")


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
