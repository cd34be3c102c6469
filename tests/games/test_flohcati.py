"""Circus Flohcati: the rulebooks' worked examples, every action card, the endings.

Colours stand for the rulebooks' attractions; the examples use Rope Walking =
red, Flying Trapeze = orange, Rolling Globe = yellow, Knife Throwing = green,
Unicycle = blue.
"""

from __future__ import annotations

from collections import Counter

import pytest

from referee import wire
from referee.games import get_game
from referee.games.base import GameConfigError, IllegalActionError
from referee.games.flohcati import COLOURS, DECISION_LIMIT, FlohcatiState, full_deck

GAME = get_game("flohcati")
DAVE, BEA, CAL, DOT = 0, 1, 2, 3
FILLER = ("grey-6", "grey-7")  # two harmless cards left in a deck so the game goes on
DAVES_TRIO = {"red-6", "orange-6", "yellow-6"}
EVERY_COLOUR = {f"{colour}-5" for colour in COLOURS[3:]}  # with the trio: all ten colours


def layout(variant: str = "en", hands=(), display=(), deck=FILLER, trios=None,
           players: int = 3, player: int = 0, seed: int = 1) -> FlohcatiState:
    """A position laid out by hand: ``deck`` top first; the rest of the cards are
    on the discard pile, out of the game."""
    state = GAME.new_state(players, variant, seed)
    hands = [set(hand) for hand in hands] + [set() for _ in range(players - len(hands))]
    trios = trios or [[] for _ in range(players)]
    rest = full_deck(variant)
    placed = [c for hand in hands for c in hand] + list(display) + list(deck) \
        + [c for seat_trios in trios for trio in seat_trios for c in trio]
    for card in placed:
        rest.remove(card)
    state.hands, state.display, state.deck, state.discard = hands, list(display), list(deck), rest
    state.trios = [[tuple(trio) for trio in seat_trios] for seat_trios in trios]
    state.player, state.phase = player, "turn"
    assert_all_cards(state)
    return state


def assert_all_cards(state: FlohcatiState) -> None:
    assert Counter(state.all_cards()) == Counter(full_deck(state.variant))


def codes(state: FlohcatiState) -> list[str]:
    return [action.code for action in state.legal_actions()]


def play(state: FlohcatiState, *moves: str) -> None:
    for code in moves:
        available = codes(state)
        assert code in available, f"{code!r} not in {available}"
        state.apply(available.index(code))
        assert_all_cards(state)


def known(state: FlohcatiState, observer: int, holder: int) -> set[str]:
    return {card["code"] for card in state.observation(observer)["known_cards"][holder]["cards"]}


def check_wire(state: FlohcatiState) -> None:
    for seat in range(state.num_players):
        wire.observation_message("flohcati", state.observation(seat))
    for action in state.legal_actions():
        wire.action_message("flohcati", action)


# -- setup ---------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["en", "es"])
def test_a_new_game_has_89_cards_in_the_deck_and_the_first_seat_must_flip(variant):
    state = GAME.new_state(4, variant, seed=3)
    assert len(state.deck) == 89 and not any(state.hands) and not state.display
    assert Counter(state.deck) == Counter(full_deck(variant))
    assert len({c for c in state.deck if "-" in c and c[-1].isdigit()}) == 80
    assert state.current_seat() == 0 and codes(state) == ["flip"]
    assert GAME.variants == ("en", "es") and GAME.default_variant == "en"
    assert (GAME.min_players, GAME.max_players) == (2, 5)


@pytest.mark.parametrize("variant", ["en", "es"])
@pytest.mark.parametrize("players", [1, 6])
def test_only_two_to_five_players_may_play(variant, players):
    with pytest.raises(GameConfigError, match="2-5 players"):
        GAME.new_state(players, variant, 1)


def test_action_cards_differ_by_variant():
    en, es = Counter(full_deck("en")), Counter(full_deck("es"))
    assert {k: v for k, v in en.items() if v == 3} == \
        {"take-a-card": 3, "open-the-deck": 3, "pick-a-card": 3}
    assert {k: v for k, v in es.items() if v == 3} == \
        {"nueva-atraccion": 3, "atraerse": 3, "solicitar": 3}


