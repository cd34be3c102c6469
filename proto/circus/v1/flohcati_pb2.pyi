from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FlohcatiCard(_message.Message):
    __slots__ = ("kind", "colour", "value", "code")
    KIND_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    kind: str
    colour: str
    value: int
    code: str
    def __init__(self, kind: _Optional[str] = ..., colour: _Optional[str] = ..., value: _Optional[int] = ..., code: _Optional[str] = ...) -> None: ...

class FlohcatiCards(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[FlohcatiCard]
    def __init__(self, cards: _Optional[_Iterable[_Union[FlohcatiCard, _Mapping]]] = ...) -> None: ...

class FlohcatiTrio(_message.Message):
    __slots__ = ("value", "cards")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    value: int
    cards: _containers.RepeatedCompositeFieldContainer[FlohcatiCard]
    def __init__(self, value: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[FlohcatiCard, _Mapping]]] = ...) -> None: ...

class FlohcatiSeatTrios(_message.Message):
    __slots__ = ("trios",)
    TRIOS_FIELD_NUMBER: _ClassVar[int]
    trios: _containers.RepeatedCompositeFieldContainer[FlohcatiTrio]
    def __init__(self, trios: _Optional[_Iterable[_Union[FlohcatiTrio, _Mapping]]] = ...) -> None: ...

class FlohcatiObservation(_message.Message):
    __slots__ = ("seat", "variant", "current_player", "deciding_seat", "decision", "action_card", "giver", "receiver", "requested_colour", "direction", "matching_card", "reason", "hand", "display", "discard", "trios", "hand_sizes", "known_cards", "deck_size", "flips_this_turn", "turn", "decisions", "gala_bonus", "colours", "opening")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PLAYER_FIELD_NUMBER: _ClassVar[int]
    DECIDING_SEAT_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    ACTION_CARD_FIELD_NUMBER: _ClassVar[int]
    GIVER_FIELD_NUMBER: _ClassVar[int]
    RECEIVER_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_COLOUR_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    MATCHING_CARD_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    TRIOS_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    KNOWN_CARDS_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    FLIPS_THIS_TURN_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    GALA_BONUS_FIELD_NUMBER: _ClassVar[int]
    COLOURS_FIELD_NUMBER: _ClassVar[int]
    OPENING_FIELD_NUMBER: _ClassVar[int]
    seat: int
    variant: str
    current_player: int
    deciding_seat: int
    decision: str
    action_card: str
    giver: int
    receiver: int
    requested_colour: str
    direction: str
    matching_card: FlohcatiCard
    reason: str
    hand: _containers.RepeatedCompositeFieldContainer[FlohcatiCard]
    display: _containers.RepeatedCompositeFieldContainer[FlohcatiCard]
    discard: _containers.RepeatedCompositeFieldContainer[FlohcatiCard]
    trios: _containers.RepeatedCompositeFieldContainer[FlohcatiSeatTrios]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    known_cards: _containers.RepeatedCompositeFieldContainer[FlohcatiCards]
    deck_size: int
    flips_this_turn: int
    turn: int
    decisions: int
    gala_bonus: int
    colours: _containers.RepeatedScalarFieldContainer[str]
    opening: bool
    def __init__(self, seat: _Optional[int] = ..., variant: _Optional[str] = ..., current_player: _Optional[int] = ..., deciding_seat: _Optional[int] = ..., decision: _Optional[str] = ..., action_card: _Optional[str] = ..., giver: _Optional[int] = ..., receiver: _Optional[int] = ..., requested_colour: _Optional[str] = ..., direction: _Optional[str] = ..., matching_card: _Optional[_Union[FlohcatiCard, _Mapping]] = ..., reason: _Optional[str] = ..., hand: _Optional[_Iterable[_Union[FlohcatiCard, _Mapping]]] = ..., display: _Optional[_Iterable[_Union[FlohcatiCard, _Mapping]]] = ..., discard: _Optional[_Iterable[_Union[FlohcatiCard, _Mapping]]] = ..., trios: _Optional[_Iterable[_Union[FlohcatiSeatTrios, _Mapping]]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., known_cards: _Optional[_Iterable[_Union[FlohcatiCards, _Mapping]]] = ..., deck_size: _Optional[int] = ..., flips_this_turn: _Optional[int] = ..., turn: _Optional[int] = ..., decisions: _Optional[int] = ..., gala_bonus: _Optional[int] = ..., colours: _Optional[_Iterable[str]] = ..., opening: _Optional[bool] = ...) -> None: ...

class FlohcatiAction(_message.Message):
    __slots__ = ("type", "index", "card", "target", "cards", "value", "colour", "direction", "call")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    type: str
    index: int
    card: FlohcatiCard
    target: int
    cards: _containers.RepeatedCompositeFieldContainer[FlohcatiCard]
    value: int
    colour: str
    direction: str
    call: bool
    def __init__(self, type: _Optional[str] = ..., index: _Optional[int] = ..., card: _Optional[_Union[FlohcatiCard, _Mapping]] = ..., target: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[FlohcatiCard, _Mapping]]] = ..., value: _Optional[int] = ..., colour: _Optional[str] = ..., direction: _Optional[str] = ..., call: _Optional[bool] = ...) -> None: ...

