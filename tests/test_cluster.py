"""Tournaments on a real Dask cluster: a scheduler and worker processes on this machine.

The games a cluster plays must be the games one machine plays (same rows, same
leaderboard), every game stored once even when a worker is killed mid-run, and
no bot process left on a worker afterwards.
"""

from __future__ import annotations

import importlib.util
import io
import re
import signal
import sqlite3
import sys
import threading
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import QUIET_DASK, run_tournament, still_running, write_config
from invariants import assert_consistent

from arena.ladder import Ladder, LadderEntry
from bench.cluster import LocalCluster
from circus_referee.main import main
from referee.process import free_port
from tournaments import cluster
from tournaments.config import ConfigError, load_config
from tournaments.packs import bot_log
from tournaments.runner import TournamentError, TournamentRunner
from tournaments.schedule import schedule
from tournaments.standings import standings
from tournaments.store import Store
from tournaments.worker import Lineup, RunBots, RunSpec

# Looked for, not imported: every worker of the suite collects this file, and importing
# Dask costs half a second of CPU in each.
if importlib.util.find_spec("distributed") is None:
    pytest.skip("Dask distributed is not installed", allow_module_level=True)

FAULT_BOTS = Path(__file__).resolve().parent / "fault_bots.py"

# Three bots, two seats: 3 tables × 2 rotations. Two are processes, each carrying a mark
# in its environment, to find them wherever they run; the third plays in the process that
# plays its game (a worker's, or the referee's). One process per bot and worker
# (renew_bots: false) unless the test is about fresh bots: the games are the same, with a
# third of the bot processes.
CONFIG = """
name: spread
game: flea-circus
players: 2
seed: 7
concurrency: 2
renew_bots: {renew}
sandbox: false   # the cluster is the subject: a sandboxed start costs more CPU, on every worker
secret_deals: false   # the same deals in every store: runs are comparable
# ... game by game, so no timeout may change one: a clock no busy machine spends, and a
# start-up (on every worker at once) no busy machine overruns.
time: {{move_ms: 60000, bank_ms: 60000, startup_ms: 60000}}
bots:
  - name: greedy
    command: python -m bots.flea_greedy --address {{address}}
    env: {{MARK: "{mark}"}}
  - name: random
    python: "bots.random_bot:RandomBot"
  - name: random-b
    command: {bot} --address {{address}}
    env: {{MARK: "{mark}"}}
"""


# CONFIG's tournament with its bots in process: for what the cluster plays (a Swiss's
# pairings, a resume, a changed field), where no bot process is the subject; the tests of
# the workers' bot processes (their starts, logs, and none left behind) run CONFIG.
IN_PROCESS_SPREAD = """
name: spread
game: flea-circus
players: 2
seed: 7
concurrency: 2
secret_deals: false
time: {move_ms: 60000, bank_ms: 60000, startup_ms: 60000}
bots:
  - {name: greedy, python: "bots.flea_greedy:FleaGreedyBot"}
  - {name: random, python: "bots.random_bot:RandomBot"}
  - {name: random-b, python: "bots.random_bot:RandomBot"}
"""


@pytest.fixture(scope="module", autouse=True)
def quiet_dask():
    """The clusters of this module started without Dask's periodic work no test reads."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in QUIET_DASK.items():
            patch.setenv(name, value)
        yield


@pytest.fixture(scope="module")
def shared_cluster(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dask")
    running = LocalCluster(2, 2, folder)
    yield running
    running.close()


@pytest.fixture
def dask_cluster(shared_cluster):
    """The module's cluster, whole (the tests that kill a part of it come last)."""
    assert shared_cluster.scheduler.poll() is None and \
        len(living_workers(shared_cluster)) == 2, \
        "a test that kills a part of the shared cluster ran before this one: put it last"
    return shared_cluster