# -- the worked examples -------------------------------------------------------------
def dave_busts(variant: str) -> FlohcatiState:
    """Dave flips Rope Walking, Flying Trapeze, Rolling Globe, then the 5-Rolling Globe
    again; he holds a trio and all ten colours."""
    state = layout(variant, hands=[DAVES_TRIO | EVERY_COLOUR, {"teal-1"}],
                   deck=["red-2", "orange-3", "yellow-1", "yellow-5", *FILLER])
    play(state, "flip", "flip", "flip")
    assert state.display == ["red-2", "orange-3", "yellow-1"]
    play(state, "flip")
    assert state.discard[-1] == "yellow-5"  # out of the game
    assert state.display == ["red-2", "orange-3", "yellow-1"]  # the display stays
    assert state.hands[DAVE] == DAVES_TRIO | EVERY_COLOUR  # nothing taken
    return state


def test_en_dave_busts_on_the_second_rolling_globe():
    """[EN] "You are not allowed to form a Trio or call a Gala Show either." """
    state = dave_busts("en")
    assert state.trios[DAVE] == []  # no trio, no Gala: the turn is simply over
    assert state.current_seat() == BEA and state.decision_kind() == "turn"
    assert state.flips == 0 and [e.data["card"] for e in state.events
                                 if e.kind == "bust"] == ["yellow-5"]


def test_es_a_bust_ends_the_turn_whose_end_may_still_call_the_gala():
    """[ES] "Si se ve obligado a detenerse girando una carta coincidente, descarta la carta
    que acaba de girar y termina su turno." and "Cuando un jugador tiene al menos una carta de
    cada uno de los 10 colores (pulgas) en su mano, puede elegir, al final de su turno,
    terminar el juego inmediatamente." Nothing in es forbids the Gala after a bust; no card
    was taken, so no trio."""
    state = dave_busts("es")
    assert state.current_seat() == DAVE and state.decision_kind() == "end-of-turn"
    assert codes(state) == ["gala:yes", "gala:no"]  # he holds a trio: not offered
    assert "no trio" in state.observation(BEA)["reason"]
    play(state, "gala:yes")
    assert state.end_reason == "gala" and state.trios[DAVE] == []


def test_es_a_bust_without_all_ten_colours_still_asks_the_end_of_turn_decision():
    """Asked after every es bust (but one on the last card), so nobody learns from the
    count of decisions whether the busted hand holds all ten colours."""
    state = layout("es", hands=[DAVES_TRIO], display=["red-2"], deck=["red-5", *FILLER])
    play(state, "flip")
    assert state.decision_kind() == "end-of-turn" and codes(state) == ["done"]
    play(state, "done")
    assert state.current_seat() == BEA and state.decision_kind() == "turn"


def test_dave_takes_the_unicycle_and_lays_down_a_trio_of_ones():
    state = layout("en", hands=[{"red-1", "purple-1", "pink-4"}],
                   deck=["green-5", "blue-1", *FILLER])
    play(state, "flip", "flip")
    assert state.display == ["green-5", "blue-1"]
    play(state, "take:1")  # he stops drawing and takes the 1-Unicycle
    assert state.decision_kind() == "end-of-turn" and state.current_seat() == DAVE
    assert codes(state) == ["trio:red-1,blue-1,purple-1", "done"]
    play(state, "trio:red-1,blue-1,purple-1")
    assert state.trios[DAVE] == [("red-1", "blue-1", "purple-1")]
    assert state.hands[DAVE] == {"pink-4"}
    assert state.display == ["green-5"]
    assert codes(state) == ["done"]  # no more trios, no Gala
    play(state, "done")
    assert state.current_seat() == BEA
    assert state.scores()[DAVE] == 4 + 10
    obs = state.observation(BEA)
    assert [card["code"] for card in obs["trios"][DAVE]["trios"][0]["cards"]] == \
        ["red-1", "blue-1", "purple-1"]
    assert obs["trios"][DAVE]["trios"][0]["value"] == 1


def test_dave_scores_22_card_points_and_10_for_his_trio():
    # Seven cards, five colours: 3 + 7 + 4 + 2 + 6 = 22; the lower cards of a colour
    # do not count.
    hand = {"red-3", "orange-7", "orange-1", "yellow-4", "green-2", "green-0", "blue-6"}
    state = layout("en", hands=[hand], trios=[[("pink-5", "teal-5", "grey-5")], [], []])
    assert state.scores()[DAVE] == 22 + 10 == 32


def test_a_trio_still_in_hand_scores_nothing_extra():
    state = layout("en", hands=[{"red-5", "orange-5", "yellow-5"}])
    assert state.scores()[DAVE] == 15


