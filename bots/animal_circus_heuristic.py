"""A heuristic Animal Circus bot: play the card most likely to win a good Ring.

You win the Ring when the player after you cannot add to it, so each play is
valued by the chance that the next player holds no card that gets on top of
it (counted over the cards this seat has not seen), times what the Ring will
then be worth, plus the card's ability, minus what giving a Ring away to the
previous player costs and what spending a strong card costs later. Choices
inside abilities go for points now and for hurting the next player.
"""

from __future__ import annotations

from dataclasses import dataclass

from bots.sdk import Bot, serve

MOLE, MOUSE, TURTLE, RABBIT, BAT, PENGUIN, CAMEL, DOG, CHEETAH, CHAMELEON, PARROT = range(1, 12)
RAT, SEAL, KANGAROO, MONKEY, CROCODILE, OWL, GIRAFFE, BEAR, TIGER, ELEPHANT, LION = range(12, 23)
POINTS = {DOG: -3, GIRAFFE: 3}
NO_WHEN_PLAYED = {MOLE, MOUSE, TURTLE, DOG, GIRAFFE, CHAMELEON, LION}
# How much a rival's point counts against one of ours.
RIVAL_WEIGHT = 0.6
# What an unknown card in hand is worth, and one drawn into a Score pile.
HAND_CARD = 1.0
UNKNOWN_POINTS = 0.9
# Keeping a card that gets on (nearly) any Ring is worth something later.
KEEP_BONUS = {MOLE: 0.6, TURTLE: 0.3, BAT: 0.4, SEAL: 0.2}


def points(values: list[int]) -> int:
    return sum(POINTS.get(value, 1) for value in values)


@dataclass
class View:
    """The observation boiled down to values."""

    seat: int
    players: int
    ring: list[int]
    hand: list[int]
    piles: list[list[int]]
    hand_sizes: list[int]
    draw_sizes: list[int]
    unseen: list[int]
    scores: list[int]

    @property
    def next_seat(self) -> int:
        return (self.seat + 1) % self.players

    @property
    def others(self) -> list[int]:
        return [(self.seat + step) % self.players for step in range(1, self.players)]

    def top(self, seat: int) -> int:
        return self.piles[seat][-1] if self.piles[seat] else 0


def view_of(obs) -> View:
    players = len(obs.hand_sizes)
    seen = {(card.value, card.color) for card in
            [*obs.hand, *obs.ring, *obs.out_of_game, *obs.known_draw_top,
             *(card for pile in obs.score_piles for card in pile.cards)]}
    unseen = [value for color in range(players) for value in range(1, 23)
              if (value, color) not in seen]
    return View(obs.seat, players, [card.value for card in obs.ring],
                [card.value for card in obs.hand],
                [[card.value for card in pile.cards] for pile in obs.score_piles],
                list(obs.hand_sizes), list(obs.draw_sizes), unseen, list(obs.scores))


def can_add(value: int, top: int, bound: int) -> bool:
    """Whether a card of ``value`` may be added on ``top`` (``bound``: a Bat's)."""
    if value in (MOLE, TURTLE) or (value == MOUSE and top == ELEPHANT):
        return True
    return value < bound if bound else value > top


def p_cannot_add(view: View, top: int, bound: int, cards: int) -> float:
    """Chance that ``cards`` unseen cards hold none that gets on ``top``."""
    pool = len(view.unseen)
    blockers = pool - sum(can_add(value, top, bound) for value in view.unseen)
    chance = 1.0
    for drawn in range(min(cards, pool)):
        chance *= max(0, blockers - drawn) / (pool - drawn)
    return chance


