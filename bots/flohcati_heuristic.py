"""A heuristic bot for Circus Flohcati, both variants.

It values a card by what it adds to its own score (the best card per colour,
plus a bonus for pairs and trios of a value), estimates the chance that a flip
busts from the cards it has not seen, and flips on only while the expected
improvement beats the best card already on offer. It gives away its least
useful card, aims action cards where the expected gain is largest, lays down a
trio when that raises its score, and calls the Gala when it is ahead.

Deterministic: it uses no randomness at all, so the same request always gets
the same answer. Run it with ``python -m bots.flohcati_heuristic --address ADDRESS``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

from bots.sdk import Bot, serve

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

Card = tuple[str, int]


def hand_points(hand: Iterable[Card]) -> int:
    best: dict[str, int] = {}
    for colour, value in hand:
        best[colour] = max(best.get(colour, 0), value)
    return sum(best.values())


def card_of(message: Any) -> Card:
    return message.colour, message.value


@dataclass
class View:
    """What the bot works out from one observation."""

    obs: Any

    def __post_init__(self) -> None:
        obs = self.obs
        self.seat = obs.seat
        self.hand: list[Card] = [card_of(card) for card in obs.hand]
        self.values = Counter(value for _, value in self.hand)
        self.colours = list(obs.colours)
        self.known = {seat: [card_of(card) for card in known.cards if card.kind == "circus"]
                      for seat, known in enumerate(obs.known_cards) if seat != obs.seat}
        self.unseen, self.unseen_actions = self._unseen()

    def _unseen(self) -> tuple[list[Card], Counter]:
        """Circus cards whose place we do not know, and the action cards still hidden."""
        seen: set[Card] = set(self.hand)
        public = list(self.obs.display) + list(self.obs.discard)
        if self.obs.HasField("matching_card"):
            public.append(self.obs.matching_card)
        for trios in self.obs.trios:
            for trio in trios.trios:
                public += list(trio.cards)
        actions: Counter = Counter()
        for card in public:
            if card.kind == "circus":
                seen.add(card_of(card))
            else:
                actions[card.kind] += 1
        for cards in self.known.values():
            seen.update(cards)
        unseen = [(colour, value) for colour in self.colours for value in VALUES
                  if (colour, value) not in seen]
        hidden_actions = Counter({kind: ACTION_COPIES - actions[kind]
                                  for kind in ACTION_KINDS[self.obs.variant]})
        return unseen, +hidden_actions

    # -- valuing cards -----------------------------------------------------
    def gain(self, card: Card) -> float:
        """What holding ``card`` is worth to us, beyond the current hand."""
        colour, value = card
        best = max((v for c, v in self.hand if c == colour), default=-1)
        gain = float(max(0, value - max(best, 0)))
        held = self.values[value] % 3
        gain += {2: 7.0, 1: 1.5}.get(held, 0.0)
        missing = len(set(self.colours) - {c for c, _ in self.hand})
        if best < 0 and missing <= 3:
            gain += 4.0 - missing  # on the way to a Gala
        return gain + value * 0.01  # prefer the higher card on ties

    def loss(self, card: Card) -> float:
        """What giving ``card`` away costs us."""
        rest = [other for other in self.hand if other != card]
        loss = float(hand_points(self.hand) - hand_points(rest))
        loss += {3: 7.0, 2: 1.5}.get(min(self.values[card[1]], 3), 0.0)  # trio, pair
        return loss + card[1] * 0.2  # a high card helps the receiver more

    # -- flipping ------------------------------------------------------------
    def flip_outcomes(self) -> Iterable[tuple[float, Card | str]]:
        """Each hidden card with its probability of being the next one flipped."""
        total = len(self.unseen) + sum(self.unseen_actions.values())
        if not total:
            return
        for card in self.unseen:
            yield 1 / total, card
        for kind, count in self.unseen_actions.items():
            yield count / total, kind

    def flip_value(self, display: list[Card], best: float, nueva: bool) -> float:
        """Expected worth of flipping once more and then stopping."""
        shown = {colour for colour, _ in display}
        worth = 0.0
        for chance, card in self.flip_outcomes():
            if isinstance(card, str):
                if nueva:
                    outcome = best
                elif card in ("open-the-deck", "nueva-atraccion"):
                    outcome = max(best, 0.0) + 1.5
                else:
                    outcome = ACTION_WORTH[card]
            elif card[0] in shown:
                outcome = max(best, self.gain(card)) if nueva else 0.0
            else:
                outcome = max(best, self.gain(card))
            worth += chance * outcome
        return worth

    # -- opponents -----------------------------------------------------------------
    def estimate(self, seat: int) -> float:
        obs = self.obs
        known = self.known.get(seat, [])
        unknown = obs.hand_sizes[seat] - len(known)
        return (TRIO_POINTS * len(obs.trios[seat].trios) + hand_points(known)
                + UNKNOWN_CARD_WORTH * unknown)

    def my_score(self) -> int:
        return hand_points(self.hand) + TRIO_POINTS * len(self.obs.trios[self.seat].trios)

    def random_card_gain(self, seat: int) -> float:
        """Expected gain of a random card from ``seat``'s hand."""
        size = self.obs.hand_sizes[seat]
        if not size:
            return 0.0
        known = self.known.get(seat, [])
        pool = self.unseen or [("", 0)]
        unknown_gain = sum(self.gain(card) for card in pool) / len(pool)
        return (sum(self.gain(card) for card in known)
                + (size - len(known)) * unknown_gain) / size


