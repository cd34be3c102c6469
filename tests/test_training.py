"""The training environments (training/): PettingZoo's and Gymnasium's own checks, no leak.

Every game and variant at every table size it allows (docs/training.md).
"""

from __future__ import annotations

import random
import re
import threading
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from referee.games import get_game  # noqa: E402
from referee.games.determinize import sampler_for  # noqa: E402
from referee.games.flea_circus import FleaCircusState  # noqa: E402
from training.aec import CircusAECEnv, rank_rewards  # noqa: E402
from training.encoding import MAX_SEATS, encoder, relative_word  # noqa: E402

GAMES = [("flea-circus", "standard"), ("flohcati", "en"), ("flohcati", "es"),
         ("animal-circus", "standard")]
TABLES = [(game, variant, seats) for game, variant in GAMES for seats in range(2, 6)]


@pytest.mark.parametrize(("game", "variant", "seats"), TABLES)
def test_pettingzoo_api_and_seed_tests_pass_with_no_warning(game: str, variant: str,
                                                            seats: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        api_test(CircusAECEnv(game, seats, variant), num_cycles=1000)
        seed_test(lambda: CircusAECEnv(game, seats, variant))


@pytest.mark.parametrize(("game", "variant"), GAMES)
def test_the_agent_selected_is_the_deciding_seat_with_its_legal_mask(game: str,
                                                                    variant: str) -> None:
    """Every decision kind of the game, the seat not on turn's included (a Flohcati give)."""
    kinds: set[str] = set()
    for seats in range(2, 6):
        env = CircusAECEnv(game, seats, variant)
        for episode in range(6):
            env.reset(seed=seats * 10 + episode)
            while env.agents and not env.terminations[env.agent_selection]:
                state = env.state
                assert state is not None
                seat = state.current_seat()
                assert env.agent_selection == f"seat_{seat}"
                mask = env.infos[env.agent_selection]["action_mask"]
                codes = {env.encoder.codes[index] for index in np.flatnonzero(mask)}
                assert codes == {env.encoder.word(action.code, seat, seats)
                                 for action in state.legal_actions()}
                kinds.add(state.decision_kind())
                env.step(int(np.random.default_rng(len(state.history)).choice(
                    np.flatnonzero(mask))))
            assert env.state is not None and env.state.is_terminal()
    assert kinds == EVERY_KIND[game, variant]


EVERY_KIND = {
    ("flea-circus", "standard"): {"play", "target"},
    ("flohcati", "en"): {"turn", "open-take", "target", "give", "end-of-turn"},
    ("flohcati", "es"): {"turn", "nueva", "match", "target", "give", "request", "end-of-turn"},
    ("animal-circus", "standard"): {"play", "target", "pile", "order"},
}


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


@pytest.mark.parametrize(("game", "variant"), GAMES)
def test_no_leak_states_a_seat_cannot_tell_apart_give_identical_tensors(game: str,
                                                                       variant: str) -> None:
    """200 pairs per game: two deals sampled from a seat's view differ only in hidden cards.

    Both ways of writing a tensor are compared: from the wire's dict and from the engine's
    state (whose runs, kept by content, are shared by every seat's tensors). At positions of
    random games before their end (a sampler deals games in progress), seen by the deciding
    seat half of the time, so its masks are compared too.
    """
    rules, code = get_game(game), encoder(game, variant)
    rng = random.Random(38)
    pairs = differing = deciding = 0
    while pairs < 200:
        players = rng.randint(2, 5)
        state = rules.new_state(players, variant, rng.getrandbits(63))
        for _ in range(rng.randint(0, 80)):
            actions = state.legal_actions()
            state.apply(rng.randrange(len(actions)), actions)
            if state.is_terminal():
                state = rules.new_state(players, variant, rng.getrandbits(63))
        seat = state.current_seat() if rng.random() < 0.5 else rng.randrange(players)
        view = state.observation(seat)
        sampler = sampler_for(game, view, [event for event in state.events
                                           if event.visible_for(seat)])
        first, second = sampler.sample(rng), sampler.sample(rng)
        differing += first.final_state() != second.final_state()
        seen = code.observe_state(state, seat).tobytes()
        for other in (first, second):
            assert code.observe(other.observation(seat), players).tobytes() == \
                code.observe(view, players).tobytes()
            assert code.observe_state(other, seat).tobytes() == seen  # the environments' way
            if state.current_seat() == seat:
                assert code.mask(other.legal_actions(), seat, players).tobytes() == \
                    code.mask(state.legal_actions(), seat, players).tobytes()
        deciding += state.current_seat() == seat
        pairs += 1
    assert differing > 150  # the pairs really differ in what the seat cannot see
    assert deciding > 80  # and the seat often decides: its masks are compared


@pytest.mark.parametrize(("game", "variant"), GAMES)
def test_the_gymnasium_view_passes_check_env_with_no_warning(game: str, variant: str) -> None:
    from gymnasium.utils.env_checker import check_env

    from bots.random_bot import RandomBot
    from training.gym import CircusGymEnv

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(CircusGymEnv(game, [RandomBot(), RandomBot()], variant),
                  skip_render_check=True)


@pytest.mark.parametrize(("game", "variant"), GAMES)
def test_policy_opponents_see_their_own_seat_s_tensor_and_pass_check_env(game: str,
                                                                        variant: str) -> None:
    """A policy opponent is asked with its seat's tensor from the state and its legal mask
    (no request built), beside a bot; its ids are played, and the view passes check_env."""
    from gymnasium.utils.env_checker import check_env

    from bots.random_bot import RandomBot
    from training.gym import CircusGymEnv

    asked: list[int] = []

    def lowest(observation: np.ndarray, mask: np.ndarray) -> int:
        state = env.state
        assert state is not None
        seat = state.current_seat()
        assert seat != env.learner and seat in env.policies
        assert observation.tobytes() == env.encoder.observe_state(state, seat).tobytes()
        assert mask.tobytes() == env.encoder.mask(state.legal_actions(), seat, 3).tobytes()
        asked.append(seat)
        return int(np.flatnonzero(mask)[0])

    env = CircusGymEnv(game, [lowest, RandomBot()], variant)
    _, info = env.reset(seed=3)
    done = False
    while not done:
        _, _, done, _, info = env.step(np.int64(np.flatnonzero(info["action_mask"])[0]))
    assert asked and info["opponent_faults"] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(CircusGymEnv(game, [_first_legal, _first_legal], variant),
                  skip_render_check=True)


def _first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def test_a_policy_opponent_s_illegal_id_is_a_fault_and_a_random_policy_plays_legal_ids() -> None:
    from training.gym import CircusGymEnv
    from training.policy import RandomPolicy

    def illegal(observation: np.ndarray, mask: np.ndarray) -> int:
        return int(np.flatnonzero(mask == 0)[0])

    for opponent, faulty in ((illegal, True), (RandomPolicy(seed=1), False)):
        env = CircusGymEnv("flohcati", [opponent, RandomPolicy(seed=2)])
        _, info = env.reset(seed=8)
        done = False
        while not done:
            _, _, done, _, info = env.step(np.int64(np.flatnonzero(info["action_mask"])[0]))
        assert (info["opponent_faults"] > 0) == faulty


def test_the_learner_decides_at_every_step_and_its_seat_rotates() -> None:
    from bots.random_bot import RandomBot
    from training.gym import CircusGymEnv

    env = CircusGymEnv("flea-circus", [RandomBot(), RandomBot()])
    seats = []
    for episode in range(3):
        _, info = env.reset(seed=5) if episode == 0 else env.reset()
        seats.append(info["seat"])
        done, reward = False, 0.0
        while not done:
            state = env.state
            assert state is not None and state.current_seat() == env.learner
            assert {env.encoder.codes[i] for i in np.flatnonzero(info["action_mask"])} == \
                {relative_word(action.code, env.learner, 3) for action in state.legal_actions()}
            _, reward, done, _, info = env.step(np.int64(np.flatnonzero(info["action_mask"])[0]))
        assert env.state is not None
        assert reward == rank_rewards(env.state.ranks())[env.learner]
    assert seats == [0, 1, 2]


@pytest.mark.parametrize("game", ["flea-circus", "flohcati", "animal-circus"])
def test_the_gymnasium_view_lists_the_legal_actions_once_per_decision(game: str) -> None:
    """The learner's mask and its chosen id, and an opponent's request and its reply, each
    read one listing: two per decision was the cost this counts."""
    from unittest import mock

    from bots.random_bot import RandomBot
    from training.gym import CircusGymEnv

    env = CircusGymEnv(game, [RandomBot(), RandomBot()], time_control=None)
    env.reset(seed=3)
    kind = type(env.state)
    listings = 0

    def listed(state: Any) -> Any:
        nonlocal listings
        listings += 1
        return real(state)

    real = kind.legal_actions
    with mock.patch.object(kind, "legal_actions", listed):
        _, info = env.reset(seed=3)
        done = False
        while not done:
            _, _, done, _, info = env.step(np.int64(np.flatnonzero(info["action_mask"])[0]))
    assert env.state is not None and "illegal" not in info
    assert listings == len(env.state.history)


def test_an_illegal_action_id_ends_the_episode_as_a_loss() -> None:
    from bots.random_bot import RandomBot
    from training.gym import CircusGymEnv

    env = CircusGymEnv("flea-circus", [RandomBot()])
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(np.int64(illegal))
    assert (reward, terminated, info["illegal"]) == (-1.0, True, True)


def test_the_gymnasium_view_runs_in_a_sync_vector_env() -> None:
    import gymnasium

    from bots.random_bot import RandomBot
    from training.gym import CircusGymEnv

    vector = gymnasium.vector.SyncVectorEnv(
        [lambda: CircusGymEnv("flea-circus", [RandomBot()]) for _ in range(2)])
    observations, info = vector.reset(seed=2)
    finished = 0
    for _ in range(200):
        actions = [int(np.flatnonzero(mask)[0]) if mask.any() else 0
                   for mask in info["action_mask"]]
        observations, _, terminated, _, info = vector.step(np.array(actions))
        finished += int(terminated.sum())
    assert observations.shape == (2, encoder("flea-circus").size)
    assert finished > 0


@pytest.mark.parametrize(("game", "variant"), GAMES)
def test_a_decision_request_gives_the_same_tensor_and_mask_as_in_process(game: str,
                                                                        variant: str) -> None:
    """One encoder for both sides: over the wire a policy sees what it trained on, and its
    choice of id picks the action it picks in process."""
    from circus.v1 import bot_pb2
    from referee.wire import decision_request
    from training.encoding import encode_request, request_action

    rules, code = get_game(game), encoder(game, variant)
    rng = random.Random(5)
    decisions = 0
    for players in (2, 3, 4, 5, 2, 3):
        state = rules.new_state(players, variant, rng.getrandbits(63))
        seen = [0] * players  # each seat is sent the events since its last request
        while not state.is_terminal():
            actions = state.legal_actions()
            seat = state.current_seat()
            request = decision_request(state, "g", 0, seen[seat], bot_pb2.Clock())
            seen[seat] = len(state.events)
            tensor, mask = encode_request(request)
            assert tensor.tobytes() == code.observe(state.observation(seat),
                                                    players).tobytes()
            assert mask.tobytes() == code.mask(actions, seat, players).tobytes()
            action_id = int(rng.choice(np.flatnonzero(mask)))
            index = request_action(request, action_id)  # and back: the same action
            assert index == code.action_index(actions, action_id, seat, players)
            state.apply(index, actions)
            decisions += 1
    assert decisions > 100


def _rotated(state: FleaCircusState, by: int) -> FleaCircusState:
    """The same Flea Circus position with every seat moved ``by`` places clockwise."""
    players = state.num_players
    turned = FleaCircusState(players, state.variant, 0)

    def turn(values: list[Any]) -> list[Any]:
        return [values[(seat - by) % players] for seat in range(players)]

    turned.hands, turned.piles = turn(state.hands), turn(state.piles)
    turned.loot, turned.earth = turn(state.loot), state.earth
    turned.deck, turned.turn = list(state.deck), state.turn
    turned.player = (state.player + by) % players
    turned.choosing_target = state.choosing_target
    return turned


def test_seats_are_relative_a_rotated_table_gives_the_same_tensor_and_ids() -> None:
    """A policy trained at one seat plays at another: the ids and tensor name places, not seats.

    Each position, rotated so the decider sits elsewhere, gives the decider the same tensor
    and mask, and each id picks the same relative action (the target two places on, say).
    """
    game, code = get_game("flea-circus"), encoder("flea-circus")
    rng = random.Random(11)
    targets = 0
    for _ in range(60):
        players = rng.randint(2, 5)
        state = game.new_state(players, None, rng.getrandbits(63))
        while not state.is_terminal():
            assert isinstance(state, FleaCircusState)
            seat, actions = state.current_seat(), state.legal_actions()
            by = rng.randrange(1, players) if players > 1 else 0
            turned = _rotated(state, by)
            assert code.observe(turned.observation((seat + by) % players), players).tobytes() \
                == code.observe(state.observation(seat), players).tobytes()
            mask = code.mask(actions, seat, players)
            assert code.mask(turned.legal_actions(), (seat + by) % players,
                             players).tobytes() == mask.tobytes()
            for action_id in np.flatnonzero(mask):
                mine = actions[code.action_index(actions, int(action_id), seat, players)]
                theirs = turned.legal_actions()[code.action_index(
                    turned.legal_actions(), int(action_id), (seat + by) % players, players)]
                if mine.code.startswith("target:"):
                    targets += 1
                    assert theirs.payload["target"] == (mine.payload["target"] + by) % players
                else:
                    assert theirs.code == mine.code
            state.apply(rng.randrange(len(actions)), actions)
    assert targets > 50


TENSOR_HEADINGS = {"Flea Circus": "flea-circus", "Circus Flohcati": "flohcati",
                   "Animal Circus": "animal-circus"}


def test_the_documented_tensor_layouts_are_the_encoders() -> None:
    """docs/training.md's tables: fields back to back, one block per place, the encoder's size."""
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "training.md").read_text()
    found = set()
    for heading, body in re.findall(r"^## Observation tensor: ([^\n]+)$(.*?)(?=^## |\Z)", text,
                                    re.M | re.S):
        offset = place_start = stride = 0
        for start, step, size in re.findall(r"^\| (\d+)(?: \+ (\d+)·p)? \| (\d+) \|", body, re.M):
            if step and not stride:
                place_start, stride = int(start), int(step)
            assert int(start) == offset, (heading, start)
            assert int(step or stride) == stride
            offset += int(size)
        assert offset - place_start == stride
        code = encoder(TENSOR_HEADINGS[heading])
        assert place_start + MAX_SEATS * stride == code.size
        assert f"{code.size:,} values" in body or f"{code.size} values" in body
        assert f"vocabulary ({len(code.codes):,})" in body
        found.add(code.game)
    assert found == set(TENSOR_HEADINGS.values())


