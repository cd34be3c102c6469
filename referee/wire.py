"""Turning an engine's plain dicts into protocol messages, and back.

Engines speak dicts shaped like their messages in ``proto/circus/v1/<game>.proto``;
this module is the only place that knows how those dicts become wire messages.
Each game's messages sit in the ``oneof game`` of ``Observation`` and
``ActionPayload`` under the game's name with ``-`` turned into ``_``.

Speed: a decision's request is built by the message constructors, which take
nested dicts and lists and fill the message in C (about 40× faster than
``json_format.ParseDict``, which walks every field in Python). For the dicts
engines produce, both give the very same message (``tests/test_wire.py`` checks
it byte for byte on random games of every game). Where a constructor refuses a
dict, ``ParseDict`` converts it as it always did, with its own errors. The two
differ only in what the constructor lets through that ``ParseDict`` refuses: an
int in a ``bool`` field and UTF-8 ``bytes`` in a ``string`` field.

Events are encoded once per game, not once per seat that sees them, and go
into each request as encoded bytes: pass the same list as ``event_cache`` for
every request of a game. An event that recurs from game to game (the same kind,
seat, text and data) is converted once for all of them, only its sequence new.
Legal actions are encoded once per distinct action (same game, code, label and
an equal payload) and reused.

An event's details and a game's final state go out twice: as the ``Struct`` that
bots have always read, and typed, in the game's own event and final-state
messages (``tests/test_typed_payloads.py`` checks that the two hold the same on
random games of every game).
"""

from __future__ import annotations

import marshal
from typing import Any, Sequence

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.struct_pb2 import Struct

from circus.v1 import bot_pb2
from referee.games.base import Action, Event, State

PROTOCOL_VERSION = "1.1.0"

# What a constructor raises for a dict it cannot take; ParseDict then judges it.
_REFUSED = (TypeError, ValueError, AttributeError, KeyError)


def oneof_field(game: str) -> str:
    """The ``oneof game`` field name of a game: ``flea-circus`` → ``flea_circus``."""
    return game.replace("-", "_")


def _parsed_observation(game: str, observation: dict[str, Any]) -> bot_pb2.Observation:
    message = bot_pb2.Observation()
    json_format.ParseDict(observation, getattr(message, oneof_field(game)))
    return message


def _parsed_action(game: str, action: Action) -> bot_pb2.LegalAction:
    message = bot_pb2.LegalAction(code=action.code, label=action.label)
    json_format.ParseDict(action.payload, getattr(message.payload, oneof_field(game)))
    return message


def observation_message(game: str, observation: dict[str, Any]) -> bot_pb2.Observation:
    try:
        return bot_pb2.Observation(**{oneof_field(game): observation})
    except _REFUSED:
        return _parsed_observation(game, observation)


def action_message(game: str, action: Action) -> bot_pb2.LegalAction:
    try:
        return bot_pb2.LegalAction(code=action.code, label=action.label,
                                   payload={oneof_field(game): action.payload})
    except _REFUSED:
        return _parsed_action(game, action)


def struct(data: dict[str, Any]) -> Struct:
    message = Struct()
    message.update(data)
    return message


def _typed(message_class: Any, field: str, data: dict[str, Any]) -> Any:
    """A ``oneof game`` message holding ``data`` in the game's ``field``: built by the
    constructor, or by ParseDict where the constructor refuses ``data``."""
    try:
        return message_class(**{field: data})
    except _REFUSED:
        message = message_class()
        json_format.ParseDict(data, getattr(message, field))
        return message


def event_message(game: str, sequence: int, event: Event) -> bot_pb2.Event:
    """An event of ``game``, its details both as ``data`` and typed in ``payload``."""
    message = bot_pb2.Event(sequence=sequence, kind=event.kind, seat=event.seat,
                            text=event.text,
                            payload=_typed(bot_pb2.EventPayload, oneof_field(game), event.data))
    message.data.SetInParent()  # present even when empty, as with data=struct(...)
    message.data.update(event.data)  # in place: no Struct to copy
    return message


