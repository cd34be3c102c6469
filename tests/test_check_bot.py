"""check-bot passes the example bots and fails each fault-injection bot, saying why."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import main

FAULT_BOTS = Path(__file__).resolve().parent / "fault_bots.py"
FAST = ["--move-ms", "100", "--bank-ms", "200", "--startup-ms", "3000"]


def check(*args: str):
    return CliRunner().invoke(main, ["check-bot", *args])


@pytest.mark.parametrize("command", [
    "python -m bots.random_bot --address {address}",
    "python -m bots.flea_greedy --address {address}",
    "python -m bots.flohcati_heuristic --address {address}",
    "python -m bots.animal_circus_heuristic --address {address}",
])
def test_example_bots_pass(command):
    result = check("--command", command, "--games", "2")
    assert result.exit_code == 0, result.output
    assert "FAIL" not in result.output and "PASS  timing:" in result.output


def test_a_bot_using_its_bank_passes():
    result = check("--command", f"{sys.executable} {FAULT_BOTS} slow --sleep-ms 120 --address {{address}}",
                   "--game", "flea-circus", "--games", "1", "--move-ms", "100",
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
    result = check("--command", f"{sys.executable} {FAULT_BOTS} {mode} --address {{address}}",
                   "--game", "flea-circus", "--games", "1", *FAST)
    assert result.exit_code == 1, result.output
    failures = [line for line in result.output.splitlines() if line.startswith("FAIL")]
    assert len(failures) == 1, result.output
    assert failures[0].startswith(f"FAIL  {failed_check}: ") and message in failures[0], \
        result.output


def test_exactly_one_of_command_and_address():
    result = check("--games", "1")
    assert result.exit_code == 2 and "exactly one of --command and --address" in result.output
