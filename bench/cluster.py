"""Benchmark 7: games per second on a Dask cluster of 1, 2 and 4 workers (issue 17).

A real ``dask scheduler`` and ``dask worker`` processes on this machine, each
worker with ``concurrency`` threads, play a tournament of sandboxed bots that
sleep 20 ms before every decision (bench/sleepy_bot.py): waiting for bots, not
the machine's cores, is then what limits one worker, as it is for bots that
think. Each worker starts each bot once (``renew_bots: false``): what fresh bots
per rotation cost is benchmark 6's. Timed while games play (the first game's
start to the last game's end) and over the whole run (from the runner's start,
every worker starting every bot, to the last game stored); the cluster's own
start is not timed. The same tournament on this machine is the reference.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Callable

from bench.report import Section
from tournaments.cluster import connect
from tournaments.config import parse_config
from tournaments.runner import TournamentRunner
from tournaments.store import Store

ROOT = Path(__file__).resolve().parent
SLEEPY = ROOT / "sleepy_bot.py"
WORKERS = (1, 2, 4)
SLEEP_MS = 20
CONCURRENCY = 2


class LocalCluster:
    """A `dask scheduler` and ``workers`` `dask worker` processes on this machine, each in a
    process group of its own and logging to ``folder``; closed by killing them.

    Workers run without a nanny, so a worker killed (by a test) stays dead."""

    def __init__(self, workers: int, threads: int, folder: Path) -> None:
        self.folder = folder
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.address = f"tcp://127.0.0.1:{port}"
        dask = str(Path(sys.executable).with_name("dask"))
        self.processes: list[subprocess.Popen] = []
        self.scheduler = self._spawn("scheduler", [
            dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"])
        self.workers = [self._spawn(f"worker-{number}", [
            dask, "worker", self.address, "--nworkers", "1", "--nthreads", str(threads),
            "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
            "--local-directory", str(folder / f"worker-{number}")])
            for number in range(workers)]
        client = connect(self.address, timeout=60)
        try:
            client.wait_for_workers(workers, timeout=120)
        finally:
            client.close()

    def _spawn(self, name: str, argv: list[str]) -> subprocess.Popen:
        with open(self.folder / f"{name}.log", "wb") as log:
            process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        self.processes.append(process)
        return process

    def close(self) -> None:
        for process in self.processes:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()


def config(name: str, rounds: int, cluster: str | None, sleep_ms: int = SLEEP_MS,
           bots: int = 4, sandbox: bool = True) -> dict:
    bot = f"python {SLEEPY} --sleep-ms {sleep_ms} --address {{address}}"
    return {"name": name, "game": "flea-circus", "players": 3, "rounds": rounds, "seed": 17,
            "concurrency": CONCURRENCY, "cluster": cluster,
            # One process per bot and worker: bot start-ups, which cost CPU and not
            # waiting, are benchmark 6's subject (renewal), not this one's.
            "renew_bots": False, "sandbox": sandbox,
            "bots": [{"name": f"sleepy-{letter}", "command": bot} for letter in "abcd"[:bots]]}


def games_per_second(rounds: int, cluster: str | None, workdir: Path,
                     sleep_ms: int = SLEEP_MS, bots: int = 4, sandbox: bool = True
                     ) -> tuple[float, float, int]:
    """Games per second while games play (first game's start to last game's end), the
    same over the whole run (the bots' first start included), and the games played."""
    name = f"cluster-{time.monotonic_ns()}"
    store = Store(workdir / f"{name}.sqlite")
    try:
        started = time.perf_counter()
        summary = TournamentRunner(parse_config(config(name, rounds, cluster, sleep_ms, bots,
                                                             sandbox)),
                                   store, workdir / "logs" / name, out=io.StringIO(),
                                   quiet=True).run()
        whole = summary.played / (time.perf_counter() - started)
        games = store.games(name)
        playing = (max(datetime.fromisoformat(game.finished_at) for game in games)
                   - min(datetime.fromisoformat(game.started_at) for game in games))
        return summary.played / playing.total_seconds(), whole, summary.played
    finally:
        store.close()


def run(rounds: int = 4, workers: tuple[int, ...] = WORKERS, sleep_ms: int = SLEEP_MS,
        bots: int = 4, sandbox: bool = True, progress: Callable[[str], None] = print
        ) -> Section:
    """``sleep_ms``: each bot's sleep a decision, ``bots``: how many of them, ``sandbox``:
    whether they are sandboxed (a smoke run's shorter, fewer and unsandboxed: its one
    cluster size compares nothing)."""
    started = time.perf_counter()
    section = Section("cluster", "9. A tournament on a Dask cluster of several workers",
                      ["where", "games", "games/s playing", "× the fewest workers",
                       "games/s, whole run"])
    workdir = Path(tempfile.mkdtemp(prefix="circus-bench-cluster-"))
    try:
        progress("cluster: this machine, no cluster")
        local, local_whole, games = games_per_second(rounds, None, workdir, sleep_ms, bots,
                                                     sandbox)
        rates: dict[int, tuple[float, float]] = {}
        for count in workers:
            progress(f"cluster: {count} worker(s)")
            running = LocalCluster(count, CONCURRENCY, workdir)
            try:
                rate, whole, games = games_per_second(rounds, running.address, workdir,
                                                      sleep_ms, bots, sandbox)
                rates[count] = (rate, whole)
            finally:
                running.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    section.add("this machine, no cluster", games, local, float("nan"), local_whole)
    for count, (rate, whole) in rates.items():
        section.add(f"{count} worker(s)", games, rate, rate / rates[workers[0]][0], whole)
        section.figures[f"workers_{count}_games_per_s"] = rate
        section.figures[f"workers_{count}_whole_run_games_per_s"] = whole
    section.figures["local_games_per_s"] = local
    growing = all(rates[a][0] < rates[b][0] for a, b in zip(workers, workers[1:]))
    verdict = ("not measured (one cluster size)" if len(workers) < 2
               else "met" if growing else "NOT met")
    section.notes.append(f"goal: games/s grows with the workers — {verdict}")
    kept = "sandboxed" if sandbox else "unsandboxed"
    section.notes.append(f"{bots} {kept} bots sleeping {sleep_ms} ms per decision, 3 seats, "
                         f"{CONCURRENCY} games at once per worker (and on this machine), one "
                         "process per bot on every worker (renew_bots: false). \"playing\": "
                         "from the "
                         "first game's start to the last game's end; \"whole run\": from the "
                         "runner's start (every worker starting every bot) to the last game "
                         "stored")
    section.seconds = time.perf_counter() - started
    return section
