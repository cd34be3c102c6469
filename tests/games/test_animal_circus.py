"""Animal Circus: the rulebook's example and FAQ, every card's ability, the issue's rulings."""

from __future__ import annotations

import pytest

from referee import wire
from referee.games import get_game
from referee.games.animal_circus import (
    BAT,
    BEAR,
    CAMEL,
    CHAMELEON,
    CHEETAH,
    CROCODILE,
    DOG,
    ELEPHANT,
    GIRAFFE,
    KANGAROO,
    LION,
    MOLE,
    MONKEY,
    MOUSE,
    OWL,
    PARROT,
    PENGUIN,
    RABBIT,
    RAT,
    SEAL,
    TIGER,
    TURN_LIMIT,
    TURTLE,
    AnimalCircusState,
    Card,
)
from referee.games.base import IllegalActionError

GAME = get_game("animal-circus")
SHARON, CLAUDIA, STEVEN, DAVID = range(4)


def card(value: int, color: int = 0) -> Card:
    return Card(value, color)


def remove(state: AnimalCircusState, wanted: Card) -> None:
    for pile in [*state.hands, *state.draw_piles, *state.put_away, *state.score_piles,
                 state.ring, state.out_of_game]:
        if wanted in pile:
            pile.remove(wanted)
            return
    raise AssertionError(f"{wanted} is nowhere")


def arrange(players: int = 4, *, player: int = 0, previous: int = -1, hands=None,
            draw_tops=None, draws=None, ring=(), scores=None, empty_draws=(), seed: int = 5,
            **flags) -> AnimalCircusState:
    """A position at the start of ``player``'s turn, before their draw.

    Cards not placed stay where the deal put them (displaced hand and Score-pile
    cards go under their color's Draw pile), so every card is still somewhere once.
    ``draws`` gives whole Draw piles (top first), ``empty_draws`` empties some
    (their cards are put away). ``flags`` set the previous card's effects, e.g.
    ``next_no_draw=True``.
    """
    state = GAME.new_state(players, None, seed)
    for seat in (hands or {}):
        for old in state.hands[seat]:
            state.draw_piles[old.color].append(old)
        state.hands[seat] = []
    for seat, cards in (hands or {}).items():
        for wanted in cards:
            remove(state, wanted)
        state.hands[seat] = sorted(cards)
    for seat, cards in (scores or {}).items():
        for wanted in cards:
            remove(state, wanted)
        state.score_piles[seat] = list(cards)
    for wanted in ring:
        remove(state, wanted)
    state.ring = list(ring)
    for seat, cards in (draw_tops or {}).items():
        for wanted in cards:
            remove(state, wanted)
        state.draw_piles[seat][:0] = cards
    for seat, cards in {**{seat: [] for seat in empty_draws}, **(draws or {})}.items():
        state.put_away[seat] += state.draw_piles[seat]
        state.draw_piles[seat] = []
        for wanted in cards:
            remove(state, wanted)
        state.draw_piles[seat] = list(cards)
    state.known_top = [0] * players
    state.player, state.previous = player, previous
    state.next_no_draw = flags.pop("next_no_draw", False)
    state.next_parrot = flags.pop("next_parrot", False)
    state.next_bat_bind = flags.pop("next_bat_bind", False)
    assert not flags, flags
    state.start_turn()
    assert sorted(state.all_cards()) == sorted(Card(v, c) for c in range(players)
                                               for v in range(1, 23))
    return state


def codes(state: AnimalCircusState) -> list[str]:
    return [action.code for action in state.legal_actions()]


def play(state: AnimalCircusState, *moves: str) -> None:
    for move in moves:
        state.apply(codes(state).index(move))


def values(cards) -> list[int]:
    return [c.value for c in cards]


# -- the rulebook's example, turn by turn ---------------------------------------------


