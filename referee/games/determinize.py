"""Determinizers: full game states sampled from what one seat has seen.

Search bots for hidden-information games (perfect-information Monte Carlo,
IS-MCTS) need whole states to play forward from, but a seat only knows its
observation and the events it was sent. A determinizer deals every card the
seat cannot see at random among the places it could be, respecting all the
seat knows, and builds an ordinary engine state from that deal.

The input is the seat's *view*: its observation dict (as
``state.observation(seat)`` gives it, or rebuilt from the wire by
:func:`bots.sdk.view_of`) and every event it saw since the game began (engine
:class:`~referee.games.base.Event` objects or anything with ``kind``, ``seat``
and ``data``). Nothing else: a sampler never sees the true state, so its output
for a given RNG cannot depend on the true hidden cards.

Every sampled state, observed from the seat, gives back its observation and,
when it decides, its legal actions exactly (``tests/test_determinize.py``).
What each game's sampler knows beyond the observation, and where it
approximates the exact posterior, is in its class's docstring.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Callable, Iterable, Protocol, Sequence, TypeVar

from referee.games import animal_circus as ac
from referee.games import flea_circus as fc
from referee.games import flohcati as fl
from referee.games.base import Game, State

StateT = TypeVar("StateT", bound=State)


class SeenEvent(Protocol):
    """An event as a seat saw it: what the sampler reads of one."""

    @property
    def kind(self) -> str: ...

    @property
    def seat(self) -> int: ...

    @property
    def data(self) -> dict[str, Any]: ...


class Sampler(Protocol):
    """Samples states consistent with one seat's view; built once per decision."""

    seat: int

    def sample(self, rng: random.Random) -> State:
        """A full state, hidden cards dealt from ``rng`` alone."""


_SILENT: dict[type[State], Any] = {}


def silent(state_class: type[StateT]) -> type[StateT]:
    """The engine's state class with an event log that records nothing.

    Searches play thousands of decisions a second and never read the log;
    building each event's text and record is a fifth of an engine's time.
    The rules are the engine's own: only :meth:`State.emit` differs.
    """
    if state_class not in _SILENT:
        _SILENT[state_class] = type(f"Silent{state_class.__name__}", (state_class,),
                                    {"emit": lambda self, *args, **kwargs: None,
                                     "records_events": False,
                                     "__doc__": "A state whose event log stays empty."})
    silenced: type[StateT] = _SILENT[state_class]  # a subclass of state_class, made above
    return silenced


def shuffle(cards: list[Any], rng: random.Random) -> None:
    """Shuffle ``cards`` in place: each a random key, sorted by them.

    A uniform permutation like ``rng.shuffle``'s, in a third of its time (one
    ``random()`` per card against a ``getrandbits`` loop): samplers shuffle at
    every search iteration, and this was most of a sample's cost.
    """
    key = rng.random
    cards.sort(key=lambda _: key())


def _template(state_class: type[StateT], game: Game, players: int, variant: str) -> StateT:
    """A silent state of ``game`` to copy samples from."""
    state = state_class(players, game.check(players, variant), 0)
    state.__class__ = silent(state_class)
    return state


def _fresh(template: StateT, rng: random.Random, history: int) -> StateT:
    """A shallow copy of ``template`` with the base bookkeeping made new.

    Copying a state made once is cheaper than running an engine's constructor
    (which deals and logs); each sampler then sets every field of the
    position itself, so nothing of the template's own deal survives. The
    state's chance (a General's shuffle, a Penguin's pick) draws on ``rng``.
    """
    state = object.__new__(type(template))  # copy.copy's result, without its protocol's cost
    state.__dict__.update(template.__dict__)
    state.rng = rng
    state.history = [0] * history
    state.events = []
    state.end_reason = ""
    return state


def _split(cards: list[str], kinds: Counter[str]) -> tuple[list[str], list[str]]:
    """``cards`` parted into those a segment of ``kinds`` may hold (as many as it has), the rest."""
    room, options, others = Counter(kinds), [], []
    for card in cards:
        if room[card] > 0:
            room[card] -= 1
            options.append(card)
        else:
            others.append(card)
    return options, others


# -- Amazing Flea Circus ----------------------------------------------------------------
def flea_card(message: dict[str, Any]) -> str:
    """A ``FleaCard`` dict's card string (wire dicts carry empty defaults too)."""
    card: str = message.get("saucer") or message["kind"]
    return card


