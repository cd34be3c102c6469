"""Bots do not learn whom they play unless the config reveals names.

Two bots of one author (tests/sneaky_bots.py ``names``) print every StartGame's
``seat_names`` to their logs: by default they see only seat labels, so they cannot
tell when they share a table; with ``reveal_names: true`` (the control) they see
the names. The store keeps the real names either way.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from bot_logs import bot_lines
from conftest import run_tournament, write_config

from tournaments.config import ConfigError, load_config

SNEAKY = Path(__file__).resolve().parent / "sneaky_bots.py"


def names_config(tmp_path: Path, reveal: str) -> Path:
    return write_config(tmp_path, f"""
        name: names
        game: flea-circus
        players: 2
        seed: 11
        concurrency: 2
        time: {{startup_ms: 30000}}
        renew_bots: false   # what a bot is told, not its processes, is the subject
        {reveal}
        bots:
          - name: alice-1
            command: {sys.executable} {SNEAKY} names --address {{address}}
          - name: alice-2
            command: {sys.executable} {SNEAKY} names --address {{address}}
          - name: random
            python: bots.random_bot:RandomBot
        """)


def seen_seats(log: Path) -> list[list[str]]:
    return [json.loads(line.removeprefix("SEATS ")) for line in bot_lines(log.read_text())
            if line.startswith("SEATS ")]


@pytest.mark.parametrize("reveal, expected", [
    ("", [["seat 0", "seat 1"]]),
    ("reveal_names: false", [["seat 0", "seat 1"]]),
])
def test_by_default_bots_see_only_seat_labels(tmp_path, reveal, expected):
    summary, store, _ = run_tournament(names_config(tmp_path, reveal), tmp_path)
    assert summary.played == 6
    for bot in ("alice-1", "alice-2"):
        seen = seen_seats(tmp_path / "logs" / "names" / f"{bot}.log")
        assert len(seen) == 4, seen   # two tables, two rotations each
        assert [list(s) for s in {tuple(s) for s in seen}] == expected
    # The store keeps who really played: alice-1 met alice-2 in two games.
    together = [g for g in store.games("names") if set(g.seats) == {"alice-1", "alice-2"}]
    assert len(together) == 2


def test_with_reveal_names_bots_see_the_names(tmp_path):
    """The control: the recording works, and the key restores the names."""
    run_tournament(names_config(tmp_path, "reveal_names: true"), tmp_path)
    seen = seen_seats(tmp_path / "logs" / "names" / "alice-1.log")
    assert sorted(map(tuple, seen)) == sorted([("alice-1", "alice-2"), ("alice-2", "alice-1"),
                                               ("alice-1", "random"), ("random", "alice-1")])


def test_reveal_names_must_be_a_boolean(tmp_path):
    config = names_config(tmp_path, "reveal_names: sometimes")
    with pytest.raises(ConfigError, match="reveal_names"):
        load_config(config)


def test_revealing_names_is_part_of_what_a_resume_must_keep(tmp_path):
    hidden = load_config(names_config(tmp_path, "")).identity()
    assert "reveal_names" not in hidden   # older records, made before the key, still match
    assert load_config(names_config(tmp_path, "reveal_names: true")).identity()[
        "reveal_names"] is True