def test_rulebook_example_turn_by_turn():
    state = arrange(
        player=SHARON, previous=DAVID, ring=[card(MOUSE, DAVID)],
        hands={SHARON: [card(PENGUIN), card(CHAMELEON)],
               CLAUDIA: [card(MONKEY, 1), card(RABBIT, 1)],
               STEVEN: [card(BEAR, 2), card(RABBIT, 2), card(TURTLE, 2)],
               # Two Bats: whichever card the Penguin takes, David keeps a Bat.
               DAVID: [card(BAT, 3), card(BAT, 1), card(DOG, 3)]},
        draw_tops={SHARON: [card(PARROT), card(RAT), card(SEAL), card(LION)],
                   CLAUDIA: [card(CHEETAH, 1)], STEVEN: [card(RAT, 2)]})
    # Sharon must play higher than the Mouse (2): she draws, and may not start a new Ring.
    assert values(state.hands[SHARON]) == [PENGUIN, CHAMELEON, PARROT]
    assert codes(state) == ["ring:6", "ring:10", "ring:11"]
    play(state, "ring:6")
    assert state.decision_kind() == "target" and codes(state) == ["target:1", "target:2",
                                                                  "target:3"]
    play(state, "target:3")
    assert len(state.hands[SHARON]) == 3 and len(state.hands[DAVID]) == 2
    taken = [e for e in state.events if e.kind == "penguin-card"][-1]
    assert taken.visible_to == frozenset({SHARON, DAVID})
    assert Card(**{k: taken.data["card"][k] for k in ("value", "color")}) in state.hands[SHARON]

    # Claudia plays the Monkey (15) and takes the top 2 cards of Sharon's Draw pile.
    assert state.current_seat() == CLAUDIA and state.previous == SHARON
    assert codes(state) == ["ring:9", "ring:15"]
    play(state, "ring:15")
    assert state.decision_kind() == "pile"
    assert codes(state) == ["pile:0", "pile:1", "pile:2", "pile:3"]
    sharon_draw = len(state.draw_piles[SHARON])
    play(state, "pile:0")
    assert {card(RAT), card(SEAL)} <= set(state.hands[CLAUDIA])
    assert len(state.draw_piles[SHARON]) == sharon_draw - 2

    # Steven holds the Bear, Rabbit, Rat and Turtle: he must add the Bear or the Turtle.
    assert state.current_seat() == STEVEN
    assert values(state.hands[STEVEN]) == [TURTLE, RABBIT, RAT, BEAR]
    assert codes(state) == ["ring:3", "ring:19"]
    play(state, "ring:19")

    # David may not draw (Bear), cannot beat the Bear: he starts a new Ring with the Bat
    # and Steven, the previous player, wins the Ring.
    assert state.current_seat() == DAVID and state.no_draw
    assert len(state.hands[DAVID]) == 2
    assert state.observation(DAVID)["constraints"]["bear"] is True
    assert all(code.startswith("new:") for code in codes(state)) and "new:5" in codes(state)
    play(state, "new:5")
    assert values(state.score_piles[STEVEN]) == [MOUSE, PENGUIN, MONKEY, BEAR]
    assert values(state.ring) == [BAT]

    # Sharon must play lower than the Bat; she cannot, so David wins the one-card Ring.
    assert state.current_seat() == SHARON
    assert state.observation(SHARON)["constraints"]["lower_than"] == BAT
    assert all(code.startswith("new:") for code in codes(state))
    play(state, "new:22")
    assert values(state.score_piles[DAVID]) == [BAT]
    assert values(state.ring) == [LION]


def test_without_the_bear_steven_may_let_claudia_win_and_start_a_new_ring():
    state = arrange(player=STEVEN, previous=CLAUDIA, ring=[card(MOUSE, 3), card(MONKEY, 1)],
                    hands={STEVEN: [card(RABBIT, 2), card(TURTLE, 2)]},
                    draw_tops={STEVEN: [card(RAT, 2)]})
    assert codes(state) == ["ring:3", "new:3", "new:4", "new:12"]
    play(state, "new:12")
    assert values(state.score_piles[CLAUDIA]) == [MOUSE, MONKEY]
    assert values(state.ring) == [RAT]


def test_a_player_who_can_play_lower_than_the_bat_must_add():
    state = arrange(player=SHARON, previous=DAVID, ring=[card(BAT, 3)],
                    hands={SHARON: [card(RABBIT), card(LION)]}, draw_tops={SHARON: [card(DOG)]})
    assert codes(state) == ["ring:4"]


# -- the FAQ -----------------------------------------------------------------------------


def test_faq_an_empty_hand_draws_four_only_on_the_next_turn():
    # Seat 0 draws nothing this turn (a Bear) and plays its only card.
    state = arrange(2, player=0, previous=1, hands={0: [card(LION)]}, next_no_draw=True)
    play(state, "new:22")
    assert state.hands[0] == [] and state.current_seat() == 1
    play(state, codes(state)[0])
    assert state.current_seat() == 0 and len(state.hands[0]) == 4


def test_faq_drawing_four_from_a_pile_of_two_takes_two():
    state = arrange(2, player=1, previous=0, hands={0: [card(DOG)], 1: [card(LION, 1)]},
                    draws={1: [card(GIRAFFE, 1), card(SEAL, 1)]})
    assert values(state.hands[1]) == [SEAL, GIRAFFE, LION] and state.draw_piles[1] == []


def test_faq_no_cards_to_draw_and_none_in_hand_the_previous_player_wins_and_the_game_ends():
    """[R] FAQ: "You don't take a card. If you do not have any cards in your Hand at that
    time, you cannot play a card and as a result the previous player wins the Ring. The
    game ends immediately." """
    state = arrange(2, player=1, previous=0, ring=[card(TIGER), card(LION)],
                    hands={1: []}, empty_draws=(1,))
    assert state.is_terminal() and state.end_reason == "ring-won"
    assert values(state.score_piles[0]) == [TIGER, LION] and state.ring == []


def test_faq_abilities_must_be_used_the_elephant_always_puts_two_cards_under_the_ring():
    state = arrange(2, player=0, previous=1, ring=[card(RAT, 1)],
                    hands={0: [card(ELEPHANT), card(RABBIT)]},
                    draw_tops={0: [card(DOG), card(GIRAFFE), card(LION)]})
    assert codes(state) == ["ring:21"]  # no way to play it without its ability
    play(state, "ring:21")
    # Drew the Dog; the Giraffe (top) and Lion, turned over together, go under the Ring.
    assert values(state.ring) == [GIRAFFE, LION, RAT, ELEPHANT]


# -- the cards one by one --------------------------------------------------------------------


def test_mole_can_always_be_played_and_goes_to_the_bottom():
    state = arrange(3, player=0, previous=2, ring=[card(LION, 2)],
                    hands={0: [card(MOLE), card(DOG)]}, draw_tops={0: [card(SEAL)]})
    assert codes(state) == ["ring:1", "new:1", "new:8", "new:13"]
    play(state, "ring:1")
    assert values(state.ring) == [MOLE, LION]
    # The next player faces the Lion still; failing, the Mole's player wins the Ring.
    assert state.previous == 0 and not any(c.startswith("ring:") and c not in
                                           ("ring:1", "ring:3") for c in codes(state))


