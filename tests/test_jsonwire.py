"""The stdio transport's direct writer of decision requests (referee/jsonwire.py) against
protobuf's own canonical JSON mapping of the message every other transport sends."""

from __future__ import annotations

import json
import random

import pytest
from google.protobuf import json_format

from circus.v1 import bot_pb2, flea_circus_pb2
from referee import jsonwire, wire
from circus_outcomes import GameStatus
from referee.clients import BotFault, DecisionView, GameEnd, GameStart
from referee.games import GAMES
from referee.games.base import Action, Event, ranks_from_scores
from referee.match import seat_labels
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


def direct(view: DecisionView) -> bytes:
    return jsonwire.decision_text(view.state, view.game_id, view.decision_id, view.events_from,
                                  view.move_ms, view.bank_ms, view.actions, view.event_texts)


def test_every_request_of_random_games_is_protobuf_s_canonical_json_of_its_message():
    count = 0
    for view in random_views(range(2)):
        # The message first: it fills the byte cache as a gRPC seat's requests would.
        expected = json_format.MessageToDict(view.message(), preserving_proto_field_name=True)
        assert json.loads(direct(view)) == expected
        count += 1
    assert count > 3000


def canonical(message) -> dict:
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def test_every_start_game_request_is_protobuf_s_canonical_json_of_its_message():
    count = 0
    for game in GAMES.values():
        for variant in game.variants:
            for players in range(game.min_players, game.max_players + 1):
                names = [seat_labels(players), [f'b\u00f6t "{seat}"\n' for seat in range(players)]]
                for seat in range(players):
                    for move_ms, bank_ms, seat_names in ((0, 0, names[0]), (5, 30_000, names[1])):
                        start = GameStart(f"g{seat}", game.name, variant, seat, seat_names,
                                          move_ms, bank_ms)
                        text = jsonwire.start_game_text(
                            start.game_id, start.game, start.variant, start.seat,
                            start.seat_names, start.move_ms, start.bank_ms)
                        assert json.loads(text) == canonical(start.message())
                        count += 1
    assert count > 50


def random_ends(seeds: range):
    """A GameEnd of random games of every game, variant and player count, played out."""
    for game in GAMES.values():
        for variant in game.variants:
            for players in range(game.min_players, game.max_players + 1):
                for seed in seeds:
                    state = game.new_state(players, variant, seed)
                    choices = random.Random(seed)
                    while not state.is_terminal():
                        actions = state.legal_actions()
                        state.apply(choices.randrange(len(actions)), actions)
                    scores = state.scores()
                    yield players, GameEnd(f"g{seed}", game.name, scores,
                                           ranks_from_scores(scores), state.end_reason,
                                           state.final_state(), choices.choice(list(GameStatus)).value)


def test_every_end_game_request_of_random_games_is_protobuf_s_canonical_json_of_its_message():
    count = 0
    for players, end in random_ends(range(3)):
        for seat in range(players):
            text = jsonwire.end_game_text(end.game_id, end.game, end.scores, end.ranks,
                                          end.reason, end.final, seat, end.status, end.final_text)
            assert json.loads(text) == canonical(end.message(seat))
            count += 1
    assert count > 50


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
    assert isinstance(pool.prepare(view), bytes)
    refused = DecisionView(state, "g", 1, 0, 5, 0, odd, [], [])
    assert pool.prepare(refused) == wire.decision_request(
        state, "g", 1, 0, bot_pb2.Clock(move_ms=5), odd, [])


@pytest.mark.parametrize("decision_id", [-1, 1 << 64, True])
def test_a_decision_id_out_of_uint64_is_unencodable(decision_id):
    state = GAMES["flea-circus"].new_state(2, "standard", 1)
    with pytest.raises(jsonwire.Unencodable):
        jsonwire.decision_text(state, "g", decision_id, 0, 5, 0, state.legal_actions(), [])


def test_a_pool_whose_wire_is_logged_prepares_the_message_the_log_writes():
    state = GAMES["flea-circus"].new_state(2, "standard", 1)
    view = DecisionView(state, "g", 1, 0, 5, 0, state.legal_actions(), [], [])
    pool = StdioPool([Lane(None)], lambda: "", logged=True)  # type: ignore[arg-type]  # as above
    assert pool.prepare(view) == view.message()


class Recorder:
    """A lane's client that keeps what the pool sends it (a text or a message)."""

    def __init__(self) -> None:
        self.sent: list = []

    def start_game(self, request, timeout) -> None:
        self.sent.append(request)

    def end_game(self, request, timeout) -> None:
        self.sent.append(request)

    def close(self) -> None:
        pass


def recorded_pool(logged: bool = False) -> tuple[StdioPool, Recorder]:
    lane, recorder = Lane(None), Recorder()  # type: ignore[arg-type]  # no process is asked
    lane.free = lambda: lane.seat is None  # type: ignore[method-assign]  # no process to ask
    lane.client = recorder  # type: ignore[assignment]  # only start_game and end_game are called
    return StdioPool([lane], lambda: "", logged=logged), recorder