@pytest.fixture(scope="module")
def spread_on_one_machine(tmp_path_factory) -> Store:
    """CONFIG's games played on this machine, once for the tests that compare a cluster's
    with them or resume them there (the bots' mark is the fixture's own: it is not in the
    games, nor in the config's identity)."""
    folder = tmp_path_factory.mktemp("spread-local")
    return run_tournament(config_file(folder, uuid.uuid4().hex), folder, db="local.sqlite")[1]


@pytest.fixture(scope="module")
def in_process_spread_on_one_machine(tmp_path_factory) -> Store:
    """IN_PROCESS_SPREAD's games played on this machine, once for the tests that resume
    them or change their field."""
    folder = tmp_path_factory.mktemp("in-process-spread-local")
    return run_tournament(write_config(folder, IN_PROCESS_SPREAD), folder,
                          db="local.sqlite")[1]


def marked(mark: str) -> list[int]:
    """The processes whose environment holds MARK=mark (bots of one test, wherever started)."""
    needle = f"MARK={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except (OSError, ValueError):
            continue
    return found


def config_file(folder: Path, mark: str, bot: str = "python -m bots.random_bot",
                extra: str = "", renew: bool = False) -> Path:
    return write_config(folder, CONFIG.format(mark=mark, bot=bot, renew=str(renew).lower())
                        + extra)


def rows(store: Store, name: str) -> list[tuple]:
    return [(g.game_index, g.seed, g.seats, g.scores, g.ranks, g.actions)
            for g in store.games(name)]


def board(store: Store, name: str) -> list[tuple]:
    return [(r.bot, r.mu, r.sigma) for r in standings(store, store.resolve(name))]


@pytest.mark.slow
def test_cluster_plays_the_games_of_one_machine(tmp_path, dask_cluster, spread_on_one_machine):
    mark = uuid.uuid4().hex
    path = config_file(tmp_path, mark, renew=True)
    local = spread_on_one_machine
    db = tmp_path / "cluster.sqlite"
    result = CliRunner().invoke(main, ["tournament", str(path), "--db", str(db), "--logs",
                                       str(tmp_path / "cluster-logs"), "--cluster",
                                       dask_cluster.address])
    assert result.exit_code == 0, result.output
    assert "on 2 worker(s)" in result.output
    remote = Store(db)
    assert len(rows(remote, "spread")) == 6
    assert rows(remote, "spread") == rows(local, "spread")
    assert board(remote, "spread") == board(local, "spread")
    assert_consistent(remote, "spread", load_config(path))
    assert still_running(lambda: marked(mark)) == []
    # Every worker started the bots, and their logs came back into the logs folder.
    folder = tmp_path / "cluster-logs" / "spread"
    assert not (folder / "greedy.log").exists()
    logs = sorted((folder / "workers").glob("*/greedy.log"))
    assert len(logs) == 2 and all(b"listening" in log.read_bytes() for log in logs)
    # Each worker started each bot afresh for each of the two seat rotations,
    # and numbered the two processes in its log.
    assert [re.findall(rb"=== run (\d+) of greedy", log.read_bytes()) for log in logs] \
        == [[b"1", b"2"]] * 2
    # `circus-referee faults` points at them.
    assert bot_log(folder, "greedy") == str(folder / "workers" / "*" / "greedy.log")
    assert remote.identities("spread")["greedy"][0] == "flea-greedy"


@pytest.mark.slow
def test_resume_across_local_and_cluster_runs(tmp_path, dask_cluster,
                                              in_process_spread_on_one_machine):
    """Half the games stored by a local run; the cluster plays the rest as one machine
    would have."""
    path = write_config(tmp_path, IN_PROCESS_SPREAD)
    local = in_process_spread_on_one_machine
    partial = tmp_path / "partial.sqlite"
    local.db.execute("VACUUM INTO ?", (str(partial),))
    with sqlite3.connect(partial) as db:
        db.execute("DELETE FROM faults WHERE game_index >= 2")
        db.execute("DELETE FROM games WHERE game_index >= 2")
        db.execute("UPDATE tournaments SET finished_at = NULL")
    summary, resumed, _ = run_tournament(
        replace(load_config(path), cluster=dask_cluster.address),
        tmp_path, db="partial.sqlite")
    assert (summary.already_done, summary.played) == (2, 4)
    assert rows(resumed, "spread") == rows(local, "spread")
    assert board(resumed, "spread") == board(local, "spread")
    assert_consistent(resumed, "spread", load_config(path))


