"""Benchmark: the arena under load, ``python -m bench arena``.

An arena of ``entrants`` entrants, each with one version that passed its gate, and at
least ``games`` finished ladder games in its store, played by the ladder itself. The
versions are in-process Python bots (random, greedy, half-greedy), added and passed
through the store's own functions: a load test has no use for the sandboxed gate, whose
cost is the gate's, not the service's. Then the real service (``circus-referee arena``,
uvicorn on 127.0.0.1, in a child process) serves it while its ladder plays, and this
process is its clients (httpx2):

1. the board (``/`` and ``/board``) fetched by ``fetchers`` clients at once, each
   request after the last, for ``seconds``, with the ladder paused and playing in turn
   (``rounds`` rounds, the store's pause flag): p50/p95/p99 latency, the service's CPU
   per request, what the playing ladder adds;
2. the same with ``listeners`` server-sent event streams (``/events``) held open by a
   child process: the board's latency again, whether every stream stayed open and heard
   the board's event after the last match, and how long after a match's end the next
   event arrived (the service tells the board at most once a second);
3. the ladder's games/s against the tournaments' runner (a Swiss of the same bots, at
   the same concurrency and clock, about as many games) in interleaved rounds, the
   ladder paused while the tournament plays: each round's ratio, and the median.

Goals (the arena's issue): the board's p95 at most 50 ms while the ladder runs; the
streams held; the ladder's games/s within 5% of the tournament's.
"""

from __future__ import annotations

import asyncio
import bisect
import io
import multiprocessing
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Callable

import httpx2 as httpx
import yaml
from argon2 import PasswordHasher
from argon2.profiles import CHEAPEST

from arena.config import ArenaConfig, arena_config
from arena.ladder import Ladder, LadderEntry
from arena.ladder_store import LadderStore
from arena.store import ArenaStore, Gate, now
from bench.report import Section, median
from bench.wire import group_cpu
from tournaments.config import parse_config
from tournaments.runner import TournamentRunner
from tournaments.store import Store

BOTS = ("bots.random_bot:RandomBot", "bots.flea_greedy:FleaGreedyBot", "bots.mixed:Mixed50")
LADDER = "load"
#: A clock no busy machine spends: the games' outcomes do not depend on the load.
CLOCK = {"move_ms": 60_000, "bank_ms": 600_000, "startup_ms": 60_000}
BOARD_GOAL_MS = 50.0
RATIO_GOAL = 0.95
PATHS = ("/", "/board")
#: How long the streams are held, once the ladder is paused, for the last events to come.
HEAR_S = 60.0
#: How long a ladder's round may take before the benchmark stops, saying so.
STALLED_S = 600.0


@dataclass
class Latencies:
    """Each path's request times (seconds), and the requests that failed."""

    times: dict[str, list[float]] = field(default_factory=lambda: {p: [] for p in PATHS})
    failed: int = 0

    def add(self, other: Latencies) -> None:
        for path, times in other.times.items():
            self.times[path] += times
        self.failed += other.failed

    def requests(self) -> int:
        return sum(len(times) for times in self.times.values())

    def percentile(self, path: str, share: float) -> float:
        ordered = sorted(self.times[path])
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


@dataclass
class Stream:
    """One held event stream: when it opened, when each ``board`` event arrived."""

    opened: float = 0.0
    arrivals: list[float] = field(default_factory=list)
    error: str = ""


def arena_yaml(folder: Path, concurrency: int, deals: int, port: int) -> dict[str, Any]:
    return {"name": "load test",
            # Every stream comes from this one machine's address.
            "arena": {"db": str(folder / "arena.sqlite"), "data": str(folder / "data"),
                      "port": port, "streams_per_address": 1000},
            "ladder": {"name": LADDER, "deals": deals,
                       "match": {"concurrency": concurrency, "time": CLOCK}}}


