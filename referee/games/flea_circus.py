"""Reiner Knizia's Amazing Flea Circus: aliens raid the Earth for loot.

Rulebook: ``shared/seeds/000_…txt``; every ruling beyond it is in
``docs/rules/flea-circus.md``. Cards are short strings: the saucer kinds
``"A"``..``"G"`` and the action cards ``"numbers"`` (In Numbers There Is
Strength), ``"counterattack"``, ``"recruitment"`` and ``"general"``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from referee.games.base import Action, Game, State

SAUCER_VALUES = {"A": 2, "B": 2, "C": 3, "D": 3, "E": 3, "F": 4, "G": 4}
SAUCERS_PER_KIND = 4
ACTION_CARD_COUNTS = {"numbers": 12, "counterattack": 7, "recruitment": 6, "general": 2}
CARD_ORDER = (*SAUCER_VALUES, *ACTION_CARD_COUNTS)
CARD_NAMES = {
    "numbers": "In Numbers There Is Strength",
    "counterattack": "Animal Counterattack",
    "recruitment": "Recruitment",
    "general": "General Saving the Earth",
    **{kind: f"saucer {kind} ({value})" for kind, value in SAUCER_VALUES.items()},
}
LOOT_TOKENS = 36
# The other seats of each seat at each table size, clockwise from the left neighbour.
OTHERS = {players: tuple(tuple((seat + step) % players for step in range(1, players))
                         for seat in range(players)) for players in range(2, 6)}
HAND_SIZE = 5
COUNTERATTACK_LOOT = 2
TURN_LIMIT = 1000


class EndReason(StrEnum):
    """Why a game ends (its words for people are on :data:`GAME`)."""

    EARTH_EMPTY = "earth-empty"
    NO_CARDS = "no-cards"
    TURN_LIMIT = "turn-limit"


def full_deck() -> list[str]:
    """All 55 cards, in a fixed order (shuffled by the state's RNG)."""
    deck = [kind for kind in SAUCER_VALUES for _ in range(SAUCERS_PER_KIND)]
    for kind, count in ACTION_CARD_COUNTS.items():
        deck += [kind] * count
    return deck


def card_message(card: str) -> dict[str, Any]:
    """A card as the ``FleaCard`` message."""
    if card in SAUCER_VALUES:
        return {"kind": "saucer", "saucer": card, "value": SAUCER_VALUES[card]}
    return {"kind": card}


# On the engine's hot path, cards' messages, places in the order and play actions are
# looked up, made once here. The dicts are shared: read them, never change them.
CARD_MESSAGES = {card: card_message(card) for card in CARD_ORDER}
CARD_RANK = {card: rank for rank, card in enumerate(CARD_ORDER)}


def sort_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=CARD_RANK.__getitem__)


def _play_action(card: str, count: int) -> Action:
    code = f"play:{card}" + (f":{count}" if card == "numbers" else "")
    label = f"play {count} × {CARD_NAMES[card]}" if card == "numbers" \
        else f"play {CARD_NAMES[card]}"
    return Action(code, label, {"type": "play", "card": CARD_MESSAGES[card], "count": count})


# The play actions of each card: one, or for "numbers" one per count (1, 2, ...).
PLAY_ACTIONS = {card: tuple(_play_action(card, count) for count in
                            (range(1, ACTION_CARD_COUNTS["numbers"] + 1)
                             if card == "numbers" else (1,)))
                for card in CARD_ORDER}
# Each play action's card and count, by code: what applying it reads.
PLAYS = {action.code: (card, action.payload["count"])
         for card, actions in PLAY_ACTIONS.items() for action in actions}
# The play actions of each hand (as its sorted cards): a hand holds at most five of
# eleven kinds, so there are a few thousand, and searches list them millions of times.
_HAND_ACTIONS: dict[tuple[str, ...], tuple[Action, ...]] = {}


def hand_actions(hand: list[str]) -> tuple[Action, ...]:
    """The play actions of ``hand``, in the card order; ``numbers`` once per count held."""
    key = tuple(sorted(hand))
    actions = _HAND_ACTIONS.get(key)
    if actions is None:
        listed: list[Action] = []
        for card in sorted(set(hand), key=CARD_RANK.__getitem__):
            listed += PLAY_ACTIONS[card][:hand.count(card)] if card == "numbers" \
                else PLAY_ACTIONS[card][:1]
        actions = _HAND_ACTIONS[key] = tuple(listed)
    return actions


