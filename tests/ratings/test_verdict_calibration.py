"""The verdict's promise, measured on simulated tournaments of known strength (no bots:
bench/verdict.py draws each game's outcome from the bots' strengths, the deal's seat
luck and noise). The seeds are fixed, so each figure is the same on every run."""

from __future__ import annotations

from bench.verdict import ISSUE_FIELD, Field, run


def certified(field: Field, rounds: int, confidence: float, runs: int) -> list[list[str]]:
    """The order each of ``runs`` tournaments certified (runs that never settled left out)."""
    results = [run(field, rounds, confidence, seed, before=False) for seed in range(1, runs + 1)]
    return [result.after[1] for result in results if result.after is not None]


def test_of_two_equal_bots_each_order_is_certified_in_at_most_one_minus_c_of_the_runs():
    # Both orders are true: each one's evidence against the other is a supermartingale,
    # so each crosses 1 / (1 - c) in at most 1 - c of the runs, looked at every round.
    orders = certified(Field((0.0, 0.0), 2), rounds=60, confidence=0.8, runs=300)
    for order in (["s0", "s1"], ["s1", "s0"]):
        assert orders.count(order) <= 0.2 * 300
    # Not vacuous: at this level the bound is nearly reached.
    assert orders.count(["s0", "s1"]) + orders.count(["s1", "s0"]) >= 0.1 * 300


def test_the_issue_field_at_95_percent_settles_on_the_true_order():
    orders = certified(ISSUE_FIELD, rounds=60, confidence=0.95, runs=100)
    assert len(orders) >= 50     # most settle within the 720 games
    wrong = [order for order in orders if order != ISSUE_FIELD.names]
    assert len(wrong) <= 0.05 * len(orders)


def test_a_close_field_rarely_certifies_a_wrong_order():
    # Neighbours a twentieth of the noise apart: hardly any run settles, and a wrong
    # certified order stays within the 1 - c the verdict allows, over all runs.
    field = Field((0.1, 0.05, 0.0), 3)
    orders = certified(field, rounds=60, confidence=0.5, runs=300)
    assert sum(order != field.names for order in orders) <= 0.5 * 300
    assert sum(order == field.names for order in orders) >= 1
