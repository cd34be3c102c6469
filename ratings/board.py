"""The full leaderboard: ratings with their uncertainty, head-to-head, LOS, seats, history.

Everything here is computed from the game log (one :class:`Outcome` per game,
in schedule order) and, for the fault counts, the faults table. The method
behind every column is explained in ``docs/ratings.md``.

* Ratings: TrueSkill through the trueskill package (:class:`Rater`), games
  folded in schedule order.
* Rank ranges: the rating is replayed over bootstrap resamples of the game
  log (games drawn with replacement, in the drawn order), with float-only
  replicas of the package's update (:mod:`ratings.fast_trueskill`, and
  :mod:`ratings.batch_trueskill` for two-player games, every resample at once).
  Bot j is clearly above bot i when j's conservative rating beats i's in at
  least 97.5% of the resamples (the 95% interval of their difference excludes
  0). A bot's range runs from 1 + the number of bots clearly above it to n −
  the number clearly below it, so bots that cannot be told apart share ranks.
* LOS: P(skill_i > skill_j) under the TrueSkill posterior, widened by the
  spread the bootstrap saw (see :func:`los`).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence

import numpy as np
import trueskill

from ratings.batch_trueskill import BatchTrueSkill
from ratings.fast_trueskill import FastTrueSkill
from ratings.params import RatingConfig
from ratings.stats import FriedmanSums, normal_cdf, percentile
from ratings.trueskill_ratings import Outcome, Rater, Row, canonical
from ratings.verdict import DealSets, Verdict, verdict

#: Resamples when the log is small enough.
MAX_RESAMPLES = 200
#: Fewest resamples a log gets by default; a log too long for these within the
#: budget gets none unless asked (``resamples=N``), so its board stays fast.
MIN_RESAMPLES = 20
#: Work budget of the bootstrap, in player-updates (seats × games × resamples) of the
#: scalar replica. About 2–7 s of CPU; logs too long for 200 resamples within it get
#: fewer, but tables of three or more batched (``TABLE_BATCH_ROWS``) get all 200.
UPDATE_BUDGET = 240_000
#: Tables of three or more drawn by at least this many resamples at one step are
#: rated as one batch; fewer, one by one (a batch costs about what ~50 rows cost one by one).
TABLE_BATCH_ROWS = 48
#: A bot is provisional while it has fewer games than this ...
PROVISIONAL_GAMES = 10
#: ... or while its sigma is above this fraction of the starting sigma.
PROVISIONAL_SIGMA = 1 / 3
#: The version of what :class:`Fold` computes: raise it when a change makes a fold of
#: the same games give other values, so folds kept with a log (the store's snapshots)
#: are made again.
FOLD_VERSION = 2


def auto_resamples(games: int, players: float) -> int:
    """How many bootstrap resamples a log of ``games`` games of ``players`` seats gets."""
    if games == 0:
        return 0
    # float ** float is typed Any (a negative base gives a complex); here the base is >= 0.
    cost: float = games * (players - 1) ** 1.5
    fits = UPDATE_BUDGET // max(1, round(cost))
    if fits < MIN_RESAMPLES:
        return 0
    if players > 2 and fits >= TABLE_BATCH_ROWS:
        # Rated as one batch at each step, all of them cost about what that many rows
        # cost one by one.
        return MAX_RESAMPLES
    return min(MAX_RESAMPLES, fits)


class HistoryPoint(NamedTuple):
    """A bot's rating right after one of its games (a named tuple: a long log has a
    point per bot per game, and a tuple is made several times faster than a frozen
    dataclass)."""

    schedule_index: int      # the game's (a tuple's own index() is not shadowed)
    game_id: int | None
    players: int
    place: int
    mu: float
    sigma: float
    opponents: tuple[str, ...] = ()

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class HeadToHead:
    """Two bots over the games they shared (a is the higher-ranked of the two)."""

    a: str
    b: str
    games: int
    a_ahead: int
    b_ahead: int
    ties: int
    predicted: float         # P(a finishes ahead of b) from the ratings

    @property
    def observed(self) -> float:
        """a's share of the pair's finishes, a tie counting half."""
        return (self.a_ahead + self.ties / 2) / self.games if self.games else 0.5


@dataclass(frozen=True)
class SeatStats:
    games: int = 0
    wins: int = 0
    place_sum: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_place(self) -> float:
        return self.place_sum / self.games if self.games else 0.0


@dataclass(frozen=True)
class SeatTable:
    """Finishing place and win rate by seat at one table size, with Friedman's test."""

    players: int
    games: int
    overall: list[SeatStats]
    by_bot: dict[str, list[SeatStats]]
    statistic: float
    df: int
    p_value: float


