"""Evaluating policies in process, policies as bots, the baseline learner, the callback."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import run_tournament
from numpy.typing import NDArray

from bench import training as bench_training
from bots.flea_greedy import FleaGreedyBot
from bots.random_bot import RandomBot
from circus.v1 import bot_pb2
from ratings.stats import t_quantile
from referee.checkbot import check_bot
from referee.games import GAMES, get_game
from referee.settings import BotSpec, TimeConfig
from referee.wire import decision_request
from tensorboardX.proto import event_pb2

from training.baseline import Settings, Trainer
from training.baseline import main as main_baseline
from training.callbacks import EvaluateCallback
from training.encoding import encoder
from training.evaluate import evaluate, rank_share, share_interval
from training.gym import CircusGymEnv
from tournaments.config import load_config
from training.policy import MLPPolicy, PolicyBot

ROOT = Path(__file__).resolve().parent.parent


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


class SeatingBot(RandomBot):
    """A random bot that notes its seat in each game (seat names are not revealed)."""

    def __init__(self, name: str, seatings: dict[str, dict[int, str]]) -> None:
        self.name, self.seatings = name, seatings

    def start_game(self, request: bot_pb2.StartGameRequest) -> None:
        self.seatings.setdefault(request.game_id, {})[request.seat] = self.name


def test_the_opponents_order_varies_so_the_policy_sits_after_each_equally_often():
    """Rotations alone keep who sits after whom: over (k-1)! deals the order around the
    table varies, so the opponent seated after the policy is each of them as often."""
    seatings: dict[str, dict[int, str]] = {}
    evaluate(first_legal, [SeatingBot(name, seatings) for name in "abc"], deals=6, seed=1)
    tables = [tuple(seats.get(seat, "policy") for seat in range(4))
              for seats in seatings.values()]
    after = [table[(table.index("policy") + 1) % 4] for table in tables]
    assert len(tables) == 24 and [after.count(name) for name in "abc"] == [8, 8, 8]
    assert len(set(tables)) == 24   # the 6 orders, each in its 4 rotations


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


@pytest.mark.parametrize("game, variant", [(name, variant) for name, game in GAMES.items()
                                           for variant in game.variants])
def test_a_policy_plays_over_the_wire_as_in_process(game, variant):
    """The served bot answers what its policy chooses from the in-process tensor and mask."""
    code = encoder(game, variant)
    rng = np.random.default_rng(5)
    policy = MLPPolicy([(rng.normal(size=(code.size, 8)), rng.normal(size=8)),
                        (rng.normal(size=(8, len(code.codes))), np.zeros(len(code.codes)))])
    bot = PolicyBot(policy)
    state = get_game(game).new_state(3, variant, 11)
    seen = [0] * 3  # each seat is sent the events since its last request
    while not state.is_terminal():
        actions = state.legal_actions()
        seat = state.current_seat()
        request = decision_request(state, "g", len(state.history), seen[seat], bot_pb2.Clock(),
                                   actions)
        seen[seat] = len(state.events)
        index = bot.decide(request)
        tensor = code.observe(state.observation(seat), 3)
        chosen = policy(tensor, code.mask(actions, seat, 3))
        assert index == code.action_index(actions, chosen, seat, 3)
        state.apply(index, actions)


def test_a_weight_file_claims_the_games_of_its_shape():
    shapes = {game: MLPPolicy([(np.zeros((encoder(game).size, len(encoder(game).codes))),
                                np.zeros(len(encoder(game).codes)))]).games()
              for game in GAMES}
    assert shapes == {game: [game] for game in GAMES}
    assert MLPPolicy([(np.zeros((3, 2)), np.zeros(2))]).games() == []


def test_a_weight_file_of_other_arrays_is_refused(tmp_path):
    np.savez(tmp_path / "bad.npz", weights=np.zeros(3))
    with pytest.raises(ValueError, match="expected arrays w0, b0"):
        MLPPolicy.load(tmp_path / "bad.npz")


def test_the_baseline_learner_moves_the_needle_against_the_random_bot():
    """A few seeded generations (seconds) lift the greedy linear policy clearly above its
    start, on deals it never trained on."""
    trainer = Trainer(Settings(pairs=8, deals=8, seed=1))
    before = evaluate(trainer.policy, [RandomBot()], deals=100, seed=9)
    trained = trainer.train(generations=3)
    after = evaluate(trained, [RandomBot()], deals=100, seed=9)
    assert after.low > before.high and after.mu > before.mu
    again = Trainer(Settings(pairs=8, deals=8, seed=1))
    again.train(generations=3)
    assert np.array_equal(again.theta, trainer.theta)


def test_the_baseline_exports_a_weight_file_the_policy_bot_loads(tmp_path):
    main_baseline(["--generations", "1", "--hidden", "4", "--deals", "2",
                   "--out", str(tmp_path / "p.npz")])
    loaded = MLPPolicy.load(tmp_path / "p.npz")
    assert [w.shape for w, _ in loaded.layers] == [(encoder("flea-circus").size, 4),
                                                  (4, len(encoder("flea-circus").codes))]


@pytest.mark.parametrize("option, message", [
    ("--hidden=-3", "argument --hidden: must be at least 0, not -3"),
    ("--deals=1", "argument --deals: must be at least 2, not 1"),
    ("--minutes=0", "argument --minutes: must be at least 0.01, not 0"),
])
def test_the_baseline_refuses_a_bad_option_before_training(tmp_path, capsys, option, message):
    """A value that would fail after the training (or in numpy) is one line, at once."""
    with pytest.raises(SystemExit) as refused:
        main_baseline(["--generations", "1", "--out", str(tmp_path / "p.npz"), option])
    assert refused.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"python -m training.baseline: error: {message}")


def test_the_policy_bot_refuses_a_file_it_cannot_load_in_one_line(tmp_path, capsys):
    from training.policy_bot import main as main_policy_bot
    (tmp_path / "bad.npz").write_text("not numpy's")
    with pytest.raises(SystemExit) as refused:
        main_policy_bot(["--policy", str(tmp_path / "bad.npz"), "--address", "unix:x"])
    assert refused.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith(f"{tmp_path / 'bad.npz'}: not a weight file this bot can load: ")
    assert len(error.splitlines()) == 1, error


def scalars(log_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar of the TensorBoard event files in ``log_dir``, read from their records
    (8-byte length, 4-byte CRC, the Event, 4-byte CRC)."""
    found: dict[str, list[tuple[int, float]]] = {}
    for path in sorted(log_dir.glob("events.out.tfevents.*")):
        data, at = path.read_bytes(), 0
        while at < len(data):
            length = int.from_bytes(data[at:at + 8], "little")
            event = event_pb2.Event.FromString(data[at + 12:at + 12 + length])
            at += 12 + length + 4
            for value in event.summary.value:
                found.setdefault(value.tag, []).append((event.step, value.simple_value))
    return found