class _Recording:
    """A random bot that records each call's thread, and the games it was told ended."""

    def __init__(self) -> None:
        from bots.random_bot import RandomBot

        self.random, self.threads, self.ended = RandomBot(), set(), []

    def hello(self, request: Any) -> Any:
        return self.random.hello(request)

    def start_game(self, request: Any) -> None:
        self.threads.add(threading.current_thread())

    def decide(self, request: Any) -> int:
        self.threads.add(threading.current_thread())
        return self.random.decide(request)

    def end_game(self, request: Any) -> None:
        self.ended.append((request.game_id, list(request.ranks)))


class _Faulty(_Recording):
    """Answers as a random bot but for its first decision, where it ``fails`` as told."""

    def __init__(self, fails: str) -> None:
        super().__init__()
        self.fails, self.release, self.asked, self.first_legal = fails, threading.Event(), 0, 0

    def decide(self, request: Any) -> int:
        self.asked += 1
        if self.asked > 1:
            return super().decide(request)
        self.first_legal = len(request.legal_actions)
        if self.fails == "hangs":  # then a legal reply: only a deadline makes it a fault
            self.release.wait(30)
            return 0
        if self.fails == "raises":
            raise RuntimeError("a bug")
        return len(request.legal_actions)  # out of range


@pytest.mark.parametrize("fails", ["hangs", "raises", "out of range"])
def test_an_opponent_s_fault_is_met_as_the_referee_meets_it_and_the_game_goes_on(
        fails: str) -> None:
    """Under a deadline (a hang is a timeout): the seeded substitute plays, the fault counted."""
    from referee.seeds import derive_seed
    from referee.settings import TimeConfig
    from training.gym import CircusGymEnv

    bot = _Faulty(fails)
    env = CircusGymEnv("flea-circus", [bot],
                       time_control=TimeConfig(move_ms=100, bank_ms=0, grace_ms=100))
    try:
        _, info = env.reset(seed=4)  # the learner sits at seat 0: the bot decides second
        _, _, done, _, info = env.step(np.int64(np.flatnonzero(info["action_mask"])[0]))
        assert bot.asked >= 1 and info["opponent_faults"] >= 1
        state = env.state
        assert state is not None
        substitute = random.Random(derive_seed(state.seed, env.game_id, 1))
        assert state.history[1] == substitute.randrange(bot.first_legal)
        while not done:
            _, _, done, _, info = env.step(np.int64(np.flatnonzero(info["action_mask"])[0]))
        assert state.is_terminal() and bot.asked > 1
    finally:
        bot.release.set()
        env.close()


