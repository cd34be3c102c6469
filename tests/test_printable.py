"""A bot's words reach the organiser inert: no terminal control gets through.

A bot of tests/sneaky_bots.py puts a window-title sequence, a screen clear and a
carriage return (which overwrites the line with a fake PASS) in its Hello name and
version, in its error details and in its log; check-bot, ``faults``, ``played``,
``export`` and the start error of a tournament must show them escaped.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import write_config

from circus_referee.main import main
from referee.text import printable

SNEAKY = Path(__file__).resolve().parent / "sneaky_bots.py"
RAW = ("\x1b", "\x07", "\r")


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def assert_inert(text: str) -> None:
    assert not [char for char in RAW if char in text], repr(text[:400])


def test_printable_escapes_every_control_and_keeps_the_rest():
    assert printable("a\x1b]0;t\x07b\x1b[2J\rc\nd\x9b\u202e") == \
        "a\\x1b]0;t\\x07b\\x1b[2J\\x0dc\\x0ad\\x9b\\u202e"
    assert printable("plain ünïcode, tabs\tno") == "plain ünïcode, tabs\\x09no"
    assert printable("flea-circus/standard: 2-5 players") == "flea-circus/standard: 2-5 players"


@pytest.mark.parametrize("sandboxed", [True, False])
def test_check_bot_shows_a_bots_hello_and_errors_escaped(sandboxed):
    address = "{address}" if sandboxed else "{port}"
    flag = "--address" if sandboxed else "--port"
    result = run("check-bot", "--command", f"{sys.executable} {SNEAKY} escapes {flag} {address}",
                 "--game", "flea-circus", "--games", "1", "--at-once", "1",
                 "--startup-ms", "30000", *([] if sandboxed else ["--no-sandbox"]))
    assert result.exit_code == 1, result.output
    assert_inert(result.output)
    assert "PASS  handshake: sneaky\\x1b]0;pwned\\x07 1.0\\x1b[2J\\x0dPASS  everything" \
        in result.output, result.output
    assert "FAIL  play flea-circus/standard:" in result.output
    assert "details\\x1b]0;pwned\\x07\\x1b[2J\\x0dPASS" in result.output, result.output


def sneaky_tournament(tmp_path: Path, mode: str) -> Path:
    return write_config(tmp_path, f"""
        name: sneaky
        game: flea-circus
        players: 2
        seed: 3
        concurrency: 1
        time: {{move_ms: 2000, startup_ms: 30000}}
        suspend_after: 0
        bots:
          - name: sneaky
            command: {sys.executable} {SNEAKY} {mode} --address {{address}}
          - name: random
            python: bots.random_bot:RandomBot
        """)


def test_faults_played_and_export_show_error_details_escaped(tmp_path):
    config = sneaky_tournament(tmp_path, "escapes")
    db = str(tmp_path / "results.sqlite")
    played = run("tournament", str(config), "--db", db, "--logs", str(tmp_path / "logs"),
                 "--quiet")
    assert played.exit_code == 0, played.output + played.stderr
    assert_inert(played.output + played.stderr)
    for fmt in ("table", "csv", "json"):
        faults = run("faults", "--db", db, "--format", fmt)
        assert faults.exit_code == 0 and "details" in faults.output, faults.output
        assert_inert(faults.output)
        assert "pwned" in faults.output   # shown, escaped, not dropped
        listed = run("played", "--db", db, "--format", fmt)
        assert listed.exit_code == 0 and "sneaky" in listed.output
        assert_inert(listed.output)
    exported = tmp_path / "games.csv"
    assert run("export", "--db", db, "--format", "csv", "-o", str(exported)).exit_code == 0
    assert "details" in exported.read_text() and "\x1b" not in exported.read_text()
    leaderboard = json.loads(run("leaderboard", "--db", db, "--format", "json").output)
    assert leaderboard["identities"]["sneaky"].startswith("sneaky\\x1b]0;pwned\\x07 1.0")


def test_a_start_error_quotes_the_bots_log_escaped(tmp_path):
    config = sneaky_tournament(tmp_path, "loud-death")
    result = run("tournament", str(config), "--db", str(tmp_path / "results.sqlite"),
                 "--logs", str(tmp_path / "logs"), "--quiet")
    assert result.exit_code == 2
    assert "about to fail\\x1b]0;pwned" in result.stderr, result.stderr
    assert_inert(result.stderr)
    assert result.stderr.count("\n") == 1   # one line
