"""Circus Flohcati over many random games: conservation, termination, replay, secrecy."""

from __future__ import annotations

import copy
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from referee import wire
from referee.games import get_game, replay
from referee.games.base import Action
from referee.games.flohcati import (
    DECISION_LIMIT,
    FlohcatiState,
    full_deck,
    has_every_colour,
    is_circus,
    possible_trios,
)

GAME = get_game("flohcati")
ALL_CARDS = {variant: sorted(full_deck(variant)) for variant in GAME.variants}
END_REASONS = {"deck-empty", "gala", "decision-limit"}

variants = st.sampled_from(GAME.variants)
players = st.integers(2, 5)
seeds = st.integers(0, 2**63 - 1)


def check_position(state: FlohcatiState, actions: list[Action]) -> None:
    """What must hold after every action; ``actions``: the position's legal actions, listed
    once for the check and the next move."""
    assert sorted(state.all_cards()) == ALL_CARDS[state.variant], "the 89 cards"
    for observer in range(state.num_players):
        for holder in range(state.num_players):
            assert state.known[observer][holder] <= state.hands[holder], "known is true"
    for hand in state.hands:
        assert all(map(is_circus, hand)), "action cards never reach a hand"
    colours = [card.rsplit("-", 1)[0] for card in state.display]
    assert len(colours) == len(set(colours)), "the display never repeats a colour"
    if not state.is_terminal():
        assert actions, "a live game always offers an action"
        assert len({action.code for action in actions}) == len(actions), "codes are unique"


def play_random(variant: str, players: int, seed: int, choices: random.Random,
                check_every_step: bool) -> FlohcatiState:
    state = GAME.new_state(players, variant, seed)
    actions = state.legal_actions()
    while not state.is_terminal():
        assert actions
        state.apply(choices.randrange(len(actions)), actions)  # listed once, as the referee does
        actions = state.legal_actions()
        if check_every_step:
            check_position(state, actions)
    return state


def random_step(state: FlohcatiState, choices: random.Random) -> None:
    """A uniformly random legal action, the actions listed once as the referee does."""
    actions = state.legal_actions()
    state.apply(choices.randrange(len(actions)), actions)


def check_end(state: FlohcatiState) -> None:
    assert state.end_reason in END_REASONS and len(state.history) <= DECISION_LIMIT
    if state.end_reason == "deck-empty":
        assert state.deck == [] and not state.match
    if state.end_reason == "gala":
        assert has_every_colour(state.hands[state.gala_caller])
    final = state.final_state()
    for seat, hand in enumerate(final["hands"]):
        best = {}
        for card in hand:
            colour, value = card.rsplit("-", 1)
            best[colour] = max(best.get(colour, 0), int(value))
        bonus = {"en": 10, "es": 0}[state.variant] if seat == final["gala_caller"] else 0
        assert final["scores"][seat] == sum(best.values()) + 10 * len(final["trios"][seat]) + bonus


@settings(max_examples=300, deadline=None)
@given(variant=variants, players=players, seed=seeds, choice_seed=st.integers(0, 2**32))
def test_cards_are_conserved_every_game_ends_and_replays(variant, players, seed, choice_seed):
    state = play_random(variant, players, seed, random.Random(choice_seed),
                        check_every_step=True)
    check_end(state)
    again = replay(state.record())
    assert again.final_state() == state.final_state()
    assert again.scores() == state.scores() and again.end_reason == state.end_reason


@settings(max_examples=40, deadline=None)
@given(variant=variants, players=players, seed=seeds, data=st.data())
def test_games_with_hypothesis_chosen_actions(variant, players, seed, data):
    """Hypothesis picks every action itself, so it can shrink to a short failing game."""
    state = GAME.new_state(players, variant, seed)
    actions = state.legal_actions()
    while not state.is_terminal():
        state.apply(data.draw(st.integers(0, len(actions) - 1), label=state.phase), actions)
        actions = state.legal_actions()
        check_position(state, actions)
    check_end(state)
    assert replay(state.record()).final_state() == state.final_state()


