"""Evaluating policies in process, policies as bots, the baseline learner, the callback."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from bots.flea_greedy import FleaGreedyBot
from bots.random_bot import RandomBot
from circus.v1 import bot_pb2
from referee.checkbot import check_bot
from referee.games import get_game
from referee.settings import BotSpec, TimeConfig
from referee.wire import decision_request
from training.encoding import encoder
from training.evaluate import evaluate, rank_share
from training.policy import MLPPolicy, PolicyBot


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


def tiny_weights(folder: Path, seed: int = 0) -> Path:
    """A random linear policy's weight file, written in a bot's folder."""
    code = encoder("flea-circus")
    rng = np.random.default_rng(seed)
    path = folder / "tiny.npz"
    MLPPolicy([(rng.normal(size=(code.size, len(code.codes))),
                np.zeros(len(code.codes)))]).save(path)
    return path


def test_a_weight_file_bot_passes_check_bot_sandboxed(tmp_path):
    folder = tmp_path / "policy"
    folder.mkdir()
    tiny_weights(folder)
    spec = BotSpec(name="candidate", dir=str(folder),
                   command="python -m training.policy_bot --policy tiny.npz --address {address}")
    checks = list(check_bot(spec, None, 1, TimeConfig(), at_once=2))
    assert all(check.passed for check in checks), [check.line() for check in checks]
    assert "tiny 1.0" in checks[0].message
    assert checks[1].message == "flea-circus/standard"


def test_a_policy_plays_over_the_wire_as_in_process():
    """The served bot answers what its policy chooses from the in-process tensor and mask."""
    code = encoder("flea-circus")
    rng = np.random.default_rng(5)
    policy = MLPPolicy([(rng.normal(size=(code.size, 8)), rng.normal(size=8)),
                        (rng.normal(size=(8, len(code.codes))), np.zeros(len(code.codes)))])
    bot = PolicyBot(policy)
    state = get_game("flea-circus").new_state(3, "standard", 11)
    while not state.is_terminal():
        actions = state.legal_actions()
        seat = state.current_seat()
        request = decision_request(state, "g", len(state.history), 0, bot_pb2.Clock(), actions)
        index = bot.decide(request)
        tensor = code.observe(state.observation(seat), 3)
        assert actions[index].code == code.codes[policy(tensor, code.mask(actions))]
        state.apply(index, actions)


def test_a_weight_file_of_other_arrays_is_refused(tmp_path):
    np.savez(tmp_path / "bad.npz", weights=np.zeros(3))
    with pytest.raises(ValueError, match="expected arrays w0, b0"):
        MLPPolicy.load(tmp_path / "bad.npz")
