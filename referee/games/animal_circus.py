"""Animal Circus: add animals to the Ring, win it when the next player cannot.

Rulebook: ``shared/seeds/003_…txt`` (cards 1-9); cards 10-22 and the further
rulings are the project's own specification. Everything as implemented, each ruling marked by
its source, is in ``docs/rules/animal-circus.md``.

A card is a :class:`Card` ``(value, color)``: the value 1..22 fixes the animal,
the color is the seat whose deck it came from. Colors never change the rules;
they only make every card unique, so tests can account for each one.
"""

from __future__ import annotations

from enum import StrEnum
from functools import lru_cache
from itertools import permutations
from operator import attrgetter
from typing import Any, Callable, ClassVar, NamedTuple

from referee.games.base import Action, Game, State


class Card(NamedTuple):
    """One animal card; tuples order by value first, the canonical hand order."""

    value: int
    color: int


MOLE, MOUSE, TURTLE, RABBIT, BAT, PENGUIN, CAMEL, DOG, CHEETAH, CHAMELEON, PARROT = range(1, 12)
RAT, SEAL, KANGAROO, MONKEY, CROCODILE, OWL, GIRAFFE, BEAR, TIGER, ELEPHANT, LION = range(12, 23)

NAMES = {
    MOLE: "Mole Diver", MOUSE: "Power Mouse", TURTLE: "Jumping Turtle",
    RABBIT: "Rabbit Archer", BAT: "Bungee Bat", PENGUIN: "Magic Penguin",
    CAMEL: "Camel Cyclist", DOG: "Old Dog Musician", CHEETAH: "Cheating Cheetah",
    CHAMELEON: "Chameleon in Disguise", PARROT: "Parrot Ventriloquist",
    RAT: "Sneaky Rat", SEAL: "Seal Juggler", KANGAROO: "Kangaroo Boxer",
    MONKEY: "Acrobat Monkey", CROCODILE: "Crocodile Snapper", OWL: "Owl Fortune-Teller",
    GIRAFFE: "Giraffe Stilt-Walker", BEAR: "Bear Unicyclist", TIGER: "Tiger Hoop-Jumper",
    ELEPHANT: "Elephant Strongman", LION: "Lion King",
}
CARDS_PER_COLOR = 22
PUT_AWAY = {2: 0, 3: 1, 4: 3, 5: 5}
START_HAND = 3
TURN_LIMIT = 2000
SEAL_NEEDS = 16


class EndReason(StrEnum):
    """Why a game ends (its words for people are on :data:`GAME`)."""

    RING_WON = "ring-won"
    TURN_LIMIT = "turn-limit"


# Cards whose ability is not carried out "when played": a Chameleon copies nothing.
NO_WHEN_PLAYED = frozenset({MOLE, MOUSE, TURTLE, DOG, GIRAFFE, CHAMELEON, LION})
# Abilities whose choice is a decision of its own, by decision kind.
TARGET_ABILITIES = frozenset({RABBIT, PENGUIN, CAMEL, RAT, KANGAROO})
DECISION_KINDS = {**{value: "target" for value in TARGET_ABILITIES}, MONKEY: "pile", OWL: "order"}
POINTS = {DOG: -3, GIRAFFE: 3}
# Points by value (index 0 unused): a list lookup, not a dict .get per card.
VALUE_POINTS = [POINTS.get(value, 1) for value in range(CARDS_PER_COLOR + 1)]
# Values whose ability lets them on the Ring whatever the top (beating it or not);
# the Mouse only onto an Elephant.
LET_ON = frozenset({MOLE, TURTLE})
MOUSE_ON_ELEPHANT = LET_ON | {MOUSE}


# "Mole Diver (1)" by value: card names go into most labels and event texts.
VALUE_NAMES = {value: f"{name} ({value})" for value, name in NAMES.items()}


# Texts and seat sets made at every draw, made once for every seat and every
# draw (at most 4 cards): "seat 1 draws 4 card(s)" by seat and count; who alone
# sees a seat's own cards (frozensets: events may share them).
_SEATS = range(max(PUT_AWAY))
DRAW_TEXTS = [[f"seat {seat} draws {count} card(s)" for count in range(5)] for seat in _SEATS]
ONLY = [frozenset({seat}) for seat in _SEATS]
# The other seats in turn order, by player count and seat: the abilities' targets.
OTHER_SEATS = [[tuple((seat + step) % players for step in range(1, players))
                for seat in range(players)] for players in range(max(PUT_AWAY) + 1)]
# The drawer's text of the usual draw, a single card, by its value.
DREW_TEXTS = {value: f"you draw {name}" for value, name in VALUE_NAMES.items()}