def test_opponents_run_on_a_thread_of_their_own_unless_untimed_and_hear_the_end() -> None:
    from referee.settings import TimeConfig
    from training.gym import CircusGymEnv

    for time_control, own_thread in ((TimeConfig(), False), (None, True)):
        bot = _Recording()
        env = CircusGymEnv("animal-circus", [bot], time_control=time_control)
        _, info = env.reset(seed=8)
        done = False
        while not done:
            _, _, done, _, info = env.step(np.int64(np.flatnonzero(info["action_mask"])[0]))
        env.close()
        assert (bot.threads == {threading.current_thread()}) is own_thread
        assert env.state is not None
        assert bot.ended == [(env.game_id, env.state.ranks())]


#: Each game's observation fields that list something per seat, and those that name a seat.
PER_SEAT = {"flea-circus": ("piles", "loot", "hand_sizes", "skipping"),
            "flohcati": ("trios", "hand_sizes", "known_cards"),
            "animal-circus": ("score_piles", "hand_sizes", "draw_sizes", "scores")}
SEAT_FIELDS = ("seat", "current_player", "deciding_seat", "giver", "receiver", "previous_player")


def _turned(observation: dict[str, Any], game: str, by: int, players: int) -> dict[str, Any]:
    """The observation of the same position with every seat moved ``by`` places clockwise."""
    turned = dict(observation)
    for key in PER_SEAT[game]:
        turned[key] = [observation[key][(seat - by) % players] for seat in range(players)]
    for key in SEAT_FIELDS:
        if key in observation and observation[key] >= 0:
            turned[key] = (observation[key] + by) % players
    return turned


