"""The stdio transport's direct writer of decision requests (referee/jsonwire.py) against
protobuf's own canonical JSON mapping of the message every other transport sends."""

from __future__ import annotations

import json
import random

import pytest
from google.protobuf import json_format

from circus.v1 import bot_pb2, flea_circus_pb2
from referee import jsonwire, wire
from referee.clients import DecisionView
from referee.games import GAMES
from referee.games.base import Action
from referee.stdio import Lane, StdioPool


def random_views(seeds: range):
    """A DecisionView of every decision of random games of every game, variant and player
    count, with the caches and event offsets a Match keeps, then the state moved on."""
    for game in GAMES.values():
        for variant in game.variants:
            for players in range(game.min_players, game.max_players + 1):
                for seed in seeds:
                    state = game.new_state(players, variant, seed)
                    choices, cache, texts, seen = random.Random(seed), [], [], [0] * players
                    decision = 0
                    while not state.is_terminal():
                        decision += 1
                        actions, seat = state.legal_actions(), state.current_seat()
                        yield DecisionView(state, f"g{seed}", decision, seen[seat],
                                           choices.choice([0, 5, 1000]),
                                           choices.choice([0, 1, 30_000]), actions, cache, texts)
                        seen[seat] = len(state.events)
                        state.apply(choices.randrange(len(actions)), actions)


def direct(view: DecisionView) -> str:
    return jsonwire.decision_text(view.state, view.game_id, view.decision_id, view.events_from,
                                  view.move_ms, view.bank_ms, view.actions, view.event_texts)


def test_every_request_of_random_games_is_protobuf_s_canonical_json_of_its_message():
    count = 0
    for view in random_views(range(3)):
        # The message first: it fills the byte cache as a gRPC seat's requests would.
        expected = json_format.MessageToDict(view.message(), preserving_proto_field_name=True)
        assert json.loads(direct(view)) == expected
        count += 1
    assert count > 5000


def test_a_struct_s_numbers_are_doubles_as_protobuf_writes_them():
    assert jsonwire.struct_text({"a": 3, "b": [True, None, "x", 2.5], "c": {}}) == \
        '{"a":3.0,"b":[true,null,"x",2.5],"c":{}}'


def test_a_card_dict_changed_in_place_is_written_again():
    writer = jsonwire.message_writer(flea_circus_pb2.FleaCircusObservation.DESCRIPTOR)
    card = {"kind": "saucer", "saucer": "A", "value": 2}
    assert json.loads(writer({"hand": [card]}))["hand"] == [card]
    card["value"] = 4
    assert json.loads(writer({"hand": [card]}))["hand"] == [card]


@pytest.mark.parametrize("observation", [
    {"no_such_field": 1},
    {"earth": "25"},                       # a string in an integer field
    {"earth": True},                       # a bool in an integer field
    {"hand_sizes": [1, -1]},               # a negative uint32
    {"earth": 1 << 32},                    # over a uint32's range
    {"skipping": [0]},                     # an int in a bool field
    {"hand": [{"kind": 3}]},               # an int in a string field
    {"hand": {"kind": "numbers"}},         # a message where a list belongs
])
def test_data_the_writer_cannot_vouch_for_is_unencodable(observation):
    with pytest.raises(jsonwire.Unencodable):
        jsonwire.message_writer(bot_pb2.Observation.DESCRIPTOR)({"flea_circus": observation})


def test_the_pool_sends_the_message_for_data_the_writer_refuses():
    game = GAMES["flea-circus"]
    state = game.new_state(2, "standard", 1)
    good = state.legal_actions()
    # An integer as a string of digits: protobuf's ParseDict takes it (wire's fallback).
    odd = [Action("play:odd", "odd", {**good[0].payload, "count": "2"})]
    pool = StdioPool([Lane(None)], lambda: "")  # type: ignore[arg-type]  # no process is asked
    view = DecisionView(state, "g", 1, 0, 5, 0, good, [], [])
    assert isinstance(pool.prepare(view), str)
    refused = DecisionView(state, "g", 1, 0, 5, 0, odd, [], [])
    assert pool.prepare(refused) == wire.decision_request(
        state, "g", 1, 0, bot_pb2.Clock(move_ms=5), odd, [])
