"""Chaos: kill -9 the referee at random moments of a tournament whose bots
start through a shell wrapper, resume each time, and get an uninterrupted run's result;
over gRPC and over stdio.

The wrapper (``sh run.sh``) forks the real bot, which the kernel's parent-death signal
does not reach; after every kill no bot process may be left all the same.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from conftest import run_tournament, write_config
from invariants import assert_consistent
from test_operations import (assert_bots_gone, assert_marked_gone, cli_run, games_and_board,
                             resume, stored_count)

from referee.process import ORPHAN_GUARD, dies_with_referee
from tournaments.config import load_config

CHAOS = """
name: chaos
game: flea-circus
players: 2
# 18 games: the kills (at 4 games stored, then 2 and 2 more, by the test's seed, each
# perhaps a game or two later) land well before the end.
rounds: 3
seed: 23
concurrency: 2
# Two databases are compared game by game: deals from the seed alone.
secret_deals: false
# A held decision must never cost a bot its bank (the test holds them at most seconds),
# and no busy machine overruns the start-up.
time: {{move_ms: 60000, bank_ms: 60000, startup_ms: 60000}}
bots:
  - {{name: a, {entry}}}
  - {{name: b, {entry}}}
  - {{name: c, {entry}}}
"""
#: Each transport's bot entry. ``CHAOS_RUN`` (in every bot's environment) is how the test
#: finds the bot processes of a stdio run, which have no port or socket to tell them by.
ENTRIES = {
    "grpc": 'dir: bot, command: "sh run.sh hold_bot.py --address {{address}}"',
    "stdio": 'dir: bot, command: "sh run.sh hold_stdio_bot.py", transport: stdio, '
             'env: {{CHAOS_RUN: "{mark}"}}',
}
#: The uninterrupted run's entries: the same choices (nothing holds them then), the gRPC
#: bot's in process.
UNINTERRUPTED = {"grpc": 'python: "bots.random_bot:RandomBot"', "stdio": ENTRIES["stdio"]}
GAMES = 18

# A random bot that holds each reply while the file `hold` exists in its `dir:` (which the
# sandbox shows it read-only): the test stops the tournament in place, whatever the speed.
HOLDING_BOT = """
import os, time
from bots.random_bot import RandomBot
from bots.sdk import serve

class HoldingBot(RandomBot):
    def decide(self, request):
        deadline = time.monotonic() + 60
        while os.path.exists("hold") and time.monotonic() < deadline:
            time.sleep(0.002)
        return super().decide(request)

serve(HoldingBot())
"""

# The same on stdio: the standard-library random bot, holding each decision likewise. At the
# end of its stdin or on a closed stdout it lingers (as a careless or hostile bot may), so
# only the referee's ending of its processes, not the bot's own exit, leaves none alive.
HOLDING_STDIO_BOT = """
import json, os, sys, time
from bots.stdio.random_bot import answer

def play():
    for line in sys.stdin:
        message = json.loads(line)
        deadline = time.monotonic() + 60
        while "decide" in message and os.path.exists("hold") and time.monotonic() < deadline:
            time.sleep(0.002)
        reply = answer(message)
        reply["request_id"] = message["request_id"]
        sys.stdout.write(json.dumps(reply) + "\\n")
        sys.stdout.flush()

try:
    play()
except OSError:  # the referee's end of stdout closed
    pass
