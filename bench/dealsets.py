"""The A/B SPRT on deal sets against today's trinomial, on simulated deals (issue 34).

An A/B test at 3 seats with fillers plays each deal at A's table and at B's (the
same two fillers in the same seats, the same cards), in all three seat rotations.
The simulation: a seat's performance in a game is its bot's skill + the deal's
luck for that seat (the same at both tables and in every rotation of the seat, sd
``LUCK``) + the game's own noise (sd 1); places follow the performances. B and the
fillers have skill 0, A skill d. From the same deals come both scores:

* the deal set's, x = ½ + (Σ A − Σ B)/(2·3) on the normalised places summed over the
  rotations (ratings/sprt.py, the test the referee runs);
* the trinomial's, 1, ½ or 0 as A's sum is above, equal to or below B's (the test
  before issue 34).

Under this model the deal-set score's mean is exact: A beats a filler with
probability Φ(d / √(2 + 2·LUCK²)) in every game, so E[x] = ½ + (Φ(·) − ½)/2, and
the d at which a test's Elo is exactly elo0 or elo1 is known (the trinomial's is
found by bisection on a large simulated sample). The section reports:

* the deal-set test's error rates at exact hypotheses (``simulations`` tests each);
* deals to a verdict of both tests with the same nominal bounds, each at the truths
  exact in its own Elo (the issue's goal as written);
* deals of both at the same real strengths (the deal-set test's H0 and H1), the
  trinomial given the bounds that are its Elo of those strengths: the two Elo
  scales differ (a deal set's score moves less than the sign of its sum), so this
  is the comparison at equal power;
* both tests with the same bounds on real deals (``bots.mixed`` A/B tests at 3 seats
  with fillers, played in full, then drawn with replacement): identical bots and a
  stronger A.
"""

from __future__ import annotations

import math
import statistics
import tempfile
import time
from pathlib import Path
from statistics import NormalDist
from typing import Callable

import numpy as np

from bench.bigfields import _run
from bench.report import Section
from circus_outcomes import GameStatus
from ratings.sprt import DIGITS, DealGame, deal_scores, elo_of, expected_score, sprt

#: The sd of a seat's luck on a deal, relative to a game's own noise (sd 1).
LUCK = 1.0
SEATS = 3
#: Deals simulated at once for one test, and at most.
BATCH, LIMIT = 400, 40_000


