"""Benchmark 15: the report and the packs of a season, and the bytes of a replay page.

A stored tournament of 4-player Circus Flohcati games among 32 bots (an organiser's
Swiss at season scale, its games played by seeded random choices straight on the engine, as
random bots would, and stored with their decision times), then each command in a
child process from its start to its exit, as an organiser runs it: ``report`` (every
game's replay page), the same ``report`` again over its folder (only what changed is
written), ``packs`` (a pack per bot), and ``packs --replays-from`` the report's replays
(their pages of games with no fault copied). Its CPU (user and system, the child's) and
the bytes it wrote. Beside it, a replay page's bytes for a game of every kind, alone.

Goals: the report of 1,000 games in 10 s of CPU and 25 MB; a 4-player
Flohcati page in 15 KB; packs of 32 bots and 1,000 games in 15 s of CPU and 20 MB.
"""

from __future__ import annotations

import dataclasses
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from bench.report import Section, median
from circus_outcomes import GameStatus
from pages.viewer import record_data, render_page
from referee.games import GAMES, get_game
from referee.games.base import ranks_from_scores
from referee.match import MatchResult
from tournaments.config import jsonable, parse_config
from tournaments.packs import folder_bytes
from tournaments.schedule import Pairing
from tournaments.store import Store

PLAYERS = 4
REPORT_GOAL_S = 10.0
REPORT_GOAL_MB = 25.0
PAGE_GOAL_KB = 15.0
PACKS_GOAL_S = 15.0
PACKS_GOAL_MB = 20.0
NAME = "season"


def played(seed: int, rng: random.Random) -> tuple[list[int], list[int]]:
    """A 4-player Flohcati game of random choices: its actions and scores."""
    state = get_game("flohcati").new_state(PLAYERS, "en", seed)
    while not state.is_terminal():
        state.apply(rng.randrange(len(state.legal_actions())))
    return list(state.record().actions), list(state.scores())


