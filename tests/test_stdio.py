"""The stdio transport: its lines, one process's faults, and real sandboxed tournaments.

The lines are the envelope in protobuf's canonical JSON mapping (tests/test_jsonwire.py
checks the writer on every request of random games); the faults are those of a bot that
answers on its stdout (tests/stdio_fault_bots.py), first against one process, then in
tournaments, where each bot is sandboxed as a gRPC bot is.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import assert_no_process_left, interrupted_run, run_tournament, write_config
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import assert_consistent
from test_debug_wire import assert_every_call_answered, wire_lines
from test_faults import BANK_MS

from circus.v1 import bot_pb2
from circus_referee.main import main
from referee import participants, wire
from referee.checkbot import check_bot
from referee.clients import BotFault
from referee.games import GAMES
from referee.process import BotProcess
from referee.request_ids import skipped
from referee.sandbox import Isolation
from referee.settings import BotSpec, LimitsConfig, TimeConfig
from referee.stdio import (REPLIES, RequestTooLarge, StdioClient, reply_id, reply_message,
                            request_line)
from tournaments.config import ConfigError, load_config
from tournaments.runner import TournamentError
from tournaments.schedule import schedule
from tournaments.worker import GameTask, RunSpec, epoch_of, finish_run, play_game

ROOT = Path(__file__).resolve().parent.parent
FAULT_BOTS = Path(__file__).resolve().parent / "stdio_fault_bots.py"
RANDOM_BOT = ROOT / "bots" / "stdio" / "random_bot.py"


# -- the lines ---------------------------------------------------------------------------
@functools.cache
def requests_of_random_games() -> tuple:
    """Every request of a random game of every game, variant and player count."""
    requests: list = []
    for game in GAMES.values():
        for variant in game.variants:
            for players in range(game.min_players, game.max_players + 1):
                state = game.new_state(players, variant, players)
                choices, cache, decision = random.Random(players), [], 0
                # Each seat's next event, as Match sends them: the events since its last request.
                seen = [0] * players
                requests.append(bot_pb2.StartGameRequest(
                    game_id="g", game=game.name, variant=variant, num_players=players,
                    seat=0, seat_names=["a", "b"], time_control=bot_pb2.TimeControl(move_ms=1)))
                while not state.is_terminal():
                    decision += 1
                    actions, seat = state.legal_actions(), state.current_seat()
                    requests.append(wire.decision_request(
                        state, "g", decision, seen[seat], bot_pb2.Clock(move_ms=5, bank_ms=0),
                        actions, cache))
                    seen[seat] = len(state.events)
                    state.apply(choices.randrange(len(actions)), actions)
                requests.append(bot_pb2.EndGameRequest(
                    game_id="g", scores=state.scores(), ranks=[1] * players,
                    reason=state.end_reason, final_state=wire.struct(state.final_state()),
                    seat=1, status="finished"))
    return tuple(requests)


@pytest.mark.parametrize("case, index", [("hello", None), ("decide", 1), ("end_game", -1)])
def test_a_request_is_one_line_of_the_envelope(case, index):
    # The random games are played by the test, not at every xdist worker's collection.
    message = (bot_pb2.HelloRequest(protocol_version="1.1.0", referee="r") if index is None
               else requests_of_random_games()[index])
    line = request_line(7, case, message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    envelope = json_format.Parse(line.decode("utf-8"), bot_pb2.RefereeMessage())
    assert envelope.request_id == 7 and envelope.WhichOneof("call") == case
    assert getattr(envelope, case) == message


def test_a_reply_may_use_either_name_and_fields_the_referee_does_not_know():
    assert reply_message({"endGame": {}}, "end_game") == bot_pb2.EndGameResponse()
    decision = reply_message({"decide": {"decisionId": "4", "action_index": 2, "why": "x"}},
                             "decide")
    assert decision == bot_pb2.Decision(decision_id=4, action_index=2)
    for body in ({"decision_id": "4", "action_index": 2}, {"decision_id": 4, "actionIndex": 2},
                 {"decision_id": 4.0, "action_index": 2}, {"action_index": 2, "decision_id": 4}):
        assert reply_message({"decide": body}, "decide") == decision


@pytest.mark.parametrize("value, answered", [
    (7, 7), ("7", 7), ("0007", 7), (True, None), ("\u00b2", None), ("\u0667", None),
    ("-7", None), ("7.0", None), (None, None),
])
def test_a_reply_names_its_request_by_an_integer_or_ascii_digits(value, answered):
    # "\u00b2" (superscript two) and "\u0667" (Arabic-Indic seven) pass str.isdigit; int()
    # refuses the first and reads the second as 7: neither is a request id.
    assert reply_id({"request_id": value}) == answered
    assert reply_id({"requestId": value}) == answered


@pytest.mark.parametrize("reply, message", [
    ({"end_game": {}}, "answered with the case end_game"),
    ({}, "answered with the case none"),
    ({"decide": {}, "hello": {}}, "answered with the case decide and hello"),
    ({"decide": {"action_index": -1}}, "does not parse"),
    ({"decide": {"decision_id": "4", "action_index": 1 << 32}}, "does not parse"),
    ({"decide": {"decision_id": "-4", "action_index": 1}}, "does not parse"),
    ({"decide": {"action_index": "two"}}, "does not parse"),
    ({"decide": []}, "does not parse"),
])
def test_a_reply_that_is_not_the_call_s_is_illegal(reply, message):
    with pytest.raises(BotFault) as fault:
        reply_message(reply, "decide")
    assert fault.value.fault_class == "illegal" and message in fault.value.detail


#: The names a reply's fields are looked for by, so that fuzzed replies hit them.
REPLY_KEYS = ["request_id", "requestId", "hello", "start_game", "startGame", "decide",
              "end_game", "endGame", "decision_id", "decisionId", "action_index",
              "actionIndex", "protocol_version", "name", "games", "variants"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | st.sampled_from(["7", "-1", "1e3", "\u00b2", "0x10", "18446744073709551616"]),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(REPLY_KEYS) | st.text(max_size=4), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(reply=st.dictionaries(st.sampled_from(REPLY_KEYS), json_values, max_size=3),
       case=st.sampled_from(["hello", "start_game", "decide", "end_game"]))
def test_any_parsed_reply_line_is_a_message_of_its_call_or_an_illegal_fault(reply, case):
    """Whatever JSON a bot writes, the referee gets its call's message or an ``illegal``
    fault: no other exception reaches the match."""
    assert reply_id(reply) is None or isinstance(reply_id(reply), int)
    try:
        message = reply_message(reply, case)
    except BotFault as fault:
        assert fault.fault_class == "illegal"
        return
    assert isinstance(message, REPLIES[case])


# -- one process -------------------------------------------------------------------------
HELLO = bot_pb2.HelloRequest(protocol_version="1.1.0", referee="test")


@pytest.fixture
def bot(tmp_path):
    """A function that starts the fault bot MODE unsandboxed and returns its client."""
    processes: list[BotProcess] = []

    def start(mode: str, *args: str, settle_s: float = 10.0,
              message_bytes: int = 4 * 1024 * 1024) -> StdioClient:
        process = BotProcess("bot", f"{sys.executable} {FAULT_BOTS} {mode} {' '.join(args)}",
                             tmp_path / "bot.log", isolation=Isolation(sandbox=False),
                             stdio=True)
        process.start()
        processes.append(process)
        return StdioClient(process, message_bytes, settle_s=settle_s)

    yield start
    for process in processes:
        process.stop()


def a_decision(decision_id: int = 1) -> bot_pb2.DecisionRequest:
    request = bot_pb2.DecisionRequest()
    request.CopyFrom(requests_of_random_games()[1])
    request.decision_id = decision_id
    return request


def fault_of(call) -> BotFault:
    with pytest.raises(BotFault) as fault:
        call()
    return fault.value


def test_a_good_bot_answers_each_call_in_order(bot):
    client = bot("none")
    assert client.hello(HELLO, 10).name == "stdio-fault-none"
    for number in range(1, 4):
        assert client.decide(a_decision(number), 10).decision_id == number
    assert client.ids.last_sent == 4 and not client.ids.pending


@pytest.mark.parametrize("mode, detail", [
    ("garbage", "the reply is not JSON"),
    ("wrong-id", "a reply to request_id '1002', which was never sent (the last sent: 2)"),
    ("wrong-case", "a decide request answered with the case end_game"),
    ("oversize", "a reply line over the limit of 4194304 bytes"),
])
def test_a_bad_reply_line_is_illegal_and_the_next_call_is_read_whole(bot, mode, detail):
    client = bot(mode)
    client.hello(HELLO, 10)
    fault = fault_of(lambda: client.decide(a_decision(), 10))
    assert fault.fault_class == "illegal" and detail in fault.detail
    assert client.hello(HELLO, 10).name == f"stdio-fault-{mode}"


def skipped_in_log(tmp_path) -> list[str]:
    return [line for line in (tmp_path / "bot.log").read_text().splitlines()
            if line.startswith("=== referee: ") and "skipped a reply" in line]


def test_a_second_reply_to_one_request_is_skipped_and_noted(bot, tmp_path):
    client = bot("two-lines")
    client.decide(a_decision(), 10)
    assert client.hello(HELLO, 10).name == "stdio-fault-two-lines"
    assert len(skipped_in_log(tmp_path)) == 1 and "request_id 1:" in skipped_in_log(tmp_path)[0]


def test_a_stray_stdout_line_costs_only_the_call_it_garbled(bot, tmp_path):
    client = bot("stray-line")
    fault = fault_of(lambda: client.decide(a_decision(1), 10))
    assert fault.fault_class == "illegal" and "thinking..." in fault.detail
    # That decision's own reply comes next: skipped, noted, and every later call answered.
    for number in range(2, 5):
        assert client.decide(a_decision(number), 10).decision_id == number
    assert [line.split(": ", 2)[2] for line in skipped_in_log(tmp_path)] == [
        skipped(1)]


def test_a_late_reply_is_skipped_after_its_timeout(bot, tmp_path):
    client = bot("slow", "--sleep-ms", "500")
    fault = fault_of(lambda: client.decide(a_decision(), 0.05))
    assert fault.fault_class == "timeout" and not client.ids.pending
    # The late decision comes first, then Hello's reply: the health check passes.
    assert client.hello(HELLO, 10).name == "stdio-fault-slow"
    assert len(skipped_in_log(tmp_path)) == 1


def test_a_hung_bot_times_out_and_fails_its_health_check(bot):
    client = bot("hang")
    assert fault_of(lambda: client.decide(a_decision(), 0.2)).fault_class == "timeout"
    assert fault_of(lambda: client.hello(HELLO, 0.2)).fault_class == "timeout"


def test_the_health_check_asks_the_process_of_the_seat_that_timed_out(tmp_path):
    """Two games on one thread, each on a process of its own: the first game's process
    hangs in a call no health check follows (an EndGame's, say); the second game's seat
    then times out, and the check asks the second game's process, which answers, never
    the first's, which would not and would be stopped."""
    spec = BotSpec(name="bad", command=f"{sys.executable} {FAULT_BOTS} hang",
                   transport="stdio")
    bot = participants.Participant(spec, tmp_path, LimitsConfig(), startup_ms=30_000,
                                   sandbox=False, processes=2)
    bot.start(None)
    try:
        pool = bot.client
        for game in ("a", "b"):
            pool.start_game(bot_pb2.StartGameRequest(game_id=game, seat=0), 30)
        hung = a_decision()
        hung.game_id = "a"
        assert fault_of(lambda: pool.decide(hung, 0.05)).fault_class == "timeout"
        assert bot.probe(30, ("b", 0))
        assert all(lane.process.alive() for lane in bot.lanes)
    finally:
        bot.stop()


def test_a_reply_line_over_the_limit_is_illegal_however_it_arrives(bot):
    """A Hello reply of some 200 bytes, over a limit of 150, in one read with its newline."""
    client = bot("none", message_bytes=150)
    fault = fault_of(lambda: client.hello(HELLO, 10))
    assert fault.fault_class == "illegal" and "over the limit of 150 bytes" in fault.detail


def test_a_request_over_the_limit_is_the_organisers_error_not_the_bots_fault(bot):
    client = bot("none", message_bytes=150)
    with pytest.raises(RequestTooLarge, match="over limits.message_bytes"):
        client.decide(a_decision(), 10)


def test_a_closed_stdout_is_waited_for_within_the_call_s_time_only(bot):
    client = bot("close-stdout", settle_s=60)
    for number in range(1, 3):
        client.decide(a_decision(number), 10)
    waits: list[float] = []   # the process lives on: each wait would last all it is given

    def wait(timeout: float) -> int:
        waits.append(timeout)
        raise subprocess.TimeoutExpired("bot", timeout)

    client.run.wait = wait
    assert fault_of(lambda: client.decide(a_decision(3), 10)).fault_class == "crash"
    assert waits and max(waits) <= 10


class HeldLock:
    """A lock that knows which thread holds it."""

    def __init__(self) -> None:
        self.inner = threading.Lock()
        self.holder: int | None = None

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if not self.inner.acquire(blocking, timeout):
            return False
        self.holder = threading.get_ident()
        return True

    def release(self) -> None:
        self.holder = None
        self.inner.release()


def test_only_the_thread_holding_the_call_lock_closes_the_pipes(bot):
    """A close during a call leaves the pipes to that call, which closes them before it
    lets the next call in: never after, under another call's write."""
    client = bot("hang", settle_s=0.1)
    client.lock = HeldLock()
    closed_by_holder: list[bool] = []
    close_pipes = client._close_pipes

    def watched() -> None:
        closed_by_holder.append(client.lock.holder == threading.get_ident())
        close_pipes()

    client._close_pipes = watched
    call = threading.Thread(target=fault_of, args=(lambda: client.decide(a_decision(), 60),))
    call.start()
    deadline = time.monotonic() + 30
    while client.lock.holder is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    client.close()
    assert closed_by_holder == []   # the call in flight still reads
    client.process.stop()           # which ends it
    call.join(30)
    assert closed_by_holder == [True]


def test_a_crash_names_how_the_process_ended(bot):
    client = bot("crash")
    for number in range(1, 3):
        client.decide(a_decision(number), 10)
    fault = fault_of(lambda: client.decide(a_decision(3), 10))
    assert fault.fault_class == "crash"
    assert fault.detail == "its process ended: exited with status 3 (its stdout closed)"
    assert "exited with status 3" in fault_of(lambda: client.hello(HELLO, 10)).detail


def test_a_closed_stdout_is_a_crash_and_the_process_is_stopped(bot):
    client = bot("close-stdout", settle_s=0.1)
    for number in range(1, 3):
        client.decide(a_decision(number), 10)
    fault = fault_of(lambda: client.decide(a_decision(3), 10))
    assert fault.fault_class == "crash"
    assert fault.detail == "its stdout closed while the process ran on: it was stopped"
    assert not client.process.alive()


def test_stderr_goes_to_the_log_and_stdout_does_not(bot, tmp_path):
    client = bot("chatter")
    client.decide(a_decision(5), 10)
    client.close()
    client.process.stop()
    # The log's pump copies whole lines on its own thread: wait for it, at any speed.
    deadline = time.monotonic() + 30
    while "thinking about decision 5" not in (log := (tmp_path / "bot.log").read_text()):
        assert time.monotonic() < deadline, log
        time.sleep(0.05)
    assert "request_id" not in log
    assert "(stdio, " in log


# -- tournaments -------------------------------------------------------------------------
#: The good bots' entries (after ``name:``), by how they run.
GOOD_BOTS = {"in process": "python: bots.random_bot:RandomBot",
             "stdio": f"command: python {RANDOM_BOT}\n    transport: stdio"}


def config_text(mode: str, players: int = 3, extra: str = "", bad_args: str = "",
                concurrency: int = 1, bank_ms: int = BANK_MS, good: str = "in process") -> str:
    """The stdio fault bot on a tight move time of its own (a bank no busy machine spends,
    unless the test is about the bank); good bots on a clock no busy machine spends, so
    every fault is the bad bot's at any speed. The good bots are in process unless ``good``
    is ``"stdio"`` (a test of their processes): the bad bot's wire is the subject."""
    return f"""
name: faults
game: flea-circus
players: {players}
seed: 3
concurrency: {concurrency}
time: {{move_ms: 5000, bank_ms: 30000, call_ms: 5000}}
{extra}
bots:
  - name: bad
    command: {sys.executable} {FAULT_BOTS} {mode} {bad_args}
    transport: stdio
    time: {{move_ms: 100, bank_ms: {bank_ms}, grace_ms: 100, call_ms: 2000}}
  - name: good-1
    {GOOD_BOTS[good]}
  - name: good-2
    {GOOD_BOTS[good]}
"""


def run(tmp_path, text: str, **options):
    summary, store, out = run_tournament(write_config(tmp_path, text), tmp_path, **options)
    return summary, store, store.games("faults"), list(store.faults("faults"))


def test_stdio_bots_play_a_sandboxed_tournament_a_process_per_game_at_once(tmp_path, started):
    summary, store, games, faults = run(tmp_path, config_text("none", players=2,
                                                              concurrency=2, good="stdio"))
    assert summary.played == len(games) == 6 and faults == []
    assert all(game.status == "finished" for game in games)
    # Two rotations, and for each a fresh process per game at once for each of three bots.
    assert len(started) == 2 * 2 * 3
    log = (tmp_path / "logs" / "faults" / "good-1.log").read_text()
    # One log for the bot's processes, its runs numbered on across them.
    assert " of good-1#1: " in log and " of good-1#2: " in log
    assert f"=== run {2 * 2} of good-1#" in log
    assert_no_process_left(started)


@pytest.mark.parametrize("mode, detail", [
    ("garbage", "the reply is not JSON"),
    ("wrong-id", "which was never sent"),
    ("wrong-case", "answered with the case end_game"),
    ("out-of-range", "out of range"),
    ("oversize", "a reply line over the limit"),
])
def test_bad_lines_strike_out_and_forfeit(tmp_path, started, mode, detail):
    """One process of the bad bot for the three games, one after another: its lines are
    the subject, not fresh processes."""
    summary, store, games, faults = run(tmp_path, config_text(mode, extra="renew_bots: false"))
    assert summary.played == len(games) == 3
    assert {f["class"] for f in faults} == {"illegal"} and {f["bot"] for f in faults} == {"bad"}
    assert detail in faults[0]["detail"]
    per_game = [[f["policy"] for f in faults if f["game_index"] == g.game_index] for g in games]
    assert per_game == [["substitute", "substitute", "forfeit"]] * 3
    assert all(game.status == "forfeit" for game in games)
    assert_no_process_left(started)


def test_a_hung_stdio_bot_fails_its_health_check_and_is_replaced(tmp_path, started):
    summary, store, games, faults = run(tmp_path, config_text("hang", bank_ms=300,
                                                              extra="renew_bots: false"))
    assert [f["class"] for f in faults] == ["timeout"] * 3
    assert all("no answer to a health check either: the bot was stopped" in f["detail"]
               for f in faults)
    assert all(game.status == "finished" for game in games)
    log = (tmp_path / "logs" / "faults" / "bad.log").read_text()
    assert "=== run 3 of bad" in log
    assert_no_process_left(started)


def test_a_stray_stdout_line_costs_one_decision_in_a_whole_tournament(tmp_path, started):
    """One process of the bot plays all its games: the line at its first decision costs
    that decision, and nothing after it."""
    summary, store, games, faults = run(tmp_path, config_text(
        "stray-line", players=2, good="stdio", extra="renew_bots: false"))
    assert [(f["bot"], f["class"], f["policy"]) for f in faults] == [
        ("bad", "illegal", "substitute")], [f["detail"] for f in faults]
    assert "thinking..." in faults[0]["detail"]
    assert all(game.status == "finished" for game in games)
    assert_no_process_left(started)


@pytest.mark.parametrize("mode, detail", [
    ("crash", "its process ended: exited with status 3 (its stdout closed)"),
    ("close-stdout", "its stdout closed while the process ran on: it was stopped"),
])
def test_a_crashed_stdio_bot_forfeits_and_is_restarted(tmp_path, started, monkeypatch, mode,
                                                       detail):
    if mode == "close-stdout":
        # The bot sleeps an hour once its stdout is closed: any moment the referee gives it
        # to end runs out, and the default 5 s a game (15 s of this test) checks no more.
        monkeypatch.setattr(participants, "CRASH_SETTLE_S", 0.2)
    summary, store, games, faults = run(tmp_path, config_text(mode, extra="renew_bots: false"))
    assert [(f["class"], f["detail"], f["policy"]) for f in faults] == [
        ("crash", detail, "forfeit")] * 3
    assert [g.status for g in games] == ["forfeit"] * 3
    assert len(started) == 1 + 2   # the bad bot, and twice more (the good ones are in process)
    assert_no_process_left(started)


@pytest.mark.parametrize("mode, call, policy", [("crash-start", "StartGame", "forfeit"),
                                                ("crash-end", "EndGame", "ignored")])
def test_a_stdio_bot_crashing_outside_a_decision_is_restarted_for_later_games(
        tmp_path, started, mode, call, policy):
    """The crashes of tests/test_crashes.py that a decision's do not cover, two games at
    once: a process that dies in StartGame (its 2nd) costs that game; one that dies in
    EndGame (its 1st) costs nothing; either way a fresh process plays its next game."""
    # Two rounds: a crash before the last of bad's eight games is certain, and with it the
    # restart of a process for the games that follow.
    summary, store, games, faults = run(tmp_path, config_text(
        mode, players=2, concurrency=2, extra="renew_bots: false\nrounds: 2\nmax_restarts: 10"))
    assert summary.played == len(games) == 12
    assert faults and {(f["bot"], f["class"], f["policy"]) for f in faults} == {
        ("bad", "crash", policy)}, [(f["game_index"], f["policy"], f["detail"]) for f in faults]
    assert all(f["detail"] == f"{call}: its process ended: exited with status 3 (its stdout "
               "closed)" for f in faults), [f["detail"] for f in faults]
    crashed = {f["game_index"] for f in faults}
    if mode == "crash-end":   # every process's first game ends in its crash
        assert crashed == {game.game_index for game in games if "bad" in game.seats}
    assert [game.status for game in games] == [
        "forfeit" if game.game_index in crashed and policy == "forfeit" else "finished"
        for game in games]
    assert "=== run 3 of bad" in (tmp_path / "logs" / "faults" / "bad.log").read_text()
    assert_no_process_left(started)


def test_a_slow_stdio_bot_spends_its_bank_unpenalised_and_times_name_stdio(tmp_path, started):
    """tests/test_faults.py's bank, on stdio: the referee's clock from write to reply."""
    summary, store, games, faults = run(tmp_path, config_text(
        "slow", bad_args="--sleep-ms 130", bank_ms=20000))
    assert faults == [] and all(game.status == "finished" for game in games)
    slow = [ms for game in games for seat, _, ms in game.times if game.seats[seat] == "bad"]
    assert slow and min(slow) > 100
    report = CliRunner().invoke(main, ["times", "--db", str(tmp_path / "results.sqlite")])
    assert report.output.splitlines()[2].split()[:2] == ["bad", "stdio"], report.output
    assert_no_process_left(started)


def test_a_stdio_bot_whose_bank_runs_out_times_out(tmp_path, started):
    summary, store, games, faults = run(tmp_path, config_text(
        "slow", bad_args="--sleep-ms 400", bank_ms=1500))
    assert faults and {f["class"] for f in faults} == {"timeout"}
    # As over gRPC, either timeout: a reply within the grace but past the bank, or none by
    # the deadline (which of the two, the machine's speed decides).
    detail = faults[0]["detail"]
    assert "time bank exhausted" in detail or "no reply within" in detail, detail
    # As over gRPC: the 1.5 s bank pays for at least two 300 ms overruns first.
    first = min(f["decision_id"] for f in faults if f["game_index"] == 0)
    own = [d for seat, d, _ in games[0].times if games[0].seats[seat] == "bad"]
    assert own.index(first) >= 2
    assert_no_process_left(started)


def test_a_stdio_bot_of_another_protocol_stops_the_tournament_before_it_starts(tmp_path,
                                                                               started):
    with pytest.raises(TournamentError, match="did not start") as error:
        run(tmp_path, config_text("wrong-version"))
    assert "speaks protocol 2.0.0, the referee speaks 1.1.0" in str(error.value)
    assert "bot 'bad'" in str(error.value)
    assert_no_process_left(started)


def test_a_cluster_worker_restarts_a_crashed_stdio_bot_too(tmp_path, started):
    """The worker's own path (``play_game``, run in process as a Dask worker runs it)."""
    config = load_config(write_config(tmp_path, config_text("crash",
                                                            extra="renew_bots: false")))
    spec = RunSpec(run=f"stdio-{uuid.uuid4().hex}", config=config)
    try:
        results = [play_game(GameTask(spec, pairing, epoch_of(config, pairing)))
                   for pairing in schedule(config)]
    finally:
        logs = finish_run(spec.run)
    assert [[f.fault_class for f in r.faults] for r in results] == [["crash"]] * 3
    assert b"=== run 2 of bad" in logs["bad.log"]
    assert_no_process_left(started)


def test_a_stdio_command_takes_no_address(tmp_path):
    text = config_text("none").replace(f"{FAULT_BOTS} none", f"{FAULT_BOTS} none {{address}}")
    with pytest.raises(ConfigError, match="takes no {address}"):
        load_config(write_config(tmp_path, text))
    with pytest.raises(ConfigError, match="transport must be one of grpc, stdio"):
        load_config(write_config(tmp_path, config_text("none").replace(
            "transport: stdio", "transport: pipes", 1)))


def test_the_python_stdio_bot_passes_check_bot_sandboxed():
    """Each seat once (check-bot's full rotation has its own test, tests/test_check_bot.py)."""
    spec = BotSpec(name="candidate", command=f"python {RANDOM_BOT}", transport="stdio",
                   cwd=str(ROOT))
    checks = list(check_bot(spec, None, 1, TimeConfig(), at_once=2, rotation="once"))
    assert all(check.passed for check in checks), [check.line() for check in checks]
    assert [check.name for check in checks][:2] == ["handshake", "games"]
    assert "stdio-random 1.0, protocol 1.1.0" in checks[0].message
    source = RANDOM_BOT.read_text().splitlines()
    assert len(source) <= 60
    assert {line.split()[1] for line in source if line.startswith(("import ", "from "))} \
        == {"json", "random", "sys"}


def test_check_bot_checks_a_stdio_bot_and_logs_its_wire_as_for_grpc(tmp_path):
    result = CliRunner().invoke(main, [
        "check-bot", "--command", f"python {RANDOM_BOT}", "--transport", "stdio",
        "--game", "flea-circus", "--rotation", "once", "--at-once", "2", "--debug-wire",
        "--log-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "2 games at once on 2 processes, every reply legal and in time" in result.output
    lines = wire_lines(tmp_path / "candidate.log")
    assert_every_call_answered(lines)
    assert all(isinstance(m["decision_id"], str) for _, d, c, m in lines if c == "Decide")


@pytest.mark.parametrize("where", [["--address", "127.0.0.1:1"],
                                   ["--command", "python bot.py --address {address}"]])
def test_check_bot_starts_a_stdio_bot_itself_with_no_address(where):
    result = CliRunner().invoke(main, ["check-bot", *where, "--transport", "stdio"])
    assert result.exit_code == 2 and "--transport stdio: the bot talks on its stdin" \
        in result.output


def test_the_demo_on_stdio_plays_with_an_sdk_bot_and_times_show_the_transport(tmp_path):
    """One round, and one process of each bot a game at once for it (the bots' start-ups,
    the SDK bot's above all, cost CPU; fresh ones each rotation are other tests' subject)."""
    config = dataclasses.replace(load_config(ROOT / "tournaments" / "demo-stdio.yaml"),
                                 rounds=1, concurrency=2, renew_bots=False)
    summary, store, out = run_tournament(config, tmp_path)
    games = store.games("demo-stdio")
    assert summary.played == len(games) == 12 and not list(store.faults("demo-stdio"))
    result = CliRunner().invoke(main, ["times", "--db", str(tmp_path / "results.sqlite"),
                                       "--format", "json"])
    assert {row["bot"]: row["transport"] for row in json.loads(result.output)} == dict.fromkeys(
        ("greedy", "random", "random-b", "random-c"), "stdio")
    assert store.identities("demo-stdio")["greedy"][0] == "flea-greedy"


def test_a_stdio_tournament_interrupted_midway_resumes_to_the_same_fold(tmp_path, started):
    path = write_config(tmp_path, config_text("none", players=2, concurrency=2))
    config = load_config(path)
    interrupted_run(config, tmp_path, 3)
    summary, store, out = run_tournament(config, tmp_path)
    assert summary.played == 3 and len(store.games("faults")) == 6
    assert not list(store.faults("faults"))
    assert_consistent(store, "faults", config)
    assert_no_process_left(started)


def test_a_crash_is_told_of_its_own_run_when_the_bot_was_started_again_meanwhile(bot):
    """Two games at once: the first to see the process end has the participant start it
    again, while the other's call still settles the crash of the run it talked to."""
    client = bot("crash")
    first_run = client.process.process
    for number in range(1, 3):
        client.decide(a_decision(number), 10)
    with pytest.raises(BotFault):
        client.decide(a_decision(3), 10)
    assert first_run.poll() == 3
    client.process.start()   # the restart, with a new run of the same process
    try:
        assert client.process.alive()
        # The client still settles the crash of the run it talked to.
        fault = client._crash("its stdout closed", time.monotonic() + 2)
        assert fault.detail == "its process ended: exited with status 3 (its stdout closed)"
        assert client.process.alive()   # the new run plays on
    finally:
        client.process.stop()