def test_mole_starting_a_new_ring_is_the_whole_ring():
    state = arrange(2, player=0, previous=1, hands={0: [card(MOLE), card(RABBIT)]},
                    draw_tops={0: [card(DOG)]})
    play(state, "new:1")
    assert values(state.ring) == [MOLE]


def test_power_mouse_on_the_elephant_wins_the_ring_and_the_next_ring_starts_empty():
    state = arrange(3, player=0, previous=2, ring=[card(DOG, 1), card(ELEPHANT, 2)],
                    hands={0: [card(MOUSE), card(LION)]}, draw_tops={0: [card(GIRAFFE)]})
    assert codes(state) == ["ring:2", "ring:22"]
    play(state, "ring:2")
    assert values(state.score_piles[0]) == [DOG, ELEPHANT, MOUSE] and state.ring == []
    assert state.current_seat() == 1 and all(c.startswith("new:") for c in codes(state))


def test_power_mouse_on_the_mole_wins_nothing():
    state = arrange(3, player=0, previous=2, ring=[card(MOLE, 2)],
                    hands={0: [card(MOUSE), card(RABBIT)]}, draw_tops={0: [card(DOG)]})
    play(state, "ring:2")
    assert values(state.ring) == [MOLE, MOUSE] and state.score_piles[0] == []


def test_power_mouse_is_no_special_card_on_other_high_cards():
    state = arrange(3, player=0, previous=2, ring=[card(LION, 2)],
                    hands={0: [card(MOUSE), card(RABBIT)]}, draw_tops={0: [card(DOG)]})
    assert "ring:2" not in codes(state)


def test_turtle_goes_on_any_card_and_adding_or_starting_are_separate_actions():
    state = arrange(3, player=0, previous=2, ring=[card(LION, 2)],
                    hands={0: [card(TURTLE), card(RABBIT)]}, draw_tops={0: [card(DOG)]})
    assert codes(state) == ["ring:3", "new:3", "new:4", "new:8"]
    play(state, "ring:3")
    assert values(state.ring) == [LION, TURTLE] and state.score_piles[2] == []


def test_rabbit_takes_a_rivals_score_top_into_hand_not_its_own():
    state = arrange(3, player=0, previous=2, hands={0: [card(RABBIT), card(MOLE)]},
                    draw_tops={0: [card(DOG)]},
                    scores={0: [card(LION)], 1: [card(GIRAFFE, 1)], 2: [card(SEAL, 2)]})
    play(state, "new:4")
    assert codes(state) == ["target:1", "target:2"]
    play(state, "target:1")
    assert card(GIRAFFE, 1) in state.hands[0] and state.score_piles[1] == []


def test_rabbit_takes_from_its_own_pile_when_it_is_the_only_one():
    state = arrange(3, player=0, previous=2, hands={0: [card(RABBIT), card(MOLE)]},
                    draw_tops={0: [card(DOG)]}, scores={0: [card(LION), card(GIRAFFE)]})
    play(state, "new:4")
    assert codes(state) == ["target:0"]  # still asked, with its one legal action
    play(state, "target:0")
    assert state.decision_kind() == "play" and state.current_seat() == 1
    assert card(GIRAFFE) in state.hands[0] and values(state.score_piles[0]) == [LION]


def test_bat_binds_while_on_top_even_under_a_mole():
    state = arrange(3, player=0, previous=2, ring=[card(BAT, 2)],
                    hands={0: [card(MOLE), card(LION)], 1: [card(SEAL, 1), card(RABBIT, 1)]},
                    draw_tops={0: [card(DOG)], 1: [card(TIGER, 1)]})
    assert codes(state) == ["ring:1"]
    play(state, "ring:1")
    assert state.lower_than() == BAT and codes(state) == ["ring:4"]


def test_penguin_offers_only_players_holding_cards():
    state = arrange(3, player=0, previous=2, hands={0: [card(PENGUIN), card(MOLE)], 1: [],
                                                    2: [card(LION, 2)]},
                    draw_tops={0: [card(DOG)]})
    play(state, "new:6")
    assert codes(state) == ["target:2"]
    play(state, "target:2")
    assert card(LION, 2) in state.hands[0] and state.hands[2] == []


def test_camel_moves_two_score_cards_in_order_or_the_only_one():
    state = arrange(3, player=0, previous=2, hands={0: [card(CAMEL), card(MOLE)]},
                    draw_tops={0: [card(DOG)]},
                    scores={0: [card(LION)], 1: [card(SEAL, 1), card(TIGER, 1), card(BAT, 1)],
                            2: [card(GIRAFFE, 2)]})
    play(state, "new:7", "target:1")
    assert values(state.score_piles[0]) == [LION, TIGER, BAT]
    assert values(state.score_piles[1]) == [SEAL]
    state = arrange(3, player=0, previous=2, hands={0: [card(CAMEL), card(MOLE)]},
                    draw_tops={0: [card(DOG)]},
                    scores={2: [card(GIRAFFE, 2)]})
    play(state, "new:7")
    assert codes(state) == ["target:2"]  # only a rival with a Score pile may be chosen
    play(state, "target:2")
    assert values(state.score_piles[0]) == [GIRAFFE] and state.score_piles[2] == []


