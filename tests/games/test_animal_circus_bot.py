"""The Animal Circus heuristic bot: legal, deterministic, and clearly better than random."""

from __future__ import annotations

from click.testing import CliRunner

from bots.animal_circus_heuristic import AnimalCircusHeuristicBot
from bots.random_bot import RandomBot
from circus.v1 import bot_pb2
from circus_referee.main import main
from referee import wire
from referee.games import get_game
from referee.games.animal_circus import ELEPHANT, GIRAFFE, LION, MOUSE, RABBIT, Card

GAME = get_game("animal-circus")
GAMES = 300
PLAYERS = 4


def play_game(seed: int, bots, game_id: str):
    """One game in-process; returns the final state."""
    state = GAME.new_state(len(bots), None, seed)
    decision, seen = 0, [0] * len(bots)  # each seat is sent the events since its last request
    while not state.is_terminal():
        seat = state.current_seat()
        request = wire.decision_request(state, game_id, decision, events_from=seen[seat],
                                        clock=bot_pb2.Clock())
        seen[seat] = len(state.events)
        index = bots[state.current_seat()].decide(request)
        assert 0 <= index < len(request.legal_actions)
        state.apply(index)
        decision += 1
    return state


def test_heuristic_beats_three_random_bots_in_four_player_games():
    heuristic, random_bot = AnimalCircusHeuristicBot(), RandomBot()
    firsts = sole_firsts = 0
    for game in range(GAMES):
        seat = game % PLAYERS  # the heuristic takes every seat in turn
        bots = [heuristic if s == seat else random_bot for s in range(PLAYERS)]
        state = play_game(10_000 + game, bots, f"ac-{game}")
        ranks = state.ranks()
        firsts += ranks[seat] == 1
        sole_firsts += ranks[seat] == 1 and ranks.count(1) == 1
    # A random seat comes first in about 1/4 of the games (ties included).
    # Measured on these 300 games: first (ties included) in 0.53, alone first in 0.48.
    assert firsts / GAMES > 0.42, (firsts, sole_firsts)
    assert sole_firsts / GAMES > 0.38, (firsts, sole_firsts)


def test_heuristic_answers_the_same_request_the_same_way_and_in_every_decision_kind():
    heuristic, random_bot = AnimalCircusHeuristicBot(), RandomBot()
    kinds = set()
    for seed in range(40):
        state = GAME.new_state(2 + seed % 4, None, seed)
        decision, seen = 0, [0] * state.num_players  # the events since the seat's last request
        while not state.is_terminal():
            request = wire.decision_request(state, f"d-{seed}", decision,
                                            seen[state.current_seat()], bot_pb2.Clock())
            seen[state.current_seat()] = len(state.events)
            bot = heuristic if state.current_seat() == 0 else random_bot
            index = bot.decide(request)
            if bot is heuristic:
                kinds.add(request.kind)
                assert heuristic.decide(request) == index
                copy = bot_pb2.DecisionRequest()
                copy.CopyFrom(request)
                assert AnimalCircusHeuristicBot().decide(copy) == index
            state.apply(index)
            decision += 1
    assert kinds == {"play", "target", "pile", "order"}


def test_heuristic_takes_the_ring_with_the_power_mouse_on_the_elephant():
    state = GAME.new_state(3, None, 1)
    hand, ring = [Card(MOUSE, 0), Card(RABBIT, 0), Card(LION, 0)], \
        [Card(9, 1), Card(GIRAFFE, 1), Card(ELEPHANT, 2)]
    for pile in state.hands + state.draw_piles + state.put_away:
        pile[:] = [card for card in pile if card not in hand + ring]
    state.hands[0], state.ring, state.previous = hand, ring, 2
    request = wire.decision_request(state, "mouse", 0, 0, bot_pb2.Clock())
    choice = request.legal_actions[AnimalCircusHeuristicBot().decide(request)]
    assert choice.code == "ring:2"


def test_heuristic_bot_runs_as_a_grpc_process():
    result = CliRunner().invoke(main, [
        "check-bot", "--command", "python -m bots.animal_circus_heuristic --address {address}",
        "--game", "animal-circus", "--rotation", "once"])
    assert result.exit_code == 0, result.output
    assert "FAIL" not in result.output
