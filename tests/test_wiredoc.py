"""docs/protocol.md's JSON wire section is what ``python -m referee.wiredoc`` writes from
proto/ and real games, and its decide lines are lines the referee writes and reads."""

from __future__ import annotations

import json
import re

from google.protobuf import json_format

from circus.v1 import bot_pb2
from referee import wiredoc
from referee.games import GAMES
from referee.stdio import reply_id, reply_message


def documented_lines() -> dict[str, tuple[str, str]]:
    """Each game's documented request and reply lines, by game."""
    text = wiredoc.DOC.read_text()
    found = re.findall(r"^#### `([a-z-]+)`\n.*?^> (.*?)\n^< (.*?)\n", text, re.M | re.S)
    return {game: (request, reply) for game, request, reply in found}


def test_the_json_wire_section_is_up_to_date():
    text = wiredoc.DOC.read_text()
    assert wiredoc.rewritten(text) == text, "run: python -m referee.wiredoc"
    assert wiredoc.main(["--check"]) == 0


def test_every_message_a_stdio_bot_meets_has_a_table():
    text = wiredoc.DOC.read_text()
    for name in ("RefereeMessage", "BotMessage", "DecisionRequest", "Decision", "Event",
                 "FleaCircusObservation", "FlohcatiObservation", "FlohcatiSeatTrios",
                 "AnimalCircusObservation", "AnimalCircusFinalState"):
        assert f"\n#### {name}\n" in text, name
    assert "| `piles` | list of object: [FleaPile](#fleapile) |" in text
    assert '| `decision_id` | string of digits (`"7"`) |' in text


def test_each_game_s_decide_line_is_read_as_the_referee_reads_it():
    """The request is a RefereeMessage (nothing in it unknown to the proto); the reply, read
    by the referee's own stdio reader, answers it with a legal index."""
    lines = documented_lines()
    assert set(lines) == set(GAMES)
    for game, (request_line, reply_line) in lines.items():
        request = json_format.Parse(request_line, bot_pb2.RefereeMessage())
        decide = request.decide
        assert decide.observation.WhichOneof("game") == game.replace("-", "_")
        assert len(decide.legal_actions) >= 2 and decide.events, game
        reply = json.loads(reply_line)
        assert reply_id(reply) == request.request_id
        decision = reply_message(reply, "decide")
        assert isinstance(decision, bot_pb2.Decision)
        assert decision.decision_id == decide.decision_id
        assert 0 <= decision.action_index < len(decide.legal_actions)


def test_the_shapes_asked_about_are_in_the_examples():
    """A pile arrives as piles[s].cards; Flohcati's trios and known cards; Animal Circus's
    score piles."""
    lines = {game: json.loads(request)["decide"]["observation"]
             for game, (request, _) in documented_lines().items()}
    assert any(pile.get("cards") for pile in lines["flea-circus"]["flea_circus"]["piles"])
    flohcati = lines["flohcati"]["flohcati"]
    assert any(seat.get("trios") for seat in flohcati["trios"])
    assert any(seat.get("cards") for seat in flohcati["known_cards"])
    assert any(pile.get("cards") for pile in lines["animal-circus"]["animal_circus"]["score_piles"])
