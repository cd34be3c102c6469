"""The Play stream (protocol 1.1): one gRPC stream per bot process, and its faults.

The SDK's bots announce the stream in Hello and the referee then plays over it; the same
config over unary calls (``--no-play-stream``) gives the same games. The fault bots of
tests/fault_bots.py break the stream's rules one by one (``--stream``), as test_faults.py
breaks the unary calls'.
"""

from __future__ import annotations

import json
import threading
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from click.testing import CliRunner
from conftest import assert_no_process_left, run_tournament, write_config
from test_faults import BANK_MS, GOOD_PROCESS, ONE_PROCESS, bad_ranks, config_text, run

from bots.random_bot import RandomBot
from bots.sdk import _Servicer, start_server
from circus.v1 import bot_pb2, bot_pb2_grpc
from circus_referee.main import main
from referee import participants
from referee.clients import BotFault, GrpcClient
from referee.request_ids import skipped
from referee.stream import FELL_BACK, StreamClient, envelope
from tournaments.packs import UNARY_FALLBACK
from tournaments.standings import standings

# Six games, three at once on each bot's one process: the transports' games compared, not
# fresh processes (each start costs CPU).
CONFIG = """
name: stream
game: flea-circus
players: 2
rounds: 1
seed: 11
concurrency: 3
renew_bots: false
secret_deals: false
time: {{move_ms: 5000, bank_ms: 30000, call_ms: 5000}}
bots:
  - name: random-1
    command: python -m bots.random_bot --address {{address}} {flag}
  - name: random-2
    command: python -m bots.random_bot --address {{address}} {flag}
  - name: greedy
    command: python -m bots.flea_greedy --address {{address}} {flag}
"""


def played(tmp_path: Path, flag: str):
    folder = tmp_path / (flag.strip("-") or "stream")
    folder.mkdir()
    summary, store, _ = run_tournament(write_config(folder, CONFIG.format(flag=flag)), folder)
    games = [(g.game_index, g.seats, g.actions, g.scores, g.ranks, g.status)
             for g in store.games("stream")]
    board = [(row.bot, row.rank, row.games, row.wins, round(row.mu, 9))
             for row in standings(store, store.resolve("stream"))]
    logs = "".join(path.read_text() for path in (folder / "logs" / "stream").glob("*.log"))
    return games, board, logs


def test_a_tournament_over_the_stream_plays_the_games_it_plays_over_unary_calls(
        tmp_path, started):
    streamed, board, stream_logs = played(tmp_path, "")
    unary, unary_board, unary_logs = played(tmp_path, "--no-play-stream")
    assert len(streamed) == 6 and all(game[-1] == "finished" for game in streamed)
    assert streamed == unary and board == unary_board
    # Each side really used its transport: the SDK says when a referee opens a stream.
    assert "opened a Play stream" in stream_logs
    assert "opened a Play stream" not in unary_logs
    assert_no_process_left(started)


@pytest.mark.parametrize("request_id", [1, 127, 128, 300, 2**40])
def test_an_envelope_is_the_bytes_of_the_referee_message_it_stands_for(request_id):
    long_action = bot_pb2.LegalAction(label="x" * 200)   # a length of two varint bytes
    bodies = {"start_game": bot_pb2.StartGameRequest(game_id="g/1", seat=1, seat_names=["a"]),
              "decide": bot_pb2.DecisionRequest(game_id="g/1", decision_id=7,
                                                legal_actions=[long_action]),
              "end_game": bot_pb2.EndGameRequest(game_id="g/1", scores=[3, 4])}
    for case, body in bodies.items():
        message = bot_pb2.RefereeMessage(request_id=request_id, **{case: body})
        data = envelope(request_id, case, body.SerializeToString())
        assert data == message.SerializeToString()
        assert bot_pb2.RefereeMessage.FromString(data) == message


def test_the_sdk_announces_the_stream_unless_told_not_to():
    request = bot_pb2.HelloRequest(protocol_version="1.1.0")
    assert RandomBot().hello(request).serves_play_stream

    class Unary(RandomBot):
        serves_play_stream = False

    assert not Unary().hello(request).serves_play_stream


