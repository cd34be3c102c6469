"""The deal secret and the seeds stay in the referee.

A snooping bot (tests/sneaky_bots.py ``snoop``) tries to read the results database
every way an attacking bot has tried: check-bot's default database and a ``--db``, a
database reached through a symlink (SQLite keeps its ``-wal`` beside the real file),
a logs folder made after the first sandbox, other tournaments' logs, the config.
Sandboxed, it finds nothing; unsandboxed (the control) the same tries find the
planted secrets. The files live outside /tmp, under the project's ``runs/``: the
sandbox masks /tmp anyway, so files there would prove nothing.

Reports and exports made while a tournament is unfinished withhold the seeds (and
the replays) of deals whose seat rotations are not all played.
"""

from __future__ import annotations

import csv
import json
import shutil
import sqlite3
import sys
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from bot_logs import bot_lines
from conftest import write_config

from circus_referee.main import main
from referee import sandbox

ROOT = Path(__file__).resolve().parent.parent
SNEAKY = ROOT / "tests" / "sneaky_bots.py"
needs_sandbox = pytest.mark.skipif(sandbox.unavailable_reason() is not None,
                                   reason="no sandbox here")


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def outside_tmp():
    """A folder outside /tmp (which every sandbox masks), removed afterwards."""
    folder = ROOT / "runs" / f"test-secrets-{uuid.uuid4().hex}"
    folder.mkdir(parents=True)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def planted_database(path: Path) -> sqlite3.Connection:
    """A database whose SECRET is only in its -wal (the connection, kept open, never
    checkpoints), as a running tournament's database holds its newest games."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("CREATE TABLE IF NOT EXISTS planted (secret TEXT)")
    db.execute("INSERT INTO planted VALUES ('SECRET 0123456789abcdef')")
    db.commit()
    assert b"SECRET" in path.with_name(path.name + "-wal").read_bytes()
    return db


def snoop_command(flag: str, *targets: Path) -> str:
    return f"{sys.executable} {SNEAKY} snoop {flag} " + " ".join(map(str, targets))


# -- check-bot ----------------------------------------------------------------------
def check_bot_setup(folder: Path) -> tuple[list[Path], list[str], list[sqlite3.Connection]]:
    """check-bot's default database (in the shell's folder) and a symlinked --db."""
    default = folder / "runs" / "circus.sqlite"
    real = folder / "real" / "results.sqlite"
    link = folder / "link" / "results.sqlite"
    held = [planted_database(default), planted_database(real)]
    link.parent.mkdir()
    link.symlink_to(real)
    targets = [default, default.with_name("circus.sqlite-wal"), real.parent,
               real.with_name("results.sqlite-wal")]
    return targets, ["--db", str(link)], held


@pytest.mark.parametrize("sandboxed", [
    pytest.param(True, marks=needs_sandbox), False])
def test_check_bot_hides_every_database(outside_tmp, monkeypatch, sandboxed):
    monkeypatch.chdir(outside_tmp)
    targets, db_options, held = check_bot_setup(outside_tmp)
    flag = "--address {address}" if sandboxed else "--port {port}"
    result = run("check-bot", "--command", snoop_command(flag, *targets),
                 "--game", "flea-circus", "--rotation", "once", "--at-once", "1",
                 "--startup-ms", "30000", *db_options,
                 *([] if sandboxed else ["--no-sandbox"]))
    for db in held:
        db.close()
    handshake = next(line for line in result.output.splitlines() if "handshake" in line)
    if sandboxed:
        assert "found nothing" in handshake, result.output
    else:   # the control: the same reads find every secret
        assert all(str(target) in handshake for target in targets), result.output


def test_check_bot_refuses_a_db_whose_symlinks_loop(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    result = run("check-bot", "--command", "python -m bots.random_bot --address {address}",
                 "--db", str(tmp_path / "a" / "results.sqlite"))
    assert result.exit_code == 2
    assert result.stderr == (f"error: --db {tmp_path / 'a' / 'results.sqlite'}: its symlinks "
                             "loop; give the database's real path\n")


# -- tournaments ---------------------------------------------------------------------
def tournament_setup(folder: Path, sandboxed: bool
                     ) -> tuple[Path, list[str], list[Path], sqlite3.Connection]:
    """A symlinked --db with a secret in the real folder's -wal, a logs folder not yet
    made beside another tournament's logs, and a config holding a SECRET comment."""
    real = folder / "real" / "results.sqlite"
    link = folder / "link" / "results.sqlite"
    held = planted_database(real)
    link.parent.mkdir()
    link.symlink_to(real)
    old_logs = folder / "logs" / "old"
    old_logs.mkdir(parents=True)
    (old_logs / "bot.log").write_text("SECRET: another tournament's hands\n")
    targets = [real.parent, real.with_name("results.sqlite-wal"), folder / "logs",
               folder / "logs" / "snooping", folder / "bots.yaml"]
    flag = "--address {address}" if sandboxed else "--port {port}"
    config = write_config(folder, f"""
        # SECRET: the organiser's notes
        name: snooping
        game: flea-circus
        players: 2
        seed: 5
        sandbox: {str(sandboxed).lower()}
        time: {{startup_ms: 30000}}
        bots:
          - name: snoop
            command: {snoop_command(flag, *targets)}
          - name: random
            python: bots.random_bot:RandomBot
        """)
    options = ["--db", str(link), "--logs", str(folder / "logs"), "--quiet"]
    return config, options, targets, held


