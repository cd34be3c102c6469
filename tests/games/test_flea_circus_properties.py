"""Amazing Flea Circus over many random games: conservation, termination, replay, secrecy."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from referee import wire
from referee.games import get_game, replay
from referee.games.flea_circus import LOOT_TOKENS, FleaCircusState, full_deck

GAME = get_game("flea-circus")
ALL_CARDS = Counter(full_deck())


def cards_in_play(state: FleaCircusState) -> Counter:
    every = state.deck + [c for hand in state.hands for c in hand] \
        + [c for pile in state.piles for c in pile]
    return Counter(every)


def hidden_twin(state: FleaCircusState, seat: int, rng: random.Random) -> FleaCircusState:
    """The same position with every card ``seat`` cannot see dealt anew."""
    twin = replay(state.record())
    others = [s for s in range(twin.num_players) if s != seat]
    hidden = twin.deck + [c for s in others for c in twin.hands[s]]
    rng.shuffle(hidden)
    for s in others:
        size = len(twin.hands[s])
        twin.hands[s], hidden = hidden[:size], hidden[size:]
    twin.deck = hidden
    return twin


def play_random(players: int, seed: int, choices: random.Random, check_every_step: bool):
    state = GAME.new_state(players, None, seed)
    while not state.is_terminal():
        actions = state.legal_actions()
        assert actions, "a live game always offers an action"
        state.apply(choices.randrange(len(actions)), actions)  # listed once, as the referee does
        if check_every_step:
            assert state.earth + sum(state.loot) == LOOT_TOKENS
            assert cards_in_play(state) == ALL_CARDS
            assert min(state.loot) >= 0 and state.earth >= 0
    return state


@settings(max_examples=300, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**63 - 1),
       choice_seed=st.integers(0, 2**32))
def test_tokens_and_cards_are_conserved_and_every_game_ends(players, seed, choice_seed):
    state = play_random(players, seed, random.Random(choice_seed), check_every_step=True)
    assert state.end_reason in {"earth-empty", "no-cards", "turn-limit"}
    assert replay(state.record()).final_state() == state.final_state()


def test_thousands_of_games_end_and_replay():
    reasons = Counter()
    for seed in range(2000):
        state = play_random(2 + seed % 4, seed, random.Random(-seed), check_every_step=False)
        reasons[state.end_reason] += 1
        assert cards_in_play(state) == ALL_CARDS
        assert state.earth + sum(state.loot) == LOOT_TOKENS
        if seed % 10 == 0:
            assert replay(state.record()).scores() == state.scores()
    assert reasons["earth-empty"] > 0


@settings(max_examples=150, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), steps=st.integers(0, 80),
       shuffle_seed=st.integers(0, 2**32))
def test_observation_does_not_depend_on_cards_the_seat_cannot_see(players, seed, steps,
                                                                  shuffle_seed):
    state = GAME.new_state(players, None, seed)
    choices = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply(choices.randrange(len(state.legal_actions())))
    for seat in range(players):
        twin = hidden_twin(state, seat, random.Random(shuffle_seed))
        assert twin.observation(seat) == state.observation(seat)
        if not state.is_terminal() and state.current_seat() == seat:
            assert [a.code for a in twin.legal_actions()] == \
                [a.code for a in state.legal_actions()]


def test_private_events_go_only_to_their_seat_and_messages_convert():
    state = GAME.new_state(4, None, 11)
    choices = random.Random(3)
    while not state.is_terminal():
        seat = state.current_seat()
        request = wire.decision_request(state, "g", 1, 0, wire.bot_pb2.Clock())
        assert request.observation.flea_circus.seat == seat
        assert len(request.legal_actions) == len(state.legal_actions())
        state.apply(choices.randrange(len(state.legal_actions())))
    drew = [event for event in state.events if event.kind == "drew"]
    assert drew and all(event.visible_to == frozenset({event.seat}) for event in drew)
    public = [event for event in state.events if event.visible_to is None]
    assert all("cards" not in event.data for event in public)