def test_the_callback_logs_each_evaluation_to_tensorboard_at_its_step(tmp_path):
    trainer = Trainer(Settings(pairs=2, deals=2))
    callback = EvaluateCallback(trainer.policy, [RandomBot()], tmp_path, eval_freq=2, deals=20)
    trainer.train(generations=4, callback=callback)
    callback.close()
    assert callback.n_calls == 4 and len(callback.evaluations) == 2
    logged = scalars(tmp_path)
    assert logged["eval/rank_share"] == [(step, pytest.approx(found.rank_share))
                                        for step, found in callback.evaluations]
    assert [step for step, _ in logged["eval/trueskill_mu"]] == \
        [step for step, _ in callback.evaluations]
    assert callback.evaluations[-1][0] == trainer.steps
    assert {"eval/rank_share_low", "eval/rank_share_high", "eval/trueskill_sigma"} <= set(logged)


def test_the_callback_is_an_sb3_callable_and_can_stop_training(tmp_path):
    callback = EvaluateCallback(first_legal, [RandomBot()], tmp_path, eval_freq=1, deals=20,
                                stop_above=0.0)
    model = type("Model", (), {"num_timesteps": 2048})()
    assert callback({"self": model}, {}) is False
    assert callback.evaluations[0][0] == 2048
    trainer = Trainer(Settings(pairs=2, deals=2))
    callback.n_calls = 0
    trainer.train(generations=5, callback=callback)
    assert trainer.generation == 1


