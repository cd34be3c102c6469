"""Benchmark 4: a big in-process tournament, end to end, and where its time goes.

8 ``python:`` bots (4 random, 4 greedy), Amazing Flea Circus at 4 seats, round robin
(70 tables × 4 seatings = 280 games a round; ``--quick``: 6 bots, 15 tables × 4 = 60):
every game through the real :class:`tournaments.runner.TournamentRunner`, stored in
SQLite, rated with TrueSkill live.
A second, shorter run under :class:`bench.profiling.ThreadProfiler` says where the CPU
time goes.
"""

from __future__ import annotations

import inspect
import io
import math
import shutil
import tempfile
import time
from pathlib import Path

from bench.profiling import ThreadProfiler, breakdown, top_functions
from bench.report import Section
from tournaments.config import parse_config
from tournaments.runner import TournamentRunner
from tournaments.store import Store

ORDER = ["engine", "bots", "wire (protobuf)", "bot calls (client, threads)", "match loop",
         "ratings", "storage", "tournament loop", "other"]


def bot_classes(count: int) -> dict[str, str]:
    """``count`` bots (even), half random and half greedy: ``{name: module:Class}``."""
    half = count // 2
    return {**{f"random{i}": "bots.random_bot:RandomBot" for i in range(half)},
            **{f"greedy{i}": "bots.flea_greedy:FleaGreedyBot" for i in range(half)}}


def games_per_round(bots: int) -> int:
    """Every table of 4 of the bots, in 4 seatings."""
    return math.comb(bots, 4) * 4


def config(name: str, games: int, concurrency: int, bots: int):
    entries = [{"name": bot, "python": target} for bot, target in bot_classes(bots).items()]
    return parse_config({"name": name, "game": "flea-circus", "players": 4, "seed": 2024,
                         "rounds": max(1, math.ceil(games / games_per_round(bots))),
                         "concurrency": concurrency, "bots": entries})


def play(games: int, concurrency: int, workdir: Path, name: str,
         bots: int) -> tuple[int, float, int]:
    store = Store(workdir / f"{name}.sqlite")
    try:
        runner = TournamentRunner(config(name, games, concurrency, bots), store, workdir / "logs",
                                  out=io.StringIO(), quiet=True)
        start = time.perf_counter()
        summary = runner.run()
        seconds = time.perf_counter() - start
        decisions = sum(len(game.actions) for game in store.games(name))
    finally:
        store.close()
    return summary.played, seconds, decisions


def components(db: Path, name: str, games: int, bot_classes: dict[str, type]) -> dict:
    """The stored games played again piece by piece, each piece timed on its own.

    No profiler, so no profiler's bias: the rules engine (legal actions and apply),
    the request for the deciding seat (its observation and the protobuf
    conversion), the bots' decide(), the TrueSkill update and the SQLite write.
    What the real run spent beyond their sum is the match loop and the hand-over
    to the bots' threads.
    """
    from circus.v1 import bot_pb2
    from circus_outcomes import GameStatus
    from ratings.params import RatingConfig
    from ratings.trueskill_ratings import Outcome
    from referee import wire
    from referee.games import get_game
    from referee.match import MatchResult
    from tournaments.run.live import LiveStandings
    from tournaments.schedule import Pairing

    source = Store(db)
    stored = source.games(name)[:games]
    source.close()
    bots = {bot: cls() for bot, cls in bot_classes.items()}
    clock = bot_pb2.Clock(move_ms=1000, bank_ms=10000)
    # The referee before issue 9 had neither of these: measure it as it was.
    known = "actions" in inspect.signature(wire.decision_request).parameters
    timer = time.perf_counter
    engine = request_time = bot_time = 0.0
    decisions = 0
    for game in stored:
        state = get_game(game.game).new_state(len(game.seats), game.variant, game.seed)
        cache: list[bytes] = []
        next_event = [0] * len(game.seats)
        for decision_id, index in enumerate(game.actions, 1):
            t0 = timer()
            seat = state.current_seat()
            actions = state.legal_actions()
            t1 = timer()
            if known:
                request = wire.decision_request(state, f"replay/{game.game_index}",
                                                decision_id, next_event[seat], clock, actions,
                                                cache)
            else:
                request = wire.decision_request(state, f"replay/{game.game_index}",
                                                decision_id, next_event[seat], clock)
            next_event[seat] = len(state.events)
            t2 = timer()
            bots[game.seats[seat]].decide(request)
            t3 = timer()
            if known:
                state.apply(index, actions)
            else:
                state.apply(index)
            t4 = timer()
            engine += (t1 - t0) + (t4 - t3)
            request_time += t2 - t1
            bot_time += t3 - t2
            decisions += 1
    live = LiveStandings(RatingConfig(), [game.game_index for game in stored])
    t0 = timer()
    for game in stored:
        live.add(Outcome(game.game_index, tuple(game.seats), tuple(game.ranks),
                         game.status != GameStatus.VOID))
    ratings = timer() - t0
    sink = Store(db.parent / f"{name}-replay.sqlite")
    sink.create_tournament(name, {}, {}, len(stored), "")
    results = [(Pairing(g.game_index, g.group_index, g.round, tuple(g.seats), g.seed),
                MatchResult(tuple(g.seats), g.seed, g.game, g.variant, g.scores, g.ranks,
                            GameStatus(g.status), g.end_reason, g.actions,
                            [(int(s), int(d), ms) for s, d, ms in g.times],
                            [], g.started_at, g.finished_at, g.duration_s)) for g in stored]
    t0 = timer()
    for pairing, result in results:
        sink.add_game(name, pairing, result)
    storage = timer() - t0
    sink.close()
    count = max(1, len(stored))
    return {"games": len(stored), "decisions": decisions,
            "engine_ms": 1000 * engine / count, "request_ms": 1000 * request_time / count,
            "bots_ms": 1000 * bot_time / count, "ratings_ms": 1000 * ratings / count,
            "storage_ms": 1000 * storage / count}


