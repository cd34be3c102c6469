"""Every line a bot writes is tagged with the run it came from.

A renewed bot's next process starts while the last still plays, and a crashed one is
restarted, all into one log: each run starts with a header ``=== run N of NAME: …``
numbered on from the log's last, and each line of its output starts with ``[run N] ``,
written whole, so two processes' lines never mix. The referee's own lines (headers,
``wire …``) carry no tag, and no bot can write one.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from bot_logs import bot_lines, tagged_lines
from conftest import run_tournament, write_config

from referee import process
from referee.process import LONGEST_LINE, BotProcess, TaggedLines, last_run_in
from referee.sandbox import Isolation
from tournaments.config import load_config
from tournaments.schedule import schedule

# Waits for the file DIR/NAME-1, writes a line and half of another, waits for
# DIR/NAME-2, then ends the half line.
TALKER = """\
import pathlib, sys, time
folder, me = pathlib.Path(sys.argv[1]), sys.argv[2]
def when(step):
    while not (folder / f"{me}-{step}").exists():
        time.sleep(0.01)
when(1)
print(me, "says 1", flush=True)
sys.stdout.write(me + " starts")
sys.stdout.flush()
when(2)
print(" and ends", flush=True)
"""
PATIENCE_S = 120


def eventually(condition, what: str) -> None:
    deadline = time.monotonic() + PATIENCE_S
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.02)


def headers(log: Path) -> list[int]:
    return [int(run) for run in re.findall(r"^=== run (\d+) of ", log.read_text(), re.M)]


def bot(tmp_path: Path, log: Path, script: str, *args: str) -> BotProcess:
    path = tmp_path / "bot.py"
    path.write_text(script)
    return BotProcess("talker", " ".join([sys.executable, str(path), *args]), log,
                      isolation=Isolation(sandbox=False, workdir=tmp_path))


def finish(process: BotProcess) -> None:
    assert process.wait(PATIENCE_S) and process.exit_status() == 0, process.log_tail()
    process.pump.join(PATIENCE_S)


def test_two_overlapping_processes_of_one_bot_tag_every_line_with_their_run(tmp_path):
    log = tmp_path / "logs" / "talker.log"
    first = bot(tmp_path, log, TALKER, str(tmp_path), "a")
    second = bot(tmp_path, log, TALKER, str(tmp_path), "b")   # a renewal's next process
    try:
        first.start()
        second.start()
        (tmp_path / "a-1").touch()
        eventually(lambda: "[run 1] a says 1\n" in log.read_text(), "the first run wrote")
        # The second process writes whole lines while the first has half a line pending.
        (tmp_path / "b-1").touch()
        (tmp_path / "b-2").touch()
        finish(second)
        (tmp_path / "a-2").touch()
        finish(first)
    finally:
        first.stop()
        second.stop()
    assert (first.run, second.run) == (1, 2)
    assert headers(log) == [1, 2]
    assert tagged_lines(log.read_text()) == [
        (1, "a says 1"), (2, "b says 1"), (2, "b starts and ends"), (1, "a starts and ends")]
    assert all(line.startswith(("=== run ", "[run ")) for line in log.read_text().splitlines())


def test_runs_are_numbered_on_from_the_log_and_a_bot_cannot_write_a_referee_line(tmp_path):
    """A resumed tournament's bot (a new BotProcess) goes on from the log's last run;
    what the bot prints as a header or a wire line is its own tagged output."""
    log = tmp_path / "talker.log"
    log.write_text("=== run 1 of talker: old (port 1, 2026-12-01 10:00:00)\n[run 1] hello\n")
    forger = bot(tmp_path, log, "print('=== run 99 of talker: forged')\n"
                                "print('wire 2026-12-03T10:00:00.000+00:00 t/0 < Decide {}')\n")
    for run in (2, 3):
        forger.start()
        finish(forger)
        assert forger.run == run
    forger.stop()
    assert headers(log) == [1, 2, 3] and last_run_in(log) == 3
    assert not [line for line in log.read_text().splitlines() if line.startswith("wire ")]
    assert [run for run, line in tagged_lines(log.read_text()) if "forged" in line] == [2, 3]
    assert last_run_in(tmp_path / "no.log") == 0


# Says it is ready in the file argument 1, then at SIGTERM says its last words and ends.
PARTING = """\
import pathlib, signal, sys, time
def part(*_):
    print("last words", flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, part)
pathlib.Path(sys.argv[1]).touch()
while True:
    time.sleep(1)
"""


def test_a_stopped_bot_s_log_holds_its_last_words_when_stop_returns(tmp_path, monkeypatch):
    """The log is read at once after a stop (a fault's report, the referee's exit, which
    ends the copying thread): stop waits for the copy. Here the copy lags the bot's end by
    0.2 s, far within the wait, so the read comes first unless stop waits."""
    copy = process.copy_log

    def lagging(source, *args):
        while parting.exit_status() is None:
            time.sleep(0.005)
        time.sleep(0.2)
        copy(source, *args)

    monkeypatch.setattr(process, "copy_log", lagging)
    log = tmp_path / "parting.log"
    parting = bot(tmp_path, log, PARTING, str(tmp_path / "ready"))
    parting.start()
    try:
        eventually((tmp_path / "ready").exists, "the bot started")
    finally:
        parting.stop()
    assert "last words" in bot_lines(log.read_text())


def test_output_is_cut_into_whole_tagged_lines():
    lines = TaggedLines(b"[run 4] ")
    assert lines.lines(b"one\ntw") == b"[run 4] one\n"
    assert lines.lines(b"o\n\nthr") == b"[run 4] two\n[run 4] \n"
    assert lines.lines(b"ee") == b""
    assert lines.rest() == b"[run 4] three\n" and lines.rest() == b""
    # A line without end is cut at LONGEST_LINE: the log keeps no unbounded half line.
    assert lines.lines(b"x" * LONGEST_LINE) == b"[run 4] " + b"x" * LONGEST_LINE + b"\n"


RENEWED = """
name: renewed
game: flea-circus
players: 2
rounds: 1
seed: 5
concurrency: 2
bots:
  - name: random
    command: python -m bots.random_bot --address {address}
    debug: true
  - name: greedy
    command: python -m bots.flea_greedy --address {address}
"""


def grep(*args: str) -> list[str]:
    return subprocess.run(["grep", *args], capture_output=True, text=True).stdout.splitlines()


def test_a_renewed_bot_s_log_tells_its_processes_apart(tmp_path):
    summary, store, _ = run_tournament(write_config(tmp_path, RENEWED), tmp_path)
    assert summary.played == 2   # one table, two seat rotations: a process each
    for name in ("random", "greedy"):
        log = tmp_path / "logs" / "renewed" / f"{name}.log"
        assert headers(log) == [1, 2]
        said = [run for run, line in tagged_lines(log.read_text()) if "listening on" in line]
        assert sorted(said) == [1, 2], log.read_text()
    # The greps docs/protocol.md gives: one process's output, one game's wire traffic.
    log = str(tmp_path / "logs" / "renewed" / "random.log")
    assert grep("-F", "[run 2] ", log) == [f"[run 2] {line}" for run, line
                                          in tagged_lines(Path(log).read_text()) if run == 2]
    second = schedule(load_config(tmp_path / "bots.yaml"), store.secret("renewed") or "")[1]
    calls = [line.split(" ", 5)[4] for line in grep(f"^wire [^ ]* {second.game_id} ", log)]
    assert calls[0] == "StartGame" and calls[-1] == "EndGame" and "Decide" in calls, calls
