"""Typed event payloads and final states hold what their Structs hold.

Every ``Event`` carries its details twice, as ``data`` (a ``Struct``: numbers as
doubles) and as ``payload`` (the game's own event message), and every
``EndGameRequest`` its final state as ``final_state`` and ``typed_final_state``. Over
hundreds of random games of every game, variant and player count, each event and final
state is sent and parsed as a bot gets it, and the typed message must hold exactly the
Struct's content: each key a field of the same value, every other field at its default
(proto3 does not send one). A list of lists (cards by seat) is a list of the wrapper
message whose one field holds each inner list.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from hypothesis import given, settings
from hypothesis import strategies as st

from circus.v1 import bot_pb2
from referee import wire
from referee.clients import InProcessClient
from referee.games import GAMES
from referee.match import FaultPolicy, Match
from referee.settings import DEFAULT_FAULTS, TimeConfig

ROOT = Path(__file__).resolve().parent.parent
SETUPS = [(name, variant, players) for name, game in GAMES.items()
          for variant in game.variants
          for players in range(game.min_players, game.max_players + 1)]


def assert_holds(message: Any, data: dict[str, Any], where: str) -> None:
    """``message`` holds ``data`` (a Struct's content): every key a field of the same
    value, every other field at its default."""
    fields = message.DESCRIPTOR.fields_by_name
    assert set(data) <= set(fields), f"{where}: no field for {set(data) - set(fields)}"
    for name, field in fields.items():
        value = getattr(message, name)
        if name not in data:
            unset = not message.HasField(name) if _singular_message(field) else not value
            assert unset, f"{where}.{name}: set, but not in the Struct"
        elif field.is_repeated:
            assert isinstance(data[name], list) and len(value) == len(data[name]), \
                f"{where}.{name}: {list(value)} != {data[name]}"
            for index, (item, expected) in enumerate(zip(value, data[name])):
                assert_value(field, item, expected, f"{where}.{name}[{index}]")
        else:
            assert_value(field, value, data[name], f"{where}.{name}")


def _singular_message(field: FieldDescriptor) -> bool:
    return field.message_type is not None and not field.is_repeated


def assert_value(field: FieldDescriptor, value: Any, expected: Any, where: str) -> None:
    if field.message_type is None:
        is_bool = field.type == FieldDescriptor.TYPE_BOOL
        assert isinstance(expected, bool) == is_bool and value == expected, \
            f"{where}: {value!r} != {expected!r}"
    elif isinstance(expected, list):  # a wrapper: its one field holds the list
        inner = field.message_type.fields[0]
        assert_holds(value, {inner.name: expected}, where)
    else:
        assert_holds(value, expected, where)


def as_received(message: Any) -> Any:
    """The message as a bot parses it from the wire."""
    return type(message).FromString(message.SerializeToString())


def assert_event_typed(game: str, event: bot_pb2.Event, where: str) -> None:
    field = wire.oneof_field(game)
    assert event.payload.WhichOneof("game") == field, f"{where}: no {field} payload"
    assert_holds(getattr(event.payload, field), json_format.MessageToDict(event.data),
                 f"{where} {event.kind}")


def assert_final_state_typed(game: str, request: bot_pb2.EndGameRequest, where: str) -> None:
    field = wire.oneof_field(game)
    assert request.typed_final_state.WhichOneof("game") == field, where
    assert_holds(getattr(request.typed_final_state, field),
                 json_format.MessageToDict(request.final_state), f"{where} final state")


@settings(max_examples=300, deadline=None)
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**63 - 1),
       choice_seed=st.integers(0, 2**32))
def test_every_event_and_final_state_is_typed_as_its_struct(setup, seed, choice_seed):
    name, variant, players = setup
    state = GAMES[name].new_state(players, variant, seed)
    choices = random.Random(choice_seed)
    while not state.is_terminal():
        actions = state.legal_actions()
        state.apply(choices.randrange(len(actions)), actions)
    where = f"{name} {variant} {players} seed {seed}"
    kinds = set()
    for index, event in enumerate(state.events):
        kinds.add(event.kind)
        sent = as_received(wire.event_message(name, index, event))
        assert_event_typed(name, sent, f"{where} event {index}")
    final = state.final_state()
    request = as_received(bot_pb2.EndGameRequest(
        final_state=wire.struct(final), typed_final_state=wire.final_state_message(name, final)))
    assert_final_state_typed(name, request, where)
    assert kinds  # every game has events: the loop above checked something


class Recorder:
    """An in-process bot that plays the first action and keeps what it was sent."""

    def __init__(self) -> None:
        self.events: list[bot_pb2.Event] = []
        self.ends: list[bot_pb2.EndGameRequest] = []

    def hello(self, request):
        return bot_pb2.HelloResponse(name="recorder")

    def start_game(self, request):
        pass

    def decide(self, request):
        self.events += as_received(request).events
        return 0

    def end_game(self, request):
        self.ends.append(as_received(request))


def test_a_match_sends_the_typed_payloads_with_the_structs():
    """What the referee sends in a game: each seat's events and its EndGame."""
    for name in GAMES:
        bots = [Recorder(), Recorder(), Recorder()]
        match = Match(GAMES[name], GAMES[name].default_variant, ("a", "b", "c"), seed=3,
                      game_id="t/0", clients=[InProcessClient(bot) for bot in bots],
                      time_config=TimeConfig(), policy=FaultPolicy(dict(DEFAULT_FAULTS)))
        match.play()
        for seat, bot in enumerate(bots):
            assert bot.events and len(bot.ends) == 1, (name, seat)
            for event in bot.events:
                assert_event_typed(name, event, f"{name} seat {seat} event {event.sequence}")
            assert_final_state_typed(name, bot.ends[0], f"{name} seat {seat}")


def test_every_game_has_typed_events_and_final_state_and_the_docs_name_them():
    docs = (ROOT / "docs" / "protocol.md").read_text()
    for holder in (bot_pb2.EventPayload, bot_pb2.FinalState):
        fields = holder.DESCRIPTOR.fields
        assert {field.name for field in fields} == {wire.oneof_field(name) for name in GAMES}
        for field in fields:
            assert f"`{field.message_type.name}`" in docs, field.message_type.name