class FleaSampler:
    """Amazing Flea Circus: other hands and the deck order are hidden.

    Beyond the observation, the seat knows what each General shuffled under
    the deck (the piles were face up): the deck is the rest of the first deal
    on top of one segment per General, each holding cards of that General's
    piles. Draws are followed through the segments; the seat's own draws
    remove the cards it saw from theirs. A segment's remaining cards are drawn
    from its cards still unseen; which of them the opponents drew earlier is
    not weighed (an approximation of the exact posterior). The other unseen
    cards go uniformly to the opponents' hands and the rest of the deck.
    """

    def __init__(self, observation: dict[str, Any], events: Sequence[SeenEvent]) -> None:
        self.obs = observation
        self.seat = observation["seat"]
        self.players = len(observation["loot"])
        self.hand = [flea_card(card) for card in observation["hand"]]
        self.piles = [[flea_card(card) for card in pile["cards"]]
                      for pile in observation["piles"]]
        seen = Counter(self.hand) + Counter(card for pile in self.piles for card in pile)
        self.unseen = Counter(fc.full_deck()) - seen
        self.unseen_cards = list(self.unseen.elements())
        self.segments, self.choosing_target = self._follow(events)
        self.first_split = _split(self.unseen_cards, self.segments[0][1]) \
            if self.segments else ([], [])
        self.template = _template(fc.FleaCircusState, fc.GAME, self.players, "standard")

    def _follow(self, events: Sequence[SeenEvent]) -> tuple[list[tuple[int, Counter[str]]], bool]:
        """The deck's General segments (cards left, cards they may be) and a pending target."""
        piles: list[list[str]] = [[] for _ in range(self.players)]
        first = len(fc.full_deck())
        segments: list[list[Any]] = []  # [left, Counter] from the top down
        sources: list[int] = []
        for event in events:
            kind, data = event.kind, event.data
            if kind == "play":
                piles[event.seat] += [data["card"]] * int(data["count"])
            elif kind == "reshuffle":
                gathered = Counter(card for pile in piles for card in pile)
                segments.append([sum(gathered.values()), gathered])
                piles = [[] for _ in range(self.players)]
            elif kind == "draw":
                sources = []
                for _ in range(int(data["count"])):
                    if first:
                        first -= 1
                        sources.append(-1)
                        continue
                    index = next(i for i, seg in enumerate(segments) if seg[0])
                    segments[index][0] -= 1
                    sources.append(index)
            elif kind == "drew" and event.seat == self.seat:
                for card, index in zip(data["cards"], sources):
                    if index >= 0:
                        segments[index][1][card] -= 1
        target = bool(events) and events[-1].kind == "play" \
            and events[-1].data.get("card") == "counterattack"
        if piles != self.piles or first + sum(seg[0] for seg in segments) \
                != self.obs["deck_size"]:
            return [], target  # the events do not add up: keep to the observation alone
        return [(left, +cards) for left, cards in segments if left], target

    def _deal(self, rng: random.Random) -> tuple[list[str], list[str]]:
        """The unseen cards in a random order for the hands and the deck's top, and the rest."""
        pool: list[str] = self.unseen_cards
        bottom: list[str] = []
        for number, (left, kinds) in enumerate(self.segments):
            # The first split is always of all the unseen cards: made once, in __init__.
            options, others = self.first_split if number == 0 else _split(pool, kinds)
            if len(options) < left:  # this order of segments left too few: ignore them
                pool, bottom = self.unseen_cards, []
                break
            options = list(options)
            shuffle(options, rng)  # its first `left`: a uniform choice, in a random order
            bottom += options[:left]
            pool = options[left:] + others
        cards = list(pool)
        shuffle(cards, rng)
        return cards, bottom

    def sample(self, rng: random.Random) -> State:
        obs = self.obs
        state = _fresh(self.template, rng, 0)
        cards, bottom = self._deal(rng)
        hands = []
        for seat, size in enumerate(obs["hand_sizes"]):
            if seat == self.seat:
                hands.append(list(self.hand))
            else:
                hands.append(cards[:size])
                del cards[:size]
        state.hands, state.deck = hands, cards + bottom
        state.piles = [list(pile) for pile in self.piles]
        state.loot, state.earth = list(obs["loot"]), obs["earth"]
        state.player, state.turn = obs["current_player"], obs["turn"]
        state.choosing_target = self.choosing_target
        return state