def _classes(bots: int) -> dict[str, type]:
    import importlib
    found = {}
    for bot, target in bot_classes(bots).items():
        module, _, cls = target.partition(":")
        found[bot] = getattr(importlib.import_module(module), cls)
    return found


def run(games: int = 10_000, profile_games: int = 1_120, concurrency: int = 1,
        bots: int = 8, progress=None) -> Section:
    started = time.perf_counter()
    section = Section("tournament", "4. A big in-process tournament (SQLite + TrueSkill)",
                      ["games", "seconds", "games/s", "decisions/s", "ms/game", "concurrency"])
    workdir = Path(tempfile.mkdtemp(prefix="circus-bench-tournament-"))
    try:
        return _run(section, workdir, games, profile_games, concurrency, bots, progress,
                    started)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _run(section: Section, workdir: Path, games: int, profile_games: int, concurrency: int,
         bots: int, progress, started: float) -> Section:
    if progress:
        progress(f"tournament: {games} games")
    played, seconds, decisions = play(games, concurrency, workdir, "big", bots)
    section.add(played, seconds, played / seconds, decisions / seconds, 1000 * seconds / played,
                concurrency)
    section.figures["games"] = played
    section.figures["seconds"] = seconds
    section.figures["games_per_s"] = played / seconds
    section.figures["decisions_per_s"] = decisions / seconds
    section.notes.append(
        f"{bots} python: bots ({bots // 2} random, {bots // 2} flea-greedy), flea-circus, 4 "
        f"seats, round robin with rotations ({games_per_round(bots)} games a round), "
        "TournamentRunner end to end: SQLite "
        "store, live TrueSkill, in-process bot clients")
    if progress:
        progress(f"tournament: timing its parts on {min(played, profile_games)} games")
    parts = components(workdir / "big.sqlite", "big", profile_games, _classes(bots))
    per_game = 1000 * seconds / played
    rest = per_game - sum(parts[k] for k in ("engine_ms", "request_ms", "bots_ms",
                                               "ratings_ms", "storage_ms"))
    for key in ("engine_ms", "request_ms", "bots_ms", "ratings_ms", "storage_ms"):
        section.figures[f"parts.{key}"] = parts[key]
    section.figures["parts.game_ms"] = per_game
    section.figures["parts.rest_ms"] = rest
    section.notes.append(
        f"its parts, each timed alone on {parts['games']:,} of its games played again (ms per "
        f"game, of {per_game:.2f} ms a game in the run): rules engine "
        f"{parts['engine_ms']:.3f}, requests (observation + protobuf) "
        f"{parts['request_ms']:.3f}, bots' decide() {parts['bots_ms']:.3f}, TrueSkill "
        f"{parts['ratings_ms']:.3f}, SQLite {parts['storage_ms']:.3f}; the rest, "
        f"{rest:.3f}, is the match loop, the hand-over to the bots' threads and the "
        "tournament loop")
    if progress:
        progress(f"tournament: profiling {profile_games} games")
    with ThreadProfiler() as profiler:
        profiled, _, _ = play(profile_games, concurrency, workdir, "profiled", bots)
    totals, grand = breakdown(profiler.stats)
    shares = []
    for label in ORDER + sorted(set(totals) - set(ORDER)):
        if label in totals:
            share = 100 * totals[label] / grand if grand else 0.0
            section.figures[f"profile.{label}.percent"] = share
            shares.append(f"{label} {share:.1f}%")
    section.figures["profile.cpu_seconds"] = grand
    section.notes.append(
        f"where the CPU time goes (cProfile on every thread, thread CPU clock, {profiled} "
        f"games, {grand:.1f} s of CPU under the profiler): " + ", ".join(shares))
    section.notes.append("top functions by own time: " + "; ".join(
        f"{where} {own:.2f}s/{calls:,}" for where, own, calls in top_functions(profiler.stats, 8)))
    section.seconds = time.perf_counter() - started
    return section
