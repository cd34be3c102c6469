from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FleaCard(_message.Message):
    __slots__ = ("kind", "saucer", "value")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SAUCER_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    kind: str
    saucer: str
    value: int
    def __init__(self, kind: _Optional[str] = ..., saucer: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...

class FleaPile(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[FleaCard]
    def __init__(self, cards: _Optional[_Iterable[_Union[FleaCard, _Mapping]]] = ...) -> None: ...

class FleaCircusObservation(_message.Message):
    __slots__ = ("seat", "current_player", "hand", "piles", "loot", "earth", "deck_size", "hand_sizes", "skipping", "turn")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PLAYER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    PILES_FIELD_NUMBER: _ClassVar[int]
    LOOT_FIELD_NUMBER: _ClassVar[int]
    EARTH_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    SKIPPING_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    current_player: int
    hand: _containers.RepeatedCompositeFieldContainer[FleaCard]
    piles: _containers.RepeatedCompositeFieldContainer[FleaPile]
    loot: _containers.RepeatedScalarFieldContainer[int]
    earth: int
    deck_size: int
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    skipping: _containers.RepeatedScalarFieldContainer[bool]
    turn: int
    def __init__(self, seat: _Optional[int] = ..., current_player: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[FleaCard, _Mapping]]] = ..., piles: _Optional[_Iterable[_Union[FleaPile, _Mapping]]] = ..., loot: _Optional[_Iterable[int]] = ..., earth: _Optional[int] = ..., deck_size: _Optional[int] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., skipping: _Optional[_Iterable[bool]] = ..., turn: _Optional[int] = ...) -> None: ...

class FleaCircusAction(_message.Message):
    __slots__ = ("type", "card", "count", "target")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    type: str
    card: FleaCard
    count: int
    target: int
    def __init__(self, type: _Optional[str] = ..., card: _Optional[_Union[FleaCard, _Mapping]] = ..., count: _Optional[int] = ..., target: _Optional[int] = ...) -> None: ...

class FleaCardCodes(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class FleaCircusEvent(_message.Message):
    __slots__ = ("card", "count", "source", "victim", "amount", "cards")
    CARD_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    VICTIM_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    card: str
    count: int
    source: str
    victim: int
    amount: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, card: _Optional[str] = ..., count: _Optional[int] = ..., source: _Optional[str] = ..., victim: _Optional[int] = ..., amount: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class FleaCircusFinalState(_message.Message):
    __slots__ = ("hands", "piles", "loot", "earth", "deck", "turns")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    PILES_FIELD_NUMBER: _ClassVar[int]
    LOOT_FIELD_NUMBER: _ClassVar[int]
    EARTH_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedCompositeFieldContainer[FleaCardCodes]
    piles: _containers.RepeatedCompositeFieldContainer[FleaCardCodes]
    loot: _containers.RepeatedScalarFieldContainer[int]
    earth: int
    deck: _containers.RepeatedScalarFieldContainer[str]
    turns: int
    def __init__(self, hands: _Optional[_Iterable[_Union[FleaCardCodes, _Mapping]]] = ..., piles: _Optional[_Iterable[_Union[FleaCardCodes, _Mapping]]] = ..., loot: _Optional[_Iterable[int]] = ..., earth: _Optional[int] = ..., deck: _Optional[_Iterable[str]] = ..., turns: _Optional[int] = ...) -> None: ...