@pytest.mark.parametrize(("game", "variant"), GAMES)
def test_every_game_s_tensor_and_ids_name_places_not_seats(game: str, variant: str) -> None:
    """The seat's observation turned round the table gives the same tensor, and each legal
    action turned (``target:1`` as ``target:2`` one place on) the same id."""
    rules, code = get_game(game), encoder(game, variant)
    rng = random.Random(19)
    turned_codes = 0
    for _ in range(12):
        players = rng.randint(2, 5)
        state = rules.new_state(players, variant, rng.getrandbits(63))
        while not state.is_terminal():
            seat, actions = state.current_seat(), state.legal_actions()
            observation = state.observation(seat)
            by = rng.randrange(1, players)
            assert code.observe(_turned(observation, game, by, players), players).tobytes() == \
                code.observe(observation, players).tobytes()
            for action in actions:
                head, _, tail = action.code.partition(":")
                moved = f"{head}:{(int(tail) + by) % players}" if head in ("target", "pile") \
                    else action.code
                turned_codes += moved != action.code
                assert code.action_id(moved, (seat + by) % players, players) == \
                    code.action_id(action.code, seat, players)
            state.apply(rng.randrange(len(actions)), actions)
    assert turned_codes > 20


def test_the_readme_s_one_liners_make_each_environment() -> None:
    """Each line of the README's training section, run as it is, makes a working environment."""
    from pathlib import Path

    import gymnasium
    from pettingzoo import AECEnv

    text = (Path(__file__).parent.parent / "README.md").read_text()
    start = text.index("## Training")
    section = text[start:text.index("\n## ", start)]
    lines = re.findall(r"^- .*: `(from .*env = .*)`$", section, re.M)
    made = set()
    for line in lines:
        scope: dict[str, Any] = {}
        exec(line, scope)
        env = scope["env"]
        assert isinstance(env, (AECEnv, gymnasium.Env))
        env.reset(seed=1)
        made.add((env.game.name, env.variant, type(env).__name__))
    assert {game for game, _, _ in made} == {game for game, _ in GAMES}
    assert {kind for _, _, kind in made} == {"CircusAECEnv", "CircusGymEnv"}


