"""Collusion: does a pair of bots do differently when it shares a table?

Two bots that help each other (one throws its games to the other, or both play
soft against each other) show it in one place: their results when seated
together differ from their results apart, against the same opponents. No rating
model is needed for that, and none is used: TrueSkill's online ratings never stop
moving (tau), and on a long log their leftover error, fixed per bot, made honest
pairs look significant (an honest simulated field of 12 bots and 33,000 games had
5 pairs flagged with residuals against the ratings, none with these):

* a bot's result against another in a game is 1 (ahead), ½ (tied) or 0; its
  expected result against that other is its mean result against it over the tables
  kept (per game); a table's residual for the bot is the mean, over the others
  there, of its result against each (averaged over the table's games) − expected;
* the unit is a table on one deal (all its seat rotations): the deal's luck, which
  the rotations share, stays inside one observation;
* for a pair (a, b): d_a = a's mean residual at tables with b − at tables without
  b, d_b likewise; (d_a, d_b) has a covariance from the spread of the residuals
  (with the shared tables' covariance of a's and b's residuals), and X = dᵀ Σ⁻¹ d is
  Hotelling's T² of 2 dimensions when the pair's results do not depend on sitting
  together: with ν the smaller of d_a's and d_b's Welch–Satterthwaite degrees of
  freedom, p = (1 + X/ν)^(−(ν − 1)/2), its F(2, ν − 1) tail;
* a pair is tested only with MIN_TABLES tables together and apart for each of its
  bots (which the schedule decides, not the results); the others have no p-value;
* the tested pairs' p-values are corrected for their number with Holm's step-down
  method, so the chance of flagging any pair of an honest field is at most alpha (0.01);
* when several pairs pass a step, the one flagged is the pair whose p-value is
  smallest with the expected results taken from the tables without it;
* a flagged pair is explained away before the rest are tested again: its tables
  bend the expected results of its bots (a shill's results against everyone fall),
  which would make their other tables look better and flag their other pairs too.
  So the tables where it sat together are set aside, the expected results taken
  again from the rest, and the remaining pairs tested, the Holm step going on (the
  next pair needs p ≤ alpha / (pairs left)).

A bot's result against its partner is only ever measured together, so it cancels
out: what is tested is how each does against the others at the table. It needs
four bots or more (with as many bots as seats every table holds every pair, and
there is no "apart") and three seats or more (at two, a table holds no one else).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Mapping, Sequence

from ratings.sprt import DealGame

#: The family-wise error rate of the pair flags.
ALPHA = 0.01
#: Fewest tables (deal sets) together and apart, for each bot of a pair, before the
#: pair is tested: fewer make the variances, and so the p-value, unreliable.
MIN_TABLES = 8

#: A pair's test before the correction: a, b, tables together, a apart, b apart, the
#: shifts, the statistic and the p-value (PairCollusion's first fields; None: untested).
Tested = tuple[str, str, int, int, int, float | None, float | None, float | None,
               float | None]


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
    p_value: float | None    # None: not tested
    adjusted: float | None   # Holm-corrected over the pairs tested
    flagged: bool

    @property
    def tested(self) -> bool:
        return self.p_value is not None


@dataclass(frozen=True)
class CollusionCheck:
    """Every pair's test, or why none could be made."""

    pairs: list[PairCollusion]
    alpha: float
    # Why no pair was tested (fewer than four bots, too few tables), else None.
    untested: str | None = None

    @property
    def flagged(self) -> list[PairCollusion]:
        return [pair for pair in self.pairs if pair.flagged]

    @property
    def tested(self) -> int:
        """How many pairs were tested (the others have no p-value)."""
        return sum(pair.tested for pair in self.pairs)


Table = tuple[int, tuple[str, ...]]


def pairwise(games: Iterable[DealGame]) -> dict[Table, dict[str, dict[str, list[float]]]]:
    """Per table on a deal (the deal and its bots, sorted), per bot, per other bot there:
    the bot's summed result against the other over the table's rated games (1 ahead,
    ½ tied, 0 behind) and the games counted."""
    tables: dict[Table, dict[str, dict[str, list[float]]]] = {}
    for game in games:
        seats = game.seats
        if not game.rated or len(set(seats)) != len(seats) or len(seats) < 2:
            continue
        table = tables.setdefault((game.deal, tuple(sorted(seats))), {})
        for bot, rank in zip(seats, game.ranks):
            against = table.setdefault(bot, {})
            for other, theirs in zip(seats, game.ranks):
                if other != bot:
                    entry = against.setdefault(other, [0.0, 0])
                    entry[0] += 1.0 if rank < theirs else 0.5 if rank == theirs else 0.0
                    entry[1] += 1
    return tables


