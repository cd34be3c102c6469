"""A decision's request as canonical JSON text, written straight from the engine's plain data.

The stdio transport sends each request as one line of protobuf's canonical JSON mapping
(``docs/protocol.md``). Building the ``DecisionRequest`` message first and writing it out
after (protobuf's ``json_format``, which the rarer requests take) pays twice for every
field: once into C, once back, and more for the mapping's walk in Python.
This module writes the text from the same dicts and lists the message would be built
from, following the message types' descriptors, so the ``.proto`` stays the contract:
``tests/test_jsonwire.py`` checks the text against ``json_format.MessageToDict`` of the
message ``wire.decision_request`` builds, on every request of random games of every game.

What the mapping says, and the writers below do: a scalar field at its default (0, "",
false, an empty list) is left out; 64-bit integers are strings; a ``Struct``'s numbers
are doubles (``3`` is written ``3.0``, as protobuf writes it); a message field that is set
is written even when empty. Data the writers cannot vouch for (a key no field has, a value
of another type, an integer out of the field's range) raises :class:`Unencodable`, and
the caller builds the message as every other transport does, with protobuf's own checks.

Events and legal actions repeat: each event's text is written once a game (``event_texts``,
kept by the match like its ``event_cache``), and once for all games but for its sequence
where the same event recurs; each distinct legal action's once (by game, code, label and
an equal payload); and the requests join them.

A request is its line's UTF-8 bytes, and the events and legal actions are kept encoded:
one non-ASCII character (Flea Circus's ``×``, in its labels and its events' texts) makes a
whole ``str`` of two bytes a character, which the joins widen and the encoding walks
character by character; the rest, ASCII, encodes as a copy.
"""

from __future__ import annotations

from functools import partial
from json.encoder import encode_basestring
from typing import Any, Callable, Sequence

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from circus.v1 import bot_pb2
from referee.games.base import Action, Event, State
from referee.wire import event_key, final_state_data, oneof_field


class Unencodable(Exception):
    """Plain data this module does not write; the message is built by protobuf instead."""


_INT64 = (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64,
          FieldDescriptor.TYPE_SFIXED64, FieldDescriptor.TYPE_UINT64,
          FieldDescriptor.TYPE_FIXED64)
#: The range of each integer kind (64-bit ones are written as strings).
_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(1 << 31), (1 << 31) - 1),
    FieldDescriptor.TYPE_SINT32: (-(1 << 31), (1 << 31) - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(1 << 31), (1 << 31) - 1),
    FieldDescriptor.TYPE_UINT32: (0, (1 << 32) - 1),
    FieldDescriptor.TYPE_FIXED32: (0, (1 << 32) - 1),
    FieldDescriptor.TYPE_INT64: (-(1 << 63), (1 << 63) - 1),
    FieldDescriptor.TYPE_SINT64: (-(1 << 63), (1 << 63) - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(1 << 63), (1 << 63) - 1),
    FieldDescriptor.TYPE_UINT64: (0, (1 << 64) - 1),
    FieldDescriptor.TYPE_FIXED64: (0, (1 << 64) - 1),
}
_STRUCT = "google.protobuf.Struct"


def struct_text(data: Any) -> str:
    """A dict as a ``Struct``'s JSON: its numbers doubles, as protobuf writes them."""
    if data.__class__ is not dict:
        raise Unencodable(data)
    return "{" + ",".join([_struct_key(key) + _struct_value(item)
                           for key, item in data.items()]) + "}"


def _struct_key(key: Any) -> str:
    if key.__class__ is not str:
        raise Unencodable(key)
    return encode_basestring(key) + ":"


def _struct_value(item: Any) -> str:
    kind = item.__class__
    if kind is str:
        return encode_basestring(item)
    if kind is bool:
        return "true" if item else "false"
    if kind is int or kind is float:
        value = float(item)
        if value != value or value in (float("inf"), float("-inf")):
            raise Unencodable(item)   # protobuf refuses to write them
        return repr(value)
    if item is None:
        return "null"
    if kind is dict:
        return struct_text(item)
    if kind is list or kind is tuple:
        return "[" + ",".join([_struct_value(element) for element in item]) + "]"
    raise Unencodable(item)


# The kinds of field a game's message holds (no enums, floats or bytes: a field of those
# kinds is refused, and the message built by protobuf).
_TEXT, _INTEGER, _LONG, _FLAG, _MESSAGE, _STRUCT_DATA, _OTHER = range(7)
#: A field: its ``"name":``, kind, whether repeated, an integer's range, a message's writer.
Spec = tuple[str, int, bool, int, int, Callable[[Any], str]]


def _refused(value: Any) -> str:
    raise Unencodable(value)