@dataclass
class Board:
    """Everything the leaderboard commands and the report show."""

    rows: list[Row]
    params: RatingConfig
    resamples: int
    seed: int
    rated_games: int
    void_games: int
    h2h: list[HeadToHead]
    los: dict[tuple[str, str], float]
    seats: list[SeatTable]
    # Each bot's history from the log, made when first asked for (a point per bot and
    # game: a long log's board shown without it should not pay for it).
    replay: Callable[[], dict[str, list[HistoryPoint]]]
    faults: dict[str, dict[str, int]] = field(default_factory=dict)
    # No resampling because the log is too long for the default (not because asked).
    too_long: bool = False
    # The deal sets' verdict on the order (ratings/verdict.py), made when first asked for,
    # from the log the bootstrap read (None when it read none).
    judged: Callable[[], Verdict | None] = lambda: None
    deal_sets: int = 0                   # the deal sets the rank ranges resampled

    @cached_property
    def history(self) -> dict[str, list[HistoryPoint]]:
        """Per bot, its rating after each of its rated games."""
        return self.replay()

    @cached_property
    def verdict(self) -> Verdict | None:
        """What the duplicate deal sets certify of the order (None: no rated game)."""
        return self.judged()

    def verdict_line(self) -> str | None:
        """One line on the verdict and what it rests on (None: no rated game)."""
        found = self.verdict
        if found is None:
            if not self.rated_games:
                return None
            # Made from the log read for the bootstrap: a long log's board stays fast.
            return ("verdict (duplicate deal sets): not computed without resampling "
                    f"(--resamples {MIN_RESAMPLES} computes it)")
        return f"verdict (duplicate deal sets): {'settled' if found.certified else 'not settled'}" \
            f": {found.line()}"

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> Row:
        return self.rows[index]

    @property
    def bots(self) -> list[str]:
        """The bots in leaderboard order."""
        return [row.bot for row in self.rows]

    def row(self, bot: str) -> Row:
        for row in self.rows:
            if row.bot == bot:
                return row
        raise KeyError(bot)

    def pair(self, a: str, b: str) -> HeadToHead | None:
        """The head-to-head record of a and b, from a's side."""
        for entry in self.h2h:
            if (entry.a, entry.b) == (a, b):
                return entry
            if (entry.a, entry.b) == (b, a):
                return HeadToHead(a, b, entry.games, entry.b_ahead, entry.a_ahead, entry.ties,
                                  1 - entry.predicted)
        return None

    def method(self) -> str:
        """One line on how the rank ranges were made."""
        if not self.rated_games:
            return "rank ranges: no rated games"
        if self.too_long:
            return (f"rank ranges: not resampled by default for a log this long "
                    f"({self.rated_games} rated games), so each range is the rank alone; "
                    f"--resamples {MIN_RESAMPLES} computes them")
        if not self.resamples:
            return "rank ranges: no resampling (resamples 0), so each range is the rank alone"
        reduced = "" if self.resamples == MAX_RESAMPLES else \
            f" (fewer than {MAX_RESAMPLES}: a long log; see docs/ratings.md)"
        return (f"rank ranges: {self.resamples} bootstrap resamples of the {self.deal_sets} deal "
                f"sets ({self.rated_games} rated games, seed {self.seed}){reduced}; a bot ranks "
                f"clearly above another if its mu - 3*sigma is higher in 97.5% of them")

    def parameters(self) -> str:
        p = self.params
        return (f"TrueSkill: mu={p.mu:g} sigma={p.sigma:.4g} beta={p.beta:.4g} tau={p.tau:.4g} "
                f"draw_probability={p.draw_probability:g}")


# -- building it ------------------------------------------------------------------