def play_text(key: tuple[int, bool, int]) -> str:
    """The text of ``(seat, new_ring, value)``'s play: "seat 2 adds to the Ring Lion King (22)"."""
    seat, new_ring, value = key
    where = ("starts a new Ring with" if new_ring else
             "adds to the bottom of the Ring" if value == MOLE else "adds to the Ring")
    return f"seat {seat} {where} {VALUE_NAMES[value]}"


def card_name(card: Card) -> str:
    return VALUE_NAMES[card.value]


def card_message(card: Card) -> dict[str, Any]:
    """A card as the ``AnimalCard`` message."""
    return {"value": card.value, "color": card.color, "name": NAMES[card.value]}


class MadeOnce(dict[Any, Any]):
    """Each key's value, made by ``make(key)`` the first time the key is asked for.

    For the messages, cards, actions and texts the same few keys ask for all
    game long: a dict lookup instead of building them (or an ``lru_cache``'s
    call) at every decision. The values are shared: read them, never change them.
    """

    def __init__(self, make: Callable[[Any], Any]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: Any) -> Any:
        value = self[key] = self.make(key)
        return value


# Each card's message: observations list many cards at every decision.
CARD_MESSAGES: dict[Card, dict[str, Any]] = MadeOnce(card_message)
# Each seat's deck in value order, made once: a game shuffles a copy (cards are
# immutable, so games may share them).
DECKS = [tuple(Card(value, color) for value in range(1, CARDS_PER_COLOR + 1))
         for color in _SEATS]
# The dict's own lookup, in C (it still calls __missing__): mapped over a pile,
# it beats a comprehension that looks each card up in Python.
_message_of = CARD_MESSAGES.__getitem__


def cards_message(cards: list[Card] | tuple[Card, ...]) -> list[dict[str, Any]]:
    return list(map(_message_of, cards))


# A card's value, taken in C: mapped over piles where a comprehension would be a call.
_value_of = attrgetter("value")
# Each play's text, by seat, new Ring or not, and value: made at every decision.
PLAY_TEXTS: dict[tuple[int, bool, int], str] = MadeOnce(play_text)
# Each ``(value, color)``'s Card: a NamedTuple is slow to make.
CARDS: dict[tuple[int, int], Card] = MadeOnce(lambda key: Card(*key))


def card_from_message(message: dict[str, Any]) -> Card:
    return CARDS[message["value"], message.get("color", 0)]


def pile_points(pile: list[Card]) -> int:
    """1 per Score-pile card, but the Dog costs 3 and the Giraffe brings 3."""
    return sum(map(VALUE_POINTS.__getitem__, map(_value_of, pile)))


def make_play_action(mode: str, card: Card, winner: int, ring_size: int) -> Action:
    """The action playing ``card`` (``mode`` "ring" or "new"); ``ring_size`` only labels a win."""
    if mode == "ring":
        label = f"add {card_name(card)} to the Ring"
        if card.value == MOLE:
            label += " (at the bottom)"
    else:
        label = f"start a new Ring with {card_name(card)}"
    if winner >= 0:
        label += f"; seat {winner} wins the Ring ({ring_size} cards)"
    return Action(f"{mode}:{card.value}", label,
                  {"type": mode, "card": CARD_MESSAGES[card], "ring_winner": winner})


@lru_cache(maxsize=128)
def play_actions(mode: str, winner: int, ring_size: int) -> dict[Card, Action]:
    """The actions playing each card in ``mode``, by card, each made the first time it is asked.

    The same few hundred actions come back all game long, so each is made
    once; shared by every list of legal actions: read them, never change them.
    Those that win a Ring are labelled with its size: the cache is bounded, so
    a long game's Rings of every size cannot grow it without end.
    """
    return MadeOnce(lambda card: make_play_action(mode, card, winner, ring_size))


# The plays that win no Ring, nearly all of them: kept apart from the cache.
PLAIN_ADDS = play_actions("ring", -1, 0)
PLAIN_STARTS = play_actions("new", -1, 0)
_plain_add = PLAIN_ADDS.__getitem__
_plain_start = PLAIN_STARTS.__getitem__


# The actions of the abilities' choices, made once like the play actions (a
# frozen dataclass is slow to make): shared, so read them, never change them.
@lru_cache(maxsize=None)
def target_action(seat: int) -> Action:
    """Choose ``seat`` (Rabbit, Penguin, Camel, Rat, Kangaroo)."""
    return Action(f"target:{seat}", f"choose seat {seat}", {"type": "target", "target": seat})


@lru_cache(maxsize=None)
def pile_action(seat: int, size: int) -> Action:
    """Take from ``seat``'s Draw pile of ``size`` cards (Monkey); the size only labels it."""
    return Action(f"pile:{seat}",
                  f"take the top 2 cards of seat {seat}'s Draw pile ({size} cards)",
                  {"type": "pile", "pile": seat})


