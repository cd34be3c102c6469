"""Fixed-size tensors of a seat's observation and fixed action ids, per game.

A learner needs the same shapes at every decision: the action vocabulary is every
stable action code the game can offer (a ``Discrete(n)`` space with a mask of the legal
ones), and the observation tensor is built from :meth:`State.observation` of the deciding
seat only, so it cannot carry a card hidden from that seat. Seats are relative to the
observing seat everywhere, in the tensor (itself first, then clockwise) and in the action
ids (``target:+1`` is the next seat clockwise, whatever the absolute seat), so a policy
trained at one seat plays at every other. The layout of each game is in
``docs/training.md``.

Each game's tensor is written two ways, to the same bytes (tests/test_training_state.py):
from the engine's own state (``fill_state``, what the environments use: through the wire's
observation dict a tensor costs 1.5-2x as much, docs/performance.md), and from the dict
(``fill``, for a ``DecisionRequest`` over the wire, where the dict is all there is).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from itertools import combinations, permutations
from typing import Any, Callable, Iterable, Protocol, Sequence, cast

import numpy as np
from numpy.typing import NDArray

from bots.search import game_of, observation_dict
from circus.v1 import bot_pb2
from referee.games import animal_circus, flea_circus, flohcati, get_game
from referee.games.animal_circus import AnimalCircusState
from referee.games.base import State
from referee.games.flea_circus import FleaCircusState
from referee.games.flohcati import FlohcatiState

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

    ``fill`` writes the observation's features into a zeroed float32 vector of ``size``,
    through a ``memoryview`` of it (a float32 written through it costs half a numpy item's);
    ``fill_state`` writes the same features of a seat straight from the game's own State
    class (typed ``Any`` here: each game's takes its own); ``word`` turns a stable action
    code offered to a seat into its vocabulary entry (``codes``), so the id of an action
    depends on the code and the decider's place alone.
    """

    game: str
    variant: str
    codes: tuple[str, ...]
    size: int
    fill: Callable[[Observation, int, memoryview[float]], None]
    fill_state: Callable[[Any, int, memoryview[float]], None]
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
        self.fill(observation, players, cast("memoryview[float]", tensor.data))
        return tensor

    def observe_state(self, state: State, seat: int) -> NDArray[np.float32]:
        """The tensor of what ``seat`` sees of ``state``, without the observation dict."""
        tensor = np.zeros(self.size, dtype=np.float32)
        self.fill_state(state, seat, cast("memoryview[float]", tensor.data))
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

    def action_ids(self, actions: Sequence[Coded], seat: int, players: int) -> list[int]:
        """The id of each legal action (offered to ``seat``), in the actions' order: listed
        once per decision, the mask and the way back from an id are both read off it."""
        table = self._table(seat, players)
        return [table[action.code] for action in actions]

    def mask_of(self, ids: list[int]) -> NDArray[np.int8]:
        """1 at each of the legal ``ids``, 0 elsewhere."""
        # Set in a bytearray and wrapped: numpy's fancy index costs more for a few ids.
        mask = bytearray(len(self.codes))
        for action_id in ids:
            mask[action_id] = 1
        return np.frombuffer(mask, dtype=np.int8)

    def mask(self, actions: Sequence[Coded], seat: int, players: int) -> NDArray[np.int8]:
        """1 at the id of each legal action (offered to ``seat``), 0 elsewhere."""
        return self.mask_of(self.action_ids(actions, seat, players))

    def index_of(self, ids: list[int], action_id: int) -> int:
        """The index in the legal ``ids`` of ``action_id`` (ValueError if it is not legal)."""
        try:
            return ids.index(action_id)
        except ValueError:
            raise ValueError(f"action id {action_id} ({self.codes[action_id]}) "
                             "is not legal now") from None

    def action_index(self, actions: Sequence[Coded], action_id: int, seat: int,
                     players: int) -> int:
        """The index in ``actions`` of the action with id ``action_id`` (ValueError if none)."""
        return self.index_of(self.action_ids(actions, seat, players), action_id)


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


