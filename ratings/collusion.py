"""Collusion: does a pair of bots do differently when it shares a table?

Two bots that help each other (one throws its games to the other, or both play
soft against each other) show it in one place: their results when seated
together differ from their results apart by more than the other players at
those tables explain. The ratings say what the other players explain:

* a bot's result in a game is its share of the others it finished ahead of
  (a tie counting half); what the ratings predict is the mean of
  :func:`ratings.board.predicted_ahead` over the same others; the residual is
  the difference;
* the unit is a table on one deal (all its seat rotations, averaged): the deal's
  luck, which the rotations share, stays inside one observation;
* for a pair (a, b): d_a = a's mean residual at tables with b − at tables
  without b, d_b likewise; (d_a, d_b) has a covariance from the spread of the
  residuals (with the shared tables' covariance of a's and b's residuals:
  they are measured at the same tables), and X = dᵀ Σ⁻¹ d is Hotelling's T² of 2
  dimensions when the pair's results do not depend on sitting together: with ν the
  smaller of d_a's and d_b's Welch–Satterthwaite degrees of freedom,
  p = (1 + X/ν)^(−(ν − 1)/2), its F(2, ν − 1) tail (the chi-square tail, which it
  tends to for many tables, flagged 7% of honest fields of 24 tables per group at
  a nominal 5%);
* the pairs' p-values are corrected for their number with Holm's step-down
  method, so the chance of flagging any pair of an honest field is at most
  alpha (0.01 by default);
* when several pairs pass a step, the one flagged is the pair whose p-value is
  smallest with ratings made without the games it shared: the colluders' games
  bend the ratings, which can make a pair beside them pass too;
* a flagged pair is explained away before the rest are tested again: the ratings
  absorb part of what it did (a shill's rating falls), which would make its bots'
  other tables look better than predicted and flag their other pairs too. So the
  tables where the flagged pair sat together are set aside, the rest rated again
  (TrueSkill, in the order given), and the remaining pairs tested on those ratings,
  the Holm step going on (the next pair needs p ≤ alpha / (pairs left)).

It needs four bots or more: with as many bots as seats every table holds
every pair, and there is no "apart" to compare with.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Mapping, Sequence

from ratings.board import predicted_ahead
from ratings.params import RatingConfig
from ratings.sprt import DealGame
from ratings.trueskill_ratings import Outcome, Rater

#: The family-wise error rate of the pair flags.
ALPHA = 0.01
#: Fewest tables (deal sets) together and apart, for each bot of a pair, before the
#: pair is tested: fewer make the variances, and so the p-value, unreliable.
MIN_TABLES = 8

#: A pair's test before the correction: a, b, tables together, a apart, b apart, the
#: shifts, the statistic and the p-value (PairCollusion's first fields).
Tested = tuple[str, str, int, int, int, float | None, float | None, float | None, float]


@dataclass(frozen=True)
class PairCollusion:
    """One pair's test: how a and b do together against apart, beyond their ratings."""

    a: str
    b: str
    together: int            # tables (deal sets) with both
    a_apart: int             # tables with a, without b
    b_apart: int
    shift_a: float | None    # a's mean residual together − apart (None: too few tables)
    shift_b: float | None
    statistic: float | None  # Hotelling's T² (2 dimensions); None: too few tables to test
    p_value: float
    adjusted: float          # Holm-corrected over the pairs tested
    flagged: bool


@dataclass(frozen=True)
class CollusionCheck:
    """Every pair's test, or why none could be made."""

    pairs: list[PairCollusion]
    alpha: float
    # Why no pair was tested (fewer than four bots), else None.
    untested: str | None = None

    @property
    def flagged(self) -> list[PairCollusion]:
        return [pair for pair in self.pairs if pair.flagged]


def residuals(games: Iterable[DealGame], ratings: Mapping[str, tuple[float, float]],
              beta: float) -> dict[tuple[int, tuple[str, ...]], dict[str, float]]:
    """Per table on a deal (the deal and its bots, sorted), each bot's mean residual
    over the table's rated games: actual share of the others beaten − predicted."""
    sums: dict[tuple[int, tuple[str, ...]], dict[str, list[float]]] = {}
    for game in games:
        seats = game.seats
        if not game.rated or len(set(seats)) != len(seats) or len(seats) < 2:
            continue
        table = sums.setdefault((game.deal, tuple(sorted(seats))), {})
        others = len(seats) - 1
        for bot, rank in zip(seats, game.ranks):
            actual = sum(1.0 if rank < other else 0.5 if rank == other else 0.0
                         for other in game.ranks) - 0.5   # itself: a tie, counted out
            predicted = sum(predicted_ahead(ratings[bot], ratings[rival], beta)
                            for rival in seats if rival != bot)
            entry = table.setdefault(bot, [0.0, 0])
            entry[0] += (actual - predicted) / others
            entry[1] += 1
    return {key: {bot: total / count for bot, (total, count) in table.items()}
            for key, table in sums.items()}


