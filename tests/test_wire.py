"""The fast message building of referee/wire.py gives ParseDict's messages, byte for byte.

The referee builds requests with the message constructors (fast) and falls back to
``json_format.ParseDict`` (the reference) only for dicts a constructor refuses. These
tests play random games of every game, variant and player count and compare, at every
decision, what is sent with what ParseDict makes of the same dicts. So they also check
that every engine's dicts are ones ParseDict accepts.
"""

from __future__ import annotations

import random

import pytest
from google.protobuf import json_format
from google.protobuf.struct_pb2 import Struct

from circus.v1 import bot_pb2, flea_circus_pb2
from referee import wire
from referee.games import GAMES
from referee.games.base import Event

SETUPS = [(name, variant, players) for name, game in GAMES.items()
          for variant in game.variants
          for players in range(game.min_players, game.max_players + 1)]


def reference_request(state, game_id, decision_id, events_from, clock):
    """The request as the referee built it with ParseDict alone (before the wire's writer)."""
    field = wire.oneof_field(state.game_name)
    seat = state.current_seat()
    observation = bot_pb2.Observation()
    json_format.ParseDict(state.observation(seat), getattr(observation, field))
    actions = []
    for action in state.legal_actions():
        message = bot_pb2.LegalAction(code=action.code, label=action.label)
        json_format.ParseDict(action.payload, getattr(message.payload, field))
        actions.append(message)
    events = []
    for index, event in enumerate(state.events[events_from:], events_from):
        if event.visible_for(seat):
            data = Struct()
            data.update(event.data)
            payload = bot_pb2.EventPayload()
            getattr(payload, field).SetInParent()
            json_format.ParseDict(event.data, getattr(payload, field))
            events.append(bot_pb2.Event(sequence=index, kind=event.kind, seat=event.seat,
                                        text=event.text, data=data, payload=payload))
    return bot_pb2.DecisionRequest(
        game_id=game_id, decision_id=decision_id, seat=seat, kind=state.decision_kind(),
        prompt=state.prompt(), observation=observation, legal_actions=actions, clock=clock,
        events=events)


def same(a, b) -> bool:
    return a.SerializeToString(deterministic=True) == b.SerializeToString(deterministic=True)


@pytest.mark.parametrize("name,variant,players", SETUPS)
def test_requests_equal_the_parsedict_reference(name, variant, players):
    """Two random games of each setup, as tests/test_jsonwire.py's canonical-JSON check
    plays: a Flohcati game alone is hundreds of requests."""
    game = GAMES[name]
    for seed in range(2):
        state = game.new_state(players, variant, seed)
        choices = random.Random(seed)
        cache: list = []
        next_event = [0] * players
        decision = 0
        while not state.is_terminal():
            decision += 1
            seat = state.current_seat()
            clock = bot_pb2.Clock(move_ms=100, bank_ms=decision)
            actions = state.legal_actions()
            expected = reference_request(state, f"g{seed}", decision, next_event[seat], clock)
            cached = wire.decision_request(state, f"g{seed}", decision, next_event[seat], clock,
                                           actions, cache)
            plain = wire.decision_request(state, f"g{seed}", decision, next_event[seat], clock)
            assert same(cached, expected) and same(plain, expected), (name, seed, decision)
            if decision % 7 == 0:  # the one-message helpers too, for every seat
                for other in range(players):
                    observation = state.observation(other)
                    reference = bot_pb2.Observation()
                    json_format.ParseDict(observation,
                                          getattr(reference, wire.oneof_field(name)))
                    assert same(wire.observation_message(name, observation), reference)
                assert [wire.action_message(name, a) for a in actions] == \
                    list(expected.legal_actions)
            next_event[seat] = len(state.events)
            state.apply(choices.randrange(len(actions)), actions)
        reference = Struct()
        reference.update(state.final_state())
        assert same(wire.struct(state.final_state()), reference)


def test_a_dict_the_constructor_refuses_goes_to_parsedict_as_before():
    # A float that is a whole number: ParseDict takes it, the constructor does not.
    message = wire.observation_message("flea-circus", {"seat": 1.0, "turn": "3"})
    assert message.flea_circus.seat == 1 and message.flea_circus.turn == 3
    with pytest.raises(json_format.ParseError):
        wire.observation_message("flea-circus", {"seat": -1})
    with pytest.raises(json_format.ParseError):
        wire.observation_message("flea-circus", {"no_such_field": 1})


def test_apply_with_the_listed_actions_plays_the_same_game():
    for name, variant, players in SETUPS[::3]:
        game = GAMES[name]
        one, two = game.new_state(players, variant, 5), game.new_state(players, variant, 5)
        choices = random.Random(5)
        while not one.is_terminal():
            actions = one.legal_actions()
            index = choices.randrange(len(actions))
            one.apply(index, actions)
            two.apply(index)
        assert one.history == two.history and one.scores() == two.scores()
        assert one.final_state() == two.final_state()


def test_events_with_no_data_and_private_events_convert_as_before():
    for event in (Event("skip", "seat 1 skips", 1), Event("drew", "you draw", 2, {"cards": ["A"]},
                                                          frozenset({2}))):
        data = Struct()
        data.update(event.data)
        payload = bot_pb2.EventPayload(flea_circus=flea_circus_pb2.FleaCircusEvent(**event.data))
        expected = bot_pb2.Event(sequence=4, kind=event.kind, seat=event.seat, text=event.text,
                                 data=data, payload=payload)
        message = wire.event_message("flea-circus", 4, event)
        assert same(message, expected)
        assert message.HasField("data") and message.payload.HasField("flea_circus")


def test_emitted_events_equal_events_made_the_usual_way():
    from referee.games.base import Event
    state = GAMES["flea-circus"].new_state(3, None, 1)
    state.emit("x", "text", 2, frozenset({2}), card="A", count=1)
    assert state.events[-1] == Event("x", "text", 2, {"card": "A", "count": 1}, frozenset({2}))
    assert hash(state.events[-1].visible_to) == hash(frozenset({2}))
    with pytest.raises(AttributeError):
        state.events[-1].kind = "y"  # still frozen


def test_a_recurring_event_is_encoded_as_its_own_message_with_its_sequence():
    """An event kept from an earlier game (the same kind, seat, text and data) gives its
    own message, with its sequence. (Messages, not bytes, are compared: protobuf writes a
    Struct's keys in an order of its own, which need not be the same for equal data.)"""
    entries = []
    for data in ({"source": "earth", "amount": 3}, {"amount": 3, "source": "earth"},
                 {"source": "earth", "amount": 3}):
        event = Event("loot", "seat 1 takes 3 loot", 1, data)
        for sequence in (0, 7, 300):
            expected = wire.event_message("flea-circus", sequence, event)
            entry = wire._event_entry("flea-circus", sequence, event)
            assert list(bot_pb2.DecisionRequest.FromString(entry).events) == [expected]
            entries.append(entry)
    assert entries[:3] == entries[6:]


@pytest.mark.parametrize("value", [1, 127, 128, 300, 16_383, 16_384, 2_097_152, 2**63])
def test_a_varint_is_protobuf_s_own(value):
    """Each length of varint, against a uint64 field's encoding after its key byte."""
    assert wire.varint(value) == bot_pb2.Event(sequence=value).SerializeToString()[1:]
