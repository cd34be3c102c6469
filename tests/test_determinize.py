"""Determinizers: every sample agrees with what the seat saw, and never with what it did not.

Random games of every game and variant; at some decisions the deciding seat's
view (its observation and the events visible to it) goes to the sampler,
and each sampled state must give the seat its observation and legal actions
back exactly. A second true deal with the same view (a sample itself, so a
state the seat cannot tell apart) must give the same samples for the same
RNG seed. The SDK's view, rebuilt from the wire request, must be the engine's.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bots.search import Memory, view_of
from circus.v1 import bot_pb2
from referee import wire
from referee.games import get_game
from referee.games.determinize import FleaSampler, sampler_for

GAMES = [("flea-circus", "standard"), ("flohcati", "en"), ("flohcati", "es"),
         ("animal-circus", "standard")]


def view(state, seat):
    return state.observation(seat), [event for event in state.events if event.visible_for(seat)]


def positions(game, variant, games=6, every=0.15):
    """Decision points of random games at 2-5 players: (true state, seat), the state a copy."""
    for number in range(games):
        players = 2 + number % 4
        state = get_game(game).new_state(players, variant, 100 + number)
        rng = random.Random(number)
        while not state.is_terminal():
            actions = state.legal_actions()
            if rng.random() < every:
                yield state, state.current_seat()
            state.apply(rng.randrange(len(actions)), actions)


def hidden(state, seat):
    """What the seat cannot see of a state: the others' hands and the deck or draw piles."""
    final = state.final_state()
    hands = [hand for other, hand in enumerate(final["hands"]) if other != seat]
    return hands, final.get("deck", final.get("draw_piles"))


@pytest.mark.parametrize("game, variant", GAMES)
def test_every_sample_gives_the_seat_its_observation_and_legal_actions(game, variant):
    checked = 0
    for state, seat in positions(game, variant):
        observation, events = view(state, seat)
        codes = [action.code for action in state.legal_actions()]
        sampler = sampler_for(game, observation, events)
        for seed in range(3):
            sample = sampler.sample(random.Random(seed))
            assert sample.observation(seat) == observation
            assert [action.code for action in sample.legal_actions()] == codes
            assert sorted(map(str, sample.all_cards() if hasattr(sample, "all_cards")
                              else [])) == sorted(map(str, state.all_cards()
                                                      if hasattr(state, "all_cards") else []))
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("game, variant", GAMES)
def test_samples_do_not_depend_on_the_true_hidden_cards(game, variant):
    differed = 0
    for state, seat in positions(game, variant, games=4, every=0.1):
        observation, events = view(state, seat)
        other = sampler_for(game, observation, events).sample(random.Random(99))
        other_observation = other.observation(seat)
        assert other_observation == observation  # the seat cannot tell the two deals apart
        differed += hidden(other, seat) != hidden(state, seat)
        for seed in (1, 2):
            ours = sampler_for(game, observation, events).sample(random.Random(seed))
            theirs = sampler_for(game, other_observation, events).sample(random.Random(seed))
            assert ours.final_state() == theirs.final_state()
    assert differed >= 5


@pytest.mark.parametrize("game, variant", GAMES)
def test_the_sdk_rebuilds_the_engine_view_from_requests(game, variant):
    """The view from the wire (observation message, accumulated events) samples alike."""
    state = get_game(game).new_state(3, variant, 5)
    rng, memory, next_event, compared = random.Random(5), Memory(), [0, 0, 0], 0
    while not state.is_terminal() and compared < 6:
        seat, actions = state.current_seat(), state.legal_actions()
        request = wire.decision_request(state, "g", len(state.history), next_event[seat],
                                        bot_pb2.Clock(move_ms=100))
        next_event[seat] = len(state.events)
        name, observation, events = view_of(request, memory)
        if seat == 0:
            engine = sampler_for(game, *view(state, seat)).sample(random.Random(3))
            sdk = sampler_for(name, observation, events).sample(random.Random(3))
            assert sdk.final_state() == engine.final_state()
            compared += 1
        state.apply(rng.randrange(len(actions)), actions)
    assert compared == 6


def test_flea_circus_deals_the_deck_bottom_from_what_a_general_shuffled_under():
    """After a General, the deck's last cards can only be cards of the piles it gathered."""
    checked = 0
    for state, seat in positions("flea-circus", "standard", games=40, every=0.3):
        observation, events = view(state, seat)
        sampler = FleaSampler(observation, events)
        if not sampler.segments:
            continue
        left, kinds = sampler.segments[-1]
        for seed in range(3):
            bottom = sampler.sample(random.Random(seed)).deck[-left:]
            assert not Counter(bottom) - kinds
        assert not Counter(state.deck[-left:]) - kinds  # and the true deck agrees
        checked += 1
    assert checked > 0