def build(folder: Path, entrants: int, games: int, concurrency: int, deals: int,
          say: Callable[[str], None]) -> tuple[ArenaConfig, Path]:
    """The arena's config (written beside its store) with its entrants' passed versions
    and at least ``games`` finished ladder games."""
    data = arena_yaml(folder, concurrency, deals, free_port())
    path = folder / "arena.yaml"
    path.write_text(yaml.safe_dump(data))
    config = arena_config(data, folder, "arena")
    store = ArenaStore(config.db, PasswordHasher.from_parameters(CHEAPEST))
    try:
        for number in range(entrants):
            name = f"e{number:03d}"
            store.add_entrant(name)
            version = store.add_version(name, f"print-{number}", config.data / name,
                                        {"python": BOTS[number % len(BOTS)]})
            store.finish_gate(Gate(version.id, True, "", [], "", now()))
        entries = [LadderEntry(version.id, version.entrant, version.entry)
                   for version in store.active()]
    finally:
        store.close()
    ladder = Ladder(config.db, config.ladder)
    try:
        while ladder_games(config.db) < games:
            ladder.play_batch(entries)
        say(f"arena: {entrants} entrants, {ladder_games(config.db)} ladder games stored")
    finally:
        ladder.close()
    return config, path


def ladder_games(db: Path) -> int:
    with sqlite3.connect(db) as connection:
        return int(connection.execute("SELECT coalesce(sum(games), 0) FROM ladder_matches "
                                      "WHERE finished_at IS NOT NULL").fetchone()[0])


def finished(db: Path, since: float, until: float = float("inf")) -> list[tuple[float, int]]:
    """(finished_at, games) of the ladder's matches that ended in the window, in order."""
    with sqlite3.connect(db) as connection:
        return [(row[0], row[1]) for row in connection.execute(
            "SELECT finished_at, games FROM ladder_matches WHERE finished_at > ? AND "
            "finished_at <= ? ORDER BY finished_at", (since, min(until, 1e18)))]


def games_per_s(matches: list[tuple[float, int]]) -> float:
    """Games per second between the first match's end and the last's (the games of all
    but the first: the ladder's whole loop between two ends, its overhead included)."""
    if len(matches) < 2 or matches[-1][0] <= matches[0][0]:
        return float("nan")
    return sum(games for _, games in matches[1:]) / (matches[-1][0] - matches[0][0])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Service:
    """``circus-referee arena ARENA.yaml`` in a child process of its own group."""

    def __init__(self, config_path: Path, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"
        # Its log in a file: a pipe nobody reads while it serves would fill and stop it.
        self.log = config_path.parent / "service.log"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-c", "from circus_referee.main import main; main()",
                 "arena", "serve", str(config_path), "--port", str(port)],
                stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
        deadline = time.monotonic() + 120
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the arena did not start: {self.log.read_text()[-2000:]}")
            time.sleep(0.1)

    def _answers(self) -> bool:
        try:
            return httpx.get(self.url + "/board", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def cpu(self) -> float:
        return group_cpu(self.process.pid)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


async def fetch_board(url: str, fetchers: int, seconds: float) -> Latencies:
    """``fetchers`` clients, each fetching ``/`` then ``/board`` again and again: for
    ``seconds``, and at least once each, however slow the machine."""
    found = Latencies()
    end = time.perf_counter() + seconds

    async def fetcher(client: httpx.AsyncClient) -> None:
        first = True
        while first or time.perf_counter() < end:
            first = False
            for path in PATHS:
                started = time.perf_counter()
                try:
                    response = await client.get(url + path)
                    response.raise_for_status()
                except httpx.HTTPError:
                    found.failed += 1
                    continue
                found.times[path].append(time.perf_counter() - started)

    limits = httpx.Limits(max_connections=fetchers, max_keepalive_connections=fetchers)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:
        await asyncio.gather(*(fetcher(client) for _ in range(fetchers)))
    return found


async def listen(client: httpx.AsyncClient, url: str, stream: Stream,
                 opened: asyncio.Event, stop: asyncio.Event) -> None:
    """Hold one event stream until ``stop``, noting when each board event arrives."""
    try:
        async with client.stream("GET", url + "/events") as response:
            lines = response.aiter_lines()
            async for line in lines:
                if line.startswith(": connected"):
                    stream.opened = time.time()
                    opened.set()
                elif line == "event: board":
                    stream.arrivals.append(time.time())
                if stop.is_set():
                    break
    except (httpx.HTTPError, asyncio.CancelledError) as error:
        if not stop.is_set():
            stream.error = type(error).__name__


async def hold(url: str, listeners: int, pipe: Connection) -> None:
    """Hold ``listeners`` streams; say on ``pipe`` when all are open, close them when it
    says to, and send back what each heard."""
    streams = [Stream() for _ in range(listeners)]
    opened = [asyncio.Event() for _ in streams]
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    async with httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(30, read=None)) as client:
        tasks = [asyncio.create_task(listen(client, url, stream, event, stop))
                 for stream, event in zip(streams, opened)]
        await asyncio.wait_for(asyncio.gather(*(event.wait() for event in opened)), 120)
        start = time.time()
        pipe.send(start)
        last_end = await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
        deadline = time.monotonic() + HEAR_S
        while time.monotonic() < deadline and not all(
                stream.arrivals and stream.arrivals[-1] >= last_end for stream in streams):
            await asyncio.sleep(0.05)
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    pipe.send(streams)