@pytest.mark.parametrize("sandboxed", [
    pytest.param(True, marks=needs_sandbox), False])
def test_a_tournament_hides_its_database_logs_and_config(outside_tmp, sandboxed):
    config, options, targets, held = tournament_setup(outside_tmp, sandboxed)
    result = run("tournament", str(config), *options)
    held.close()
    assert result.exit_code == 0, result.output
    log = (outside_tmp / "logs" / "snooping" / "snoop.log").read_text()
    tries = [line for line in bot_lines(log) if line.startswith("SNOOP ")]
    assert tries and len(tries) % len(targets) == 0, log   # each run of the bot tries all
    if sandboxed:
        assert not [line for line in tries if "LEAKS" in line], tries
    else:
        assert all("LEAKS" in line for line in tries), tries


# -- reports and exports of an unfinished tournament ---------------------------------
@pytest.fixture
def stored(tmp_path) -> Path:
    """A finished round robin of 3 bots, 2 seats: 3 deals, each in 2 seat rotations."""
    config = write_config(tmp_path, """
        name: seeds
        game: flea-circus
        players: 2
        seed: 9
        bots:
          - {name: a, python: "bots.random_bot:RandomBot"}
          - {name: b, python: "bots.random_bot:RandomBot"}
          - {name: c, python: "bots.random_bot:RandomBot"}
        """)
    db = tmp_path / "results.sqlite"
    result = run("tournament", str(config), "--db", str(db), "--logs", str(tmp_path / "logs"),
                 "--quiet")
    assert result.exit_code == 0, result.output
    return db


def unfinish(db: Path) -> int:
    """Make the tournament as if it were still running: one deal's second rotation not yet
    played. Returns that deal's group."""
    with sqlite3.connect(db) as conn:
        group, index = conn.execute("SELECT group_index, max(game_index) FROM games "
                                    "WHERE group_index = 1").fetchone()
        conn.execute("DELETE FROM games WHERE game_index = ?", (index,))
        conn.execute("UPDATE tournaments SET finished_at = NULL")
    return group


def exported(db: Path, fmt: str = "jsonl") -> tuple[list[dict], str]:
    result = run("export", "--db", str(db), "--format", fmt)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    if fmt == "csv":
        return list(csv.DictReader(lines)), result.stderr
    return [json.loads(line) for line in lines], result.stderr


def test_an_unfinished_tournaments_export_withholds_the_seeds_of_deals_to_come(stored):
    group = unfinish(stored)
    records, note = exported(stored)
    assert len(records) == 5
    withheld = [r for r in records if r["seed"] is None]
    assert [r["group"] for r in withheld] == [group]
    assert all(isinstance(r["seed"], int) for r in records if r["group"] != group)
    assert "seeds of 1 game(s) withheld" in note
    rows, _ = exported(stored, "csv")
    assert [row["seed"] for row in rows if row["group"] == str(group)] == [""]


def test_a_finished_tournaments_export_has_every_seed(stored):
    """The control: the same tournament, finished, exports every seed."""
    records, note = exported(stored)
    assert len(records) == 6 and all(isinstance(r["seed"], int) for r in records)
    assert "withheld" not in note


def test_replaying_an_exported_game_without_its_seed_says_why(stored, tmp_path):
    group = unfinish(stored)
    out = tmp_path / "games.jsonl"
    assert run("export", "--db", str(stored), "-o", str(out)).exit_code == 0
    index = next(record["game_index"] for record in map(json.loads,
                                                         out.read_text().splitlines())
                 if record["group"] == group)
    result = run("replay", "--from", str(out), "--index", str(index))
    assert result.exit_code == 2 and "has no seed" in result.stderr, result.output


def test_an_unfinished_tournaments_report_withholds_the_replays_of_deals_to_come(stored,
                                                                                 tmp_path):
    unfinish(stored)
    report = tmp_path / "report.html"
    result = run("report", "--db", str(stored), "-o", str(report))
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "report-replays").glob("game-*.html"))) == 4
    assert "replays of 1 game(s) withheld" in report.read_text()
    assert "replays of 1 game(s) withheld" in result.stderr


def test_a_finished_tournaments_report_has_every_replay(stored, tmp_path):
    report = tmp_path / "report.html"
    assert run("report", "--db", str(stored), "-o", str(report)).exit_code == 0
    assert len(list((tmp_path / "report-replays").glob("game-*.html"))) == 6
    assert "withheld" not in report.read_text()