class Runs:
    """Runs of consecutive tensor values by the content they encode, each written once.

    Flohcati's laid trios and discard change every few turns, and a seat's tensor is written
    at every decision: copying a run kept by its content (a tuple of the engine's cards,
    compared whole) costs less than writing card by card. Not so for hands, known cards and
    the other games' few small piles (measured side by side): they are written card by card.
    ``write`` fills a zeroed run of ``size`` from a key; at most ``limit`` runs are kept, the
    oldest dropped first (a vector environment's tables, each in a game of its own, share the
    memo: dropping all at once would drop every table's current runs).
    """

    def __init__(self, size: int, write: Callable[[Any, memoryview[float]], None],
                 limit: int = 4096) -> None:
        self.size, self.write, self.limit = size, write, limit
        self.runs: dict[Any, memoryview[float]] = {}
        self._keeping = threading.Lock()  # a run kept and the oldest dropped, one thread at once

    def put(self, tensor: memoryview[float], offset: int, key: Any) -> None:
        """The run of ``key`` at ``offset`` (written first if it is new)."""
        runs = self.runs
        run = runs.get(key)
        if run is None:
            # Written before it is kept: another thread finds it whole or not at all.
            run = cast("memoryview[float]", np.zeros(self.size, dtype=np.float32).data)
            self.write(key, run)
            with self._keeping:
                if len(runs) >= self.limit:
                    del runs[next(iter(runs))]
                runs[key] = run
        tensor[offset:offset + self.size] = run


# -- Flea Circus ---------------------------------------------------------------
FLEA_KINDS = flea_circus.CARD_ORDER
_FLEA_KIND = {kind: index for index, kind in enumerate(FLEA_KINDS)}
FLEA_PER_SEAT = 2 * len(FLEA_KINDS) + 5
FLEA_SIZE = len(FLEA_KINDS) + 3 + MAX_SEATS * FLEA_PER_SEAT


def _flea_card(message: dict[str, Any]) -> int:
    return _FLEA_KIND[message.get("saucer") or message["kind"]]


def _flea_fill(observation: Observation, players: int, tensor: memoryview[float]) -> None:
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


def _flea_state_fill(state: FleaCircusState, seat: int, tensor: memoryview[float]) -> None:
    """:func:`_flea_fill`'s features, read off the engine's state."""
    kinds, kind_of = len(FLEA_KINDS), _FLEA_KIND
    hands, piles, loot, player = state.hands, state.piles, state.loot, state.player
    players = state.num_players
    for card in hands[seat]:
        tensor[kind_of[card]] += 1
    tensor[kinds] = state.earth / flea_circus.LOOT_TOKENS
    tensor[kinds + 1] = len(state.deck) / 55
    tensor[kinds + 2] = state.turn / flea_circus.TURN_LIMIT
    deck_empty = not state.deck
    for place in range(players):
        other = (seat + place) % players
        base = kinds + 3 + place * FLEA_PER_SEAT
        pile = piles[other]
        if pile:
            for card in pile:
                tensor[base + kind_of[card]] += 1
            tensor[base + kinds + kind_of[pile[-1]]] = 1
        extra = base + 2 * kinds
        hand = hands[other]
        tensor[extra] = 1
        tensor[extra + 1] = loot[other] / flea_circus.LOOT_TOKENS
        tensor[extra + 2] = len(hand)
        tensor[extra + 3] = not hand and deck_empty  # skipping
        tensor[extra + 4] = player == other


FLEA_CODES = (*flea_circus.PLAYS, *seat_words("target", 1))


class Layout:
    """A tensor's fields at consecutive offsets, in the order added (docs/training.md)."""

    def __init__(self) -> None:
        self.size = 0

    def add(self, size: int) -> int:
        """Room for a field of ``size`` values: its offset."""
        offset, self.size = self.size, self.size + size
        return offset


def _put(tensor: memoryview[float], offset: int, values: tuple[float, ...]) -> None:
    """``values`` at consecutive offsets from ``offset``."""
    for index, value in enumerate(values, offset):
        tensor[index] = value


