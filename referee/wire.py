"""Turning an engine's plain dicts into protocol messages, and back.

Engines speak dicts shaped like their messages in ``proto/circus/v1/<game>.proto``;
this module is the only place that knows how those dicts become wire messages.
Each game's messages sit in the ``oneof game`` of ``Observation`` and
``ActionPayload`` under the game's name with ``-`` turned into ``_``.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from google.protobuf.struct_pb2 import Struct

from circus.v1 import bot_pb2
from referee.games.base import Action, Event, State

PROTOCOL_VERSION = "1.0.0"


def oneof_field(game: str) -> str:
    """The ``oneof game`` field name of a game: ``flea-circus`` → ``flea_circus``."""
    return game.replace("-", "_")


def observation_message(game: str, observation: dict[str, Any]) -> bot_pb2.Observation:
    message = bot_pb2.Observation()
    json_format.ParseDict(observation, getattr(message, oneof_field(game)))
    return message


def action_message(game: str, action: Action) -> bot_pb2.LegalAction:
    message = bot_pb2.LegalAction(code=action.code, label=action.label)
    json_format.ParseDict(action.payload, getattr(message.payload, oneof_field(game)))
    return message


def struct(data: dict[str, Any]) -> Struct:
    message = Struct()
    message.update(data)
    return message


def event_message(sequence: int, event: Event) -> bot_pb2.Event:
    return bot_pb2.Event(sequence=sequence, kind=event.kind, seat=event.seat,
                         text=event.text, data=struct(event.data))


def events_for(state: State, seat: int, start: int) -> list[bot_pb2.Event]:
    """The events from index ``start`` on that ``seat`` may see."""
    return [event_message(index, event)
            for index, event in enumerate(state.events[start:], start)
            if event.visible_for(seat)]


def decision_request(state: State, game_id: str, decision_id: int, events_from: int,
                     clock: bot_pb2.Clock) -> bot_pb2.DecisionRequest:
    """The request for the pending decision, built for the deciding seat only."""
    seat = state.current_seat()
    return bot_pb2.DecisionRequest(
        game_id=game_id,
        decision_id=decision_id,
        seat=seat,
        kind=state.decision_kind(),
        prompt=state.prompt(),
        observation=observation_message(state.game_name, state.observation(seat)),
        legal_actions=[action_message(state.game_name, action)
                       for action in state.legal_actions()],
        clock=clock,
        events=events_for(state, seat, events_from),
    )


def message_dict(message: Any) -> dict[str, Any]:
    """A message as a dict, with field names as in the .proto file."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True)
