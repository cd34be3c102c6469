"""Benchmark 12: the referee's memory is flat in the number of games.

In-process bots as in the big in-process tournament (:mod:`bench.tournament`), five of
them (3 random, 2 greedy) so that a round is 20 games (5 tables × 4 seat rotations) and
100,000 games, the most a schedule may have, are whole rounds; Amazing Flea Circus at 4
seats, run by ``circus-referee tournament`` in a subprocess (:mod:`bench.rss_probe`), closing leaderboard included, at a small and a
large number of games; each run's peak RSS (``ru_maxrss``).

Goal (issue 16): 100,000 in-process games with a peak RSS within 20% of a 1,000-game run.
"""

from __future__ import annotations

import math
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable

from bench import rss_probe
from bench.report import Section

#: The large run's peak RSS may exceed the small one's by at most this share.
GOAL_GROWTH = 0.20
BOTS = {**{f"random{i}": "bots.random_bot:RandomBot" for i in range(3)},
        **{f"greedy{i}": "bots.flea_greedy:FleaGreedyBot" for i in range(2)}}
#: 5 tables of 4 among 5 bots, each in 4 seat rotations.
GAMES_PER_ROUND = 20


def config_data(name: str, games: int) -> dict:
    return {"name": name, "game": "flea-circus", "players": 4, "seed": 2024,
            "rounds": max(1, math.ceil(games / GAMES_PER_ROUND)), "concurrency": 1,
            "bots": [{"name": bot, "python": target} for bot, target in BOTS.items()]}


def peak_rss(games: int, workdir: Path) -> dict:
    """``circus-referee tournament`` of about ``games`` games in a subprocess: its
    ru_maxrss (MB), games stored and seconds."""
    name = f"memory-{games}"
    started = time.perf_counter()
    probe = rss_probe.measure(name, config_data(name, games), workdir, timeout_s=7200)
    return {**probe, "seconds": time.perf_counter() - started}


def run(small: int = 1_000, large: int = 100_000,
        progress: Callable[[str], None] = print) -> Section:
    started = time.perf_counter()
    section = Section("memory", "10. The referee's memory over a long in-process tournament",
                      ["games", "peak RSS MB", "seconds", "games/s", "× the small run's RSS"])
    workdir = Path(tempfile.mkdtemp(prefix="circus-bench-memory-"))
    try:
        runs = []
        for games in (small, large):
            progress(f"memory: `circus-referee tournament` of {games:,} in-process games")
            runs.append(peak_rss(games, workdir))
            shutil.rmtree(workdir / "logs", ignore_errors=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    base = runs[0]["maxrss_mb"]
    for label, probe in zip(("small", "large"), runs):
        section.add(probe["games"], probe["maxrss_mb"], probe["seconds"],
                    probe["games"] / probe["seconds"], f"{probe['maxrss_mb'] / base:.2f}×")
        section.figures[f"{label}_games"] = probe["games"]
        section.figures[f"{label}_rss_mb"] = probe["maxrss_mb"]
        section.figures[f"{label}_seconds"] = probe["seconds"]
    growth = runs[1]["maxrss_mb"] / base - 1
    section.figures["growth"] = growth
    section.notes.append(
        "5 python: bots (3 random, 2 flea-greedy), flea-circus, 4 seats, concurrency 1: "
        "`circus-referee tournament --quiet` in a subprocess (bench.rss_probe), closing "
        "leaderboard included; seconds: the whole subprocess")
    verdict = "met" if growth <= GOAL_GROWTH else "NOT met"
    section.notes.append(
        f"goal: peak RSS of {runs[1]['games']:,} in-process games within "
        f"{100 * GOAL_GROWTH:.0f}% of a {runs[0]['games']:,}-game run — "
        f"{100 * growth:+.1f}%: {verdict}")
    section.seconds = time.perf_counter() - started
    return section
