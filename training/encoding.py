"""Fixed-size tensors of a seat's observation and fixed action ids, per game.

A learner needs the same shapes at every decision: the action vocabulary is every
stable action code the game can offer (a ``Discrete(n)`` space with a mask of the legal
ones), and the observation tensor is built from :meth:`State.observation` of the deciding
seat only, so it cannot carry a card hidden from that seat. Seats are relative to the
observing seat everywhere, in the tensor (itself first, then clockwise) and in the action
ids (``target:+1`` is the next seat clockwise, whatever the absolute seat), so a policy
trained at one seat plays at every other. The layout of each game is in
``docs/training.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

import numpy as np
from numpy.typing import NDArray

from bots.search import game_of, observation_dict
from circus.v1 import bot_pb2
from referee.games import flea_circus, get_game

MAX_SEATS = 5
Observation = dict[str, Any]


class Coded(Protocol):
    """A legal action, the engine's :class:`Action` or the wire's ``LegalAction``."""

    @property
    def code(self) -> str: ...


#: The stable codes that name a seat (``target:3``, Animal Circus's ``pile:3``): their
#: vocabulary entry names the seat's place from the decider instead (``target:+2``).
SEAT_CODES = ("target", "pile")


def relative_word(code: str, seat: int, players: int) -> str:
    """The vocabulary entry of a stable ``code`` offered to ``seat``: seats made relative."""
    head, _, tail = code.partition(":")
    if head in SEAT_CODES:
        return f"{head}:+{(int(tail) - seat) % players}"
    return code


def seat_words(head: str, first: int) -> tuple[str, ...]:
    """The vocabulary entries ``head:+first`` .. ``head:+4``."""
    return tuple(f"{head}:+{place}" for place in range(first, MAX_SEATS))


@dataclass(frozen=True)
class Encoder:
    """A game's action vocabulary and observation tensor, for one variant at 2-5 seats.

    ``fill`` writes the observation's features into a zeroed float32 vector of ``size``;
    ``word`` turns a stable action code offered to a seat into its vocabulary entry
    (``codes``), so the id of an action depends on the code and the decider's place alone.
    """

    game: str
    variant: str
    codes: tuple[str, ...]
    size: int
    fill: Callable[[Observation, int, NDArray[np.float32]], None]
    word: Callable[[str, int, int], str] = relative_word
    ids: dict[str, int] = field(init=False, repr=False, compare=False)
    # Each (code, seat, players)'s id, found once: listed at every decision.
    _found: dict[tuple[str, int, int], int] = field(
        init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ids", {code: index for index, code in enumerate(self.codes)})

    def observe(self, observation: Observation, players: int) -> NDArray[np.float32]:
        """The tensor of one seat's observation at a table of ``players``."""
        tensor = np.zeros(self.size, dtype=np.float32)
        self.fill(observation, players, tensor)
        return tensor

    def action_id(self, code: str, seat: int, players: int) -> int:
        """The id of the stable ``code`` offered to ``seat`` at a table of ``players``."""
        key = (code, seat, players)
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self.ids[self.word(code, seat, players)]
        return found

    def mask(self, actions: Sequence[Coded], seat: int, players: int) -> NDArray[np.int8]:
        """1 at the id of each legal action (offered to ``seat``), 0 elsewhere."""
        mask = np.zeros(len(self.codes), dtype=np.int8)
        mask[[self.action_id(action.code, seat, players) for action in actions]] = 1
        return mask

    def action_index(self, actions: Sequence[Coded], action_id: int, seat: int,
                     players: int) -> int:
        """The index in ``actions`` of the action with id ``action_id`` (ValueError if none)."""
        for index, action in enumerate(actions):
            if self.action_id(action.code, seat, players) == action_id:
                return index
        raise ValueError(f"action id {action_id} ({self.codes[action_id]}) is not legal now")


def _relative(seat: int, players: int) -> list[int]:
    """The seats from ``seat``'s point of view: itself, then clockwise."""
    return [(seat + step) % players for step in range(players)]


# -- Flea Circus ---------------------------------------------------------------
FLEA_KINDS = flea_circus.CARD_ORDER
_FLEA_KIND = {kind: index for index, kind in enumerate(FLEA_KINDS)}
FLEA_PER_SEAT = 2 * len(FLEA_KINDS) + 5
FLEA_SIZE = len(FLEA_KINDS) + 3 + MAX_SEATS * FLEA_PER_SEAT


def _flea_card(message: dict[str, Any]) -> int:
    return _FLEA_KIND[message.get("saucer") or message["kind"]]


def _flea_fill(observation: Observation, players: int, tensor: NDArray[np.float32]) -> None:
    """Hand counts, earth, deck, turn; then per relative seat its pile and public counts."""
    kinds = len(FLEA_KINDS)
    for card in observation["hand"]:
        tensor[_flea_card(card)] += 1
    tensor[kinds] = observation["earth"] / flea_circus.LOOT_TOKENS
    tensor[kinds + 1] = observation["deck_size"] / 55
    tensor[kinds + 2] = observation["turn"] / flea_circus.TURN_LIMIT
    for place, seat in enumerate(_relative(observation["seat"], players)):
        base = kinds + 3 + place * FLEA_PER_SEAT
        pile = observation["piles"][seat]["cards"]
        for card in pile:
            tensor[base + _flea_card(card)] += 1
        if pile:
            tensor[base + kinds + _flea_card(pile[-1])] = 1
        extra = base + 2 * kinds
        tensor[extra] = 1  # the seat is at the table
        tensor[extra + 1] = observation["loot"][seat] / flea_circus.LOOT_TOKENS
        tensor[extra + 2] = observation["hand_sizes"][seat]
        tensor[extra + 3] = observation["skipping"][seat]
        tensor[extra + 4] = observation["current_player"] == seat


FLEA_CODES = (*flea_circus.PLAYS, *seat_words("target", 1))

#: Every encoder, by game and variant.
ENCODERS: dict[tuple[str, str], Encoder] = {
    ("flea-circus", "standard"): Encoder("flea-circus", "standard", FLEA_CODES, FLEA_SIZE,
                                         _flea_fill),
}


def encoder(game: str, variant: str | None = None) -> Encoder:
    """The encoder of ``game``'s ``variant`` (its first variant by default)."""
    return ENCODERS[game, variant or get_game(game).default_variant]


def encode_request(
        request: bot_pb2.DecisionRequest) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
    """A ``DecisionRequest``'s observation tensor and legal mask: the ids a policy trained in
    process chooses from, so it plays over the wire exactly as it trained."""
    observation = observation_dict(request)
    code = encoder(game_of(request), observation.get("variant"))
    players = len(observation["hand_sizes"])
    mask = code.mask(request.legal_actions, request.seat, players)
    return code.observe(observation, players), mask