def test_the_spanish_example_scores_two_trios_and_27_card_points():
    # 20 for two trios; 6 + 4 + 0 + 7 + 5 + 5 in hand; the three duplicates score nothing.
    hand = {"red-6", "red-2", "orange-4", "yellow-0", "green-7", "green-3", "teal-5",
            "blue-5", "blue-1"}
    trios = [[("red-4", "pink-4", "grey-4"), ("orange-2", "purple-2", "brown-2")], [], []]
    state = layout("es", hands=[hand], trios=trios)
    assert state.scores()[DAVE] == 20 + 27 == 47


# -- the turn ------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["en", "es"])
def test_with_an_empty_display_the_player_must_flip(variant):
    state = layout(variant, hands=[{"red-1"}], deck=["orange-3", *FILLER])
    assert codes(state) == ["flip"]
    play(state, "flip")
    expected = ["take:0", "flip"] + (["stop"] if variant == "es" else [])
    assert codes(state) == expected


def test_en_the_player_may_take_without_flipping_but_never_stop():
    state = layout("en", display=["red-1", "orange-2"], deck=["yellow-3", *FILLER])
    assert codes(state) == ["take:0", "take:1", "flip"]
    play(state, "flip")
    assert "stop" not in codes(state)
    play(state, "take:2")
    assert state.hands[DAVE] == {"yellow-3"} and codes(state) == ["done"]
    play(state, "done")
    assert state.current_seat() == BEA


def test_es_stop_needs_a_flip_this_turn_and_ends_the_turn_without_a_card():
    state = layout("es", display=["red-1"], deck=["yellow-3", *FILLER])
    assert codes(state) == ["take:0", "flip"]
    play(state, "flip", "stop", "done")
    assert state.hands[DAVE] == set() and state.display == ["red-1", "yellow-3"]
    assert state.current_seat() == BEA and codes(state) == ["take:0", "take:1", "flip"]


def test_a_taken_card_is_known_to_everyone_and_leaves_knowledge_when_laid_in_a_trio():
    state = layout("en", hands=[{"red-1", "orange-1", "pink-3"}],
                   display=["yellow-1", "blue-2"])
    play(state, "take:0")
    assert known(state, BEA, DAVE) == known(state, CAL, DAVE) == {"yellow-1"}
    assert known(state, DAVE, DAVE) == {"yellow-1"}  # own: what all the others know
    play(state, "trio:red-1,orange-1,yellow-1", "done")
    assert known(state, BEA, DAVE) == set()
    assert state.observation(BEA)["hand_sizes"] == [1, 0, 0]


# -- variant en: action cards ----------------------------------------------------------
def test_en_take_a_card_the_opponent_chooses_and_shows_the_card():
    state = layout("en", hands=[{"red-1"}, {"orange-2", "yellow-7"}, set()],
                   deck=["take-a-card", *FILLER])
    play(state, "flip")
    assert state.discard[-1] == "take-a-card"
    assert state.decision_kind() == "target" and state.current_seat() == DAVE
    assert codes(state) == ["target:1"]  # Cal holds no card
    play(state, "target:1")
    # Bea decides: the decision is hers.
    assert state.current_seat() == BEA and state.decision_kind() == "give"
    assert codes(state) == ["give:orange-2", "give:yellow-7"]
    obs = state.observation(CAL)
    assert (obs["giver"], obs["receiver"], obs["deciding_seat"]) == (BEA, DAVE, BEA)
    assert obs["action_card"] == "take-a-card" and "give to seat 0" in obs["reason"]
    check_wire(state)
    play(state, "give:orange-2")
    assert state.hands[DAVE] == {"red-1", "orange-2"} and state.hands[BEA] == {"yellow-7"}
    assert known(state, CAL, DAVE) == {"orange-2"} == known(state, BEA, DAVE)
    assert codes(state) == ["done"]  # no take or flip after an action card
    play(state, "done")
    assert state.current_seat() == BEA and state.decision_kind() == "turn"


def test_en_take_a_card_has_no_effect_when_no_opponent_holds_a_card():
    state = layout("en", hands=[{"red-1"}], deck=["take-a-card", *FILLER])
    play(state, "flip")
    assert state.decision_kind() == "end-of-turn" and state.hands[DAVE] == {"red-1"}
    assert state.discard[-1] == "take-a-card" and codes(state) == ["done"]


