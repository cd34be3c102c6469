"""Evaluating policies in process, policies as bots, the baseline learner, the callback."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from bots.flea_greedy import FleaGreedyBot
from bots.random_bot import RandomBot
from training.evaluate import evaluate, rank_share


def first_legal(observation: NDArray[np.float32], mask: NDArray[np.int8]) -> int:
    return int(np.flatnonzero(mask)[0])


def seeded_random(seed: int):
    rng = np.random.default_rng(seed)
    return lambda observation, mask: int(rng.choice(np.flatnonzero(mask)))


def test_rank_share_counts_the_seats_beaten_and_ties_half():
    assert rank_share([1, 2], 0) == 1.0 and rank_share([1, 2], 1) == 0.0
    assert rank_share([1, 1], 0) == 0.5
    assert rank_share([2, 1, 2], 0) == 0.25 and rank_share([2, 1, 2], 1) == 1.0


def test_every_deal_is_played_in_every_rotation_and_the_same_call_gives_the_same_games():
    found = evaluate(first_legal, [RandomBot(), RandomBot()], deals=6, seed=3)
    assert (found.deals, found.games) == (6, 18)
    assert found == evaluate(first_legal, [RandomBot(), RandomBot()], deals=6, seed=3)
    assert found != evaluate(first_legal, [RandomBot(), RandomBot()], deals=6, seed=4)


def test_the_rank_share_and_rating_tell_a_weak_policy_from_an_even_one():
    even = evaluate(seeded_random(1), [RandomBot()], deals=150)
    weak = evaluate(seeded_random(1), [FleaGreedyBot()], deals=150)
    assert even.low < 0.5 < even.high
    assert weak.high < 0.5 and weak.low < weak.rank_share < weak.high
    assert weak.mu < even.mu and weak.faults == even.faults == 0


def test_an_illegal_action_id_is_a_fault_and_three_forfeit_the_game():
    def illegal(observation: NDArray[np.float32], mask: NDArray[np.int8]) -> int:
        return int(np.flatnonzero(mask == 0)[0])

    found = evaluate(illegal, [RandomBot()], deals=3)
    assert found.rank_share == 0.0 and found.faults == 3 * found.games


def test_evaluate_refuses_a_table_the_game_does_not_have():
    with pytest.raises(ValueError, match="2 deals"):
        evaluate(first_legal, [RandomBot()], deals=1)
    with pytest.raises(Exception, match="2-5 players"):
        evaluate(first_legal, [RandomBot()] * 5, deals=2)