# -- Circus Flohcati ----------------------------------------------------------------------
def flohcati_card(message: dict[str, Any]) -> str:
    code: str = message["code"]
    return code


class FlohcatiSampler:
    """Circus Flohcati: the unknown part of other hands and the deck order are hidden.

    The observation already lists every card the seat knows in another hand
    (``known_cards``), kept by the engine. Beyond it, the seat remembers each
    public "pass" of a Solicitar: that seat holds no unknown card of the colour
    until an Atraerse moves a card it cannot follow. Unknown hand cards are
    dealt first to the seats with such exclusions, from the cards they may
    hold, then to the others; the rest is the deck, in random order.
    """

    def __init__(self, observation: dict[str, Any], events: Sequence[SeenEvent]) -> None:
        self.obs = obs = observation
        self.seat = obs["seat"]
        self.variant = obs["variant"]
        self.players = len(obs["hand_sizes"])
        self.hand = {flohcati_card(card) for card in obs["hand"]}
        self.known = [{flohcati_card(card) for card in holder["cards"]}
                      for holder in obs["known_cards"]]
        self.trios = [[tuple(flohcati_card(card) for card in trio["cards"])
                       for trio in seat["trios"]] for seat in obs["trios"]]
        self.display = [flohcati_card(card) for card in obs["display"]]
        self.discard = [flohcati_card(card) for card in obs["discard"]]
        self.match = flohcati_card(obs["matching_card"]) if obs.get("matching_card") else ""
        # A Counter: the action cards come in copies (hands hold circus cards only).
        seen = Counter([*self.hand, *self.display, *self.discard])
        seen.update(card for laid in self.trios for trio in laid for card in trio)
        seen.update(card for holder, cards in enumerate(self.known) if holder != self.seat
                    for card in cards)
        if self.match:
            seen[self.match] += 1
        self.unseen = fl.sort_cards((Counter(fl.full_deck(self.variant)) - seen).elements())
        self.excluded = self._exclusions(events)
        # Seats with exclusions are dealt first: they take from fewer cards.
        self.order = sorted((seat for seat in range(self.players) if seat != self.seat),
                            key=lambda seat: -len(self.excluded[seat]))
        self.took_card = obs["decision"] == "end-of-turn" and "no card taken" not in obs["reason"]
        self.template = _template(fl.FlohcatiState, fl.GAME, self.players, self.variant)

    def _exclusions(self, events: Sequence[SeenEvent]) -> list[set[str]]:
        excluded: list[set[str]] = [set() for _ in range(self.players)]
        for event in events:
            if event.kind == "pass":
                excluded[event.seat].add(event.data["colour"])
            elif event.kind == "attract":
                excluded[event.seat].clear()
                excluded[int(event.data["source"])].clear()
        return excluded

    def _hands(self, rng: random.Random) -> tuple[list[set[str]], list[str]]:
        cards = list(self.unseen)
        shuffle(cards, rng)
        hands: list[set[str]] = [set() for _ in range(self.players)]
        hands[self.seat] = set(self.hand)
        for seat in self.order:
            hidden = self.obs["hand_sizes"][seat] - len(self.known[seat])
            banned = self.excluded[seat]
            # Hands hold circus cards only (action cards go to the discard pile).
            circus = [card for card in cards if card in fl.CIRCUS]
            chosen = [card for card in circus if fl.CIRCUS[card][0] not in banned][:hidden]
            if len(chosen) < hidden:  # cannot happen for a true view; keep to the counts
                chosen = circus[:hidden]
            taken = set(chosen)
            cards = [card for card in cards if card not in taken]
            hands[seat] = self.known[seat] | taken
        return hands, cards

    def sample(self, rng: random.Random) -> State:
        obs = self.obs
        state = _fresh(self.template, rng, obs["decisions"])
        hands, deck = self._hands(rng)
        state.hands, state.deck = hands, deck
        state.display, state.discard = list(self.display), list(self.discard)
        state.trios = [list(laid) for laid in self.trios]
        own = self.known[self.seat]
        state.known = [[set() if holder == observer else
                        set(own) if holder == self.seat else set(self.known[holder])
                        for holder in range(self.players)] for observer in range(self.players)]
        state.player, state.turn = obs["current_player"], obs["turn"]
        state.flips, state.took_card, state.gala_caller = obs["flips_this_turn"], self.took_card, -1
        state.phase = obs["decision"]
        state.action_card, state.opening = obs["action_card"], obs["opening"]
        state.giver, state.requested_colour = obs["giver"], obs["requested_colour"]
        state.direction, state.match = obs["direction"], self.match
        return state