def test_en_pick_a_card_takes_a_random_card_for_all_to_see():
    taken = set()
    for seed in range(12):
        state = layout("en", hands=[set(), {"orange-2", "yellow-7", "blue-0"}, {"red-3"}],
                       deck=["pick-a-card", *FILLER], seed=seed)
        play(state, "flip")
        assert codes(state) == ["target:1", "target:2"]
        play(state, "target:1")
        (card,) = state.hands[DAVE]
        assert card in {"orange-2", "yellow-7", "blue-0"} and card not in state.hands[BEA]
        assert known(state, CAL, DAVE) == {card} == known(state, BEA, DAVE)
        assert state.decision_kind() == "end-of-turn" and state.current_seat() == DAVE
        taken.add(card)
    assert len(taken) > 1  # random, not always the same card


def test_en_an_action_card_ends_the_taking_but_a_trio_may_still_be_laid():
    state = layout("en", hands=[{"red-4", "orange-4"}, {"yellow-4"}],
                   display=["blue-1"], deck=["pick-a-card", *FILLER])
    play(state, "flip", "target:1")
    assert state.hands[DAVE] == {"red-4", "orange-4", "yellow-4"}
    assert codes(state) == ["trio:red-4,orange-4,yellow-4", "done"]  # no take, no flip
    play(state, "done")
    assert state.current_seat() == BEA and state.display == ["blue-1"]


def test_en_open_the_deck_flips_to_a_repeat_carrying_out_action_cards_then_takes_one():
    deck = ["open-the-deck", "red-1", "take-a-card", "orange-2", "open-the-deck",
            "pick-a-card", "yellow-3", "red-5", *FILLER]
    state = layout("en", hands=[set(), {"blue-6", "pink-0"}, {"teal-2"}], deck=deck)
    play(state, "flip")
    # red-1 joins the display, then Take a Card needs an opponent.
    assert state.display == ["red-1"] and state.decision_kind() == "target"
    assert state.observation(DAVE)["opening"] is True
    play(state, "target:1")
    assert state.current_seat() == BEA
    play(state, "give:pink-0")
    # Flipping resumed: orange-2, Open the Deck (no extra effect), Pick a Card.
    assert state.display == ["red-1", "orange-2"] and state.decision_kind() == "target"
    assert state.action_card == "pick-a-card"
    play(state, "target:2")
    assert state.hands[DAVE] == {"pink-0", "teal-2"}
    # yellow-3 joins, red-5 repeats red: discarded, flipping stops, Dave takes one.
    assert state.display == ["red-1", "orange-2", "yellow-3"]
    assert state.discard[-1] == "red-5" and state.deck == list(FILLER)
    assert state.decision_kind() == "open-take"
    assert codes(state) == ["take:0", "take:1", "take:2"]
    play(state, "take:2", "done")
    assert state.hands[DAVE] == {"pink-0", "teal-2", "yellow-3"}
    assert state.current_seat() == BEA and not state.is_terminal()
    assert state.discard[-5:] == ["open-the-deck", "take-a-card", "open-the-deck",
                                  "pick-a-card", "red-5"]


def test_en_open_the_deck_stops_when_the_deck_runs_out_and_the_game_then_ends():
    state = layout("en", hands=[{"red-2", "orange-2"}], display=["blue-0"],
                   deck=["open-the-deck", "yellow-2", "green-6"])
    play(state, "flip")
    assert state.deck == [] and state.display == ["blue-0", "yellow-2", "green-6"]
    play(state, "take:1")
    assert state.decision_kind() == "end-of-turn"  # the turn is completed normally
    play(state, "trio:red-2,orange-2,yellow-2")
    assert not state.is_terminal()
    play(state, "done")
    assert state.is_terminal() and state.end_reason == "deck-empty"


def test_en_open_the_deck_with_nothing_to_take_goes_to_the_end_of_turn():
    state = layout("en", hands=[{"red-2"}], deck=["open-the-deck"])
    play(state, "flip", "done")
    assert state.is_terminal() and state.end_reason == "deck-empty"
    assert state.hands[DAVE] == {"red-2"}