def test_thousands_of_seeded_games_end_and_replay():
    reasons: Counter = Counter()
    for seed in range(2000):
        variant = GAME.variants[seed % 2]
        state = play_random(variant, 2 + seed // 2 % 4, seed, random.Random(-seed),
                            check_every_step=False)
        check_position(state, state.legal_actions())
        check_end(state)
        reasons[state.end_reason, variant] += 1
        if seed % 20 == 0:
            assert replay(state.record()).final_state() == state.final_state()
    assert reasons["deck-empty", "en"] > 0 and reasons["deck-empty", "es"] > 0
    assert reasons["gala", "en"] + reasons["gala", "es"] > 0


def test_es_trios_are_offered_exactly_in_turns_that_brought_a_card():
    """[ES] A trio "después de tomar una carta". In their own turn a player's hand only
    gains cards and loses laid trios, so the turn took a card iff the hand grew beyond
    them: checked against the engine's offer at every end-of-turn decision."""
    offered = without_card = 0
    for seed in range(600):
        state = GAME.new_state(2 + seed % 4, "es", seed)
        choices = random.Random(seed)
        turn = start = laid = -1
        while not state.is_terminal():
            hand, trios = state.hands[state.player], state.trios[state.player]
            if state.turn != turn:
                turn, start, laid = state.turn, len(hand), len(trios)
            actions = state.legal_actions()
            if state.phase == "end-of-turn":
                took = len(hand) + 3 * (len(trios) - laid) > start
                offers = any(a.payload["type"] == "trio" for a in actions)
                may_lay = bool(possible_trios(hand))
                assert offers == (took and may_lay)
                offered += offers
                without_card += not took and may_lay
            state.apply(choices.randrange(len(actions)), actions)
    assert offered and without_card  # both cases come up


# -- secrecy ---------------------------------------------------------------------------
def hidden_twin(state: FlohcatiState, seat: int, rng: random.Random) -> FlohcatiState:
    """The same position with every card ``seat`` cannot place dealt anew.

    The circus cards in other hands that ``seat`` does not know of and the whole
    deck are shuffled together; every other hand keeps its size and the cards
    ``seat`` knows of, and action cards stay in the deck (``seat`` knows that no
    hand holds one). Other seats' knowledge follows their cards, so the twin is
    a consistent position. (A shallow copy: the twin is only looked at.)
    """
    twin = copy.copy(state)
    others = [other for other in range(state.num_players) if other != seat]
    unknown = {other: sorted(state.hands[other] - state.known[seat][other]) for other in others}
    circus = [card for cards in unknown.values() for card in cards]
    circus += [card for card in state.deck if is_circus(card)]
    rng.shuffle(circus)
    renamed: dict[str, str] = {}
    twin.hands = list(state.hands)
    for other in others:
        dealt, circus = circus[:len(unknown[other])], circus[len(unknown[other]):]
        renamed.update(zip(unknown[other], dealt))
        twin.hands[other] = (state.hands[other] - set(unknown[other])) | set(dealt)
    twin.deck = circus + [card for card in state.deck if not is_circus(card)]
    rng.shuffle(twin.deck)
    twin.known = [[{renamed.get(card, card) for card in cards} for cards in row]
                  for row in state.known]
    assert sorted(twin.all_cards()) == ALL_CARDS[state.variant]
    assert twin.known[seat] == state.known[seat]
    return twin


def check_secrecy(state: FlohcatiState, rng: random.Random) -> None:
    for seat in range(state.num_players):
        twin = hidden_twin(state, seat, rng)
        assert twin.observation(seat) == state.observation(seat)
        if state.current_seat() == seat and not state.is_terminal():
            assert twin.legal_actions() == state.legal_actions()
            assert twin.prompt() == state.prompt()


@settings(max_examples=200, deadline=None)
@given(variant=variants, players=players, seed=seeds, steps=st.integers(0, 250),
       shuffle_seed=st.integers(0, 2**32))
