"""A per-bot time handicap: a bot entry's `time:` replaces the tournament's for its seats."""

from __future__ import annotations

import json
import time

import pytest
from conftest import run_tournament, write_config

from bots.random_bot import RandomBot
from tournaments.config import ConfigError, load_config


class Sleepy(RandomBot):
    """A random bot that takes 20 ms a decision: in time at 1 s a move, late at 5 ms."""

    def decide(self, request) -> int:
        time.sleep(0.02)
        return super().decide(request)


CONFIG = """
name: handicap
game: flea-circus
players: 2
rounds: 1
seed: 8
concurrency: 1
time: {{move_ms: 1000, bank_ms: 5000}}
bots:
  - name: handicapped
    python: "test_bot_time:Sleepy"
    debug: true
    time: {handicap}
  - {{name: even, python: "test_bot_time:Sleepy", debug: true}}
"""


def start_clocks(log) -> list[dict]:
    """The time control of each StartGame the bot was sent, from its wire log."""
    return [json.loads(line.split(" ", 5)[5])["time_control"]
            for line in log.read_text().splitlines()
            if line.startswith("wire ") and " > StartGame " in line]


def test_a_handicapped_bot_plays_on_its_own_clock(tmp_path):
    config = load_config(write_config(tmp_path, CONFIG.format(
        handicap="{move_ms: 5, bank_ms: 1}")))
    assert config.time_for("handicapped").move_ms == 5
    assert config.time_for("handicapped").startup_ms == config.time.startup_ms
    assert config.time_for("even") == config.time
    summary, store, _ = run_tournament(config, tmp_path)
    assert summary.played == 2
    late = {(f["bot"], f["class"]) for f in store.faults("handicap")}
    assert late == {("handicapped", "timeout")}
    logs = tmp_path / "logs" / "handicap"
    assert start_clocks(logs / "handicapped.log") == [{"move_ms": 5, "bank_ms": 1}] * 2
    assert start_clocks(logs / "even.log") == [{"move_ms": 1000, "bank_ms": 5000}] * 2


def test_a_handicap_changes_the_tournament_identity(tmp_path):
    plain = load_config(write_config(tmp_path, CONFIG.format(handicap="{}"), "a.yaml"))
    handicapped = load_config(write_config(tmp_path, CONFIG.format(handicap="{move_ms: 5}"),
                                           "b.yaml"))
    assert "bot_time" in handicapped.identity()
    assert plain.identity() != handicapped.identity()


@pytest.mark.parametrize("handicap, message", [
    ("{move_ms: 0}", "bot 'handicapped': time.move_ms must be from 1"),
    ("{moves: 5}", "unknown key bot 'handicapped': time.'moves'"),
    ("5", "bot 'handicapped': 'time' must be a mapping"),
])
def test_a_bad_handicap_is_one_line_naming_the_bot(tmp_path, handicap, message):
    with pytest.raises(ConfigError, match=message):
        load_config(write_config(tmp_path, CONFIG.format(handicap=handicap)))