class Holding(RandomBot):
    """Answers game "a" only after game "b" has been answered: two games in flight on one
    stream, replies out of order."""

    def __init__(self) -> None:
        self.b_answered = threading.Event()
        self.entered = threading.Semaphore(0)

    def decide(self, request) -> int:
        self.entered.release()
        if request.game_id == "a":
            assert self.b_answered.wait(30)
        return super().decide(request)


def decision_request(game_id: str, decision_id: int) -> bot_pb2.DecisionRequest:
    return bot_pb2.DecisionRequest(game_id=game_id, decision_id=decision_id,
                                   legal_actions=[bot_pb2.LegalAction(code="x")] * 3)


@pytest.fixture
def serving(tmp_path):
    """A Python SDK bot in this process and a stream client to it (no sandbox: the
    stream's own rules, not the bot's process, are under test)."""
    servers, clients = [], []
    notes: list[str] = []

    def serve(bot) -> StreamClient:
        address = f"unix:{tmp_path / f'bot-{len(servers)}.sock'}"
        servers.append(start_server(bot, address=address))
        client = StreamClient(GrpcClient(address), notes.append)
        clients.append(client)
        hello = client.hello(bot_pb2.HelloRequest(protocol_version="1.1.0"), timeout=30)
        assert hello.serves_play_stream
        return client

    yield serve
    for client in clients:
        client.close()
    for server in servers:
        server.stop(0).wait()


def test_replies_find_their_requests_when_games_in_flight_answer_out_of_order(serving):
    bot = Holding()
    client = serving(bot)
    replies: dict[str, bot_pb2.Decision] = {}
    first = threading.Thread(target=lambda: replies.update(a=client.decide(
        decision_request("a", 7), timeout=60)))
    first.start()
    assert bot.entered.acquire(timeout=30)   # "a" is in the bot, held
    replies["b"] = client.decide(decision_request("b", 9), timeout=60)
    bot.b_answered.set()
    first.join(60)
    assert (replies["a"].decision_id, replies["b"].decision_id) == (7, 9)


class Late(RandomBot):
    """Holds its first decision until told, then answers every decision."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0

    def decide(self, request) -> int:
        self.calls += 1
        if self.calls == 1:
            self.release.wait(60)
        return super().decide(request)


def test_a_reply_after_its_timeout_is_dropped_and_the_stream_goes_on(serving):
    bot = Late()
    client = serving(bot)
    with pytest.raises(BotFault) as fault:
        client.decide(decision_request("g", 1), timeout=0.2)   # the bot holds it: no machine
    assert fault.value.fault_class == "timeout"                # answers in time
    bot.release.set()
    # The late reply to request 1 comes in meanwhile: dropped, not held against request 2.
    assert client.decide(decision_request("g", 2), timeout=60).decision_id == 2
    assert client.decide(decision_request("g", 3), timeout=60).decision_id == 3


def kept(holder) -> dict[str, int]:
    """The collections ``holder`` keeps that are not empty, by name, with their sizes."""
    return {name: len(value) for name, value in vars(holder).items()
            if isinstance(value, (set, dict, list)) and value}


def test_requests_that_timed_out_are_forgotten(tmp_path):
    """The client keeps nothing of a request once its call ended: a bot that times out all
    run long costs the referee no memory for it, whether its late replies come or not."""
    bot = Stuck()
    address = f"unix:{tmp_path / 'stuck.sock'}"
    server = start_server(bot, address=address, workers=4)
    notes: list[str] = []
    client = StreamClient(GrpcClient(address), notes.append)
    try:
        for number in range(1, 4):
            with pytest.raises(BotFault):
                client.decide(decision_request("g", number), timeout=0.05)
        assert kept(client) == kept(client.ids) == {}
        bot.go.set()
        assert client.decide(decision_request("g", 4), timeout=60).decision_id == 4
    finally:
        bot.go.set()
        client.close()
        server.stop(0).wait()


class Stuck(RandomBot):
    """Every decision hangs until the test lets go."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.entered = threading.Semaphore(0)

    def decide(self, request) -> int:
        self.entered.release()
        self.go.wait(60)
        return super().decide(request)


