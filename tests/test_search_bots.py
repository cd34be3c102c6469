"""The search bots: legal, deterministic per request, passing check-bot, and better than chance."""

from __future__ import annotations

import random

import pytest
from click.testing import CliRunner

from bots.ismcts import IsmctsBot
from bots.pimc import PimcBot
from bots.search import Budget, Memory, ismcts, policy_named, rank_shares
from circus.v1 import bot_pb2
from cli.main import main
from referee import wire
from referee.games import get_game
from referee.games.determinize import sampler_for

GAMES = [("flea-circus", "standard"), ("flohcati", "en"), ("flohcati", "es"),
         ("animal-circus", "standard")]


def play(game, variant, players, seated, seed):
    """One game: seat 0 is ``seated`` (a bot, asked over wire requests), the others random."""
    state = get_game(game).new_state(players, variant, seed)
    rng, next_event = random.Random(seed), [0] * players
    while not state.is_terminal():
        seat, actions = state.current_seat(), state.legal_actions()
        if seat == 0:
            request = wire.decision_request(state, f"game-{seed}", len(state.history),
                                            next_event[0], bot_pb2.Clock(move_ms=1000))
            next_event[0] = len(state.events)
            index = seated.decide(request)
            assert 0 <= index < len(actions)
            assert seated.decide(request) == index  # the same request, the same answer
        else:
            index = rng.randrange(len(actions))
        state.apply(index, actions)
    return state


@pytest.mark.parametrize("game, variant", GAMES)
@pytest.mark.parametrize("bot", [IsmctsBot, PimcBot])
def test_search_bots_play_whole_games_legally_and_repeatably(game, variant, bot):
    state = play(game, variant, 3, bot(iterations=25, ms=0), seed=3)
    assert state.is_terminal()


@pytest.mark.parametrize("game, variant", GAMES)
def test_heuristic_playouts_play_legal_games_and_beat_random_ones(game, variant):
    """The engine-level playout policies end games and, where a game has one, win more."""
    heuristic = policy_named("heuristic", game)
    shares = []
    for seed in range(30 if heuristic is not policy_named("random", game) else 2):
        state = get_game(game).new_state(2, variant, seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            actions = state.legal_actions()
            policy = heuristic if state.current_seat() == seed % 2 else policy_named("random", game)
            index = policy(state, actions, rng)
            assert 0 <= index < len(actions)
            state.apply(index, actions)
        shares.append(rank_shares(state.scores())[seed % 2])
    if heuristic is not policy_named("random", game):
        assert sum(shares) / len(shares) > 0.7


def test_rank_shares_count_beaten_seats_and_split_ties():
    assert rank_shares([5, 3, 3, 1]) == [1.0, 0.5, 0.5, 0.0]


def test_the_memory_forgets_a_finished_game():
    memory = Memory()
    state = get_game("flea-circus").new_state(2, None, 1)
    request = wire.decision_request(state, "g", 1, 0, bot_pb2.Clock())
    assert memory.events(request) and memory.events(request) == memory.events(request)
    memory.forget("g")
    assert memory._games == {}


def test_ismcts_takes_the_loot_a_saucer_can_steal():
    """Two players, Earth nearly empty: stealing 4 from the rival wins, the Earth's 1 does not."""
    state = get_game("flea-circus").new_state(2, None, 11)
    state.hands[0] = ["F", "numbers", "numbers", "A", "B"]
    state.piles[1] = ["F"]
    state.loot, state.earth = [10, 12], 1
    codes = [action.code for action in state.legal_actions()]
    sampler = sampler_for("flea-circus", state.observation(0), [])
    index, info = ismcts(sampler, codes, Budget(iterations=300), random.Random(0))
    assert codes[index] == "play:F", info


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    "python -m bots.ismcts --iterations 20 --ms 0 --address {address}",
    "python -m bots.pimc --iterations 20 --ms 0 --address {address}",
])
def test_search_bots_pass_check_bot(command):
    result = CliRunner().invoke(main, ["check-bot", "--command", command, "--games", "1"])
    assert result.exit_code == 0, result.output
    assert "FAIL" not in result.output and "PASS  timing:" in result.output


def test_the_search_bench_reports_every_figure(capsys):
    from bench.search import main as bench
    bench(["--iterations", "20", "--samples", "20", "--repeats", "1", "--depths", "3"])
    out = capsys.readouterr().out
    assert "depth          3:" in out and "/s" in out
    for game in ("flea-circus standard 2p", "flohcati es 4p", "animal-circus standard 4p"):
        assert game in out