class Tally:
    """The board's counts over the rated games, added one game at a time in schedule
    order: per bot (games, wins, sum of places, sum of normalised scores, ties), per
    pair of bots, per table size and seat, and the seat test's sums. Nothing per game
    is kept, so a long log's counts take the memory of its bots, not of its games."""

    def __init__(self) -> None:
        self.rated = self.void = self.seated = 0   # seated: players summed over rated games
        # Per bot, in the order of their first rated game.
        self.counts: dict[str, list[Any]] = {}
        # Per pair (a, b), a < b: [games, a ahead, b ahead, ties].
        self.pairs: dict[tuple[str, str], list[int]] = {}
        # Per table size: [games, wins, sum of places] per seat, overall and per bot.
        self.overall: dict[int, list[list[int]]] = {}
        self.by_bot: dict[int, dict[str, list[list[int]]]] = {}
        self.friedman: dict[int, FriedmanSums] = {}

    def add(self, outcome: Outcome) -> None:
        if not outcome.rated:
            self.void += 1
            return
        seats, ranks = outcome.seats, outcome.ranks
        n = len(seats)
        self.rated += 1
        self.seated += n
        self._count(seats, ranks, n)
        self._pair(seats, ranks)
        self._seat(seats, ranks, n)

    def _count(self, seats: tuple[str, ...], ranks: tuple[int, ...], n: int) -> None:
        counts = self.counts
        for bot, rank in zip(seats, ranks):
            entry = counts.get(bot)
            if entry is None:
                entry = counts[bot] = [0, 0, 0, 0.0, 0]
            entry[0] += 1
            entry[1] += rank == 1
            entry[2] += rank
            entry[3] += (n - rank) / (n - 1)
            entry[4] += ranks.count(rank) > 1

    def _pair(self, seats: tuple[str, ...], ranks: tuple[int, ...]) -> None:
        pairs = self.pairs
        for i, (bot_i, rank_i) in enumerate(zip(seats, ranks)):
            for bot_j, rank_j in zip(seats[i + 1:], ranks[i + 1:]):
                if bot_i == bot_j:
                    continue
                if bot_i < bot_j:
                    key, first, second = (bot_i, bot_j), rank_i, rank_j
                else:
                    key, first, second = (bot_j, bot_i), rank_j, rank_i
                entry = pairs.get(key)
                if entry is None:
                    entry = pairs[key] = [0, 0, 0, 0]
                entry[0] += 1
                entry[1] += first < second
                entry[2] += second < first
                entry[3] += first == second

    def _seat(self, seats: tuple[str, ...], ranks: tuple[int, ...], n: int) -> None:
        overall = self.overall.get(n)
        if overall is None:
            overall = self.overall[n] = [[0, 0, 0] for _ in range(n)]
            self.by_bot[n] = {}
            self.friedman[n] = FriedmanSums(n)
        by_bot = self.by_bot[n]
        for seat, (bot, rank) in enumerate(zip(seats, ranks)):
            stats = by_bot.get(bot)
            if stats is None:
                stats = by_bot[bot] = [[0, 0, 0] for _ in range(n)]
            for counts in (overall[seat], stats[seat]):
                counts[0] += 1
                counts[1] += rank == 1
                counts[2] += rank
        self.friedman[n].add(ranks)

    def to_json(self) -> dict[str, Any]:
        return {"rated": self.rated, "void": self.void, "seated": self.seated,
                "counts": self.counts, "pairs": [[*key, *value] for key, value in self.pairs.items()],
                "tables": [{"players": n, "overall": self.overall[n], "by_bot": self.by_bot[n],
                            "friedman": [self.friedman[n].blocks, self.friedman[n].sums,
                                         self.friedman[n].squares]}
                           for n in self.overall]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Tally:
        tally = cls()
        tally.rated, tally.void, tally.seated = data["rated"], data["void"], data["seated"]
        tally.counts = {bot: list(values) for bot, values in data["counts"].items()}
        tally.pairs = {(a, b): list(values) for a, b, *values in data["pairs"]}
        for table in data["tables"]:
            n = table["players"]
            tally.overall[n] = table["overall"]
            tally.by_bot[n] = table["by_bot"]
            blocks, sums, squares = table["friedman"]
            tally.friedman[n] = FriedmanSums(n, blocks, sums, squares)
        return tally


class Fold:
    """A game log folded in schedule order: the ratings (:class:`Rater`) and the
    :class:`Tally`, and which games went in (how many, the sum of their ids, the last
    schedule index), so a fold kept with the log can be checked against it, reused, and
    carried on with the games after ``last_index`` (``to_json``)."""

    def __init__(self, params: RatingConfig) -> None:
        self.rater = Rater(params)
        self.tally = Tally()
        self.games = 0
        self.id_sum = 0
        self.last_index = -1

    def add(self, outcome: Outcome) -> None:
        """Fold the next game in schedule order."""
        self.rater.add(outcome)
        self.tally.add(outcome)
        self.games += 1
        self.id_sum += outcome.game_id or 0
        self.last_index = max(self.last_index, outcome.index)

    def to_json(self) -> dict[str, Any]:
        """The fold as JSON-ready data, a copy: folding more games does not change it."""
        return {"games": self.games, "id_sum": self.id_sum, "last_index": self.last_index,
                "ratings": {bot: list(pair) for bot, pair in self.rater.made_from.items()},
                "tally": copy.deepcopy(self.tally.to_json())}

    @classmethod
    def from_json(cls, params: RatingConfig, data: Mapping[str, Any]) -> Fold:
        fold = cls(params)
        fold.games, fold.id_sum = data["games"], data["id_sum"]
        fold.last_index = data["last_index"]
        for bot, (mu, sigma) in data["ratings"].items():
            fold.rater.made_from[bot] = (mu, sigma)
            fold.rater.ratings[bot] = trueskill.Rating(mu, sigma)
        fold.tally = Tally.from_json(data["tally"])
        return fold


def fold_key(params: RatingConfig) -> dict[str, Any]:
    """What a kept fold must have been made with to be reused: the rating parameters
    and :data:`FOLD_VERSION`."""
    return {"version": FOLD_VERSION, "mu": params.mu, "sigma": params.sigma,
            "beta": params.beta, "tau": params.tau, "draw_probability": params.draw_probability}


def build_board(outcomes: Iterable[Outcome], bots: Iterable[str],
                params: RatingConfig | None = None,
                faults: Mapping[str, Mapping[str, int]] | None = None,
                resamples: int | None = None, seed: int = 0,
                confidence: float = 0.95) -> Board:
    """The full leaderboard of a game log.

    ``resamples``: bootstrap resamples for the rank ranges (default: as many
    as :func:`auto_resamples` allows). ``seed`` makes the resampling, and so
    the output, deterministic. ``confidence``: the verdict's.
    """
    params = params or RatingConfig()
    ordered = sorted(outcomes, key=lambda o: o.index)
    fold = Fold(params)
    for outcome in ordered:
        fold.add(outcome)
    return board_from(fold, bots, params, lambda: ordered, faults, resamples, seed, confidence)


def board_from(fold: Fold, bots: Iterable[str], params: RatingConfig,
               log: Callable[[], Iterable[Outcome]],
               faults: Mapping[str, Mapping[str, int]] | None = None,
               resamples: int | None = None, seed: int = 0,
               confidence: float = 0.95) -> Board:
    """The full leaderboard from a log's :class:`Fold`. ``log()`` gives the log again,
    in schedule order; it is read only for what the fold does not hold: the bootstrap
    (when resampling), the bots' histories and the verdict (when asked for)."""
    tally, rater = fold.tally, fold.rater
    names = list(dict.fromkeys([*bots, *tally.counts]))

    def rated() -> list[Outcome]:
        return [outcome for outcome in log() if outcome.rated]

    asked = resamples is not None
    if resamples is None:
        mean_players = tally.seated / tally.rated if tally.rated else 2
        resamples = auto_resamples(tally.rated, mean_players)
    resampled = rated() if tally.rated and resamples > 0 else []
    boot = bootstrap(resampled, names, params, resamples, seed)

    counts: dict[str, dict[str, int]] = {bot: dict(faults.get(bot, {})) for bot in names} \
        if faults else {bot: {} for bot in names}
    unsorted = []
    for bot in names:
        rating = rater.rating(bot)
        games, wins, places, score, ties = tally.counts.get(bot, (0, 0, 0, 0.0, 0))
        conservative = rating.mu - 3 * rating.sigma
        samples = [mu - 3 * sigma for mu, sigma in boot[bot]]
        low, high = (percentile(samples, 2.5), percentile(samples, 97.5)) if samples \
            else (conservative, conservative)
        boot_sd = _sd([mu for mu, _ in boot[bot]])
        provisional = games < PROVISIONAL_GAMES or rating.sigma > PROVISIONAL_SIGMA * params.sigma
        unsorted.append(dict(
            bot=bot, mu=rating.mu, sigma=rating.sigma, conservative=conservative, games=games,
            wins=wins, win_rate=wins / games if games else 0.0,
            mean_place=places / games if games else 0.0, provisional=provisional,
            norm_score=score / games if games else 0.0, ties=ties, faults=counts[bot],
            boot_low=low, boot_high=high, boot_sd=boot_sd))
    unsorted.sort(key=lambda r: (-r["conservative"], r["bot"]))
    ranges = rank_ranges([[mu - 3 * sigma for mu, sigma in boot[r["bot"]]] for r in unsorted])
    rows = [Row(rank=rank, rank_low=lo, rank_high=hi, **values)
            for rank, (values, (lo, hi)) in enumerate(zip(unsorted, ranges), 1)]

    order = [row.bot for row in rows]
    ratings = {row.bot: (row.mu, row.sigma) for row in rows}
    return Board(
        rows=rows, params=params, resamples=resamples if tally.rated else 0, seed=seed,
        rated_games=tally.rated, void_games=tally.void,
        h2h=head_to_head(tally, order, ratings, params),
        los=los_matrix(order, ratings, boot),
        seats=seat_tables(tally),
        replay=lambda: histories(rated(), names, params), faults=counts,
        too_long=bool(tally.rated) and not asked and not resamples,
        judged=lambda: judge_log(resampled, names, confidence) if resampled else None,
        deal_sets=len(units_of(resampled)))


def judge_log(rated: Iterable[Outcome], names: Sequence[str], confidence: float) -> Verdict:
    """The deal sets' verdict on the bots' order (:mod:`ratings.verdict`)."""
    sets = DealSets()
    for outcome in rated:
        sets.add_outcome(outcome)
    return verdict(sets.complete(), names, confidence)


def histories(rated: Iterable[Outcome], names: Sequence[str], params: RatingConfig
              ) -> dict[str, list[HistoryPoint]]:
    """Per bot, its rating after each of its games (``rated``: in schedule order)."""
    rater = Rater(params)
    history: dict[str, list[HistoryPoint]] = {bot: [] for bot in names}
    ratings = rater.ratings
    for outcome in rated:
        rater.add(outcome)
        seats = outcome.seats
        for bot, rank in zip(seats, outcome.ranks):
            rating = ratings[bot]
            others = tuple([name for name in seats if name != bot])
            history[bot].append(HistoryPoint(outcome.index, outcome.game_id, len(seats),
                                             rank, rating.mu, rating.sigma, others))
    return history


def leaderboard(outcomes: Iterable[Outcome], bots: Iterable[str],
                params: RatingConfig | None = None) -> list[Row]:
    """One row per bot, best first by conservative rating (mu − 3·sigma).

    A shared first place counts as a win. Unrated (void) games count for
    neither games nor wins. These are the rows of :func:`build_board` without
    resampling, so each rank range is the rank alone.
    """
    return build_board(outcomes, bots, params, resamples=0).rows


def bootstrap(rated: Sequence[Outcome], names: Sequence[str], params: RatingConfig,
              resamples: int, seed: int) -> dict[str, list[tuple[float, float]]]:
    """Final (mu, sigma) of every bot after each of ``resamples`` resampled replays.

    A resample draws as many deal sets as the log has (a game's group: one deal at one
    table in every seat rotation; a game without a group is one of its own) with
    replacement and replays their games, from the prior, in the order drawn (a deal
    set's games in schedule order): so the spread shows both which deals were played
    and how much the online rating depends on their order. Deal sets, not games: the
    rotations of one deal are not independent draws, and resampling them one by one
    would break up the seat balance that cancels the deal's luck. The resamples
    are independent, so they run side by side, and within one resample two games of no
    common bot may be rated in either order: they are rated in waves
    (:meth:`_SortedLog.waves`), each wave every game of every resample whose bots' earlier
    games are all rated, the games of each table size in one batch
    (:mod:`ratings.batch_trueskill`), but for a few tables of three or more, which the
    scalar replica rates faster one by one. Each bot's games are rated in the order
    drawn, so the result is the order drawn's.
    """
    result: dict[str, list[tuple[float, float]]] = {bot: [] for bot in names}
    if not rated or resamples <= 0:
        return result
    batch, tables = BatchTrueSkill(params), FastTrueSkill(params)
    log = _SortedLog(rated, names)
    mu = np.full((resamples, len(names)), params.mu)
    sigma = np.full((resamples, len(names)), params.sigma)
    draws = deal_set_draws(rated, resamples, seed)
    for rows, drawn in log.waves(draws):
        for size, members in log.rows_by_size(drawn):
            local = log.local[drawn[members]]
            seats = log.seats[size][local]
            where = (rows[members, None], seats)
            ties = log.ties[size][local]
            if size == 2:
                mu[where], sigma[where] = batch.rate_sorted(mu[where], sigma[where], ties[:, 0])
            elif len(members) >= TABLE_BATCH_ROWS:
                mu[where], sigma[where] = batch.rate_table_sorted(mu[where], sigma[where], ties)
            else:
                _rate_each(tables, mu, sigma, rows[members], seats, log.ranks[size][local])
    for column, bot in enumerate(names):
        result[bot] = list(zip(mu[:, column].tolist(), sigma[:, column].tolist()))
    return result


def units_of(rated: Sequence[Outcome]) -> list[list[int]]:
    """The positions in ``rated`` of each deal set's games (its group's; a game without
    a group alone), deal sets in the order of their first game."""
    units: dict[tuple[str, int], list[int]] = {}
    for position, outcome in enumerate(rated):
        key = ("group", outcome.group) if outcome.group is not None else ("game", position)
        units.setdefault(key, []).append(position)
    return list(units.values())


def deal_set_draws(rated: Sequence[Outcome], resamples: int, seed: int) -> np.ndarray:
    """Per resample, the positions in ``rated`` of the games of its drawn deal sets, in
    play order; rows shorter than the longest (deal sets of fewer games drawn) end in −1."""
    members = units_of(rated)
    drawn = np.random.default_rng(seed).integers(0, len(members), size=(resamples, len(members)))
    sizes = {len(unit) for unit in members}
    if len(sizes) == 1:   # every deal set the same size: one gather
        return np.array(members)[drawn].reshape(resamples, -1)
    rows = [np.concatenate([members[unit] for unit in row]) for row in drawn.tolist()]
    longest = max(len(row) for row in rows)
    return np.array([np.pad(row, (0, longest - len(row)), constant_values=-1) for row in rows])


def _rate_each(engine: FastTrueSkill, mu: np.ndarray, sigma: np.ndarray, rows: np.ndarray,
               seats: np.ndarray, ranks: np.ndarray) -> None:
    """Rate one game per row with the scalar replica (a few tables of three or more)."""
    for row, game_seats, game_ranks in zip(rows.tolist(), seats.tolist(), ranks.tolist()):
        updated = engine.rate(list(zip(mu[row, game_seats].tolist(),
                                       sigma[row, game_seats].tolist())), game_ranks)
        mu[row, game_seats] = [rating[0] for rating in updated]
        sigma[row, game_seats] = [rating[1] for rating in updated]


class _SortedLog:
    """A game log as arrays: per table size, each game's seats (as bot columns) in
    rank order and which neighbours tie, so resamples can gather them in batches."""

    def __init__(self, rated: Sequence[Outcome], names: Sequence[str]) -> None:
        column = {bot: index for index, bot in enumerate(names)}
        games = [canonical(o.seats, o.ranks) for o in rated]
        self.size = np.array([len(seats) for seats, _ in games])
        self.local = np.zeros(len(games), dtype=np.int64)
        self.seats: dict[int, np.ndarray] = {}
        self.ties: dict[int, np.ndarray] = {}
        self.ranks: dict[int, np.ndarray] = {}
        for size in sorted(set(self.size.tolist())):
            members = np.nonzero(self.size == size)[0]
            self.local[members] = np.arange(len(members))
            self.seats[size] = np.array([[column[bot] for bot in games[i][0]] for i in members])
            self.ranks[size] = np.array([games[i][1] for i in members])
            self.ties[size] = np.array([[a == b for a, b in zip(games[i][1], games[i][1][1:])]
                                        for i in members]).reshape(len(members), size - 1)
        # Each game's bots as columns, a smaller table's seats left over as len(names).
        self.bots = len(names)
        widest = max([len(seats) for seats, _ in games], default=0)
        self.at_table = np.full((len(games), widest), len(names), dtype=np.int64)
        for row, (seats, _) in enumerate(games):
            self.at_table[row, :len(seats)] = [column[bot] for bot in seats]

    def waves(self, draws: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The games of ``draws`` (per resample, its games in order; −1: none) in waves:
        each wave's resamples and games, a game in the wave after the last one holding
        an earlier game of that resample with one of its bots. So a resample's games of
        one wave share no bot, and each bot's games come in the order drawn: a game rates
        only its own bots, so rated wave by wave each resample ends as rated in order.
        A log of many bots at small tables has far fewer waves than games: fewer and
        larger batches."""
        resamples, steps = draws.shape
        bots = self.bots
        # The wave of each bot's last game so far, per resample; the last column is the
        # empty seat of a smaller table, never rated.
        last = np.full((resamples, bots + 1), -1, dtype=np.int64)
        wave = np.full((resamples, steps), -1, dtype=np.int64)
        every = np.arange(resamples)
        for step in range(steps):
            drawn = draws[:, step]
            rows = every[drawn >= 0]
            seats = self.at_table[drawn[rows]]
            at = (rows[:, None], seats)
            wave[rows, step] = here = last[at].max(axis=1) + 1
            last[at] = here[:, None]
            last[:, bots] = -1
        order = np.argsort(wave, axis=None, kind="stable")
        flat = wave.ravel()[order]
        bounds = np.searchsorted(flat, np.arange(flat[-1] + 2))
        for first, end in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            if first < end and flat[first] >= 0:
                rows, steps_at = np.divmod(order[first:end], steps)
                yield rows, draws[rows, steps_at]

    def rows_by_size(self, drawn: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """The positions in ``drawn`` (games of the log) of the games of each table size."""
        if len(self.seats) == 1:
            return [(next(iter(self.seats)), np.arange(len(drawn)))]
        sizes = self.size[drawn]
        return [(size, np.nonzero(sizes == size)[0]) for size in self.seats]


#: A bot is clearly above another when it is above in this share of the resamples.
CLEARLY = 0.975


def share_above(first: Sequence[float], second: Sequence[float]) -> float:
    """The share of resamples in which the first bot's key beats the second's (ties: half)."""
    if not first:
        return 0.5
    return sum(1.0 if a > b else 0.5 if a == b else 0.0
               for a, b in zip(first, second)) / len(first)


def rank_ranges(samples: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """Rank ranges from resampled sort keys, bots in leaderboard order (best first).

    ``samples[i][r]`` is bot i's key (mu − 3·sigma) in resample r. A bot's best
    possible rank is 1 + the number of bots clearly above it (above it in at
    least 97.5% of the resamples), its worst n − the number clearly below.
    Comparing within each resample cancels what moves every rating at once
    (the online ratings drift together), which intervals of each bot alone
    would not. The range always holds the bot's own rank.
    """
    n = len(samples)
    if not any(samples):       # no resampling: nothing to widen the ranks with
        return [(i, i) for i in range(1, n + 1)]
    ranges = []
    for i in range(n):
        others = [j for j in range(n) if j != i]
        above = sum(1 for j in others if share_above(samples[j], samples[i]) >= CLEARLY)
        below = sum(1 for j in others if share_above(samples[i], samples[j]) >= CLEARLY)
        ranges.append((min(1 + above, i + 1), max(n - below, i + 1)))
    return ranges


def predicted_ahead(a: tuple[float, float], b: tuple[float, float], beta: float) -> float:
    """P(a finishes ahead of b) in one game under the TrueSkill model (draw margin aside).

    Each performance is skill + N(0, beta²) noise, so in any game, of any size,
    P(perf_a > perf_b) = Φ((mu_a − mu_b) / √(2·beta² + sigma_a² + sigma_b²)).
    """
    (mu_a, sigma_a), (mu_b, sigma_b) = a, b
    return normal_cdf((mu_a - mu_b) / math.sqrt(2 * beta ** 2 + sigma_a ** 2 + sigma_b ** 2))


def head_to_head(tally: Tally, order: Sequence[str],
                 ratings: Mapping[str, tuple[float, float]],
                 params: RatingConfig) -> list[HeadToHead]:
    """Every pair of bots that shared a game, in leaderboard order."""
    position = {bot: index for index, bot in enumerate(order)}
    pairs = []
    for (x, y), (games, x_ahead, y_ahead, ties) in tally.pairs.items():
        if position[x] > position[y]:
            x, y, x_ahead, y_ahead = y, x, y_ahead, x_ahead
        pairs.append(HeadToHead(x, y, games, x_ahead, y_ahead, ties,
                                predicted_ahead(ratings[x], ratings[y], params.beta)))
    pairs.sort(key=lambda p: (position[p.a], position[p.b]))
    return pairs


def los(a: tuple[float, float], b: tuple[float, float],
        boot_sd: float | None = None) -> float:
    """Likelihood of superiority P(skill_a > skill_b).

    Under the TrueSkill posterior the difference of skills is normal with mean
    mu_a − mu_b and variance sigma_a² + sigma_b². When a bootstrap was run,
    its standard deviation of the difference of the two mus, if larger, takes
    the place of that standard deviation: the posterior alone is
    overconfident when the game is noisier than TrueSkill assumes.
    """
    (mu_a, sigma_a), (mu_b, sigma_b) = a, b
    sd = math.sqrt(sigma_a ** 2 + sigma_b ** 2)
    if boot_sd is not None:
        sd = max(sd, boot_sd)
    return normal_cdf((mu_a - mu_b) / sd) if sd > 0 else 0.5


def _sd(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def los_matrix(order: Sequence[str], ratings: Mapping[str, tuple[float, float]],
               boot: Mapping[str, Sequence[tuple[float, float]]]
               ) -> dict[tuple[str, str], float]:
    matrix = {}
    for a in order:
        for b in order:
            if a == b:
                continue
            diffs = [x[0] - y[0] for x, y in zip(boot.get(a, ()), boot.get(b, ()))]
            matrix[a, b] = los(ratings[a], ratings[b], _sd(diffs) if len(diffs) > 1 else None)
    return matrix


def seat_tables(tally: Tally) -> list[SeatTable]:
    """One seat table per table size present in the log."""
    tables = []
    for players in sorted(tally.overall):
        statistic, df, p_value = tally.friedman[players].test()
        tables.append(SeatTable(players, tally.friedman[players].blocks,
                                [SeatStats(*counts) for counts in tally.overall[players]],
                                {bot: [SeatStats(*counts) for counts in stats]
                                 for bot, stats in sorted(tally.by_bot[players].items())},
                                statistic, df, p_value))
    return tables


# -- round by round (a Swiss, a stop rule) ------------------------------------------------

class Standing(NamedTuple):
    """A bot's rating after a round."""

    bot: str
    mu: float
    sigma: float
    games: int

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class RoundRecord:
    """One round as played, and where it left the tournament."""

    number: int                          # from 1
    games: int                           # its games stored
    standings: list[Standing]            # after it, best first (mu − 3σ)
    # A Swiss round's pairing (empty for a schedule fixed in advance).
    tables: list[tuple[str, ...]] = field(default_factory=list)
    byes: list[str] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)   # left out: did not start
    # The stop rule after the round: None without one, or for a round not over.
    stop: str | None = None


@dataclass(frozen=True)
class RoundHistory:
    """A tournament round by round, and in one line how its stop rule ended (or that it
    has none, or has not fired, and why)."""

    rounds: list[RoundRecord]
    planned: int                         # the rounds the schedule makes
    swiss: bool
    stop_rule: str | None                # None: no stop rule