def residuals(tables: Mapping[Table, Mapping[str, Mapping[str, list[float]]]],
              basis: Iterable[Table]) -> list[dict[str, float]]:
    """Each table's residual per bot: the mean, over the others there, of its result
    against the other − its result against the other over the ``basis`` tables (per
    game). An other it never met in the basis is left out."""
    sums: dict[tuple[str, str], list[float]] = {}
    for key in basis:
        for bot, against in tables[key].items():
            for other, (total, count) in against.items():
                entry = sums.setdefault((bot, other), [0.0, 0])
                entry[0] += total
                entry[1] += count
    expected = {pair: total / count for pair, (total, count) in sums.items()}
    result = []
    for table in tables.values():
        row = {}
        for bot, against in table.items():
            terms = [total / count - expected[bot, other]
                     for other, (total, count) in against.items() if (bot, other) in expected]
            if terms:
                row[bot] = sum(terms) / len(terms)
        result.append(row)
    return result


def collusion(games: Iterable[DealGame], alpha: float = ALPHA) -> CollusionCheck:
    """Test every pair of rated bots (the method is in this module's docstring)."""
    tables = pairwise(games)
    bots = sorted({bot for table in tables.values() for bot in table})
    if len(bots) < 4:
        return CollusionCheck([], alpha, f"{len(bots)} bots: collusion needs four or more "
                                         "(with fewer, tables hold every pair)")
    if max(len(table) for table in tables.values()) < 3:
        return CollusionCheck([], alpha, "2-player tables only: collusion needs three seats "
                                         "or more (at two, a table holds no one else)")
    pairs = list(combinations(bots, 2))
    flagged: list[PairCollusion] = []
    kept, floor = dict(tables), 0.0
    while True:
        rows = residuals(kept, kept)
        tested = holm([_pair(a, b, rows) for a, b in pairs], alpha, floor)
        candidates = [pair for pair in tested if pair.flagged]
        if not candidates:
            return checked(_in_order(flagged + tested, bots), alpha)
        best = min(candidates, key=lambda pair: (_out_of_sample(pair, kept), pair.a, pair.b))
        assert best.adjusted is not None, "a flagged pair was tested"
        flagged.append(best)
        floor = best.adjusted
        pairs.remove((best.a, best.b))
        kept = {key: table for key, table in kept.items()
                if not (best.a in table and best.b in table)}


def checked(pairs: list[PairCollusion], alpha: float) -> CollusionCheck:
    """The check of ``pairs``, saying why nothing was tested when no pair was."""
    if any(pair.tested for pair in pairs):
        return CollusionCheck(pairs, alpha)
    return CollusionCheck(pairs, alpha, f"none of the {len(pairs)} pairs has {MIN_TABLES} "
                                        "tables together and apart for each of its bots")


def _out_of_sample(pair: PairCollusion,
                   tables: Mapping[Table, Mapping[str, Mapping[str, list[float]]]]) -> float:
    """The pair's p-value with the expected results taken from the tables without it:
    which of the pairs flagged at a step did it (the others only look it, through
    expected results the colluders' tables bent)."""
    apart = [key for key, table in tables.items() if not (pair.a in table and pair.b in table)]
    p_value = _pair(pair.a, pair.b, residuals(tables, apart))[-1]
    return 1.0 if p_value is None else p_value


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
        return (a, b, *counts, None, None, None, None)
    with_a, with_b = [x for x, _ in together], [y for _, y in together]
    shift_a, shift_b = _mean(with_a) - _mean(a_apart), _mean(with_b) - _mean(b_apart)
    n = len(together)
    parts_a = (_covariance(with_a, with_a) / n, _covariance(a_apart, a_apart) / len(a_apart))
    parts_b = (_covariance(with_b, with_b) / n, _covariance(b_apart, b_apart) / len(b_apart))
    var_a, var_b = sum(parts_a), sum(parts_b)
    cov = _covariance(with_a, with_b) / n
    determinant = var_a * var_b - cov * cov
    if determinant <= 1e-18 * max(var_a * var_b, 1e-300):
        return (a, b, *counts, shift_a, shift_b, None, None)
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
    """Holm's step-down correction of the p-values of the pairs tested (those untested
    are no hypothesis of the family, and keep no p-value); the pairs come back in their
    given order. ``floor``: the adjusted p-value of the last pair flagged at an earlier
    step (the adjusted values never fall from step to step)."""
    p_values = {i: values[-1] for i, values in enumerate(tested) if values[-1] is not None}
    adjusted: dict[int, float] = {}
    running = floor
    for step, index in enumerate(sorted(p_values, key=p_values.__getitem__)):
        running = max(running, min(1.0, (len(p_values) - step) * p_values[index]))
        adjusted[index] = running
    return [PairCollusion(*values, adjusted=adjusted.get(i),
                          flagged=i in adjusted and adjusted[i] <= alpha)
            for i, values in enumerate(tested)]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _covariance(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The sample covariance (n − 1 in the denominator)."""
    mx, my = _mean(xs), _mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / (len(xs) - 1)
