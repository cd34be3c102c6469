"""Benchmark 5: the leaderboard of a long game log, and of a long stored tournament.

Synthetic two- and four-player logs of bots of known strength (the better bot
wins more often), rated as ``circus-referee leaderboard`` rates them: the headline
ratings (:class:`ratings.trueskill_ratings.Rater`, the package's update to the
bit on floats) next to the trueskill package itself on the same log, and the
bootstrap of the rank ranges (every resample side by side). Then the closing
leaderboard of a stored tournament of two-player games, as ``circus-referee
tournament`` prints it at its end: read from SQLite, rated, formatted.

Goals (issue 16): the bootstrap of a 1,000-game log under 0.3 s; the leaderboard
of a 100,000-game tournament under 5 s (``circus-referee leaderboard``, from the
command's start to its exit, on the store as a tournament leaves it: with its ratings
snapshot; and, for comparison, on a store without one).
"""

from __future__ import annotations

import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import trueskill

from bench.report import Section, median
from circus_outcomes import GameStatus
from ratings import formatting
from ratings.board import auto_resamples, bootstrap, build_board
from ratings.params import RatingConfig
from ratings.trueskill_ratings import Outcome, canonical, environment
from referee.match import MatchResult
from tournaments.schedule import Pairing
from tournaments.standings import standings
from tournaments.store import Store

ROOT = Path(__file__).resolve().parent.parent
BOTS = [f"bot{number}" for number in range(8)]
GOAL_S = 0.3
STORED_GOAL_S = 5.0
#: A two-player Flea Circus game's record: its decisions and their times.
DECISIONS = 23


def game_log(games: int, players: int, seed: int = 1) -> list[Outcome]:
    """Games among BOTS where bot k beats bot j (j < k) a bit more often than not."""
    rng = random.Random(seed)
    log = []
    for index in range(games):
        seats = tuple(rng.sample(BOTS, players))
        strength = {bot: int(bot[3:]) + rng.gauss(0, 4) for bot in seats}
        order = sorted(seats, key=lambda bot: -strength[bot])
        log.append(Outcome(index, seats, tuple(order.index(bot) + 1 for bot in seats)))
    return log


