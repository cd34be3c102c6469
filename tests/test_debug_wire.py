"""The wire log: every request and reply of a bot, written by the referee to the bot's log."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from conftest import write_config

from circus_referee.main import main

CONFIG = """
name: wired
game: flea-circus
players: 2
rounds: 1
seed: 3
concurrency: 1
bots:
  - {name: greedy, python: "bots.flea_greedy:FleaGreedyBot", debug: true}
  - {name: random, python: "bots.random_bot:RandomBot"}
"""


def wire_lines(log: Path) -> list[tuple[str, str, str, dict]]:
    """(game id, direction, call, message) of each wire line of a log."""
    lines = []
    for line in log.read_text().splitlines():
        if line.startswith("wire "):
            _, _, game_id, direction, call, body = line.split(" ", 5)
            lines.append((game_id, direction, call, json.loads(body)))
    return lines


def assert_every_call_answered(lines: list[tuple[str, str, str, dict]]) -> None:
    requests = [(g, c) for g, d, c, _ in lines if d == ">"]
    replies = [(g, c) for g, d, c, _ in lines if d == "<"]
    assert sorted(requests) == sorted(replies) and len(requests) > 3
    assert {"Hello", "StartGame", "Decide", "EndGame"} <= {c for _, c in requests}
    for game_id, direction, call, message in lines:
        if direction == ">" and call != "Hello":
            assert message["game_id"] == game_id


def test_check_bot_debug_wire(tmp_path):
    result = CliRunner().invoke(main, [
        "check-bot", "--command", "python -m bots.random_bot --address {address}",
        "--game", "flea-circus", "--rotation", "once", "--at-once", "2", "--debug-wire",
        "--log-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = wire_lines(tmp_path / "candidate.log")
    assert_every_call_answered(lines)
    decisions = [m for _, d, c, m in lines if d == "<" and c == "Decide"]
    assert decisions and all(m["decision_id"] for m in decisions)


def test_tournament_debug_per_bot_and_for_all(tmp_path):
    path = write_config(tmp_path, CONFIG)
    runner = CliRunner()
    first = runner.invoke(main, ["tournament", str(path), "--db", str(tmp_path / "a.sqlite"),
                                 "--logs", str(tmp_path / "a")])
    assert first.exit_code == 0, first.output
    assert_every_call_answered(wire_lines(tmp_path / "a" / "wired" / "greedy.log"))
    assert not (tmp_path / "a" / "wired" / "random.log").exists()
    every = runner.invoke(main, ["tournament", str(path), "--db", str(tmp_path / "b.sqlite"),
                                 "--logs", str(tmp_path / "b"), "--debug-wire"])
    assert every.exit_code == 0, every.output
    assert_every_call_answered(wire_lines(tmp_path / "b" / "wired" / "random.log"))
