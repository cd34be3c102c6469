"""Amazing Flea Circus: the rulebook's worked examples and the issue's rulings."""

from __future__ import annotations

import random

import pytest

from referee.games import get_game
from referee.games.base import GameConfigError, IllegalActionError
from referee.games.flea_circus import TURN_LIMIT, FleaCircusState, full_deck

OLA, PAWEL, PATRYCJA = 0, 1, 2


def layout(hands, piles, loot, earth=None, player=0, deck=None, players=3) -> FleaCircusState:
    """A position laid out by hand; the deck keeps the rest of the cards."""
    state = get_game("flea-circus").new_state(players, None, seed=7)
    state.hands = [list(hand) for hand in hands]
    state.piles = [list(pile) for pile in piles]
    state.loot = list(loot)
    state.earth = 36 - sum(loot) if earth is None else earth
    state.player = player
    if deck is None:
        rest = full_deck()
        for card in [c for group in state.hands + state.piles for c in group]:
            rest.remove(card)
        deck = rest
    state.deck = list(deck)
    return state


def play(state: FleaCircusState, code: str) -> None:
    codes = [action.code for action in state.legal_actions()]
    state.apply(codes.index(code))


def test_olas_saucer_takes_from_the_first_player_with_the_same_saucer():
    # Pawel shows a saucer of the same value but another kind; Patrycja the same kind.
    state = layout(hands=[["C", "A", "B", "F", "G"], ["A"] * 3, ["B"] * 3],
                   piles=[[], ["D"], ["C"]], loot=[0, 4, 5])
    play(state, "play:C")
    assert state.loot == [3, 4, 2]
    assert len(state.hands[OLA]) == 5  # she draws 1 to have 5 again
    assert state.current_seat() == PAWEL


def test_saucer_with_no_match_takes_from_the_earth():
    state = layout(hands=[["C"] * 2, ["A"], ["B"]], piles=[[], ["D"], ["E"]], loot=[0, 4, 5])
    play(state, "play:C")
    assert state.loot[OLA] == 3 and state.earth == 36 - 9 - 3


def test_saucer_takes_only_what_the_victim_has_not_the_rest_from_the_earth():
    state = layout(hands=[["F"], ["A"], ["B"]], piles=[[], ["F"], []], loot=[0, 1, 0])
    play(state, "play:F")
    assert state.loot == [1, 0, 0] and state.earth == 35


def test_saucer_search_goes_clockwise_from_the_left_neighbour():
    # Seat 2 plays; seat 0 is its left neighbour, before seat 1.
    state = layout(hands=[["A"], ["A"], ["G"]], piles=[["G"], ["G"], []], loot=[4, 4, 0],
                   player=2)
    play(state, "play:G")
    assert state.loot == [0, 4, 4]


def test_pawels_counterattack_takes_two_from_the_chosen_player():
    state = layout(hands=[["A"], ["counterattack", "A"], ["B"]], piles=[[], [], []],
                   loot=[5, 0, 3], player=PAWEL)
    play(state, "play:counterattack")
    assert state.decision_kind() == "target" and state.current_seat() == PAWEL
    assert [a.code for a in state.legal_actions()] == ["target:2", "target:0"]
    play(state, "target:0")
    assert state.loot == [3, 2, 3]
    assert state.current_seat() == PATRYCJA


def test_counterattack_takes_what_the_victim_has_and_may_aim_at_a_player_without_loot():
    state = layout(hands=[["counterattack", "A"], ["A"], ["B"]], piles=[[], [], []],
                   loot=[0, 1, 0])
    play(state, "play:counterattack")
    assert [a.code for a in state.legal_actions()] == ["target:1", "target:2"]
    play(state, "target:1")
    assert state.loot == [1, 0, 0] and state.earth == 35  # nothing from the Earth
    state = layout(hands=[["counterattack", "A"], ["A"], ["B"]], piles=[[], [], []],
                   loot=[0, 1, 0])
    play(state, "play:counterattack")
    play(state, "target:2")
    assert state.loot == [0, 1, 0] and state.current_seat() == PAWEL


def test_a_two_player_counterattack_still_asks_for_the_one_possible_target():
    state = layout(hands=[["counterattack", "A"], ["A"]], piles=[[], []], loot=[0, 3],
                   players=2)
    play(state, "play:counterattack")
    assert state.decision_kind() == "target" and state.current_seat() == OLA
    assert [a.code for a in state.legal_actions()] == ["target:1"]
    play(state, "target:1")
    assert state.loot == [2, 1]


def test_patrycjas_recruitment_counts_recruitment_tops_including_her_own():
    state = layout(hands=[["A"], ["B"], ["recruitment", "A"]],
                   piles=[["recruitment"], ["C"], ["recruitment", "D"]], loot=[0, 0, 0],
                   player=PATRYCJA)
    play(state, "play:recruitment")
    assert state.loot[PATRYCJA] == 2


def test_olas_three_in_numbers_take_three_and_draw_three():
    state = layout(hands=[["numbers"] * 3 + ["A", "B"], ["A"], ["B"]], piles=[[], [], []],
                   loot=[0, 0, 0])
    codes = [action.code for action in state.legal_actions()]
    assert {"play:numbers:1", "play:numbers:2", "play:numbers:3"} <= set(codes)
    deck_before = len(state.deck)
    play(state, "play:numbers:3")
    assert state.loot[OLA] == 3 and state.earth == 33
    assert len(state.hands[OLA]) == 5 and len(state.deck) == deck_before - 3
    assert state.piles[OLA] == ["numbers"] * 3