@lru_cache(maxsize=4096)
def order_action(order: tuple[Card, ...]) -> Action:
    """Put the top Draw-pile cards back in ``order``, top first (Owl)."""
    values = "-".join(map(str, map(_value_of, order)))
    return Action(f"order:{values}", f"put back, top first: {values}",
                  {"type": "order", "order": cards_message(order)})


def one_per_value(cards: list[Card]) -> list[Card]:
    """The lowest-colored card of each value of sorted ``cards``: colors never change a play.

    Sorted (as hands are kept), a value's lowest color comes first, so a card
    is kept when its value differs from the one before (values start at 1, so
    0 never matches).
    """
    chosen: list[Card] = []
    last = 0
    for card in cards:
        if card.value != last:
            chosen.append(card)
            last = card.value
    return chosen


class Pending(NamedTuple):
    """An ability waiting for the active player's choice.

    A NamedTuple: observations look their decision message up by it (hashed in C).
    """

    ability: int
    copied: bool

    @property
    def kind(self) -> str:
        return DECISION_KINDS[self.ability]


def decision_message(key: tuple[Pending | None, str]) -> dict[str, Any]:
    """The ``AnimalDecision`` of ``(pending ability or None, end reason)``."""
    pending, end_reason = key
    if pending is None:
        return {"kind": "" if end_reason else "play", "ability": 0, "copied": False}
    return {"kind": "" if end_reason else DECISION_KINDS[pending.ability],
            "ability": pending.ability, "copied": bool(pending.copied)}


def constraint_message(key: tuple[int, bool, bool]) -> dict[str, Any]:
    """The ``AnimalConstraints`` of ``(lower_than, parrot, bear)``, without the Parrot's cards.

    The player under a Parrot sees the cards drawn too: a message of their own.
    """
    bound, parrot, bear = key
    return {"bat": bool(bound), "lower_than": bound, "parrot": parrot, "parrot_cards": [],
            "bear": bear}


# An observation's decision and constraints, the same few all game long.
DECISION_MESSAGES: dict[tuple[Pending | None, str], dict[str, Any]] = MadeOnce(decision_message)
CONSTRAINT_MESSAGES: dict[tuple[int, bool, bool], dict[str, Any]] = MadeOnce(constraint_message)