def events_for(state: State, seat: int, start: int) -> list[bot_pb2.Event]:
    """The events from index ``start`` on that ``seat`` may see."""
    return [event_message(state.game_name, index, event)
            for index, event in enumerate(state.events[start:], start)
            if event.visible_for(seat)]


def final_state_message(game: str, final_state: dict[str, Any]) -> bot_pb2.FinalState:
    """A game's ``final_state()`` as its typed final-state message."""
    return _typed(bot_pb2.FinalState, oneof_field(game), final_state_data(game, final_state))


def final_state_data(game: str, final_state: dict[str, Any]) -> dict[str, Any]:
    """A game's ``final_state()`` as the dict of its typed final-state message's fields
    (what ``FinalState``'s game field takes; ``referee.jsonwire`` writes it as text)."""
    typed = bot_pb2.FinalState.DESCRIPTOR.fields_by_name[oneof_field(game)].message_type
    assert typed is not None, "each game's final state is a message (bot.proto)"
    fields = typed.fields_by_name
    # The stubs type upb's descriptors (what a DESCRIPTOR holds at run time) apart from
    # FieldDescriptor, the same class at run time: hence the one ignore.
    return {key: _nested(fields[key], value)  # type: ignore[arg-type]  # upb's, see above
            if key in fields else value
            for key, value in final_state.items()}


def _nested(field: FieldDescriptor, value: Any) -> Any:
    """``value`` as the message ``field`` takes it: in a list, each list (a seat's cards,
    a seat's trios) becomes the message of the field's type, whose one field holds it."""
    if field.message_type is None or not isinstance(value, list):
        return value
    inner = field.message_type.fields[0]
    return [{inner.name: _nested(inner, item)} if isinstance(item, list) else item
            for item in value]


#: The one-byte varints, 0 to 127, looked up.
_ONE_BYTE = [bytes((value,)) for value in range(0x80)]


def varint(value: int) -> bytes:
    """``value`` (≥ 0) in protobuf's base-128 varint encoding, the low seven bits first.
    A request's events take two each (a sequence, a length), nearly all under 16,384: one
    or two bytes, made without the loop."""
    if value < 0x80:
        return _ONE_BYTE[value]
    if value < 0x4000:
        return bytes((value & 0x7F | 0x80, value >> 7))
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


# The key of one element of DecisionRequest.events in the wire format (field 9, bytes).
_EVENTS_KEY = varint(bot_pb2.DecisionRequest.DESCRIPTOR.fields_by_name["events"].number << 3
                      | 2)
# The key of Event.sequence (a varint): field 1, so an event's encoding starts with it.
_SEQUENCE_KEY = varint(bot_pb2.Event.DESCRIPTOR.fields_by_name["sequence"].number << 3)


def event_key(game: str, event: Event) -> bytes | None:
    """What decides an event's message but for its sequence: the game, kind, seat, text
    and data, each value with its type and each dict in its order (marshal's format 2,
    which has no back-references, so equal contents give equal bytes). None for data
    marshal does not take (then the event is converted afresh)."""
    try:
        return marshal.dumps((game, event.kind, event.seat, event.text, event.data), 2)
    except ValueError:
        return None


#: Each event's encoding with no sequence, by :func:`event_key`: most events recur from
#: game to game ("seat 1 draws 1 card(s)"), and one is encoded once for all games.
_EVENT_BODIES: dict[bytes, bytes] = {}
_EVENT_BODIES_SIZE = 4096


def _event_entry(game: str, sequence: int, event: Event) -> bytes:
    """An event as an encoded ``events`` field of a DecisionRequest: the same bytes as
    ``event_message(game, sequence, event)``'s, its sequence (field 1) put before the
    body kept for its key."""
    key = event_key(game, event)
    body = None if key is None else _EVENT_BODIES.get(key)
    if body is None:
        body = event_message(game, 0, event).SerializeToString()
        if key is not None:
            if len(_EVENT_BODIES) >= _EVENT_BODIES_SIZE:
                _EVENT_BODIES.clear()
            _EVENT_BODIES[key] = body
    if sequence:
        body = _SEQUENCE_KEY + varint(sequence) + body
    return _EVENTS_KEY + varint(len(body)) + body