def test_decisions_hung_in_the_sdk_leave_its_health_check_unanswered_too(tmp_path):
    """As over unary calls: the stream's calls run on the server's own pool, so a bot whose
    threads all hang does not answer Hello, and the referee takes it for hung."""
    bot = Stuck()
    address = f"unix:{tmp_path / 'stuck.sock'}"
    server = start_server(bot, address=address, workers=2)   # the Play handler and one more
    client = StreamClient(GrpcClient(address), [].append)
    try:
        with pytest.raises(BotFault) as fault:
            client.decide(decision_request("g", 1), timeout=0.5)   # hangs: no machine answers
        assert fault.value.fault_class == "timeout" and bot.entered.acquire(timeout=30)
        with pytest.raises(BotFault) as probe:
            client.hello(bot_pb2.HelloRequest(protocol_version="1.1.0"), timeout=1)
        assert probe.value.fault_class == "timeout"
    finally:
        bot.go.set()
        client.close()
        server.stop(0).wait()


class Failing(RandomBot):
    def decide(self, request) -> int:
        if request.game_id == "bad":
            raise RuntimeError("the bot's handler failed")
        return super().decide(request)


def test_a_failing_handler_costs_its_own_request_only(serving):
    client = serving(Failing())
    with pytest.raises(BotFault) as fault:
        client.decide(decision_request("bad", 1), timeout=60)
    assert (fault.value.fault_class, fault.value.detail) == (
        "error", "RuntimeError: the bot's handler failed")
    assert client.decide(decision_request("good", 2), timeout=60).decision_id == 2


class Twice(_Servicer):
    """Sends every Decision twice."""

    def Play(self, request_iterator, context):  # noqa: N802
        for reply in super().Play(request_iterator, context):
            yield reply
            if reply.HasField("decide"):
                yield reply


def test_a_second_reply_is_skipped_and_noted_in_the_bots_log(tmp_path):
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    bot_pb2_grpc.add_BotServicer_to_server(Twice(RandomBot()), server)
    address = f"unix:{tmp_path / 'twice.sock'}"
    server.add_insecure_port(address)
    server.start()
    notes: list[str] = []
    client = StreamClient(GrpcClient(address), notes.append)
    try:
        for number in range(1, 4):
            assert client.decide(decision_request("g", number), timeout=60).decision_id == number
        # Each decision's second reply comes before or after the next request: either way
        # it is skipped, and the stream goes on.
        assert skipped(1) in notes and skipped(2) in notes
    finally:
        client.close()
        server.stop(0).wait()


class Unserved(_Servicer):
    """Announces the Play stream (the SDK does) and answers it UNIMPLEMENTED, as an older
    server or a proxy in front of the bot would."""

    Play = bot_pb2_grpc.BotServicer.Play


def test_a_stream_answered_unimplemented_falls_back_to_unary_calls(tmp_path):
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    bot_pb2_grpc.add_BotServicer_to_server(Unserved(RandomBot()), server)
    address = f"unix:{tmp_path / 'unserved.sock'}"
    server.add_insecure_port(address)
    server.start()
    notes: list[str] = []
    client = StreamClient(GrpcClient(address), notes.append)
    try:
        client.start_game(bot_pb2.StartGameRequest(game_id="g"), timeout=60)
        for number in range(1, 4):
            assert client.decide(decision_request("g", number), timeout=60).decision_id == number
        client.end_game(bot_pb2.EndGameRequest(game_id="g"), timeout=60)
        assert notes == [FELL_BACK]
    finally:
        client.close()
        server.stop(0).wait()


def test_a_stream_bot_that_falls_back_plays_clean_and_times_says_how(tmp_path, started):
    summary, store, games, faults = run(tmp_path, stream_config("unserved-stream"))
    assert faults == [] and all(game.status == "finished" for game in games)
    log = (tmp_path / "logs" / "faults" / "bad.log").read_text()
    runs = log.count("=== run ")   # a fresh process each seat rotation: one line each
    assert [line for line in log.splitlines() if FELL_BACK in line] == [
        f"=== referee: run {run} of bad: {FELL_BACK}" for run in range(1, runs + 1)]
    report = CliRunner().invoke(main, ["times", "--db", str(tmp_path / "results.sqlite"),
                                       "--format", "json"])
    assert {row["bot"]: row["transport"] for row in json.loads(report.output)}["bad"] == \
        UNARY_FALLBACK
    assert_no_process_left(started)