def hold_streams(url: str, listeners: int, pipe: Connection) -> None:
    """A child process's work: its own CPU, so the streams' clients do not slow the
    board's, nor theirs the streams'."""
    asyncio.run(hold(url, listeners, pipe))


def held_streams(url: str, db: Path, listeners: int, fetchers: int, seconds: float
                 ) -> tuple[list[Stream], Latencies, float, float]:
    """``listeners`` streams held (by a child process) while the board is fetched for
    ``seconds``, then the ladder paused, and the streams held until each heard the events
    of the matches that ended since all were open (or for HEAR_S more); the streams, the
    board's latencies, and that window."""
    ours, theirs = multiprocessing.get_context("spawn").Pipe()
    holder = multiprocessing.get_context("spawn").Process(
        target=hold_streams, args=(url, listeners, theirs), daemon=True)
    holder.start()
    theirs.close()   # the child's end: if it dies, our end reads the end of the pipe
    try:
        if not ours.poll(180):
            raise RuntimeError(f"{listeners} event streams did not open in 180 s")
        start = ours.recv()
        board = asyncio.run(fetch_board(url, fetchers, seconds))
        end = switch_ladder(db, playing=False)
        ours.send(max([start, *(at for at, _ in finished(db, start, end))]))
        streams: list[Stream] = ours.recv()
    finally:
        holder.join(30)
        if holder.is_alive():
            holder.kill()
    return streams, board, start, end


def event_delays(streams: list[Stream], ends: list[float]) -> list[float]:
    """For each stream and each match's end, how long until the stream's next event (the
    board's events are coalesced: one may tell several matches)."""
    delays = []
    for stream in streams:
        for end in ends:
            after = bisect.bisect_left(stream.arrivals, end)
            if after < len(stream.arrivals):
                delays.append(stream.arrivals[after] - end)
    return delays


def tournament_round(folder: Path, number: int, bots: list[dict[str, Any]], rounds: int,
                     concurrency: int) -> tuple[int, float, float]:
    """A Swiss of the arena's bots by the tournaments' runner, in this process: its games,
    seconds, and CPU seconds."""
    config = parse_config({"name": f"tournament-{number}", "game": "flea-circus",
                           "players": 2, "format": "swiss", "rounds": rounds, "seed": number,
                           "concurrency": concurrency, "time": CLOCK, "bots": bots},
                          folder=folder)
    store = Store(folder / "tournament.sqlite")
    try:
        started, cpu = time.perf_counter(), time.process_time()
        TournamentRunner(config, store, folder / "logs" / config.name, out=io.StringIO(),
                         quiet=True).run()
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        return len(store.done_indices(config.name)), seconds, cpu
    finally:
        store.close()


def set_paused(db: Path, paused: bool) -> None:
    records = LadderStore(db)
    try:
        records.set_flag("paused", "yes" if paused else None)
    finally:
        records.close()


def settle(db: Path) -> None:
    """Wait for the match in play (if any) to end."""
    with sqlite3.connect(db) as connection:
        while connection.execute("SELECT count(*) FROM ladder_matches WHERE finished_at IS NULL"
                                 ).fetchone()[0]:
            time.sleep(0.1)


def switch_ladder(db: Path, playing: bool) -> float:
    """Pause the ladder and wait for its match to end, or resume it and wait for its
    first match to end (the thread looks again within arena.playing.IDLE_S); when."""
    since = time.time()
    set_paused(db, not playing)
    if playing:
        deadline = time.monotonic() + 120
        while not finished(db, since) and time.monotonic() < deadline:
            time.sleep(0.1)
    else:
        settle(db)
    return time.time()


