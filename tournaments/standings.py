"""Leaderboards of stored tournaments: the store's games turned into outcomes and rated.

The bridge between the store and ``ratings``, which rates plain outcomes and knows
nothing of where they were kept.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from itertools import groupby
from types import SimpleNamespace
from typing import Any, Iterable, Mapping

from circus_outcomes import GameStatus
from ratings.board import (
    Board,
    Fold,
    RoundHistory,
    RoundRecord,
    Standing,
    board_from,
    fold_key,
)
from ratings.collusion import CollusionCheck, collusion
from ratings.params import RatingConfig
from ratings.sprt import DealGame, SprtResult, deal_scores, sprt
from ratings.trueskill_ratings import Outcome
from ratings.verdict import Judge, stop_reason
from tournaments.config import ab_tables_per_deal, rounds_needed
from tournaments.store import GameResult, Store, StoredGame, StoredTournament, StoreError


def rating_config(tournament: StoredTournament) -> RatingConfig:
    return RatingConfig(**tournament.config.get("rating", {}))


def outcome(game: GameResult | StoredGame) -> Outcome:
    return Outcome(game.game_index, tuple(game.seats), tuple(game.ranks),
                   game.status != GameStatus.VOID, tuple(game.scores), game.id,
                   game.group_index, game.round)


def entrants(store: Store, tournament: StoredTournament) -> list[str]:
    """Every bot that stands in the tournament: its field's in the config's order, then
    by name those that left it with stored games (withdrawn, or an earlier ``BOT@vN``),
    which the leaderboard rates and whose authors are owed their packs too."""
    field = [bot["name"] for bot in tournament.config.get("bots", [])]
    return field + sorted(store.seated(tournament.name) - set(field))


def fault_counts(store: Store, tournament: str) -> dict[str, dict[str, int]]:
    """Faults per bot per fault class (timeout, crash, illegal, error)."""
    counts: dict[str, dict[str, int]] = {}
    for fault in store.faults(tournament):
        per_bot = counts.setdefault(fault["bot"], {})
        per_bot[fault["class"]] = per_bot.get(fault["class"], 0) + 1
    return counts


def standings(store: Store, tournament: StoredTournament, resamples: int | None = None,
              seed: int = 0) -> Board:
    """The tournament's full leaderboard (iterating it gives the rows, best first); its
    verdict at the stop rule's confidence, else at 0.95."""
    params = rating_config(tournament)
    bots = [bot["name"] for bot in tournament.config["bots"]]
    confidence = (tournament.config.get("stop") or {}).get("confidence", 0.95)
    return board_from(stored_fold(store, tournament.name, params), bots, params,
                      lambda: map(outcome, store.results(tournament.name)),
                      fault_counts(store, tournament.name), resamples=resamples, seed=seed,
                      confidence=confidence)


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
                      game.status != GameStatus.VOID) for game in store.results(tournament.name))
    per_deal = config["players"] * ab_tables_per_deal(len(config["bots"]))
    return ab_test(config["a"], config["b"], per_deal, config["sprt"], games)


def stored_collusion(store: Store, tournament: StoredTournament) -> CollusionCheck:
    """The collusion check of a stored tournament's games, a table on a deal (its group)
    being one observation."""
    return collusion(DealGame(game.group_index, tuple(game.seats), tuple(game.ranks),
                              game.status != GameStatus.VOID)
                     for game in store.results(tournament.name))


def round_history(store: Store, tournament: StoredTournament) -> RoundHistory:
    """The tournament round by round, from its stored games (and a Swiss's kept pairings):
    the standings after each round, and the stop rule's verdict after each round over, as
    the runner decides it (the bots left out of a round are not placed)."""
    config = tournament.config
    params, rule = rating_config(tournament), config.get("stop")
    names = [bot["name"] for bot in config["bots"]]
    swiss = config.get("format") == "swiss"
    fold, judge, rounds = Fold(params), Judge(), []
    played = list(store.results(tournament.name))      # in schedule order
    by_round = {number: list(games) for number, games in groupby(played, lambda g: g.round)}
    last = max(by_round, default=-1)
    for number in range(last + 1):
        for game in by_round.get(number, []):
            made = outcome(game)
            fold.add(made)
            judge.add_outcome(made)
        pairing = store.swiss_round(tournament.name, number) if swiss else None
        record = RoundRecord(number + 1, len(by_round.get(number, [])),
                             _standings(fold, names))
        if pairing is not None:
            record = replace(record, tables=list(pairing.tables), byes=list(pairing.byes),
                             absent=list(pairing.absent))
        if rule and (number < last or tournament.finished_at is not None):   # round over
            # Not placed by the rule: a Swiss round's bots left out, else the bots yet
            # unplayed (they did not start).
            absent = pairing.absent if pairing is not None else \
                [bot for bot in names if bot not in fold.tally.counts]
            record = replace(record, stop=_verdict(fold, judge, names, absent, rule))
        rounds.append(record)
    planned = planned_rounds(config)
    return RoundHistory(rounds, planned, swiss,
                        _stop_line(rounds, planned, rule, tournament) if rule else None)


def planned_rounds(config: Mapping[str, Any]) -> int:
    """The rounds a stored config's schedule makes (what :func:`rounds_needed` reads)."""
    return rounds_needed(SimpleNamespace(  # type: ignore[arg-type]
        rounds=config.get("rounds", 1), games_per_bot=config.get("games_per_bot"),
        format=config.get("format"), players=config["players"], bots=config["bots"]))


def _standings(fold: Fold, names: list[str]) -> list[Standing]:
    counts = fold.tally.counts
    rows = [Standing(bot, fold.rater.rating(bot).mu, fold.rater.rating(bot).sigma,
                     counts[bot][0] if bot in counts else 0) for bot in names]
    return sorted(rows, key=lambda row: (-row.conservative, row.bot))


def _verdict(fold: Fold, judge: Judge, names: list[str], absent: list[str],
             rule: Mapping[str, Any]) -> str:
    """The stop rule after a round: "settled: a > b > c on ...", or why not."""
    found = judge.verdict([bot for bot in names if bot not in absent], rule["confidence"], names)
    games = {bot: counts[0] for bot, counts in fold.tally.counts.items()}
    reason = stop_reason(found, games, rule.get("min_games_per_bot", 0))
    return f"not settled: {reason}" if reason else f"settled: {found.line()}"


def _stop_line(rounds: list[RoundRecord], planned: int, rule: Mapping[str, Any],
               tournament: StoredTournament) -> str:
    """How the stop rule ended, in one line."""
    least = rule.get("min_games_per_bot", 0)
    words = (f"stop rule ({rule.get('when', 'settled')}: the order the deal sets certify at "
             f"{rule['confidence']:g}, anytime-valid"
             + (f", {least}+ rated games each" if least else "") + ")")
    decided = [(record.number, record.stop) for record in rounds if record.stop is not None]
    fired = next(((number, stop) for number, stop in decided if stop.startswith("settled")),
                 None)
    if fired is not None:
        number, stop = fired
        return (f"{words} fired after round {number} of {planned}: "
                f"{stop.removeprefix('settled: ')}")
    if not decided:
        return f"{words}: no round is over yet"
    reason = decided[-1][1].removeprefix("not settled: ")
    if tournament.finished_at is not None:
        return f"{words} did not fire in {len(decided)} round(s): after the last, {reason}"
    return (f"{words} has not fired after {len(decided)} of {planned} rounds: {reason}")
