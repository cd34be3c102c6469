"""Misbehaving bots in real tournaments: every fault classified, every game scored.

Each test runs a tournament of one fault-injection bot (tests/fault_bots.py), a gRPC
process started by ``command:``, and good bots (in process unless their wire is tested
too), and checks the fault class, the policy's effect on the results, and that no
process is left.
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import assert_no_process_left, interrupted_run, run_tournament, write_config
from invariants import assert_consistent

from circus_referee.main import main
from referee.limits import hierarchy
from tournaments.config import load_config
from tournaments.runner import TournamentError
from tournaments.schedule import schedule
from tournaments.standings import standings
from tournaments.store import Store
from tournaments.worker import GameTask, RunSpec, epoch_of, finish_run, play_game

FAULT_BOTS = Path(__file__).resolve().parent / "fault_bots.py"


#: The bad bot's bank unless its test is about the bank: one no busy machine spends, so a
#: bad bot that answers (its fault an illegal reply, a crash later on) never times out.
BANK_MS = 30000
#: One process of the bad bot for a test's games, where its faults or its time are the
#: subject and fresh processes each rotation are not (each start costs CPU, not waiting).
ONE_PROCESS = "renew_bots: false"
#: The good bots: in process unless a test is about their wire too.
GOOD_IN_PROCESS = "python: bots.random_bot:RandomBot"
GOOD_PROCESS = "command: python -m bots.random_bot --address {address}"


def config_text(mode: str, players: int = 3, extra: str = "", bad_args: str = "",
                concurrency: int = 3, startup_ms: int = 60000, bank_ms: int = BANK_MS,
                good: str = GOOD_IN_PROCESS) -> str:
    """The bad bot, a gRPC process on a tight move time of its own (100 ms, and ``bank_ms``);
    the good bots in process unless ``good`` says otherwise (the wire is the bad bot's
    subject: a good bot's process would cost CPU only), on a clock no busy machine spends;
    a start-up no busy machine overruns. Every fault is then the bad bot's at any speed."""
    return f"""
name: faults
game: flea-circus
players: {players}
seed: 3
concurrency: {concurrency}
time: {{move_ms: 5000, bank_ms: 30000, call_ms: 5000, startup_ms: {startup_ms}}}
{extra}
bots:
  - name: bad
    command: {sys.executable} {FAULT_BOTS} {mode} --address {{address}} {bad_args}
    time: {{move_ms: 100, bank_ms: {bank_ms}, grace_ms: 100, call_ms: 2000}}
  - name: good-1
    {good}
  - name: good-2
    {good}
"""


def run(tmp_path, text: str, **options):
    summary, store, out = run_tournament(write_config(tmp_path, text), tmp_path, **options)
    games = store.games("faults")
    faults = list(store.faults("faults"))
    return summary, store, games, faults


def bad_ranks(games) -> list[int]:
    return [game.ranks[game.seats.index("bad")] for game in games]


@pytest.mark.parametrize("mode, fault_class, detail", [
    ("hang", "timeout", "DEADLINE_EXCEEDED"),
    ("out-of-range", "illegal", "out of range"),
    ("stale", "illegal", "stale decision_id"),
    ("raise", "error", "RuntimeError: the bot's handler failed"),
    ("oversize", "illegal", "RESOURCE_EXHAUSTED"),
    ("garbage", "illegal", "serializ"),
])
def test_substituted_faults_strike_out_and_forfeit(tmp_path, started, mode, fault_class, detail):
    # A small bank for the hung bot (it spends it anyway); a big one for a bot that answers.
    bank = 300 if mode == "hang" else BANK_MS
    summary, store, games, faults = run(tmp_path, config_text(mode, bank_ms=bank,
                                                              extra=ONE_PROCESS))
    assert summary.played == len(games) == 3
    classes = {f["class"] for f in faults if f["bot"] == "bad"}
    assert classes == {fault_class}
    assert detail in faults[0]["detail"]
    # Three strikes per game, the third turning into a forfeit; the good bots are clean.
    # (A hung bot's busy server may also miss EndGame: recorded, but "ignored".)
    per_game = [[f["policy"] for f in faults
                 if f["game_index"] == g.game_index and f["policy"] != "ignored"]
                for g in games]
    assert all(policies == ["substitute", "substitute", "forfeit"] for policies in per_game)
    assert {f["bot"] for f in faults} == {"bad"}
    assert all(game.status == "forfeit" for game in games)
    assert bad_ranks(games) == [3, 3, 3]
    board = {row.bot: row for row in standings(store, store.resolve("faults"))}
    assert board["bad"].rank == 3 and board["bad"].wins == 0 and board["bad"].games == 3
    assert_no_process_left(started)


def test_a_bot_using_part_of_its_bank_is_not_penalised(tmp_path, started):
    text = config_text("slow", bad_args="--sleep-ms 130", bank_ms=20000, extra=ONE_PROCESS)
    summary, store, games, faults = run(tmp_path, text)
    assert faults == [] and all(game.status == "finished" for game in games)
    # Its decisions really took longer than move_ms: the bank paid for them.
    slow = [ms for game in games for seat, _, ms in game.times if game.seats[seat] == "bad"]
    assert slow and min(slow) > 100
    # ... and the time-use report puts it first.
    report = CliRunner().invoke(main, ["times", "--db", str(tmp_path / "results.sqlite")])
    lines = report.output.splitlines()
    assert lines[2].split()[:2] == ["bad", "grpc"] and float(lines[2].split()[3]) > 100
    assert_no_process_left(started)


def test_a_bot_whose_bank_runs_out_times_out(tmp_path, started):
    text = config_text("slow", bad_args="--sleep-ms 400", bank_ms=1500, extra=ONE_PROCESS)
    summary, store, games, faults = run(tmp_path, text)
    assert faults and {f["class"] for f in faults} == {"timeout"}
    assert "time bank exhausted" in faults[0]["detail"] or "DEADLINE" in faults[0]["detail"]
    # 300 ms over move_ms a decision: the 1.5 s bank lasts about five decisions, and at
    # least two even on a machine so busy that it adds 300 ms to each.
    first = min(f["decision_id"] for f in faults if f["game_index"] == 0)
    own = [d for seat, d, _ in games[0].times if games[0].seats[seat] == "bad"]
    assert own.index(first) >= 2
    assert_no_process_left(started)


@pytest.mark.parametrize("mode, args", [("exit", ""), ("linger", "--sleep-ms 1000")])
def test_a_crashed_bot_forfeits_and_is_restarted_for_later_games(tmp_path, started, mode, args):
    """``linger``: the dying bot's connections drop a second before its process ends; the
    next game waits for it to end and restarts it, rather than calling the dead bot."""
    # One process per bot unless it crashes: the restart counted here is the crash's.
    summary, store, games, faults = run(tmp_path, config_text(mode, concurrency=1, bad_args=args,
                                                              extra="renew_bots: false"))
    assert [f["class"] for f in faults] == ["crash"] and faults[0]["policy"] == "forfeit"
    assert [g.status for g in games] == ["forfeit", "finished", "finished"]
    assert bad_ranks(games)[0] == 3
    assert len(started) == 2  # the bad bot (the good ones are in process), and once more
    log = (tmp_path / "logs" / "faults" / "bad.log").read_text()
    assert "=== run 1" in log and "=== run 2" in log
    assert_no_process_left(started)


def test_a_cluster_worker_also_waits_for_a_crashed_bot_and_restarts_it(tmp_path, started):
    """The worker's own path (``play_game``, run here in process as a Dask worker runs it):
    after ``linger``'s crash the next game waits for the process to end and restarts it."""
    config = load_config(write_config(tmp_path, config_text(
        "linger", concurrency=1, bad_args="--sleep-ms 1000", extra="renew_bots: false")))
    spec = RunSpec(run=f"linger-{uuid.uuid4().hex}", config=config)
    try:
        results = [play_game(GameTask(spec, pairing, epoch_of(config, pairing)))
                   for pairing in schedule(config)]
    finally:
        logs = finish_run(spec.run)
    assert [[f.fault_class for f in r.faults] for r in results] == [["crash"], [], []]
    assert [r.status for r in results] == ["forfeit", "finished", "finished"]
    assert b"=== run 2" in logs["bad.log"]
    assert_no_process_left(started)


def test_void_policy_records_the_game_but_does_not_rate_it(tmp_path, started):
    text = config_text("out-of-range", extra=f"faults: {{illegal: void}}\n{ONE_PROCESS}")
    summary, store, games, faults = run(tmp_path, text)
    assert all(game.status == "void" for game in games) and len(games) == 3
    board = {row.bot: row for row in standings(store, store.resolve("faults"))}
    assert all(row.games == 0 and row.mu == 25.0 for row in board.values())
    assert_no_process_left(started)


def test_forfeit_policy_forfeits_on_the_first_fault(tmp_path, started):
    text = config_text("out-of-range", extra=f"faults: {{illegal: forfeit}}\n{ONE_PROCESS}")
    summary, store, games, faults = run(tmp_path, text)
    assert len(faults) == 3 and {f["policy"] for f in faults} == {"forfeit"}
    assert bad_ranks(games) == [3, 3, 3]
    assert_no_process_left(started)


@pytest.mark.parametrize("mode, message, startup_ms", [
    # Only the silent bot waits out its start-up time: keep it short. The others answer,
    # so give them time enough for a busy machine.
    ("no-port", "did not answer on unix:", 1500),
    ("wrong-version", "speaks protocol 2.0.0, the referee speaks 1.1.0", 30000),
    ("no-game", "does not play flea-circus (variant standard); it claims no game", 30000),
])
def test_bots_that_cannot_play_stop_the_tournament_before_it_starts(tmp_path, started, mode,
                                                                    message, startup_ms):
    with pytest.raises(TournamentError, match="did not start") as error:
        run(tmp_path, config_text(mode, startup_ms=startup_ms))
    assert message in str(error.value) and "bot 'bad'" in str(error.value)
    assert_no_process_left(started)


def test_skip_bad_bots_plays_without_them(tmp_path, started):
    summary, store, games, faults = run(tmp_path, config_text("wrong-version", players=2),
                                        skip_bad_bots=True)
    assert summary.skipped_bots == ["bad"]
    assert [g.seats for g in games] == [["good-1", "good-2"], ["good-2", "good-1"]]
    assert_consistent(store, "faults", load_config(tmp_path / "bots.yaml"))
    assert_no_process_left(started)


def test_a_bot_over_its_memory_limit_fails_its_decisions(tmp_path, started):
    text = config_text("hog", bad_args="--sleep-ms 600",
                       extra=f"limits: {{memory_mb: 300}}\n{ONE_PROCESS}")
    summary, store, games, faults = run(tmp_path, text)
    assert len(games) == 3 and {f["class"] for f in faults} == {"error"}
    assert "MemoryError" in faults[0]["detail"]
    assert "MemoryError" in (tmp_path / "logs" / "faults" / "bad.log").read_text()
    assert_no_process_left(started)


def test_a_bot_over_its_sandbox_s_memory_is_stopped_and_the_fault_says_so(tmp_path, started):
    """Shared memory escapes RLIMIT_DATA: the sandbox's memory cgroup stops the bot, and its
    crash says why (docs/protocol.md, "Limits and what enforces them")."""
    if "memory" not in hierarchy().held:
        pytest.skip("no memory cgroup here: " + "; ".join(hierarchy().problems))
    text = config_text("shared-hog", bad_args="--sleep-ms 400",
                       extra=f"limits: {{memory_mb: 200}}\n{ONE_PROCESS}")
    summary, store, games, faults = run(tmp_path, text)
    assert faults and {f["class"] for f in faults} == {"crash"}, faults
    assert all("killed by SIGKILL: out of memory" in f["detail"] for f in faults), faults
    assert_no_process_left(started)


def test_a_hanging_bot_spends_its_bank_and_then_waits_only_move_time(tmp_path, started):
    """The waits are told apart by the bank, a second: the referee waits each limit (to
    within 50 ms: the deadline is gRPC's, on its own clock), and a busy machine may add to
    a wait, but not a second bank's worth."""
    summary, store, games, faults = run(tmp_path, config_text("hang", bank_ms=1000,
                                                              extra=ONE_PROCESS))
    game = games[0]
    waits = [ms for seat, _, ms in game.times if game.seats[seat] == "bad"]
    # First wait: move 100 + bank 1000 + grace 100; then the bank is empty: 100 + 100.
    assert len(waits) == 3
    assert 1150 <= waits[0] < 1200 + 1000 and all(150 <= ms < 1200 for ms in waits[1:])
    assert_no_process_left(started)


def test_the_closing_line_counts_the_faults_of_every_run(tmp_path):
    path = write_config(tmp_path, config_text("out-of-range", players=2, concurrency=1,
                                              extra=ONE_PROCESS))
    interrupted_run(load_config(path), tmp_path, 2)
    store = Store(tmp_path / "results.sqlite")
    before = len(list(store.faults("faults")))
    assert before > 0   # the first two games are bad's
    result = CliRunner().invoke(main, ["tournament", str(path), "--db",
                                       str(tmp_path / "results.sqlite"), "--logs",
                                       str(tmp_path / "logs"), "--quiet"])
    assert result.exit_code == 0, result.output
    every = len(list(store.faults("faults")))
    assert {f["class"] for f in store.faults("faults")} == {"illegal"}
    assert ("4 games played (2 already stored) of 6 in" in result.output
            and f"; faults: {every} illegal ({every - before} illegal in this run);"
            in result.output), result.output