def ladder_round(db: Path, games: int, service: Service) -> tuple[float, float]:
    """The ladder resumed until it has played ``games`` more, then paused: its games/s,
    and the service's CPU (its ladder's child's included) per game, in ms."""
    since, cpu = time.time(), service.cpu()
    set_paused(db, False)
    deadline = time.monotonic() + STALLED_S
    while (played := sum(count for _, count in finished(db, since)[1:])) < games:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the service's ladder played {played} games in {STALLED_S} s "
                               "(its log: service.log)")
        time.sleep(0.2)
    set_paused(db, True)
    settle(db)
    cpu = service.cpu() - cpu
    matches = finished(db, since)
    return games_per_s(matches), 1000 * cpu / max(1, sum(count for _, count in matches))


def load() -> str:
    return ", ".join(f"{value:.1f}" for value in os.getloadavg())


def run(entrants: int = 100, games: int = 1000, fetchers: int = 8, listeners: int = 200,
        seconds: float = 15.0, rounds: int = 3, round_games: int = 1000, concurrency: int = 2,
        deals: int = 4, progress: Callable[[str], None] = print) -> Section:
    section = Section("arena", "The arena under load",
                      ["phase", "what", "p50", "p95", "p99", "requests", "load (1 min)"])
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-arena-") as tmp:
        folder = Path(tmp)
        config, path = build(folder, entrants, games, concurrency, deals, progress)
        section.figures["entrants"] = entrants
        section.figures["stored_games"] = ladder_games(config.db)
        service = Service(path, config.port)
        try:
            board_phases(section, service, config.db, fetchers, listeners, seconds, rounds,
                         progress)
            throughput(section, service, config, folder, rounds, round_games, concurrency,
                       progress)
        finally:
            service.stop()
    section.seconds = time.perf_counter() - started
    return section


def board_phases(section: Section, service: Service, db: Path, fetchers: int, listeners: int,
                 seconds: float, rounds: int, progress: Callable[[str], None]) -> None:
    """The board with the ladder paused and playing, in turn; then with streams held."""
    pooled = {"idle": Latencies(), "board": Latencies()}
    ratios, loads = [], []
    for number in range(1, rounds + 1):
        p95 = {}
        for phase, found in pooled.items():
            progress(f"arena: the board, {fetchers} clients, {seconds:.0f} s, the ladder "
                     f"{'paused' if phase == 'idle' else 'playing'} (round {number})")
            since = switch_ladder(db, playing=phase == "board")
            cpu = service.cpu()
            fetched = asyncio.run(fetch_board(service.url, fetchers, seconds))
            found.add(fetched)
            p95[phase] = fetched.percentile("/", 0.95)
            if phase == "idle":
                section.figures[f"round_{number}.idle_cpu_ms_per_request"] = \
                    1000 * (service.cpu() - cpu) / max(1, fetched.requests())
            else:
                section.figures[f"round_{number}.board_ladder_games_per_s"] = \
                    games_per_s(finished(db, since))
        ratios.append(p95["board"] / p95["idle"])
        loads.append(load())
    for phase, found in pooled.items():
        board_rows(section, phase, found, loads[-1])
    section.figures["idle_cpu_ms_per_request"] = median(
        section.figures[f"round_{number}.idle_cpu_ms_per_request"]
        for number in range(1, rounds + 1))
    section.figures["board_ladder_games_per_s"] = median(
        section.figures[f"round_{number}.board_ladder_games_per_s"]
        for number in range(1, rounds + 1))
    section.figures["board_p95_ratio"] = median(ratios)
    section.notes.append(
        f"GET / p95 with the ladder playing / paused, median of {rounds} rounds: "
        f"{section.figures['board_p95_ratio']:.2f}; the service's CPU per board request "
        f"(paused): {section.figures['idle_cpu_ms_per_request']:.2f} ms; the ladder's "
        f"games/s while the board is fetched: "
        f"{section.figures['board_ladder_games_per_s']:.1f} (loads {'; '.join(loads)})")
    progress(f"arena: the board with {listeners} event streams held")
    switch_ladder(db, playing=True)
    streams, held, start, end = held_streams(service.url, db, listeners, fetchers, seconds)
    board_rows(section, "streams", held, load())
    during = [at for at, _ in finished(db, start, end)]
    heard = [sum(1 for arrival in stream.arrivals if arrival >= start) for stream in streams]
    delays = sorted(event_delays(streams, during))
    section.figures.update({
        "streams.held": sum(1 for stream in streams if not stream.error),
        "streams.matches_finished": len(during),
        "streams.fewest_events": min(heard, default=0),
        # A stream that heard nothing after the last match's end missed its change.
        "streams.missed": sum(1 for stream in streams if during and not (
            stream.arrivals and stream.arrivals[-1] >= during[-1])),
        "streams.event_delay_p50_ms": 1000 * median(delays),
        "streams.event_delay_max_ms": 1000 * (delays[-1] if delays else float("nan"))})
    section.add("streams", f"{listeners} streams: held / missed the last match",
                section.figures["streams.held"], section.figures["streams.missed"], "",
                len(during), load())
    held_all = section.figures["streams.held"] == listeners and not section.figures[
        "streams.missed"]
    section.notes.append(f"goal: {listeners} event streams held, each told of the last "
                         f"match — {section.figures['streams.held']:.0f} held, "
                         f"{section.figures['streams.missed']:.0f} missed it: "
                         f"{'met' if held_all else 'NOT met'}")
    section.add("streams", "next event after a match's end (ms)",
                section.figures["streams.event_delay_p50_ms"], "",
                section.figures["streams.event_delay_max_ms"], len(delays), load())


