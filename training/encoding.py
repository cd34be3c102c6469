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
from itertools import combinations, permutations
from typing import Any, Callable, Protocol, Sequence

import numpy as np
from numpy.typing import NDArray

from bots.search import game_of, observation_dict
from circus.v1 import bot_pb2
from referee.games import animal_circus, flea_circus, flohcati, get_game

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
    # Each (seat, players)'s ids by code, each found the first time: listed at every decision.
    _tables: dict[tuple[int, int], dict[str, int]] = field(
        init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ids", {code: index for index, code in enumerate(self.codes)})

    def observe(self, observation: Observation, players: int) -> NDArray[np.float32]:
        """The tensor of one seat's observation at a table of ``players``."""
        tensor = np.zeros(self.size, dtype=np.float32)
        self.fill(observation, players, tensor)
        return tensor

    def _table(self, seat: int, players: int) -> dict[str, int]:
        table = self._tables.get((seat, players))
        if table is None:
            table = self._tables[seat, players] = _Ids(
                lambda code: self.ids[self.word(code, seat, players)])
        return table

    def action_id(self, code: str, seat: int, players: int) -> int:
        """The id of the stable ``code`` offered to ``seat`` at a table of ``players``."""
        return self._table(seat, players)[code]

    def mask(self, actions: Sequence[Coded], seat: int, players: int) -> NDArray[np.int8]:
        """1 at the id of each legal action (offered to ``seat``), 0 elsewhere."""
        table = self._table(seat, players)
        mask = np.zeros(len(self.codes), dtype=np.int8)
        mask[[table[action.code] for action in actions]] = 1
        return mask

    def action_index(self, actions: Sequence[Coded], action_id: int, seat: int,
                     players: int) -> int:
        """The index in ``actions`` of the action with id ``action_id`` (ValueError if none)."""
        table = self._table(seat, players)
        for index, action in enumerate(actions):
            if table[action.code] == action_id:
                return index
        raise ValueError(f"action id {action_id} ({self.codes[action_id]}) is not legal now")


class _Ids(dict[str, int]):
    """Codes' ids at one seat and table size, each found by ``find`` the first time asked."""

    def __init__(self, find: Callable[[str], int]) -> None:
        super().__init__()
        self.find = find

    def __missing__(self, code: str) -> int:
        found = self[code] = self.find(code)
        return found


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


class Layout:
    """A tensor's fields at consecutive offsets, in the order added (docs/training.md)."""

    def __init__(self) -> None:
        self.size = 0

    def add(self, size: int) -> int:
        """Room for a field of ``size`` values: its offset."""
        offset, self.size = self.size, self.size + size
        return offset


def _one_hot(tensor: NDArray[np.float32], offset: int, index: int) -> None:
    """1 at ``offset + index`` for an index that is set (not negative)."""
    if index >= 0:
        tensor[offset + index] = 1


# -- Circus Flohcati -------------------------------------------------------------
#: The 80 circus cards, colour by colour, values 0-7: a card's index in the tensor.
FLOH_CARDS = {card: index for index, card in enumerate(
    flohcati.circus_card(colour, value)
    for colour in flohcati.COLOURS for value in flohcati.VALUES)}
_FLOH_ACTIONS = {kind: index for index, kind in enumerate(flohcati.ACTION_ORDER)}
_FLOH_COLOURS = {colour: index for index, colour in enumerate(flohcati.COLOURS)}
FLOH_PHASES = tuple(flohcati.ACTIONS_BY_PHASE)
_FLOH_PHASE = {phase: index for index, phase in enumerate(FLOH_PHASES)}
#: A display holds one card per colour at most.
FLOH_DISPLAY = len(flohcati.COLOURS)
_FLOH_SLOT = len(flohcati.COLOURS) + len(flohcati.VALUES)
_FLOH_DECK = len(flohcati.full_deck("en"))

_floh = Layout()
FLOH_HAND = _floh.add(len(FLOH_CARDS))
FLOH_DISPLAY_SLOTS = _floh.add(FLOH_DISPLAY * _FLOH_SLOT)
FLOH_MATCH = _floh.add(_FLOH_SLOT)
FLOH_DISCARD = _floh.add(len(FLOH_CARDS))
FLOH_DISCARD_ACTIONS = _floh.add(len(flohcati.ACTION_ORDER))
FLOH_COUNTS = _floh.add(6)  # deck, flips, turn, decisions, Gala bonus, opening
FLOH_PHASE = _floh.add(len(FLOH_PHASES))
FLOH_ACTION_CARD = _floh.add(len(flohcati.ACTION_ORDER))
FLOH_REQUESTED = _floh.add(len(flohcati.COLOURS))
FLOH_DIRECTION = _floh.add(len(flohcati.DIRECTIONS))
FLOH_VARIANT = _floh.add(len(flohcati.ACTION_KINDS))
FLOH_ROLES = _floh.add(4 * MAX_SEATS)  # on turn, deciding, giver, receiver: a place each
FLOH_PER_SEAT = 3 + 2 * len(FLOH_CARDS)  # at the table, hand, trios laid; known, trio cards
FLOH_SEATS = _floh.add(MAX_SEATS * FLOH_PER_SEAT)
FLOH_SIZE = _floh.size


def _floh_card_slot(tensor: NDArray[np.float32], offset: int, card: Observation) -> None:
    """A circus card as its colour's one-hot, then its value's."""
    tensor[offset + _FLOH_COLOURS[card["colour"]]] = 1
    tensor[offset + len(flohcati.COLOURS) + int(card["value"])] = 1


def _floh_cards(tensor: NDArray[np.float32], offset: int, cards: list[Observation]) -> None:
    """Circus cards as 1 at each card's index; action cards (on the discard) are skipped."""
    for card in cards:
        index = FLOH_CARDS.get(card["code"])
        if index is not None:
            tensor[offset + index] = 1


def _floh_fill(observation: Observation, players: int, tensor: NDArray[np.float32]) -> None:
    """The seat's hand and the table; then the turn's decision; then each place's public part."""
    _floh_cards(tensor, FLOH_HAND, observation["hand"])
    for slot, card in enumerate(observation["display"]):
        _floh_card_slot(tensor, FLOH_DISPLAY_SLOTS + slot * _FLOH_SLOT, card)
    if observation.get("matching_card"):
        _floh_card_slot(tensor, FLOH_MATCH, observation["matching_card"])
    _floh_cards(tensor, FLOH_DISCARD, observation["discard"])
    for card in observation["discard"]:
        if card["code"] in _FLOH_ACTIONS:
            tensor[FLOH_DISCARD_ACTIONS + _FLOH_ACTIONS[card["code"]]] += 1 / flohcati.ACTION_COPIES
    tensor[FLOH_COUNTS:FLOH_COUNTS + 6] = (
        observation["deck_size"] / _FLOH_DECK, observation["flips_this_turn"] / 10,
        observation["turn"] / flohcati.DECISION_LIMIT,
        observation["decisions"] / flohcati.DECISION_LIMIT, observation["gala_bonus"] / 10,
        observation["opening"])
    _floh_decision(observation, players, tensor)
    _floh_places(observation, players, tensor)


def _floh_decision(observation: Observation, players: int, tensor: NDArray[np.float32]) -> None:
    """The pending decision: its phase, action card, request, and who is on turn, decides,
    gives and receives (as places)."""
    _one_hot(tensor, FLOH_PHASE, _FLOH_PHASE.get(observation["decision"], -1))
    _one_hot(tensor, FLOH_ACTION_CARD, _FLOH_ACTIONS.get(observation["action_card"], -1))
    _one_hot(tensor, FLOH_REQUESTED, _FLOH_COLOURS.get(observation["requested_colour"], -1))
    if observation["direction"]:
        _one_hot(tensor, FLOH_DIRECTION, flohcati.DIRECTIONS.index(observation["direction"]))
    _one_hot(tensor, FLOH_VARIANT, tuple(flohcati.ACTION_KINDS).index(observation["variant"]))
    seat = observation["seat"]
    for role, key in enumerate(("current_player", "deciding_seat", "giver", "receiver")):
        if observation[key] >= 0:
            _one_hot(tensor, FLOH_ROLES + role * MAX_SEATS, (observation[key] - seat) % players)


def _floh_places(observation: Observation, players: int, tensor: NDArray[np.float32]) -> None:
    """Each place from the seat: hand size, what the seat knows of the hand, trios laid."""
    for place, seat in enumerate(_relative(observation["seat"], players)):
        base = FLOH_SEATS + place * FLOH_PER_SEAT
        trios = observation["trios"][seat]["trios"]
        tensor[base:base + 3] = (1, observation["hand_sizes"][seat] / 10, len(trios) / 10)
        _floh_cards(tensor, base + 3, observation["known_cards"][seat]["cards"])
        for trio in trios:
            _floh_cards(tensor, base + 3 + len(FLOH_CARDS), trio["cards"])


FLOH_CODES = (
    *(f"take:{index}" for index in range(FLOH_DISPLAY)), "take:match", "flip", "stop",
    "done", "gala:yes", "gala:no", *seat_words("target", 1),
    *(f"give:{card}" for card in FLOH_CARDS),
    *(f"colour:{colour}:{direction}" for colour in flohcati.COLOURS
      for direction in flohcati.DIRECTIONS),
    *("trio:" + ",".join(flohcati.circus_card(colour, value) for colour in colours)
      for value in flohcati.VALUES for colours in combinations(flohcati.COLOURS, 3)))


# -- Animal Circus ---------------------------------------------------------------
ANIMAL_VALUES = animal_circus.CARDS_PER_COLOR
_ANIMAL_KINDS = ("play", "target", "pile", "order")
#: The Owl shows at most three cards.
ANIMAL_TOP = 3

_animal = Layout()
ANIMAL_HAND = _animal.add(ANIMAL_VALUES)
ANIMAL_DRAW_TOP = _animal.add(ANIMAL_TOP * ANIMAL_VALUES)
ANIMAL_RING = _animal.add(3 * ANIMAL_VALUES + 1)  # counts, top, bottom, size
ANIMAL_OUT = _animal.add(ANIMAL_VALUES)
ANIMAL_PARROT = _animal.add(ANIMAL_VALUES)
ANIMAL_CONSTRAINTS = _animal.add(4)  # Bat, lower than, Parrot, Bear
ANIMAL_DECISION = _animal.add(len(_ANIMAL_KINDS) + ANIMAL_VALUES + 1)  # kind, ability, copied
ANIMAL_COUNTS = _animal.add(2)  # put away per player, turn
ANIMAL_ROLES = _animal.add(2 * MAX_SEATS)  # on turn, previous: a place each
ANIMAL_PER_SEAT = 4 + 2 * ANIMAL_VALUES  # at the table, hand, draw, score pile; its counts, top
ANIMAL_SEATS = _animal.add(MAX_SEATS * ANIMAL_PER_SEAT)
ANIMAL_SIZE = _animal.size


def _animal_counts(tensor: NDArray[np.float32], offset: int, cards: list[Observation]) -> None:
    """Cards of each value (1-22 at offsets 0-21); colours change no rule."""
    for card in cards:
        tensor[offset + int(card["value"]) - 1] += 1


def _animal_fill(observation: Observation, players: int, tensor: NDArray[np.float32]) -> None:
    """The seat's hand and known Draw-pile top, the Ring, the turn's rules; each place's piles."""
    _animal_counts(tensor, ANIMAL_HAND, observation["hand"])
    for slot, card in enumerate(observation["known_draw_top"]):
        tensor[ANIMAL_DRAW_TOP + slot * ANIMAL_VALUES + int(card["value"]) - 1] = 1
    ring = observation["ring"]
    _animal_counts(tensor, ANIMAL_RING, ring)
    if ring:
        tensor[ANIMAL_RING + ANIMAL_VALUES + int(ring[-1]["value"]) - 1] = 1
        tensor[ANIMAL_RING + 2 * ANIMAL_VALUES + int(ring[0]["value"]) - 1] = 1
        tensor[ANIMAL_RING + 3 * ANIMAL_VALUES] = len(ring) / 10
    _animal_counts(tensor, ANIMAL_OUT, observation["out_of_game"])
    constraints = observation["constraints"]
    _animal_counts(tensor, ANIMAL_PARROT, constraints["parrot_cards"])
    tensor[ANIMAL_CONSTRAINTS:ANIMAL_CONSTRAINTS + 4] = (
        constraints["bat"], constraints["lower_than"] / ANIMAL_VALUES, constraints["parrot"],
        constraints["bear"])
    decision = observation["decision"]
    if decision["kind"]:
        tensor[ANIMAL_DECISION + _ANIMAL_KINDS.index(decision["kind"])] = 1
    _one_hot(tensor, ANIMAL_DECISION + len(_ANIMAL_KINDS), int(decision["ability"]) - 1)
    tensor[ANIMAL_DECISION + len(_ANIMAL_KINDS) + ANIMAL_VALUES] = decision["copied"]
    tensor[ANIMAL_COUNTS:ANIMAL_COUNTS + 2] = (observation["put_away_per_player"] / 5,
                                               observation["turn"] / animal_circus.TURN_LIMIT)
    seat = observation["seat"]
    _one_hot(tensor, ANIMAL_ROLES, (observation["current_player"] - seat) % players)
    if observation["previous_player"] >= 0:
        _one_hot(tensor, ANIMAL_ROLES + MAX_SEATS,
                 (observation["previous_player"] - seat) % players)
    _animal_places(observation, players, tensor)


def _animal_places(observation: Observation, players: int, tensor: NDArray[np.float32]) -> None:
    """Each place from the seat: hand and Draw-pile sizes, its Score pile's cards and top."""
    for place, seat in enumerate(_relative(observation["seat"], players)):
        base = ANIMAL_SEATS + place * ANIMAL_PER_SEAT
        pile = observation["score_piles"][seat]["cards"]
        tensor[base:base + 4] = (1, observation["hand_sizes"][seat] / 10,
                                 observation["draw_sizes"][seat] / ANIMAL_VALUES, len(pile) / 10)
        _animal_counts(tensor, base + 4, pile)
        if pile:
            tensor[base + 4 + ANIMAL_VALUES + int(pile[-1]["value"]) - 1] = 1


def animal_word(code: str, seat: int, players: int) -> str:
    """Seats made relative; an Owl's order as the ranks of its values, top first.

    ``order:12-5-9`` (values, top first) is ``order:201``: which of the (known) top cards
    goes where, not which values they are, so 9 ids cover every order of 1-3 cards.
    """
    head, _, tail = code.partition(":")
    if head != "order":
        return relative_word(code, seat, players)
    values = [int(value) for value in tail.split("-")]
    ranks = sorted(values)
    return "order:" + "".join(str(ranks.index(value)) for value in values)


ANIMAL_CODES = (
    *(f"{mode}:{value}" for mode in ("ring", "new") for value in range(1, ANIMAL_VALUES + 1)),
    *seat_words("target", 0), *seat_words("pile", 0),
    *("order:" + "".join(map(str, order)) for count in range(1, ANIMAL_TOP + 1)
      for order in permutations(range(count))))


#: Every encoder, by game and then variant.
ENCODERS: dict[str, dict[str, Encoder]] = {
    "flea-circus": {"standard": Encoder("flea-circus", "standard", FLEA_CODES, FLEA_SIZE,
                                        _flea_fill)},
    "flohcati": {variant: Encoder("flohcati", variant, FLOH_CODES, FLOH_SIZE, _floh_fill)
                 for variant in flohcati.GAME.variants},
    "animal-circus": {"standard": Encoder("animal-circus", "standard", ANIMAL_CODES,
                                          ANIMAL_SIZE, _animal_fill, animal_word)},
}


def encoder(game: str, variant: str | None = None) -> Encoder:
    """The encoder of ``game``'s ``variant`` (its first variant by default)."""
    return ENCODERS[game][variant or get_game(game).default_variant]


def _table(request: bot_pb2.DecisionRequest) -> tuple[Encoder, int]:
    """The encoder of a request's game and variant, and its table size."""
    observation = getattr(request.observation, request.observation.WhichOneof("game"))
    variant = getattr(observation, "variant", "")  # only Flohcati's observation names one
    return encoder(game_of(request), variant or None), len(observation.hand_sizes)


def encode_request(
        request: bot_pb2.DecisionRequest) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
    """A ``DecisionRequest``'s observation tensor and legal mask: the ids a policy trained in
    process chooses from, so it plays over the wire exactly as it trained."""
    code, players = _table(request)
    return (code.observe(observation_dict(request), players),
            code.mask(request.legal_actions, request.seat, players))


def request_action(request: bot_pb2.DecisionRequest, action_id: int) -> int:
    """The index in ``request.legal_actions`` of the action with ``action_id``: the way back
    from a policy's choice over :func:`encode_request`'s mask (ValueError if it is not legal)."""
    code, players = _table(request)
    return code.action_index(request.legal_actions, action_id, request.seat, players)
