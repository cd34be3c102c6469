"""The one interface every rules engine implements.

Modelled on OpenSpiel's Python games: a :class:`Game` *describes* a game (its
name, variants, player counts) and makes states; a :class:`State` *changes* as
actions are applied. Engines are pure: no I/O, no gRPC, no clock. All chance
comes from the state's own ``random.Random`` seeded at creation, so a game is
fully determined by ``(players, variant, seed)`` plus the sequence of chosen
action indices, which is what :class:`GameRecord` stores and :func:`replay`
uses.

Observations, action payloads and event data are plain dicts shaped like the
game's protobuf messages (``proto/circus/v1/<game>.proto``), so the referee can
turn them into wire messages without the engine knowing the wire exists.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping


class IllegalActionError(ValueError):
    """An action index that is not one of the current legal actions."""


class GameConfigError(ValueError):
    """An unknown variant or a player count the game does not allow."""


@dataclass(frozen=True)
class Action:
    """One legal action, as offered to the deciding seat.

    ``code`` is stable and machine-readable (bots may match on it), ``label``
    is for people, ``payload`` is a dict shaped like the game's action message.
    """

    code: str
    label: str
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Event:
    """Something that happened, with who may see it.

    ``visible_to`` is ``None`` for a public event, else the seats that may see
    it (a private draw is visible to the drawer only).
    """

    kind: str
    text: str
    seat: int = -1
    data: dict[str, Any] = field(default_factory=dict)
    visible_to: frozenset[int] | None = None

    def visible_for(self, seat: int) -> bool:
        return self.visible_to is None or seat in self.visible_to


_new_event = object.__new__


@dataclass(frozen=True)
class GameRecord:
    """Everything needed to replay a game: its setup and the chosen indices."""

    game: str
    variant: str
    players: int
    seed: int
    actions: tuple[int, ...]


def ranks_from_scores(scores: list[int]) -> list[int]:
    """Competition ranks: 1 is best; equal scores share a rank (1, 1, 3)."""
    return [1 + sum(other > own for other in scores) for own in scores]


class State(ABC):
    """A game in progress. Subclasses hold the position and implement the rules.

    The base class owns the bookkeeping every game shares: the RNG, the record
    of applied action indices, the event log and the index check in
    :meth:`apply`. Subclasses implement the ``_``-prefixed hooks and the
    read-only queries.
    """

    game_name: ClassVar[str]
    #: False for a state whose :meth:`emit` records nothing (a search's copy): an
    #: engine may then skip building events on its hot path. The rules are the same.
    records_events: ClassVar[bool] = True

    def __init__(self, players: int, variant: str, seed: int) -> None:
        self.num_players = players
        self.variant = variant
        self.seed = seed
        self.rng = random.Random(seed)
        self.history: list[int] = []
        self.events: list[Event] = []
        self.end_reason = ""

    # -- who decides what ------------------------------------------------
    @abstractmethod
    def current_seat(self) -> int:
        """The seat that must decide now (not always the seat on turn)."""

    @abstractmethod
    def decision_kind(self) -> str:
        """Machine-readable kind of the pending decision, e.g. ``"play"``."""

    @abstractmethod
    def prompt(self) -> str:
        """Human-readable description of the pending decision."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """The actions open to :meth:`current_seat`; never empty before the end."""

    def is_terminal(self) -> bool:
        """True once the game has ended; :attr:`end_reason` then says why."""
        return bool(self.end_reason)

    # -- what each seat knows --------------------------------------------
    @abstractmethod
    def observation(self, seat: int) -> dict[str, Any]:
        """All that ``seat`` may know, shaped like the game's observation message."""

    def observations(self) -> list[dict[str, Any]]:
        """Every seat's :meth:`observation`, for a replay, which shows them all at every
        step. A game may share the parts every seat is sent between them: read them,
        never change them."""
        return [self.observation(seat) for seat in range(self.num_players)]

    @abstractmethod
    def scores(self) -> list[int]:
        """Scores by seat (final once terminal)."""

    @abstractmethod
    def final_state(self) -> dict[str, Any]:
        """The whole position, hidden cards included, for the end of the game."""

    # -- changing the state ------------------------------------------------
    @abstractmethod
    def _apply(self, action: Action) -> None:
        """Carry out a legal action (already validated by :meth:`apply`)."""

    def apply(self, index: int, actions: list[Action] | None = None) -> None:
        """Apply the action at ``index`` of :meth:`legal_actions`.

        ``actions`` is for a caller that has just listed the legal actions: it
        must be what :meth:`legal_actions` returns now, and saves listing them
        again (the match runner and self-play loops do this at every decision).
        """
        if self.end_reason:
            raise IllegalActionError("the game is over: no action can be applied")
        if actions is None:
            actions = self.legal_actions()
        if not isinstance(index, int) or not 0 <= index < len(actions):
            raise IllegalActionError(
                f"action index {index!r} is not between 0 and {len(actions) - 1}"
            )
        self.history.append(index)
        self._apply(actions[index])

    def emit(self, kind: str, text: str, seat: int = -1,
             visible_to: frozenset[int] | None = None, **data: Any) -> None:
        """Append an event to the log."""
        # Event(kind, text, seat, data, visible_to), filled in directly: a frozen
        # dataclass's __init__ sets each field through object.__setattr__, three
        # times slower, and engines emit several events at every decision.
        event = _new_event(Event)
        fields = event.__dict__
        fields["kind"], fields["text"], fields["seat"] = kind, text, seat
        fields["data"], fields["visible_to"] = data, visible_to
        self.events.append(event)

    def ranks(self) -> list[int]:
        """Ranks by seat from the scores; ties share a rank."""
        return ranks_from_scores(self.scores())

    def record(self) -> GameRecord:
        return GameRecord(self.game_name, self.variant, self.num_players,
                          self.seed, tuple(self.history))


@dataclass(frozen=True)
class Game:
    """Describes a game and makes new states of it."""

    name: str
    title: str
    variants: tuple[str, ...]
    min_players: int
    max_players: int
    state_class: type[State]
    summary: str = ""
    #: Why a game of it ends, each reason (the game's ``EndReason``: the ``end_reason``
    #: stored, exported and sent) with its words for people. A state holds a reason's
    #: plain string (``EndReason.X.value``): its data and events are plain values.
    end_reasons: Mapping[str, str] = field(default_factory=dict)

    @property
    def default_variant(self) -> str:
        return self.variants[0]

    def check(self, players: int, variant: str | None) -> str:
        """Validate a setup and return the variant to use."""
        variant = variant or self.default_variant
        if variant not in self.variants:
            raise GameConfigError(
                f"game {self.name!r} has no variant {variant!r} "
                f"(variants: {', '.join(self.variants)})")
        if not self.min_players <= players <= self.max_players:
            raise GameConfigError(
                f"game {self.name!r} is for {self.min_players}-{self.max_players} "
                f"players, not {players}")
        return variant

    def new_state(self, players: int, variant: str | None, seed: int) -> State:
        variant = self.check(players, variant)
        return self.state_class(players, variant, seed)