def test_pawels_general_makes_patrycja_and_ola_return_one_each():
    state = layout(hands=[["A"], ["general", "A"], ["B"]],
                   piles=[["numbers"], ["C"], ["recruitment"]], loot=[4, 2, 3], player=PAWEL)
    deck_before = len(state.deck)
    play(state, "play:general")
    assert state.loot == [3, 2, 2] and state.earth == 36 - 7
    assert state.piles == [[], [], []]
    # 4 pile cards (the General included) went under the deck; Pawel drew 4 to have 5.
    assert len(state.deck) == deck_before + 4 - 4 and len(state.hands[PAWEL]) == 5
    assert "general" in state.deck + state.hands[PAWEL]


def test_generals_recruitment_value_counts_the_tops_left_once_the_general_covers_its_pile():
    # Ola's own Recruitment is covered by her General: the two left showing count, so
    # Pawel and Patrycja each return 2, not 3.
    state = layout(hands=[["general", "A"], ["A"], ["B"]],
                   piles=[["recruitment"], ["recruitment"], ["recruitment"]], loot=[5, 5, 5])
    play(state, "play:general")
    assert state.loot == [5, 3, 3] and state.earth == 36 - 11


def test_general_takes_nothing_from_a_player_with_an_empty_pile():
    state = layout(hands=[["general", "A"], ["A"], ["B"]], piles=[[], [], ["F"]],
                   loot=[2, 6, 6])
    play(state, "play:general")
    assert state.loot == [2, 6, 2]


def test_general_returns_at_most_what_a_player_has():
    state = layout(hands=[["general"], ["A"], ["B"]], piles=[[], ["G"], ["counterattack"]],
                   loot=[0, 1, 1])
    play(state, "play:general")
    assert state.loot == [0, 0, 0] and state.earth == 36


def test_the_game_ends_the_moment_the_earth_is_emptied():
    state = layout(hands=[["F", "A"], ["A"], ["B"]], piles=[[], [], []], loot=[10, 20, 4],
                   earth=2)
    play(state, "play:F")
    assert state.is_terminal() and state.end_reason == "earth-empty"
    assert state.loot == [12, 20, 4] and state.ranks() == [2, 1, 3]
    assert len(state.hands[OLA]) == 1  # no draw after the end


def test_ties_share_the_win():
    state = layout(hands=[["A", "B"], ["A"], ["B"]], piles=[[], [], []], loot=[10, 12, 12],
                   earth=2)
    play(state, "play:A")
    assert state.ranks() == [1, 1, 1]


def test_a_player_with_no_cards_and_no_deck_skips():
    state = layout(hands=[["A"], [], ["B"]], piles=[[], [], []], loot=[0, 0, 0], deck=[])
    play(state, "play:A")
    assert state.current_seat() == PATRYCJA
    assert state.observation(PATRYCJA)["skipping"] == [True, True, False]


def test_the_game_ends_when_nobody_holds_a_card_and_the_deck_is_empty():
    state = layout(hands=[["A"], [], []], piles=[[], [], []], loot=[0, 0, 0], deck=[])
    play(state, "play:A")
    assert state.is_terminal() and state.end_reason == "no-cards"


def test_a_skipping_player_draws_again_after_a_general():
    state = layout(hands=[["general"], [], ["B"]], piles=[["A", "C"], [], []],
                   loot=[0, 0, 0], deck=[])
    play(state, "play:general")
    # Three pile cards went under the empty deck; Ola drew all three, Pawel none.
    assert len(state.hands[OLA]) == 3 and state.deck == []
    assert state.current_seat() == PATRYCJA


def test_the_turn_limit_stops_the_game_after_the_last_turns_draw():
    state = layout(hands=[["A", "B"], ["A"], ["B"]], piles=[[], [], []], loot=[0, 0, 0])
    state.turn = TURN_LIMIT - 1
    play(state, "play:A")
    assert state.is_terminal() and state.end_reason == "turn-limit"
    assert len(state.hands[OLA]) == 5 and state.legal_actions() == []


@pytest.mark.parametrize("players", [1, 6])
def test_only_two_to_five_players_may_play(players):
    with pytest.raises(GameConfigError, match="2-5 players"):
        get_game("flea-circus").new_state(players, None, 1)


def test_the_own_hand_is_shown_in_card_order_not_in_draw_order():
    state = layout(hands=[["general", "numbers", "G", "A", "recruitment"], ["A"], ["B"]],
                   piles=[[], [], []], loot=[0, 0, 0])
    shown = [card.get("saucer", card["kind"]) for card in state.observation(OLA)["hand"]]
    assert shown == ["A", "G", "numbers", "recruitment", "general"]


def test_illegal_index_is_refused_with_a_clear_error():
    state = get_game("flea-circus").new_state(2, None, 1)
    with pytest.raises(IllegalActionError, match="not between 0 and"):
        state.apply(len(state.legal_actions()))


def test_deal_gives_five_cards_each_and_the_rest_to_the_deck():
    state = get_game("flea-circus").new_state(5, None, 3)
    assert [len(hand) for hand in state.hands] == [5] * 5 and len(state.deck) == 30


def test_a_silent_state_plays_exactly_as_a_logging_one():
    """A search's states skip building events: the rules, actions and chance must not change."""
    from referee.games.determinize import silent

    for seed in range(12):
        logging = get_game("flea-circus").new_state(2 + seed % 4, None, seed)
        quiet = get_game("flea-circus").new_state(2 + seed % 4, None, seed)
        quiet.__class__ = silent(type(quiet))
        logged, rng = len(quiet.events), random.Random(seed)
        while not logging.is_terminal():
            actions = logging.legal_actions()
            assert [a.code for a in quiet.legal_actions()] == [a.code for a in actions]
            index = rng.randrange(len(actions))
            logging.apply(index)
            quiet.apply(index)
        assert quiet.is_terminal() and quiet.final_state() == logging.final_state()
        assert quiet.end_reason == logging.end_reason and len(quiet.events) == logged