def stream_config(mode: str, concurrency: int = 3, bank_ms: int = BANK_MS, extra: str = "") -> str:
    return config_text(mode, bad_args="--stream", concurrency=concurrency, bank_ms=bank_ms,
                       extra=extra)


@pytest.mark.parametrize("mode, fault_class, detail", [
    ("hang", "timeout", "DEADLINE_EXCEEDED"),
    ("out-of-range", "illegal", "out of range"),
    ("stale", "illegal", "stale decision_id"),
    ("raise", "error", "RuntimeError: the bot's handler failed"),
    ("oversize", "illegal", "RESOURCE_EXHAUSTED"),
    ("garbage", "illegal", "is no BotMessage"),
    ("wrong-id", "illegal", "which was never sent"),
    ("wrong-case", "illegal", "the reply to decide is start_game"),
])
def test_a_stream_bots_faults_strike_out_and_forfeit(tmp_path, started, mode, fault_class,
                                                     detail):
    bank = 300 if mode == "hang" else BANK_MS
    summary, store, games, faults = run(tmp_path, stream_config(mode, 3, bank, ONE_PROCESS))
    assert summary.played == len(games) == 3
    assert {f["class"] for f in faults if f["bot"] == "bad"} == {fault_class}
    assert detail in faults[0]["detail"]
    per_game = [[f["policy"] for f in faults
                 if f["game_index"] == g.game_index and f["policy"] != "ignored"]
                for g in games]
    assert all(policies == ["substitute", "substitute", "forfeit"] for policies in per_game), \
        [(f["game_index"], f["bot"], f["class"], f["policy"], f["detail"]) for f in faults]
    assert {f["bot"] for f in faults} == {"bad"}
    assert all(game.status == "forfeit" for game in games)
    assert bad_ranks(games) == [3, 3, 3]
    assert "opened a Play stream" in (tmp_path / "logs" / "faults" / "bad.log").read_text()
    assert_no_process_left(started)


@pytest.mark.parametrize("mode, ended, runs", [
    ("exit", "its process ended: exited with status 3 (the Play stream broke: ", 2),
    ("end-stream", "the bot ended its Play stream", 1),
])
def test_a_stream_that_breaks_or_ends_is_a_crash_of_its_game_only(tmp_path, started,
                                                                   monkeypatch, mode, ended,
                                                                   runs):
    """``exit``: the process dies mid-stream and is restarted for the next game;
    ``end-stream``: the process lives on, and the next game opens a new stream."""
    if mode == "end-stream":
        # The process lives on: any moment the referee gives it to end runs out, and the
        # default 5 s checks no more.
        monkeypatch.setattr(participants, "CRASH_SETTLE_S", 0.2)
    text = stream_config(mode, concurrency=1, extra="renew_bots: false")
    summary, store, games, faults = run(tmp_path, text)
    assert [f["class"] for f in faults] == ["crash"] and faults[0]["policy"] == "forfeit"
    assert faults[0]["detail"].startswith(ended), faults[0]["detail"]
    assert [g.status for g in games] == ["forfeit", "finished", "finished"]
    assert bad_ranks(games)[0] == 3
    assert len(started) == runs  # the bad bot's (the good ones are in process)
    log = (tmp_path / "logs" / "faults" / "bad.log").read_text()
    assert log.count("opened a Play stream") == 2
    assert_no_process_left(started)


def test_a_unary_only_bot_plays_beside_stream_bots(tmp_path, started):
    """The fault bot without --stream is unary-only (as a 1.0 bot is): it plays, clean."""
    summary, store, games, faults = run(tmp_path, config_text("slow", good=GOOD_PROCESS,
                                                              extra=ONE_PROCESS))
    assert faults == [] and all(game.status == "finished" for game in games)
    logs = tmp_path / "logs" / "faults"
    assert "opened a Play stream" not in (logs / "bad.log").read_text()
    assert "opened a Play stream" in (logs / "good-1.log").read_text()
    assert_no_process_left(started)
