"""The luck-adjusted score's experiment (bench/luck.py): what a draw was expected to
give, against every order the deck's shuffled runs could have been in."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bench.luck import FEATURES, KIND, DrawLuck
from referee.games.flea_circus import FleaCircusState


def laid_out(deck: list[str], segments: list[int], hand: list[str]) -> DrawLuck:
    state = DrawLuck(3, "standard", 1)
    state.deck, state.segments, state.hands[0] = list(deck), list(segments), list(hand)
    return state


def brute_force_expectation(deck, segments, hand, count) -> np.ndarray:
    """The mean of the drawn features over every order of each shuffled run."""
    runs, start = [], 0
    for size in segments:
        runs.append(deck[start:start + size])
        start += size
    total, orders = np.zeros(FEATURES), 0
    for arrangement in itertools.product(*(itertools.permutations(run) for run in runs)):
        drawn = [card for run in arrangement for card in run][:count]
        features = np.zeros(FEATURES)
        for card in drawn:
            features[KIND[card]] += 1
        features[-1] = (hand.count("numbers") + drawn.count("numbers")) ** 2
        total, orders = total + features, orders + 1
    return total / orders


@pytest.mark.parametrize("segments, count", [([6], 3), ([2, 4], 3), ([3, 3], 3), ([1, 5], 4)])
def test_a_draws_expectation_is_its_mean_over_every_order_of_the_deck(segments, count):
    deck = ["numbers", "A", "numbers", "general", "numbers", "F"]
    hand = ["numbers", "B"]
    state = laid_out(deck, segments, hand)
    expected = state._expected(0, count)
    assert expected == pytest.approx(brute_force_expectation(deck, segments, hand, count))
    # The runs drawn from are gone, a part-drawn one shortened.
    assert sum(state.segments) == len(deck) - count


def test_a_replayed_game_keeps_the_engines_play_and_its_luck_sums_its_draws():
    plain, noted = FleaCircusState(3, "standard", 7), DrawLuck(3, "standard", 7)
    while not plain.is_terminal():
        plain.apply(0)
        noted.apply(0)
        assert noted.scores() == plain.scores() and noted.deck == plain.deck
    assert sum(noted.segments) == len(noted.deck)
    # Kinds drawn beyond their expectation balance out over all seats: every draw takes
    # as many cards as it was expected to.
    kinds = sum(noted.luck)[:len(KIND)]
    assert sum(kinds) == pytest.approx(0.0, abs=1e-9)


def test_a_pairs_margins_sum_each_deal_set_of_each_tournament_apart():
    from types import SimpleNamespace

    from bench.luck import margins
    luck = [np.zeros(2 * FEATURES)] * 3
    games = [(SimpleNamespace(tournament=name, group_index=0, seats=seats, scores=scores), luck)
             for name in ("one", "two")
             for seats, scores in ((["a", "b", "c"], [5, 1, 0]), (["b", "c", "a"], [2, 0, 1]),
                                   (["c", "a", "b"], [0, 3, 3]))]
    found = margins(games, np.ones(2 * FEATURES), "a", "b")
    assert found["game"] == found["game_adjusted"] == [4.0, -1.0, 0.0] * 2
    assert found["set"] == [3.0, 3.0]