def _spec(field: FieldDescriptor) -> Spec:
    low, high = _RANGES.get(field.type, (0, 0))
    write: Callable[[Any], str] = _refused
    kind = _OTHER
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        assert field.message_type is not None, "a message field has its type"
        if field.message_type.full_name == _STRUCT:
            write, kind = struct_text, _STRUCT_DATA
        else:
            write, kind = message_writer(field.message_type, shared=field.is_repeated), _MESSAGE
    elif field.type == FieldDescriptor.TYPE_STRING:
        kind = _TEXT
    elif field.type == FieldDescriptor.TYPE_BOOL:
        kind = _FLAG
    elif field.type in _INT64:
        kind = _LONG
    elif field.type in _RANGES:
        kind = _INTEGER
    return encode_basestring(field.name) + ":", kind, field.is_repeated, low, high, write


def _items(spec: Spec, values: list[Any] | tuple[Any, ...]) -> str:
    """The elements of a repeated field, comma-separated."""
    _, kind, _, low, high, write = spec
    if kind == _MESSAGE or kind == _STRUCT_DATA:
        return ",".join([write(item) for item in values])
    for item in values:
        cls = item.__class__
        if kind == _TEXT and cls is str or kind == _FLAG and cls is bool:
            continue
        if (kind == _INTEGER or kind == _LONG) and cls is int and low <= item <= high:
            continue
        raise Unencodable(item)
    if kind == _TEXT:
        return ",".join(map(encode_basestring, values))
    if kind == _FLAG:
        return ",".join(["true" if item else "false" for item in values])
    if kind == _LONG:
        return ",".join([f'"{item}"' for item in values])
    return ",".join(map(str, values))


def _fields_text(fields: dict[str, Spec], data: Any) -> str:
    """A message from ``data``, a dict of its field names."""
    return "{" + ",".join(_parts(fields, data)) + "}"


def _parts(fields: dict[str, Spec], data: Any) -> list[str]:
    """Each field of ``data`` as ``"name":text``, the defaults left out (the hot loop: the
    usual kinds are written here, without a call per field)."""
    if data.__class__ is not dict:
        raise Unencodable(data)
    parts = []
    for name, value in data.items():
        spec = fields.get(name)
        if spec is None:
            raise Unencodable(name)
        key, kind, repeated, low, high, write = spec
        cls = value.__class__
        if repeated:
            if cls is not list and cls is not tuple:
                raise Unencodable(value)
            if value:
                parts.append(key + "[" + _items(spec, value) + "]")
        elif kind == _TEXT and cls is str:
            if value:
                parts.append(key + encode_basestring(value))
        elif kind == _INTEGER and cls is int and low <= value <= high:
            if value:
                parts.append(key + str(value))
        elif kind == _MESSAGE or kind == _STRUCT_DATA:
            if value is not None:
                parts.append(key + write(value))
        elif kind == _FLAG and cls is bool:
            if value:
                parts.append(key + "true")
        elif kind == _LONG and cls is int and low <= value <= high:
            if value:
                parts.append(f'{key}"{value}"')
        else:
            raise Unencodable(value)
    return parts


_MESSAGES: dict[tuple[str, bool], Callable[[Any], str]] = {}
_FLAT = (str, int, bool)
#: The texts of flat dicts (scalars only) in repeated fields, by ``id``: each entry holds
#: the dict itself (so no other object takes its id) and a copy that a hit must equal (so
#: a dict changed in place since is written again). Engines hand out the same card dicts.
_SHARED: dict[int, tuple[dict[str, Any], dict[str, Any], str]] = {}
_SHARED_SIZE = 4096


def message_writer(descriptor: Descriptor, shared: bool = False) -> Callable[[Any], str]:
    """The writer of a message of type ``descriptor`` from a dict (as its constructor takes),
    made once per type; ``shared``: one for the elements of a repeated field, which
    reuses the text of a flat dict written before."""
    found = _MESSAGES.get((descriptor.full_name, shared))
    if found is not None:
        return found
    fields: dict[str, Spec] = {}
    write = partial(_fields_text, fields)
    if shared:
        def reused(data: Any) -> str:
            entry = _SHARED.get(id(data))
            if entry is not None and entry[0] is data and entry[1] == data:
                return entry[2]
            text = write(data)
            if all(value.__class__ in _FLAT for value in data.values()):
                if len(_SHARED) >= _SHARED_SIZE:
                    _SHARED.clear()
                _SHARED[id(data)] = (data, dict(data), text)
            return text
        _MESSAGES[descriptor.full_name, shared] = reused
    else:
        _MESSAGES[descriptor.full_name, shared] = write
    # Registered before its fields are made, so a type that nests itself finds it.
    fields.update({field.name: _spec(field) for field in descriptor.fields})
    return _MESSAGES[descriptor.full_name, shared]


