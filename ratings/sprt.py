"""The sequential probability ratio test of an A/B test, from plain deal results.

A and B play the same deals in the same seats against the same fillers (or each
other); each complete deal is one paired comparison: A did better than B on it
(score 1), as well (0.5) or worse (0). The test is fishtest's generalised SPRT
(GSPRT) on these trinomial results, with logistic Elo (docs/ratings.md, "A/B
tests", has the formulas):

* expected score at Elo e: s(e) = 1 / (1 + 10^(−e/400));
* p̂: the observed frequencies of 0, ½ and 1 (each count at least 0.001, as
  fishtest regularises); p⁽ˢ⁾: the distribution closest to p̂ (maximum
  likelihood) whose mean is s, p⁽ˢ⁾ᵢ = p̂ᵢ / (1 + λ(xᵢ − s)) with λ solving
  Σ p̂ᵢ (xᵢ − s) / (1 + λ(xᵢ − s)) = 0;
* LLR = N · Σ p̂ᵢ ln(p⁽ˢ¹⁾ᵢ / p⁽ˢ⁰⁾ᵢ), s0 = s(elo0), s1 = s(elo1);
* H1 (elo1) is accepted when LLR ≥ ln((1 − β) / α), H0 (elo0) when
  LLR ≤ ln(β / (1 − α)).
"""

from __future__ import annotations

import functools
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
    return 1.0 / (1.0 + float(10.0 ** (-elo / 400.0)))


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


#: The trinomial outcomes of a deal, from A's side.
SCORES = (0.0, 0.5, 1.0)
#: fishtest's regularisation: no outcome has a count below this.
EPSILON = 1e-3


def closest_distribution(frequencies: Sequence[float], mean: float) -> list[float]:
    """The distribution over SCORES with the given mean that is most likely to have
    produced ``frequencies`` (fishtest's MLE_expected): p̂ᵢ / (1 + λ(xᵢ − mean)).

    λ solves Σ p̂ᵢ vᵢ / (1 + λ vᵢ) = 0 (vᵢ = xᵢ − mean), which falls from +∞ to −∞
    on the interval keeping every 1 + λ vᵢ > 0; times the product of the three
    denominators it is a quadratic, whose one root in that interval is λ.
    """
    v = [score - mean for score in SCORES]
    p = frequencies
    c0 = sum(p[i] * v[i] for i in range(3))
    c1 = sum(p[i] * v[i] * (v[(i + 1) % 3] + v[(i + 2) % 3]) for i in range(3))
    c2 = sum(p[i] * v[i] * v[(i + 1) % 3] * v[(i + 2) % 3] for i in range(3))
    low, high = -1.0 / max(v), -1.0 / min(v)
    if abs(c2) < 1e-15:
        roots = [-c0 / c1]
    else:
        root = math.sqrt(max(0.0, c1 * c1 - 4 * c2 * c0))
        roots = [(-c1 + root) / (2 * c2), (-c1 - root) / (2 * c2)]
    factor = min(roots, key=lambda x: 0.0 if low < x < high else abs(x - (low + high) / 2))
    return [p[i] / (1.0 + factor * v[i]) for i in range(3)]


@functools.lru_cache(maxsize=65_536)
def llr(worse: int, equal: int, better: int, elo0: float, elo1: float) -> float:
    """The GSPRT's log-likelihood ratio of H1 (elo1) against H0 (elo0) for these counts.

    Cached: the test walks every prefix of the deals again at each round's end.
    """
    counts = [max(EPSILON, float(count)) for count in (worse, equal, better)]
    total = sum(counts)
    frequencies = [count / total for count in counts]
    under0 = closest_distribution(frequencies, expected_score(elo0))
    under1 = closest_distribution(frequencies, expected_score(elo1))
    return total * sum(p * math.log(p1 / p0)
                       for p, p0, p1 in zip(frequencies, under0, under1))


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
    tally = {score: 0 for score in SCORES}
    value, verdict = 0.0, None
    for score in scores:
        tally[score] += 1
        value = llr(tally[0.0], tally[0.5], tally[1.0], elo0, elo1)
        if value >= upper or value <= lower:
            verdict = "H1" if value >= upper else "H0"
            break
    count = sum(tally.values())
    mean = (tally[1.0] + tally[0.5] / 2) / count if count else 0.5
    return SprtResult(value, lower, upper, count, tally[1.0], tally[0.5], tally[0.0],
                      verdict, elo_of(mean) if count else 0.0)
