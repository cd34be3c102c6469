"""A bot's log flood costs the bot, not the referee.

Up to ``log_bytes`` the referee copies a bot's output into its log; past the cap it
reads no more: a ``cat`` in the bot's cgroups drains the pipe. The bot's writes keep
succeeding (it is never blocked nor killed for talking), its log stays bounded, and
the referee's copying thread has ended while the bot still floods.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from referee import sandbox
from referee.process import BotProcess
from referee.sandbox import Isolation

CAP = 64 * 1024
# Writes eight times the cap, says so in a file (argument 1, unless "-"), then waits
# (argument 2, in seconds).
FLOOD = ("import pathlib, sys, time\n"
         "for _ in range(8): sys.stdout.buffer.write(b'x' * 65536); sys.stdout.flush()\n"
         "if sys.argv[1] != '-': pathlib.Path(sys.argv[1]).touch()\n"
         "time.sleep(float(sys.argv[2]))\n")
# However loaded the machine, the bot gets this long to write half a megabyte.
PATIENCE_S = 120


def flooder(tmp_path: Path, sandboxed: bool, argv: str) -> BotProcess:
    script = tmp_path / "flood.py"
    script.write_text(FLOOD)
    address = " {address}" if sandboxed else ""
    return BotProcess("flooder", f"{sys.executable} {script} {argv}{address}",
                      tmp_path / "logs" / "flooder.log",
                      isolation=Isolation(sandbox=sandboxed, workdir=tmp_path, log_bytes=CAP))


def eventually(condition, what: str) -> None:
    deadline = time.monotonic() + PATIENCE_S
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.05)


def assert_bounded_log(log: Path, runs: int) -> None:
    text = log.read_bytes()
    assert len(text) <= CAP + 200 * runs, len(text)
    assert text.count(b"=== log truncated at 65536 bytes: further output of flooder is "
                      b"discarded ===") == runs, text[-300:]


def test_past_the_cap_the_referee_stops_reading_and_the_bot_goes_on(tmp_path):
    wrote_all = tmp_path / "wrote-all"
    bot = flooder(tmp_path, False, f"{wrote_all} 600")
    bot.start()
    try:
        eventually(wrote_all.exists, "the bot wrote eight times the cap")
        # The referee's thread ended while the bot, alive, still holds its output open.
        eventually(lambda: not bot.pump.is_alive(), "the referee stopped reading")
        assert bot.alive()
        assert len(bot.drains) == 1 and bot.drains[0].poll() is None
        assert_bounded_log(bot.log_path, runs=1)
    finally:
        bot.stop()
    assert bot.drains == []   # stopped with the bot


def test_a_second_run_into_a_full_log_is_drained_at_once(tmp_path):
    """The log keeps every run; a run that starts with the log full writes nothing to it,
    and its writes still succeed."""
    bot = flooder(tmp_path, False, "- 0")
    for _ in range(2):
        bot.start()
        assert bot.wait(PATIENCE_S) and bot.exit_status() == 0
        bot.pump.join(PATIENCE_S)
    assert bot.log_path.read_bytes().count(b"=== run ") == 2
    assert_bounded_log(bot.log_path, runs=2)
    bot.stop()


def test_output_under_the_cap_is_all_kept(tmp_path):
    """The control: a bot that writes less than the cap has every byte in its log."""
    script = tmp_path / "quiet.py"
    script.write_text("import sys\nsys.stdout.write('y' * 5000 + 'END')\n")
    bot = BotProcess("quiet", f"{sys.executable} {script}", tmp_path / "quiet.log",
                     isolation=Isolation(sandbox=False, log_bytes=CAP))
    bot.start()
    assert bot.wait(PATIENCE_S) and bot.exit_status() == 0
    bot.pump.join(PATIENCE_S)
    text = bot.log_path.read_text()   # its last line ended for it, so the next starts a line
    assert text.endswith("\n[run 1] " + "y" * 5000 + "END\n") and "truncated" not in text
    assert bot.drains == []
    bot.stop()


@pytest.mark.skipif(sandbox.unavailable_reason() is not None, reason="no sandbox here")
def test_a_sandboxed_flood_is_drained_too(tmp_path):
    bot = flooder(tmp_path, True, "- 0")
    bot.start()
    try:
        assert bot.wait(PATIENCE_S) and bot.exit_status() == 0, bot.log_tail()
        bot.pump.join(PATIENCE_S)
        assert len(bot.drains) == 1
        assert_bounded_log(bot.log_path, runs=1)
    finally:
        bot.stop()


def test_the_processes_of_a_stdio_bot_flooding_at_once_share_the_cap(tmp_path):
    """A stdio bot keeps a process per game at once, all writing one log: the cap is
    theirs together, not each one's (their stderr is the log; stdout is the protocol)."""
    script = tmp_path / "flood.py"
    script.write_text(FLOOD.replace("sys.stdout", "sys.stderr"))
    bots = [BotProcess("flooder", f"{sys.executable} {script} - 0", tmp_path / "flooder.log",
                       isolation=Isolation(sandbox=False, log_bytes=CAP), stdio=True)
            for _ in range(3)]
    try:
        for bot in bots:
            bot.start()
        for bot in bots:
            assert bot.wait(PATIENCE_S) and bot.exit_status() == 0
            bot.pump.join(PATIENCE_S)
        text = bots[0].log_path.read_bytes()
        assert text.count(b"=== run ") == 3
        assert len(text) <= CAP + 200 * 3, len(text)
        assert b"=== log truncated at 65536 bytes" in text
    finally:
        for bot in bots:
            bot.stop()