def played_end() -> GameEnd:
    state = GAMES["flea-circus"].new_state(2, "standard", 1)
    while not state.is_terminal():
        state.apply(0, state.legal_actions())
    return GameEnd("g", "flea-circus", state.scores(), ranks_from_scores(state.scores()),
                   state.end_reason, state.final_state(), "finished")


def test_start_and_end_go_as_text_and_as_the_message_for_data_the_writer_refuses():
    pool, recorder = recorded_pool()
    start, end = GameStart("g", "flea-circus", "standard", 1, ["a", "b"], 5, 0), played_end()
    pool.start_game_view(start, 1.0)
    pool.end_game_view(end, 1, 1.0)
    assert [json.loads(text) for text in recorder.sent] == [canonical(start.message()),
                                                            canonical(end.message(1))]
    # A str subclass (protobuf takes it; the writer vouches only for str itself).
    odd_start = GameStart("g", "flea-circus", "standard", 1, ["a", GameStatus.VOID], 5, 0)
    odd_end = played_end()
    odd_end.status = GameStatus.VOID
    pool.start_game_view(odd_start, 1.0)
    pool.end_game_view(odd_end, 1, 1.0)
    assert recorder.sent[2:] == [odd_start.message(), odd_end.message(1)]


def test_a_logged_pool_sends_start_and_end_as_the_messages_the_log_writes():
    pool, recorder = recorded_pool(logged=True)
    start, end = GameStart("g", "flea-circus", "standard", 0, ["a", "b"], 5, 0), played_end()
    pool.start_game_view(start, 1.0)
    pool.end_game_view(end, 0, 1.0)
    assert recorder.sent == [start.message(), end.message(0)]


def test_every_request_is_byte_for_byte_the_text_written_with_no_cache(monkeypatch):
    """The events' texts kept across games change no byte: the requests of random games
    (every game's second seed meets the events of the games before it again) against
    each written afresh, as they were before that cache."""
    seeds = range(2)
    cached = [direct(view) for view in random_views(seeds)]
    monkeypatch.setattr(jsonwire, "event_key", lambda field, event: None)
    fresh = [direct(view) for view in random_views(seeds)]
    assert len(cached) > 3000
    assert cached == fresh


def test_a_recurring_event_s_text_is_kept_with_its_data_s_order_and_types():
    field = "flea_circus"
    first, reordered = Event("loot", "a", 1, {"source": "earth", "amount": 3}), \
        Event("loot", "a", 1, {"amount": 3, "source": "earth"})
    assert jsonwire.event_text(field, 4, first) == (
        '{"sequence":"4","kind":"loot","seat":1,"text":"a","data":{"source":"earth",'
        '"amount":3.0},"payload":{"flea_circus":{"source":"earth","amount":3}}}')
    assert jsonwire.event_text(field, 0, first) == "{" + jsonwire.event_text(field, 4, first)[16:]
    assert jsonwire.event_text(field, 9, reordered).index('"amount"') < \
        jsonwire.event_text(field, 9, reordered).index('"source"')
    with pytest.raises(jsonwire.Unencodable):
        jsonwire.event_text(field, 5, Event("loot", "a", 1, {"source": "earth", "amount": True}))


def test_a_decision_goes_to_the_lane_its_seat_took_and_never_to_one_restarted_since():
    lanes = [Lane(None), Lane(None)]  # type: ignore[arg-type]  # no process is asked
    recorders = [Recorder(), Recorder()]
    for lane, recorder in zip(lanes, recorders):
        lane.free = (lambda lane=lane: lane.seat is None)  # type: ignore[method-assign]
        lane.client = recorder  # type: ignore[assignment]  # as in recorded_pool
    pool = StdioPool(lanes, lambda: "")
    pool.start_game_view(GameStart("g", "flea-circus", "standard", 0, ["a", "b"], 5, 0), 1.0)
    assert pool._lane_of(("g", 0)) is lanes[0]
    lanes[0].connect(recorders[0])  # restarted: free again, then taken by another game
    pool.start_game_view(GameStart("h", "flea-circus", "standard", 0, ["a", "b"], 5, 0), 1.0)
    assert pool._lane_of(("h", 0)) is lanes[0]
    with pytest.raises(BotFault) as raised:
        pool._lane_of(("g", 0))
    assert raised.value.fault_class == "crash"
    for game in range(10):   # seats whose games ended with no EndGame are forgotten
        lanes[1].seat = None
        pool.start_game_view(GameStart(f"x{game}", "flea-circus", "standard", 1, ["a", "b"],
                                       5, 0), 1.0)
    assert len(pool.taken) <= 2 * len(lanes)
