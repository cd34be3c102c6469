"""The sequential probability ratio test of an A/B test, from plain deal results.

A and B play the same deals in the same seats against the same fillers (or each
other); each complete deal is one paired comparison: A did better than B on it
(score 1), as well (0.5) or worse (0). The test is the generalised SPRT of
fastchess, cutechess and fishtest in its usual normal approximation, with
logistic Elo (docs/ratings.md, "A/B tests", has the formulas):

* expected score at Elo e: s(e) = 1 / (1 + 10^(−e/400));
* from N results with mean m and variance v = mean(x²) − m²:
  LLR = (s1 − s0) · (2m − s0 − s1) / (2 v / N);
* H1 (elo1) is accepted when LLR ≥ ln((1 − β) / α), H0 (elo0) when
  LLR ≤ ln(β / (1 − α)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence


@dataclass(frozen=True)
class DealGame:
    """What the test needs of one game: its deal and who placed where."""

    deal: int
    seats: tuple[str, ...]
    ranks: tuple[int, ...]
    rated: bool = True


@dataclass(frozen=True)
class SprtResult:
    llr: float
    lower: float
    upper: float
    # Deals counted, and A's better / equal / worse deals among them.
    deals: int
    better: int
    equal: int
    worse: int
    # "H1" (A is elo1 stronger), "H0" (at most elo0), or None: go on.
    verdict: str | None
    elo: float

    def line(self) -> str:
        """One line for the progress, the summary and the leaderboard."""
        state = {"H1": "H1 accepted", "H0": "H0 accepted", None: "running"}[self.verdict]
        return (f"SPRT: LLR {self.llr:.2f} ({self.lower:.2f}, {self.upper:.2f}) {state} after "
                f"{self.deals} deals (A better {self.better}, equal {self.equal}, worse "
                f"{self.worse}; elo {self.elo:+.1f})")


def expected_score(elo: float) -> float:
    """The logistic expected score of a player ``elo`` points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of(score: float) -> float:
    """The logistic Elo difference of a mean score (±inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the LLR: (accept H0 at or below, accept H1 at or above)."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def llr(count: int, total: float, squares: float, elo0: float, elo1: float) -> float:
    """The LLR of ``count`` scores with sum ``total`` and sum of squares ``squares``."""
    if count == 0:
        return 0.0
    mean = total / count
    variance = squares / count - mean * mean
    if variance <= 0.0:
        return 0.0
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance / count)


def deal_scores(games: Iterable[DealGame], a: str, b: str, per_deal: int) -> list[float]:
    """A's paired result on each complete deal, in deal order: 1 better, 0.5 equal, 0 worse.

    On a deal A and B each sum their normalised places (n − place) / (n − 1) over
    their games of it (every seat rotation); a deal with a void game, or not yet
    complete (``per_deal`` games), is left out.
    """
    totals: dict[int, list[float]] = {}
    counts: dict[int, int] = {}
    broken: set[int] = set()
    for game in games:
        counts[game.deal] = counts.get(game.deal, 0) + 1
        if not game.rated:
            broken.add(game.deal)
        sums = totals.setdefault(game.deal, [0.0, 0.0])
        n = len(game.seats)
        for bot, rank in zip(game.seats, game.ranks):
            if bot in (a, b):
                sums[bot == b] += (n - rank) / (n - 1)
    scores = []
    for deal in sorted(totals):
        if counts[deal] != per_deal or deal in broken:
            continue
        mine, theirs = totals[deal]
        scores.append(1.0 if mine > theirs + 1e-9 else 0.0 if mine < theirs - 1e-9 else 0.5)
    return scores


def sprt(scores: Sequence[float], elo0: float, elo1: float, alpha: float,
         beta: float) -> SprtResult:
    """Walk the results in order and stop at the first that crosses a bound.

    Deciding at the first crossing, not at the last result given, makes the
    verdict independent of how many deals were played in one go.
    """
    lower, upper = bounds(alpha, beta)
    count, total, squares, value, verdict = 0, 0.0, 0.0, 0.0, None
    for score in scores:
        count += 1
        total += score
        squares += score * score
        value = llr(count, total, squares, elo0, elo1)
        if value >= upper or value <= lower:
            verdict = "H1" if value >= upper else "H0"
            break
    used = scores[:count]
    return SprtResult(value, lower, upper, count, used.count(1.0), used.count(0.5),
                      used.count(0.0), verdict, elo_of(total / count) if count else 0.0)
