"""Bots of known strength: the leaderboard orders them, and identical bots stay together.

Real round-robin tournaments (in-process bots, the referee's TournamentRunner
and store, the same leaderboard code as the CLI) over several seeds:

* the family "greedy move with probability p, else random" for p = 0, .25,
  .5, .75, 1 (bots/mixed.py) must come out in order of p: Kendall tau ≥ 0.9
  on average; the LOS of each over the next weaker is reported;
* five identical bots: a pair flagged as different at LOS > 0.99 should be
  as rare as chance makes it (2% of pairs: 1% each way).
"""

from __future__ import annotations

import itertools
import math

import pytest
from rating_helpers import KNOWN, TRUE_ORDER, board_of, tournament

from ratings.stats import kendall_tau

SEEDS = (1, 2, 3, 4)
ROUNDS = 10          # 10 tables × 3 rotations × 10 rounds = 300 games, 180 per bot
TWIN_ROUNDS = 5      # the twins: 150 games, 90 per bot (how often chance flags a pair is
                     # the same at any number of games: fewer check as much, for half)


@pytest.mark.slow
def test_bots_of_known_strength_are_ranked_in_order(tmp_path, record_property, capsys):
    taus, adjacent = [], []
    lines = ["seed  order (best first)                 tau   LOS of each over the next weaker"]
    for seed in SEEDS:
        store = tournament(tmp_path, KNOWN, players=3, rounds=ROUNDS, seed=seed,
                           db=f"known-{seed}.sqlite")
        board = board_of(store)
        assert board.rated_games == 300
        tau = kendall_tau(board.bots, TRUE_ORDER)
        taus.append(tau)
        los = [board.los[stronger, weaker] for stronger, weaker in zip(TRUE_ORDER, TRUE_ORDER[1:])]
        adjacent.extend(los)
        assert board.los["p100", "p0"] > 0.99
        lines.append(f"{seed:4d}  {' > '.join(board.bots):35s} {tau:4.1f}   " + "  ".join(
            f"{a}>{b} {value:.3f}" for a, b, value in zip(TRUE_ORDER, TRUE_ORDER[1:], los)))
    report = "\n".join(lines)
    record_property("known_strength", report)
    with capsys.disabled():
        print("\n" + report)
    assert round(sum(taus) / len(taus), 9) >= 0.9, report  # 0.9 as floats sum it: 0.8999...
    # The LOS points the right way: on average well above a coin flip.
    assert sum(adjacent) / len(adjacent) > 0.7, report


def binomial_tail(n: int, p: float, k: int) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))


@pytest.mark.slow
def test_identical_bots_are_not_flagged_as_different_more_often_than_chance(
        tmp_path, record_property, capsys):
    twins = [(f"twin{i}", "bots.mixed:Mixed50") for i in range(5)]
    flagged, pairs, widest, separated = 0, 0, 0.5, 0
    for seed in SEEDS:
        store = tournament(tmp_path, twins, players=3, rounds=TWIN_ROUNDS, seed=seed,
                           db=f"twins-{seed}.sqlite")
        board = board_of(store)
        for a, b in itertools.combinations(board.bots, 2):
            pairs += 1
            value = max(board.los[a, b], board.los[b, a])
            widest = max(widest, value)
            flagged += value > 0.99
            # Rank ranges that do not overlap: the bootstrap told the twins apart.
            ra, rb = board.row(a), board.row(b)
            separated += ra.rank_high < rb.rank_low or rb.rank_high < ra.rank_low
    # Under chance a pair crosses 0.99 one way or the other 2% of the time.
    allowed = next(k for k in range(pairs + 1) if binomial_tail(pairs, 0.02, k + 1) < 0.001)
    # Two bots are told apart when one beats the other in 97.5% of the resamples:
    # under chance 5% of pairs (one way or the other).
    allowed_apart = next(k for k in range(pairs + 1)
                         if binomial_tail(pairs, 0.05, k + 1) < 0.001)
    summary = (f"identical bots: {flagged} of {pairs} pairs at LOS > 0.99 (chance: "
               f"{0.02 * pairs:.1f}, allowed {allowed}); most extreme LOS {widest:.3f}; "
               f"{separated} pairs with disjoint rank ranges (chance: {0.05 * pairs:.1f}, "
               f"allowed {allowed_apart})")
    record_property("identical_bots", summary)
    with capsys.disabled():
        print("\n" + summary)
    assert flagged <= allowed, summary
    assert separated <= allowed_apart, summary