def descriptor_of(message: type[Message]) -> Descriptor:
    """A message class's descriptor, typed as its fields' message types are: the stubs type
    upb's descriptors (what a DESCRIPTOR holds at run time) apart from Descriptor, the same
    class at run time (as in ``referee.wire``)."""
    return message.DESCRIPTOR  # type: ignore[return-value]  # upb's, see above


def _specs(message: type[Message]) -> dict[str, Spec]:
    return {field.name: _spec(field) for field in descriptor_of(message).fields}


_ACTION = _specs(bot_pb2.LegalAction)
_INT32_LOW, _INT32_HIGH = _RANGES[FieldDescriptor.TYPE_INT32]
_UINT32_HIGH = _RANGES[FieldDescriptor.TYPE_UINT32][1]
_UINT64_HIGH = _RANGES[FieldDescriptor.TYPE_UINT64][1]
_GAMES = descriptor_of(bot_pb2.Observation).oneofs_by_name["game"].fields


def _game_writers(message: type[Message]) -> dict[str, Callable[[Any], str]]:
    """Each game's writer of the ``oneof game`` of ``message``, by the oneof's field name:
    ``{"flea_circus": …}``, written without a dict around the game's own message."""
    fields = descriptor_of(message).fields_by_name
    writers = {}
    for game in _GAMES:
        typed = fields[game.name].message_type
        assert typed is not None, "each game's part of a oneof is a message (bot.proto)"
        writers[game.name] = message_writer(typed)
    return writers


_OBSERVATIONS, _PAYLOADS, _EVENT_PAYLOADS, _FINAL_STATES = (
    _game_writers(message) for message in (bot_pb2.Observation, bot_pb2.ActionPayload,
                                           bot_pb2.EventPayload, bot_pb2.FinalState))
_START = message_writer(descriptor_of(bot_pb2.StartGameRequest))
_END = _specs(bot_pb2.EndGameRequest)


def _game_text(writers: dict[str, Callable[[Any], str]], field: str, data: Any) -> str:
    """``{"flea_circus":…}``: ``data`` as the game's part of a ``oneof game``."""
    write = writers.get(field)
    if write is None:
        raise Unencodable(field)   # a game the protocol does not know
    return f'{{"{field}":{write(data)}}}'


#: Each event's text after its sequence, by ``wire.event_key``: most events recur from
#: game to game, and one is written once for all games.
_EVENTS: dict[bytes, str] = {}
_EVENTS_SIZE = 4096


def event_text(field: str, sequence: int, event: Event) -> str:
    """One event as ``wire.event_message`` builds it: its data as the ``Struct`` and typed;
    its text but for the sequence kept for the next game with the same event."""
    if sequence.__class__ is not int or not 0 <= sequence <= _UINT64_HIGH:
        raise Unencodable(sequence)
    key = event_key(field, event)
    rest = None if key is None else _EVENTS.get(key)
    if rest is None:
        rest = _event_rest(field, event)
        if key is not None:
            if len(_EVENTS) >= _EVENTS_SIZE:
                _EVENTS.clear()
            _EVENTS[key] = rest
    return f'{{"sequence":"{sequence}",{rest}' if sequence else "{" + rest


def _event_rest(field: str, event: Event) -> str:
    """An event's text after ``{`` and its sequence. Its three scalar fields are written
    here, not through a dict of them."""
    kind, seat, text = event.kind, event.seat, event.text
    if (kind.__class__ is not str or text.__class__ is not str or seat.__class__ is not int
            or not _INT32_LOW <= seat <= _INT32_HIGH):
        raise Unencodable(event)
    head = "".join((f'"kind":{encode_basestring(kind)},' if kind else "",
                    f'"seat":{seat},' if seat else "",
                    f'"text":{encode_basestring(text)},' if text else ""))
    return (f'{head}"data":{struct_text(event.data)},'
            f'"payload":{_game_text(_EVENT_PAYLOADS, field, event.data)}}}')


#: Each distinct legal action's text (UTF-8), by (game, code, label), with the payload it was
#: written from: a hit needs an equal payload, so it is the very text of this action.
_ACTIONS: dict[tuple[str, str, str], tuple[dict[str, Any], bytes]] = {}
_ACTIONS_SIZE = 4096


def _action_texts(game: str, field: str, actions: Sequence[Action]) -> list[bytes]:
    texts = []
    for action in actions:
        key = (game, action.code, action.label)
        hit = _ACTIONS.get(key)
        if hit is not None and (hit[0] is action.payload or hit[0] == action.payload):
            texts.append(hit[1])
            continue
        parts = _parts(_ACTION, {"code": action.code, "label": action.label})
        parts.append('"payload":' + _game_text(_PAYLOADS, field, action.payload))
        text = ("{" + ",".join(parts) + "}").encode()
        if len(_ACTIONS) >= _ACTIONS_SIZE:
            _ACTIONS.clear()
        _ACTIONS[key] = (action.payload, text)
        texts.append(text)
    return texts


