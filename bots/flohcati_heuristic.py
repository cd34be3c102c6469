"""A heuristic bot for Circus Flohcati, both variants, and the same rules as a playout policy.

It values a card by what it adds to its own score (the best card per colour,
plus a bonus for pairs and trios of a value), estimates the chance that a flip
busts from the cards it has not seen, and flips on only while the expected
improvement beats the best card already on offer. It gives away its least
useful card, aims action cards where the expected gain is largest, lays down a
trio when that raises its score, and calls the Gala when it is ahead.

The rules (:func:`choose`) read a :class:`View` and a list of :class:`Move`,
which come from one of two places: a wire request (the bot,
:class:`FlohcatiHeuristicBot`) or an engine state (:func:`engine_policy`, the
search bots' playout policy, which must be fast and reads the state directly,
but only what the deciding seat knows of it: its own hand, public cards and
the cards it knows in other hands, never the deck or other hands' rest). Both
build the same view of the same position, so the policy plays as the bot does.

Deterministic: it uses no randomness at all, so the same request always gets
the same answer. Run it with ``python -m bots.flohcati_heuristic --address ADDRESS``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from bots.sdk import Bot, serve
from referee.games import flohcati as fl
from referee.games.base import Action

VALUES = range(8)
TRIO_POINTS = 10
ACTION_KINDS = {"en": ("take-a-card", "open-the-deck", "pick-a-card"),
                "es": ("nueva-atraccion", "atraerse", "solicitar")}
ACTION_COPIES = 3
# Rough worth of an action card flipped in the ordinary way (in en it ends
# the taking part of the turn, in es it is carried out and the turn ends).
ACTION_WORTH = {
    "take-a-card": 1.5, "pick-a-card": 2.5, "atraerse": 2.5, "solicitar": 2.5,
}
# Expected points of an opponent's hand card we know nothing about.
UNKNOWN_CARD_WORTH = 2.2
GALA_MARGIN = 3.0
FLIP_MARGIN = 0.2
NUEVA_MIN_IMPROVEMENT = 0.5
# The heuristic's bonuses for a card making a pair or a trio of its value in hand.
PAIR_BONUS, TRIO_BONUS = 1.5, 7.0

Card = tuple[str, int]


def gala_step(missing: int) -> float:
    """The bonus for a new colour while ``missing`` colours are still missing: on the way to a
    Gala once three or fewer are (1, 2, 3 for the last three)."""
    return 4.0 - missing if missing <= 3 else 0.0


def hand_points(hand: Iterable[Card]) -> int:
    best: dict[str, int] = {}
    for colour, value in hand:
        best[colour] = max(best.get(colour, 0), value)
    return sum(best.values())


def card_of(message: Any) -> Card:
    return message.colour, message.value


class Move(NamedTuple):
    """One legal action, as the rules read it (fields not of its type are left empty)."""

    type: str
    card: Card = ("", 0)
    target: int = 0
    colour: str = ""
    direction: str = ""
    cards: tuple[Card, ...] = ()
    call: bool = False


class View:
    """What the deciding seat knows of one position, and the card values worked out from it.

    ``known`` holds, for each other seat, the circus cards known in its hand;
    ``unseen`` the circus cards whose place the seat does not know (in the
    canonical order), ``unseen_actions`` how many of each action card are still
    hidden.
    """

    def __init__(self, seat: int, variant: str, decision: str, action_card: str,
                 hand: list[Card], display: list[Card],
                 known: Callable[[], dict[int, list[Card]]], hand_sizes: list[int],
                 trio_counts: list[int], unseen: list[Card], unseen_actions: dict[str, int],
                 gala_bonus: int, colours: list[str]) -> None:
        self.seat, self.variant, self.decision, self.action_card = seat, variant, decision, \
            action_card
        self.hand, self.display, self._known_of = hand, display, known
        self._known: dict[int, list[Card]] | None = None
        self.hand_sizes, self.trio_counts = hand_sizes, trio_counts
        self.unseen, self.unseen_actions = unseen, unseen_actions
        self.gala_bonus, self.colours = gala_bonus, colours
        self.values = [0] * len(VALUES)  # how many cards of each value are held
        self.best: dict[str, int] = {}  # the highest value held of each colour
        for colour, value in hand:
            self.values[value] += 1
            self.best[colour] = max(self.best.get(colour, 0), value)
        self.missing = len(set(colours) - set(self.best))
        # gain()'s terms by value and by colour, worked out once: it is called for
        # every unseen card at most decisions (the playouts' hot path).
        self.held = [{2: TRIO_BONUS, 1: PAIR_BONUS}.get(count % 3, 0.0) for count in self.values]
        gala = gala_step(self.missing)
        self.floors = {colour: (self.best.get(colour, 0), 0.0 if colour in self.best else gala)
                       for colour in colours}

    @property
    def known(self) -> dict[int, list[Card]]:
        """For each other seat, the circus cards known in its hand (in the canonical order).

        Worked out on first use: most decisions (take or flip) need only the
        unseen cards.
        """
        if self._known is None:
            self._known = self._known_of()
        return self._known

    @classmethod
    def from_observation(cls, obs: Any) -> View:
        """The view of a wire observation (``FlohcatiObservation``)."""
        known = {seat: [card_of(card) for card in holder.cards if card.kind == "circus"]
                 for seat, holder in enumerate(obs.known_cards) if seat != obs.seat}
        hand = [card_of(card) for card in obs.hand]
        seen: set[Card] = set(hand)
        public = list(obs.display) + list(obs.discard)
        if obs.HasField("matching_card"):
            public.append(obs.matching_card)
        for trios in obs.trios:
            for trio in trios.trios:
                public += list(trio.cards)
        actions: Counter = Counter()
        for card in public:
            if card.kind == "circus":
                seen.add(card_of(card))
            else:
                actions[card.kind] += 1
        for cards in known.values():
            seen.update(cards)
        unseen = [(colour, value) for colour in obs.colours for value in VALUES
                  if (colour, value) not in seen]
        hidden = {kind: ACTION_COPIES - actions[kind] for kind in ACTION_KINDS[obs.variant]}
        return cls(obs.seat, obs.variant, obs.decision, obs.action_card, hand,
                   [card_of(card) for card in obs.display], lambda: known,
                   list(obs.hand_sizes), [len(trios.trios) for trios in obs.trios], unseen,
                   {kind: count for kind, count in hidden.items() if count > 0},
                   obs.gala_bonus, list(obs.colours))

    @classmethod
    def from_state(cls, state: Any) -> View:
        """The deciding seat's view of an engine state (``FlohcatiState``), read directly.

        The same view :meth:`from_observation` builds from that seat's
        observation: what it knows of other hands is ``state.known``.
        """
        seat, circus = state.current_seat(), fl.CIRCUS
        hands, knowledge = state.hands, state.known[seat]
        seen = set(hands[seat]).union(state.display, state.discard,
                                      *[knowledge[holder] for holder in range(state.num_players)
                                        if holder != seat],
                                      *[trio for laid in state.trios for trio in laid])
        if state.match:
            seen.add(state.match)
        def known() -> dict[int, list[Card]]:
            return {holder: [circus[card] for card in fl.sort_cards(knowledge[holder])]
                    for holder in range(state.num_players) if holder != seat}
        discard = state.discard
        hidden = {kind: ACTION_COPIES - discard.count(kind) for kind in ACTION_KINDS[state.variant]}
        return cls(seat, state.variant, state.phase, state.action_card,
                   [circus[card] for card in hands[seat]],
                   [circus[card] for card in state.display], known,
                   [len(hand) for hand in hands], [len(laid) for laid in state.trios],
                   [circus[card] for card in CANONICAL if card not in seen],
                   {kind: count for kind, count in hidden.items() if count > 0},
                   fl.GALA_BONUS[state.variant], COLOURS)

    # -- valuing cards -----------------------------------------------------
    def gain(self, card: Card) -> float:
        """What holding ``card`` is worth to us, beyond the current hand.

        The points it adds, a bonus for a pair or trio of its value, one for a
        new colour when the Gala is near, and a hundredth of its value (the
        higher card on ties).
        """
        colour, value = card
        floor, gala = self.floors.get(colour, (0, 0.0))
        return (value - floor if value > floor else 0) + self.held[value] + gala + value * 0.01

    def loss(self, card: Card) -> float:
        """What giving ``card`` away costs us."""
        rest = [other for other in self.hand if other != card]
        loss = float(hand_points(self.hand) - hand_points(rest))
        loss += {3: TRIO_BONUS, 2: PAIR_BONUS}.get(min(self.values[card[1]], 3), 0.0)
        return loss + card[1] * 0.2  # a high card helps the receiver more

    # -- flipping ------------------------------------------------------------
    def flip_value(self, best: float, nueva: bool) -> float:
        """Expected worth of flipping once more and then stopping.

        Every hidden card is equally likely to come next: a circus card of a
        colour on display busts (in Nueva atracción it is offered instead), an
        action card is worth what it brings.
        """
        total = len(self.unseen) + sum(self.unseen_actions.values())
        if not total:
            return 0.0
        chance, worth, floors, held = 1 / total, 0.0, self.floors, self.held
        shown = {colour for colour, _ in self.display}
        for colour, value in self.unseen:
            if colour in shown and not nueva:
                outcome = 0.0
            else:  # max(best, self.gain(card)), inlined: this is the playouts' hot loop
                floor, gala = floors[colour]
                outcome = max(best, (value - floor if value > floor else 0) + held[value] + gala
                              + value * 0.01)
            worth += chance * outcome
        for kind, count in self.unseen_actions.items():
            if nueva:
                outcome = best
            elif kind in ("open-the-deck", "nueva-atraccion"):
                outcome = max(best, 0.0) + 1.5
            else:
                outcome = ACTION_WORTH[kind]
            worth += count / total * outcome
        return worth

    # -- opponents -----------------------------------------------------------------
    def estimate(self, seat: int) -> float:
        known = self.known.get(seat, [])
        unknown = self.hand_sizes[seat] - len(known)
        return (TRIO_POINTS * self.trio_counts[seat] + hand_points(known)
                + UNKNOWN_CARD_WORTH * unknown)

    def my_score(self) -> int:
        return hand_points(self.hand) + TRIO_POINTS * self.trio_counts[self.seat]

    def random_card_gain(self, seat: int) -> float:
        """Expected gain of a random card from ``seat``'s hand."""
        size = self.hand_sizes[seat]
        if not size:
            return 0.0
        known = self.known.get(seat, [])
        pool = self.unseen or [("", 0)]
        unknown_gain = sum(self.gain(card) for card in pool) / len(pool)
        return (sum(self.gain(card) for card in known)
                + (size - len(known)) * unknown_gain) / size


