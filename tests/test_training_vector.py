"""The vector environment: each table plays the AEC environment's games, seeded per table."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
from gymnasium.wrappers.vector import DictInfoToList, RecordEpisodeStatistics  # noqa: E402

from training.aec import CircusAECEnv  # noqa: E402
from training.vector import CircusVectorEnv  # noqa: E402

GAMES = [("flea-circus", "standard", 3), ("flohcati", "es", 4), ("animal-circus", "standard", 2)]


def _random_legal(masks: np.ndarray, rng: random.Random) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row).tolist()) for row in masks])


@pytest.mark.parametrize(("game", "variant", "seats"), GAMES)
def test_each_table_plays_the_aec_environment_s_games_seeded_seed_plus_its_index(
        game: str, variant: str, seats: int) -> None:
    """Row by row the same tensors, masks, seats and end rewards as one AEC environment per
    table reset with ``seed + i``, through the tables' automatic next deals."""
    tables = 3
    envs = CircusVectorEnv(game, tables, seats=seats, variant=variant)
    singles = [CircusAECEnv(game, seats=seats, variant=variant) for _ in range(tables)]
    observations, infos = envs.reset(seed=40)
    for table, single in enumerate(singles):
        single.reset(seed=40 + table)
    rng = random.Random(3)
    ended = 0
    while ended < 2 * tables:
        for table, single in enumerate(singles):
            agent = single.agent_selection
            assert infos["seat"][table] == single.possible_agents.index(agent)
            assert observations[table].tobytes() == single.observe(agent).tobytes()
            assert infos["action_mask"][table].tobytes() == \
                single.infos[agent]["action_mask"].tobytes()
        actions = _random_legal(infos["action_mask"], rng)
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        assert not truncated.any()
        for table, single in enumerate(singles):
            agent = single.agent_selection
            single.step(int(actions[table]))
            if terminated[table]:
                ended += 1
                assert rewards[table] == single.rewards[agent]
                assert infos["final_rewards"][table].tolist() == \
                    [single.rewards[name] for name in single.possible_agents]
                assert infos["final_obs"][table].tobytes() == single.observe(agent).tobytes()
                single.reset()  # unseeded: the table's next deal
            else:
                assert rewards[table] == 0.0
    assert envs.observation_space.contains(observations)


def test_the_same_seeds_give_the_same_steps_and_a_list_seeds_each_table() -> None:
    def play(seed: int | list[int]) -> list[object]:
        envs = CircusVectorEnv("flea-circus", 4)
        steps: list[object] = [envs.reset(seed=seed)]
        rng = random.Random(1)
        for _ in range(60):
            steps.append(envs.step(_random_legal(steps[-1][-1]["action_mask"], rng)))
        return steps

    assert data_equivalence(play(7), play(7), exact=True)
    assert data_equivalence(play(7), play([7, 8, 9, 10]), exact=True)
    assert not data_equivalence(play(7), play(8), exact=True)


def test_an_illegal_id_is_refused_before_any_table_moves() -> None:
    envs = CircusVectorEnv("flea-circus", 2)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.array([0, 0]))
    observations, infos = envs.reset(seed=1)
    legal = int(np.flatnonzero(infos["action_mask"][0])[0])
    illegal = int(np.flatnonzero(infos["action_mask"][1] == 0)[0])
    with pytest.raises(ValueError, match="is not legal now"):
        envs.step(np.array([legal, illegal]))
    assert [len(state.history) for state in envs.states] == [0, 0]


def test_returned_arrays_are_the_caller_s_and_gymnasium_s_vector_wrappers_read_them() -> None:
    """Episode statistics count each ended table's game once (same-step autoreset)."""
    envs = RecordEpisodeStatistics(CircusVectorEnv("animal-circus", 3))
    first, infos = envs.reset(seed=2)
    kept = first.copy()
    rng = random.Random(2)
    episodes = 0
    for _ in range(400):
        _, _, terminated, _, infos = envs.step(
            _random_legal(infos["action_mask"], rng))
        episodes += int(terminated.sum())
        if "episode" in infos:
            assert (infos["episode"]["l"][infos["_episode"]] > 0).all()
    assert episodes > 0
    assert np.array_equal(first, kept)  # the first batch was not written over
    listed = DictInfoToList(CircusVectorEnv("flea-circus", 2))
    _, info_list = listed.reset(seed=0)
    assert [sorted(info) for info in info_list] == [["action_mask", "seat"]] * 2


def test_the_bench_commands_give_every_figure_and_a_goal_line(capsys: pytest.CaptureFixture[str]
                                                              ) -> None:
    """``python -m bench.training steps gym vector equality`` runs, scaled down to a smoke
    test (its figures are not looked at: no test asserts a speed)."""
    from bench.training import main

    main(["steps", "gym", "vector", "equality", "--seconds", "0.02", "--repeats", "1",
          "--games", "1"])
    printed = capsys.readouterr().out
    assert printed.count("goal: >= ") >= 3
    assert "random policies dec/s" in printed
    assert "2.0x the single environment" in printed
    assert "16 random games in all" in printed
    with pytest.raises(SystemExit):
        main(["speed"])
    assert "no command speed" in capsys.readouterr().err