def _one_hot(tensor: memoryview[float], offset: int, index: int) -> None:
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
_FLOH_VARIANTS = {variant: index for index, variant in enumerate(flohcati.ACTION_KINDS)}
_FLOH_DIRECTIONS = {direction: index for index, direction in enumerate(flohcati.DIRECTIONS)}

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


#: An action card's share of the discard after one more copy, by its share before: the
#: float32 sums of ``1 / ACTION_COPIES`` (numpy's), which a float through the memoryview
#: (a double sum) may round differently: a table keeps the bytes numpy gave.
_FLOH_SHARE_AFTER: dict[float, float] = {}
_share = np.float32(0)
for _ in range(4 * flohcati.ACTION_COPIES):
    _FLOH_SHARE_AFTER[float(_share)] = float(_share + 1 / flohcati.ACTION_COPIES)
    _share = np.float32(_share + 1 / flohcati.ACTION_COPIES)


def _floh_card_slot(tensor: memoryview[float], offset: int, card: Observation) -> None:
    """A circus card as its colour's one-hot, then its value's."""
    tensor[offset + _FLOH_COLOURS[card["colour"]]] = 1
    tensor[offset + len(flohcati.COLOURS) + int(card["value"])] = 1


def _floh_cards(tensor: memoryview[float], offset: int, cards: list[Observation]) -> None:
    """Circus cards as 1 at each card's index; action cards (on the discard) are skipped."""
    for card in cards:
        index = FLOH_CARDS.get(card["code"])
        if index is not None:
            tensor[offset + index] = 1


def _floh_fill(observation: Observation, players: int, tensor: memoryview[float]) -> None:
    """The seat's hand and the table; then the turn's decision; then each place's public part."""
    _floh_cards(tensor, FLOH_HAND, observation["hand"])
    for slot, card in enumerate(observation["display"]):
        _floh_card_slot(tensor, FLOH_DISPLAY_SLOTS + slot * _FLOH_SLOT, card)
    if observation.get("matching_card"):
        _floh_card_slot(tensor, FLOH_MATCH, observation["matching_card"])
    _floh_cards(tensor, FLOH_DISCARD, observation["discard"])
    for card in observation["discard"]:
        if card["code"] in _FLOH_ACTIONS:
            index = FLOH_DISCARD_ACTIONS + _FLOH_ACTIONS[card["code"]]
            tensor[index] = _FLOH_SHARE_AFTER[tensor[index]]
    _put(tensor, FLOH_COUNTS, (
        observation["deck_size"] / _FLOH_DECK, observation["flips_this_turn"] / 10,
        observation["turn"] / flohcati.DECISION_LIMIT,
        observation["decisions"] / flohcati.DECISION_LIMIT, observation["gala_bonus"] / 10,
        observation["opening"]))
    _floh_decision(observation, players, tensor)
    _floh_places(observation, players, tensor)


def _floh_decision(observation: Observation, players: int, tensor: memoryview[float]) -> None:
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


def _floh_places(observation: Observation, players: int, tensor: memoryview[float]) -> None:
    """Each place from the seat: hand size, what the seat knows of the hand, trios laid."""
    for place, seat in enumerate(_relative(observation["seat"], players)):
        base = FLOH_SEATS + place * FLOH_PER_SEAT
        trios = observation["trios"][seat]["trios"]
        _put(tensor, base, (1, observation["hand_sizes"][seat] / 10, len(trios) / 10))
        _floh_cards(tensor, base + 3, observation["known_cards"][seat]["cards"])
        offset = base + 3 + len(FLOH_CARDS)
        for trio in trios:  # a trio holds circus cards only
            for card in trio["cards"]:
                tensor[offset + FLOH_CARDS[card["code"]]] = 1


# -- Circus Flohcati from the engine's state -------------------------------------
#: Where in a display slot each circus card's two one-hots (its colour, its value) are 1.
_FLOH_SLOT_ONES = {card: (_FLOH_COLOURS[colour], len(flohcati.COLOURS) + value)
                   for card, (colour, value) in flohcati.CIRCUS.items()}


