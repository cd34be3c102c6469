"""The verdict's promise, measured on simulated tournaments of known strength (no bots:
bench/verdict.py draws each game's outcome from the bots' strengths, the deal's seat
luck and noise). The seeds are fixed, so each figure is the same on every run."""

from __future__ import annotations

import pytest

from bench.verdict import ISSUE_FIELD, Field, run, swiss_run


def certified(field: Field, rounds: int, confidence: float, runs: int) -> list[list[str]]:
    """The order each of ``runs`` tournaments certified (runs that never settled left out)."""
    results = [run(field, rounds, confidence, seed, before=False) for seed in range(1, runs + 1)]
    return [result.after[1] for result in results if result.after is not None]


@pytest.mark.parametrize("max_orders", [6, 1], ids=["order by order", "pair by pair"])
def test_of_two_exactly_equal_bots_neither_order_is_certified_in_more_than_1_minus_c_of_runs(
        max_orders, monkeypatch):
    # "s0 > s1" says s0 is the better: of two equal bots both orders are wrong, and both
    # one-sided nulls are true, so each may take only half of the error allowed.
    monkeypatch.setattr("ratings.verdict.MAX_ORDERS", max_orders)
    orders = certified(Field((0.0, 0.0), 2), rounds=60, confidence=0.8, runs=300)
    assert len(orders) <= 0.2 * 300
    # Not vacuous: at this level the bound is approached.
    assert len(orders) >= 0.05 * 300


def swiss_runs(field: Field, runs: int, absence: float) -> list[list[list[str]]]:
    return [swiss_run(field, 40, 0.8, seed, absence) for seed in range(1, runs + 1)]


def test_over_a_swiss_with_absences_the_error_allowed_holds_for_the_whole_run():
    # Three equal bots, a third of them away each round: every verdict judges the bots
    # present, two or three, so every order it certifies is wrong. The runs with any
    # certified order at any round are at most 1 - c of all.
    field = Field((0.0, 0.0, 0.0), 2)
    runs = swiss_runs(field, 200, absence=0.34)
    assert sum(any(not field.right(order) for order in run) for run in runs) <= 0.2 * 200


def test_a_swiss_with_absences_still_settles_a_field_apart():
    field = Field((1.5, 1.0, 0.5, 0.0), 3)
    runs = swiss_runs(field, 40, absence=0.25)
    assert sum(bool(run) for run in runs) >= 0.25 * 40
    assert all(field.right(order) for run in runs for order in run)


def test_the_issue_field_at_95_percent_settles_on_the_true_order():
    orders = certified(ISSUE_FIELD, rounds=60, confidence=0.95, runs=100)
    assert len(orders) >= 50     # most settle within the 720 games
    wrong = [order for order in orders if order != ISSUE_FIELD.names]
    assert len(wrong) <= 0.05 * len(orders)


def test_a_close_field_rarely_certifies_a_wrong_order():
    # Neighbours a twentieth of the noise apart: hardly any run settles, and a wrong
    # certified order stays within the 1 - c the verdict allows, over all runs.
    field = Field((0.1, 0.05, 0.0), 2)
    orders = certified(field, rounds=60, confidence=0.5, runs=150)
    assert sum(order != field.names for order in orders) <= 0.5 * 150
    assert sum(order == field.names for order in orders) >= 1
