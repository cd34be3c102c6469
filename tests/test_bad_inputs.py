"""Inputs that used to end in a traceback: each gets one line and exit 2, and loses nothing.
Also the store's lock per tournament and --fresh keeping the old run."""

from __future__ import annotations

import importlib
import socket
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from circus_referee.main import main
from referee.clients import BotFault
from referee.errors import CircusError

CLI = str(Path(sys.executable).parent / "circus-referee")

GOOD = """
name: t
game: flea-circus
players: 2
bots:
  - {name: a, python: "bots.random_bot:RandomBot"}
  - {name: b, python: "bots.random_bot:RandomBot"}
"""


def tournament(folder: Path, text: str = GOOD, *extra: str, db: Path | None = None):
    path = folder / "bots.yaml"
    path.write_text(textwrap.dedent(text))
    return CliRunner().invoke(main, ["tournament", str(path), "--db", str(db or folder / "r.db"),
                                     "--logs", str(folder / "logs"), "--quiet", *extra])


def run_cli(folder: Path, text: str) -> subprocess.CompletedProcess:
    """The command in a process of its own."""
    (folder / "bots.yaml").write_text(textwrap.dedent(text))
    return subprocess.run([CLI, "tournament", "bots.yaml", "--db", "r.db", "--quiet"],
                          cwd=folder, capture_output=True, text=True, timeout=60)


def one_error_line(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


def test_a_python_target_that_is_not_a_bot_class_is_refused(tmp_path):
    text = GOOD.replace("bots.random_bot:RandomBot", "os:getcwd", 1)
    refusal = one_error_line(tournament(tmp_path, text))
    assert "os:getcwd is not a bot class: name a subclass of bots.sdk.Bot" in refusal


def test_a_db_whose_parent_is_a_file_is_refused(tmp_path):
    (tmp_path / "file").write_text("")
    line = one_error_line(tournament(tmp_path, GOOD, db=tmp_path / "file" / "r.db"))
    assert "cannot create its folder" in line


def test_a_database_with_a_foreign_games_table_is_left_untouched(tmp_path):
    db = tmp_path / "r.db"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE games (title TEXT, year INTEGER)")
        con.execute("INSERT INTO games VALUES ('Go', -500)")
    before = db.read_bytes()
    assert "table 'games' is not circus-referee's" in one_error_line(tournament(tmp_path))
    assert db.read_bytes() == before


def hold_lock(db: Path) -> sqlite3.Connection:
    """Another program writing to the database, holding it until closed."""
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("BEGIN EXCLUSIVE")
    return con


def test_a_database_locked_at_start_waits_then_stops_with_one_line(tmp_path):
    assert tournament(tmp_path).exit_code == 0
    holder = hold_lock(tmp_path / "r.db")
    try:
        line = one_error_line(tournament(tmp_path, GOOD, "--fresh", "--db-wait", "0.2"))
    finally:
        holder.close()
    assert "is locked by another program (waited 0.2s)" in line


def test_a_database_locked_mid_tournament_stops_cleanly_and_resumes(tmp_path, monkeypatch):
    from tournaments.store import Store
    original, holders = Store.add_game, []

    def add_game(self, *args):
        game_id = original(self, *args)
        if game_id == 3:  # another program takes the database after the third game
            holders.append(hold_lock(self.path))
        return game_id

    monkeypatch.setattr(Store, "add_game", add_game)
    text = GOOD + "rounds: 4\nconcurrency: 1\n"
    line = one_error_line(tournament(tmp_path, text, "--db-wait", "0.2"))
    assert "locked by another program" in line and "run the same command again" in line
    holders[0].close()
    monkeypatch.setattr(Store, "add_game", original)
    # The stopped referee could not release its lock then; it would go stale on exit, but
    # this one lives on in the test process, so release it as its exit would.
    Store(tmp_path / "r.db").unlock("t")
    resumed = run_cli(tmp_path, text)
    assert resumed.returncode == 0, resumed.stderr
    assert "5 games played (3 already stored) of 8" in resumed.stderr


def test_replay_of_an_id_beyond_sqlite_integers_is_one_line(tmp_path):
    assert tournament(tmp_path).exit_code == 0
    result = CliRunner().invoke(main, ["replay", "1" + "0" * 30, "--db", str(tmp_path / "r.db")])
    assert "no game with id 1000" in one_error_line(result)


def test_a_bot_that_exits_before_answering_gets_one_line_and_no_thread_traceback(tmp_path):
    text = GOOD.replace('python: "bots.random_bot:RandomBot"', 'command: "python -c pass"', 1)
    done = run_cli(tmp_path, text)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "exited with status 0 before answering" in done.stderr


@pytest.mark.parametrize("sandbox", [True, False])
def test_a_crash_report_names_the_signal(tmp_path, sandbox):
    """A real crash (a read of address 0), sandboxed (bwrap's 128 + N) or not."""
    command = ("command: \"python -c 'import ctypes; ctypes.string_at(0)'\", "
               f"sandbox: {str(sandbox).lower()}")
    done = run_cli(tmp_path, GOOD.replace('python: "bots.random_bot:RandomBot"', command, 1))
    assert done.returncode == 2 and "bot 'a': killed by SIGSEGV before answering" in done.stderr


def lock_as(db: Path, pid: int) -> None:
    with sqlite3.connect(db) as con:
        con.execute("INSERT INTO locks VALUES ('t', ?, ?, '2026-01-01T00:00:00+00:00')",
                    (pid, socket.gethostname()))


def test_a_second_referee_is_refused_naming_the_holder(tmp_path):
    assert tournament(tmp_path, GOOD + "rounds: 2\n").exit_code == 0
    with subprocess.Popen(["sleep", "60"]) as other:
        lock_as(tmp_path / "r.db", other.pid)
        line = one_error_line(tournament(tmp_path, GOOD + "rounds: 2\n", "--fresh"))
        other.kill()
    assert (f"tournament 't' is being run by another referee (pid {other.pid} on "
            f"{socket.gethostname()}, since 2026-01-01T00:00:00+00:00)") in line
    with sqlite3.connect(tmp_path / "r.db") as con:
        assert con.execute("SELECT count(*) FROM games").fetchone()[0] == 4


def test_the_stale_lock_of_a_dead_referee_is_taken_over(tmp_path):
    assert tournament(tmp_path).exit_code == 0
    dead = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True)
    lock_as(tmp_path / "r.db", int(dead.stdout))
    result = tournament(tmp_path, GOOD, "--fresh")
    assert result.exit_code == 0, result.output
    with sqlite3.connect(tmp_path / "r.db") as con:
        assert con.execute("SELECT count(*) FROM locks").fetchone()[0] == 0


