"""The Flohcati heuristic bot: legal, deterministic, and clearly better than random.

Games are played in-process through the real protocol messages: every decision
is a ``DecisionRequest`` built by ``referee.wire`` for the deciding seat only
(with the events since that seat's previous request, as the match runner sends).
"""

from __future__ import annotations

import random

import pytest

from bots.flohcati_heuristic import FlohcatiHeuristicBot, engine_policy, engine_values
from bots.random_bot import RandomBot
from circus.v1 import bot_pb2
from referee import wire
from referee.games import get_game
from referee.games.determinize import sampler_for
from referee.games.flohcati import FlohcatiState
from tests.games.test_flohcati import layout

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
    seen = [0] * 3  # each seat is sent the events since its last request
    for decision_id in range(150):
        if state.is_terminal():
            break
        request = wire.decision_request(state, "g", decision_id,
                                        events_from=seen[state.current_seat()],
                                        clock=bot_pb2.Clock())
        seen[state.current_seat()] = len(state.events)
        choice = bot.decide(request)
        assert choice == FlohcatiHeuristicBot().decide(request)
        state.apply(choice)


# -- the same rules as an engine-level playout policy ------------------------------------
def policy_choice(state: FlohcatiState, seed: int) -> int:
    return engine_policy(state, state.legal_actions(), random.Random(seed))


def bot_choice(state: FlohcatiState, events_from: int = 0) -> int:
    """The bot's choice from the request sent with the events from ``events_from`` on."""
    request = wire.decision_request(state, "g", len(state.history), events_from=events_from,
                                    clock=bot_pb2.Clock())
    return FlohcatiHeuristicBot().decide(request)


@pytest.mark.parametrize("variant", ["en", "es"])
@pytest.mark.parametrize("players", [2, 5])
def test_the_engine_policy_plays_legal_moves_and_the_bots_own_choice(variant, players):
    """At every decision of games half played at random (action cards, gives, requests,
    trios, the Gala all come up), the policy reading the engine state picks a legal
    move, the same for any seed, and the one the bot picks from the wire request."""
    state = get_game("flohcati").new_state(players, variant, players)
    moves = random.Random(players)
    kinds = set()
    seen = [0] * players  # each seat is sent the events since its last request
    while not state.is_terminal():
        actions = state.legal_actions()
        choice = policy_choice(state, 1)
        assert 0 <= choice < len(actions)
        assert policy_choice(state, 2) == choice
        assert bot_choice(state, seen[state.current_seat()]) == choice
        seen[state.current_seat()] = len(state.events)
        kinds.add(state.phase)
        state.apply(choice if moves.random() < 0.5 else moves.randrange(len(actions)), actions)
    assert {"turn", "target", "end-of-turn"} <= kinds


def test_the_engine_policy_takes_a_card_worth_more_than_a_flip_and_flips_past_a_worthless_one():
    rich = layout(hands=[{"red-1", "blue-2"}], display=["orange-7"], deck=["grey-6", "grey-7"])
    assert rich.legal_actions()[policy_choice(rich, 0)].code == "take:0"
    poor = layout(hands=[{"red-7", "blue-2"}], display=["red-0"], deck=["grey-6", "grey-7"])
    assert poor.legal_actions()[policy_choice(poor, 0)].code == "flip"
    assert (bot_choice(rich), bot_choice(poor)) == (policy_choice(rich, 0), policy_choice(poor, 0))


def test_the_engine_policy_reads_only_what_the_seat_knows():
    """Determinizations of the seat's view (other deals of the cards it cannot see) get the
    choice the true state gets, at every decision of a game."""
    for variant in ("en", "es"):
        state = get_game("flohcati").new_state(3, variant, 7)
        moves = random.Random(7)
        while not state.is_terminal():
            actions, seat = state.legal_actions(), state.current_seat()
            events = [event for event in state.events if event.visible_for(seat)]
            sampler = sampler_for("flohcati", state.observation(seat), events)
            for seed in range(2):
                assert policy_choice(sampler.sample(random.Random(seed)), 0) \
                    == policy_choice(state, 0)
            state.apply(moves.randrange(len(actions)), actions)


def test_the_cut_playouts_valuation_adds_a_pair_and_the_galas_way_to_the_points():
    """Equal points, unequal prospects: a pair, nine colours of ten (in en, where the Gala
    pays) are worth more than the same points without them; a trio in hand is worth less
    than laying it down where that gains points (the search once kept its trios); the
    points themselves, trios laid down included, are counted as the engine counts them."""
    pair = {"red-3", "blue-3", "green-6"}  # 12 points and a pair of threes
    plain = {"orange-3", "teal-4", "yellow-5"}  # 12 points
    state = layout(hands=[pair, plain])
    values = engine_values(state)
    assert state.scores()[:2] == [12, 12] and values[1] == 12 and values[0] > values[1]
    trio = ("pink-3", "purple-3", "brown-3")
    held = layout(hands=[{*trio, "grey-3"}])  # 12 points
    laid = layout(hands=[{"grey-3"}], trios=[[trio], [], []])  # 3 points and a trio: 13
    assert engine_values(held)[0] < engine_values(laid)[0] == laid.scores()[0] == 13
    colours = ("red", "orange", "yellow", "green", "teal", "blue", "purple", "pink", "brown")
    nine = {f"{colour}-{index % 8}" for index, colour in enumerate(colours)}
    gala = [engine_values(layout(variant, hands=[nine, {"grey-5", "red-7"}], players=2))
            for variant in ("en", "es")]
    assert gala[0][0] > gala[1][0] and gala[0][1] == gala[1][1] == 12  # the Gala pays in en