def _floh_state_slot(tensor: memoryview[float], offset: int, card: str) -> None:
    """:func:`_floh_card_slot` of a card's code."""
    colour, value = _FLOH_SLOT_ONES[card]
    tensor[offset + colour] = 1
    tensor[offset + value] = 1


def _floh_discard_run(discard: tuple[str, ...], run: memoryview[float]) -> None:
    """The discard's circus cards, then each action card's share of its copies."""
    for card in discard:
        index = FLOH_CARDS.get(card)
        if index is not None:
            run[index] = 1
        else:
            index = len(FLOH_CARDS) + _FLOH_ACTIONS[card]
            run[index] = _FLOH_SHARE_AFTER[run[index]]


def _floh_trios_run(trios: tuple[tuple[str, ...], ...], run: memoryview[float]) -> None:
    """1 at each card of a place's laid trios."""
    for trio in trios:
        for card in trio:
            run[FLOH_CARDS[card]] = 1


_FLOH_DISCARDS = Runs(len(FLOH_CARDS) + len(flohcati.ACTION_ORDER), _floh_discard_run)
_FLOH_TRIOS = Runs(len(FLOH_CARDS), _floh_trios_run)


def _floh_state_fill(state: FlohcatiState, seat: int, tensor: memoryview[float]) -> None:
    """:func:`_floh_fill`'s features, read off the engine's state."""
    cards = FLOH_CARDS
    for card in state.hands[seat]:
        tensor[FLOH_HAND + cards[card]] = 1
    slot_of = _FLOH_SLOT_ONES
    for slot, card in enumerate(state.display):
        colour, value = slot_of[card]
        offset = FLOH_DISPLAY_SLOTS + slot * _FLOH_SLOT
        tensor[offset + colour] = 1
        tensor[offset + value] = 1
    if state.match:
        _floh_state_slot(tensor, FLOH_MATCH, state.match)
    if state.discard:
        _FLOH_DISCARDS.put(tensor, FLOH_DISCARD, tuple(state.discard))
    counts = FLOH_COUNTS
    tensor[counts] = len(state.deck) / _FLOH_DECK
    tensor[counts + 1] = state.flips / 10
    tensor[counts + 2] = state.turn / flohcati.DECISION_LIMIT
    tensor[counts + 3] = len(state.history) / flohcati.DECISION_LIMIT
    tensor[counts + 4] = flohcati.GALA_BONUS[state.variant] / 10
    tensor[counts + 5] = state.opening
    _floh_state_decision(state, seat, tensor)
    _floh_state_places(state, seat, tensor)


def _floh_state_decision(state: FlohcatiState, seat: int, tensor: memoryview[float]) -> None:
    """:func:`_floh_decision`'s features, read off the engine's state."""
    phase = -1 if state.end_reason else _FLOH_PHASE.get(state.phase, -1)
    if phase >= 0:
        tensor[FLOH_PHASE + phase] = 1
    if state.action_card:
        tensor[FLOH_ACTION_CARD + _FLOH_ACTIONS[state.action_card]] = 1
    if state.requested_colour:
        tensor[FLOH_REQUESTED + _FLOH_COLOURS[state.requested_colour]] = 1
    if state.direction:
        tensor[FLOH_DIRECTION + _FLOH_DIRECTIONS[state.direction]] = 1
    tensor[FLOH_VARIANT + _FLOH_VARIANTS[state.variant]] = 1
    players, player = state.num_players, state.player
    tensor[FLOH_ROLES + (player - seat) % players] = 1
    if state.phase == "give":
        giver = state.giver
        tensor[FLOH_ROLES + MAX_SEATS + (giver - seat) % players] = 1
        tensor[FLOH_ROLES + 2 * MAX_SEATS + (giver - seat) % players] = 1
        tensor[FLOH_ROLES + 3 * MAX_SEATS + (player - seat) % players] = 1
    else:
        tensor[FLOH_ROLES + MAX_SEATS + (player - seat) % players] = 1


