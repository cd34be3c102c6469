"""Tournament operations: resume after SIGKILL or Ctrl-C, config changes, seeding,
formats and exports."""

from __future__ import annotations

import io
import json
import re
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import run_tournament, still_running, stored_count, write_config
from invariants import assert_consistent

from circus_referee.main import main
from referee.games import replay
from tournaments.config import load_config
from tournaments.export import replay_record
from tournaments.runner import TournamentError
from tournaments.schedule import schedule

CLI = str(Path(sys.executable).parent / "circus-referee")

GRPC = """
name: ops
game: flea-circus
players: 3
rounds: 10
seed: 17
concurrency: 2
secret_deals: false   # the resumed store is compared with another store's run
# ... game by game: a timeout in either run would change a game. A clock no busy machine
# spends, and a start-up no busy machine overruns.
time: {move_ms: 60000, bank_ms: 60000, startup_ms: 60000}
bots:
  - {name: greedy, command: "python -m bots.flea_greedy --address {address}"}
  - {name: random, command: "python -m bots.random_bot --address {address}"}
  - {name: random-b, command: "python -m bots.random_bot --address {address}"}
"""


def bot_marks(log_dir: Path) -> set[str]:
    """What tells each bot run apart: its socket folder (sandboxed) or its port."""
    marks = set()
    for log in log_dir.rglob("*.log"):
        text = log.read_text()
        marks |= {f"CIRCUS_BOT_PORT={port}" for port in re.findall(r"\(port (\d+),", text)}
        marks |= {Path(path).parent.name for path in re.findall(r"\(socket (\S+),", text)}
    return marks


def bot_processes(marks: set[str]) -> list[int]:
    """Live processes with one of these ports in their environment or socket folders mounted."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            seen = ((entry / "environ").read_bytes().decode(errors="replace")
                    + (entry / "mountinfo").read_text())
            state = (entry / "stat").read_text().split(") ")[1].split()[0]
        except OSError:
            continue
        if any(mark in seen for mark in marks) and state != "Z":
            found.append(int(entry.name))
    return found


def assert_bots_gone(log_dir: Path) -> None:
    ports = bot_marks(log_dir)
    assert ports
    assert_marked_gone(ports)


def assert_marked_gone(marks: set[str]) -> None:
    """No live process carries any of ``marks`` (killed ones given their time to go)."""
    assert still_running(lambda: bot_processes(marks)) == []


def cli_run(folder: Path, db: str, *extra: str, **popen) -> subprocess.Popen:
    return subprocess.Popen([CLI, "tournament", str(folder / "bots.yaml"), "--db",
                             str(folder / db), "--logs", str(folder / "logs"), "--quiet",
                             *extra], cwd=folder, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **popen)


def resume(folder: Path, db: str) -> Result:
    """``cli_run``'s command run again in this process: a resume is the subject, not the
    referee's interpreter starting (half a second of CPU)."""
    return CliRunner().invoke(main, ["tournament", str(folder / "bots.yaml"), "--db",
                                     str(folder / db), "--logs", str(folder / "logs"),
                                     "--quiet"])


def games_and_board(folder: Path, db: str):
    runner = CliRunner()
    exported = runner.invoke(main, ["export", "--db", str(folder / db), "--format", "jsonl"])
    games = [json.loads(line) for line in exported.output.splitlines()]
    keys = ("game_index", "seed", "seats", "scores", "ranks", "status", "actions")
    board = runner.invoke(main, ["leaderboard", "--db", str(folder / db), "--format", "json"])
    rows = [{k: row[k] for k in ("bot", "mu", "sigma", "games", "wins")}
            for row in json.loads(board.output)["leaderboard"]]
    return [{key: game[key] for key in keys} for game in games], rows


#: The GRPC tournament's games (10 deal sets in each of 3 seat rotations, played rotation
#: by rotation), and how many are stored when the kill comes: a third of the way, where the
#: second rotation's fresh bots start.
GAMES = 30
KILLED_AT = 10


def interrupt_midway(folder: Path, db: str, signum: int) -> subprocess.Popen:
    run = cli_run(folder, db)
    deadline = time.monotonic() + 60
    while stored_count(folder / db) < KILLED_AT and time.monotonic() < deadline:
        assert run.poll() is None, run.stderr.read()
        time.sleep(0.002)  # the kill comes with 20 games still to play
    run.send_signal(signum)
    run.wait(timeout=30)
    return run