class FlohcatiHeuristicBot(Bot):
    name = "flohcati-heuristic"
    version = "1.0"
    games = {"flohcati": ()}

    def decide(self, request) -> int:
        view = View(request.observation.flohcati)
        actions = [action.payload.flohcati for action in request.legal_actions]
        decision = view.obs.decision
        if decision in ("turn", "nueva", "open-take", "match"):
            return self._take_or_flip(view, actions, nueva=decision in ("nueva", "match"))
        handler = {
            "target": self._target,
            "give": self._give,
            "request": self._request,
            "end-of-turn": self._end_of_turn,
        }.get(decision)
        return handler(view, actions) if handler else 0

    # -- the turn ------------------------------------------------------------------
    def _take_or_flip(self, view: View, actions: list[Any], nueva: bool) -> int:
        takes = [(view.gain(card_of(action.card)), index)
                 for index, action in enumerate(actions)
                 if action.type in ("take", "take-match")]
        best, best_index = max(takes, default=(-1.0, -1))
        flip = next((index for index, action in enumerate(actions)
                     if action.type == "flip"), -1)
        stop = next((index for index, action in enumerate(actions)
                     if action.type == "stop"), -1)
        if flip >= 0:
            display = [card_of(card) for card in view.obs.display]
            worth = view.flip_value(display, max(best, 0.0), nueva)
            margin = NUEVA_MIN_IMPROVEMENT if nueva else FLIP_MARGIN
            if best_index < 0 or worth > max(best, 0.0) + margin:
                return flip
        if best_index >= 0:
            return best_index
        return stop if stop >= 0 else 0

    # -- action cards ----------------------------------------------------------------
    def _target(self, view: View, actions: list[Any]) -> int:
        obs = view.obs
        if obs.action_card == "take-a-card":
            # The opponent picks the card: the one with most cards has most to spare.
            key = lambda seat: (obs.hand_sizes[seat], view.estimate(seat))  # noqa: E731
        else:
            key = lambda seat: (view.random_card_gain(seat)  # noqa: E731
                                + 0.02 * view.estimate(seat))
        scored = [(key(action.target), -index) for index, action in enumerate(actions)]
        return -max(scored)[1]

    def _give(self, view: View, actions: list[Any]) -> int:
        losses = [(view.loss(card_of(action.card)), index)
                  for index, action in enumerate(actions)]
        return min(losses)[1]

    def _request(self, view: View, actions: list[Any]) -> int:
        obs = view.obs
        players = len(obs.hand_sizes)
        unseen_total = max(1, len(view.unseen))
        best = (-1.0, 0)
        for index, action in enumerate(actions):
            colour, step = action.colour, (1 if action.direction == "cw" else -1)
            unseen = [card for card in view.unseen if card[0] == colour]
            unknown_gain = (sum(view.gain(card) for card in unseen) / len(unseen) * 0.6
                            if unseen else 0.0)
            worth, still = 0.0, 1.0
            for offset in range(1, players):
                seat = (obs.seat + step * offset) % players
                held = [card for card in view.known.get(seat, []) if card[0] == colour]
                if held:
                    worth += still * view.gain(min(held, key=lambda card: card[1]))
                    still = 0.0
                    break
                unknown = obs.hand_sizes[seat] - len(view.known.get(seat, []))
                chance = 1 - (1 - len(unseen) / unseen_total) ** max(unknown, 0)
                worth += still * chance * unknown_gain
                still *= 1 - chance
            if worth > best[0]:
                best = (worth, index)
        return best[1]

    # -- the end of the turn ---------------------------------------------------------
    def _end_of_turn(self, view: View, actions: list[Any]) -> int:
        """Lay down the best trio while it pays, then end the turn or call the Gala."""
        hand = view.hand
        every = len({colour for colour, _ in hand}) == len(view.colours)
        options = []
        for index, action in enumerate(actions):
            if action.type != "trio":
                continue
            trio = {card_of(card) for card in action.cards}
            rest = [card for card in hand if card not in trio]
            if every and len({colour for colour, _ in rest}) < len(view.colours):
                continue  # keep the Gala open
            options.append((TRIO_POINTS + hand_points(rest) - hand_points(hand), -index))
        if options and max(options)[0] > 0:
            return -max(options)[1]
        gala = {action.call: index for index, action in enumerate(actions)
                if action.type == "gala"}
        if gala:
            return gala[self._calls_gala(view)]
        return next(index for index, action in enumerate(actions) if action.type == "done")

    def _calls_gala(self, view: View) -> bool:
        """Call the Gala when it ends the game with us clearly ahead."""
        mine = view.my_score() + view.obs.gala_bonus
        others = [view.estimate(seat) for seat in range(len(view.obs.hand_sizes))
                  if seat != view.seat]
        return mine > max(others, default=0.0) + GALA_MARGIN

if __name__ == "__main__":
    serve(FlohcatiHeuristicBot())
