"""Leaderboards of stored tournaments: the store's games turned into outcomes and rated.

The bridge between the store and ``ratings``, which rates plain outcomes and knows
nothing of where they were kept.
"""

from __future__ import annotations

from ratings.board import Board, build_board
from ratings.params import RatingConfig
from ratings.trueskill_ratings import Outcome
from tournaments.store import GameResult, Store, StoredTournament


def rating_config(tournament: StoredTournament) -> RatingConfig:
    return RatingConfig(**tournament.config.get("rating", {}))


def outcome(game: GameResult) -> Outcome:
    return Outcome(game.game_index, tuple(game.seats), tuple(game.ranks), game.status != "void",
                   tuple(game.scores), game.id)


def fault_counts(store: Store, tournament: str) -> dict[str, dict[str, int]]:
    """Faults per bot per fault class (timeout, crash, illegal, error)."""
    counts: dict[str, dict[str, int]] = {}
    for fault in store.faults(tournament):
        per_bot = counts.setdefault(fault["bot"], {})
        per_bot[fault["class"]] = per_bot.get(fault["class"], 0) + 1
    return counts


def standings(store: Store, tournament: StoredTournament, resamples: int | None = None,
              seed: int = 0) -> Board:
    """The tournament's full leaderboard (iterating it gives the rows, best first)."""
    games = store.results(tournament.name)
    bots = [bot["name"] for bot in tournament.config["bots"]]
    return build_board(map(outcome, games), bots, rating_config(tournament),
                       fault_counts(store, tournament.name), resamples=resamples, seed=seed)