def test_camel_does_nothing_without_rival_score_piles():
    state = arrange(3, player=0, previous=2, hands={0: [card(CAMEL), card(MOLE)]},
                    draw_tops={0: [card(DOG)]},
                    scores={0: [card(LION)]})
    play(state, "new:7")
    assert values(state.score_piles[0]) == [LION] and state.current_seat() == 1


def test_dog_and_giraffe_scores():
    state = arrange(2, player=0, previous=1,
                    scores={0: [card(DOG), card(LION)], 1: [card(GIRAFFE, 1), card(MOLE, 1)]})
    assert state.scores() == [-3 + 1, 3 + 1]
    assert state.observation(1)["scores"] == [-2, 4]


def test_cheetah_flip_them_over_and_place_them_face_up_dont_change_the_order():
    """[R] "Take the 2 cards on top of your Draw pile. Flip them over and place them face
    up on your Score pile. Don't change the order." Turned over together, the card that
    was second from the top ends on top of the Score pile."""
    state = arrange(2, player=0, previous=1, hands={0: [card(CHEETAH), card(MOLE)]},
                    draw_tops={0: [card(DOG), card(GIRAFFE), card(LION)]},
                    scores={0: [card(SEAL)]})
    play(state, "new:9")  # draws the Dog, then the Giraffe (top) and the Lion
    assert values(state.score_piles[0]) == [SEAL, GIRAFFE, LION]
    cheetah = [e for e in state.events if e.kind == "cheetah"][-1]
    assert [c["value"] for c in cheetah.data["cards"]] == [GIRAFFE, LION]  # bottom first


def test_chameleon_copies_a_targeted_ability_and_you_choose_its_target():
    state = arrange(3, player=0, previous=2,
                    hands={0: [card(CHAMELEON), card(MOLE)], 1: [card(LION, 1)],
                                                    2: [card(SEAL, 2)]},
                    draw_tops={0: [card(DOG)]}, scores={0: [card(PENGUIN)]})
    play(state, "new:10")
    obs = state.observation(0)
    assert obs["decision"] == {"kind": "target", "ability": PENGUIN, "copied": True}
    assert codes(state) == ["target:1", "target:2"]
    play(state, "target:2")
    assert card(SEAL, 2) in state.hands[0] and state.hands[2] == []


@pytest.mark.parametrize("top", [None, DOG, GIRAFFE, LION, MOLE, TURTLE, MOUSE, CHAMELEON])
def test_chameleon_copies_nothing_from_an_empty_pile_or_a_card_without_ability(top):
    scores = {0: [card(top)]} if top else {}
    state = arrange(2, player=0, previous=1, hands={0: [card(CHAMELEON, 1)],
                                                    1: [card(SEAL, 1), card(LION, 1)]},
                    draw_tops={0: [card(RAT)]}, scores=scores)
    piles, draws = [list(p) for p in state.score_piles], [len(p) for p in state.draw_piles]
    play(state, "new:10")
    assert state.current_seat() == 1 and not (state.no_draw or state.parrot or state.bat_bind)
    assert state.decision_kind() == "play" and len(state.hands[1]) == 3
    assert [list(p) for p in state.score_piles] == piles and values(state.ring) == [CHAMELEON]
    assert [len(p) for p in state.draw_piles] == [draws[0], draws[1] - 1]
    # Said so in the log: nothing is copied (no "copy" event naming the card).
    assert [e.kind for e in state.events if e.kind in ("copy", "no-effect")] == ["no-effect"]


def test_chameleon_copying_the_bat_binds_only_the_next_player_below_its_own_value():
    state = arrange(3, player=0, previous=2, ring=[card(SEAL, 2)],
                    hands={0: [card(CHAMELEON), card(RABBIT)], 1: [card(LION, 1), card(DOG, 1)],
                           2: [card(GIRAFFE, 2), card(TIGER, 2)]},
                    draw_tops={0: [card(MOLE)], 1: [card(RAT, 1)], 2: [card(ELEPHANT, 2)]},
                    scores={0: [card(BAT)]})
    play(state, "new:10")
    assert state.lower_than() == CHAMELEON
    assert state.observation(1)["constraints"] == {"bat": True, "lower_than": 10, "parrot": False,
                                                   "parrot_cards": [], "bear": False}
    assert codes(state) == ["ring:8"]
    play(state, "ring:8")
    # Seat 2 is not bound any more: it must beat the Dog.
    assert state.lower_than() == 0 and codes(state) == ["ring:18", "ring:20", "ring:21"]


def test_chameleon_copying_the_seal_wins_nothing():
    state = arrange(2, player=0, previous=1, ring=[card(LION, 1)],
                    hands={0: [card(CHAMELEON), card(MOLE)]},
                    draw_tops={0: [card(DOG)]}, scores={0: [card(ELEPHANT), card(SEAL)]})
    play(state, "new:10")
    assert values(state.ring) == [CHAMELEON] and values(state.score_piles[0]) == [ELEPHANT, SEAL]


def test_parrot_makes_the_next_player_play_a_card_drawn_this_turn():
    state = arrange(2, player=0, previous=1, ring=[card(MOUSE, 1)], hands={
        0: [card(PARROT)], 1: [card(LION, 1), card(MOLE, 1)]},
        draw_tops={0: [card(DOG)], 1: [card(RABBIT, 1)]})
    play(state, "ring:11")
    assert state.parrot and state.drawn == [card(RABBIT, 1)]
    obs1, obs0 = state.observation(1), state.observation(0)
    assert obs1["constraints"]["parrot_cards"] == [
        {"value": RABBIT, "color": 1, "name": "Rabbit Archer"}]
    assert obs0["constraints"]["parrot"] and obs0["constraints"]["parrot_cards"] == []
    # Only the Rabbit may be played; as it cannot beat the Parrot, no add is forced.
    assert codes(state) == ["new:4"]