def _floh_state_places(state: FlohcatiState, seat: int, tensor: memoryview[float]) -> None:
    """:func:`_floh_places`'s features, read off the engine's state."""
    known, hands, laid = state.known, state.hands, state.trios
    players, put_trios = state.num_players, _FLOH_TRIOS.put
    for place in range(players):
        holder = (seat + place) % players
        base = FLOH_SEATS + place * FLOH_PER_SEAT
        trios = laid[holder]
        tensor[base] = 1
        tensor[base + 1] = len(hands[holder]) / 10
        tensor[base + 2] = len(trios) / 10
        if holder == seat:  # what every other seat knows of the seat's own hand
            shown = known[(seat + 1) % players][seat]
            if players > 2:
                shown = shown.intersection(*[known[(seat + step) % players][seat]
                                             for step in range(2, players)])
        else:
            shown = known[seat][holder]
        offset = base + 3
        for card in shown:
            tensor[offset + FLOH_CARDS[card]] = 1
        if trios:
            put_trios(tensor, base + 3 + len(FLOH_CARDS), tuple(trios))


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
_ANIMAL_KIND = {kind: index for index, kind in enumerate(_ANIMAL_KINDS)}
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


def _animal_counts(tensor: memoryview[float], offset: int, cards: list[Observation]) -> None:
    """Cards of each value (1-22 at offsets 0-21); colours change no rule."""
    for card in cards:
        tensor[offset + int(card["value"]) - 1] += 1


def _animal_fill(observation: Observation, players: int, tensor: memoryview[float]) -> None:
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
    _put(tensor, ANIMAL_CONSTRAINTS, (
        constraints["bat"], constraints["lower_than"] / ANIMAL_VALUES, constraints["parrot"],
        constraints["bear"]))
    decision = observation["decision"]
    if decision["kind"]:
        tensor[ANIMAL_DECISION + _ANIMAL_KINDS.index(decision["kind"])] = 1
    _one_hot(tensor, ANIMAL_DECISION + len(_ANIMAL_KINDS), int(decision["ability"]) - 1)
    tensor[ANIMAL_DECISION + len(_ANIMAL_KINDS) + ANIMAL_VALUES] = decision["copied"]
    _put(tensor, ANIMAL_COUNTS, (observation["put_away_per_player"] / 5,
                                 observation["turn"] / animal_circus.TURN_LIMIT))
    seat = observation["seat"]
    _one_hot(tensor, ANIMAL_ROLES, (observation["current_player"] - seat) % players)
    if observation["previous_player"] >= 0:
        _one_hot(tensor, ANIMAL_ROLES + MAX_SEATS,
                 (observation["previous_player"] - seat) % players)
    _animal_places(observation, players, tensor)


def _animal_places(observation: Observation, players: int, tensor: memoryview[float]) -> None:
    """Each place from the seat: hand and Draw-pile sizes, its Score pile's cards and top."""
    for place, seat in enumerate(_relative(observation["seat"], players)):
        base = ANIMAL_SEATS + place * ANIMAL_PER_SEAT
        pile = observation["score_piles"][seat]["cards"]
        _put(tensor, base, (1, observation["hand_sizes"][seat] / 10,
                            observation["draw_sizes"][seat] / ANIMAL_VALUES, len(pile) / 10))
        _animal_counts(tensor, base + 4, pile)
        if pile:
            tensor[base + 4 + ANIMAL_VALUES + int(pile[-1]["value"]) - 1] = 1


def _animal_state_counts(tensor: memoryview[float], offset: int,
                         cards: Iterable[animal_circus.Card]) -> None:
    """:func:`_animal_counts` of the engine's cards."""
    for card in cards:
        tensor[offset + card.value - 1] += 1


