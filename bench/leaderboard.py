"""Benchmark 5: the leaderboard of a long game log, with and without its rank ranges.

Synthetic two- and four-player logs of bots of known strength (the better bot
wins more often), rated as ``circus-referee leaderboard`` rates them: the headline
ratings (the trueskill package, game by game) and the bootstrap of the rank
ranges (every resample side by side, :mod:`ratings.batch_trueskill`). The goal
(issue 16): the bootstrap of a 1,000-game log under 0.3 s.
"""

from __future__ import annotations

import random
import time
from typing import Callable

from bench.report import Section, median
from ratings.board import auto_resamples, bootstrap, build_board
from ratings.params import RatingConfig
from ratings.trueskill_ratings import Outcome

BOTS = [f"bot{number}" for number in range(8)]
GOAL_S = 0.3


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


def run(sizes: tuple[int, ...] = (1_000, 10_000), repeats: int = 3,
        progress: Callable[[str], None] = print) -> Section:
    started = time.perf_counter()
    section = Section("leaderboard", "5. The leaderboard of a long log",
                      ["games", "players", "resamples", "headline ratings s",
                       "bootstrap s", "whole board s"])
    params = RatingConfig()
    for games in sizes:
        for players in (2, 4):
            progress(f"leaderboard: {games} games of {players}")
            log = game_log(games, players)
            resamples = auto_resamples(games, players)
            headline = timed(lambda: build_board(log, BOTS, params, resamples=0), repeats)
            boot = timed(lambda: bootstrap(log, BOTS, params, resamples, 0), repeats)
            whole = timed(lambda: build_board(log, BOTS, params), 1)
            section.add(games, players, resamples, headline, boot, whole)
            section.figures[f"bootstrap_s_{games}_{players}p"] = boot
            section.figures[f"headline_s_{games}_{players}p"] = headline
    first = section.figures.get(f"bootstrap_s_{sizes[0]}_2p", float("nan"))
    verdict = "met" if first < GOAL_S else "NOT met"
    section.notes.append(f"goal: the bootstrap of a {sizes[0]:,}-game two-player log under "
                         f"{GOAL_S} s — {first:.3f} s: {verdict}")
    section.notes.append("headline ratings: the trueskill package, one game at a time; "
                         "bootstrap: every resample side by side on numpy arrays")
    section.seconds = time.perf_counter() - started
    return section