def test_parrot_binds_nothing_when_the_next_player_draws_nothing():
    state = arrange(2, player=1, previous=0, ring=[card(MOUSE)], hands={1: [card(LION, 1),
                                                                            card(DOG, 1)]},
                    empty_draws=(1,), next_parrot=True)
    assert not state.parrot and codes(state) == ["ring:8", "ring:22"]


def test_rat_swaps_score_tops_and_needs_both_piles():
    state = arrange(3, player=0, previous=2, hands={0: [card(RAT), card(TURTLE)]},
                    draw_tops={0: [card(MOLE)]},
                    scores={0: [card(LION), card(DOG)], 1: [card(GIRAFFE, 1)],
                            2: [card(SEAL, 2)]})
    play(state, "new:12")
    assert codes(state) == ["target:1", "target:2"]
    play(state, "target:1")
    assert values(state.score_piles[0]) == [LION, GIRAFFE]
    assert values(state.score_piles[1]) == [DOG]
    state = arrange(3, player=0, previous=2, hands={0: [card(RAT), card(TURTLE)]},
                    draw_tops={0: [card(MOLE)]},
                    scores={1: [card(GIRAFFE, 1)]})
    play(state, "new:12")
    assert values(state.score_piles[1]) == [GIRAFFE] and state.current_seat() == 1


@pytest.mark.parametrize("top, wins", [(CROCODILE, True), (LION, True), (MONKEY, False)])
def test_seal_wins_the_ring_on_a_score_top_of_sixteen_or_more(top, wins):
    state = arrange(3, player=0, previous=2, ring=[card(MOUSE, 1), card(RABBIT, 2)],
                    hands={0: [card(SEAL), card(MOLE)]}, draw_tops={0: [card(DOG)]},
                    scores={0: [card(top)]})
    play(state, "ring:13")
    if wins:
        assert values(state.score_piles[0]) == [top, MOUSE, RABBIT, SEAL] and state.ring == []
        assert all(c.startswith("new:") for c in codes(state))
    else:
        assert values(state.ring) == [MOUSE, RABBIT, SEAL]


def test_seal_starting_a_new_ring_wins_just_itself():
    state = arrange(3, player=0, previous=2, ring=[card(MOUSE, 1), card(LION, 2)],
                    hands={0: [card(SEAL), card(MOLE)]}, draw_tops={0: [card(DOG)]},
                    scores={0: [card(GIRAFFE)]})
    play(state, "new:13")
    assert values(state.score_piles[2]) == [MOUSE, LION]
    assert values(state.score_piles[0]) == [GIRAFFE, SEAL] and state.ring == []


def test_kangaroo_puts_a_random_hand_card_face_up_under_the_ring():
    state = arrange(3, player=0, previous=2, ring=[card(MOLE, 2)],
                    hands={0: [card(KANGAROO), card(TURTLE)], 1: [], 2: [card(LION, 2)]},
                    draw_tops={0: [card(DOG)]})
    play(state, "ring:14")
    assert codes(state) == ["target:2"]  # only seat 2 holds cards
    play(state, "target:2")
    assert values(state.ring) == [LION, MOLE, KANGAROO] and state.hands[2] == []
    assert [e for e in state.events if e.kind == "kangaroo"][-1].visible_to is None


def test_monkey_may_take_from_its_own_draw_pile():
    state = arrange(2, player=0, previous=1, hands={0: [card(MONKEY), card(MOLE)]},
                    draw_tops={0: [card(DOG), card(LION), card(GIRAFFE)]})
    play(state, "new:15")
    assert codes(state) == ["pile:0", "pile:1"]
    play(state, "pile:0")
    assert values(state.hands[0]) == [MOLE, DOG, GIRAFFE, LION]
    private = [e for e in state.events if e.kind == "monkey-cards"][-1]
    assert private.visible_to == frozenset({0})


def test_crocodile_takes_the_bottom_card_of_the_ring_unless_alone():
    state = arrange(2, player=0, previous=1, ring=[card(GIRAFFE, 1), card(RAT, 1)],
                    hands={0: [card(CROCODILE), card(MOLE)]}, draw_tops={0: [card(DOG)]})
    play(state, "ring:16")
    assert values(state.score_piles[0]) == [GIRAFFE] and values(state.ring) == [RAT, CROCODILE]
    state = arrange(2, player=0, previous=1, hands={0: [card(CROCODILE), card(MOLE)]},
                    draw_tops={0: [card(DOG)]})
    play(state, "new:16")
    assert state.score_piles[0] == [] and values(state.ring) == [CROCODILE]