# -- variant es: action cards ----------------------------------------------------------
def test_es_nueva_atraccion_flips_on_voids_action_cards_and_lets_the_player_stop():
    deck = ["nueva-atraccion", "red-1", "atraerse", "orange-5", "solicitar", *FILLER]
    state = layout("es", hands=[set(), {"blue-3"}], deck=deck)
    play(state, "flip")
    assert state.decision_kind() == "nueva" and codes(state) == ["flip", "stop"]
    play(state, "flip", "flip")
    assert state.discard[-1] == "atraerse"  # discarded without effect
    assert state.hands[BEA] == {"blue-3"} and state.decision_kind() == "nueva"
    play(state, "flip", "flip")
    assert state.display == ["red-1", "orange-5"] and state.discard[-1] == "solicitar"
    assert codes(state) == ["take:0", "take:1", "flip", "stop"]
    play(state, "take:1", "done")
    assert state.hands[DAVE] == {"orange-5"} and state.current_seat() == BEA


def test_es_nueva_atraccion_the_player_may_take_the_matching_card():
    state = layout("es", display=["red-1"], deck=["nueva-atraccion", "orange-2", "red-6",
                                                   *FILLER])
    play(state, "flip", "flip", "flip")
    assert state.decision_kind() == "match" and state.match == "red-6"
    assert codes(state) == ["take:0", "take:1", "take:match", "stop"]
    obs = state.observation(BEA)
    assert obs["matching_card"]["code"] == "red-6"
    check_wire(state)
    play(state, "take:match")
    assert state.hands[DAVE] == {"red-6"} and state.display == ["red-1", "orange-2"]
    assert "red-6" not in state.discard and known(state, BEA, DAVE) == {"red-6"}
    assert state.decision_kind() == "end-of-turn"


def test_es_nueva_atraccion_the_matching_card_not_taken_is_discarded():
    for choice, hand in (("take:0", {"red-1"}), ("stop", set())):
        state = layout("es", display=["red-1"], deck=["nueva-atraccion", "red-6", *FILLER])
        play(state, "flip", "flip", choice)
        assert state.hands[DAVE] == hand and state.discard[-1] == "red-6"
        assert state.match == "" and state.decision_kind() == "end-of-turn"


def test_es_atraerse_takes_a_random_card_seen_only_by_the_two_seats():
    state = layout("es", hands=[set(), {"orange-2", "yellow-7"}, {"red-3"}],
                   deck=["atraerse", *FILLER], seed=5)
    state.known[CAL][BEA] = {"orange-2"}  # Cal had seen Bea take the orange-2
    state.known[DAVE][BEA] = {"orange-2"}
    play(state, "flip")
    assert codes(state) == ["target:1", "target:2"]
    play(state, "target:1")
    (card,) = state.hands[DAVE]
    assert card in {"orange-2", "yellow-7"}
    assert known(state, BEA, DAVE) == {card}  # Bea saw which card went
    assert known(state, CAL, DAVE) == set()  # Cal did not
    assert known(state, CAL, BEA) == set()  # nor whether the orange-2 is still there
    assert known(state, DAVE, BEA) == {"orange-2"} - {card}
    private = [e for e in state.events if e.kind == "attracted"]
    assert private[-1].visible_to == {DAVE, BEA} and private[-1].data["card"] == card
    assert all("card" not in e.data for e in state.events if e.kind == "attract")
    assert state.decision_kind() == "end-of-turn" and state.current_seat() == DAVE


@pytest.mark.parametrize("direction, giver, options", [
    ("cw", BEA, ["give:red-2"]),
    ("ccw", DOT, ["give:red-5", "give:red-6"]),
])
def test_es_solicitar_asks_round_in_the_named_direction(direction, giver, options):
    hands = [set(), {"red-2", "blue-1"}, {"blue-2"}, {"red-5", "red-6", "orange-1"}]
    state = layout("es", hands=hands, deck=["solicitar", *FILLER], players=4)
    play(state, "flip")
    assert state.decision_kind() == "request" and len(codes(state)) == 20
    play(state, f"colour:red:{direction}")
    assert state.current_seat() == giver and state.decision_kind() == "give"
    assert codes(state) == options  # only cards of the colour asked for
    obs = state.observation(CAL)
    assert obs["requested_colour"] == "red" and obs["direction"] == direction
    assert (obs["giver"], obs["receiver"]) == (giver, DAVE)
    check_wire(state)
    play(state, options[-1])
    card = options[-1].split(":")[1]
    assert state.hands[DAVE] == {card} and card not in state.hands[giver]
    assert known(state, CAL, DAVE) == {card}
    play(state, "done")  # the turn ends
    assert state.current_seat() == BEA and state.decision_kind() == "turn"


