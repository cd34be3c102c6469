"""Fixed-size tensors of a seat's observation and fixed action ids, per game.

A learner needs the same shapes at every decision: the action vocabulary is every
stable action code the game can offer (a ``Discrete(n)`` space with a mask of the legal
ones), and the observation tensor is built from :meth:`State.observation` of the deciding
seat only, so it cannot carry a card hidden from that seat. Seats are laid out relative
to the observing seat (itself first, then clockwise), so one policy serves every seat.
The layout of each game is in ``docs/training.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from bots.search import game_of, observation_dict
from circus.v1 import bot_pb2
from referee.games import flea_circus
from referee.games.base import Action

MAX_SEATS = 5
Observation = dict[str, Any]


@dataclass(frozen=True)
class Encoder:
    """A game's action vocabulary and observation tensor, for 2-5 seats.

    ``fill`` writes the observation's features into a zeroed float32 vector of ``size``.
    """

    game: str
    codes: tuple[str, ...]
    size: int
    fill: Callable[[Observation, int, NDArray[np.float32]], None]

    @property
    def ids(self) -> dict[str, int]:
        return _IDS[self.game]

    def observe(self, observation: Observation, players: int) -> NDArray[np.float32]:
        """The tensor of one seat's observation at a table of ``players``."""
        tensor = np.zeros(self.size, dtype=np.float32)
        self.fill(observation, players, tensor)
        return tensor

    def mask(self, actions: Sequence[Action]) -> NDArray[np.int8]:
        """1 at the id of each legal action's code, 0 elsewhere."""
        mask = np.zeros(len(self.codes), dtype=np.int8)
        mask[[self.ids[action.code] for action in actions]] = 1
        return mask

    def action_index(self, actions: Sequence[Action], action_id: int) -> int:
        """The index in ``actions`` of the action with id ``action_id`` (ValueError if none)."""
        code = self.codes[action_id]
        for index, action in enumerate(actions):
            if action.code == code:
                return index
        raise ValueError(f"action id {action_id} ({code}) is not legal now")


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


FLEA_CODES = (*flea_circus.PLAYS, *(f"target:{seat}" for seat in range(MAX_SEATS)))

ENCODERS: dict[str, Encoder] = {
    "flea-circus": Encoder("flea-circus", FLEA_CODES, FLEA_SIZE, _flea_fill),
}
_IDS = {name: {code: index for index, code in enumerate(encoder.codes)}
        for name, encoder in ENCODERS.items()}


def encoder(game: str) -> Encoder:
    """The encoder of ``game`` (KeyError for a game not encoded yet)."""
    return ENCODERS[game]


def encode_request(
        request: bot_pb2.DecisionRequest) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
    """A ``DecisionRequest``'s observation tensor and legal mask: the ids a policy trained in
    process chooses from, so it plays over the wire exactly as it trained."""
    code = encoder(game_of(request))
    observation = observation_dict(request)
    mask = np.zeros(len(code.codes), dtype=np.int8)
    mask[[code.ids[action.code] for action in request.legal_actions]] = 1
    return code.observe(observation, len(observation["hand_sizes"])), mask
