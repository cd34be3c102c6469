from google.protobuf import struct_pb2 as _struct_pb2
from circus.v1 import flea_circus_pb2 as _flea_circus_pb2
from circus.v1 import flohcati_pb2 as _flohcati_pb2
from circus.v1 import animal_circus_pb2 as _animal_circus_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HelloRequest(_message.Message):
    __slots__ = ("protocol_version", "referee")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    REFEREE_FIELD_NUMBER: _ClassVar[int]
    protocol_version: str
    referee: str
    def __init__(self, protocol_version: _Optional[str] = ..., referee: _Optional[str] = ...) -> None: ...

class GameSupport(_message.Message):
    __slots__ = ("game", "variants")
    GAME_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    game: str
    variants: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game: _Optional[str] = ..., variants: _Optional[_Iterable[str]] = ...) -> None: ...

class HelloResponse(_message.Message):
    __slots__ = ("name", "version", "protocol_version", "games", "serves_play_stream")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    SERVES_PLAY_STREAM_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    protocol_version: str
    games: _containers.RepeatedCompositeFieldContainer[GameSupport]
    serves_play_stream: bool
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., protocol_version: _Optional[str] = ..., games: _Optional[_Iterable[_Union[GameSupport, _Mapping]]] = ..., serves_play_stream: _Optional[bool] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("move_ms", "bank_ms")
    MOVE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    move_ms: int
    bank_ms: int
    def __init__(self, move_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class StartGameRequest(_message.Message):
    __slots__ = ("game_id", "game", "variant", "num_players", "seat", "seat_names", "time_control")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    game: str
    variant: str
    num_players: int
    seat: int
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    time_control: TimeControl
    def __init__(self, game_id: _Optional[str] = ..., game: _Optional[str] = ..., variant: _Optional[str] = ..., num_players: _Optional[int] = ..., seat: _Optional[int] = ..., seat_names: _Optional[_Iterable[str]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ...) -> None: ...

class StartGameResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Clock(_message.Message):
    __slots__ = ("move_ms", "bank_ms")
    MOVE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    move_ms: int
    bank_ms: int
    def __init__(self, move_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("sequence", "kind", "seat", "text", "data", "payload")
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    sequence: int
    kind: str
    seat: int
    text: str
    data: _struct_pb2.Struct
    payload: EventPayload
    def __init__(self, sequence: _Optional[int] = ..., kind: _Optional[str] = ..., seat: _Optional[int] = ..., text: _Optional[str] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., payload: _Optional[_Union[EventPayload, _Mapping]] = ...) -> None: ...

class EventPayload(_message.Message):
    __slots__ = ("flea_circus", "flohcati", "animal_circus")
    FLEA_CIRCUS_FIELD_NUMBER: _ClassVar[int]
    FLOHCATI_FIELD_NUMBER: _ClassVar[int]
    ANIMAL_CIRCUS_FIELD_NUMBER: _ClassVar[int]
    flea_circus: _flea_circus_pb2.FleaCircusEvent
    flohcati: _flohcati_pb2.FlohcatiEvent
    animal_circus: _animal_circus_pb2.AnimalCircusEvent
    def __init__(self, flea_circus: _Optional[_Union[_flea_circus_pb2.FleaCircusEvent, _Mapping]] = ..., flohcati: _Optional[_Union[_flohcati_pb2.FlohcatiEvent, _Mapping]] = ..., animal_circus: _Optional[_Union[_animal_circus_pb2.AnimalCircusEvent, _Mapping]] = ...) -> None: ...

class ActionPayload(_message.Message):
    __slots__ = ("flea_circus", "flohcati", "animal_circus")
    FLEA_CIRCUS_FIELD_NUMBER: _ClassVar[int]
    FLOHCATI_FIELD_NUMBER: _ClassVar[int]
    ANIMAL_CIRCUS_FIELD_NUMBER: _ClassVar[int]
    flea_circus: _flea_circus_pb2.FleaCircusAction
    flohcati: _flohcati_pb2.FlohcatiAction
    animal_circus: _animal_circus_pb2.AnimalCircusAction
    def __init__(self, flea_circus: _Optional[_Union[_flea_circus_pb2.FleaCircusAction, _Mapping]] = ..., flohcati: _Optional[_Union[_flohcati_pb2.FlohcatiAction, _Mapping]] = ..., animal_circus: _Optional[_Union[_animal_circus_pb2.AnimalCircusAction, _Mapping]] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("code", "label", "payload")
    CODE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    code: str
    label: str
    payload: ActionPayload
    def __init__(self, code: _Optional[str] = ..., label: _Optional[str] = ..., payload: _Optional[_Union[ActionPayload, _Mapping]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("flea_circus", "flohcati", "animal_circus")
    FLEA_CIRCUS_FIELD_NUMBER: _ClassVar[int]
    FLOHCATI_FIELD_NUMBER: _ClassVar[int]
    ANIMAL_CIRCUS_FIELD_NUMBER: _ClassVar[int]
    flea_circus: _flea_circus_pb2.FleaCircusObservation
    flohcati: _flohcati_pb2.FlohcatiObservation
    animal_circus: _animal_circus_pb2.AnimalCircusObservation
    def __init__(self, flea_circus: _Optional[_Union[_flea_circus_pb2.FleaCircusObservation, _Mapping]] = ..., flohcati: _Optional[_Union[_flohcati_pb2.FlohcatiObservation, _Mapping]] = ..., animal_circus: _Optional[_Union[_animal_circus_pb2.AnimalCircusObservation, _Mapping]] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("game_id", "decision_id", "seat", "kind", "prompt", "observation", "legal_actions", "clock", "events")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    decision_id: int
    seat: int
    kind: str
    prompt: str
    observation: Observation
    legal_actions: _containers.RepeatedCompositeFieldContainer[LegalAction]
    clock: Clock
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, game_id: _Optional[str] = ..., decision_id: _Optional[int] = ..., seat: _Optional[int] = ..., kind: _Optional[str] = ..., prompt: _Optional[str] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[LegalAction, _Mapping]]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("decision_id", "action_index")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_INDEX_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    action_index: int
    def __init__(self, decision_id: _Optional[int] = ..., action_index: _Optional[int] = ...) -> None: ...

class EndGameRequest(_message.Message):
    __slots__ = ("game_id", "scores", "ranks", "reason", "final_state", "seat", "status", "typed_final_state")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FINAL_STATE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TYPED_FINAL_STATE_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    scores: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    final_state: _struct_pb2.Struct
    seat: int
    status: str
    typed_final_state: FinalState
    def __init__(self, game_id: _Optional[str] = ..., scores: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ..., final_state: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., seat: _Optional[int] = ..., status: _Optional[str] = ..., typed_final_state: _Optional[_Union[FinalState, _Mapping]] = ...) -> None: ...

class FinalState(_message.Message):
    __slots__ = ("flea_circus", "flohcati", "animal_circus")
    FLEA_CIRCUS_FIELD_NUMBER: _ClassVar[int]
    FLOHCATI_FIELD_NUMBER: _ClassVar[int]
    ANIMAL_CIRCUS_FIELD_NUMBER: _ClassVar[int]
    flea_circus: _flea_circus_pb2.FleaCircusFinalState
    flohcati: _flohcati_pb2.FlohcatiFinalState
    animal_circus: _animal_circus_pb2.AnimalCircusFinalState
    def __init__(self, flea_circus: _Optional[_Union[_flea_circus_pb2.FleaCircusFinalState, _Mapping]] = ..., flohcati: _Optional[_Union[_flohcati_pb2.FlohcatiFinalState, _Mapping]] = ..., animal_circus: _Optional[_Union[_animal_circus_pb2.AnimalCircusFinalState, _Mapping]] = ...) -> None: ...

class EndGameResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("request_id", "hello", "start_game", "decide", "end_game")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    HELLO_FIELD_NUMBER: _ClassVar[int]
    START_GAME_FIELD_NUMBER: _ClassVar[int]
    DECIDE_FIELD_NUMBER: _ClassVar[int]
    END_GAME_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    hello: HelloRequest
    start_game: StartGameRequest
    decide: DecisionRequest
    end_game: EndGameRequest
    def __init__(self, request_id: _Optional[int] = ..., hello: _Optional[_Union[HelloRequest, _Mapping]] = ..., start_game: _Optional[_Union[StartGameRequest, _Mapping]] = ..., decide: _Optional[_Union[DecisionRequest, _Mapping]] = ..., end_game: _Optional[_Union[EndGameRequest, _Mapping]] = ...) -> None: ...

class BotMessage(_message.Message):
    __slots__ = ("request_id", "hello", "start_game", "decide", "end_game", "error")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    HELLO_FIELD_NUMBER: _ClassVar[int]
    START_GAME_FIELD_NUMBER: _ClassVar[int]
    DECIDE_FIELD_NUMBER: _ClassVar[int]
    END_GAME_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    hello: HelloResponse
    start_game: StartGameResponse
    decide: Decision
    end_game: EndGameResponse
    error: str
    def __init__(self, request_id: _Optional[int] = ..., hello: _Optional[_Union[HelloResponse, _Mapping]] = ..., start_game: _Optional[_Union[StartGameResponse, _Mapping]] = ..., decide: _Optional[_Union[Decision, _Mapping]] = ..., end_game: _Optional[_Union[EndGameResponse, _Mapping]] = ..., error: _Optional[str] = ...) -> None: ...