# Every circus card's code, in the canonical order (the order of ``View.unseen``).
CANONICAL = fl.sort_cards(fl.CIRCUS)
COLOURS = list(fl.COLOURS)


# -- the rules -----------------------------------------------------------------------
def choose(view: View, moves: list[Move]) -> int:
    """The index of the move the heuristic plays."""
    decision = view.decision
    if decision in ("turn", "nueva", "open-take", "match"):
        return take_or_flip(view, moves, nueva=decision in ("nueva", "match"))
    handler = {
        "target": target,
        "give": give,
        "request": request,
        "end-of-turn": end_of_turn,
    }.get(decision)
    return handler(view, moves) if handler else 0


def take_or_flip(view: View, moves: list[Move], nueva: bool) -> int:
    takes = [(view.gain(move.card), index) for index, move in enumerate(moves)
             if move.type in ("take", "take-match")]
    best, best_index = max(takes, default=(-1.0, -1))
    flip = next((index for index, move in enumerate(moves) if move.type == "flip"), -1)
    stop = next((index for index, move in enumerate(moves) if move.type == "stop"), -1)
    if flip >= 0:
        worth = view.flip_value(max(best, 0.0), nueva)
        margin = NUEVA_MIN_IMPROVEMENT if nueva else FLIP_MARGIN
        if best_index < 0 or worth > max(best, 0.0) + margin:
            return flip
    if best_index >= 0:
        return best_index
    return max(stop, 0)