#: The same tournament with its bots' classes in process: the same games (each decision is
#: seeded by its game's and its own ids), without bot processes.
IN_PROCESS_GRPC = (GRPC
                   .replace('command: "python -m bots.flea_greedy --address {address}"',
                            'python: "bots.flea_greedy:FleaGreedyBot"')
                   .replace('command: "python -m bots.random_bot --address {address}"',
                            'python: "bots.random_bot:RandomBot"'))


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The games and board of the GRPC tournament run without a break (its bots in process:
    the interrupted run is the subject)."""
    folder = tmp_path_factory.mktemp("uninterrupted")
    run_tournament(write_config(folder, IN_PROCESS_GRPC), folder, "full.sqlite")
    return games_and_board(folder, "full.sqlite")


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGINT])
def test_resume_after_interruption_gives_the_uninterrupted_result(tmp_path, signum,
                                                                    uninterrupted):
    write_config(tmp_path, GRPC)
    stopped = interrupt_midway(tmp_path, "resumed.sqlite", signum)
    if signum == signal.SIGINT:
        assert stopped.returncode == 130
        assert "run the same command again to resume" in stopped.stderr.read()
    else:
        assert stopped.returncode == -signal.SIGKILL
    partial = stored_count(tmp_path / "resumed.sqlite")
    assert KILLED_AT <= partial < GAMES
    assert_bots_gone(tmp_path / "logs")  # none outlives the referee, even after SIGKILL

    resumed = resume(tmp_path, "resumed.sqlite")
    assert resumed.exit_code == 0, resumed.output
    assert f"{GAMES - partial} games played ({partial} already stored)" in resumed.stderr
    games, board = games_and_board(tmp_path, "resumed.sqlite")
    assert [g["game_index"] for g in games] == list(range(GAMES))
    assert (games, board) == uninterrupted
    assert_consistent(tmp_path / "resumed.sqlite", "ops", load_config(tmp_path / "bots.yaml"))
    assert_bots_gone(tmp_path / "logs")


IN_PROCESS = """
name: ops
game: flea-circus
players: 2
rounds: 2
seed: 4
bots:
  - {name: a, python: "bots.flea_greedy:FleaGreedyBot"}
  - {name: b, python: "bots.random_bot:RandomBot"}
  - {name: c, python: "bots.random_bot:RandomBot"}
