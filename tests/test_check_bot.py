"""check-bot passes the example bots and fails each fault-injection bot, saying why."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from circus_referee.main import check_bot_command, main

FAULT_BOTS = Path(__file__).resolve().parent / "fault_bots.py"
# A start-up limit costs time only for a bot that never answers (given its own, short one
# below); the others get time enough for a busy machine.
FAST = ["--move-ms", "100", "--bank-ms", "200", "--startup-ms", "30000"]


def check(*args: str):
    return CliRunner().invoke(main, ["check-bot", *args])


@pytest.mark.parametrize("command", [
    "python -m bots.random_bot --address {address}",
    "python -m bots.flea_greedy --address {address}",
    "python -m bots.flohcati_heuristic --address {address}",
    "python -m bots.animal_circus_heuristic --address {address}",
])
def test_example_bots_pass(command):
    result = check("--command", command, "--games", "1")
    assert result.exit_code == 0, result.output
    assert "FAIL" not in result.output and "PASS  timing:" in result.output
    # Issue 35: the referee's protocol version is labelled, apart from the software's name.
    assert ", protocol 1.1.0 (circus-referee 0.1.0 speaks protocol 1.1.0)" in result.output
    assert "games at once on one connection" in result.output
    assert "covered: " in result.output and "every player count" in result.output


def test_every_player_count_is_played():
    """A bot that only copes with two players fails, named, at three."""
    result = check("--command", f"{sys.executable} {FAULT_BOTS} two-players --address {{address}}",
                   "--game", "flea-circus", "--games", "1", "--at-once", "1", *FAST)
    assert result.exit_code == 1, result.output
    assert "FAIL  play flea-circus/standard: fault-two-players faulted in game 1 of 3 players" \
        in result.output, result.output


def test_concurrent_games_are_played():
    """A bot that holds one game at a time passes games in turn but not games at once."""
    result = check("--command", f"{sys.executable} {FAULT_BOTS} one-game --address {{address}}",
                   "--game", "flea-circus", "--games", "1", *FAST)
    assert result.exit_code == 1, result.output
    assert "PASS  play flea-circus/standard" in result.output, result.output
    assert "FAIL  concurrent flea-circus: fault-one-game faulted in game" in result.output, \
        result.output


def test_no_temporary_folder_is_left(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = check("--command", "python -m bots.random_bot --address {address}",
                   "--game", "flea-circus", "--games", "1", "--at-once", "1")
    assert result.exit_code == 0, result.output
    assert not list(tmp_path.glob("check-bot-*"))


def test_the_log_is_kept_where_asked(tmp_path):
    result = check("--command", "python -m bots.random_bot --address {address}",
                   "--game", "flea-circus", "--games", "1", "--at-once", "1",
                   "--log-dir", str(tmp_path / "logs"))
    assert result.exit_code == 0, result.output
    assert "=== run 1 of candidate" in (tmp_path / "logs" / "candidate.log").read_text()


def test_every_option_has_help():
    assert all(param.help for param in check_bot_command.params
               if isinstance(param, click.Option)), check_bot_command.params


def test_a_bot_using_its_bank_passes():
    result = check("--command", f"{sys.executable} {FAULT_BOTS} slow --sleep-ms 120 --address {{address}}",
                   "--game", "flea-circus", "--games", "1", "--at-once", "1", "--move-ms", "100",
                   "--bank-ms", "10000")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("mode, failed_check, message", [
    ("hang", "play flea-circus/standard", "timeout: DEADLINE_EXCEEDED"),
    ("exit", "play flea-circus/standard", "crash: UNAVAILABLE"),
    ("out-of-range", "play flea-circus/standard", "illegal: action_index"),
    ("stale", "play flea-circus/standard", "illegal: stale decision_id"),
    ("raise", "play flea-circus/standard", "error: UNKNOWN"),
    ("oversize", "play flea-circus/standard", "illegal: RESOURCE_EXHAUSTED"),
    ("garbage", "play flea-circus/standard", "illegal: INTERNAL"),
    ("no-port", "handshake", "did not answer on unix:"),
    ("wrong-version", "handshake", "the major versions differ"),
    ("no-game", "games", "claims no game"),
])
def test_fault_bots_fail_with_the_right_message(mode, failed_check, message):
    silent = ["--startup-ms", "3000"] if mode == "no-port" else []
    result = check("--command", f"{sys.executable} {FAULT_BOTS} {mode} --address {{address}}",
                   "--game", "flea-circus", "--games", "1", *FAST, *silent)
    assert result.exit_code == 1, result.output
    failures = [line for line in result.output.splitlines() if line.startswith("FAIL")]
    assert len(failures) == 1, result.output
    assert failures[0].startswith(f"FAIL  {failed_check}: ") and message in failures[0], \
        result.output


def test_exactly_one_of_command_and_address():
    result = check("--games", "1")
    assert result.exit_code == 2 and "exactly one of --command and --address" in result.output


def test_a_running_bot_is_checked_on_a_unix_socket(tmp_path):
    """Issue 35: ``--address unix:/path`` works as well as HOST:PORT (the README says so)."""
    socket_path = tmp_path / "bot.sock"
    bot = subprocess.Popen([sys.executable, "-m", "bots.random_bot", "--address",
                            f"unix:{socket_path}"], stdin=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        result = check("--address", f"unix:{socket_path}", "--game", "flea-circus", "--games", "1",
                       "--at-once", "1", "--startup-ms", "30000")
    finally:
        bot.terminate()
        bot.wait(timeout=30)
    assert result.exit_code == 0, result.output
    assert "PASS  play flea-circus/standard" in result.output, result.output