def test_the_training_bench_gives_its_figures_and_goal_lines():
    # Each rate's window at its floor, one whole game: the figures, not their precision.
    steps, baseline = bench_training.run(minutes=0.001, deals=10, seconds=0.001, repeats=1,
                                         say=lambda message: None)
    assert steps.figures["flea-circus.standard.p2.aec_steps_per_s"] > 0
    assert steps.figures["animal-circus.standard.p4.engine_decisions_per_s"] > 0
    assert baseline.figures["generations"] >= 1
    assert baseline.figures["rank_share_low"] < baseline.figures["rank_share"]
    for section in (steps, baseline):
        assert any(note.startswith("goal:") and note.endswith(("met", "NOT met"))
                   for note in section.notes)
    # Ten deals can never meet the goal, which asks for 1,000.
    assert baseline.notes[-1].endswith("NOT met")


def test_the_shipped_policy_enters_its_tournament_from_bots_yaml(tmp_path):
    """tournaments/policy.yaml's weight-file bot, sandboxed, plays a round without a fault."""
    config = replace(load_config(ROOT / "tournaments" / "policy.yaml"), rounds=1)
    summary, store, _ = run_tournament(config, tmp_path)
    games = store.games("policy")
    assert summary.played == len(games) == 6
    assert all(game.status == "finished" for game in games)
    assert list(store.faults("policy")) == []
    assert sum("es-linear" in game.seats for game in games) == 4


def test_a_policy_against_itself_scores_one_half_on_every_deal():
    """Each deal in both seats: identical greedy policies swap their games exactly."""
    trainer = Trainer(Settings(pairs=2, deals=2, seed=4))
    trainer.train(generations=1)
    found = evaluate(trainer.policy, [PolicyBot(trainer.policy)], deals=20)
    assert found.rank_share == found.low == found.high == 0.5


def test_a_frozen_policy_is_an_opponent_in_the_gymnasium_view():
    asked = []

    def frozen(observation: NDArray[np.float32], mask: NDArray[np.int8]) -> int:
        asked.append(mask.copy())
        return first_legal(observation, mask)

    env = CircusGymEnv("flea-circus", [PolicyBot(frozen)])
    observation, info = env.reset(seed=2)
    done = False
    while not done:
        observation, _, done, _, info = env.step(np.int64(np.flatnonzero(info["action_mask"])[-1]))
    assert asked and all(mask.sum() >= 1 for mask in asked)


def test_the_share_interval_covers_the_true_share_95_times_in_100_with_few_deals() -> None:
    """Deals' shares drawn around a known mean: the stated 95% comes true about 95% of the
    time at 2, 3 and 5 deals (a normal interval covers 70% at 2), and stays within [0, 1]."""
    draw = random.Random(59)
    for deals in (2, 3, 5):
        covered = 0
        for _ in range(4000):
            mean, low, high = share_interval([draw.betavariate(4, 4) for _ in range(deals)])
            assert 0.0 <= low <= mean <= high <= 1.0
            covered += low <= 0.5 <= high
        assert 0.93 <= covered / 4000 <= 0.965, (deals, covered)
    assert share_interval([0.0, 1.0]) == (0.5, 0.0, 1.0)


@pytest.mark.parametrize(("df", "expected"), [(1, 12.706), (2, 4.303), (5, 2.571),
                                              (30, 2.042), (1000, 1.962)])
def test_the_t_multiplier_is_students(df: int, expected: float) -> None:
    assert t_quantile(0.95, df) == pytest.approx(expected, abs=1e-3)
