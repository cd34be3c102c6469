"""Duplicate deals that no bot can exploit by remembering.

A bot that remembers every deal it sees (tests/memory_bot.py) plays sandboxed in
real tournaments. Under the defaults its processes are started afresh between the
seat rotations of the duplicate deals, with empty folders, and it never recognises
a deal; with ``renew_bots: false`` (the control) the same bot recognises deals, so
the first test would fail if the protection broke. Both run with the bot on either
transport: a stdio bot keeps a process per game at once (``concurrency``), each
renewed between the rotations as a gRPC bot's one process is.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import run_tournament, write_config

from circus_referee.main import main
from tournaments.config import ConfigError, parse_config
from tournaments.schedule import arrange, blocks, fixed_groups, schedule

ROOT = Path(__file__).resolve().parent.parent

CONFIG = f"""
name: memory
game: flohcati
players: 3
rounds: 3
seed: 5
concurrency: 2
renew_bots: {{renew}}
bots:
  - name: memory
    command: python {ROOT}/tests/memory_bot.py{{stdio}}
    transport: {{transport}}
  - {{{{name: random, python: "bots.random_bot:RandomBot"}}}}
  - {{{{name: random-b, python: "bots.random_bot:RandomBot"}}}}
"""


def play(tmp_path: Path, renew: bool, transport: str) -> tuple[str, list]:
    text = CONFIG.format(renew=str(renew).lower(), transport=transport,
                         stdio=" --stdio" if transport == "stdio" else "")
    summary, store, _ = run_tournament(write_config(tmp_path, text), tmp_path)
    games = store.games("memory")
    assert summary.played == len(games) == 9
    assert all(game.status == "finished" for game in games)
    return (tmp_path / "logs" / "memory" / "memory.log").read_text(), games


#: How many processes of the memory bot play at once: one over gRPC, one per game on stdio.
PROCESSES = {"grpc": 1, "stdio": 2}


@pytest.mark.slow
@pytest.mark.parametrize("transport", PROCESSES)
def test_under_the_defaults_a_remembering_bot_never_recognises_a_deal(tmp_path, transport):
    log, games = play(tmp_path, renew=True, transport=transport)
    assert "recognised" not in log
    # Fresh processes per rotation: three rotations, each playing each deal once.
    assert log.count("=== run ") == 3 * PROCESSES[transport]
    seeds = {game.seed for game in games}
    assert len(seeds) == 3, "three deals, each played in every rotation"


@pytest.mark.slow
@pytest.mark.parametrize("transport", PROCESSES)
def test_without_fresh_processes_the_same_bot_recognises_the_deals(tmp_path, transport):
    log, _ = play(tmp_path, renew=False, transport=transport)
    assert log.count("=== run ") == PROCESSES[transport]
    # Each deal is played three times; on stdio, by two processes that play one game at
    # a time: at least two of its games are one process's, one after the other.
    assert log.count("recognised") >= 3, log[-2000:]


def config(memory_line: str, kind: str = 'python: "bots.random_bot:RandomBot"') -> dict:
    return parse_config({
        "name": "t", "game": "flea-circus", "players": 2, "rounds": 1,
        "bots": [{"name": "a", "python": "bots.random_bot:RandomBot"},
                 {"name": "b", "python": "bots.random_bot:RandomBot"},
                 {"name": "c", **dict([kind.split(": ", 1)]), **memory_line}]})


def test_games_of_a_bot_with_memory_get_deals_of_their_own():
    pairings = schedule(config({"memory": True}))
    by_group: dict[int, set[int]] = {}
    for pairing in pairings:
        by_group.setdefault(pairing.group, set()).add(pairing.seed)
    groups = {pairing.group: pairing.seats for pairing in pairings}
    for group, seeds in by_group.items():
        assert len(seeds) == (2 if "c" in groups[group] else 1), groups[group]


def test_an_address_bot_remembers_and_cannot_be_told_otherwise():
    spec = config({}, 'address: 127.0.0.1:9').bots[2]
    assert spec.remembers
    with pytest.raises(ConfigError, match="memory: false is only for command: and python:"):
        config({"memory": False}, 'address: 127.0.0.1:9')


def test_duplicate_games_are_played_rotation_by_rotation():
    pairings = schedule(config({}))
    rotations = [pairing.rotation for pairing in pairings]
    assert rotations == sorted(rotations) and set(rotations) == {0, 1}
    assert [pairing.index for pairing in pairings] == list(range(len(pairings)))


def test_a_long_schedule_comes_in_parts_of_one_epoch_each(monkeypatch):
    monkeypatch.setattr("tournaments.schedule.PART_GAMES", 2)
    whole = schedule(config({}))
    block = blocks(config({}))[0]
    parts = list(arrange(config({}), "", block, partial(fixed_groups, config({}))))
    # Made a few games at a time, so a long tournament's schedule is never held whole;
    # no part mixes two epochs (the bots are renewed between epochs).
    assert [pairing for part in parts for pairing in part] == whole
    assert max(len(part) for part in parts) == 2 < len(whole)
    assert all(len({pairing.rotation for pairing in part}) == 1 for part in parts)


def test_the_leaderboard_names_the_bots_with_memory(tmp_path):
    path = write_config(tmp_path, """
        name: learners
        game: flea-circus
        players: 2
        bots:
          - {name: a, python: "bots.random_bot:RandomBot"}
          - {name: b, python: "bots.random_bot:RandomBot", memory: true}
        """)
    db = str(tmp_path / "r.sqlite")
    ran = CliRunner().invoke(main, ["tournament", str(path), "--db", db, "-q"])
    assert ran.exit_code == 0, ran.output
    assert "memory across games: b (their games were dealt deals of their own" in ran.output
    board = CliRunner().invoke(main, ["leaderboard", "--db", db, "--format", "json"])
    assert json.loads(board.output)["memory"] == ["b"]
