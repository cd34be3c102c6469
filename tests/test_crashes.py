"""Crashing and hung bots never stop a tournament.

Each test runs a gRPC tournament with one bot from tests/fault_bots.py that
crashes (in a decision, in StartGame, in EndGame, again and again) or
freezes, at several concurrencies, and checks that every game is played and
stored, that only that bot has faults, and that nothing it started survives.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from conftest import assert_no_process_left, run_tournament, still_running, write_config

from circus.v1 import bot_pb2
from referee.clients import BotFault, GrpcClient

FAULT_BOTS = Path(__file__).resolve().parent / "fault_bots.py"


def config_text(mode: str, concurrency: int, extra: str = "", move_ms: int = 5000,
                bank_ms: int = 30000) -> str:
    """The bad bot on the clock given, by default the good bots' one, which no busy machine
    spends: a crashing bot plays its first decisions in time at any speed, and only a
    freeze, the subject of its test, is given a short clock."""
    return f"""
name: crashes
game: flea-circus
players: 2
rounds: 2
seed: 5
concurrency: {concurrency}
time: {{move_ms: 5000, bank_ms: 30000, grace_ms: 200, call_ms: 2000, startup_ms: 15000}}
# One process of the bad bot unless it crashes: the restarts counted here are the crash's.
# The good bots are in process: the bad bot's process is the subject.
renew_bots: false
# Unsandboxed, so the helper pids the bad bot logs are the host's (a sandbox would
# kill its helpers with its PID namespace anyway).
sandbox: false
{extra}
bots:
  - name: bad
    command: {sys.executable} {FAULT_BOTS} {mode} --port {{port}}
    time: {{move_ms: {move_ms}, bank_ms: {bank_ms}}}
  - name: good-1
    python: bots.random_bot:RandomBot
  - name: good-2
    python: bots.random_bot:RandomBot
"""


def helper_pids(log: Path) -> list[int]:
    return [int(pid) for pid in re.findall(r"helper pid (\d+)", log.read_text())]


def running(pid: int) -> bool:
    """Whether the process exists and is not a zombie (init reaps those in its own time)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def assert_gone(pids: list[int]) -> None:
    assert pids and still_running(lambda: [pid for pid in pids if running(pid)]) == []


@pytest.mark.parametrize("mode, concurrency, extra", [
    ("crash-decide", 1, ""),
    ("crash-decide", 16, ""),
    ("crash-start", 4, ""),
    ("crash-end", 16, ""),
    ("crash-decide", 4, "max_restarts: 1"),
    ("crash-abort", 4, ""),
])
def test_a_crashing_bot_never_stops_the_tournament(tmp_path, started, mode, concurrency, extra):
    path = write_config(tmp_path, config_text(mode, concurrency, extra))
    summary, store, _ = run_tournament(path, tmp_path)
    games = store.games("crashes")
    assert summary.played == len(games) == 12
    faults = list(store.faults("crashes"))
    assert faults and {f["bot"] for f in faults} == {"bad"}
    assert {f["class"] for f in faults} == {"crash"}
    # Each fault in a game says what became of the process, before the channel's error
    # (a call still in flight on a restarted bot's closed channel included).
    ended = "killed by SIGABRT" if mode == "crash-abort" else "exited with status 3"
    assert all(f["detail"].startswith(f"its process ended: {ended} (") for f in faults
               if f["policy"] != "ignored"), [f["detail"] for f in faults]
    # A crash costs the bot its game (or, in EndGame, nothing); the others' games stand.
    assert all(game.status in ("finished", "forfeit") for game in games)
    assert all(game.status == "finished" for game in games if "bad" not in game.seats)
    log = tmp_path / "logs" / "crashes" / "bad.log"
    runs = log.read_text().count("=== run ")
    assert runs <= 1 + (1 if extra else 3)
    if concurrency < 8:  # games start after the crash: the bot is restarted for them
        assert runs >= 2
    # Nothing a crashed run started outlived it, restarted or not.
    assert_gone(helper_pids(log))
    assert_no_process_left(started)


def test_any_exception_from_a_client_is_a_fault_of_the_bot():
    client = GrpcClient("127.0.0.1:1")
    client.close()
    with pytest.raises(BotFault) as fault:
        client.hello(bot_pb2.HelloRequest(), timeout=1)
    assert fault.value.fault_class == "crash" and "closed channel" in fault.value.detail


def test_a_hung_bot_is_probed_restarted_and_then_suspended(tmp_path, started):
    text = config_text("freeze", 1, "suspend_after: 2", move_ms=100, bank_ms=200)
    summary, store, out = run_tournament(write_config(tmp_path, text), tmp_path, quiet=False)
    games = store.games("crashes")
    assert summary.played == len(games) == 12
    faults = list(store.faults("crashes"))
    hung = [f for f in faults if f["class"] == "timeout"]
    # Each of the two games it hung in cost one timeout and a failed health check, no more.
    assert len(hung) == 2 and all("no answer to a health check" in f["detail"] for f in hung)
    assert "=== run 2" in (tmp_path / "logs" / "crashes" / "bad.log").read_text()
    # Then it sits out: its six other games are played by substitutes and marked.
    sat_out = [f for f in faults if f["class"] == "suspended"]
    assert {f["bot"] for f in sat_out} == {"bad"} and len(sat_out) == 6
    assert summary.suspended == {"bad": len(sat_out)}
    assert "suspended: bot 'bad' after 2 faulted games in a row" in out
    assert_no_process_left(started)


def test_free_port_never_hands_out_a_port_twice_in_a_row(monkeypatch):
    """Two bots started together once got the same port (the kernel reuses a released one)."""
    from referee import process

    given = iter([40001, 40001, 40001, 40002])

    class Probe:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def bind(self, address):
            self.port = next(given)

        def getsockname(self):
            return ("127.0.0.1", self.port)

    monkeypatch.setattr(process.socket, "socket", Probe)
    monkeypatch.setattr(process, "_RECENT_PORTS", process.collections.deque(maxlen=4))
    assert [process.free_port(), process.free_port()] == [40001, 40002]