def test_es_solicitar_skips_players_without_the_colour_and_may_come_up_empty():
    hands = [{"teal-0"}, {"blue-1"}, {"blue-2"}, {"orange-1"}]
    state = layout("es", hands=hands, deck=["solicitar", *FILLER], players=4)
    play(state, "flip", "colour:red:ccw")
    assert [e.seat for e in state.events if e.kind == "pass"] == [DOT, CAL, BEA]
    assert state.hands[DAVE] == {"teal-0"} and state.decision_kind() == "end-of-turn"


@pytest.mark.parametrize("colour, received", [("red", {"red-2"}), ("pink", set())])
def test_es_solicitar_ends_the_turn_whether_or_not_a_card_came(colour, received):
    # A display to take from and a deck to flip: neither is offered after the Solicitar.
    state = layout("es", hands=[set(), {"red-2"}], display=["blue-3"],
                   deck=["solicitar", *FILLER])
    play(state, "flip", f"colour:{colour}:cw")
    if received:
        play(state, "give:red-2")
    assert state.hands[DAVE] == received
    assert state.decision_kind() == "end-of-turn" and codes(state) == ["done"]
    play(state, "done")
    assert state.current_seat() == BEA and state.display == ["blue-3"]


def test_es_solicitar_with_two_players_has_one_direction():
    state = layout("es", hands=[set(), {"red-1"}], deck=["solicitar", *FILLER], players=2)
    play(state, "flip")
    assert codes(state) == [f"colour:{colour}:cw" for colour in COLOURS]


# -- es: a trio only after taking a card ------------------------------------------------
ONES = {"red-1", "orange-1"}  # a pair of 1s: the yellow-1 makes the trio
TRIO_OF_ONES = "trio:red-1,orange-1,yellow-1"


@pytest.mark.parametrize("hands, display, deck, moves", [
    pytest.param([ONES], ["yellow-1"], FILLER, ["take:0"], id="from the display"),
    pytest.param([ONES], ["blue-2"], ["yellow-1", *FILLER], ["flip", "take:1"],
                 id="flipped, then taken"),
    pytest.param([ONES], [], ["nueva-atraccion", "yellow-1", *FILLER],
                 ["flip", "flip", "take:0"], id="Nueva atraccion"),
    pytest.param([ONES], ["yellow-4"], ["nueva-atraccion", "yellow-1", *FILLER],
                 ["flip", "flip", "take:match"], id="the matching card"),
    pytest.param([ONES, {"yellow-1"}], [], ["atraerse", *FILLER], ["flip", "target:1"],
                 id="Atraerse"),
    pytest.param([ONES, {"yellow-1"}], [], ["solicitar", *FILLER],
                 ["flip", "colour:yellow:cw", "give:yellow-1"], id="Solicitar answered"),
])
def test_es_after_taking_a_card_a_trio_may_be_laid(hands, display, deck, moves):
    """[ES] "Si, después de tomar una carta, un jugador tiene un conjunto de tres cartas del
    mismo valor, puede colocarlas boca arriba en su área de juego." [O] A card received
    from a Solicitar counts as taken: it came into the hand this turn."""
    state = layout("es", hands=hands, display=display, deck=deck)
    play(state, *moves)
    assert "yellow-1" in state.hands[DAVE] and state.decision_kind() == "end-of-turn"
    assert codes(state) == [TRIO_OF_ONES, "done"]
    play(state, TRIO_OF_ONES, "done")
    assert state.trios[DAVE] == [("red-1", "orange-1", "yellow-1")]


@pytest.mark.parametrize("hands, display, deck, moves", [
    pytest.param([ONES | {"yellow-1"}], ["blue-2"], ["green-3", *FILLER], ["flip", "stop"],
                 id="stop"),
    pytest.param([ONES | {"yellow-1"}], [], ["nueva-atraccion", "green-3", *FILLER],
                 ["flip", "flip", "stop"], id="Nueva atraccion, stop"),
    pytest.param([ONES | {"yellow-1"}], ["green-2"], ["nueva-atraccion", "green-3", *FILLER],
                 ["flip", "flip", "stop"], id="Nueva atraccion, the match not taken"),
    pytest.param([ONES | {"yellow-1"}, {"blue-1"}], [], ["solicitar", *FILLER],
                 ["flip", "colour:teal:cw"], id="Solicitar unanswered"),
    pytest.param([ONES | {"yellow-1"}], [], ["atraerse", *FILLER], ["flip"],
                 id="Atraerse, nobody holds a card"),
])
def test_es_a_turn_that_took_no_card_lays_no_trio(hands, display, deck, moves):
    """[ES] The trio comes "después de tomar una carta": a turn that brought no card
    offers none, though the hand holds one. The end-of-turn decision is still asked."""
    state = layout("es", hands=hands, display=display, deck=deck)
    play(state, *moves)
    assert state.hands[DAVE] == ONES | {"yellow-1"} and state.decision_kind() == "end-of-turn"
    assert codes(state) == ["done"]
    assert "no trio" in state.prompt()