# -- Animal Circus ----------------------------------------------------------------------
def animal_card(message: dict[str, Any]) -> ac.Card:
    return ac.CARDS[int(message["value"]), int(message.get("color", 0))]


def _animal_cards(messages: Iterable[dict[str, Any]]) -> list[ac.Card]:
    return [animal_card(message) for message in messages]


class _Holder:
    """What the seat knows of one opponent's hand: known cards, and where the others came from.

    A Draw pile holds only cards of its own colour, so a card drawn from pile
    ``c`` (by a draw or a Monkey) is a slot labelled ``c``; a card whose origin
    the seat cannot follow (a Penguin between two others) is a wild slot.
    """

    def __init__(self) -> None:
        self.known: list[ac.Card] = []
        self.labels: Counter[int] = Counter()
        self.wild = 0
        self.broken = False

    def size(self) -> int:
        return len(self.known) + sum(self.labels.values()) + self.wild

    def lose(self, card: ac.Card) -> None:
        """A card seen leaving the hand."""
        if card in self.known:
            self.known.remove(card)
        elif self.labels[card.color] > 0:
            self.labels[card.color] -= 1
        elif self.wild > 0:
            self.wild -= 1
        else:
            self.broken = True

    def forget(self, change: int) -> None:
        """An unseen card left or came: every slot becomes wild."""
        self.wild = self.size() + change
        self.known, self.labels = [], Counter()