def stored_season(path: Path, games: int, bots: list[str]) -> None:
    """A store holding one finished Swiss of ``games`` 4-player Flohcati games."""
    config = parse_config({"name": NAME, "game": "flohcati", "variant": "en",
                           "players": PLAYERS, "seed": 58, "format": "swiss",
                           "rounds": -(-games // (len(bots) // PLAYERS)),
                           "bots": [{"name": bot, "python": "bots.random_bot:RandomBot"}
                                    for bot in bots]})
    shown = jsonable(dataclasses.asdict(config))
    store = Store(path)
    try:
        store.db.execute("PRAGMA synchronous=OFF")   # a scratch database: fill it fast
        store.create_tournament(NAME, shown, shown, games, str(path.parent))
        rng = random.Random(58)
        for index in range(games):
            seats = tuple(rng.sample(bots, PLAYERS))
            seed = rng.getrandbits(63)
            actions, scores = played(seed, rng)
            times = [(number % PLAYERS, number, round(rng.uniform(0.1, 3.0), 3))
                     for number in range(1, len(actions) + 1)]
            result = MatchResult(seats, seed, "flohcati", "en", scores,
                                 ranks_from_scores(scores), GameStatus.FINISHED, "gala",
                                 actions, times, [], "", "", 0.05)
            store.add_game(NAME, Pairing(index, index, 1 + index // (len(bots) // PLAYERS), seats, seed), result)
        store.finish_tournament(NAME)
    finally:
        store.close()


def command(*args: str) -> tuple[float, float]:
    """``circus-referee ARGS`` in a child process: its CPU seconds and wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([str(Path(sys.executable).parent / "circus-referee"), *args], check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def season_rows(section: Section, games: int, bots: int, folder: Path,
                progress: Callable[[str], None]) -> None:
    db = folder / "season.sqlite"
    progress(f"reports: storing {games} 4-player Flohcati games")
    stored_season(db, games, [f"bot{number:02d}" for number in range(bots)])
    report = folder / "report.html"
    replays = folder / "report-replays"
    for label, key in (("report", "report"), ("report again", "again")):
        progress(f"reports: {label} of {games} games")
        cpu, wall = command("report", "--db", str(db), "-o", str(report))
        size = (report.stat().st_size + folder_bytes(replays)) / 2**20
        section.add(f"`{label}`", games, cpu, wall, 1000 * cpu / games, size,
                    1024 * size / games)
        section.figures.update({f"{key}.{games}.cpu_s": cpu, f"{key}.{games}.mb": size})
        progress(f"reports: {label} of {games} games: {cpu:.1f} s CPU, {wall:.1f} s wall, "
                 f"{size:.1f} MB")
    kb = [page.stat().st_size / 1024 for page in replays.glob("game-*.html")]
    section.figures.update({f"page.{games}.median_kb": median(kb),
                            f"page.{games}.max_kb": max(kb)})
    progress(f"reports: a page of {games} games: median {median(kb):.1f} KB, "
             f"at most {max(kb):.1f} KB")
    for label, key, copied in (("packs", "packs", ()),
                               ("packs --replays-from", "copied", ("--replays-from", replays))):
        progress(f"reports: {label} of {games} games")
        cpu, wall = command("packs", "--db", str(db), "-o", str(folder / key), *map(str, copied))
        size = folder_bytes(folder / key) / 2**20
        section.add(f"`{label}`", games, cpu, wall, 1000 * cpu / games, size, 1024 * size / games)
        section.figures.update({f"{key}.{games}.cpu_s": cpu, f"{key}.{games}.mb": size})
        progress(f"reports: {label} of {games} games: {cpu:.1f} s CPU, {wall:.1f} s wall, "
                 f"{size:.1f} MB")


def page_rows(section: Section, seeds: int) -> None:
    """A replay page's bytes (its viewer linked) for random games of every kind."""
    for game in GAMES.values():
        for players in sorted({game.min_players, min(4, game.max_players)}):
            sizes = []
            for seed in range(seeds):
                state = game.new_state(players, game.variants[0], seed)
                rng = random.Random(seed)
                while not state.is_terminal():
                    state.apply(rng.randrange(len(state.legal_actions())))
                record = state.record()
                page = render_page(game.name, "a game", record_data(
                    record, [f"seat {seat}" for seat in range(players)]), static="")
                sizes.append(len(page.encode("utf-8")) / 1024)
            key = f"{game.name}.{players}p"
            section.figures[f"alone.{key}.kb"] = median(sizes)
            section.notes.append(f"a replay page, {game.name} at {players} players: median "
                                 f"{median(sizes):.1f} KB, at most {max(sizes):.1f} KB "
                                 f"({seeds} random games)")


def run(sizes: tuple[int, ...] = (200, 1_000, 5_000), bots: int = 32, page_seeds: int = 10,
        progress: Callable[[str], None] = lambda message: None) -> Section:
    """``bots``: the field (its packs); the goals are judged at 32 bots and 1,000 games."""
    section = Section("reports", "15. Reports and packs of a season", [
        "command", "games", "CPU s", "wall s", "CPU ms a game", "MB", "KB a game"])
    started = time.perf_counter()
    for games in sizes:
        with tempfile.TemporaryDirectory(prefix="bench-reports-") as scratch:
            season_rows(section, games, bots, Path(scratch), progress)
    page_rows(section, page_seeds)
    for games in sizes:
        if games == 1_000 and bots == 32:
            cpu, size = section.figures["report.1000.cpu_s"], section.figures["report.1000.mb"]
            packs_cpu = section.figures["packs.1000.cpu_s"]
            packs_size = section.figures["packs.1000.mb"]
            section.notes += [
                f"goal: the report of 1,000 games in ≤ {REPORT_GOAL_S:.0f} s CPU — {cpu:.1f} s: "
                f"{'met' if cpu <= REPORT_GOAL_S else 'NOT met'}",
                f"goal: the report of 1,000 games in ≤ {REPORT_GOAL_MB:.0f} MB — {size:.1f} MB: "
                f"{'met' if size <= REPORT_GOAL_MB else 'NOT met'}",
                f"goal: packs of 32 bots and 1,000 games in ≤ {PACKS_GOAL_S:.0f} s CPU — "
                f"{packs_cpu:.1f} s: {'met' if packs_cpu <= PACKS_GOAL_S else 'NOT met'}",
                f"goal: packs of 32 bots and 1,000 games in ≤ {PACKS_GOAL_MB:.0f} MB — "
                f"{packs_size:.1f} MB: {'met' if packs_size <= PACKS_GOAL_MB else 'NOT met'}"]
            copied_cpu = section.figures["copied.1000.cpu_s"]
            copied_size = section.figures["copied.1000.mb"]
            met = copied_cpu <= PACKS_GOAL_S and copied_size <= PACKS_GOAL_MB
            section.notes.append(
                f"packs of 1,000 games after the report, copying its pages of games with no "
                f"fault (`--replays-from`): {copied_cpu:.1f} s CPU, {copied_size:.1f} MB: "
                f"the packs' goals {'met' if met else 'NOT met'}")
    page = section.figures.get("alone.flohcati.4p.kb")
    if page is not None:
        section.notes.append(
            f"goal: a 4-player Flohcati replay page in ≤ {PAGE_GOAL_KB:.0f} KB — {page:.1f} KB: "
            f"{'met' if page <= PAGE_GOAL_KB else 'NOT met'}")
    section.seconds = time.perf_counter() - started
    return section
