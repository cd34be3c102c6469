from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AnimalCard(_message.Message):
    __slots__ = ("value", "color", "name")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    value: int
    color: int
    name: str
    def __init__(self, value: _Optional[int] = ..., color: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...

class AnimalPile(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[AnimalCard]
    def __init__(self, cards: _Optional[_Iterable[_Union[AnimalCard, _Mapping]]] = ...) -> None: ...

class AnimalConstraints(_message.Message):
    __slots__ = ("bat", "lower_than", "parrot", "parrot_cards", "bear")
    BAT_FIELD_NUMBER: _ClassVar[int]
    LOWER_THAN_FIELD_NUMBER: _ClassVar[int]
    PARROT_FIELD_NUMBER: _ClassVar[int]
    PARROT_CARDS_FIELD_NUMBER: _ClassVar[int]
    BEAR_FIELD_NUMBER: _ClassVar[int]
    bat: bool
    lower_than: int
    parrot: bool
    parrot_cards: _containers.RepeatedCompositeFieldContainer[AnimalCard]
    bear: bool
    def __init__(self, bat: _Optional[bool] = ..., lower_than: _Optional[int] = ..., parrot: _Optional[bool] = ..., parrot_cards: _Optional[_Iterable[_Union[AnimalCard, _Mapping]]] = ..., bear: _Optional[bool] = ...) -> None: ...

class AnimalDecision(_message.Message):
    __slots__ = ("kind", "ability", "copied")
    KIND_FIELD_NUMBER: _ClassVar[int]
    ABILITY_FIELD_NUMBER: _ClassVar[int]
    COPIED_FIELD_NUMBER: _ClassVar[int]
    kind: str
    ability: int
    copied: bool
    def __init__(self, kind: _Optional[str] = ..., ability: _Optional[int] = ..., copied: _Optional[bool] = ...) -> None: ...

class AnimalCircusObservation(_message.Message):
    __slots__ = ("seat", "current_player", "previous_player", "hand", "draw_size", "known_draw_top", "ring", "score_piles", "hand_sizes", "draw_sizes", "out_of_game", "put_away_per_player", "constraints", "decision", "scores", "turn")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PLAYER_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_PLAYER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    DRAW_SIZE_FIELD_NUMBER: _ClassVar[int]
    KNOWN_DRAW_TOP_FIELD_NUMBER: _ClassVar[int]
    RING_FIELD_NUMBER: _ClassVar[int]
    SCORE_PILES_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    DRAW_SIZES_FIELD_NUMBER: _ClassVar[int]
    OUT_OF_GAME_FIELD_NUMBER: _ClassVar[int]
    PUT_AWAY_PER_PLAYER_FIELD_NUMBER: _ClassVar[int]
    CONSTRAINTS_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    current_player: int
    previous_player: int
    hand: _containers.RepeatedCompositeFieldContainer[AnimalCard]
    draw_size: int
    known_draw_top: _containers.RepeatedCompositeFieldContainer[AnimalCard]
    ring: _containers.RepeatedCompositeFieldContainer[AnimalCard]
    score_piles: _containers.RepeatedCompositeFieldContainer[AnimalPile]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    draw_sizes: _containers.RepeatedScalarFieldContainer[int]
    out_of_game: _containers.RepeatedCompositeFieldContainer[AnimalCard]
    put_away_per_player: int
    constraints: AnimalConstraints
    decision: AnimalDecision
    scores: _containers.RepeatedScalarFieldContainer[int]
    turn: int
    def __init__(self, seat: _Optional[int] = ..., current_player: _Optional[int] = ..., previous_player: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[AnimalCard, _Mapping]]] = ..., draw_size: _Optional[int] = ..., known_draw_top: _Optional[_Iterable[_Union[AnimalCard, _Mapping]]] = ..., ring: _Optional[_Iterable[_Union[AnimalCard, _Mapping]]] = ..., score_piles: _Optional[_Iterable[_Union[AnimalPile, _Mapping]]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., draw_sizes: _Optional[_Iterable[int]] = ..., out_of_game: _Optional[_Iterable[_Union[AnimalCard, _Mapping]]] = ..., put_away_per_player: _Optional[int] = ..., constraints: _Optional[_Union[AnimalConstraints, _Mapping]] = ..., decision: _Optional[_Union[AnimalDecision, _Mapping]] = ..., scores: _Optional[_Iterable[int]] = ..., turn: _Optional[int] = ...) -> None: ...

class AnimalCircusAction(_message.Message):
    __slots__ = ("type", "card", "target", "pile", "order", "ring_winner")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    PILE_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    RING_WINNER_FIELD_NUMBER: _ClassVar[int]
    type: str
    card: AnimalCard
    target: int
    pile: int
    order: _containers.RepeatedCompositeFieldContainer[AnimalCard]
    ring_winner: int
    def __init__(self, type: _Optional[str] = ..., card: _Optional[_Union[AnimalCard, _Mapping]] = ..., target: _Optional[int] = ..., pile: _Optional[int] = ..., order: _Optional[_Iterable[_Union[AnimalCard, _Mapping]]] = ..., ring_winner: _Optional[int] = ...) -> None: ...

class AnimalCards(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[AnimalCard]
    def __init__(self, cards: _Optional[_Iterable[_Union[AnimalCard, _Mapping]]] = ...) -> None: ...

class AnimalCircusEvent(_message.Message):
    __slots__ = ("card", "new_ring", "cards", "target", "pile", "count", "got", "gave", "ability", "put_away", "reason", "scores")
    CARD_FIELD_NUMBER: _ClassVar[int]
    NEW_RING_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    PILE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    GOT_FIELD_NUMBER: _ClassVar[int]
    GAVE_FIELD_NUMBER: _ClassVar[int]
    ABILITY_FIELD_NUMBER: _ClassVar[int]
    PUT_AWAY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    card: AnimalCard
    new_ring: bool
    cards: _containers.RepeatedCompositeFieldContainer[AnimalCard]
    target: int
    pile: int
    count: int
    got: AnimalCard
    gave: AnimalCard
    ability: int
    put_away: int
    reason: str
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, card: _Optional[_Union[AnimalCard, _Mapping]] = ..., new_ring: _Optional[bool] = ..., cards: _Optional[_Iterable[_Union[AnimalCard, _Mapping]]] = ..., target: _Optional[int] = ..., pile: _Optional[int] = ..., count: _Optional[int] = ..., got: _Optional[_Union[AnimalCard, _Mapping]] = ..., gave: _Optional[_Union[AnimalCard, _Mapping]] = ..., ability: _Optional[int] = ..., put_away: _Optional[int] = ..., reason: _Optional[str] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class AnimalCircusFinalState(_message.Message):
    __slots__ = ("hands", "draw_piles", "put_away", "out_of_game", "ring", "score_piles", "scores", "turns", "end_reason")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    DRAW_PILES_FIELD_NUMBER: _ClassVar[int]
    PUT_AWAY_FIELD_NUMBER: _ClassVar[int]
    OUT_OF_GAME_FIELD_NUMBER: _ClassVar[int]
    RING_FIELD_NUMBER: _ClassVar[int]
    SCORE_PILES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    END_REASON_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedCompositeFieldContainer[AnimalCards]
    draw_piles: _containers.RepeatedCompositeFieldContainer[AnimalCards]
    put_away: _containers.RepeatedCompositeFieldContainer[AnimalCards]
    out_of_game: _containers.RepeatedCompositeFieldContainer[AnimalCard]
    ring: _containers.RepeatedCompositeFieldContainer[AnimalCard]
    score_piles: _containers.RepeatedCompositeFieldContainer[AnimalCards]
    scores: _containers.RepeatedScalarFieldContainer[int]
    turns: int
    end_reason: str
    def __init__(self, hands: _Optional[_Iterable[_Union[AnimalCards, _Mapping]]] = ..., draw_piles: _Optional[_Iterable[_Union[AnimalCards, _Mapping]]] = ..., put_away: _Optional[_Iterable[_Union[AnimalCards, _Mapping]]] = ..., out_of_game: _Optional[_Iterable[_Union[AnimalCard, _Mapping]]] = ..., ring: _Optional[_Iterable[_Union[AnimalCard, _Mapping]]] = ..., score_piles: _Optional[_Iterable[_Union[AnimalCards, _Mapping]]] = ..., scores: _Optional[_Iterable[int]] = ..., turns: _Optional[int] = ..., end_reason: _Optional[str] = ...) -> None: ...