def test_observation_does_not_depend_on_cards_the_seat_cannot_see(variant, players, seed,
                                                                  steps, shuffle_seed):
    state = GAME.new_state(players, variant, seed)
    choices, rng = random.Random(seed), random.Random(shuffle_seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        random_step(state, choices)
    check_secrecy(state, rng)


def test_secrecy_along_whole_games():
    """Positions of whole games, until every kind of decision has been checked."""
    wanted = {"en": {"turn", "target", "give", "open-take", "end-of-turn"},
              "es": {"turn", "target", "give", "request", "nueva", "match", "end-of-turn"}}
    checked: dict[str, set[str]] = {"en": set(), "es": set()}
    for seed in range(400):
        variant = GAME.variants[seed % 2]
        if seed >= 60 and checked[variant] >= wanted[variant]:
            continue
        state = GAME.new_state(2 + seed % 4, variant, seed)
        choices, rng = random.Random(seed), random.Random(~seed)
        while not state.is_terminal():
            if state.phase not in checked[variant] or choices.random() < 0.1:
                check_secrecy(state, rng)
                checked[variant].add(state.phase)
            random_step(state, choices)
        check_secrecy(state, rng)
    assert checked["en"] >= wanted["en"] and checked["es"] >= wanted["es"]


def test_third_parties_cannot_tell_which_card_atraerse_took():
    """Whatever card Atraerse takes, the other seats see the same game."""
    checked = 0
    for seed in range(40):
        players = 3 + seed % 3
        state = GAME.new_state(players, "es", seed)
        choices = random.Random(seed)
        done = False
        while not state.is_terminal():
            if state.phase == "target" and state.action_card == "atraerse" and not done:
                done = True  # one per game: each check replays the game per card
                for index, action in enumerate(state.legal_actions()):
                    victim, taker = action.payload["target"], state.player
                    third = [seat for seat in range(players) if seat not in (victim, taker)]
                    seen = set()
                    for card in sorted(state.hands[victim]):
                        twin = replay(state.record())
                        twin.rng.choice = lambda cards, card=card: card  # type: ignore
                        twin.apply(index)
                        assert card in twin.hands[taker]
                        seen.add(repr([(twin.observation(seat),
                                        [e.data for e in twin.events if e.visible_for(seat)])
                                       for seat in third]))
                    assert len(seen) == 1
                    checked += 1
            random_step(state, choices)
    assert checked >= 40


def test_a_seats_own_hand_is_what_the_observation_shows_and_other_hands_are_not():
    state = GAME.new_state(3, "es", 11)
    choices = random.Random(11)
    for _ in range(120):
        random_step(state, choices)
    for seat in range(3):
        text = str(state.observation(seat))
        for other in range(3):
            for card in state.hands[other] - state.known[seat][other]:
                assert (card in text) == (other == seat)


# -- the wire --------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(variant=variants, players=players, seed=seeds, choice_seed=st.integers(0, 2**32))
def test_observations_and_actions_convert_to_protocol_messages(variant, players, seed,
                                                                choice_seed):
    state = GAME.new_state(players, variant, seed)
    choices = random.Random(choice_seed)
    converted: set[str] = set()
    while not state.is_terminal():
        if state.phase not in converted or choices.random() < 0.03:
            converted.add(state.phase)
            seat = choices.randrange(players)
            message = wire.observation_message("flohcati", state.observation(seat))
            flohcati = message.flohcati
            assert flohcati.seat == seat and flohcati.variant == variant
            assert flohcati.deciding_seat == state.current_seat()
            assert [card.code for card in flohcati.hand] == \
                [card["code"] for card in state.observation(seat)["hand"]]
            for action in state.legal_actions():
                legal = wire.action_message("flohcati", action)
                assert legal.code == action.code
                assert legal.payload.flohcati.type == action.payload["type"]
        random_step(state, choices)
    for seat in range(players):
        final = wire.observation_message("flohcati", state.observation(seat)).flohcati
        assert final.decision == "" and list(final.hand_sizes) == list(map(len, state.hands))
    wire.struct(state.final_state())
