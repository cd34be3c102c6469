"""Reiner Knizia's Circus Flohcati: collect flea-circus attractions, push your luck.

Two variants from two rulebooks: ``en`` (``shared/seeds/002_…txt``) and ``es``
(``shared/seeds/004_…txt``), whose action cards and end rules differ. Every
ruling beyond the rulebooks is in ``docs/rules/flohcati.md``.

Cards are short strings: a circus card is ``"<colour>-<value>"`` (``"red-5"``;
the 80 of them are unique), an action card is its kind (``"open-the-deck"``).
A turn is a chain of decisions held in :attr:`FlohcatiState.phase`; decisions
by seats not on turn (giving a card) are ordinary decisions whose
:meth:`~FlohcatiState.current_seat` is the giving seat.

Knowledge: ``known[observer][holder]`` is the set of cards ``observer``
knows for certain to be in ``holder``'s hand. It only ever holds cards that are
there (the property tests check it), and it is what the observation shows of
other hands, so an observation depends on nothing a seat could not know.
"""

from __future__ import annotations

from enum import StrEnum
from itertools import combinations, repeat
from typing import Any

from referee.games.base import Action, Game, State

COLOURS = ("red", "orange", "yellow", "green", "teal",
           "blue", "purple", "pink", "brown", "grey")
VALUES = range(8)
ACTION_KINDS = {
    "en": ("take-a-card", "open-the-deck", "pick-a-card"),
    "es": ("nueva-atraccion", "atraerse", "solicitar"),
}
ACTION_COPIES = 3
CARD_TITLES = {
    "take-a-card": "Take a Card",
    "open-the-deck": "Open the Deck",
    "pick-a-card": "Pick a Card",
    "nueva-atraccion": "Nueva atracción",
    "atraerse": "Atraerse",
    "solicitar": "Solicitar Atracción",
}
TRIO_POINTS = 10
GALA_BONUS = {"en": 10, "es": 0}
# When a trio may be laid: en "during your turn", es only "después de tomar una carta"
# (after taking a card), so an es turn that brought no card lays none.
TRIO_NEEDS_A_CARD = {"en": False, "es": True}
# After a bust, en says "You are not allowed to form a Trio or call a Gala Show either";
# es only says the turn ends ("termina su turno"), and the Gala comes "al final de su turno".
GALA_AFTER_BUST = {"en": False, "es": True}
DECISION_LIMIT = 2000
DIRECTIONS = ("cw", "ccw")


class EndReason(StrEnum):
    """Why a game ends (its words for people are on :data:`GAME`)."""

    GALA = "gala"
    DECK_EMPTY = "deck-empty"
    DECISION_LIMIT = "decision-limit"


ACTION_ORDER = tuple(kind for kinds in ACTION_KINDS.values() for kind in kinds)


# -- cards -------------------------------------------------------------------
def circus_card(colour: str, value: int) -> str:
    return f"{colour}-{value}"


# Every circus card's colour and value, and every card's place in the canonical
# order, looked up rather than parsed: these are on the engine's hot path.
CIRCUS = {circus_card(colour, value): (colour, value) for colour in COLOURS for value in VALUES}
CARD_KEYS = {**{card: (COLOURS.index(colour), value) for card, (colour, value) in CIRCUS.items()},
             **{kind: (len(COLOURS), index) for index, kind in enumerate(ACTION_ORDER)}}

#: The laid trios' snapshot (tuples, by seat) and each trio's value and card messages.
TrioParts = tuple[list[list[tuple[str, ...]]], list[list[tuple[int, tuple[dict[str, Any], ...]]]]]


def is_circus(card: str) -> bool:
    return card in CIRCUS


def colour_of(card: str) -> str:
    return CIRCUS[card][0]


def value_of(card: str) -> int:
    return CIRCUS[card][1]


# The same order as plain ints: sorting compares them much faster than tuples.
CARD_RANKS = {card: rank
              for rank, card in enumerate(sorted(CARD_KEYS, key=CARD_KEYS.__getitem__))}


def sort_cards(cards: Any) -> list[str]:
    return sorted(cards, key=CARD_RANKS.__getitem__)


def full_deck(variant: str) -> list[str]:
    """All 89 cards of a variant, in a fixed order (shuffled by the state's RNG)."""
    deck = [circus_card(colour, value) for colour in COLOURS for value in VALUES]
    for kind in ACTION_KINDS[variant]:
        deck += [kind] * ACTION_COPIES
    return deck