class FleaCircusState(State):
    """A game of Amazing Flea Circus.

    ``hands``, ``piles`` (bottom first), ``loot``, ``earth`` and ``deck`` (top
    first) are public attributes so scenario tests can lay out a position.
    """

    game_name = "flea-circus"

    def __init__(self, players: int, variant: str, seed: int) -> None:
        super().__init__(players, variant, seed)
        self.deck = full_deck()
        self.rng.shuffle(self.deck)
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.piles: list[list[str]] = [[] for _ in range(players)]
        self.loot = [0] * players
        self.earth = LOOT_TOKENS
        self.player = 0
        self.turn = 0
        self.choosing_target = False
        for seat in range(players):
            self._draw_up(seat)
        self._begin_turn()

    # -- queries -----------------------------------------------------------
    def current_seat(self) -> int:
        return self.player

    def decision_kind(self) -> str:
        return "target" if self.choosing_target else "play"

    def prompt(self) -> str:
        if self.choosing_target:
            return "Animal Counterattack: choose a player to take 2 loot from"
        return "Play a card (or several In Numbers There Is Strength cards)"

    def legal_actions(self) -> list[Action]:
        if self.end_reason:
            return []
        if self.choosing_target:
            return [Action(f"target:{seat}",
                           f"take loot from seat {seat} ({self.loot[seat]} loot)",
                           {"type": "target", "target": seat})
                    for seat in self._others(self.player)]
        return list(hand_actions(self.hands[self.player]))

    def skipping(self) -> list[bool]:
        return [not hand and not self.deck for hand in self.hands]

    def observation(self, seat: int) -> dict[str, Any]:
        return {
            "seat": seat,
            "current_player": self.player,
            "hand": [CARD_MESSAGES[card] for card in sort_cards(self.hands[seat])],
            "piles": [{"cards": [CARD_MESSAGES[card] for card in pile]} for pile in self.piles],
            "loot": list(self.loot),
            "earth": self.earth,
            "deck_size": len(self.deck),
            "hand_sizes": [len(hand) for hand in self.hands],
            "skipping": self.skipping(),
            "turn": self.turn,
        }

    def scores(self) -> list[int]:
        return list(self.loot)

    def final_state(self) -> dict[str, Any]:
        return {
            "hands": [sort_cards(hand) for hand in self.hands],
            "piles": [list(pile) for pile in self.piles],
            "loot": list(self.loot),
            "earth": self.earth,
            "deck": list(self.deck),
            "turns": self.turn,
        }

    # -- rules ---------------------------------------------------------------
    def _apply(self, action: Action) -> None:
        play = PLAYS.get(action.code)
        if play:
            self._play(*play)
            return
        self.choosing_target = False
        self._take_from_seat(action.payload["target"], COUNTERATTACK_LOOT)
        self._end_turn()

    def _play(self, card: str, count: int) -> None:
        seat = self.player
        hand = self.hands[seat]
        for _ in range(count):
            hand.remove(card)
        self.piles[seat] += [card] * count
        if self.records_events:
            self.emit("play", f"seat {seat} plays {count} × {CARD_NAMES[card]}", seat,
                      card=card, count=count)
        if card in SAUCER_VALUES:
            self._resolve_saucer(card)
        elif card == "numbers":
            self._take_from_earth(count)
        elif card == "recruitment":
            self._take_from_earth(self._recruitment_count())
        elif card == "general":
            self._resolve_general()
        else:  # counterattack: the target is a decision of its own
            self.choosing_target = True
            return
        self._end_turn()

    def _others(self, seat: int) -> tuple[int, ...]:
        """The other seats, clockwise from the left neighbour."""
        return OTHERS[self.num_players][seat]

    def _resolve_saucer(self, kind: str) -> None:
        piles = self.piles
        for other in self._others(self.player):
            pile = piles[other]
            if pile and pile[-1] == kind:
                self._take_from_seat(other, SAUCER_VALUES[kind])
                return
        self._take_from_earth(SAUCER_VALUES[kind])

    def _recruitment_count(self) -> int:
        return sum(1 for pile in self.piles if pile and pile[-1] == "recruitment")

    def _top_value(self, seat: int) -> int:
        """What a pile's top card makes its owner return to the General."""
        if not self.piles[seat]:
            return 0
        top = self.piles[seat][-1]
        if top in SAUCER_VALUES:
            return SAUCER_VALUES[top]
        return {"numbers": 1, "counterattack": 2,
                "recruitment": self._recruitment_count()}.get(top, 0)

    def _resolve_general(self) -> None:
        returns = {other: min(self.loot[other], self._top_value(other))
                   for other in self._others(self.player)}
        for other, amount in returns.items():
            self.loot[other] -= amount
            self.earth += amount
            self.emit("return", f"seat {other} returns {amount} loot to the Earth",
                      other, amount=amount)
        gathered = [card for pile in self.piles for card in pile]
        self.rng.shuffle(gathered)
        self.deck.extend(gathered)
        self.piles = [[] for _ in range(self.num_players)]
        self.emit("reshuffle", f"{len(gathered)} pile cards shuffled under the deck",
                  self.player, count=len(gathered))

    def _take_from_earth(self, amount: int) -> None:
        taken = amount if amount < self.earth else self.earth  # min(), without a call
        self.earth -= taken
        self.loot[self.player] += taken
        if self.records_events:
            self.emit("loot", f"seat {self.player} takes {taken} loot from the Earth",
                      self.player, source="earth", amount=taken)
        if self.earth == 0:
            self.end_reason = EndReason.EARTH_EMPTY.value

    def _take_from_seat(self, other: int, amount: int) -> None:
        taken = min(amount, self.loot[other])
        self.loot[other] -= taken
        self.loot[self.player] += taken
        if self.records_events:
            self.emit("loot", f"seat {self.player} takes {taken} loot from seat {other}",
                      self.player, source="seat", victim=other, amount=taken)

    def _draw_up(self, seat: int) -> None:
        """Draw up to five cards, as far as the deck allows."""
        deck, hand = self.deck, self.hands[seat]
        count = HAND_SIZE - len(hand)
        if count > len(deck):  # min(), without a call: searches draw millions of times
            count = len(deck)
        if count <= 0:
            return
        drawn = deck[:count]
        del deck[:count]
        hand += drawn
        if self.records_events:
            self.emit("draw", f"seat {seat} draws {count} card(s)", seat, count=count)
            self.emit("drew", f"you draw {', '.join(CARD_NAMES[c] for c in drawn)}", seat,
                      frozenset({seat}), cards=drawn)

    def _end_turn(self) -> None:
        self.turn += 1
        if self.end_reason:
            return
        self._draw_up(self.player)
        if self.turn >= TURN_LIMIT:
            self.end_reason = EndReason.TURN_LIMIT.value
            return
        self.player = (self.player + 1) % self.num_players
        if not self.hands[self.player]:  # else the seat plays: _begin_turn would do nothing
            self._begin_turn()

    def _begin_turn(self) -> None:
        """Move to the next seat that can play, drawing for empty hands first.

        A seat with an empty hand draws up to five if the deck has cards again
        (after a General); otherwise it skips. When nobody can play, the game
        ends.
        """
        for _ in range(self.num_players):
            if not self.hands[self.player]:
                self._draw_up(self.player)
            if self.hands[self.player]:
                return
            self.emit("skip", f"seat {self.player} has no cards and skips", self.player)
            self.player = (self.player + 1) % self.num_players
        self.end_reason = EndReason.NO_CARDS.value


GAME = Game(
    name="flea-circus",
    title="Amazing Flea Circus",
    variants=("standard",),
    min_players=2,
    max_players=5,
    state_class=FleaCircusState,
    end_reasons={EndReason.EARTH_EMPTY: "the Earth ran out of loot",
                 EndReason.NO_CARDS: "no player had a card left to play",
                 EndReason.TURN_LIMIT: "the turn limit was reached"},
    summary="Aliens raid the Earth for loot: saucers, counterattacks, recruitment and the General.",
)