def _head(game_id: Any, decision_id: Any, seat: Any, kind: Any, prompt: Any) -> list[str]:
    """A request's first five fields, as ``_parts`` writes them from their dict (the defaults
    left out), without the dict."""
    if (game_id.__class__ is not str or decision_id.__class__ is not int
            or not 0 <= decision_id <= _UINT64_HIGH or seat.__class__ is not int
            or not 0 <= seat <= _UINT32_HIGH or kind.__class__ is not str
            or prompt.__class__ is not str):
        raise Unencodable((game_id, decision_id, seat, kind, prompt))
    parts = []
    if game_id:
        parts.append('"game_id":' + encode_basestring(game_id))
    if decision_id:
        parts.append(f'"decision_id":"{decision_id}"')
    if seat:
        parts.append(f'"seat":{seat}')
    if kind:
        parts.append('"kind":' + encode_basestring(kind))
    if prompt:
        parts.append('"prompt":' + encode_basestring(prompt))
    return parts


def _clock(move_ms: Any, bank_ms: Any) -> str:
    """A ``Clock`` as its writer writes ``{"move_ms": …, "bank_ms": …}``."""
    if (move_ms.__class__ is not int or not 0 <= move_ms <= _UINT32_HIGH
            or bank_ms.__class__ is not int or not 0 <= bank_ms <= _UINT32_HIGH):
        raise Unencodable((move_ms, bank_ms))
    fields = ([f'"move_ms":{move_ms}'] if move_ms else []) + \
        ([f'"bank_ms":{bank_ms}'] if bank_ms else [])
    return "{" + ",".join(fields) + "}"


def decision_text(state: State, game_id: str, decision_id: int, events_from: int,
                  move_ms: int, bank_ms: int, actions: Sequence[Action],
                  event_texts: list[bytes]) -> bytes:
    """The JSON text (UTF-8) of the ``DecisionRequest`` that ``wire.decision_request`` builds
    from the same arguments (``Clock(move_ms, bank_ms)``; ``actions`` the state's legal
    actions now).

    ``event_texts`` is a list kept for the whole game (start with ``[]``): each event is
    written once, at the first request after it. :class:`Unencodable` if the data is not
    what this module writes.
    """
    seat = state.current_seat()
    game = state.game_name
    field = oneof_field(game)
    events = state.events
    for index in range(len(event_texts), len(events)):
        event_texts.append(event_text(field, index, events[index]).encode())
    head = _head(game_id, decision_id, seat, state.decision_kind(), state.prompt())
    head.append('"observation":' + _game_text(_OBSERVATIONS, field, state.observation(seat)))
    parts = [",".join(head).encode()]
    if actions:
        parts.append(b'"legal_actions":[' + b",".join(_action_texts(game, field, actions))
                     + b"]")
    parts.append(b'"clock":' + _clock(move_ms, bank_ms).encode())
    seen = [event_texts[index] for index in range(events_from, len(events))
            if events[index].visible_for(seat)]
    if seen:
        parts.append(b'"events":[' + b",".join(seen) + b"]")
    return b"{" + b",".join(parts) + b"}"


def start_game_text(game_id: str, game: str, variant: str, seat: int, seat_names: list[str],
                    move_ms: int, bank_ms: int) -> bytes:
    """The JSON text (UTF-8) of the ``StartGameRequest`` that ``clients.GameStart`` builds
    from the same arguments; :class:`Unencodable` if the data is not what this module
    writes."""
    return _START({"game_id": game_id, "game": game, "variant": variant,
                   "num_players": len(seat_names), "seat": seat, "seat_names": seat_names,
                   "time_control": {"move_ms": move_ms, "bank_ms": bank_ms}}).encode()


def end_game_text(game_id: str, game: str, scores: list[int], ranks: list[int], reason: str,
                  final: dict[str, Any], seat: int, status: str, final_text: list[str]) -> bytes:
    """The JSON text (UTF-8) of the ``EndGameRequest`` that ``clients.GameEnd`` builds for ``seat``
    from the same arguments (``final``: the state's ``final_state()``, as the ``Struct`` and
    typed). ``final_text`` is a list kept for the game's seats (start with ``[]``): the
    final state is written at the first seat's request. :class:`Unencodable` as above."""
    if not final_text:
        final_text.append(f'"final_state":{struct_text(final)},"typed_final_state":'
                          + _game_text(_FINAL_STATES, oneof_field(game),
                                       final_state_data(game, final)))
    parts = _parts(_END, {"game_id": game_id, "scores": scores, "ranks": ranks,
                          "reason": reason, "seat": seat, "status": status})
    parts.append(final_text[0])
    return ("{" + ",".join(parts) + "}").encode()
