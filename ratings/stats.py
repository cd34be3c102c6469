"""The little statistics the leaderboards need, in the standard library only."""

from __future__ import annotations

import functools
import math
from typing import Mapping, Sequence


def normal_cdf(x: float) -> float:
    """P(Z <= x) for a standard normal Z."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0–100) with linear interpolation between order statistics."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` (a positive integer) degrees of freedom.

    Exact closed forms: for even df, exp(-x/2)·Σ_{i<df/2} (x/2)^i / i!; for odd df,
    erfc(√(x/2)) + exp(-x/2)·Σ_{i=1}^{(df-1)/2} (x/2)^(i-1/2) / Γ(i+1/2).
    """
    if df < 1 or int(df) != df:
        raise ValueError(f"df must be a positive integer, not {df}")
    if x <= 0:
        return 1.0
    half = x / 2.0
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return min(1.0, math.exp(-half) * total)
    total = math.erfc(math.sqrt(half))
    if df > 1:
        # term_i = half^(i-1/2) / Γ(i+1/2), starting at i = 1: √half / Γ(3/2).
        term = math.sqrt(half) / math.gamma(1.5)
        series = term
        for i in range(2, (df - 1) // 2 + 1):
            term *= half / (i - 0.5)
            series += term
        total += math.exp(-half) * series
    return min(1.0, total)


def t_within(t: float, df: int) -> float:
    """P(|T| <= t) for T Student's t with ``df`` (a positive integer) degrees of freedom.

    Exact closed forms in θ = atan(t/√df) (Abramowitz and Stegun 26.7.3-4): for odd df,
    (2/π)(θ + sinθ·Σ c_k cos^(2k+1)θ); for even df, sinθ·Σ c_k cos^(2k)θ.
    """
    if df < 1 or int(df) != df:
        raise ValueError(f"df must be a positive integer, not {df}")
    theta = math.atan(abs(t) / math.sqrt(df))
    sin, cos2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 0:
        term = total = 1.0
        for k in range(1, df // 2):
            term *= cos2 * (2 * k - 1) / (2 * k)
            total += term
        return sin * total
    if df == 1:
        return 2.0 * theta / math.pi
    term = total = math.cos(theta)
    for k in range(1, (df - 1) // 2):
        term *= cos2 * (2 * k) / (2 * k + 1)
        total += term
    return 2.0 / math.pi * (theta + sin * total)


@functools.lru_cache(maxsize=256)
def t_quantile(confidence: float, df: int) -> float:
    """The t with P(|T| <= t) = ``confidence`` (a two-sided interval's multiplier: 12.71
    at 95% with one degree of freedom, 1.96 in the limit), by bisection on :func:`t_within`."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be within (0, 1), not {confidence}")
    low, high = 0.0, 1.0
    while t_within(high, df) < confidence:
        low, high = high, high * 2.0
    for _ in range(100):
        middle = (low + high) / 2.0
        if t_within(middle, df) < confidence:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def midranks(ranks: Sequence[int]) -> list[float]:
    """Competition ranks (1, 1, 3) to mid-ranks (1.5, 1.5, 3), as rank tests need."""
    result = []
    for rank in ranks:
        shared = sum(1 for other in ranks if other == rank)
        result.append(rank + (shared - 1) / 2.0)
    return result


def friedman(blocks: Sequence[Sequence[int]]) -> tuple[float, int, float]:
    """Friedman's test that the treatments (columns) rank alike in every block (row).

    Each block is one game's finishing places by seat (competition ranks; ties are
    turned into mid-ranks and corrected for). Returns (statistic, df, p-value);
    the statistic is chi-square with k − 1 degrees of freedom under the null.
    """
    if not blocks:
        return 0.0, 0, 1.0
    k = len(blocks[0])
    if k < 2 or any(len(block) != k for block in blocks):
        raise ValueError("every block needs the same number (≥ 2) of treatments")
    sums = FriedmanSums(k)
    for block in blocks:
        sums.add(block)
    return sums.test()


class FriedmanSums:
    """What Friedman's test needs of its blocks, summed one block at a time (in the
    order given: the same blocks in the same order give the same floats), so a long
    log's seat test keeps no block."""

    def __init__(self, k: int, blocks: int = 0, sums: Sequence[float] | None = None,
                 squares: float = 0.0) -> None:
        self.k, self.blocks, self.squares = k, blocks, squares
        self.sums = list(sums) if sums is not None else [0.0] * k

    def add(self, block: Sequence[int]) -> None:
        sums = self.sums
        for column, rank in enumerate(midranks(block)):
            sums[column] += rank
            self.squares += rank * rank
        self.blocks += 1

    def test(self) -> tuple[float, int, float]:
        """(statistic, df, p-value), as :func:`friedman`."""
        n, k = self.blocks, self.k
        if not n:
            return 0.0, 0, 1.0
        expected = n * (k + 1) / 2.0
        denominator = self.squares - n * k * (k + 1) ** 2 / 4.0
        if denominator <= 0:   # every game a full tie: nothing to test
            return 0.0, k - 1, 1.0
        statistic = (k - 1) * sum((total - expected) ** 2 for total in self.sums) / denominator
        return statistic, k - 1, chi2_sf(statistic, k - 1)


def kendall_tau(first: Sequence[str], second: Sequence[str]) -> float:
    """Kendall's tau between two orderings of the same items (1: same order, −1: reversed)."""
    if sorted(first) != sorted(second):
        raise ValueError("both orderings must hold the same items")
    position = {item: index for index, item in enumerate(second)}
    n = len(first)
    if n < 2:
        return 1.0
    concordant = discordant = 0
    for i in range(n):
        for j in range(i + 1, n):
            if position[first[i]] < position[first[j]]:
                concordant += 1
            else:
                discordant += 1
    return (concordant - discordant) / (n * (n - 1) / 2)


def kendall_tau_b(order: Sequence[str], strength: Mapping[str, float]) -> float:
    """Kendall's tau-b between an ordering (best first) and known strengths, which may tie.

    Pairs of equal strength count in neither direction; the score is
    (concordant − discordant) / √(pairs · pairs of unequal strength).
    """
    n = len(order)
    pairs = n * (n - 1) // 2
    concordant = discordant = 0
    for i in range(n):
        for j in range(i + 1, n):
            difference = strength[order[i]] - strength[order[j]]
            concordant += difference > 0
            discordant += difference < 0
    unequal = concordant + discordant
    return (concordant - discordant) / math.sqrt(pairs * unequal) if unequal else 0.0