def test_en_a_trio_may_be_laid_during_any_turn_that_did_not_bust():
    """[EN] "During your turn, you may form a Trio if you have three cards of the same
    value in your hand." An action card with no effect took no card: en allows it still."""
    state = layout("en", hands=[ONES | {"yellow-1"}], deck=["pick-a-card", *FILLER])
    play(state, "flip")
    assert codes(state) == [TRIO_OF_ONES, "done"]


def test_es_a_stop_without_a_card_may_still_call_the_gala():
    """[ES] The Gala comes "al final de su turno", whatever the turn brought."""
    state = layout("es", hands=[DAVES_TRIO | EVERY_COLOUR], display=["blue-2"],
                   deck=["green-3", *FILLER])
    play(state, "flip", "stop")
    assert codes(state) == ["gala:yes", "gala:no"]


# -- the Gala ------------------------------------------------------------------------
def gala_position(variant: str) -> FlohcatiState:
    hand = {"orange-1", "yellow-2", "green-3", "teal-4", "blue-5", "purple-6", "pink-7",
            "brown-0", "grey-0"}
    return layout(variant, hands=[hand, {"red-7"}], display=["red-3"])


@pytest.mark.parametrize("variant, bonus", [("en", 10), ("es", 0)])
def test_calling_the_gala_ends_the_game_with_the_variants_bonus(variant, bonus):
    state = gala_position(variant)
    play(state, "take:0")
    assert state.decision_kind() == "end-of-turn" and codes(state) == ["gala:yes", "gala:no"]
    assert state.observation(DAVE)["gala_bonus"] == bonus
    play(state, "gala:yes")
    assert state.is_terminal() and state.end_reason == "gala"
    assert state.scores()[DAVE] == 3 + 1 + 2 + 3 + 4 + 5 + 6 + 7 + bonus
    assert state.scores()[BEA] == 7
    assert state.final_state()["gala_caller"] == DAVE
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError):
        state.apply(0)


def test_declining_the_gala_lets_the_game_go_on():
    state = gala_position("en")
    play(state, "take:0", "gala:no")
    assert not state.is_terminal() and state.current_seat() == BEA
    assert state.scores()[DAVE] == 31


def test_trios_come_before_the_gala_and_may_spoil_it():
    # Five 0s: red, orange (taken now), pink, brown, grey; red, orange and pink
    # have a second card, brown and grey do not.
    hand = {"red-5", "orange-1", "yellow-2", "green-3", "teal-4", "blue-5", "purple-6",
            "pink-7", "brown-0", "grey-0", "red-0", "pink-0"}
    state = layout("en", hands=[hand], display=["orange-0"])
    play(state, "take:0")
    assert len(codes(state)) == 10 + 2  # C(5, 3) trios, then the Gala yes / no
    assert codes(state)[-2:] == ["gala:yes", "gala:no"]
    play(state, "trio:red-0,orange-0,pink-0")
    assert codes(state) == ["gala:yes", "gala:no"]  # no trio left, still all ten colours
    state = layout("en", hands=[hand], display=["orange-0"])
    play(state, "take:0", "trio:red-0,brown-0,grey-0")
    assert codes(state) == ["done"]  # brown and grey are gone: no Gala
    assert state.trios[DAVE] == [("red-0", "brown-0", "grey-0")]


def test_no_gala_without_all_ten_colours():
    state = layout("en", hands=[{"orange-1", "yellow-2"}], display=["red-3"])
    play(state, "take:0")
    assert codes(state) == ["done"]