def card_name(card: str) -> str:
    if is_circus(card):
        return f"{value_of(card)}-{colour_of(card)}"
    return CARD_TITLES[card]


def card_message(card: str) -> dict[str, Any]:
    """A card as the ``FlohcatiCard`` message."""
    if is_circus(card):
        return {"kind": "circus", "colour": colour_of(card), "value": value_of(card),
                "code": card}
    return {"kind": card, "code": card}


# Every card's message, made once: observations list many cards at every decision.
# The dicts are shared: read them, never change them.
CARD_MESSAGES = {card: card_message(card) for card in CARD_KEYS}


_card_message = CARD_MESSAGES.__getitem__


def cards_message(cards: Any) -> list[dict[str, Any]]:
    # map over the bound lookup: quicker than a comprehension for a display's few cards.
    return [*map(_card_message, cards)]


# Every card's name, and each display card's "take" label, made once: the legal
# actions name cards at nearly every decision.
CARD_NAMES = {card: card_name(card) for card in CARD_KEYS}
TAKE_CODES = [f"take:{index}" for index in range(len(CARD_KEYS))]  # more than a display holds
TAKE_LABELS = {card: f"take {name} from the display" for card, name in CARD_NAMES.items()}

_new_action = object.__new__


def new_action(code: str, label: str, payload: dict[str, Any]) -> Action:
    """``Action(code, label, payload)``, filled in directly as ``State.emit`` does.

    A frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__``; the display's take actions are made at most decisions.
    """
    action = _new_action(Action)
    fields = action.__dict__
    fields["code"], fields["label"], fields["payload"] = code, label, payload
    return action


def hand_points(hand: Any) -> int:
    """The highest card of each colour in hand, summed."""
    best: dict[str, int] = {}
    for card in hand:
        # One look-up a card: scores are asked of every position a replay shows.
        colour_value = CIRCUS.get(card)
        if colour_value is not None and colour_value[1] > best.get(colour_value[0], 0):
            best[colour_value[0]] = colour_value[1]
    return sum(best.values())


# Each circus card as a one in its value's field of four bits: a hand's sum counts its cards
# of each value (ten at most, one a colour, so no field carries into the next). Adding 5 to
# every field sets a field's top bit exactly where it counts three or more.
VALUE_COUNTS = {card: 1 << 4 * value for card, (_, value) in CIRCUS.items()}
_PLUS_FIVE = sum(5 << 4 * value for value in VALUES)
_TOP_BITS = sum(8 << 4 * value for value in VALUES)


def possible_trios(hand: Any) -> list[tuple[str, ...]]:
    """Every distinct set of three same-value cards in ``hand``, in canonical order."""
    # Most hands asked at a turn's end hold no three of a value: answered by one sum.
    if not (sum(map(VALUE_COUNTS.get, hand, repeat(0))) + _PLUS_FIVE) & _TOP_BITS:
        return []
    by_value: dict[int, list[str]] = {}
    for card in hand:
        if card in CIRCUS:
            by_value.setdefault(CIRCUS[card][1], []).append(card)
    return [trio for value in sorted(by_value) if len(by_value[value]) >= 3
            for trio in combinations(sort_cards(by_value[value]), 3)]


def has_every_colour(hand: Any) -> bool:
    # Fewer cards than colours first: most hands, and no set made of them.
    return len(hand) >= len(COLOURS) and \
        len({CIRCUS[card][0] for card in hand if card in CIRCUS}) == len(COLOURS)


# The method listing each phase's legal actions (by name: a subclass may override it).
ACTIONS_BY_PHASE = {
    "turn": "_turn_actions",
    "nueva": "_turn_actions",
    "open-take": "_take_actions",
    "match": "_match_actions",
    "target": "_target_actions",
    "give": "_give_actions",
    "request": "_request_actions",
    "end-of-turn": "_end_of_turn_actions",
}