class AnimalCircusHeuristicBot(Bot):
    name = "animal-circus-heuristic"
    games = {"animal-circus": ()}

    def decide(self, request) -> int:
        obs = request.observation.animal_circus
        view = view_of(obs)
        actions = [action.payload.animal_circus for action in request.legal_actions]
        values: list[float] | list[list[int]]
        if request.kind == "play":
            values = [self.play_value(view, action) for action in actions]
        elif request.kind == "target":
            values = [self.target_value(view, obs.decision.ability, action.target)
                      for action in actions]
        elif request.kind == "pile":
            values = [self.pile_value(view, action.pile) for action in actions]
        else:  # "order": the strongest cards first
            values = [[card.value for card in action.order] for action in actions]
        return max(range(len(actions)), key=lambda index: (values[index], -index))

    # -- playing a card ------------------------------------------------------------
    def play_value(self, view: View, action) -> float:
        card, me = action.card.value, view.seat
        value = -self.keep_value(view, card)
        if action.type == "new":
            ring = [card]
            if view.ring:
                value -= RIVAL_WEIGHT * points(view.ring)
        else:
            ring = [card] + view.ring if card == MOLE else view.ring + [card]
            if action.ring_winner == me and card == MOUSE:  # on an Elephant; the Seal: below
                return value + points(ring) + 1
        if card == SEAL and view.top(me) >= 16:
            return value + points(ring)
        gain, ring_bonus, next_cards, bound = self.ability(view, card, ring)
        top = ring[-1]
        if top == BAT and not bound:
            bound = BAT
        win = p_cannot_add(view, top, bound, next_cards)
        return value + gain + win * (points(ring) + ring_bonus)

    def keep_value(self, view: View, card: int) -> float:
        """What holding on to the card is worth: less as the Draw pile runs out."""
        late = min(1.0, view.draw_sizes[view.seat] / 5)
        return late * KEEP_BONUS.get(card, 0.0)

    def next_cards(self, view: View, draws: bool = True, parrot: bool = False) -> int:
        """How many cards the next player may play from."""
        seat = view.next_seat
        hand = view.hand_sizes[seat]
        drawn = min(view.draw_sizes[seat], 1 if hand >= 2 else 4) if draws else 0
        if parrot and drawn:
            return drawn
        return hand + drawn

    def ability(self, view: View, card: int, ring: list[int],
                copied: bool = False) -> tuple[float, float, int, int]:
        """The ability's gain now, what it adds to the Ring, the next player's
        playable cards and any lower-than bound it imposes."""
        me, gain, ring_bonus = view.seat, 0.0, 0.0
        next_cards, bound = self.next_cards(view), 0
        own_draw = view.draw_sizes[me]
        if card == CHAMELEON and view.top(me) and view.top(me) not in NO_WHEN_PLAYED:
            return self.ability(view, view.top(me), ring, copied=True)
        if card == BAT and copied:
            bound = ring[-1]
        elif card == PARROT:
            next_cards = self.next_cards(view, parrot=True)
        elif card == BEAR:
            next_cards = self.next_cards(view, draws=False)
        elif card in (PENGUIN, KANGAROO):
            if view.hand_sizes[view.next_seat]:
                next_cards = max(0, next_cards - 1)
            gain = HAND_CARD if card == PENGUIN else 0.0
            ring_bonus = UNKNOWN_POINTS if card == KANGAROO else 0.0
        elif card == ELEPHANT:
            ring_bonus = UNKNOWN_POINTS * min(2, own_draw)
        elif card == CROCODILE and len(ring) >= 2:
            gain, ring_bonus = points(ring[:1]), -points(ring[:1])
        elif card == CHEETAH:
            gain = UNKNOWN_POINTS * min(2, own_draw)
        elif card == MONKEY:
            gain = HAND_CARD * 1.5
        elif card == CAMEL:
            gain = max([points(view.piles[seat][-2:]) * (1 + RIVAL_WEIGHT)
                        for seat in view.others if view.piles[seat]], default=0.0)
        elif card == RABBIT:
            rivals = [seat for seat in view.others if view.piles[seat]]
            targets = rivals or ([me] if view.piles[me] else [])
            gain = max((self.target_value(view, RABBIT, seat) for seat in targets), default=0.0)
        elif card == RAT and view.piles[me]:
            gain = max([self.target_value(view, RAT, seat) for seat in view.others
                        if view.piles[seat]], default=0.0)
        elif card in (TIGER, OWL):
            gain = 0.2
        return gain, ring_bonus, next_cards, bound

    # -- choices inside abilities ---------------------------------------------------
    def target_value(self, view: View, ability: int, seat: int) -> float:
        me = view.seat
        lead = 0.01 * view.scores[seat]
        if ability == RABBIT:
            taken = points(view.piles[seat][-1:])
            return (RIVAL_WEIGHT * taken if seat != me else -taken) + HAND_CARD + lead
        if ability == CAMEL:
            return points(view.piles[seat][-2:]) * (1 + RIVAL_WEIGHT) + lead
        if ability == RAT:
            theirs, mine = points(view.piles[seat][-1:]), points(view.piles[me][-1:])
            return (theirs - mine) * (1 + RIVAL_WEIGHT) + lead
        # Penguin, Kangaroo: weaken the next player, else the fullest hand.
        return (10 if seat == view.next_seat else 0) + view.hand_sizes[seat] + lead

    def pile_value(self, view: View, seat: int) -> float:
        """The Monkey: take from a rival's pile (nearer the end if leading)."""
        if seat == view.seat:
            return -100.0
        leading = view.scores[view.seat] >= max(view.scores)
        return -view.draw_sizes[seat] if leading else view.draw_sizes[seat]


if __name__ == "__main__":
    serve(AnimalCircusHeuristicBot())