time.sleep(60)
"""


def until_stored(db: Path, games: int, run: subprocess.Popen) -> None:
    """Wait until ``db`` holds ``games`` games (at most a minute); the run must go on."""
    deadline = time.monotonic() + 60
    while stored_count(db) < games and time.monotonic() < deadline:
        assert run.poll() is None, run.stderr.read()
        time.sleep(0.002)


def kill_at(folder: Path, db: Path, games: int, pause: float) -> int:
    """Run the tournament until ``db`` holds ``games`` games, hold every bot, wait ``pause``
    seconds (start-up, or bots blocked in their decisions), ``kill -9`` the referee; return
    how many games were stored.

    While the bots hold, no game can end but one whose last reply was already sent, so the
    kill lands mid-tournament on a fast machine and a slow one alike.
    """
    hold = folder / "bot" / "hold"
    hold.touch()
    run = cli_run(folder, db.name)
    if stored_count(db) < games:
        hold.unlink()
        until_stored(db, games, run)
        hold.touch()
    time.sleep(pause)
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=30)
    hold.unlink()
    return stored_count(db)


def assert_no_bot_left(folder: Path, transport: str, mark: str) -> None:
    """No bot process of this test's runs is alive (a stdio bot's found by ``CHAOS_RUN``)."""
    if transport == "grpc":
        assert_bots_gone(folder / "logs")
        return
    assert_marked_gone({f"CHAOS_RUN={mark}"})


@pytest.mark.slow
@pytest.mark.parametrize("transport", ENTRIES)
def test_kill_9_at_random_moments_then_resume_gives_the_uninterrupted_result(tmp_path,
                                                                             transport):
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "hold_bot.py").write_text(HOLDING_BOT)
    (tmp_path / "bot" / "hold_stdio_bot.py").write_text(HOLDING_STDIO_BOT)
    (tmp_path / "bot" / "run.sh").write_text('python "$@"\n')
    mark = uuid.uuid4().hex  # one of this run alone, unlike tmp_path's name
    # The uninterrupted run in this process: the killed and resumed runs are the subject.
    uninterrupted = CHAOS.format(entry=UNINTERRUPTED[transport].format(mark=mark))
    run_tournament(write_config(tmp_path, uninterrupted, "full.yaml"), tmp_path, "full.sqlite")
    write_config(tmp_path, CHAOS.format(entry=ENTRIES[transport].format(mark=mark)))

    moments = random.Random(13)
    chaos = tmp_path / "chaos.sqlite"
    stored = [0]
    for _ in range(3):
        # At a drawn count of games (0: in start-up), after a drawn pause.
        target = stored[-1] + moments.randint(0, 8)
        stored.append(kill_at(tmp_path, chaos, target, moments.uniform(0, 0.3)))
        assert stored[-1] >= target
        assert_no_bot_left(tmp_path, transport, mark)
    assert stored[-1] < GAMES  # the kills came before the end
    resumed = resume(tmp_path, "chaos.sqlite")
    assert resumed.exit_code == 0, resumed.output
    assert_no_bot_left(tmp_path, transport, mark)
    games, board = games_and_board(tmp_path, "chaos.sqlite")
    assert [g["game_index"] for g in games] == list(range(GAMES))
    assert (games, board) == games_and_board(tmp_path, "full.sqlite")
    assert_consistent(tmp_path / "chaos.sqlite", "chaos", load_config(tmp_path / "bots.yaml"))


def test_a_child_whose_referee_died_before_its_death_signal_was_set_ends_at_once():
    """The guard between the death signal and the bot's command: a child whose parent is
    no longer the referee (the referee died in between) does not run the command."""
    pid = os.getpid()
    alive = subprocess.run(["/bin/sh", "-c", ORPHAN_GUARD, str(pid), "echo", "ran"],
                           capture_output=True, text=True, timeout=10, check=False)
    assert (alive.returncode, alive.stdout) == (0, "ran\n")
    # Here the child's parent is this test, not process 1, as for a referee gone.
    orphan = subprocess.run(["/bin/sh", "-c", ORPHAN_GUARD, "1", "echo", "ran"],
                            capture_output=True, text=True, timeout=10, check=False)
    assert (orphan.returncode, orphan.stdout) == (1, "")
    wrapped = subprocess.run(dies_with_referee(["echo", "ran"]), capture_output=True,
                             text=True, timeout=10, check=False)
    assert (wrapped.returncode, wrapped.stdout) == (0, "ran\n")