class FlohcatiCardCodes(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class FlohcatiSeatTrioCodes(_message.Message):
    __slots__ = ("trios",)
    TRIOS_FIELD_NUMBER: _ClassVar[int]
    trios: _containers.RepeatedCompositeFieldContainer[FlohcatiCardCodes]
    def __init__(self, trios: _Optional[_Iterable[_Union[FlohcatiCardCodes, _Mapping]]] = ...) -> None: ...

class FlohcatiEvent(_message.Message):
    __slots__ = ("card", "index", "deck_size", "target", "source", "receiver", "colour", "direction", "cards", "value", "hand", "reason")
    CARD_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    RECEIVER_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    card: str
    index: int
    deck_size: int
    target: int
    source: int
    receiver: int
    colour: str
    direction: str
    cards: _containers.RepeatedScalarFieldContainer[str]
    value: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    reason: str
    def __init__(self, card: _Optional[str] = ..., index: _Optional[int] = ..., deck_size: _Optional[int] = ..., target: _Optional[int] = ..., source: _Optional[int] = ..., receiver: _Optional[int] = ..., colour: _Optional[str] = ..., direction: _Optional[str] = ..., cards: _Optional[_Iterable[str]] = ..., value: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., reason: _Optional[str] = ...) -> None: ...

class FlohcatiFinalState(_message.Message):
    __slots__ = ("hands", "trios", "display", "discard", "deck", "matching_card", "gala_caller", "turns", "scores", "end_reason")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    TRIOS_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    MATCHING_CARD_FIELD_NUMBER: _ClassVar[int]
    GALA_CALLER_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    END_REASON_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedCompositeFieldContainer[FlohcatiCardCodes]
    trios: _containers.RepeatedCompositeFieldContainer[FlohcatiSeatTrioCodes]
    display: _containers.RepeatedScalarFieldContainer[str]
    discard: _containers.RepeatedScalarFieldContainer[str]
    deck: _containers.RepeatedScalarFieldContainer[str]
    matching_card: str
    gala_caller: int
    turns: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    end_reason: str
    def __init__(self, hands: _Optional[_Iterable[_Union[FlohcatiCardCodes, _Mapping]]] = ..., trios: _Optional[_Iterable[_Union[FlohcatiSeatTrioCodes, _Mapping]]] = ..., display: _Optional[_Iterable[str]] = ..., discard: _Optional[_Iterable[str]] = ..., deck: _Optional[_Iterable[str]] = ..., matching_card: _Optional[str] = ..., gala_caller: _Optional[int] = ..., turns: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., end_reason: _Optional[str] = ...) -> None: ...
