"""Leaderboards of stored tournaments: the store's games, rated in schedule order."""

from __future__ import annotations

from ratings.trueskill_ratings import Outcome, Row, leaderboard
from referee.store import Store, StoredGame, StoredTournament
from tournaments.config import RatingConfig


def rating_config(tournament: StoredTournament) -> RatingConfig:
    return RatingConfig(**tournament.config.get("rating", {}))


def outcome(game: StoredGame) -> Outcome:
    return Outcome(game.game_index, tuple(game.seats), tuple(game.ranks), game.status != "void")


def standings(store: Store, tournament: StoredTournament) -> list[Row]:
    games = store.games(tournament.name)
    bots = [bot["name"] for bot in tournament.config["bots"]]
    return leaderboard(map(outcome, games), bots, rating_config(tournament))
