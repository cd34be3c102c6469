"""Leaderboards of stored tournaments: the store's games turned into outcomes and rated.

The bridge between the store and ``ratings``, which rates plain outcomes and knows
nothing of where they were kept.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Iterable, Mapping

from ratings.board import Board, Fold, board_from, fold_key
from ratings.params import RatingConfig
from ratings.sprt import DealGame, SprtResult, deal_scores, sprt
from ratings.trueskill_ratings import Outcome
from tournaments.config import ab_tables_per_deal
from tournaments.store import GameResult, Store, StoredTournament, StoreError


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
    params = rating_config(tournament)
    bots = [bot["name"] for bot in tournament.config["bots"]]
    return board_from(stored_fold(store, tournament.name, params), bots, params,
                      lambda: map(outcome, store.results(tournament.name)),
                      fault_counts(store, tournament.name), resamples=resamples, seed=seed)


def stored_fold(store: Store, tournament: str, params: RatingConfig) -> Fold:
    """The ratings and counts of the tournament's stored games: the snapshot kept in
    the store when it still covers exactly those games up to its last index (the runner
    keeps one at the end of a run), carried on with the games stored after it, else
    folded from all the games.

    A board asked for during a run keeps a new snapshot at the end of the unbroken run
    of indices after the old one: a game still being played below it would make it
    stale. A store that cannot be written (read-only, busy) is only read.
    """
    key = fold_key(params)
    kept = store.snapshot(tournament, key)
    fold = Fold(params) if kept is None else Fold.from_json(params, kept)
    unbroken: dict | None = None
    for game in store.results(tournament, range(fold.last_index + 1, 2**62)):
        if unbroken is None and game.game_index != fold.last_index + 1:
            unbroken = fold.to_json()
        fold.add(outcome(game))
    renewed = unbroken or fold.to_json()
    if kept is None or renewed["games"] != kept["games"]:
        try:
            store.keep_snapshot(tournament, key, renewed)
        except (StoreError, sqlite3.DatabaseError):
            pass
    return fold


def ab_test(a: str, b: str, per_deal: int, test: Mapping[str, float],
            games: Iterable[DealGame]) -> SprtResult:
    """An A/B test's SPRT over its games so far (``test``: elo0, elo1, alpha, beta)."""
    return sprt(deal_scores(games, a, b, per_deal), test["elo0"], test["elo1"],
                test["alpha"], test["beta"])


def stored_ab_test(store: Store, tournament: StoredTournament) -> SprtResult | None:
    """The SPRT of a stored ``format: ab`` tournament (None for other formats)."""
    config: dict[str, Any] = tournament.config
    if config.get("format") != "ab":
        return None
    games = (DealGame(game.group_index, tuple(game.seats), tuple(game.ranks),
                      game.status != "void") for game in store.games(tournament.name))
    per_deal = config["players"] * ab_tables_per_deal(len(config["bots"]))
    return ab_test(config["a"], config["b"], per_deal, config["sprt"], games)
