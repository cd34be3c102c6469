"""The training environments (training/): PettingZoo's own conformance tests, and no leak.

Only Flea Circus is encoded so far (docs/training.md, "What exists").
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from referee.games import get_game  # noqa: E402
from referee.games.determinize import FleaSampler  # noqa: E402
from training.aec import CircusAECEnv, rank_rewards  # noqa: E402
from training.encoding import encoder  # noqa: E402

TABLES = [("flea-circus", players) for players in range(2, 6)]


@pytest.mark.parametrize(("game", "players"), TABLES)
def test_pettingzoo_api_and_seed_tests_pass_with_no_warning(game: str, players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        api_test(CircusAECEnv(game, players), num_cycles=1000)
        seed_test(lambda: CircusAECEnv(game, players), num_cycles=100)


def test_the_agent_selected_is_the_deciding_seat_with_its_legal_mask() -> None:
    """A counterattack's target choice included: the mask is exactly the legal codes."""
    env = CircusAECEnv("flea-circus", 3)
    env.reset(seed=7)
    kinds: set[str] = set()
    while env.agents and not env.terminations[env.agent_selection]:
        state = env.state
        assert state is not None
        assert env.agent_selection == f"seat_{state.current_seat()}"
        mask = env.infos[env.agent_selection]["action_mask"]
        codes = {env.encoder.codes[index] for index in np.flatnonzero(mask)}
        assert codes == {action.code for action in state.legal_actions()}
        kinds.add(state.decision_kind())
        env.step(int(np.flatnonzero(mask)[-1]))
    assert env.state is not None and env.state.is_terminal()
    assert kinds == {"play", "target"}


def test_rewards_are_rank_based_and_given_at_the_end() -> None:
    assert rank_rewards([1, 2]) == [1.0, -1.0]
    assert rank_rewards([1, 1, 3]) == [0.5, 0.5, -1.0]
    env = CircusAECEnv("flea-circus", 2)
    env.reset(seed=3)
    total = {agent: 0.0 for agent in env.possible_agents}
    while env.agents:
        agent = env.agent_selection
        _, reward, terminated, truncated, info = env.last()
        total[agent] += reward
        env.step(None if terminated or truncated
                 else int(np.flatnonzero(info["action_mask"])[0]))
    assert env.state is not None
    assert list(total.values()) == rank_rewards(env.state.ranks())


def test_no_leak_states_a_seat_cannot_tell_apart_give_identical_tensors() -> None:
    """200 pairs: two deals sampled from a seat's view differ only in hidden cards."""
    game, code = get_game("flea-circus"), encoder("flea-circus")
    rng = random.Random(38)
    pairs = differing = 0
    while pairs < 200:
        players = rng.randint(2, 5)
        state = game.new_state(players, None, rng.getrandbits(63))
        for _ in range(rng.randint(0, 30)):
            if state.is_terminal():
                break
            state.apply(rng.randrange(len(state.legal_actions())))
        seat = rng.randrange(players)
        view = state.observation(seat)
        sampler = FleaSampler(view, [event for event in state.events if event.visible_for(seat)])
        first, second = sampler.sample(rng), sampler.sample(rng)
        differing += first.final_state() != second.final_state()
        for other in (first, second):
            assert code.observe(other.observation(seat), players).tobytes() == \
                code.observe(view, players).tobytes()
            if not state.is_terminal() and state.current_seat() == seat:
                assert code.mask(other.legal_actions()).tobytes() == \
                    code.mask(state.legal_actions()).tobytes()
        pairs += 1
    assert differing > 100  # the pairs really differ in what the seat cannot see