def _animal_state_fill(state: AnimalCircusState, seat: int, tensor: memoryview[float]) -> None:
    """:func:`_animal_fill`'s features, read off the engine's state."""
    for card in state.hands[seat]:
        tensor[ANIMAL_HAND + card.value - 1] += 1
    known = state.known_top[seat]
    if known:
        for slot, card in enumerate(state.draw_piles[seat][:known]):
            tensor[ANIMAL_DRAW_TOP + slot * ANIMAL_VALUES + card.value - 1] = 1
    ring = state.ring
    if ring:
        for card in ring:
            tensor[ANIMAL_RING + card.value - 1] += 1
        tensor[ANIMAL_RING + ANIMAL_VALUES + ring[-1].value - 1] = 1
        tensor[ANIMAL_RING + 2 * ANIMAL_VALUES + ring[0].value - 1] = 1
        tensor[ANIMAL_RING + 3 * ANIMAL_VALUES] = len(ring) / 10
    for card in state.out_of_game:
        tensor[ANIMAL_OUT + card.value - 1] += 1
    player = state.player
    if state.parrot and seat == player:  # the Parrot's cards, for the player only
        _animal_state_counts(tensor, ANIMAL_PARROT, state.drawn)
    bound = state.lower_than()
    tensor[ANIMAL_CONSTRAINTS] = bool(bound)
    tensor[ANIMAL_CONSTRAINTS + 1] = bound / ANIMAL_VALUES
    tensor[ANIMAL_CONSTRAINTS + 2] = state.parrot
    tensor[ANIMAL_CONSTRAINTS + 3] = state.no_draw
    _animal_state_decision(state, tensor)
    players = state.num_players
    tensor[ANIMAL_COUNTS] = animal_circus.PUT_AWAY[players] / 5
    tensor[ANIMAL_COUNTS + 1] = state.turn / animal_circus.TURN_LIMIT
    tensor[ANIMAL_ROLES + (player - seat) % players] = 1
    if state.previous >= 0:
        tensor[ANIMAL_ROLES + MAX_SEATS + (state.previous - seat) % players] = 1
    _animal_state_places(state, seat, tensor)


def _animal_state_decision(state: AnimalCircusState, tensor: memoryview[float]) -> None:
    """The pending decision's kind, ability and whether a Chameleon copied it."""
    pending = state.pending
    if pending is None:
        if not state.end_reason:
            tensor[ANIMAL_DECISION] = 1  # play
        return
    if not state.end_reason:
        tensor[ANIMAL_DECISION + _ANIMAL_KIND[pending.kind]] = 1
    tensor[ANIMAL_DECISION + len(_ANIMAL_KINDS) + pending.ability - 1] = 1
    tensor[ANIMAL_DECISION + len(_ANIMAL_KINDS) + ANIMAL_VALUES] = pending.copied


def _animal_state_places(state: AnimalCircusState, seat: int, tensor: memoryview[float]) -> None:
    """:func:`_animal_places`'s features, read off the engine's state."""
    hands, draws, piles = state.hands, state.draw_piles, state.score_piles
    players = state.num_players
    for place in range(players):
        holder = (seat + place) % players
        base = ANIMAL_SEATS + place * ANIMAL_PER_SEAT
        pile = piles[holder]
        tensor[base] = 1
        tensor[base + 1] = len(hands[holder]) / 10
        tensor[base + 2] = len(draws[holder]) / ANIMAL_VALUES
        tensor[base + 3] = len(pile) / 10
        if pile:  # its cards' counts by value (value v at base + 3 + v), then its top card
            for card in pile:
                tensor[base + 3 + card.value] += 1
            tensor[base + 3 + ANIMAL_VALUES + pile[-1].value] = 1


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


#: Every encoder, by game and variant.
ENCODERS: dict[tuple[str, str], Encoder] = {
    ("flea-circus", "standard"): Encoder("flea-circus", "standard", FLEA_CODES, FLEA_SIZE,
                                         _flea_fill, _flea_state_fill),
    **{("flohcati", variant): Encoder("flohcati", variant, FLOH_CODES, FLOH_SIZE, _floh_fill,
                                      _floh_state_fill)
       for variant in flohcati.GAME.variants},
    ("animal-circus", "standard"): Encoder("animal-circus", "standard", ANIMAL_CODES,
                                           ANIMAL_SIZE, _animal_fill, _animal_state_fill,
                                           animal_word),
}


def encoder(game: str, variant: str | None = None) -> Encoder:
    """The encoder of ``game``'s ``variant`` (its first variant by default)."""
    return ENCODERS[game, variant or get_game(game).default_variant]


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