def deals(d: float, count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``count`` simulated deals of an A/B test at 3 seats with fillers: (the deal-set
    scores, the trinomial scores)."""
    luck = rng.normal(0.0, LUCK, (count, SEATS))
    sums = []
    for skill in (d, 0.0):
        total = np.zeros(count)
        for seat in range(SEATS):      # the tested bot in each seat in turn
            performance = luck + rng.normal(0.0, 1.0, (count, SEATS))
            performance[:, seat] += skill
            beaten = (performance < performance[:, seat:seat + 1]).sum(axis=1)
            total += beaten / (SEATS - 1)
        sums.append(total)
    margin = sums[0] - sums[1]
    dealset = np.round(0.5 + margin / (2 * SEATS), DIGITS)
    trinomial = np.where(margin > 1e-9, 1.0, np.where(margin < -1e-9, 0.0, 0.5))
    return dealset, trinomial


def dealset_skill(elo: float) -> float:
    """The d at which the deal-set score's mean is exactly s(elo)."""
    return math.sqrt(2 + 2 * LUCK ** 2) * NormalDist().inv_cdf(2 * expected_score(elo) - 0.5)


def trinomial_elo(d: float, rng: np.random.Generator, count: int = 400_000) -> float:
    """The trinomial's Elo at skill d, from a large simulated sample."""
    return elo_of(float(deals(d, count, rng)[1].mean()))


def trinomial_skill(elo: float, rng: np.random.Generator, count: int = 400_000) -> float:
    """The d at which the trinomial's Elo is ``elo`` (bisection on simulated samples)."""
    low, high = 0.0, 2.0
    for _ in range(14):
        middle = (low + high) / 2
        low, high = (middle, high) if trinomial_elo(middle, rng, count) < elo else \
            (low, middle)
    return (low + high) / 2


def one_test(draw: Callable[[int], list[float]], elo0: float, elo1: float, alpha: float,
             beta: float) -> tuple[str | None, int]:
    """One SPRT on deal scores from ``draw(count)`` (the next ``count`` deals): its verdict
    and the deals it took."""
    scores: list[float] = []
    while len(scores) < LIMIT:
        scores.extend(draw(max(BATCH, len(scores))))
        result = sprt(scores, elo0, elo1, alpha, beta)
        if result.verdict is not None:
            return result.verdict, result.deals
    return None, len(scores)


def simulated(d: float, which: int, rng: np.random.Generator) -> Callable[[int], list[float]]:
    """Simulated deals at skill d: ``which`` 0 their deal-set scores, 1 their trinomial."""
    return lambda count: deals(d, count, rng)[which].tolist()


def resampled(population: list[float], rng: np.random.Generator) -> Callable[[int], list[float]]:
    """Deals drawn with replacement from real ones."""
    return lambda count: [population[i] for i in rng.integers(0, len(population), count)]


def sign(score: float) -> float:
    """The trinomial of a deal-set score: 1, ½ or 0 as A's sum was above, equal or below B's."""
    return 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5


def real_deals(a: str, rounds: int, folder: Path) -> list[float]:
    """The deal-set scores of a real A/B test at 3 seats with fillers (bots.mixed: A
    against p = .5, fillers p = .25, .5, .75), ``rounds`` rounds of 8 deals played in
    full (bounds no test this long crosses)."""
    name = f"dealsets-{a}"
    config = {"name": name, "players": 3, "format": "ab", "a": "new", "b": "old",
              "rounds": rounds, "seed": 3,
              "bots": [{"name": "new", "python": f"bots.mixed:{a}"},
                       {"name": "old", "python": "bots.mixed:Mixed50"},
                       *({"name": f"f{p}", "python": f"bots.mixed:Mixed{p}"}
                         for p in (25, 50, 75))],
              "sprt": {"elo0": -0.5, "elo1": 0.5, "alpha": 1e-6, "beta": 1e-6}}
    _, store = _run(config, folder)
    games = [DealGame(game.group_index, tuple(game.seats), tuple(game.ranks),
                      game.status != GameStatus.VOID) for game in store.games(name)]
    store.close()
    return deal_scores(games, "new", "old", 2 * 3)


def run(simulations: int = 2_000, comparisons: int = 300, real_rounds: int = 25,
        calibration: int = 400_000, progress: Callable[[str], None] = print) -> Section:
    """The error rates (``simulations`` tests at each exact hypothesis), the deals of
    both tests (``comparisons`` tests at each truth), and both tests on resampled real
    deals (``real_rounds`` rounds of 8 deals of each of two real A/B tests);
    ``calibration``: the simulated deals each trinomial Elo is measured on."""
    started = time.perf_counter()
    elo0, elo1, small, alpha, beta = 0.0, 50.0, 15.0, 0.05, 0.05
    section = Section("dealsets", f"A/B SPRT on deal sets against the trinomial: 3 seats with "
                      f"fillers, elo0 {elo0:g}, alpha {alpha:g}, beta {beta:g}",
                      ["test", "elo1", "truth", "runs", "H1", "H0", "error rate", "target",
                       "mean deals", "median deals"])
    rng = np.random.default_rng(34)
    near = {elo: trinomial_elo(dealset_skill(elo), rng, calibration) for elo in (elo1, small)}
    groups = [  # key, label, which score, elo1, the truths' d (elo0, elo1), runs
        ("dealsets", "deal sets", 0, elo1, (0.0, dealset_skill(elo1)), simulations),
        ("trinomial", "trinomial, same bounds", 1, elo1,
         (0.0, trinomial_skill(elo1, rng, calibration)), comparisons),
        ("fair", "trinomial, same strengths", 1, near[elo1], (0.0, dealset_skill(elo1)),
         comparisons),
        ("small_dealsets", "deal sets", 0, small, (0.0, dealset_skill(small)), comparisons),
        ("small_fair", "trinomial, same strengths", 1, near[small],
         (0.0, dealset_skill(small)), comparisons),
    ]
    mean_deals: dict[str, float] = {}
    for key, label, which, upper, truths, runs in groups:
        taken_both = []
        for d, wrong, target in zip(truths, ("H1", "H0"), (alpha, beta)):
            progress(f"dealsets: {label}, elo1 {upper:.0f}, d {d:.3f}: {runs} tests")
            results = [one_test(simulated(d, which, rng), elo0, upper, alpha, beta)
                       for _ in range(runs)]
            verdicts = [verdict for verdict, _ in results]
            taken = [count for _, count in results]
            rate = verdicts.count(wrong) / runs
            section.add(label, f"{upper:.0f}", f"{'elo0' if wrong == 'H1' else 'elo1'} "
                        f"(d {d:.3f})", runs, verdicts.count("H1"), verdicts.count("H0"),
                        rate, target, statistics.mean(taken), statistics.median(taken))
            section.figures[f"{key}_{'alpha' if wrong == 'H1' else 'beta'}_error"] = rate
            taken_both.append(statistics.mean(taken))
        mean_deals[key] = sum(taken_both) / 2
        section.figures[f"{key}_mean_deals"] = mean_deals[key]
    shares = {"same_bounds": mean_deals["dealsets"] / mean_deals["trinomial"],
              "same_strengths": mean_deals["dealsets"] / mean_deals["fair"],
              "same_strengths_small": mean_deals["small_dealsets"] / mean_deals["small_fair"]}
    section.figures |= {f"share_{name}": share for name, share in shares.items()}
    section.figures |= {f"trinomial_elo_of_dealset_{elo:g}": value
                        for elo, value in near.items()}
    section.notes.append(
        f"deal sets take {100 * shares['same_bounds']:.0f}% of the trinomial's deals with the "
        f"same bounds (elo1 {elo1:g}; mean over the two truths), but the two Elo scales "
        f"differ: a deal-set Elo of {elo1:g} is a trinomial Elo of {near[elo1]:.0f}, of "
        f"{small:g} one of {near[small]:.0f} (seat luck sd {LUCK:g} × a game's noise). At the "
        f"same strengths deal sets take {100 * shares['same_strengths']:.0f}% (elo1 {elo1:g}) "
        f"and {100 * shares['same_strengths_small']:.0f}% (elo1 {small:g})")
    real(section, real_rounds, comparisons, (elo0, elo1, alpha, beta), rng, progress)
    section.seconds = time.perf_counter() - started
    return section


def real(section: Section, rounds: int, runs: int, test: tuple[float, float, float, float],
         rng: np.random.Generator, progress: Callable[[str], None]) -> None:
    """Both tests, with the same bounds, on real deals drawn with replacement: identical
    bots (their deals made symmetric, x and 1 − x, so the truth is exactly Elo 0) and a
    stronger A (p = .75 against .5)."""
    elo0, elo1, alpha, beta = test
    with tempfile.TemporaryDirectory() as folder:
        for key, a, wrong, target in (("identical", "Mixed50", "H1", alpha),
                                      ("stronger", "Mixed75", "H0", beta)):
            progress(f"dealsets: real A/B test, {a} against Mixed50, {rounds} rounds")
            population = real_deals(a, rounds, Path(folder))
            if key == "identical":
                population += [round(1.0 - score, DIGITS) for score in population]
            taken = []
            for label, scores in (("deal sets", population),
                                  ("trinomial", [sign(score) for score in population])):
                results = [one_test(resampled(scores, rng), elo0, elo1, alpha, beta)
                           for _ in range(runs)]
                verdicts = [verdict for verdict, _ in results]
                taken.append(statistics.mean(count for _, count in results))
                elo = elo_of(statistics.mean(scores))
                # An error only when the truth is a hypothesis or beyond it.
                judged = key == "identical" or elo >= elo1
                section.add(f"{label}, real deals resampled", f"{elo1:g}",
                            f"{key} (Elo {elo:.0f})", runs, verdicts.count("H1"),
                            verdicts.count("H0"),
                            verdicts.count(wrong) / runs if judged else "-",
                            target if judged else "between elo0 and elo1", taken[-1],
                            statistics.median(count for _, count in results))
            section.figures[f"real_{key}_share"] = taken[0] / taken[1]
    section.notes.append(
        "real deals: " + ", ".join(f"{key} bots' deal sets take "
                                   f"{100 * section.figures[f'real_{key}_share']:.0f}%"
                                   for key in ("identical", "stronger"))
        + f" of the trinomial's deals with the same bounds ({rounds} round(s) of 8 deals "
        "each, resampled)")
