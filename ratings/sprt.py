"""The sequential probability ratio test of an A/B test, from plain deal results.

A and B play the same deals in the same seats against the same fillers (or each
other); each complete deal is one observation, the deal set: A's and B's
normalised places (n − place)/(n − 1) summed over their games of it (every seat
rotation), scored x = ½ + (Σ A − Σ B) / (2·R), R the games each played on it
(at 2 seats without fillers, A against B in both seats: x = 0, ¼, ½, ¾ or 1,
fishtest's pentanomial of a game pair). The test is fishtest's generalised SPRT
(GSPRT) on these multinomial results, with logistic Elo (docs/ratings.md, "A/B
tests", has the formulas):

* expected score at Elo e: s(e) = 1 / (1 + 10^(−e/400));
* p̂: the observed frequencies of the deal scores xᵢ seen, with 0, ½ and 1 always
  among them (each count at least 0.001, as fishtest regularises); p⁽ˢ⁾: the
  distribution on those scores closest to p̂ (maximum likelihood) whose mean is s,
  p⁽ˢ⁾ᵢ = p̂ᵢ / (1 + λ(xᵢ − s)) with λ solving Σ p̂ᵢ (xᵢ − s) / (1 + λ(xᵢ − s)) = 0;
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


#: The scores every test's frequencies hold, seen or not (A worse, equal, better).
SCORES = (0.0, 0.5, 1.0)
#: fishtest's regularisation: no score in SCORES has a count below this.
EPSILON = 1e-3
#: Deal scores are rounded to this many decimals, so the same score reached by sums in
#: another order is counted as one.
DIGITS = 9


def closest_distribution(scores: Sequence[float], frequencies: Sequence[float],
                         mean: float) -> list[float]:
    """The distribution over ``scores`` with the given mean that is most likely to have
    produced ``frequencies`` (fishtest's MLE_expected): p̂ᵢ / (1 + λ(xᵢ − mean)).

    λ solves f(λ) = Σ p̂ᵢ vᵢ / (1 + λ vᵢ) = 0 (vᵢ = xᵢ − mean); f falls from +∞ to −∞
    on the interval keeping every 1 + λ vᵢ > 0 (the scores lie on both sides of the
    mean), so Newton's steps from the linearised root Σ p̂ᵢ vᵢ / Σ p̂ᵢ vᵢ², kept
    inside the bracket found so far, find its one root in a few steps.
    """
    v = [score - mean for score in scores]
    low, high = -1.0 / max(v), -1.0 / min(v)
    pv = [p * x for p, x in zip(frequencies, v)]
    factor = sum(pv) / sum(p * x for p, x in zip(pv, v))
    if not low < factor < high:
        factor = 0.0
    for _ in range(100):
        value = slope = 0.0
        for p, x in zip(pv, v):
            term = p / (1.0 + factor * x)
            value += term
            slope -= term * x / (1.0 + factor * x)
        if value > 0:
            low = factor
        else:
            high = factor
        step = factor - value / slope if slope < 0 else (low + high) / 2
        if not low < step < high:
            step = (low + high) / 2
        if abs(step - factor) <= 1e-13 * max(1.0, abs(factor)):
            break
        factor = step
    return [p / (1.0 + factor * x) for p, x in zip(frequencies, v)]


@functools.lru_cache(maxsize=65_536)
def llr(counts: tuple[tuple[float, int], ...], elo0: float, elo1: float) -> float:
    """The GSPRT's log-likelihood ratio of H1 (elo1) against H0 (elo0) for the deal
    scores counted (pairs of score and count, sorted by score).

    Cached: the test walks every prefix of the deals again at each round's end.
    """
    tally = dict(counts)
    scores = sorted(set(tally) | set(SCORES))
    regularised = [max(EPSILON, float(tally.get(score, 0))) for score in scores]
    total = sum(regularised)
    frequencies = [count / total for count in regularised]
    under0 = closest_distribution(scores, frequencies, expected_score(elo0))
    under1 = closest_distribution(scores, frequencies, expected_score(elo1))
    return total * sum(p * math.log(p1 / p0)
                       for p, p0, p1 in zip(frequencies, under0, under1))


def deal_scores(games: Iterable[DealGame], a: str, b: str, per_deal: int) -> list[float]:
    """A's score on each complete deal, in deal order: x = ½ + (Σ A − Σ B) / (2·R).

    On a deal A and B each sum their normalised places (n − place) / (n − 1) over
    their R games of it (every seat rotation); x is 1 when A placed first and B last
    in every game, ½ when their sums are equal. A deal with a void game, or not yet
    complete (``per_deal`` games), is left out.
    """
    totals: dict[int, list[float]] = {}
    counts: dict[int, int] = {}
    broken: set[int] = set()
    for game in games:
        counts[game.deal] = counts.get(game.deal, 0) + 1
        if not game.rated:
            broken.add(game.deal)
        sums = totals.setdefault(game.deal, [0.0, 0.0, 0.0])
        n = len(game.seats)
        for bot, rank in zip(game.seats, game.ranks):
            if bot in (a, b):
                sums[bot == b] += (n - rank) / (n - 1)
                sums[2] += bot == a
    scores = []
    for deal in sorted(totals):
        if counts[deal] != per_deal or deal in broken:
            continue
        mine, theirs, played = totals[deal]
        scores.append(round(0.5 + (mine - theirs) / (2 * played), DIGITS))
    return scores


def sprt(scores: Sequence[float], elo0: float, elo1: float, alpha: float,
         beta: float) -> SprtResult:
    """Walk the deal scores in order and stop at the first that crosses a bound.

    Deciding at the first crossing, not at the last result given, makes the
    verdict independent of how many deals were played in one go.
    """
    lower, upper = bounds(alpha, beta)
    tally: dict[float, int] = {}
    value, verdict, total = 0.0, None, 0.0
    for score in scores:
        tally[score] = tally.get(score, 0) + 1
        total += score
        value = llr(tuple(sorted(tally.items())), elo0, elo1)
        if value >= upper or value <= lower:
            verdict = "H1" if value >= upper else "H0"
            break
    count = sum(tally.values())
    better = sum(n for score, n in tally.items() if score > 0.5)
    worse = sum(n for score, n in tally.items() if score < 0.5)
    return SprtResult(value, lower, upper, count, better, count - better - worse, worse,
                      verdict, elo_of(total / count) if count else 0.0)