def collusion(games: Sequence[DealGame], params: RatingConfig, alpha: float = ALPHA,
              ratings: Mapping[str, tuple[float, float]] | None = None) -> CollusionCheck:
    """Test every pair of rated bots; ``games`` in schedule order (the order rated).

    The method is in this module's docstring: Holm's step-down over the pairs, each
    flagged pair's shared tables set aside and the rest rated again before the next step.
    ``ratings``: the (mu, sigma) of all the games when the caller has them (a board's),
    so the first step, often the only one, rates nothing again.
    """
    bots = sorted({bot for game in games if game.rated for bot in game.seats})
    if len(bots) < 4:
        return CollusionCheck([], alpha, f"{len(bots)} bots: collusion needs four or more "
                                         "(with fewer, tables hold every pair)")
    pairs = list(combinations(bots, 2))
    flagged: list[PairCollusion] = []
    kept = list(games)
    while True:
        current = ratings if ratings is not None and not flagged else rate(kept, params)
        tables = list(residuals(kept, current, params.beta).values())
        tested = holm([_pair(a, b, tables) for a, b in pairs], alpha,
                      flagged[-1].adjusted if flagged else 0.0)
        candidates = [pair for pair in tested if pair.flagged]
        if not candidates:
            return CollusionCheck(_in_order(flagged + tested, bots), alpha)
        best = min(candidates, key=lambda pair: (_out_of_sample(pair, kept, params), pair.a,
                                                 pair.b))
        flagged.append(best)
        pairs.remove((best.a, best.b))
        kept = [game for game in kept if not {best.a, best.b} <= set(game.seats)]


def _out_of_sample(pair: PairCollusion, games: Sequence[DealGame],
                   params: RatingConfig) -> float:
    """The pair's p-value with the ratings made without the games it shared: which of
    the pairs flagged at a step did it (the others only look it, through ratings the
    colluders' games bent)."""
    apart = [game for game in games if not {pair.a, pair.b} <= set(game.seats)]
    tables = list(residuals(games, rate(apart, params), params.beta).values())
    return _pair(pair.a, pair.b, tables)[-1]


def rate(games: Iterable[DealGame], params: RatingConfig) -> dict[str, tuple[float, float]]:
    """The TrueSkill (mu, sigma) of every bot after ``games``, rated in the order given."""
    rater = Rater(params)
    for index, game in enumerate(games):
        rater.add(Outcome(index, game.seats, game.ranks, game.rated))
    return {bot: (rating.mu, rating.sigma) for bot, rating in rater.ratings.items()}


def _in_order(pairs: list[PairCollusion], bots: list[str]) -> list[PairCollusion]:
    position = {bot: index for index, bot in enumerate(bots)}
    return sorted(pairs, key=lambda pair: (position[pair.a], position[pair.b]))


def _pair(a: str, b: str, tables: Sequence[Mapping[str, float]]
          ) -> Tested:
    together = [(table[a], table[b]) for table in tables if a in table and b in table]
    a_apart = [table[a] for table in tables if a in table and b not in table]
    b_apart = [table[b] for table in tables if b in table and a not in table]
    counts = (len(together), len(a_apart), len(b_apart))
    if min(counts) < MIN_TABLES:
        return (a, b, *counts, None, None, None, 1.0)
    with_a, with_b = [x for x, _ in together], [y for _, y in together]
    shift_a, shift_b = _mean(with_a) - _mean(a_apart), _mean(with_b) - _mean(b_apart)
    n = len(together)
    parts_a = (_covariance(with_a, with_a) / n, _covariance(a_apart, a_apart) / len(a_apart))
    parts_b = (_covariance(with_b, with_b) / n, _covariance(b_apart, b_apart) / len(b_apart))
    var_a, var_b = sum(parts_a), sum(parts_b)
    cov = _covariance(with_a, with_b) / n
    determinant = var_a * var_b - cov * cov
    if determinant <= 1e-18 * max(var_a * var_b, 1e-300):
        return (a, b, *counts, shift_a, shift_b, None, 1.0)
    statistic = (shift_a * shift_a * var_b - 2 * shift_a * shift_b * cov
                 + shift_b * shift_b * var_a) / determinant
    df = min(welch_df(parts_a, (n, len(a_apart))), welch_df(parts_b, (n, len(b_apart))))
    return (a, b, *counts, shift_a, shift_b, statistic, hotelling_sf(statistic, df))


def welch_df(parts: tuple[float, float], counts: tuple[int, int]) -> float:
    """Welch–Satterthwaite's degrees of freedom of a difference of two means, from each
    mean's variance (``parts``) and its sample size."""
    denominator = sum(part * part / (count - 1) for part, count in zip(parts, counts))
    return sum(parts) ** 2 / denominator if denominator > 0 else float(min(counts) - 1)


def hotelling_sf(statistic: float, df: float) -> float:
    """P(T² ≥ statistic) for Hotelling's T² of 2 dimensions and ``df`` degrees of freedom:
    T²·(df − 1)/(2·df) is F(2, df − 1), whose tail is (1 + 2f/(df − 1))^(−(df − 1)/2)."""
    return float((1.0 + statistic / df) ** (-(df - 1) / 2.0))


def holm(tested: Sequence[Tested],
         alpha: float, floor: float = 0.0) -> list[PairCollusion]:
    """Holm's step-down correction of the pairs' p-values (pairs not tested count as
    p = 1 and are never flagged); the pairs come back in their given order. ``floor``:
    the adjusted p-value of the last pair flagged at an earlier step (the adjusted
    values never fall from step to step)."""
    order = sorted(range(len(tested)), key=lambda i: tested[i][-1])
    adjusted = [1.0] * len(tested)
    running = floor
    for step, index in enumerate(order):
        running = max(running, min(1.0, (len(tested) - step) * tested[index][-1]))
        adjusted[index] = running
    return [PairCollusion(*values, adjusted=adjusted[i],
                          flagged=values[-2] is not None and adjusted[i] <= alpha)
            for i, values in enumerate(tested)]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _covariance(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The sample covariance (n − 1 in the denominator)."""
    mx, my = _mean(xs), _mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / (len(xs) - 1)