# -- the names the ecosystem looks for ------------------------------------------------------

@pytest.mark.parametrize(("game", "variant"), GAMES)
def test_gymnasium_makes_every_game_by_its_registered_id(game: str, variant: str) -> None:
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    from training.envs import NAMES, gym_id

    assert gym_id(game) == f"circus/{NAMES[game]}-v0"
    env = gymnasium.make(f"training.envs:{gym_id(game)}", players=3, variant=variant)
    assert (env.unwrapped.game.name, env.unwrapped.variant, env.unwrapped.players) == (
        game, variant, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped, skip_render_check=True)
    observation, info = env.reset(seed=1)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert set(gymnasium.registry) >= {"circus/FleaCircus-v0", "circus/Flohcati-v0",
                                       "circus/AnimalCircus-v0"}


def test_gymnasium_s_opponents_set_the_table_size() -> None:
    import gymnasium

    from bots.random_bot import RandomBot
    from training import envs

    env = gymnasium.make(envs.gym_id("flea-circus"), opponents=[RandomBot()] * 4)
    assert env.unwrapped.players == 5
    with pytest.raises(ValueError, match="3 opponents for 2 players"):
        envs.gym_env("flea-circus", players=2, opponents=[RandomBot()] * 3)


@pytest.mark.parametrize(("module", "game", "variant"), [
    ("flea_circus_v0", "flea-circus", None), ("flohcati_v0", "flohcati", "es"),
    ("animal_circus_v0", "animal-circus", None)])
def test_pettingzoo_s_env_and_raw_env_of_each_game(module: str, game: str,
                                                   variant: str | None) -> None:
    import importlib

    constructors = importlib.import_module(f"training.envs.{module}")
    raw = constructors.raw_env(seats=3, variant=variant)
    assert isinstance(raw, CircusAECEnv) and raw.game.name == game and raw.players == 3
    wrapped = constructors.env(seats=3, variant=variant)
    assert wrapped.unwrapped.game.name == game
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        api_test(wrapped, num_cycles=100)


def test_the_training_doc_s_environments_by_name_run_as_written() -> None:
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "training.md").read_text()
    section = text[text.index("**By name**"):]
    block = section[section.index("```python\n") + 10:section.index("```\n", 10)]
    made = []
    scope: dict[str, Any] = {}
    for line in block.splitlines():
        exec(line, scope)
        if line.startswith("env = "):
            made.append(scope["env"].unwrapped)
    assert [(env.game.name, env.players) for env in made] == [
        ("flea-circus", 3), ("flohcati", 2), ("animal-circus", 4), ("animal-circus", 4)]
