"""Benchmark 3: tournament throughput with gRPC bots as concurrency grows, and memory.

Whole tournaments through :class:`tournaments.runner.TournamentRunner` (SQLite store,
live TrueSkill, progress) against already running random bot processes (``address:``
bots, so starting them is not timed). Games/s and CPU seconds are counted from the moment
the bots are connected to the end. Peak RSS is the referee's own (``ru_maxrss`` of a
subprocess running ``circus-referee tournament``), at concurrency 1 and 16.
"""

from __future__ import annotations

import io
import math
import shutil
import tempfile
import time
from pathlib import Path

from bench import rss_probe
from bench.report import Section, median, spread
from tournaments.config import parse_config
from tournaments.runner import TournamentRunner
from tournaments.store import Store

RSS_GOAL_MB = 150


def config_data(name: str, addresses: list[str], game: str, players: int, games: int,
                concurrency: int) -> dict:
    bots = [{"name": f"random{number}", "address": address}
            for number, address in enumerate(addresses)]
    tables = math.comb(len(bots), players)
    return {"name": name, "game": game, "players": players, "seed": 7,
            "rounds": max(1, math.ceil(games / (tables * players))),
            "concurrency": concurrency, "bots": bots}


class TimedRunner(TournamentRunner):
    """A runner that notes when its bots are connected."""

    bots_ready = 0.0
    cpu_ready = 0.0

    def _start_bots(self, needed: set[str], epoch: int) -> list[str]:
        skipped = super()._start_bots(needed, epoch)
        self.bots_ready, self.cpu_ready = time.perf_counter(), time.process_time()
        return skipped


def tournament(addresses: list[str], game: str, players: int, games: int,
               concurrency: int, workdir: Path) -> dict[str, float]:
    name = f"scaling-c{concurrency}-{time.monotonic_ns()}"
    config = parse_config(config_data(name, addresses, game, players, games, concurrency))
    store = Store(workdir / f"{name}.sqlite")
    try:
        runner = TimedRunner(config, store, workdir / "logs", out=io.StringIO(), quiet=True)
        summary = runner.run()
        wall = time.perf_counter() - runner.bots_ready
        cpu = time.process_time() - runner.cpu_ready
        decisions = sum(len(game.actions) for game in store.games(name))
    finally:
        store.close()
    return {"games": summary.played, "decisions": decisions, "seconds": wall, "cpu": cpu,
            "faults": sum(summary.faults.values())}


def peak_rss(addresses: list[str], game: str, players: int, games: int, concurrency: int,
             workdir: Path) -> dict:
    """Run ``circus-referee tournament`` in a subprocess and return its ru_maxrss."""
    name = f"rss-c{concurrency}"
    return rss_probe.measure(name, config_data(name, addresses, game, players, games,
                                               concurrency), workdir, timeout_s=1800)


def run(addresses: list[str], game: str = "flea-circus", players: int = 4,
        concurrencies: tuple[int, ...] = (1, 2, 4, 8), games: int = 200, repeats: int = 2,
        rss_concurrencies: tuple[int, ...] = (1, 16), rss_games: int = 320,
        progress=None) -> Section:
    started = time.perf_counter()
    section = Section(
        "scaling", "3. Concurrency scaling: tournaments with gRPC bots",
        ["concurrency", "games/s", "decisions/s", "referee CPU µs/decision",
         "referee CPU use (cores)", "speed-up vs 1", "repeats (games/s)"])
    workdir = Path(tempfile.mkdtemp(prefix="circus-bench-scaling-"))
    try:
        return _run(section, workdir, addresses, game, players, concurrencies, games, repeats,
                    rss_concurrencies, rss_games, progress, started)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _run(section, workdir, addresses, game, players, concurrencies, games, repeats,
         rss_concurrencies, rss_games, progress, started) -> Section:
    results: dict[int, list[dict]] = {c: [] for c in concurrencies}
    for round_number in range(repeats):
        for concurrency in concurrencies:
            if progress:
                progress(f"scaling: concurrency {concurrency} round {round_number + 1}/{repeats}")
            results[concurrency].append(
                tournament(addresses, game, players, games, concurrency, workdir))
    base = None
    faults = 0
    for concurrency in concurrencies:
        runs = results[concurrency]
        faults += sum(r["faults"] for r in runs)
        rate = median(r["games"] / r["seconds"] for r in runs)
        decision_rate = median(r["decisions"] / r["seconds"] for r in runs)
        cpu_us = median(1e6 * r["cpu"] / r["decisions"] for r in runs)
        cores = median(r["cpu"] / r["seconds"] for r in runs)
        base = base or rate
        section.add(concurrency, rate, decision_rate, cpu_us, cores, f"{rate / base:.2f}×",
                    spread(r["games"] / r["seconds"] for r in runs))
        section.figures[f"c{concurrency}.games_per_s"] = rate
        section.figures[f"c{concurrency}.decisions_per_s"] = decision_rate
        section.figures[f"c{concurrency}.cpu_us_per_decision"] = cpu_us
    played = results[concurrencies[0]][0]["games"]
    section.notes.append(
        f"{game}, {players} seats, {len(addresses)} random bot processes (address: bots), "
        f"{played} games per run, median of {repeats}; the referee's CPU time is this "
        "process's (all its threads), the bots' is not in it")
    for concurrency in rss_concurrencies:
        if progress:
            progress(f"scaling: peak RSS at concurrency {concurrency}")
        probe = peak_rss(addresses, game, players, rss_games, concurrency, workdir)
        section.figures[f"rss_c{concurrency}_mb"] = probe["maxrss_mb"]
        section.notes.append(
            f"referee peak RSS at concurrency {concurrency}: {probe['maxrss_mb']:.1f} MB "
            f"({probe['games']} games of `circus-referee tournament` in a subprocess)")
    top = max(rss_concurrencies)
    if f"rss_c{top}_mb" in section.figures:
        value = section.figures[f"rss_c{top}_mb"]
        verdict = "met" if value <= RSS_GOAL_MB else "NOT met"
        section.notes.append(f"goal: peak RSS ≤ {RSS_GOAL_MB} MB at concurrency {top} — "
                             f"{value:.1f} MB: {verdict}")
    if faults:
        section.notes.append(f"{faults} fault(s) during the runs: the figures are suspect")
    section.seconds = time.perf_counter() - started
    return section