def target(view: View, moves: list[Move]) -> int:
    key: Callable[[int], tuple[float, ...] | float]
    if view.action_card == "take-a-card":
        # The opponent picks the card: the one with most cards has most to spare.
        key = lambda seat: (view.hand_sizes[seat], view.estimate(seat))
    else:
        key = lambda seat: (view.random_card_gain(seat)
                            + 0.02 * view.estimate(seat))
    scored = [(key(move.target), -index) for index, move in enumerate(moves)]
    return -max(scored)[1]


def give(view: View, moves: list[Move]) -> int:
    return min((view.loss(move.card), index) for index, move in enumerate(moves))[1]


def request(view: View, moves: list[Move]) -> int:
    players = len(view.hand_sizes)
    unseen_total = max(1, len(view.unseen))
    best = (-1.0, 0)
    for index, move in enumerate(moves):
        colour, step = move.colour, (1 if move.direction == "cw" else -1)
        unseen = [card for card in view.unseen if card[0] == colour]
        unknown_gain = (sum(view.gain(card) for card in unseen) / len(unseen) * 0.6
                        if unseen else 0.0)
        worth, still = 0.0, 1.0
        for offset in range(1, players):
            seat = (view.seat + step * offset) % players
            held = [card for card in view.known.get(seat, []) if card[0] == colour]
            if held:
                worth += still * view.gain(min(held, key=lambda card: card[1]))
                still = 0.0
                break
            unknown = view.hand_sizes[seat] - len(view.known.get(seat, []))
            chance = 1 - (1 - len(unseen) / unseen_total) ** max(unknown, 0)
            worth += still * chance * unknown_gain
            still *= 1 - chance
        if worth > best[0]:
            best = (worth, index)
    return best[1]