class FlohcatiState(State):
    """A game of Circus Flohcati.

    ``hands`` (sets; shown sorted), ``display`` (left to right), ``discard``
    (bottom first), ``trios`` (per seat, lists of three cards), ``deck`` (top
    first) and ``known`` are public attributes so scenario tests can lay out a
    position; after changing them, set ``phase`` and ``player`` to match.
    """

    game_name = "flohcati"

    def __init__(self, players: int, variant: str, seed: int) -> None:
        super().__init__(players, variant, seed)
        self.deck = full_deck(variant)
        self.rng.shuffle(self.deck)
        self.hands: list[set[str]] = [set() for _ in range(players)]
        self.display: list[str] = []
        self.discard: list[str] = []
        self.trios: list[list[tuple[str, ...]]] = [[] for _ in range(players)]
        self.known: list[list[set[str]]] = [[set() for _ in range(players)]
                                            for _ in range(players)]
        self.player = 0
        self.turn = 0
        self.flips = 0
        self.took_card = False  # a card came into the hand of the player on turn, this turn
        self.gala_caller = -1
        self._opponents = [self.opponents(seat) for seat in range(players)]
        self._known_slots = [("known", holder) for holder in range(players)]
        # Observation lists by slot, each with a snapshot of the cards it was made from.
        self._messages: dict[Any, tuple[Any, list[dict[str, Any]]]] = {}
        # And by content: what others know of a hand is mostly the whole hand.
        self._sorted_memo: dict[frozenset[str], list[dict[str, Any]]] = {}
        # The laid trios' snapshot and their (value, card messages) by seat.
        self._trio_memo: TrioParts | None = None
        # Each seat's hand points, with a snapshot of the hand they were counted from.
        self._points: dict[int, tuple[frozenset[str], int]] = {}
        self._new_decision_context()
        self.phase = "turn"

    def _new_decision_context(self) -> None:
        """Forget everything about the action card being carried out."""
        self.action_card = ""
        self.opening = False
        self.giver = -1
        self.requested_colour = ""
        self.direction = ""
        self.match = ""

    # -- queries -----------------------------------------------------------
    def current_seat(self) -> int:
        return self.giver if self.phase == "give" else self.player

    def decision_kind(self) -> str:
        return "" if self.is_terminal() else self.phase

    def prompt(self) -> str:
        return self._reason()

    def opponents(self, seat: int) -> list[int]:
        """The other seats, clockwise from the left neighbour (seat + 1)."""
        return [(seat + step) % self.num_players for step in range(1, self.num_players)]

    def legal_actions(self) -> list[Action]:
        if self.is_terminal():
            return []
        actions: list[Action] = getattr(self, ACTIONS_BY_PHASE[self.phase])()
        return actions

    def _take_actions(self) -> list[Action]:
        # A fresh copy of each card's message: payloads are handed out, never shared.
        return [new_action(TAKE_CODES[index], TAKE_LABELS[card],
                           {"type": "take", "index": index, "card": {**CARD_MESSAGES[card]}})
                for index, card in enumerate(self.display)]

    def _turn_actions(self) -> list[Action]:
        """Take, flip, and in es (after a flip, or with no deck) stop."""
        actions = self._take_actions()
        if self.deck:
            actions.append(new_action("flip", "flip the top card of the deck", {"type": "flip"}))
        if self.variant == "es" and (self.flips or not self.deck):
            actions.append(new_action("stop", "end the turn without taking a card",
                                      {"type": "stop"}))
        return actions

    def _match_actions(self) -> list[Action]:
        return [*self._take_actions(),
                Action("take:match", f"take the matching card {CARD_NAMES[self.match]}",
                       {"type": "take-match", "card": card_message(self.match)}),
                Action("stop", f"take nothing ({CARD_NAMES[self.match]} is discarded)",
                       {"type": "stop"})]

    def _target_actions(self) -> list[Action]:
        return [Action(f"target:{seat}",
                       f"{CARD_TITLES[self.action_card]}: seat {seat} "
                       f"({len(self.hands[seat])} cards)",
                       {"type": "target", "target": seat})
                for seat in self._targets()]

    def _give_actions(self) -> list[Action]:
        return [Action(f"give:{card}", f"give {CARD_NAMES[card]} to seat {self.player}",
                       {"type": "give", "card": card_message(card), "target": self.player})
                for card in self._givable()]

    def _request_actions(self) -> list[Action]:
        directions = DIRECTIONS if self.num_players > 2 else DIRECTIONS[:1]
        names = {"cw": "clockwise", "ccw": "counter-clockwise"}
        return [Action(f"colour:{colour}:{direction}",
                       f"ask for {colour}, going {names[direction]}",
                       {"type": "request", "colour": colour, "direction": direction})
                for colour in COLOURS for direction in directions]

    def _end_of_turn_actions(self) -> list[Action]:
        """Each possible trio, then the last word: "done", or the Gala yes / no."""
        hand = self.hands[self.player]
        trios = possible_trios(hand) if self._may_lay_trios() else []
        actions = [Action(f"trio:{','.join(trio)}",
                          f"lay down a trio of {value_of(trio[0])}s: "
                          + ", ".join(CARD_NAMES[card] for card in trio),
                          {"type": "trio", "cards": cards_message(trio),
                           "value": value_of(trio[0])})
                   for trio in trios]
        if not has_every_colour(hand):
            return [*actions, new_action("done", "end the turn", {"type": "done"})]
        bonus = GALA_BONUS[self.variant]
        return [*actions,
                new_action("gala:yes", f"call the Gala (+{bonus}): the game ends",
                           {"type": "gala", "call": True}),
                new_action("gala:no", "end the turn without calling the Gala",
                           {"type": "gala", "call": False})]

    def _may_lay_trios(self) -> bool:
        """Whether this turn allows trios: in es only if it brought the player a card.

        Depends on public events only (takes, gives, Atraerse are all seen), so
        the prompt may say it.
        """
        return self.took_card or not TRIO_NEEDS_A_CARD[self.variant]

    def _targets(self) -> list[int]:
        """Opponents an action card may be aimed at: those holding cards."""
        return [seat for seat in self.opponents(self.player) if self.hands[seat]]

    def _givable(self) -> list[str]:
        hand = self.hands[self.giver]
        if self.requested_colour:
            hand = {card for card in hand if colour_of(card) == self.requested_colour}
        return sort_cards(hand)

    def _reason(self) -> str:
        """What is decided, by whom and why, in a sentence."""
        if self.is_terminal():
            return f"the game is over ({self.end_reason})"
        seat, phase = self.player, self.phase
        title = CARD_TITLES.get(self.action_card, "")
        if phase == "turn":
            stop = " (or stop)" if self.variant == "es" and (self.flips or not self.deck) else ""
            return f"seat {seat}: take a card from the display or flip{stop}"
        if phase == "nueva":
            return f"seat {seat} (Nueva atracción): flip on, take a face-up card or stop"
        if phase == "match":
            return (f"seat {seat} (Nueva atracción): {CARD_NAMES[self.match]} matches the "
                    "display; take a face-up card or it, or nothing")
        if phase == "open-take":
            return f"seat {seat} (Open the Deck): take a card from the display"
        if phase == "target":
            return f"seat {seat} ({title}): choose an opponent"
        if phase == "give":
            asked = f", {self.requested_colour} asked for" if self.requested_colour else ""
            return f"seat {self.giver}: choose a card to give to seat {seat} ({title}{asked})"
        if phase == "request":
            return f"seat {seat} ({title}): name a colour and a direction"
        if not self._may_lay_trios():
            return f"seat {seat}: end the turn (or call the Gala); no card taken, so no trio"
        return f"seat {seat}: lay down trios, then end the turn (or call the Gala)"

    def observation(self, seat: int) -> dict[str, Any]:
        # current_seat() and decision_kind() spelled out: this runs at every decision.
        phase = self.phase
        giving = phase == "give"
        observation: dict[str, Any] = {
            "seat": seat,
            "variant": self.variant,
            "current_player": self.player,
            "deciding_seat": self.giver if giving else self.player,
            "decision": "" if self.end_reason else phase,
            "action_card": self.action_card,
            "giver": self.giver if giving else -1,
            "receiver": self.player if giving else -1,
            "requested_colour": self.requested_colour,
            "direction": self.direction,
            "reason": self._reason(),
            "hand": self._sorted_messages(("hand", seat), self.hands[seat]),
            "display": cards_message(self.display),
            "discard": self._listed_messages("discard", self.discard),
            "trios": self._trios_messages(),
            "hand_sizes": [*map(len, self.hands)],
            "known_cards": self._known_cards(seat),
            "deck_size": len(self.deck),
            "flips_this_turn": self.flips,
            "turn": self.turn,
            "decisions": len(self.history),
            "gala_bonus": GALA_BONUS[self.variant],
            "colours": list(COLOURS),
            "opening": self.opening,
        }
        if self.match:
            observation["matching_card"] = card_message(self.match)
        return observation

    def observations(self) -> list[dict[str, Any]]:
        """Every seat's observation, its public part made once: each seat's is the
        first's with its own seat, hand and known cards (the keys in the same order)."""
        first = self.observation(0)
        shown = [first]
        for seat in range(1, self.num_players):
            seen = dict(first)
            seen["seat"] = seat
            seen["hand"] = self._sorted_messages(("hand", seat), self.hands[seat])
            seen["known_cards"] = self._known_cards(seat)
            shown.append(seen)
        return shown

    def _sorted_messages(self, slot: Any, cards: set[str]) -> list[dict[str, Any]]:
        """``cards_message(sort_cards(cards))``, remade only when ``cards`` changed.

        Hands and knowledge change at few decisions but are shown at every one.
        The check is by content, not by a flag set in ``apply``, so a position
        changed by hand (scenario tests, shallow copies) is never shown stale.
        The list is a copy: observations are handed out and may be changed.
        """
        entry = self._messages.get(slot)
        if entry is None or entry[0] != cards:
            # The same cards are often shown in other slots: shared by content.
            entry = self._messages[slot] = self._memo_entry(cards)
        return list(entry[1])

    def _listed_messages(self, slot: Any, cards: list[str]) -> list[dict[str, Any]]:
        """``cards_message(cards)`` for a list (the discard pile), remade only when it changed."""
        entry = self._messages.get(slot)
        if entry is None or entry[0] != cards:
            entry = self._messages[slot] = (list(cards), cards_message(cards))
        return list(entry[1])

    def _trios_messages(self) -> list[dict[str, Any]]:
        """The observation's ``trios``: each seat's as a ``FlohcatiTrios`` message.

        Laid trios are shown at every decision after, so their values and card
        messages are remade only when some seat's trios changed (checked by
        content); the dicts and lists are fresh each time all the same
        (observations may be changed).
        """
        trios = self.trios
        if not any(trios):  # no trio laid yet: most decisions of a game
            return [{"trios": []} for _ in trios]
        entry = self._trio_memo
        if entry is None or entry[0] != trios:
            entry = self._trio_memo = self._trio_parts()
        return [{"trios": [{"value": value, "cards": [*cards]} for value, cards in parts]}
                if parts else {"trios": []} for parts in entry[1]]

    def _trio_parts(self) -> TrioParts:
        """A snapshot of :attr:`trios` and each trio's value and card messages, by seat."""
        # Snapshot as tuples: a trio laid out as a list by hand never matches, so never stale.
        snapshot = [[tuple(trio) for trio in laid] for laid in self.trios]
        parts = [[(CIRCUS[trio[0]][1], tuple(cards_message(trio))) for trio in laid]
                 for laid in snapshot]
        return snapshot, parts

    def _known_cards(self, seat: int) -> list[dict[str, Any]]:
        """The observation's ``known_cards``: what ``seat`` knows of every holder's hand (of
        its own: what all others know), in one go.

        :meth:`_sorted_messages` unrolled over the holders: this runs at every
        decision, for 2 to 5 holders. The slot is the holder's, shared by every
        observer: what seats know of a hand is mostly the same public cards (and
        a seat's own known cards are what the others know), so the seat deciding
        next mostly finds the cards the last one was shown.
        """
        known = self.known[seat]
        slots = self._known_slots
        cache = self._messages
        shown = []
        for holder in range(self.num_players):
            cards = known[holder] if holder != seat else self._own_known(seat)
            entry = cache.get(slots[holder])
            if entry is None or entry[0] != cards:
                entry = cache[slots[holder]] = self._memo_entry(cards)
            shown.append({"cards": [*entry[1]]})
        return shown

    def _memo_entry(self, cards: Any) -> tuple[frozenset[str], list[dict[str, Any]]]:
        """A snapshot of ``cards`` and ``cards_message(sort_cards(cards))``.

        The messages are shared by content (never hand them out as they are): the
        same cards are often shown in other slots, by other seats.
        """
        snapshot = frozenset(cards)
        messages = self._sorted_memo.get(snapshot)
        if messages is None:
            messages = self._sorted_memo[snapshot] = cards_message(sort_cards(snapshot))
        return snapshot, messages

    def _own_known(self, seat: int) -> set[str]:
        """What every other seat knows of ``seat``'s hand: the others' knowledge intersected.

        Mostly they all know the same (public) cards: then that set as it is,
        found by comparing rather than intersecting (callers only read it).
        """
        known = self.known
        opponents = self._opponents[seat]
        first = known[opponents[0]][seat]
        for other in opponents:
            if known[other][seat] != first:
                return first.intersection(*[known[other][seat] for other in opponents])
        return first

    def scores(self) -> list[int]:
        return [self._hand_points(seat) + TRIO_POINTS * len(self.trios[seat])
                + (GALA_BONUS[self.variant] if seat == self.gala_caller else 0)
                for seat in range(self.num_players)]

    def _hand_points(self, seat: int) -> int:
        """:func:`hand_points` of ``seat``'s hand, counted again only when it changed
        (checked by content): a replay asks the scores of every position, and a hand
        changes at few of them."""
        hand = self.hands[seat]
        entry = self._points.get(seat)
        if entry is None or entry[0] != hand:
            entry = self._points[seat] = (frozenset(hand), hand_points(hand))
        return entry[1]

    def final_state(self) -> dict[str, Any]:
        return {
            "hands": [sort_cards(hand) for hand in self.hands],
            "trios": [[list(trio) for trio in trios] for trios in self.trios],
            "display": list(self.display),
            "discard": list(self.discard),
            "deck": list(self.deck),
            "matching_card": self.match,
            "gala_caller": self.gala_caller,
            "turns": self.turn,
            "scores": self.scores(),
            "end_reason": self.end_reason,
        }

    def all_cards(self) -> list[str]:
        """Every card wherever it lies; always the 89 cards of the variant."""
        cards = [card for hand in self.hands for card in hand]
        cards += [card for trios in self.trios for trio in trios for card in trio]
        cards += self.display + self.discard + self.deck
        return cards + ([self.match] if self.match else [])

    # -- applying decisions ----------------------------------------------------
    def _apply(self, action: Action) -> None:
        payload = action.payload
        kind = payload["type"]
        if kind == "take":
            self._take_from_display(payload["index"])
        elif kind == "take-match":
            self._take_match()
        elif kind == "flip":
            self._flip_in_turn()
        elif kind == "stop":
            self._stop()
        elif kind == "target":
            self._aim(payload["target"])
        elif kind == "give":
            self._give(payload["card"]["code"])
        elif kind == "request":
            self._request(payload["colour"], payload["direction"])
        elif kind == "trio":
            self._lay_trio(tuple(card["code"] for card in payload["cards"]))
        elif kind == "done":
            self._end_turn()
        else:  # gala
            self._decide_gala(payload["call"])
        if not self.is_terminal() and len(self.history) >= DECISION_LIMIT:
            self.end_reason = EndReason.DECISION_LIMIT.value
            self.emit("end", f"the game ends after {DECISION_LIMIT} decisions",
                      reason=self.end_reason)

    # -- taking and flipping -----------------------------------------------------
    def _take_from_display(self, index: int) -> None:
        card = self.display.pop(index)
        self._gain_publicly(self.player, card)
        self.emit("take", f"seat {self.player} takes {CARD_NAMES[card]} from the display",
                  self.player, card=card, index=index)
        if self.match:  # es: the matching card not taken is discarded
            self._discard_match()
        self._end_of_turn_step()

    def _take_match(self) -> None:
        card, self.match = self.match, ""
        self._gain_publicly(self.player, card)
        self.emit("take", f"seat {self.player} takes the matching card {CARD_NAMES[card]}",
                  self.player, card=card, index=-1)
        self._end_of_turn_step()

    def _stop(self) -> None:
        if self.match:
            self._discard_match()
        self.emit("stop", f"seat {self.player} stops without taking a card", self.player)
        self._end_of_turn_step()

    def _discard_match(self) -> None:
        card, self.match = self.match, ""
        self.discard.append(card)
        self.emit("discard", f"{CARD_NAMES[card]} is discarded", self.player, card=card)

    def _flip(self) -> str:
        card = self.deck.pop(0)
        self.flips += 1
        self.emit("flip", f"seat {self.player} flips {CARD_NAMES[card]}", self.player,
                  card=card, deck_size=len(self.deck))
        return card

    def _duplicates_display(self, card: str) -> bool:
        return colour_of(card) in {colour_of(shown) for shown in self.display}

    def _flip_in_turn(self) -> None:
        """A flip by choice: in the ordinary turn, or during es Nueva atracción."""
        card = self._flip()
        if self.phase == "nueva":
            self._flip_in_nueva(card)
        elif not is_circus(card):
            self.discard.append(card)
            self._carry_out(card)
        elif self._duplicates_display(card):
            self.discard.append(card)
            self.emit("bust", f"{CARD_NAMES[card]} matches the display: seat {self.player} "
                      "is busted", self.player, card=card)
            self._after_bust()
        else:
            self.display.append(card)

    def _after_bust(self) -> None:
        """en: the turn is simply over. es: the end-of-turn step, for the Gala only.

        A bust takes no card, so es offers no trio; the step is asked after
        every es bust, so its count tells nothing of the hand. A bust on the
        last card ends the game at once in both variants (docs/rules/flohcati.md).
        """
        if GALA_AFTER_BUST[self.variant] and self.deck:
            self._end_of_turn_step()
        else:
            self._end_turn()

    def _flip_in_nueva(self, card: str) -> None:
        """Nueva atracción: actions are void, a match is offered rather than busting."""
        if not is_circus(card):
            self.discard.append(card)
            self.emit("void", f"{CARD_TITLES[card]} is discarded without effect",
                      self.player, card=card)
        elif self._duplicates_display(card):
            self.match = card
            self.phase = "match"
        else:
            self.display.append(card)

    # -- action cards --------------------------------------------------------------
    def _carry_out(self, card: str) -> None:
        """An action card flipped in the ordinary way (already on the discard pile)."""
        self.action_card = card
        self.emit("action", f"seat {self.player} carries out {CARD_TITLES[card]}",
                  self.player, card=card)
        if card == "open-the-deck":
            self.opening = True
            self._continue_opening()
        elif card == "nueva-atraccion":
            self.phase = "nueva"
        elif card == "solicitar":
            self.phase = "request"
        else:  # take-a-card, pick-a-card, atraerse: aimed at an opponent
            self._choose_target()

    def _choose_target(self) -> None:
        if self._targets():
            self.phase = "target"
            return
        self.emit("no-effect", f"no opponent holds a card: {CARD_TITLES[self.action_card]} "
                  "has no effect", self.player, card=self.action_card)
        self._after_action()

    def _after_action(self) -> None:
        """An action card is resolved: resume an Open the Deck, else end the turn."""
        self.action_card = "open-the-deck" if self.opening else ""
        self.giver, self.requested_colour, self.direction = -1, "", ""
        if self.opening:
            self._continue_opening()
        else:
            self._end_of_turn_step()

    def _continue_opening(self) -> None:
        """en Open the Deck: flip until a colour repeats or the deck runs out.

        Action cards met on the way are carried out as they come; one needing a
        decision suspends the flipping, and :meth:`_after_action` resumes it.
        """
        while self.deck:
            card = self._flip()
            if is_circus(card) and not self._duplicates_display(card):
                self.display.append(card)
                continue
            self.discard.append(card)
            if is_circus(card):
                self.emit("open-stop", f"{CARD_NAMES[card]} matches the display: "
                          "Open the Deck stops", self.player, card=card)
                break
            if card == "open-the-deck":
                self.emit("no-effect", "a further Open the Deck has no extra effect",
                          self.player, card=card)
                continue
            self.action_card = card
            self.emit("action", f"seat {self.player} carries out {CARD_TITLES[card]}",
                      self.player, card=card)
            if self._targets():
                self.phase = "target"
                return
            self.emit("no-effect", f"no opponent holds a card: {CARD_TITLES[card]} "
                      "has no effect", self.player, card=card)
        self.opening = False
        self.action_card = "open-the-deck"
        if self.display:
            self.phase = "open-take"
        else:
            self._end_of_turn_step()

    def _aim(self, target: int) -> None:
        self.emit("target", f"seat {self.player} aims {CARD_TITLES[self.action_card]} "
                  f"at seat {target}", self.player, target=target, card=self.action_card)
        if self.action_card == "take-a-card":
            self.giver = target
            self.phase = "give"
            return
        card = self.rng.choice(sort_cards(self.hands[target]))
        if self.action_card == "pick-a-card":
            self._move_publicly(target, self.player, card)
            self.emit("pick", f"seat {self.player} picks {CARD_NAMES[card]} from seat "
                      f"{target}", self.player, card=card, source=target)
        else:  # atraerse: only the two seats see the card
            self._move_privately(target, self.player, card)
            self.emit("attract", f"seat {self.player} takes a card from seat {target}",
                      self.player, source=target)
            self.emit("attracted", f"seat {self.player} takes {CARD_NAMES[card]} from seat "
                      f"{target}", self.player, frozenset({self.player, target}),
                      card=card, source=target)
        self._after_action()

    def _request(self, colour: str, direction: str) -> None:
        self.requested_colour, self.direction = colour, direction
        self.emit("request", f"seat {self.player} asks for {colour} ({direction})",
                  self.player, colour=colour, direction=direction)
        step = 1 if direction == "cw" else -1
        for offset in range(1, self.num_players):
            seat = (self.player + step * offset) % self.num_players
            if any(colour_of(card) == colour for card in self.hands[seat]):
                self.giver = seat
                self.phase = "give"
                return
            self.emit("pass", f"seat {seat} has no {colour} card", seat, colour=colour)
        self.emit("no-effect", f"nobody holds {colour}: seat {self.player} receives nothing",
                  self.player, colour=colour)
        self._after_action()

    def _give(self, card: str) -> None:
        giver = self.giver
        self._move_publicly(giver, self.player, card)
        self.emit("give", f"seat {giver} gives {CARD_NAMES[card]} to seat {self.player}",
                  giver, card=card, receiver=self.player)
        self._after_action()

    # -- knowledge -------------------------------------------------------------------
    def _gain_publicly(self, seat: int, card: str) -> None:
        """``seat`` gains a card all see.

        Cards only ever go to the player on turn, so every gain (here and in
        :meth:`_move_privately`) marks the turn as one that took a card: es
        trios need one.
        """
        self.took_card = True
        self.hands[seat].add(card)
        for observer in range(self.num_players):
            if observer != seat:
                self.known[observer][seat].add(card)

    def _move_publicly(self, source: int, seat: int, card: str) -> None:
        self.hands[source].remove(card)
        for observer in range(self.num_players):
            self.known[observer][source].discard(card)
        self._gain_publicly(seat, card)

    def _move_privately(self, source: int, seat: int, card: str) -> None:
        """A card seen by the two seats only (Atraerse).

        The others saw *a* card go, not which: none of the source's cards is
        certain for them any more (keeping the untaken ones would tell them
        which one went).
        """
        self.hands[source].remove(card)
        self.hands[seat].add(card)
        self.took_card = True
        for observer in range(self.num_players):
            if observer in (source, seat):
                self.known[observer][source].discard(card)
            else:
                self.known[observer][source].clear()
        self.known[source][seat].add(card)

    # -- the end of a turn ---------------------------------------------------------------
    def _end_of_turn_step(self) -> None:
        """Trios, one decision each, then "done" or the Gala.

        Always a decision, even with nothing to lay down or call: skipping it
        would tell every seat (through the count of decisions) whether the
        player's hidden hand holds a trio or all ten colours.
        """
        self._new_decision_context()
        self.phase = "end-of-turn"

    def _lay_trio(self, trio: tuple[str, ...]) -> None:
        seat = self.player
        self.hands[seat].difference_update(trio)
        for observer in range(self.num_players):
            self.known[observer][seat].difference_update(trio)
        self.trios[seat].append(tuple(sort_cards(trio)))
        self.emit("trio", f"seat {seat} lays down a trio of {value_of(trio[0])}s", seat,
                  cards=list(trio), value=value_of(trio[0]))

    def _decide_gala(self, call: bool) -> None:
        if not call:
            self._end_turn()
            return
        self.gala_caller = self.player
        self.emit("gala", f"seat {self.player} calls the Gala", self.player,
                  hand=sort_cards(self.hands[self.player]))
        for observer in range(self.num_players):
            if observer != self.player:
                self.known[observer][self.player] = set(self.hands[self.player])
        self.end_reason = EndReason.GALA.value
        self.emit("end", "the game ends with the Gala", reason=self.end_reason)

    def _end_turn(self) -> None:
        """Pass the turn on; once the deck is empty the game ends instead."""
        self.turn += 1
        self.flips = 0
        self.took_card = False
        self._new_decision_context()
        self.phase = "turn"
        if not self.deck:
            self.end_reason = EndReason.DECK_EMPTY.value
            self.emit("end", "the last card has been flipped: the game ends",
                      reason=self.end_reason)
            return
        self.player = (self.player + 1) % self.num_players


GAME = Game(
    name="flohcati",
    title="Circus Flohcati",
    variants=("en", "es"),
    min_players=2,
    max_players=5,
    state_class=FlohcatiState,
    end_reasons={EndReason.GALA: "a player called the Gala",
                 EndReason.DECK_EMPTY: "the deck ran out",
                 EndReason.DECISION_LIMIT: "the decision limit was reached"},
    summary="Flip for flea-circus attractions without repeating a colour; "
            "trios and the Gala.",
)
