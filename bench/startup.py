"""Benchmark 7: bot start-up, the first thing a tournament waits for (issue 16).

The demo's four Python bots (tournaments/demo.yaml, sandboxed, unix sockets) started
and greeted all at once, as the runner starts them (``TournamentRunner._started``:
process, sandbox, the channel ready, Hello, the game checked), from the first start
to the last Hello answered. The same starts with gRPC's default reconnect backoff (a
first retry a second after a failed connect) run interleaved, to show what the
referee's short backoff saves. For the floor: the CPU time one bot's interpreter
spends importing the SDK (gRPC, protobuf, the messages), measured in a child process;
four of them share the machine's cores.

Goal: every bot started and greeted within 0.5 s for 4 Python bots.
"""

from __future__ import annotations

import io
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import yaml

from bench.report import Section, median, spread
from referee import clients
from tournaments.config import parse_config
from tournaments.runner import TournamentRunner
from tournaments.store import Store

ROOT = Path(__file__).resolve().parent.parent
GOAL_S = 0.5
#: gRPC's own reconnect backoff (its defaults), for the side-by-side run.
GRPC_DEFAULT_MS = (1000, 120_000)


def start_all(runner: TournamentRunner) -> float:
    """Seconds to start and greet every bot of the runner's config at once."""
    began = time.perf_counter()
    started = runner._started(list(runner.config.bots))
    seconds = time.perf_counter() - began
    failed = [error for _, error in started if error is not None]
    for participant, _ in started:
        participant.stop()
    if failed:
        raise RuntimeError(failed[0])
    return seconds


def import_cpu_s() -> float:
    """CPU seconds of a child interpreter that imports a whole SDK bot and exits."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", "import bots.random_bot"], cwd=ROOT, check=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run(repeats: int = 3, progress: Callable[[str], None] = print) -> Section:
    started = time.perf_counter()
    section = Section("startup", "7. Bot start-up: four Python bots started and greeted",
                      ["reconnect backoff", "bots", "start + Hello, all at once (s)",
                       "repeats (s)"])
    data = yaml.safe_load((ROOT / "tournaments" / "demo.yaml").read_text())
    config = parse_config(data)
    workdir = Path(tempfile.mkdtemp(prefix="circus-bench-startup-"))
    times: dict[str, list[float]] = {"referee's": [], "gRPC default": []}
    ours = clients.RECONNECT_MS
    try:
        store = Store(workdir / "startup.sqlite")
        runner = TournamentRunner(config, store, workdir / "logs", out=io.StringIO(),
                                  quiet=True)
        try:
            for number in range(repeats):
                for label, backoff in (("referee's", ours), ("gRPC default", GRPC_DEFAULT_MS)):
                    progress(f"startup: {label} backoff, round {number + 1}/{repeats}")
                    clients.RECONNECT_MS = backoff
                    try:
                        times[label].append(start_all(runner))
                    finally:
                        clients.RECONNECT_MS = ours
        finally:
            store.close()
        imports = [import_cpu_s() for _ in range(repeats)]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    bots = len(config.bots)
    for label, values in times.items():
        first, most = ours if label == "referee's" else GRPC_DEFAULT_MS
        section.add(f"{label} ({first:,}–{most:,} ms)", bots, median(values),
                    spread([value * 1000 for value in values]).replace("–", " – ") + " ms"
                    if len(values) > 1 else "–")
    seconds = median(times["referee's"])
    section.figures.update(start_s=seconds, grpc_default_start_s=median(times["gRPC default"]),
                           import_cpu_s=median(imports), bots=bots,
                           cpus=os.cpu_count() or 1)
    floor = bots * median(imports) / max(1, min(bots, os.cpu_count() or 1))
    section.notes.append(f"goal: {bots} Python bots started and greeted within {GOAL_S} s — "
                         f"{seconds:.2f} s: {'met' if seconds < GOAL_S else 'NOT met'}")
    section.notes.append(f"one bot's interpreter importing the SDK (gRPC, protobuf, messages): "
                         f"{median(imports) * 1000:.0f} ms of CPU; {bots} of them on "
                         f"{os.cpu_count()} cores cannot take less than about {floor:.2f} s")
    section.seconds = time.perf_counter() - started
    return section
