"""Each game declares why its games end: the strings stored, exported and sent,
each with its words for people, in one place on the game rather than in the replay code."""

import random

from referee.games import GAMES, end_words

# The strings themselves: the store, the exports and the proto have always carried these.
EXPECTED = {"flea-circus": {"earth-empty", "no-cards", "turn-limit"},
            "flohcati": {"gala", "deck-empty", "decision-limit"},
            "animal-circus": {"ring-won", "turn-limit"}}


def test_each_game_declares_its_end_reasons_with_words_for_people():
    assert set(GAMES) == set(EXPECTED)
    for name, reasons in EXPECTED.items():
        declared = GAMES[name].end_reasons
        assert set(declared) == reasons, name
        assert all(words and words != reason for reason, words in declared.items()), name


def test_a_random_game_ends_for_a_declared_reason_kept_as_a_plain_string():
    """A state holds the reason's plain string (its events and final state are plain data:
    a repr, a hash or a YAML dump of them is what it always was)."""
    for game in GAMES.values():
        for seed in range(12):
            state = game.new_state(game.min_players + seed % 2, None, seed)
            choices = random.Random(seed)
            while not state.is_terminal():
                state.apply(choices.randrange(len(state.legal_actions())))
            assert state.end_reason in game.end_reasons, (game.name, seed)
            assert type(state.end_reason) is str
            ended = [event for event in state.events if "reason" in event.data]
            assert all(type(event.data["reason"]) is str for event in ended)


def test_end_words_read_any_game_and_leave_an_unknown_code_as_it_is():
    assert end_words("gala") == "a player called the Gala"
    assert end_words("turn-limit") == "the turn limit was reached"
    assert end_words("a-newer-reason") == "a-newer-reason"
    assert end_words("") == "not ended"