def test_fresh_keeps_the_old_run_and_deletes_nothing_when_a_bot_fails(tmp_path):
    text = GOOD + "rounds: 2\n"
    assert tournament(tmp_path, text).exit_code == 0
    broken = text.replace("bots.random_bot:RandomBot", "bots.random_bot:NoSuchBot", 1)
    assert "cannot load" in one_error_line(tournament(tmp_path, broken, "--fresh"))
    with sqlite3.connect(tmp_path / "r.db") as con:
        assert con.execute("SELECT tournament, count(*) FROM games GROUP BY 1").fetchall() == \
            [("t", 4)]
    fresh = tournament(tmp_path, text, "--fresh")
    assert fresh.exit_code == 0 and "the previous run is kept as tournament 't.old-1'" in \
        fresh.output
    with sqlite3.connect(tmp_path / "r.db") as con:
        assert con.execute("SELECT tournament, count(*) FROM games GROUP BY 1 ORDER BY 1"
                           ).fetchall() == [("t", 4), ("t.old-1", 4)]


@pytest.mark.parametrize("error", [
    "tournaments.config:ConfigError", "tournaments.store:StoreError",
    "tournaments.run.errors:TournamentError", "tournaments.cluster:ClusterError",
    "referee.participants:BotStartError", "tournaments.season:SeasonError",
    "tournaments.submissions:SubmissionError", "pages.replays:ReplayError"])
def test_an_error_of_each_area_ends_the_command_as_one_line_and_exit_2(tmp_path, monkeypatch,
                                                                       error):
    """The CLI's one ``except CircusError``: wherever below a command the error
    is raised, the user reads its line, not a traceback."""
    module, name = error.split(":")
    kind = getattr(importlib.import_module(module), name)
    assert issubclass(kind, CircusError)

    def refuse(*args: object, **kwargs: object) -> None:
        raise kind(f"{name} says what to fix")
    monkeypatch.setattr("circus_referee.commands.tournament.load_config", refuse)
    line = one_error_line(tournament(tmp_path))
    assert line == f"error: {name} says what to fix"


def test_a_ctrl_c_ends_the_command_as_one_line_through_the_same_except_with_status_130(
        tmp_path, monkeypatch):
    """Interrupted is a CircusError with the shell's status for a Ctrl-C: no command
    catches it itself, the group's one ``except`` prints its line."""
    from tournaments.runner import Interrupted, TournamentRunner

    def interrupted(self: TournamentRunner) -> None:
        raise Interrupted("interrupted: 3 of 8 games are stored; run the same command again")
    monkeypatch.setattr(TournamentRunner, "run", interrupted)
    result = tournament(tmp_path)
    assert (result.exit_code, result.output.strip().splitlines()) == (130, [
        "error: interrupted: 3 of 8 games are stored; run the same command again"])


def test_a_bots_failure_is_its_fault_not_an_error_of_the_referee():
    """A bot that fails a call costs that bot (its fault's policy), never the run."""
    assert not issubclass(BotFault, CircusError)
