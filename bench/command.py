"""Benchmark 8: the whole ``circus-referee tournament`` command, next to a bare echo.

A two-player Amazing Flea Circus tournament of two random bot processes (sandboxed,
started afresh for the second seat rotation, as by default), run as a user runs it:
the command in a child process, timed from its start to its exit, so the referee's
own imports, the bots' start-up and handshake, every game, and the closing
leaderboard are all in. Its decisions per second (every Decide the store recorded,
over the command's whole time) are set against a bare gRPC unary echo's calls per
second at concurrency 1 (the wire benchmark's echo, with the DecisionRequests of
two-player games), measured between the command's runs.

Goal (issue 16): decisions/s ≥ 0.8× the echo's calls/s for a 600-game tournament.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import grpc
import yaml

from bench.echo_server import echo_call
from bench.report import Section, median, spread
from bench.wire import CHANNEL_OPTIONS, echo, record_requests
from referee.clients import GrpcClient
from tournaments.store import Store

ROOT = Path(__file__).resolve().parent.parent
GOAL_RATIO = 0.8
NAME = "whole-command"


#: The random bot's entry on each transport (the stdio one: bots/stdio/random_bot.py).
RANDOM_BOTS = {"grpc": {"command": "python -m bots.random_bot --address {address}"},
               "stdio": {"command": f"python {ROOT / 'bots' / 'stdio' / 'random_bot.py'}",
                         "transport": "stdio"}}


def config(games: int, transport: str = "grpc", sandbox: bool = True) -> dict:
    return {"name": NAME, "game": "flea-circus", "players": 2, "rounds": max(1, games // 2),
            "seed": 16, "sandbox": sandbox,
            "bots": [{"name": f"random-{letter}", **RANDOM_BOTS[transport]} for letter in "ab"]}


def command() -> list[str]:
    """The installed command, beside this interpreter (else the same through -c)."""
    script = Path(sys.executable).parent / "circus-referee"
    return [str(script)] if script.exists() else \
        [sys.executable, "-c", "from circus_referee.main import main; main()"]


def whole_run(games: int, workdir: Path, transport: str = "grpc", sandbox: bool = True
              ) -> tuple[float, int, int, float]:
    """Seconds from start to exit, decisions and games stored, and the runner's own
    seconds (bots up to the last game stored, from the command's summary line)."""
    folder = Path(tempfile.mkdtemp(dir=workdir))
    (folder / "bots.yaml").write_text(yaml.safe_dump(config(games, transport, sandbox)))
    db = folder / "circus.sqlite"
    began = time.perf_counter()
    done = subprocess.run([*command(), "tournament", str(folder / "bots.yaml"), "--db", str(db),
                           "--logs", str(folder / "logs"), "--quiet"],
                          cwd=ROOT, capture_output=True, text=True, timeout=3600)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(f"the tournament command failed: {done.stderr.strip()[-500:]}")
    found = re.search(r"games played .* in ([0-9.]+)s", done.stderr)
    store = Store(db)
    try:
        stored = store.games(NAME)
    finally:
        store.close()
    return (seconds, sum(len(game.actions) for game in stored), len(stored),
            float(found.group(1)) if found else float("nan"))


def run(bot_address: str, echo_address: str, games: int = 600, repeats: int = 3,
        seconds: float = 2.0, sandbox: bool = True, progress: Callable[[str], None] = print
        ) -> Section:
    """``sandbox``: the bots sandboxed, as by default (a smoke run's not: it proves the
    command runs, and a sandboxed start costs more CPU)."""
    started = time.perf_counter()
    section = Section("command", "8. The whole command: a tournament from start to exit",
                      ["games", "seconds", "decisions", "decisions/s", "echo calls/s",
                       "decisions ÷ echo", "tournament part s", "outside it s",
                       "repeats (dec/s)"])
    client = GrpcClient(bot_address)
    channel = grpc.insecure_channel(echo_address, options=CHANNEL_OPTIONS)
    workdir = Path(tempfile.mkdtemp(prefix="circus-bench-command-"))
    runs, echoes = [], []
    try:
        payloads = record_requests(client, "flea-circus", 2)
        call = echo_call(channel)
        echo(call, payloads, min(0.2, seconds), 1)   # warm up
        for number in range(repeats):
            progress(f"command: {games}-game tournament, round {number + 1}/{repeats}")
            runs.append(whole_run(games, workdir, sandbox=sandbox))
            run_echo = echo(call, payloads, seconds, 1)
            echoes.append(run_echo.calls / run_echo.seconds)
    finally:
        client.close()
        channel.close()
        shutil.rmtree(workdir, ignore_errors=True)
    rates = [decisions / wall for wall, decisions, _, _ in runs]
    ratios = [rate / echo_rate for rate, echo_rate in zip(rates, echoes)]
    middle = sorted(range(len(runs)), key=lambda i: ratios[i])[len(runs) // 2]
    wall, decisions, played, inner = runs[middle]
    section.add(played, wall, decisions, rates[middle], echoes[middle], f"{ratios[middle]:.2f}",
                inner, wall - inner, spread(rates))
    ratio = median(ratios)
    section.figures.update(games=played, seconds=wall, decisions=decisions,
                           decisions_per_s=rates[middle], echo_calls_per_s=echoes[middle],
                           ratio=ratio, tournament_s=inner, outside_s=wall - inner)
    kept = "sandboxed" if sandbox else "unsandboxed"
    section.notes.append(f"two random bot processes, {kept}, started afresh for the second "
                         "seat rotation; `circus-referee tournament --quiet` in a child "
                         "process, timed from its start to its exit (the closing leaderboard "
                         "included); the echo: concurrency 1, the same two-player requests")
    section.notes.append("tournament part: the runner's own time from the command's summary "
                         "line (bots started to last game stored); outside it: the "
                         "interpreter and imports, the store, the closing leaderboard, exit")
    section.notes.append(f"goal: decisions/s ≥ {GOAL_RATIO}× the echo's calls/s — median "
                         f"ratio {ratio:.2f}: {'met' if ratio >= GOAL_RATIO else 'NOT met'}")
    section.seconds = time.perf_counter() - started
    return section