def timed(call: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return median(times)


def package_ratings(log: list[Outcome], params: RatingConfig) -> None:
    """The headline ratings as the trueskill package computes them, game by game."""
    env = environment(params)
    ratings: dict[str, trueskill.Rating] = {}
    for outcome in log:
        seats, ranks = canonical(outcome.seats, outcome.ranks)
        updated = env.rate([(ratings.get(bot) or env.create_rating(),) for bot in seats],
                           ranks=list(ranks))
        ratings.update((bot, rating) for bot, (rating,) in zip(seats, updated))


def stored_tournament(path: Path, games: int) -> Store:
    """A store holding one finished tournament of ``games`` two-player games."""
    store = Store(path)
    store.db.execute("PRAGMA synchronous=OFF")   # a scratch database: fill it fast
    config = {"game": "flea-circus", "variant": "standard", "bots": [{"name": bot} for bot in BOTS],
              "rating": {}}
    store.create_tournament("long", config, config, games, str(path.parent))
    rng = random.Random(2)
    for outcome in game_log(games, 2):
        result = MatchResult(outcome.seats, 0, "flea-circus", "standard",
                             [3 - rank for rank in outcome.ranks], list(outcome.ranks),
                             GameStatus.FINISHED, "", [rng.randrange(5) for _ in range(DECISIONS)],
                             [(n % 2, n, round(rng.uniform(0.2, 2), 3))
                              for n in range(DECISIONS)], [], "", "", 0.01)
        store.add_game("long", Pairing(outcome.index, outcome.index, 0, outcome.seats, 0),
                       result)
    return store


def closing_leaderboard(store: Store) -> str:
    """What `circus-referee tournament` prints at its end."""
    return formatting.format_board(standings(store, store.resolve("long")), "table")


def run(sizes: tuple[int, ...] = (1_000, 10_000), repeats: int = 3,
        stored_games: int = 100_000,
        progress: Callable[[str], None] = print) -> Section:
    started = time.perf_counter()
    section = Section("leaderboard", "5. The leaderboard of a long log",
                      ["games", "players", "resamples", "headline ratings s",
                       "trueskill package s", "bootstrap s", "whole board s"])
    params = RatingConfig()
    for games in sizes:
        for players in (2, 4):
            progress(f"leaderboard: {games} games of {players}")
            log = game_log(games, players)
            resamples = auto_resamples(games, players)
            headline = timed(lambda: build_board(log, BOTS, params, resamples=0), repeats)
            package = timed(lambda: package_ratings(log, params), 1) \
                if games == sizes[0] else float("nan")
            boot = timed(lambda: bootstrap(log, BOTS, params, resamples, 0), repeats)
            whole = timed(lambda: build_board(log, BOTS, params), 1)
            section.add(games, players, resamples, headline, package, boot, whole)
            section.figures[f"bootstrap_s_{games}_{players}p"] = boot
            section.figures[f"headline_s_{games}_{players}p"] = headline
            if package == package:
                section.figures[f"package_s_{games}_{players}p"] = package
    first = section.figures.get(f"bootstrap_s_{sizes[0]}_2p", float("nan"))
    verdict = "met" if first < GOAL_S else "NOT met"
    section.notes.append(f"goal: the bootstrap of a {sizes[0]:,}-game two-player log under "
                         f"{GOAL_S} s — {first:.3f} s: {verdict}")
    stored = stored_leaderboard(stored_games, repeats, progress)
    section.figures.update(stored_games=stored_games, **stored)
    verdict = "met" if stored["stored_leaderboard_s"] < STORED_GOAL_S else "NOT met"
    section.notes.append(
        f"goal: the leaderboard of a {stored_games:,}-game tournament (two players; "
        f"`circus-referee leaderboard`, timed from the command's start to its exit) under "
        f"{STORED_GOAL_S:g} s — {stored['stored_leaderboard_s']:.2f} s "
        f"({stored['stored_leaderboard_cpu_s']:.2f} s of its CPU): {verdict}")
    section.notes.append(
        f"the same command on a store without the ratings snapshot a tournament keeps "
        f"(an older store, or one whose games changed since): "
        f"{stored['unkept_leaderboard_s']:.2f} s ({stored['unkept_leaderboard_cpu_s']:.2f} s "
        f"of its CPU; it folds every game and keeps the snapshot for the next time); "
        f"in this process, with the snapshot: {stored['kept_board_s']:.3f} s")
    section.notes.append("headline ratings: ratings.fast_trueskill, the package's update to "
                         "the bit on floats (trueskill package s: the package itself, same log); "
                         "bootstrap: every resample side by side on numpy arrays; a log too long "
                         "for 20 resamples gets its ranges only when asked")
    section.seconds = time.perf_counter() - started
    return section


def stored_leaderboard(games: int, repeats: int, progress: Callable[[str], None]
                       ) -> dict[str, float]:
    """Seconds and CPU seconds (medians) of ``circus-referee leaderboard`` on a stored
    ``games``-game tournament, in a child process from its start to its exit: with the
    ratings snapshot a finished tournament keeps, and without it (each run starting
    from a store without one). On a machine loaded by other work the CPU time tells
    what the command itself spent. And the closing leaderboard in this process, as
    ``circus-referee tournament`` prints it, with the snapshot."""
    progress(f"leaderboard: storing a {games:,}-game tournament")
    workdir = Path(tempfile.mkdtemp(prefix="circus-bench-board-"))
    try:
        path = workdir / "long.sqlite"
        stored_tournament(path, games).close()
        figures: dict[str, list[float]] = {}
        for _ in range(repeats):
            progress("leaderboard: `circus-referee leaderboard` without and with the snapshot")
            forget_snapshot(path)
            for label in ("unkept", "stored"):
                wall, cpu = leaderboard_command(path)
                figures.setdefault(f"{label}_leaderboard_s", []).append(wall)
                figures.setdefault(f"{label}_leaderboard_cpu_s", []).append(cpu)
        store = Store(path)
        try:
            figures["kept_board_s"] = [timed(lambda: closing_leaderboard(store), repeats)]
        finally:
            store.close()
        return {name: median(values) for name, values in figures.items()}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def forget_snapshot(path: Path) -> None:
    """Drop the tournament's ratings snapshot, as a store from before snapshots has none."""
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM rating_snapshots")
    db.close()


def leaderboard_command(path: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``circus-referee leaderboard --db PATH`` in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from circus_referee.main import main; main()",
                    "leaderboard",
                    "--db", str(path)], check=True, capture_output=True, cwd=ROOT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