def test_owl_orders_the_top_three_and_the_seat_remembers_them():
    state = arrange(2, player=0, previous=1, hands={0: [card(OWL), card(TURTLE)],
                                                    1: [card(LION, 1), card(SEAL, 1)]},
                    draw_tops={0: [card(DOG), card(LION), card(MOLE), card(GIRAFFE), card(BAT)],
                               1: [card(RAT, 1)]})
    play(state, "new:17")
    assert state.decision_kind() == "order"
    assert codes(state) == ["order:1-18-22", "order:1-22-18", "order:18-1-22",
                            "order:18-22-1", "order:22-1-18", "order:22-18-1"]
    known = [c["value"] for c in state.observation(0)["known_draw_top"]]
    assert known == [LION, MOLE, GIRAFFE] and state.observation(1)["known_draw_top"] == []
    play(state, "order:18-22-1")
    assert values(state.draw_piles[0][:4]) == [GIRAFFE, LION, MOLE, BAT]
    play(state, "ring:22")  # seat 1 must beat the Owl
    # Seat 0 draws the Giraffe and still knows the next two.
    assert [c["value"] for c in state.observation(0)["known_draw_top"]] == [LION, MOLE]


def test_owl_with_one_card_left_still_asks_and_with_none_does_nothing():
    state = arrange(2, player=0, previous=1, hands={0: [card(OWL), card(TURTLE)]},
                    draws={0: [card(DOG), card(LION)]})
    play(state, "new:17")
    assert codes(state) == ["order:22"]
    play(state, "order:22")
    state = arrange(2, player=0, previous=1, hands={0: [card(OWL), card(TURTLE)]},
                    empty_draws=(0,))
    play(state, "new:17")
    assert state.current_seat() == 1 and state.decision_kind() == "play"


def test_chameleon_copying_the_owl_orders_your_own_draw_pile():
    state = arrange(2, player=0, previous=1, hands={0: [card(CHAMELEON), card(TURTLE)]},
                    draws={0: [card(DOG), card(LION), card(MOLE)]}, scores={0: [card(OWL)]})
    play(state, "new:10")
    assert state.observation(0)["decision"] == {"kind": "order", "ability": OWL, "copied": True}
    assert codes(state) == ["order:1-22", "order:22-1"]
    play(state, "order:1-22")
    assert values(state.draw_piles[0]) == [MOLE, LION]


def test_giraffe_and_lion_have_no_ability():
    for value in (GIRAFFE, LION, DOG):
        state = arrange(2, player=0, previous=1, hands={0: [card(value)],
                                                        1: [card(SEAL, 1), card(RAT, 1)]},
                        draw_tops={0: [card(MOLE)]})
        play(state, f"new:{value}")
        assert values(state.ring) == [value] and len(state.hands[1]) == 3
        assert not (state.no_draw or state.parrot or state.bat_bind)


def test_bear_stops_the_next_players_draw():
    state = arrange(2, player=0, previous=1,
                    hands={0: [card(BEAR), card(MOLE)], 1: [card(LION, 1)]},
                    draw_tops={0: [card(DOG)]})
    draw = len(state.draw_piles[1])
    play(state, "new:19")
    assert state.no_draw and len(state.draw_piles[1]) == draw and len(state.hands[1]) == 1
    assert codes(state) == ["ring:22"]


def test_tiger_puts_every_other_top_draw_card_out_of_the_game_face_up():
    state = arrange(3, player=0, previous=2, hands={0: [card(TIGER), card(MOLE)]},
                    draw_tops={0: [card(DOG)], 1: [card(GIRAFFE, 1)]}, empty_draws=(2,))
    own = len(state.draw_piles[0])
    play(state, "new:20")
    assert state.out_of_game == [card(GIRAFFE, 1)] and len(state.draw_piles[0]) == own
    assert [c["value"] for c in state.observation(2)["out_of_game"]] == [GIRAFFE]


def test_elephant_with_one_draw_card_puts_one_under_the_ring():
    state = arrange(2, player=0, previous=1, hands={0: [card(ELEPHANT), card(DOG)]},
                    draws={0: [card(LION), card(GIRAFFE)]})
    play(state, "new:21")
    assert values(state.ring) == [GIRAFFE, ELEPHANT]


# -- setup, turns and the end ------------------------------------------------------------


@pytest.mark.parametrize("players, away", [(2, 0), (3, 1), (4, 3), (5, 5)])
def test_setup_puts_cards_away_unseen(players, away):
    state = GAME.new_state(players, None, 42)
    for seat in range(players):
        assert len(state.put_away[seat]) == away
        own = state.put_away[seat] + state.draw_piles[seat] + state.hands[seat]
        assert sorted(own) == [Card(v, seat) for v in range(1, 23)]
        assert len(state.hands[seat]) == (4 if seat == 0 else 3)  # seat 0 has drawn
    obs = state.observation(1)
    assert obs["put_away_per_player"] == away
    assert obs["draw_sizes"] == [22 - away - 4] + [22 - away - 3] * (players - 1)
    assert state.current_seat() == 0 and state.previous == -1
    assert all(code.startswith("new:") for code in codes(state))


def test_setup_deals_differently_by_seed_and_the_same_for_the_same_seed():
    a, b, c = (GAME.new_state(4, None, s).final_state() for s in (1, 1, 2))
    assert a == b and a != c


def test_bad_player_counts_are_refused():
    with pytest.raises(ValueError):
        GAME.new_state(1, None, 0)
    with pytest.raises(ValueError):
        GAME.new_state(6, None, 0)


def test_hands_stay_sorted():
    state = arrange(2, player=0, previous=1, hands={0: [card(LION), card(MOLE)]},
                    draw_tops={0: [card(DOG)]})
    assert state.hands[0] == sorted(state.hands[0])