@pytest.mark.slow
def test_a_swiss_on_the_cluster_pairs_and_rates_as_one_machine(tmp_path, dask_cluster):
    """Rounds paired from the standings by the referee, played by the workers: the same
    tables, games and board as on this machine, and the stored invariants."""
    path = write_config(tmp_path, IN_PROCESS_SPREAD + "format: swiss\nrounds: 3\n")
    _, local, _ = run_tournament(path, tmp_path, db="local.sqlite")
    summary, remote, _ = run_tournament(
        replace(load_config(path), cluster=dask_cluster.address), tmp_path,
        db="cluster.sqlite")
    assert summary.played == 6 and summary.byes == {"greedy": 1, "random": 1, "random-b": 1}
    assert rows(remote, "spread") == rows(local, "spread")
    assert board(remote, "spread") == board(local, "spread")
    assert_consistent(remote, "spread")


def test_a_bot_that_cannot_start_on_the_workers_stops_the_tournament(tmp_path, dask_cluster):
    mark = uuid.uuid4().hex
    path = config_file(tmp_path, mark, bot="./no-such-bot")
    config = load_config(path)
    with pytest.raises(TournamentError, match="bot 'random-b' on worker tcp://127.0.0.1"):
        TournamentRunner(replace(config, cluster=dask_cluster.address),
                         Store(tmp_path / "r.sqlite"), tmp_path / "logs",
                         out=io.StringIO(), quiet=True).run()
    assert Store(tmp_path / "r.sqlite").games("spread") == []
    assert still_running(lambda: marked(mark)) == []


def test_cluster_check_runs_each_bot_on_each_worker(tmp_path, dask_cluster):
    path = write_config(tmp_path, f"""
        name: check
        game: flea-circus
        cluster: {dask_cluster.address}
        bots:
          - {{name: random, command: "python -m bots.random_bot --address {{address}}"}}
          - {{name: broken, command: "python {FAULT_BOTS} out-of-range --address {{address}}"}}
        """)
    result = CliRunner().invoke(main, ["cluster-check", str(path)])
    assert result.exit_code == 1, result.output
    assert "2 worker(s) at" in result.output
    assert result.output.count("PASS  random") == 2
    assert result.output.count("FAIL  broken:") == 2
    assert result.output.count("  limits of a sandboxed bot: memory 1,024 MB") == 2
    listing = CliRunner().invoke(main, ["cluster-check", "--cluster", dask_cluster.address])
    assert listing.exit_code == 0, listing.output
    assert "every worker answered" in listing.output


def test_a_ladder_whose_match_names_a_cluster_plays_there_as_on_one_machine(
        tmp_path, dask_cluster):
    settings = {"seed": 5, "deals": 1, "match": {"concurrency": 1, "secret_deals": False,
                                                 "time": {"move_ms": 600_000}}}
    field = [LadderEntry("g1", "ann", {"python": "bots.flea_greedy:FleaGreedyBot"}),
             LadderEntry("r1", "bob", {"python": "bots.random_bot:RandomBot"})]
    client = cluster.connect(dask_cluster.address, timeout=30)
    try:
        def executed() -> int:
            return sum(client.run(lambda dask_worker: dask_worker.state.executed_count
                                  ).values())

        before = executed()
        there = Ladder(tmp_path / "cluster.sqlite",
                       {**settings, "match": {**settings["match"],
                                              "cluster": dask_cluster.address}})
        for _ in range(3):   # two validations, then a ladder match
            assert there.play_next(field) is not None
        # Each of the six games was a task on the workers.
        assert executed() - before >= 6
    finally:
        client.close()
    here = Ladder(tmp_path / "local.sqlite", settings)
    for _ in range(3):
        here.play_next(field)
    for match in here.records.matches():
        assert rows(there.store, match.tournament) == rows(here.store, match.tournament)
    assert [(row.version, row.mu, row.sigma) for row in there.standings()] == \
        [(row.version, row.mu, row.sigma) for row in here.standings()]


