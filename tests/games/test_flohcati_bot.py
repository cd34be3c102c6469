"""The Flohcati heuristic bot: legal, deterministic, and clearly better than random.

Games are played in-process through the real protocol messages: every decision
is a ``DecisionRequest`` built by ``referee.wire`` for the deciding seat only
(with the events since that seat's previous request, as the match runner sends).
"""

from __future__ import annotations

from bots.flohcati_heuristic import FlohcatiHeuristicBot
from bots.random_bot import RandomBot
from circus.v1 import bot_pb2
from referee import wire
from referee.games import get_game
from referee.games.flohcati import FlohcatiState

GAMES_PER_VARIANT = 100  # 200 three-player games in all


def play(variant: str, seed: int, bots: list) -> FlohcatiState:
    state = get_game("flohcati").new_state(len(bots), variant, seed)
    next_event = [0] * len(bots)
    decision_id = 0
    while not state.is_terminal():
        seat = state.current_seat()
        request = wire.decision_request(state, f"flohcati-{variant}-{seed}", decision_id,
                                        events_from=next_event[seat], clock=bot_pb2.Clock())
        next_event[seat] = len(state.events)
        index = bots[seat].decide(request)
        assert 0 <= index < len(request.legal_actions)
        state.apply(index)
        decision_id += 1
    return state


def test_the_heuristic_bot_clearly_beats_two_random_bots_in_three_player_games():
    heuristic, random_bot = FlohcatiHeuristicBot(), RandomBot()
    results = {}
    for variant in ("en", "es"):
        wins = margin = 0
        for seed in range(GAMES_PER_VARIANT):
            seat = seed % 3  # the heuristic plays every seat in turn
            bots = [random_bot] * 3
            bots[seat] = heuristic
            state = play(variant, seed, bots)
            wins += state.ranks()[seat] == 1
            scores = state.scores()
            margin += scores[seat] - max(s for i, s in enumerate(scores) if i != seat)
        results[variant] = wins / GAMES_PER_VARIANT, margin / GAMES_PER_VARIANT
    print(f"heuristic win rate vs 2 random bots: {results}")
    for variant, (rate, margin) in results.items():
        assert rate >= 0.75, f"{variant}: win rate {rate:.2f} (random would be 1/3)"
        assert margin > 10, f"{variant}: average lead {margin:.1f}"


def test_the_heuristic_bot_is_deterministic_and_says_what_it_plays():
    bot = FlohcatiHeuristicBot()
    assert bot.name == "flohcati-heuristic" and bot.games == {"flohcati": ()}
    hello = bot.hello(bot_pb2.HelloRequest(protocol_version="1.0.0"))
    assert [support.game for support in hello.games] == ["flohcati"]
    state = get_game("flohcati").new_state(3, "es", 5)
    for decision_id in range(150):
        if state.is_terminal():
            break
        request = wire.decision_request(state, "g", decision_id, events_from=0,
                                        clock=bot_pb2.Clock())
        choice = bot.decide(request)
        assert choice == FlohcatiHeuristicBot().decide(request)
        state.apply(choice)