def test_note_without_a_card_in_hand_the_previous_player_wins_and_the_next_plays_on():
    """[R] "Note: If you have to play a card and you have no cards in your Hand, the previous
    player automatically wins the Ring. This will probably also imply the game is over, but
    if it isn't, the next player plays a card on an empty Ring." [I] The previous player is
    the seat that took the last turn, also when that seat could not play."""
    state = arrange(3, player=0, previous=2, ring=[card(RAT, 2)],
                    hands={0: [card(BEAR), card(MOLE)], 1: [], 2: [card(LION, 2)]},
                    draw_tops={0: [card(DOG)]})
    play(state, "ring:19")
    # Seat 1 may not draw and holds nothing: seat 0 wins the Ring; seat 2 follows seat 1.
    assert values(state.score_piles[0]) == [RAT, BEAR]
    assert state.current_seat() == 2 and state.previous == 1
    assert not state.is_terminal() and all(c.startswith("new:") for c in codes(state))


def test_the_game_ends_at_once_when_a_ring_is_won_while_a_draw_pile_is_empty():
    """[R] "The game continues until a player wins the Ring while there is a player with
    no more cards in their Draw pile." """
    state = arrange(3, player=0, previous=2, ring=[card(RAT, 2), card(LION, 1)],
                    hands={0: [card(TIGER), card(DOG)]}, empty_draws=(1,))
    draws = [len(pile) for pile in state.draw_piles]
    play(state, "new:20")
    assert state.is_terminal() and state.end_reason == "ring-won"
    assert values(state.ring) == [TIGER]  # stays, and the Tiger does nothing
    assert [len(pile) for pile in state.draw_piles] == draws and state.out_of_game == []
    assert state.scores() == [0, 0, 2] and state.legal_actions() == []
    with pytest.raises(IllegalActionError):
        state.apply(0)


def test_winning_an_empty_ring_is_not_winning():
    state = arrange(2, player=1, previous=0, hands={1: []}, empty_draws=(1,))
    assert not state.is_terminal() and state.current_seat() == 0 and state.previous == 1


def test_the_last_ring_goes_to_the_player_who_played_the_last_card():
    """Nobody holds a card any more: the next player cannot play, so the previous player
    wins the Ring (the Note and the FAQ) and the game ends (a Draw pile is empty)."""
    state = arrange(2, player=0, previous=1, hands={0: [card(LION)], 1: []},
                    empty_draws=(0, 1))
    play(state, "new:22")
    assert state.is_terminal() and state.end_reason == "ring-won"
    assert values(state.score_piles[0]) == [LION] and state.ring == []
    assert [e.kind for e in state.events][-3:] == ["no-card", "win-ring", "end"]


def test_a_game_ending_with_every_card_played_scores_the_last_ring():
    """The issue's 2-player game: seat 1 plays the last card onto a 10-card Ring. Seat 0,
    with no card to draw or play, hands it to seat 1: [15, 24], not [15, 14]."""
    ring = [card(value) for value in (2, 3, 4, 6, 7, 9, 11, 12)]  # no Dog, no Giraffe
    state = arrange(
        2, player=0, previous=1, ring=ring,
        hands={0: [card(BEAR)], 1: [card(LION, 1)]}, empty_draws=(0, 1),
        scores={0: [card(value, 1) for value in (1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14,
                                                 15, 16)],
                1: [card(value) for value in (1, 5, 10, 13, 14, 15, 16, 17, 20, 21)]
                + [card(value, 1) for value in (17, 19, 20, 21)]})
    assert state.scores() == [15, 14]
    play(state, "ring:19")  # seat 0's last card; the Bear stops a draw there is none of
    assert codes(state) == ["ring:22"] and not state.is_terminal()
    play(state, "ring:22")  # seat 1's last card: the Ring holds 10 cards
    assert state.is_terminal() and state.end_reason == "ring-won"
    assert state.scores() == [15, 24] and state.ring == []
    assert state.ranks() == [2, 1]


def test_tied_scores_share_the_rank():
    # Seat 1 can neither draw nor play: seat 0 wins the 2-card Ring and ties seat 1's 2.
    state = arrange(3, player=1, previous=0, ring=[card(TIGER), card(LION)], hands={1: []},
                    empty_draws=(1,), scores={1: [card(RAT, 1), card(SEAL, 1)],
                                              2: [card(MOLE, 2)]})
    assert state.is_terminal() and state.scores() == [2, 2, 1]
    assert state.ranks() == [1, 1, 3]


def test_a_position_where_nobody_can_ever_play_is_stopped_by_the_turn_limit():
    """Not reachable in play (an empty Ring with a live game means nobody's Draw pile ran
    out since it was won): laid out by hand, the turns pass until the guard stops it."""
    state = arrange(2, player=0, previous=1, hands={0: [], 1: []}, empty_draws=(0, 1))
    assert state.end_reason == "turn-limit" and state.turn == TURN_LIMIT


def test_the_turn_limit_stops_the_game():
    state = arrange(2, player=0, previous=1, hands={0: [card(LION), card(MOLE)]},
                    draw_tops={0: [card(DOG)]})
    state.turn = TURN_LIMIT - 1
    play(state, "new:8")
    assert state.end_reason == "turn-limit" and state.turn == TURN_LIMIT


def test_plays_are_offered_one_per_value_from_the_lowest_color():
    state = arrange(3, player=0, previous=2, hands={0: [card(LION, 2), card(LION, 1)]},
                    draw_tops={0: [card(DOG)]})
    assert codes(state) == ["new:8", "new:22"]
    assert state.legal_actions()[1].payload["card"]["color"] == 1