def test_unreachable_scheduler_is_one_line_and_status_2(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_S", 1.0)
    path = config_file(tmp_path, "unused")
    address = f"tcp://127.0.0.1:{free_port()}"
    for args in (["tournament", str(path), "--db", str(tmp_path / "r.sqlite"),
                  "--cluster", address], ["cluster-check", "--cluster", address]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2
        assert result.output.count("\n") == 1
        assert f"cannot reach the Dask scheduler at {address}" in result.output


def test_without_distributed_the_flag_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    path = config_file(tmp_path, "unused")
    result = CliRunner().invoke(main, ["tournament", str(path), "--db",
                                       str(tmp_path / "r.sqlite"), "--cluster",
                                       "tcp://127.0.0.1:1"])
    assert result.exit_code == 2
    assert result.output == ("error: --cluster needs Dask distributed, which is not installed:"
                             " pip install 'circus-referee[cluster]'\n")


def test_cluster_key_is_where_games_run_not_which_games(tmp_path):
    here = load_config(config_file(tmp_path, "unused"))
    there = load_config(config_file(tmp_path, "unused", extra="cluster: tcp://10.0.0.5:8786\n"))
    assert (here.cluster, there.cluster) == (None, "tcp://10.0.0.5:8786")
    # A run may resume on a cluster what it began on one machine, and the other way round.
    assert here.identity() == there.identity()
    with pytest.raises(ConfigError, match="cluster '' is not a scheduler address"):
        load_config(config_file(tmp_path, "unused", extra="cluster: ''\n"))


def test_a_game_is_stored_once_however_often_it_is_added(tmp_path):
    """A game played twice (its worker was lost after it finished) is stored once."""
    config = load_config(write_config(tmp_path, IN_PROCESS))
    _, store, _ = run_tournament(config, tmp_path)
    first = store.games("twice")[0]
    pairing = schedule(config)[first.game_index]
    result = run_one_again(config, pairing)
    assert store.add_game("twice", pairing, result) == first.id
    assert len(store.games("twice")) == len(schedule(config))
    assert store.game(first.id).actions == first.actions


def test_a_run_ended_on_a_worker_starts_no_bot(tmp_path, started):
    """A worker starts the next epoch's bots in the background, and a game still in play
    may ask for a bot (a health check); once the run has ended there (say another worker
    could not start a bot), neither starts one: nothing would stop it."""
    config = load_config(config_file(tmp_path, uuid.uuid4().hex))
    spec = RunSpec(run="ended", config=config)
    lineup = Lineup(spec, 1, tmp_path / "logs")
    lineup.stop()
    assert lineup.participant("greedy") is None
    bots = RunBots(spec, tmp_path / "run-logs")
    bots.close()
    assert bots.participant("greedy", 0) is None
    assert started == []


IN_PROCESS = """
name: twice
game: flea-circus
secret_deals: false
bots:
  - {name: random, python: "bots.random_bot:RandomBot"}
  - {name: random-b, python: "bots.random_bot:RandomBot"}
"""


def run_one_again(config, pairing):
    from referee.clients import InProcessClient, load_python_bot
    from tournaments.worker import new_match

    clients = [InProcessClient(load_python_bot(spec.python)) for spec in config.bots]
    return new_match(config, pairing, clients, threading.Event(), lambda name: True,
                     frozenset(), lambda name: None).play()


@pytest.mark.slow
def test_a_field_changed_by_the_season_command_plays_on_the_cluster_as_on_one_machine(
        tmp_path, dask_cluster, in_process_spread_on_one_machine):
    """A late entrant added with ``season --apply``, its games then
    played by the workers: the same games and board as this machine plays after the same
    change, and the leaderboard a fold of the stored games."""
    for db in ("local.sqlite", "cluster.sqlite"):
        in_process_spread_on_one_machine.db.execute("VACUUM INTO ?", (str(tmp_path / db),))
    bigger = write_config(tmp_path, IN_PROCESS_SPREAD + (
        '  - {name: late, python: "bots.flea_greedy:FleaGreedyBot"}\n'))
    for db in ("local.sqlite", "cluster.sqlite"):
        result = CliRunner().invoke(main, ["season", str(bigger), "--db", str(tmp_path / db),
                                           "--apply"])
        assert result.exit_code == 0 and "add late" in result.output, result.output
    local_summary, local, _ = run_tournament(bigger, tmp_path, db="local.sqlite")
    summary, remote, _ = run_tournament(replace(load_config(bigger),
                                                cluster=dask_cluster.address),
                                        tmp_path, db="cluster.sqlite")
    assert (summary.already_done, summary.played) == (6, 6) == \
        (local_summary.already_done, local_summary.played)
    assert rows(remote, "spread") == rows(local, "spread")
    assert board(remote, "spread") == board(local, "spread")
    assert_consistent(remote, "spread", load_config(bigger))


# -- faults of the cluster (the shared cluster, then fresh ones: the tests kill their parts,
# so they come last in this file) --
# Every game has a or b, and they answer nothing while `held/hold` exists: a test stops the
# tournament in place before it kills a part of the cluster, whatever the machine's speed.
# They are the processes a worker's death takes with it; c plays where its game plays.
SLOW = """
name: slow
game: flea-circus
players: 2
rounds: 2
seed: 3
concurrency: 2
renew_bots: false   # one process per bot and worker: a worker's bots are what is killed
secret_deals: false
time: {{move_ms: 60000, bank_ms: 60000}}   # a held decision costs no bank
bots:
  - name: a
    dir: held
    command: python {bot} slow --sleep-ms 15 --hold hold --address {{address}}
    env: {{MARK: "{mark}"}}
  - name: b
    dir: held
    command: python {bot} slow --sleep-ms 15 --hold hold --address {{address}}
    env: {{MARK: "{mark}"}}
  - name: c
    python: "bots.random_bot:RandomBot"
"""


@pytest.fixture(scope="module")
def slow_on_one_machine(tmp_path_factory) -> Store:
    """SLOW's games played on this machine, once for the tests that compare a cluster's
    with them (the bots' mark is the fixture's own: it is not in the games)."""
    folder = tmp_path_factory.mktemp("slow-local")
    (folder / "held").mkdir()
    path = write_config(folder, SLOW.format(bot=FAULT_BOTS, mark=uuid.uuid4().hex))
    return run_tournament(path, folder, db="local.sqlite")[1]


@pytest.fixture(scope="module")
def expendable_cluster(shared_cluster, tmp_path_factory):
    """Clusters a test kills a part of: the module's own, once no other test needs it whole,
    while it still has what the next test needs (a scheduler, and so many living workers):
    a test that kills a worker leaves the other and the scheduler to the test that kills
    the scheduler; otherwise a fresh one (a cluster's three processes start in seconds of
    CPU)."""
    made: list[LocalCluster] = [shared_cluster]

    def cluster(workers: int) -> LocalCluster:
        if not (made and made[-1].scheduler.poll() is None
                and len(living_workers(made[-1])) >= workers):
            made.append(LocalCluster(workers, 2, tmp_path_factory.mktemp("expendable")))
        return made[-1]

    yield cluster
    for running in made[1:]:
        running.close()


def living_workers(running: LocalCluster) -> list:
    return [worker for worker in running.workers if worker.poll() is None]


def hold_after_a_game(folder: Path, store: Store, name: str) -> None:
    """Wait for a stored game, then hold every bot's decisions (see SLOW): from here on no
    game ends but one whose last reply is already on its way, so most of the 12 stay unplayed.
    """
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not store.done_indices(name):
        time.sleep(0.002)
    (folder / "held" / "hold").touch()


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_no_game(tmp_path, slow_on_one_machine,
                                               expendable_cluster):
    mark = uuid.uuid4().hex
    (tmp_path / "held").mkdir()
    path = write_config(tmp_path, SLOW.format(bot=FAULT_BOTS, mark=mark))
    config = load_config(path)
    local = slow_on_one_machine
    running = expendable_cluster(2)
    store = Store(tmp_path / "cluster.sqlite")
    thread, outcome = run_in_background(config, running, store, tmp_path)
    victim = living_workers(running)[0]
    # Mid-run: some games stored, then every game held, and the victim's bots running.
    hold_after_a_game(tmp_path, store, "slow")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(pid in children(victim.pid)
                                                  for pid in marked(mark)):
        time.sleep(0.05)
    victim.send_signal(signal.SIGKILL)
    assert 0 < len(Store(tmp_path / "cluster.sqlite").done_indices("slow")) < 12
    (tmp_path / "held" / "hold").unlink()
    thread.join(timeout=240)
    assert not thread.is_alive()
    assert outcome["summary"].played == 12
    assert rows(store, "slow") == rows(local, "slow")
    assert board(store, "slow") == board(local, "slow")
    assert_consistent(store, "slow", config)
    assert still_running(lambda: marked(mark)) == []


def run_in_background(config, running: LocalCluster, store: Store, tmp_path: Path
                      ) -> tuple[threading.Thread, dict]:
    """The tournament on the cluster, on a thread: its outcome gets the summary, or the
    TournamentError's message as ``error``."""
    runner = TournamentRunner(replace(config, cluster=running.address),
                              store, tmp_path / "logs", out=io.StringIO(), quiet=True)
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["summary"] = runner.run()
        except TournamentError as error:
            outcome["error"] = str(error)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def children(pid: int) -> set[int]:
    """Every descendant of ``pid``."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        try:
            parents[int(entry.name)] = int(
                (entry / "stat").read_text().rsplit(") ", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


@pytest.mark.slow
def test_a_lost_scheduler_stops_the_referee_with_a_resume_hint(tmp_path, slow_on_one_machine,
                                                               expendable_cluster):
    mark = uuid.uuid4().hex
    (tmp_path / "held").mkdir()
    path = write_config(tmp_path, SLOW.format(bot=FAULT_BOTS, mark=mark))
    config = load_config(path)
    running = expendable_cluster(1)
    store = Store(tmp_path / "cluster.sqlite")
    thread, outcome = run_in_background(config, running, store, tmp_path)
    hold_after_a_game(tmp_path, store, "slow")
    running.scheduler.send_signal(signal.SIGKILL)
    thread.join(timeout=120)
    assert not thread.is_alive()
    (tmp_path / "held" / "hold").unlink()
    stored = len(store.games("slow"))
    assert 0 < stored < 12
    assert f"the cluster at {running.address} was lost" in outcome["error"]
    assert f"{stored} of 12 games are stored" in outcome["error"]
    assert "run the same command again to resume" in outcome["error"]
    # The workers leave with their scheduler, and their bots with them.
    assert still_running(lambda: marked(mark)) == []
    # And the rest plays on this machine, as one run would have.
    summary, _, _ = run_tournament(config, tmp_path, db="cluster.sqlite")
    assert summary.already_done == stored
    assert rows(store, "slow") == rows(slow_on_one_machine, "slow")
    assert_consistent(store, "slow", config)