def end_of_turn(view: View, moves: list[Move]) -> int:
    """Lay down the best trio while it pays, then end the turn or call the Gala."""
    hand = view.hand
    every = len({colour for colour, _ in hand}) == len(view.colours)
    options = []
    for index, move in enumerate(moves):
        if move.type != "trio":
            continue
        trio = set(move.cards)
        rest = [card for card in hand if card not in trio]
        if every and len({colour for colour, _ in rest}) < len(view.colours):
            continue  # keep the Gala open
        options.append((TRIO_POINTS + hand_points(rest) - hand_points(hand), -index))
    if options and max(options)[0] > 0:
        return -max(options)[1]
    gala = {move.call: index for index, move in enumerate(moves) if move.type == "gala"}
    if gala:
        return gala[calls_gala(view)]
    return next(index for index, move in enumerate(moves) if move.type == "done")


def calls_gala(view: View) -> bool:
    """Call the Gala when it ends the game with us clearly ahead."""
    mine = view.my_score() + view.gala_bonus
    others = [view.estimate(seat) for seat in range(len(view.hand_sizes)) if seat != view.seat]
    return mine > max(others, default=0.0) + GALA_MARGIN


# -- the two front-ends ------------------------------------------------------------------
CARD_MOVES = frozenset({"take", "take-match", "give"})


def move_of_payload(payload: Any) -> Move:
    """A wire action's ``FlohcatiAction`` as a move."""
    return Move(payload.type, card_of(payload.card), payload.target, payload.colour,
                payload.direction, tuple(card_of(card) for card in payload.cards), payload.call)


def move_of_action(action: Action) -> Move:
    """An engine action as a move (its payload dict holds the wire message's fields)."""
    payload = action.payload
    kind = payload["type"]
    if kind in CARD_MOVES:  # most decisions' moves: the quick way
        return Move(kind, fl.CIRCUS[payload["card"]["code"]])
    if kind in ("flip", "stop", "done"):
        return Move(kind)
    return Move(kind, ("", 0), payload.get("target", 0), payload.get("colour", ""),
                payload.get("direction", ""),
                tuple(fl.CIRCUS[card["code"]] for card in payload.get("cards", ())),
                payload.get("call", False))


def engine_policy(state: Any, actions: list[Action], rng: random.Random) -> int:
    """The heuristic's move in an engine state, for the search bots' playouts.

    ``rng`` is not used (the rules are deterministic); it is the playout
    policies' signature.
    """
    if len(actions) == 1:
        return 0
    return choose(View.from_state(state), [move_of_action(action) for action in actions])


# What a hand's cards of one value are worth beyond their points, by how many there are: the
# heuristic's bonus for a pair (``View.held``), a trio's promise. Three or more add nothing:
# a trio in hand is worth what laying it down brings, which the playout sees when it lays it
# (a bonus for holding it, as the heuristic's 7 for the third card, made keeping a trio in
# hand look better than laying it, and the search kept them).
SET_WORTH = (0.0, 0.0, PAIR_BONUS, 0.0)
# What the way to a Gala is worth, by the colours still missing: the bonuses of the new
# colours that brought it there (``gala_step``), summed: 1 + 2 + 3 with none missing.
GALA_WORTH = tuple(sum(gala_step(step) for step in range(missing + 1, 4))
                   for missing in range(3))


def prospects(hand: Iterable[str], gala: bool) -> float:
    """What the heuristic reckons a hand of card codes is worth beyond its points.

    Its bonus for a pair of a value in hand and, where the Gala pays
    (``gala``), for nearing all ten colours.
    """
    colours: set[str] = set()
    counts = [0] * len(VALUES)
    for card in hand:
        colour, value = fl.CIRCUS[card]
        colours.add(colour)
        counts[value] += 1
    worth = sum(SET_WORTH[min(count, 3)] for count in counts)
    missing = len(COLOURS) - len(colours)
    return worth + GALA_WORTH[missing] if gala and missing < len(GALA_WORTH) else worth


def engine_values(state: Any) -> list[float]:
    """Each seat's score plus its hand's :func:`prospects`: a cut playout's scoring.

    A playout cut a few turns in sees the points, not what the heuristic keeps
    pairs and colours for. A determinized state is fully dealt, so every hand
    is read as it lies.
    """
    gala = fl.GALA_BONUS[state.variant] > 0
    return [points + prospects(state.hands[seat], gala)
            for seat, points in enumerate(state.scores())]


class FlohcatiHeuristicBot(Bot):
    name = "flohcati-heuristic"
    version = "1.0"
    games = {"flohcati": ()}

    def decide(self, request) -> int:
        view = View.from_observation(request.observation.flohcati)
        return choose(view, [move_of_payload(action.payload.flohcati)
                             for action in request.legal_actions])


if __name__ == "__main__":
    serve(FlohcatiHeuristicBot())