@pytest.mark.parametrize("variant", ["en", "es"])
def test_tied_totals_share_the_rank(variant):
    # Dave takes the last card, green-1: 5 + 1 = 6, as Bea's 5 + 1; Cal's 3 ranks third.
    state = layout(variant, hands=[{"red-5"}, {"blue-5", "teal-1"}, {"pink-3"}],
                   deck=["green-1"])
    play(state, "flip", "take:0", "done")
    assert state.is_terminal() and state.scores() == [6, 6, 3]
    assert state.ranks() == [1, 1, 3]


# -- the last card ---------------------------------------------------------------------
def test_en_after_the_last_card_joins_the_display_the_turn_is_completed_then_the_game_ends():
    state = layout("en", hands=[{"red-1", "orange-1"}], display=["blue-0"], deck=["yellow-1"])
    play(state, "flip")
    assert state.deck == [] and codes(state) == ["take:0", "take:1"]  # no flip, no stop
    play(state, "take:1")
    assert state.decision_kind() == "end-of-turn" and not state.is_terminal()
    play(state, "done")
    assert state.is_terminal() and state.end_reason == "deck-empty"
    assert state.final_state()["deck"] == []


def test_es_after_the_last_card_the_player_may_stop():
    state = layout("es", display=["blue-0"], deck=["yellow-1"])
    play(state, "flip")
    assert codes(state) == ["take:0", "take:1", "stop"]
    play(state, "stop", "done")
    assert state.is_terminal() and state.end_reason == "deck-empty"


@pytest.mark.parametrize("variant", ["en", "es"])
def test_a_bust_on_the_last_card_ends_the_game(variant):
    state = layout(variant, display=["blue-0"], deck=["blue-7"])
    play(state, "flip")
    assert state.is_terminal() and state.end_reason == "deck-empty"
    assert state.discard[-1] == "blue-7"


def test_an_action_card_as_the_last_card_is_still_carried_out():
    state = layout("en", hands=[set(), {"red-4"}], deck=["take-a-card"])
    play(state, "flip", "target:1", "give:red-4", "done")
    assert state.is_terminal() and state.hands[DAVE] == {"red-4"}


def test_the_game_ends_after_2000_decisions():
    state = layout("en", display=["red-1"], deck=["orange-1", "yellow-1", "green-1"])
    state.history = [0] * (DECISION_LIMIT - 1)
    play(state, "flip")
    assert state.is_terminal() and state.end_reason == "decision-limit"
    assert state.legal_actions() == []


# -- observations ------------------------------------------------------------------------
def test_the_observation_shows_the_own_hand_sorted_and_public_things_only():
    state = layout("en", hands=[{"teal-3", "red-7", "red-0"}, {"blue-1", "pink-2"}],
                   display=["grey-2"], deck=["brown-1", *FILLER])
    state.known[DAVE][BEA] = {"pink-2"}
    obs = state.observation(DAVE)
    assert [c["code"] for c in obs["hand"]] == ["red-0", "red-7", "teal-3"]
    assert [c["code"] for c in obs["display"]] == ["grey-2"]
    assert obs["hand_sizes"] == [3, 2, 0] and obs["deck_size"] == 3
    assert known(state, DAVE, BEA) == {"pink-2"}
    assert obs["decision"] == "turn" and obs["deciding_seat"] == DAVE
    assert len(obs["discard"]) == 89 - 3 - 2 - 1 - 3
    assert "blue-1" not in str(obs)  # Bea's unknown card
    check_wire(state)


@pytest.mark.parametrize("variant", ["en", "es"])
def test_every_seats_observation_at_once_is_each_seats_own_sharing_the_public_part(variant):
    """A replay asks every seat's observation at every step: the public part is made once
    for them all, and each seat's is what ``observation`` gives it, keys in its order."""
    import random
    rng = random.Random(3)
    state = GAME.new_state(4, variant, 11)
    while not state.is_terminal():
        every = state.observations()
        for seat, seen in enumerate(every):
            own = state.observation(seat)
            assert seen == own and list(seen) == list(own)
        assert every[1]["display"] is every[0]["display"]
        assert every[1]["hand"] is not every[0]["hand"]
        state.apply(rng.randrange(len(state.legal_actions())))


def test_the_scores_follow_a_hand_changed_by_hand():
    """Hand points are kept between positions, checked by the hand's content."""
    state = layout(hands=[{"red-6"}, {"blue-3"}, set()])
    assert state.scores()[:2] == [6, 3]
    state.hands[0].add("red-7")
    state.hands[1].discard("blue-3")
    assert state.scores()[:2] == [7, 0]
