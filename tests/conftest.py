"""Shared fixtures: writing configs and running tournaments in a temporary folder."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import quick_tier
from click.testing import CliRunner, Result

from circus_referee.main import main
from referee import process
from tournaments.config import TournamentConfig, load_config
from tournaments.runner import Interrupted, Summary, TournamentRunner
from tournaments.store import Store

# The tests send Ctrl-C to the referee and to themselves as to a foreground job. A suite
# started in the background of a script (`scripts/test &` with no job control) inherits an
# ignored SIGINT, which Python and every process started from it keep ignored: Python's own
# handler again, for this worker and the processes it starts.
signal.signal(signal.SIGINT, signal.default_int_handler)

# Hypothesis runs every installed package's hook when imported; trio's (no test uses trio)
# imports trio in each xdist worker, every one of which collects the property tests.
os.environ.setdefault("HYPOTHESIS_NO_PLUGINS", "1")

def pytest_addoption(parser: pytest.Parser) -> None:
    quick_tier.addoption(parser)


def pytest_configure(config: pytest.Config) -> None:
    quick_tier.configure(config)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest files first, as last recorded; with ``--quick``, only the quick tier
    (:mod:`quick_tier`)."""
    quick_tier.longest_first(items)
    quick_tier.select(config, items)


#: Dask's periodic work that no test reads, off for the Dask processes a test starts: the
#: workers' statistical profiler (every 10 ms), the event loops' tick watch (20 ms) and the
#: memory monitor (100 ms). An idle cluster spends a fifth of the CPU then; the games and
#: their scheduling are the same.
QUIET_DASK = {"DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
              "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
              "DASK_DISTRIBUTED__WORKER__MEMORY__MONITOR_INTERVAL": "1s"}


def check_bot(*args: str, cwd: Path | None = None) -> Result:
    """``circus-referee check-bot ARGS`` in this process, from ``cwd``: the bot is the test's
    subject, not the referee's interpreter starting (half a second of CPU)."""
    with pytest.MonkeyPatch.context() as patch:
        if cwd is not None:
            patch.chdir(cwd)
        return CliRunner().invoke(main, ["check-bot", *args])


def write_config(folder: Path, text: str, name: str = "bots.yaml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def run_tournament(config: TournamentConfig | Path, folder: Path, db: str = "results.sqlite",
                   **options) -> tuple[Summary, Store, str]:
    """Run a tournament quietly; return its summary, store and captured output."""
    if isinstance(config, Path):
        config = load_config(config)
    store = Store(folder / db)
    out = io.StringIO()
    runner = TournamentRunner(config, store, folder / "logs" / config.name, out=out,
                              quiet=options.pop("quiet", True), **options)
    return runner.run(), store, out.getvalue()


@pytest.fixture
def started(monkeypatch) -> list[int]:
    """The process-group ids of every bot process the referee starts."""
    pids: list[int] = []
    original = process.BotProcess.start

    def spy(self):
        address = original(self)
        pids.append(self.process.pid)
        return address

    monkeypatch.setattr(process.BotProcess, "start", spy)
    return pids


class StopAfter(Store):
    """A store whose referee is interrupted (as by Ctrl-C) as its n-th game is stored:
    a run stopped at a known moment, whatever the machine's speed."""

    def __init__(self, path: Path, games: int) -> None:
        super().__init__(path)
        self.left = games

    def add_game(self, *args, **kwargs) -> int:
        game_id = super().add_game(*args, **kwargs)
        self.left -= 1
        if self.left == 0:
            raise KeyboardInterrupt
        return game_id


def interrupted_run(config: TournamentConfig, folder: Path, games: int,
                    db: str = "results.sqlite", **options) -> str:
    """Run a tournament until its ``games``-th game is stored, then interrupt it; return
    what it printed."""
    out = io.StringIO()
    runner = TournamentRunner(config, StopAfter(folder / db, games),
                              folder / "logs" / config.name, out=out, quiet=True, **options)
    with pytest.raises(Interrupted):
        runner.run()
    return out.getvalue()


def stored_count(db: Path) -> int:
    """How many games a database holds, read while a referee may be writing it."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            return con.execute("SELECT count(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def live_group_members(pgids: set[int]) -> list[int]:
    """Processes in these process groups that still run (zombies, left for init to reap,
    do not count: they are dead)."""
    members = []
    for entry in Path("/proc").iterdir():
        try:
            state, _, pgrp = (entry / "stat").read_text().rsplit(") ", 1)[1].split()[:3]
        except (OSError, IndexError, ValueError):
            continue
        if int(pgrp) in pgids and state != "Z":
            members.append(int(entry.name))
    return members


@pytest.fixture
def bot_processes(monkeypatch) -> list[process.BotProcess]:
    """Every BotProcess started during the test, to see how each ended."""
    processes: list[process.BotProcess] = []
    original = process.BotProcess.start

    def spy(self):
        address = original(self)
        processes.append(self)
        return address

    monkeypatch.setattr(process.BotProcess, "start", spy)
    return processes


def still_running(find: Callable[[], list[int]]) -> list[int]:
    """What ``find`` still finds once killed processes had a minute to go: a SIGKILL is
    sent, not awaited, and a loaded machine takes its time to end the process. The minute
    bounds a failure only; the wait ends as soon as nothing is found."""
    deadline = time.monotonic() + 60
    while (found := find()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def assert_no_process_left(pids: list[int]) -> None:
    assert pids
    assert still_running(lambda: live_group_members(set(pids))) == []