def board_rows(section: Section, phase: str, found: Latencies, load_now: str) -> None:
    for path in PATHS:
        key = f"{phase}.{path.strip('/') or 'page'}"
        values = {share: 1000 * found.percentile(path, share) for share in (0.5, 0.95, 0.99)}
        section.figures.update({f"{key}.p50_ms": values[0.5], f"{key}.p95_ms": values[0.95],
                                f"{key}.p99_ms": values[0.99],
                                f"{key}.requests": len(found.times[path])})
        section.add(phase, f"GET {path} (ms)", values[0.5], values[0.95], values[0.99],
                    len(found.times[path]), load_now)
    section.figures[f"{phase}.failed"] = found.failed
    if phase != "idle":
        worst = max(found.percentile(path, 0.95) for path in PATHS) * 1000
        section.notes.append(
            f"goal ({phase}): the board's p95 ≤ {BOARD_GOAL_MS:.0f} ms while the ladder plays "
            f"— {worst:.0f} ms: {'met' if worst <= BOARD_GOAL_MS else 'NOT met'} "
            f"(load {load_now})")


def throughput(section: Section, service: Service, config: ArenaConfig, folder: Path,
               rounds: int, round_games: int, concurrency: int,
               progress: Callable[[str], None]) -> None:
    """The ladder against the tournaments' runner, round after round."""
    store = ArenaStore(config.db, PasswordHasher.from_parameters(CHEAPEST))
    bots = [{**version.entry, "name": version.id} for version in store.active()]
    store.close()
    swiss_rounds = max(1, -(-round_games // len(bots)))
    ratios, cpu_ratios = [], []
    for number in range(1, rounds + 1):
        progress(f"arena: ladder against tournament, round {number} of {rounds}")
        ladder, ladder_cpu_ms = ladder_round(config.db, round_games, service)
        played, seconds, cpu = tournament_round(folder, number, bots, swiss_rounds,
                                                concurrency)
        tournament, tournament_cpu_ms = played / seconds, 1000 * cpu / played
        ratios.append(ladder / tournament)
        cpu_ratios.append(tournament_cpu_ms / ladder_cpu_ms)
        section.figures[f"round_{number}.ratio"] = ratios[-1]
        section.figures[f"round_{number}.cpu_ratio"] = cpu_ratios[-1]
        section.add(f"round {number}", "games/s: ladder / tournament / ratio", ladder,
                    tournament, ratios[-1], played, load())
        section.add(f"round {number}", "CPU ms a game: ladder / tournament / ratio",
                    ladder_cpu_ms, tournament_cpu_ms, cpu_ratios[-1], played, load())
    section.figures["ratio"] = median(ratios)
    section.figures["cpu_ratio"] = median(cpu_ratios)
    section.notes.append(f"the tournament's CPU a game / the ladder's (the service's, its "
                         f"ladder's child included), median: {section.figures['cpu_ratio']:.2f}"
                         " (the load moves it less than games/s)")
    goal = "met" if section.figures["ratio"] >= RATIO_GOAL else "NOT met"
    section.notes.append(f"goal: the ladder's games/s at least {RATIO_GOAL:.0%} of the "
                         f"tournament's — median ratio {section.figures['ratio']:.2f}: {goal}")