class AnimalCircusSampler:
    """Animal Circus: other hands, every Draw pile (but its own known top) and the put-away cards.

    Each Draw pile and put-away set holds cards of its seat's colour only, so
    the unseen cards are dealt colour by colour: to that colour's Draw pile,
    put-away cards and the hand slots known to come from that pile, the rest
    to the hands' wild slots. Following the events, the seat knows cards
    that entered hands in public (a Rabbit) or before its eyes (a Penguin it
    took part in). Not modelled: what a forced play says of a hand (starting a
    new Ring shows the player could not add to it).
    """

    def __init__(self, observation: dict[str, Any], events: Sequence[SeenEvent]) -> None:
        self.obs = obs = observation
        self.seat = obs["seat"]
        self.players = len(obs["hand_sizes"])
        self.hand = _animal_cards(obs["hand"])
        self.top = _animal_cards(obs["known_draw_top"])
        self.ring = _animal_cards(obs["ring"])
        self.scored = [_animal_cards(pile["cards"]) for pile in obs["score_piles"]]
        self.out = _animal_cards(obs["out_of_game"])
        self.holders = self._follow(events)
        self.by_colour, self.excess = self._colours()
        constraints, decision = obs["constraints"], obs["decision"]
        self.pending = ac.Pending(int(decision["ability"]), bool(decision["copied"])) \
            if decision["kind"] not in ("", "play") else None
        self.drawn = _animal_cards(constraints["parrot_cards"])
        self.template = _template(ac.AnimalCircusState, ac.GAME, self.players, "standard")

    def _follow(self, events: Sequence[SeenEvent]) -> list[_Holder]:
        holders = [_Holder() for _ in range(self.players)]
        me, penguin = self.seat, None
        for event in events:
            kind, seat, data = event.kind, event.seat, event.data
            if kind == "draw" and seat != me:
                holders[seat].labels[seat] += int(data["count"])
            elif kind == "monkey" and seat != me:
                holders[seat].labels[int(data["pile"])] += int(data["count"])
            elif kind == "play" and seat != me:
                holders[seat].lose(animal_card(data["card"]))
            elif kind == "kangaroo" and int(data["target"]) != me:
                holders[int(data["target"])].lose(animal_card(data["card"]))
            elif kind == "rabbit" and seat != me:
                holders[seat].known.append(animal_card(data["card"]))
            elif kind == "penguin":
                penguin = (seat, int(data["target"]))
                if me not in penguin:
                    holders[penguin[1]].forget(-1)
                    holders[seat].wild += 1
            elif kind == "penguin-card" and penguin is not None:
                taker, victim = penguin
                card = animal_card(data["card"])
                if taker == me:
                    holders[victim].lose(card)
                else:
                    holders[taker].known.append(card)
        for seat, holder in enumerate(holders):
            if seat != me and (holder.broken or holder.size() != self.obs["hand_sizes"][seat]):
                holder.broken = False
                holder.forget(self.obs["hand_sizes"][seat] - holder.size())
        return holders

    def _colours(self) -> tuple[list[list[ac.Card]], list[int]]:
        """The unseen cards by colour, and how many of each go to wild hand slots."""
        seen = set(self.hand) | set(self.top) | set(self.ring) | set(self.out)
        seen |= {card for pile in self.scored for card in pile}
        seen |= {card for holder in self.holders for card in holder.known}
        away = self.obs["put_away_per_player"]
        by_colour = [[card for card in ac.DECKS[colour] if card not in seen]
                     for colour in range(self.players)]
        excess = [len(by_colour[colour]) - self._pile_unknown(colour) - away
                  - sum(holder.labels[colour] for holder in self.holders)
                  for colour in range(self.players)]
        if min(excess) < 0:  # the labels do not add up: keep to the counts alone
            for seat, holder in enumerate(self.holders):
                if seat != self.seat:
                    holder.forget(0)
            return self._colours()
        return by_colour, excess

    def _pile_unknown(self, colour: int) -> int:
        size: int = self.obs["draw_sizes"][colour]
        return size - (len(self.top) if colour == self.seat else 0)

    def _deal(self, rng: random.Random) -> tuple[list[list[ac.Card]], list[list[ac.Card]],
                                                  list[list[ac.Card]]]:
        away = self.obs["put_away_per_player"]
        hands = [list(holder.known) for holder in self.holders]
        hands[self.seat] = list(self.hand)
        piles, put_away, wild = [], [], []
        for colour, cards in enumerate(self.by_colour):
            cards = list(cards)
            shuffle(cards, rng)
            pile = self._pile_unknown(colour)
            piles.append((self.top if colour == self.seat else []) + cards[:pile])
            put_away.append(cards[pile:pile + away])
            rest = cards[pile + away:]
            for seat, holder in enumerate(self.holders):
                count = holder.labels[colour]
                if count and seat != self.seat:
                    hands[seat] += rest[:count]
                    del rest[:count]
            wild += rest
        shuffle(wild, rng)
        for seat, holder in enumerate(self.holders):
            if seat != self.seat and holder.wild:
                hands[seat] += wild[:holder.wild]
                del wild[:holder.wild]
        for hand in hands:
            hand.sort()
        return hands, piles, put_away

    def sample(self, rng: random.Random) -> State:
        obs = self.obs
        state = _fresh(self.template, rng, 0)
        state.hands, state.draw_piles, state.put_away = self._deal(rng)
        state.out_of_game, state.ring = list(self.out), list(self.ring)
        state.score_piles = [list(pile) for pile in self.scored]
        state.known_top = [len(self.top) if seat == self.seat else 0
                           for seat in range(self.players)]
        state.player, state.previous = obs["current_player"], obs["previous_player"]
        state.turn, state.pending = obs["turn"], self.pending
        constraints = obs["constraints"]
        state.parrot = bool(constraints["parrot"])
        state.drawn = list(self.drawn)
        state.no_draw = bool(constraints["bear"])
        state.bat_bind = bool(constraints["lower_than"]) and self.ring[-1].value != ac.BAT
        own = self.scored[state.player]
        state.score_top_at_start = own[-1] if own else None
        state.next_no_draw = state.next_parrot = state.next_bat_bind = False
        state.derive_from_piles()
        return state


SAMPLERS: dict[str, Callable[[dict[str, Any], Sequence[SeenEvent]], Sampler]] = {
    "flea-circus": FleaSampler, "flohcati": FlohcatiSampler,
            "animal-circus": AnimalCircusSampler}


def sampler_for(game: str, observation: dict[str, Any], events: Sequence[SeenEvent]) -> Sampler:
    """The sampler of ``game`` for one seat's view (its observation and the events it saw)."""
    return SAMPLERS[game](observation, events)


def determinize(game: str, observation: dict[str, Any], events: Sequence[SeenEvent],
                rng: random.Random) -> State:
    """One state consistent with the view; build a :func:`sampler_for` to sample many."""
    return sampler_for(game, observation, events).sample(rng)
