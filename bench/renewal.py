"""Benchmark 6: what fresh bot processes between rotations cost (issue 22).

The demo tournament (tournaments/demo.yaml: four sandboxed Python bots, three seats,
Flea Circus) run whole, from the first bot start to the last game stored, with the
default protection (``renew_bots: true``: every bot started afresh before each seat
rotation of the duplicate deals, the next processes started while the last games of
a rotation play) and without it (one process per bot for the whole tournament).
Runs alternate, so load drifts hit both alike. The goal: at most 20% fewer games/s.
"""

from __future__ import annotations

import io
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable

import yaml

from bench.report import Section, median, spread
from tournaments.config import parse_config
from tournaments.runner import TournamentRunner
from tournaments.store import Store

ROOT = Path(__file__).resolve().parent.parent
GOAL = 0.20


def demo_config(name: str, renew: bool, rounds: int, bots: int = 4, players: int = 3) -> dict:
    """The demo tournament; ``bots``, ``players``: its first bots at fewer seats (a smoke
    run's: fewer bot starts, every part of the benchmark still run)."""
    data = yaml.safe_load((ROOT / "tournaments" / "demo.yaml").read_text())
    data.update(name=name, renew_bots=renew, rounds=rounds, players=players,
                bots=data["bots"][:bots])
    return data


def games_per_second(renew: bool, rounds: int, workdir: Path, bots: int = 4,
                     players: int = 3) -> tuple[float, int]:
    name = f"renew-{renew}-{time.monotonic_ns()}"
    config = parse_config(demo_config(name, renew, rounds, bots, players))
    store = Store(workdir / f"{name}.sqlite")
    try:
        started = time.perf_counter()
        summary = TournamentRunner(config, store, workdir / "logs" / name, out=io.StringIO(),
                                   quiet=True).run()
        return summary.played / (time.perf_counter() - started), summary.played
    finally:
        store.close()


def run(rounds: int = 10, repeats: int = 3, bots: int = 4, players: int = 3,
        progress: Callable[[str], None] = print) -> Section:
    started = time.perf_counter()
    section = Section("renewal", "6. Duplicate deals without memory: fresh bots per rotation",
                      ["bots", "games", "games/s", "repeats (games/s)"])
    workdir = Path(tempfile.mkdtemp(prefix="circus-bench-renewal-"))
    rates: dict[bool, list[float]] = {True: [], False: []}
    games = 0
    try:
        for number in range(repeats):
            for renew in (True, False):
                progress(f"renewal: renew_bots={renew} round {number + 1}/{repeats}")
                rate, games = games_per_second(renew, rounds, workdir, bots, players)
                rates[renew].append(rate)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for renew, label in ((False, "one process per bot (renew_bots: false)"),
                         (True, "fresh per rotation (default)")):
        section.add(label, games, median(rates[renew]), spread(rates[renew]))
    cost = 1 - median(rates[True]) / median(rates[False])
    section.figures.update(protected_games_per_s=median(rates[True]),
                           unprotected_games_per_s=median(rates[False]), cost=cost)
    section.notes.append(f"goal: the protection costs at most {GOAL:.0%} of the games/s — "
                         f"{cost:.1%}: {'met' if cost <= GOAL else 'NOT met'}")
    section.notes.append(f"timed from the first bot start to the last game stored; {bots} "
                         f"sandboxed Python bots, {players} seats, so {players - 1} renewal(s) "
                         f"of {bots} bots")
    section.seconds = time.perf_counter() - started
    return section