def _event_entries(state: State, seat: int, start: int, event_cache: list[bytes]) -> bytes:
    """The events ``seat`` may see from index ``start`` on, as encoded request fields.

    ``event_cache`` holds every event of the game encoded once, in order; it grows
    with the game's event log. Encoded fields simply concatenate, and parsing them
    appends to ``events`` (cheaper than copying message objects into the request).
    """
    events, game = state.events, state.game_name
    for index in range(len(event_cache), len(events)):
        event_cache.append(_event_entry(game, index, events[index]))
    return b"".join([event_cache[index] for index in range(start, len(events))
                     if events[index].visible_for(seat)])


# Each distinct legal action's message, encoded, by (game, code, label). A hit
# also needs a payload equal to the cached one, so it is the very message the
# constructor would build; engines often offer the same actions again (the
# same card to play, the same seat to aim at).
_ACTION_CACHE: dict[tuple[str, str, str], tuple[dict[str, Any], bytes]] = {}
_ACTION_CACHE_SIZE = 4096
_ACTIONS_KEY = varint(
    bot_pb2.DecisionRequest.DESCRIPTOR.fields_by_name["legal_actions"].number << 3 | 2)


def _action_entries(game: str, field: str, actions: Sequence[Action]) -> bytes:
    """The actions as encoded ``legal_actions`` fields of a DecisionRequest."""
    parts = []
    for action in actions:
        key = (game, action.code, action.label)
        hit = _ACTION_CACHE.get(key)
        if hit is not None and (hit[0] is action.payload or hit[0] == action.payload):
            parts.append(hit[1])
            continue
        data = bot_pb2.LegalAction(code=action.code, label=action.label,
                                   payload={field: action.payload}).SerializeToString()
        entry = _ACTIONS_KEY + varint(len(data)) + data
        if len(_ACTION_CACHE) >= _ACTION_CACHE_SIZE:
            _ACTION_CACHE.clear()
        _ACTION_CACHE[key] = (action.payload, entry)
        parts.append(entry)
    return b"".join(parts)


def decision_request(state: State, game_id: str, decision_id: int, events_from: int,
                     clock: bot_pb2.Clock, actions: Sequence[Action] | None = None,
                     event_cache: list[bytes] | None = None) -> bot_pb2.DecisionRequest:
    """The request for the pending decision, built for the deciding seat only.

    ``actions``, if given, is what ``state.legal_actions()`` returns now (a
    caller that lists them anyway saves listing them twice). ``event_cache``,
    if given, is a list kept for the whole game (start with ``[]``): each event
    is then converted once, not once for every seat and request.
    """
    seat = state.current_seat()
    game = state.game_name
    if actions is None:
        actions = state.legal_actions()
    observation = state.observation(seat)
    if event_cache is None:
        events, entries = events_for(state, seat, events_from), b""
    else:
        events, entries = [], _event_entries(state, seat, events_from, event_cache)
    field = oneof_field(game)
    try:
        request = bot_pb2.DecisionRequest(
            game_id=game_id, decision_id=decision_id, seat=seat,
            kind=state.decision_kind(), prompt=state.prompt(),
            observation={field: observation}, clock=clock, events=events)
        entries = _action_entries(game, field, actions) + entries
    except _REFUSED:
        request = bot_pb2.DecisionRequest(
            game_id=game_id, decision_id=decision_id, seat=seat,
            kind=state.decision_kind(), prompt=state.prompt(),
            observation=_parsed_observation(game, observation),
            legal_actions=[_parsed_action(game, action) for action in actions],
            clock=clock, events=events)
    if entries:
        request.MergeFromString(entries)
    return request


def message_dict(message: Any) -> dict[str, Any]:
    """A message as a dict, with field names as in the .proto file."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True)