"""


def test_a_changed_config_under_the_same_name_is_refused_unless_fresh(tmp_path):
    config = load_config(write_config(tmp_path, IN_PROCESS))
    run_tournament(config, tmp_path)
    changed = replace(config, seed=5, rounds=3)
    refused = r"different config \(changed: rounds 2 → 3, seed 4 → 5\); seed cannot change"
    with pytest.raises(TournamentError, match=refused):
        run_tournament(changed, tmp_path)
    summary, store, _ = run_tournament(changed, tmp_path, fresh=True)
    assert summary.played == 18 and len(store.games("ops")) == 18
    # Only concurrency changed: a resume, with nothing left to play.
    summary, _, _ = run_tournament(replace(changed, concurrency=1), tmp_path)
    assert (summary.played, summary.already_done) == (0, 18)


def test_duplicate_deals_share_a_seed_within_a_group_only(tmp_path):
    config = load_config(write_config(tmp_path, IN_PROCESS.replace("players: 2", "players: 3")))
    games = schedule(config)
    groups: dict[int, set[int]] = {}
    for game in games:
        groups.setdefault(game.group, set()).add(game.seed)
    assert all(len(seeds) == 1 for seeds in groups.values())
    assert len({seed for seeds in groups.values() for seed in seeds}) == len(groups) == 2
    # Every rotation of a group puts each bot once in each seat.
    first = [g.seats for g in games if g.group == 0]
    assert first == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    plain = schedule(replace(config, duplicate=False))
    assert len({game.seed for game in plain}) == len(plain)


def test_every_bot_sits_after_every_other_equally_often_over_the_rounds(tmp_path):
    """Rotations alone keep who follows whom; the rounds change it, so a bot seated after
    a strong one (in Flohcati it inherits the display that one left) is not always so."""
    text = IN_PROCESS.replace("players: 2", "players: 4") + \
        '  - {name: d, python: "bots.random_bot:RandomBot"}\n'
    config = replace(load_config(write_config(tmp_path, text)), rounds=6)
    follows: dict[tuple[str, str], int] = {}
    seats: dict[tuple[str, int], int] = {}
    for game in schedule(config):
        for seat, name in enumerate(game.seats):
            follows[name, game.seats[seat - 1]] = follows.get((name, game.seats[seat - 1]), 0) + 1
            seats[name, seat] = seats.get((name, seat), 0) + 1
    assert len(follows) == 12 and set(follows.values()) == {8}  # 24 games, 4 bots, 3 others
    assert len(seats) == 16 and set(seats.values()) == {6}
    assert schedule(config)[0].seats == ("a", "b", "c", "d")


def test_duplicate_seed_depends_only_on_tournament_seed_and_group(tmp_path):
    config = load_config(write_config(tmp_path, IN_PROCESS))
    more_bots = replace(config, bots=config.bots + (replace(config.bots[0], name="d"),))
    assert schedule(config)[0].seed == schedule(more_bots)[0].seed
    assert schedule(config)[0].seed != schedule(replace(config, seed=5))[0].seed


def test_gauntlet_plays_the_challenger_against_every_subset(tmp_path):
    text = IN_PROCESS.replace("players: 2", "players: 3") + \
        '  - {name: d, python: "bots.random_bot:RandomBot"}\n' \
        '  - {name: e, python: "bots.random_bot:RandomBot"}\n' \
        "format: gauntlet\nchallenger: c\n"
    games = schedule(load_config(write_config(tmp_path, text)))
    assert all("c" in game.seats for game in games)
    tables = {frozenset(game.seats) for game in games}
    assert len(tables) == 6 and len(games) == 6 * 3 * 2  # C(4,2) tables, 3 rotations, 2 rounds
    assert sorted(g.seats.index("c") for g in games) == sorted([0, 1, 2] * 12)


def test_gauntlet_needs_a_known_challenger(tmp_path):
    result = CliRunner().invoke(main, ["tournament", str(write_config(
        tmp_path, IN_PROCESS + "format: gauntlet\nchallenger: zed\n"))])
    assert result.exit_code == 2 and "challenger 'zed' is not one of the bots" in result.output


def test_games_per_bot_extends_to_the_fewest_rounds_needed(tmp_path):
    text = IN_PROCESS.replace("rounds: 2\n", "games_per_bot: 10\n")
    config = load_config(write_config(tmp_path, text))
    games = schedule(config)
    per_bot = {name: sum(name in g.seats for g in games) for name in "abc"}
    # One round gives each bot 4 games (2 tables × 2 rotations): 3 rounds reach 10.
    assert per_bot == {"a": 12, "b": 12, "c": 12} and max(g.round for g in games) == 2


def test_export_replays_every_game_to_its_stored_scores(tmp_path):
    config = load_config(write_config(tmp_path, IN_PROCESS))
    run_tournament(config, tmp_path)
    runner = CliRunner()
    for fmt in ("jsonl", "csv"):
        out = tmp_path / f"games.{fmt}"
        result = runner.invoke(main, ["export", "--db", str(tmp_path / "results.sqlite"),
                                      "--format", fmt, "-o", str(out)])
        assert result.exit_code == 0, result.output
        if fmt == "jsonl":
            records = [json.loads(line) for line in out.read_text().splitlines()]
        else:
            import csv
            records = list(csv.DictReader(io.StringIO(out.read_text())))
        assert len(records) == 12
        for record in records:
            scores = record["scores"] if fmt == "jsonl" else json.loads(record["scores"])
            assert replay(replay_record(record)).scores() == scores


@pytest.mark.parametrize("extra", [
    "format: round-robin\nplayers: 3\n",
    "format: gauntlet\nchallenger: c\nplayers: 3\n",
    "format: swiss\nrounds: 3\n",
    "format: ab\na: a\nb: b\nplayers: 3\nrounds: 1\nsprt: {elo0: 0, elo1: 10}\n",
    "games_per_bot: 7\n",
], ids=["round-robin", "gauntlet", "swiss", "ab", "games_per_bot"])
def test_every_format_stores_a_board_that_folds_its_games_at_its_rounds_tables(tmp_path, extra):
    """Issue 40's invariants in every format: the leaderboard is a fold of the stored games,
    and every game sits at a table of its round (a Swiss bot at one table a round)."""
    text = (IN_PROCESS.replace("rounds: 2\n", "" if "rounds" in extra or "games_per"
                               in extra else "rounds: 2\n")
            .replace("players: 2\n", "" if "players" in extra else "players: 2\n")
            + '  - {name: d, python: "bots.random_bot:RandomBot"}\n'
            + '  - {name: e, python: "bots.flea_greedy:FleaGreedyBot"}\n' + extra)
    config = load_config(write_config(tmp_path, text))
    summary, store, _ = run_tournament(config, tmp_path)
    assert summary.played == len(store.games("ops")) > 0
    assert_consistent(store, "ops", config)