class AnimalCircusState(State):
    """A game of Animal Circus.

    The piles are public attributes so scenario tests can lay out a position
    and then call :meth:`start_turn`: ``hands`` (kept sorted), ``draw_piles``
    (top first), ``put_away`` (unseen, out of the game), ``out_of_game`` (seen,
    out of the game), ``ring`` and ``score_piles`` (bottom first).

    The state keeps what it derives from the piles (the Score piles' points and
    messages, the legal actions) until an action changes them; :meth:`start_turn`
    forgets all of it, so lay a position out by hand only before calling it.
    """

    game_name = "animal-circus"
    # Derived from the piles (:meth:`derive_from_piles`).
    _points: list[int]
    _pile_messages: list[dict[str, Any]]
    _changed_piles: set[int]  # the Score piles changed since the last decision
    _actions: list[Action] | None

    def __init__(self, players: int, variant: str, seed: int) -> None:
        super().__init__(players, variant, seed)
        self.hands: list[list[Card]] = [[] for _ in range(players)]
        self.draw_piles: list[list[Card]] = []
        self.put_away: list[list[Card]] = []
        for color in range(players):
            deck = list(DECKS[color])
            self.rng.shuffle(deck)
            away = PUT_AWAY[players]
            self.put_away.append(deck[:away])
            self.draw_piles.append(deck[away:])
        self.out_of_game: list[Card] = []
        self.ring: list[Card] = []
        self.score_piles: list[list[Card]] = [[] for _ in range(players)]
        # How many top cards of its own Draw pile each seat knows (the Owl).
        self.known_top = [0] * players
        self.player = 0
        self.previous = -1
        self.turn = 0
        self.pending: Pending | None = None
        # This turn: cards drawn, and what the previous card imposed.
        self.drawn: list[Card] = []
        self.no_draw = self.parrot = self.bat_bind = False
        self.score_top_at_start: Card | None = None
        # Set by the card just played, for the next player's turn.
        self.next_no_draw = self.next_parrot = self.next_bat_bind = False
        self.derive_from_piles()
        self.emit("setup", f"each player puts {PUT_AWAY[players]} card(s) away unseen",
                  put_away=PUT_AWAY[players])
        for seat in range(players):
            self._draw(seat, START_HAND)
        self._start_turn()

    # -- queries -----------------------------------------------------------
    def current_seat(self) -> int:
        return self.player

    def decision_kind(self) -> str:
        if self.is_terminal():
            return ""
        return self.pending.kind if self.pending else "play"

    def prompt(self) -> str:
        if self.is_terminal():
            return "the game is over"
        if self.pending is None:
            return self._play_prompt()
        ability = NAMES[self.pending.ability] + (" (copied by the Chameleon)"
                                                 if self.pending.copied else "")
        return {
            RABBIT: f"{ability}: choose the Score pile to take the top card from",
            PENGUIN: f"{ability}: choose a player to take a random Hand card from",
            CAMEL: f"{ability}: choose a player to take the top 2 Score-pile cards from",
            RAT: f"{ability}: choose a player to swap Score-pile top cards with",
            KANGAROO: f"{ability}: choose a player whose random Hand card goes under the Ring",
            MONKEY: f"{ability}: choose a Draw pile to take the top 2 cards from",
            OWL: f"{ability}: choose the order of your top Draw-pile cards (top first)",
        }[self.pending.ability]

    def _play_prompt(self) -> str:
        if not self.ring:
            return "Play a card to start a new Ring"
        text = f"Play a card: add it to the Ring (top: {card_name(self.ring[-1])})"
        if self.lower_than():
            text += f", lower than {self.lower_than()}"
        if self.parrot:
            text += ", one you drew this turn (Parrot)"
        return text + ", or start a new Ring if you need not add"

    def lower_than(self) -> int:
        """The value an added card must be below (a Bat, or a copied Bat); 0 if none."""
        if not self.ring:
            return 0
        top = self.ring[-1].value
        return top if top == BAT or self.bat_bind else 0

    def legal_actions(self) -> list[Action]:
        """Listed once per position (``apply`` forgets them); a fresh list at each call."""
        actions = self._actions
        if actions is None:
            if self.end_reason:
                actions = []
            elif self.pending is None:
                actions = self._play_actions()
            else:
                actions = [*map(self._option_action, self._options(self.pending.ability))]
            self._actions = actions
        return list(actions)

    def _play_actions(self) -> list[Action]:
        """The plays open to the active player (:meth:`_plays`), each with the first Ring
        its play wins.

        Starting a new Ring gives the Ring on the table to the previous player;
        a Mouse added on an Elephant, and a Seal added while the Score pile's
        top at the turn's start was 16 or more, win it (themselves included)
        for the player. A Seal starting a Ring wins its own one-card Ring too:
        the first Ring it wins when the table is empty.
        """
        adds, news = self._plays()
        size = len(self.ring)
        winning = self._winning_adds() if self.ring else ()
        if winning:
            wins = play_actions("ring", self.player, size + 1)
            actions = [wins[card] if card.value in winning else _plain_add(card)
                       for card in adds]
        else:
            actions = [*map(_plain_add, adds)]
        if self.ring and self.previous >= 0:
            return actions + [*map(play_actions("new", self.previous, size).__getitem__, news)]
        if self._seal_wins():
            seal_wins = play_actions("new", self.player, 1)
            return actions + [seal_wins[card] if card.value == SEAL else _plain_start(card)
                              for card in news]
        return actions + [*map(_plain_start, news)]

    def _winning_adds(self) -> tuple[int, ...]:
        """The values of the cards that, added to the Ring, win it for the player.

        Both at once when a Chameleon's copied Bat lets a Seal under an Elephant.
        """
        mouse = (MOUSE,) if self.ring[-1].value == ELEPHANT else ()
        return mouse + (SEAL,) if self._seal_wins() else mouse

    def _seal_wins(self) -> bool:
        """True if a Seal played now wins: the Score pile's top at the turn's start is 16+."""
        top = self.score_top_at_start
        return top is not None and top.value >= SEAL_NEEDS

    def _plays(self) -> tuple[list[Card], list[Card]]:
        """The cards the player may add to the Ring, and those that may start a new one.

        A player who can beat the top (higher, or lower under a Bat) must add
        a card: a beating one or one whose ability lets it on. Otherwise they
        may add such a card or start a new Ring with any card. Playable are the
        Hand's cards, under a Parrot only those drawn this turn; one per value
        (:func:`one_per_value`, done in the same pass: listed at every decision).
        """
        hand = self.hands[self.player]
        cards = [card for card in hand if card in self.drawn] if self.parrot else hand
        if not self.ring:
            return [], one_per_value(cards)
        top = self.ring[-1].value
        bound = top if top == BAT or self.bat_bind else 0  # lower_than(), the top at hand
        let_on = MOUSE_ON_ELEPHANT if top == ELEPHANT else LET_ON
        chosen: list[Card] = []
        adds: list[Card] = []
        beaten = False
        last = 0
        for card in cards:
            value = card.value
            if value == last:
                continue
            last = value
            chosen.append(card)
            if (value < bound) if bound else (value > top):  # beats the top
                beaten = True
                adds.append(card)
            elif value in let_on:
                adds.append(card)
        return adds, [] if beaten else chosen

    def _options(self, ability: int) -> list[Any]:
        """The choices of an ability: seats, or (Owl) orders of the top cards."""
        me = self.player
        others = OTHER_SEATS[self.num_players][me]
        # The seats whose pile is not empty, filtered in C (a comprehension is a call).
        scored = [*filter(self.score_piles.__getitem__, others)]
        if ability == RABBIT:
            return scored or ([me] if self.score_piles[me] else [])
        if ability in (PENGUIN, KANGAROO):
            return [*filter(self.hands.__getitem__, others)]
        if ability == CAMEL:
            return scored
        if ability == RAT:
            return scored if self.score_piles[me] else []
        if ability == MONKEY:
            return [*filter(self.draw_piles.__getitem__, range(self.num_players))]
        top = self.draw_piles[me][:3]  # OWL: orders sorted by value, not by the pile
        return sorted(permutations(top)) if top else []

    def _option_action(self, option: Any) -> Action:
        ability = self.pending.ability if self.pending else 0
        if ability == OWL:
            return order_action(option)
        if ability == MONKEY:
            return pile_action(option, len(self.draw_piles[option]))
        return target_action(option)

    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` sees; the Score piles' part is shared until a pile changes.

        Made at every decision, so its parts are spelt out here rather than
        asked of helpers (a call costs as much as building a small list): card
        lists are :func:`cards_message`'s map, the decision and the constraints
        messages made once (:data:`DECISION_MESSAGES`, :data:`CONSTRAINT_MESSAGES`).
        """
        if self._changed_piles:
            self._update_scores()
        draw_pile = self.draw_piles[seat]
        known = self.known_top[seat]
        bound = self.lower_than()
        if self.parrot and seat == self.player:  # the Parrot's cards, for the player only
            constraints = {"bat": bool(bound), "lower_than": bound, "parrot": True,
                           "parrot_cards": [*map(_message_of, self.drawn)], "bear": self.no_draw}
        else:
            constraints = CONSTRAINT_MESSAGES[bound, self.parrot, self.no_draw]
        return {
            "seat": seat,
            "current_player": self.player,
            "previous_player": self.previous,
            "hand": [*map(_message_of, self.hands[seat])],
            "draw_size": len(draw_pile),
            "known_draw_top": [*map(_message_of, draw_pile[:known])] if known else [],
            "ring": [*map(_message_of, self.ring)],
            "score_piles": self._pile_messages,
            "hand_sizes": [*map(len, self.hands)],
            "draw_sizes": [*map(len, self.draw_piles)],
            "out_of_game": [*map(_message_of, self.out_of_game)],
            "put_away_per_player": PUT_AWAY[self.num_players],
            "constraints": constraints,
            "decision": DECISION_MESSAGES[self.pending, self.end_reason],
            "scores": self._points,
            "turn": self.turn,
        }

    def scores(self) -> list[int]:
        if self._changed_piles:
            self._update_scores()
        return list(self._points)

    def _update_scores(self) -> None:
        """Count and list again the Score piles that changed, into new lists.

        New lists, not changed ones: observations already handed out share
        the old ones.
        """
        points, messages = list(self._points), list(self._pile_messages)
        for seat in self._changed_piles:
            pile = self.score_piles[seat]
            points[seat] = pile_points(pile)
            messages[seat] = {"cards": cards_message(pile)}
        self._points, self._pile_messages = points, messages
        self._changed_piles = set()

    def _score_piles_changed(self, *seats: int) -> None:
        """Called by every move of a Score-pile card, with the seats whose piles it changed."""
        self._changed_piles.update(seats)

    def final_state(self) -> dict[str, Any]:
        def seats(piles: list[list[Card]]) -> list[list[dict[str, Any]]]:
            return [cards_message(pile) for pile in piles]
        return {
            "hands": seats(self.hands),
            "draw_piles": seats(self.draw_piles),
            "put_away": seats(self.put_away),
            "out_of_game": cards_message(self.out_of_game),
            "ring": cards_message(self.ring),
            "score_piles": seats(self.score_piles),
            "scores": self.scores(),
            "turns": self.turn,
            "end_reason": self.end_reason,
        }

    def all_cards(self) -> list[Card]:
        """Every card wherever it is; each of the 22 × players exactly once."""
        cards = [*self.out_of_game, *self.ring]
        for piles in (self.hands, self.draw_piles, self.put_away, self.score_piles):
            for pile in piles:
                cards += pile
        return cards

    # -- turns ---------------------------------------------------------------
    def start_turn(self) -> None:
        """Begin the turn of :attr:`player`: draw, then await the play.

        A player left without a card cannot play: the previous player wins the
        Ring and the turn passes, until someone can play or the game ends.
        Public for positions laid out by hand: it forgets what was derived
        from the piles before.
        """
        self.derive_from_piles()
        self._start_turn()

    def derive_from_piles(self) -> None:
        """Make again what the state keeps derived from its piles, as the piles are now.

        The Score piles' points and messages (observations show them at every
        decision, but most plays change no Score pile) and the legal actions.
        For a position laid out by hand (:meth:`start_turn`, a search's sample).
        """
        self._points = [pile_points(pile) for pile in self.score_piles]
        self._pile_messages = [{"cards": cards_message(pile)} for pile in self.score_piles]
        self._changed_piles = set()
        self._actions = None

    def _start_turn(self) -> None:
        self._actions = None
        while True:
            seat = self.player
            pile = self.score_piles[seat]
            self.score_top_at_start = pile[-1] if pile else None
            self.no_draw, self.next_no_draw = self.next_no_draw, False
            parrot, self.next_parrot = self.next_parrot, False
            self.bat_bind, self.next_bat_bind = self.next_bat_bind, False
            if self.no_draw:
                self.drawn = []
                self.emit("no-draw", f"seat {seat} draws nothing (Bear)", seat)
            else:
                self.drawn = self._draw(seat, 1 if len(self.hands[seat]) >= 2 else 4)
            self.parrot = parrot and bool(self.drawn)
            if self.hands[seat]:
                return
            self.emit("no-card", f"seat {seat} has no card to play", seat)
            self._win_ring(self.previous)
            if not self._advance():
                return

    def _advance(self) -> bool:
        """Close the turn; pass it on unless the game ends. True if it goes on.

        Running out of cards is no ending of its own: the next player, unable
        to play, hands the Ring to the one who played last, and that win ends
        the game (the rulebook's FAQ), so the last Ring scores too.
        """
        self.pending = None
        self.turn += 1
        if self.end_reason:  # is_terminal(), spelt out: checked at every turn
            return False
        if self.turn >= TURN_LIMIT:
            self._end(EndReason.TURN_LIMIT, f"the game is stopped after {TURN_LIMIT} turns")
            return False
        self.previous, self.player = self.player, (self.player + 1) % self.num_players
        return True

    def _end_turn(self) -> None:
        if self._advance():
            self._start_turn()

    def _end(self, reason: EndReason, text: str) -> None:
        self.end_reason = reason.value   # the plain string, as in every event's data
        self.emit("end", f"the game ends: {text}", reason=self.end_reason, scores=self.scores())

    # -- rules ---------------------------------------------------------------
    def _apply(self, action: Action) -> None:
        self._actions = None
        payload = action.payload
        kind = payload["type"]
        if kind == "ring" or kind == "new":
            card = payload["card"]  # one of ours: card_from_message, without its call
            self._play(CARDS[card["value"], card["color"]], kind == "new")
            return
        ability = self.pending.ability if self.pending else 0
        self.pending = None
        if kind == "order":
            option: Any = tuple(card_from_message(card) for card in payload["order"])
        else:
            option = payload.get("target", payload.get("pile"))
        self._choose(ability, option)
        self._end_turn()

    def _play(self, card: Card, new_ring: bool) -> None:
        """Put the card on the Ring (or start a new one), then carry out its ability."""
        seat = self.player
        self.hands[seat].remove(card)
        mouse_wins = (not new_ring and card.value == MOUSE and self.ring[-1].value == ELEPHANT)
        self.emit("play", PLAY_TEXTS[seat, new_ring, card.value], seat,
                  card=CARD_MESSAGES[card], new_ring=new_ring)
        if new_ring:
            ended = self._win_ring(self.previous)
            self.ring = [card]
            if ended:  # the card stays on the new Ring; its ability is not carried out
                self._end_turn()
                return
        elif card.value == MOLE:
            self.ring.insert(0, card)
        else:
            self.ring.append(card)
        if mouse_wins:
            self._win_ring(seat)
            self._end_turn()
        elif self._carry_out(card.value, copied=False):
            self._end_turn()

    def _win_ring(self, seat: int) -> bool:
        """``seat`` wins the Ring onto their Score pile; True if that ends the game.

        Winning an empty Ring is not winning: nothing happens.
        """
        if not self.ring or seat < 0:
            return False
        won, self.ring = self.ring, []
        self.score_piles[seat].extend(won)
        self._score_piles_changed(seat)
        self.emit("win-ring", f"seat {seat} wins the Ring ({len(won)} cards)", seat,
                  cards=cards_message(won))
        if not all(self.draw_piles):
            self._end(EndReason.RING_WON, f"seat {seat} won the Ring while a Draw pile is empty")
            return True
        return False

    def _carry_out(self, ability: int, copied: bool) -> bool:
        """Carry out an ability; False while a choice of the player is pending."""
        if ability in DECISION_KINDS:
            options = self._options(ability)
            if not options:
                self.emit("no-effect", f"{NAMES[ability]}: nothing to do", self.player,
                          ability=ability)
                return True
            if ability == OWL:
                self._look(len(options[0]))
            # Asked even when only one option is legal: every choice is a decision.
            self.pending = Pending(ability, copied)
            # Listed now, with the options at hand: nothing moves before the choice.
            self._actions = [*map(self._option_action, options)]
            return False
        effect = self._EFFECTS.get(ability) if ability != BAT or copied else None
        if effect is None:
            return True
        return effect(self) is not False  # only the Chameleon may leave a copied choice pending

    def _choose(self, ability: int, option: Any) -> None:
        """Carry out an ability with the player's choice (a seat, or an order)."""
        self._CHOICES[ability](self, option)

    # -- the abilities ---------------------------------------------------------
    def _rabbit(self, seat: int) -> None:
        card = self.score_piles[seat].pop()
        self._score_piles_changed(seat)
        self._give(self.player, [card])
        self.emit("rabbit", f"seat {self.player} takes {card_name(card)} from seat {seat}'s "
                  "Score pile into their Hand", self.player, target=seat, card=card_message(card))

    def _penguin(self, seat: int) -> None:
        card = self.rng.choice(self.hands[seat])
        self.hands[seat].remove(card)
        self._give(self.player, [card])
        self.emit("penguin", f"seat {self.player} takes a random Hand card from seat {seat}",
                  self.player, target=seat)
        self.emit("penguin-card", f"the card taken is {card_name(card)}", self.player,
                  frozenset({self.player, seat}), target=seat, card=card_message(card))

    def _camel(self, seat: int) -> None:
        pile = self.score_piles[seat]
        moved = pile[-2:]
        del pile[-len(moved):]
        self.score_piles[self.player].extend(moved)
        self._score_piles_changed(seat, self.player)
        self.emit("camel", f"seat {self.player} moves {len(moved)} card(s) from seat {seat}'s "
                  "Score pile onto their own", self.player, target=seat,
                  cards=cards_message(moved))

    def _cheetah(self) -> None:
        """The two cards are turned over together: the Draw pile's second card ends on top."""
        moved = self._take_top(self.player, 2)
        self.score_piles[self.player].extend(moved)
        self._score_piles_changed(self.player)
        self.emit("cheetah", f"seat {self.player} puts {len(moved)} Draw-pile card(s) on "
                  "their Score pile", self.player, cards=cards_message(moved))

    def _chameleon(self) -> bool:
        pile = self.score_piles[self.player]
        if not pile or pile[-1].value in NO_WHEN_PLAYED:
            self.emit("no-effect", "Chameleon: nothing to copy", self.player, ability=CHAMELEON)
            return True
        copied = pile[-1].value
        self.emit("copy", f"the Chameleon copies {card_name(pile[-1])}", self.player,
                  card=card_message(pile[-1]))
        return self._carry_out(copied, copied=True)

    def _copied_bat(self) -> None:
        self.next_bat_bind = True

    def _parrot(self) -> None:
        self.next_parrot = True

    def _rat(self, seat: int) -> None:
        mine, theirs = self.score_piles[self.player], self.score_piles[seat]
        mine[-1], theirs[-1] = theirs[-1], mine[-1]
        self._score_piles_changed(self.player, seat)
        self.emit("rat", f"seat {self.player} swaps Score-pile tops with seat {seat}",
                  self.player, target=seat, got=card_message(mine[-1]),
                  gave=card_message(theirs[-1]))

    def _seal(self) -> None:
        """Wins the Ring if the Score pile's top at the turn's start was 16 or more."""
        if self._seal_wins():
            self._win_ring(self.player)

    def _kangaroo(self, seat: int) -> None:
        card = self.rng.choice(self.hands[seat])
        self.hands[seat].remove(card)
        self.ring.insert(0, card)
        self.emit("kangaroo", f"{card_name(card)} from seat {seat}'s Hand goes under the Ring",
                  self.player, target=seat, card=card_message(card))

    def _monkey(self, seat: int) -> None:
        taken = self._take_top(seat, 2)
        self._give(self.player, taken)
        self.emit("monkey", f"seat {self.player} takes {len(taken)} card(s) from seat {seat}'s "
                  "Draw pile", self.player, pile=seat, count=len(taken))
        self.emit("monkey-cards", f"you take {', '.join(map(card_name, taken))}", self.player,
                  frozenset({self.player}), pile=seat, cards=cards_message(taken))

    def _crocodile(self) -> None:
        if len(self.ring) < 2:
            return
        card = self.ring.pop(0)
        self.score_piles[self.player].append(card)
        self._score_piles_changed(self.player)
        self.emit("crocodile", f"seat {self.player} takes {card_name(card)} from the bottom "
                  "of the Ring", self.player, card=card_message(card))

    def _look(self, count: int) -> None:
        seat = self.player
        self.known_top[seat] = max(self.known_top[seat], count)
        self.emit("owl", f"seat {seat} looks at the top {count} card(s) of their Draw pile", seat,
                  count=count)
        self.emit("owl-cards", "you see (top first) "
                  + ", ".join(map(card_name, self.draw_piles[seat][:count])), seat,
                  frozenset({seat}), cards=cards_message(self.draw_piles[seat][:count]))

    def _owl_order(self, order: tuple[Card, ...]) -> None:
        pile = self.draw_piles[self.player]
        pile[:len(order)] = order
        self.emit("owl-order", "you put back (top first) " + ", ".join(map(card_name, order)),
                  self.player, frozenset({self.player}), cards=cards_message(order))

    def _bear(self) -> None:
        self.next_no_draw = True

    def _tiger(self) -> None:
        for step in range(1, self.num_players):
            seat = (self.player + step) % self.num_players
            for card in self._take_top(seat, 1):
                self.out_of_game.append(card)
                self.emit("tiger", f"seat {seat} puts {card_name(card)} out of the game", seat,
                          card=card_message(card))

    def _elephant(self) -> None:
        """Turned over together, as for the Cheetah: the Draw pile's top card ends lowest."""
        moved = self._take_top(self.player, 2)
        self.ring[:0] = moved
        self.emit("elephant", f"seat {self.player} puts {len(moved)} Draw-pile card(s) under "
                  "the Ring", self.player, cards=cards_message(moved))

    # The abilities by card value, looked up at each play (a table built once,
    # not a dict of bound methods per play). A played Bat binds only by its
    # place on the Ring; as _copied_bat, it is for a Chameleon's copy.
    _EFFECTS: ClassVar[dict[int, Callable[[AnimalCircusState], bool | None]]] = {
        BAT: _copied_bat, CHEETAH: _cheetah, CHAMELEON: _chameleon, PARROT: _parrot,
        SEAL: _seal, CROCODILE: _crocodile, BEAR: _bear, TIGER: _tiger, ELEPHANT: _elephant,
    }
    _CHOICES: ClassVar[dict[int, Callable[[AnimalCircusState, Any], None]]] = {
        RABBIT: _rabbit, PENGUIN: _penguin, CAMEL: _camel, RAT: _rat,
        KANGAROO: _kangaroo, MONKEY: _monkey, OWL: _owl_order,
    }

    # -- moving cards ------------------------------------------------------------
    def _take_top(self, seat: int, count: int) -> list[Card]:
        """Remove up to ``count`` cards from the top of a Draw pile."""
        pile = self.draw_piles[seat]
        taken = pile[:count]
        del pile[:count]  # in place: copying the rest of the pile costs more
        if self.known_top[seat]:
            self.known_top[seat] = max(0, self.known_top[seat] - len(taken))
        return taken

    def _give(self, seat: int, cards: list[Card]) -> None:
        """Add to a Hand, kept sorted (in place: the cards are unique, so the order is)."""
        hand = self.hands[seat]
        hand += cards
        hand.sort()

    def _draw(self, seat: int, count: int) -> list[Card]:
        """Draw at the start of a turn: a public count, the cards for the drawer only."""
        drawn = self._take_top(seat, count)
        self._give(seat, drawn)
        got = len(drawn)
        self.emit("draw", DRAW_TEXTS[seat][got], seat, count=got)
        if got == 1:  # the usual draw: the text made once per card value
            card = drawn[0]
            self.emit("drew", DREW_TEXTS[card.value], seat, ONLY[seat],
                      cards=[CARD_MESSAGES[card]])
        elif drawn:
            self.emit("drew", "you draw " + ", ".join([VALUE_NAMES[card.value] for card in drawn]),
                      seat, ONLY[seat], cards=cards_message(drawn))
        return drawn


GAME = Game(
    name="animal-circus",
    title="Animal Circus",
    variants=("standard",),
    min_players=2,
    max_players=5,
    state_class=AnimalCircusState,
    end_reasons={EndReason.RING_WON: "the Ring was won while a Draw pile was empty",
                 EndReason.TURN_LIMIT: "the turn limit was reached"},
    summary="Add ever higher animals to the Ring; the player before one who cannot wins it.",
)