def wire_ring_winners(state: AnimalCircusState) -> dict[str, int]:
    """Each play's ``ring_winner`` as a bot reads it: from the LegalAction on the wire."""
    return {action.code: wire.action_message("animal-circus", action)
            .payload.animal_circus.ring_winner for action in state.legal_actions()}


def assert_play_wins_as_told(state: AnimalCircusState, move: str, winner: int) -> None:
    """The wire's ``ring_winner`` and the label name the seat that wins the first Ring by
    ``move`` (and the label its size); -1 and no word of a win when the play wins none."""
    told = wire_ring_winners(state)[move]
    label = next(action.label for action in state.legal_actions() if action.code == move)
    start = len(state.events)
    play(state, move)
    wins = [event for event in state.events[start:] if event.kind == "win-ring"]
    assert told == winner == (wins[0].seat if wins else -1), (move, told, wins)
    if wins:
        assert label.endswith(f"; seat {winner} wins the Ring ({len(wins[0].data['cards'])} "
                              "cards)"), label
    else:
        assert "wins the Ring" not in label, label


def test_new_ring_payload_names_the_ring_winner():
    state = arrange(3, player=0, previous=2, ring=[card(RAT, 2)],
                    hands={0: [card(MOLE), card(RABBIT)]}, draw_tops={0: [card(DOG)]})
    payloads = {a.code: a.payload for a in state.legal_actions()}
    assert payloads["new:8"]["ring_winner"] == 2 and payloads["ring:1"]["ring_winner"] == -1
    assert_play_wins_as_told(state, "new:8", 2)


@pytest.mark.parametrize("move", ["ring:1", "ring:4"])
def test_a_play_that_wins_nothing_says_minus_one(move):
    state = arrange(3, player=0, previous=2, ring=[card(MOUSE, 2)],
                    hands={0: [card(MOLE), card(RABBIT)]}, draw_tops={0: [card(DOG)]},
                    scores={1: [card(LION, 1)]})
    assert_play_wins_as_told(state, move, -1)


def test_power_mouse_on_an_elephant_wins_the_ring_as_its_payload_says():
    state = arrange(3, player=0, previous=2, ring=[card(DOG, 1), card(ELEPHANT, 2)],
                    hands={0: [card(MOUSE), card(LION)]}, draw_tops={0: [card(GIRAFFE)]})
    assert wire_ring_winners(state)["ring:22"] == -1
    assert_play_wins_as_told(state, "ring:2", 0)
    assert values(state.score_piles[0]) == [DOG, ELEPHANT, MOUSE]


def test_seal_added_on_a_score_top_of_16_or_more_wins_the_ring_as_its_payload_says():
    """Issue 35: ``ring_winner`` was -1 for this play, and the next events showed the win."""
    state = arrange(3, player=0, previous=2, ring=[card(RAT, 2)],
                    hands={0: [card(SEAL), card(LION)]}, draw_tops={0: [card(DOG)]},
                    scores={0: [card(DOG, 1), card(CROCODILE, 1)]})
    assert wire_ring_winners(state) == {"ring:13": 0, "ring:22": -1}
    assert_play_wins_as_told(state, "ring:13", 0)
    assert values(state.score_piles[0]) == [DOG, CROCODILE, RAT, SEAL] and state.ring == []


def test_seal_below_16_wins_nothing_and_says_so():
    state = arrange(3, player=0, previous=2, ring=[card(RAT, 2)],
                    hands={0: [card(SEAL), card(LION)]}, draw_tops={0: [card(DOG)]},
                    scores={0: [card(DOG, 1), card(MONKEY, 1)]})
    assert_play_wins_as_told(state, "ring:13", -1)
    assert values(state.ring) == [RAT, SEAL]


def test_seal_starting_a_new_ring_names_the_previous_player_then_wins_its_own_ring():
    """``ring_winner`` is the first Ring the play wins: the one on the table, the previous
    player's. The Seal then wins its own one-card Ring for the player."""
    state = arrange(3, player=0, previous=2, ring=[card(LION, 2)],
                    hands={0: [card(SEAL), card(DOG)]}, draw_tops={0: [card(MOLE)]},
                    scores={0: [card(TIGER, 1)]})
    assert wire_ring_winners(state)["new:13"] == 2
    assert_play_wins_as_told(state, "new:13", 2)
    assert values(state.score_piles[2]) == [LION]
    assert values(state.score_piles[0]) == [TIGER, SEAL] and state.ring == []


def test_chameleon_copying_the_seal_says_minus_one_and_wins_nothing():
    state = arrange(2, player=0, previous=1, ring=[card(MOUSE, 1)],
                    hands={0: [card(CHAMELEON), card(MOLE)]},
                    draw_tops={0: [card(DOG)]}, scores={0: [card(ELEPHANT), card(SEAL)]})
    assert_play_wins_as_told(state, "ring:10", -1)


def test_seal_and_mouse_under_an_elephant_bound_by_a_copied_bat_both_win():
    state = arrange(3, player=0, previous=2, ring=[card(ELEPHANT, 2)],
                    hands={0: [card(SEAL), card(MOUSE), card(LION)]},
                    draw_tops={0: [card(DOG)]}, scores={0: [card(GIRAFFE, 1)]},
                    next_bat_bind=True)
    assert wire_ring_winners(state) == {"ring:2": 0, "ring:8": -1, "ring:13": 0}
    assert_play_wins_as_told(state, "ring:13", 0)
