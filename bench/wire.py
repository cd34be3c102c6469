"""Benchmark 2: decisions over the wire, next to a bare gRPC unary echo.

The referee side is the real one: :class:`referee.match.Match` playing whole games with a
:class:`referee.clients.GrpcClient` in every seat, against one Python random bot process
(``bots/random_bot.py``). The echo side sends the very DecisionRequests the referee sent
(recorded from a few games, as raw bytes) to a server process that answers a
Decision-sized reply without parsing anything: the cost of gRPC alone. Both run in this
process, at the same concurrency (threads), in interleaved rounds.

Each round also takes the CPU time of both ends, per call: this process (the referee, or
the echo's client) and the server's process group (the bot, or the echo server), from
/proc. That is the profile the goal's limit is explained by: at concurrency 1 a call takes
at least its two ends' CPU one after the other, and at 4 the two ends fill the machine's two
cores, so either way the ratio of the two sides' CPU per call predicts that of their rates.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import os
import pathlib
import queue
import resource
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Callable

import grpc

from bench.echo_server import STREAM_METHOD, echo_call
from bench.farm import start_echo, stop_echo, wait_ready
from bench.profiling import ThreadProfiler, breakdown
from bench.report import Section, median, spread
from bots.random_bot import RandomBot
from circus.v1 import bot_pb2
from referee.clients import BotClient, GrpcClient
from referee.games import GAMES
from referee.match import FaultPolicy, Match
from referee.process import group_members
from referee.seeds import derive_seed
from referee.settings import DEFAULT_FAULTS, TimeConfig
from referee.stream import StreamClient

GOAL_RATIO = 1.0   # issue 16 (issue 9 asked for 0.8)
CHANNEL_OPTIONS = [("grpc.max_send_message_length", 4 * 1024 * 1024),
                   ("grpc.max_receive_message_length", 4 * 1024 * 1024),
                   ("grpc.enable_retries", 0)]


@dataclass
class Run:
    decisions: int
    calls: int
    games: int
    seconds: float
    faults: int = 0
    client_cpu: float = 0.0  # seconds of this process's CPU (all threads)
    server_cpu: float = 0.0  # seconds of the server's process group's CPU

    def cpu_us(self) -> tuple[float, float]:
        """Each end's CPU per call, in microseconds: (client, server)."""
        calls = max(self.calls, 1)
        return 1e6 * self.client_cpu / calls, 1e6 * self.server_cpu / calls


def group_cpu(pgid: int | None) -> float:
    """CPU seconds (user and system) used so far by a process group's live members."""
    if pgid is None:
        return 0.0
    ticks = 0
    for pid in group_members(pgid):
        try:
            fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def with_cpu(server_pgid: int | None, play: Callable[[], Run]) -> Run:
    """``play()``'s run, with both ends' CPU time during it."""
    client, server = time.process_time(), group_cpu(server_pgid)
    run = play()
    return dataclasses.replace(run, client_cpu=time.process_time() - client,
                               server_cpu=group_cpu(server_pgid) - server)


class Recorder:
    """A client that passes calls on and keeps each DecisionRequest's bytes."""

    def __init__(self, client) -> None:
        self.client = client
        self.requests: list[bytes] = []

    def __getattr__(self, name):
        return getattr(self.client, name)

    def decide(self, request, timeout):
        self.requests.append(request.SerializeToString())
        return self.client.decide(request, timeout)


def play_games(client, game: str, players: int, seconds: float, concurrency: int,
               start_index: int = 0) -> Run:
    """Whole games, ``concurrency`` at a time, until about ``seconds`` have passed (and at
    least one on each thread, however slow the machine)."""
    spec = GAMES[game]
    variant = spec.default_variant
    counter = itertools.count(start_index)
    policy = FaultPolicy(dict(DEFAULT_FAULTS))
    totals = {"decisions": 0, "calls": 0, "games": 0, "faults": 0}
    lock = threading.Lock()
    start = time.perf_counter()
    deadline = start + seconds

    def worker() -> None:
        first = True
        while first or time.perf_counter() < deadline:
            first = False
            index = next(counter)
            seats = tuple(f"random{seat}" for seat in range(players))
            seed = derive_seed("bench-wire", index)
            result = Match(spec, variant, seats, seed, f"wire/{index}", [client] * players,
                           TimeConfig(), policy).play()
            with lock:
                totals["decisions"] += len(result.actions)
                totals["calls"] += len(result.times) + 2 * players  # + StartGame, EndGame
                totals["games"] += 1
                totals["faults"] += len(result.faults)

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return Run(totals["decisions"], totals["calls"], totals["games"],
               time.perf_counter() - start, totals["faults"])


def echo(call, payloads: list[bytes], seconds: float, concurrency: int) -> Run:
    """Unary calls with the recorded payloads, ``concurrency`` threads, about ``seconds``."""
    counts = [0] * concurrency
    start = time.perf_counter()
    deadline = start + seconds

    def worker(slot: int) -> None:
        done = 0
        for payload in itertools.cycle(payloads[slot::concurrency] or payloads):
            call(payload, timeout=10)
            done += 1
            if done % 16 == 0 and time.perf_counter() >= deadline:
                break
        counts[slot] = done

    threads = [threading.Thread(target=worker, args=(slot,)) for slot in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    total = sum(counts)
    return Run(total, total, 0, time.perf_counter() - start)


def stream_echo(address: str, payloads: list[bytes], seconds: float, concurrency: int) -> Run:
    """The recorded payloads on one synchronous bidirectional stream, ``concurrency`` of them
    in flight (each reply sends the next), about ``seconds``: the ceiling of a Play stream in
    synchronous Python gRPC, whatever the referee and the bot do around it."""
    with grpc.insecure_channel(address, options=CHANNEL_OPTIONS) as channel:
        play: grpc.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(STREAM_METHOD)
        requests: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        replies = play(iter(requests.get, None))
        source = itertools.cycle(payloads)
        for _ in range(concurrency):
            requests.put(next(source))
        start = time.perf_counter()
        deadline, done = start + seconds, 0
        for _ in replies:
            done += 1
            if done % 16 == 0 and time.perf_counter() >= deadline:
                break
            requests.put(next(source))
        requests.put(None)
        replies.cancel()
        return Run(done, done, 0, time.perf_counter() - start)


def aio_stream_echo(address: str, payloads: list[bytes], seconds: float,
                    concurrency: int) -> Run:
    """The same on ``grpc.aio`` (one event loop; the echo server on ``grpc.aio`` too): the
    ceiling of a Play stream in Python gRPC with no thread hand-over on the client."""
    async def main() -> Run:
        async with grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS) as channel:
            play: grpc.aio.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(
                STREAM_METHOD)
            call = play()
            source = itertools.cycle(payloads)
            for _ in range(concurrency):
                await call.write(next(source))
            start = time.perf_counter()
            deadline, done = start + seconds, 0
            while True:
                await call.read()
                done += 1
                if done % 16 == 0 and time.perf_counter() >= deadline:
                    break
                await call.write(next(source))
            call.cancel()
            return Run(done, done, 0, time.perf_counter() - start)
    return asyncio.run(main())


class Inline:
    """The SDK's random bot called on the game's own thread: no wire, no thread hand-over.
    What the referee's loop (engine, clock, building each DecisionRequest) and the bot's
    choice cost with nothing carrying them: the other bound of any transport's rate."""

    def __init__(self) -> None:
        self.bot = RandomBot()

    def hello(self, request: bot_pb2.HelloRequest, timeout: float) -> bot_pb2.HelloResponse:
        return self.bot.hello(request)

    def start_game(self, request: bot_pb2.StartGameRequest, timeout: float) -> None:
        self.bot.start_game(request)

    def decide(self, request: bot_pb2.DecisionRequest, timeout: float) -> bot_pb2.Decision:
        return bot_pb2.Decision(decision_id=request.decision_id,
                                action_index=self.bot.decide(request))

    def end_game(self, request: bot_pb2.EndGameRequest, timeout: float) -> None:
        self.bot.end_game(request)

    def close(self) -> None:
        """Nothing to release."""


def record_requests(client, game: str, players: int, games: int = 3) -> list[bytes]:
    recorder = Recorder(client)
    spec = GAMES[game]
    for index in range(games):
        seats = tuple(f"random{seat}" for seat in range(players))
        seed = derive_seed("bench-wire-sample", index)
        Match(spec, spec.default_variant, seats, seed, f"sample/{index}", [recorder] * players,
              TimeConfig(), FaultPolicy(dict(DEFAULT_FAULTS))).play()
    return recorder.requests


def profiled(client, game: str, players: int, seconds: float, section: Section,
             prefix: str = "profile", close: bool = False) -> str:
    """Where the referee's CPU goes a call, by part, from one run under cProfile.

    The profiler slows every Python call, so only the shares are figures; the CPU a call
    without it is the table's. ``close``: close the client inside the profile, so the
    threads it started under the profiler (a Play stream's reader) have ended when the
    profiler waits for them (else it waits 5 s for each of them in vain).
    """
    with ThreadProfiler() as profiler:
        played = play_games(client, game, players, seconds, 1, start_index=10**9)
        if close:
            client.close()
    totals, grand = breakdown(profiler.stats)
    parts = []
    for label, own in sorted(totals.items(), key=lambda item: -item[1]):
        share = 100 * own / grand if grand else 0.0
        section.figures[f"{prefix}.{label}.percent"] = share
        parts.append(f"{label} {share:.0f}%")
    return (f"where the referee's CPU goes ({game}, concurrency 1, cProfile on every thread, "
            f"{played.calls:,} calls): " + ", ".join(parts))


def run(bot_address: str, echo_address: str, games: tuple[str, ...] | None = None,
        players: int = 4, concurrencies: tuple[int, ...] = (1, 4), seconds: float = 3.0,
        repeats: int = 3, progress=None, bot_pgid: int | None = None,
        echo_pgid: int | None = None, profile_game: str | None = "flea-circus") -> Section:
    """The referee against the echo; ``*_pgid``: the servers' process groups, for their CPU.

    ``profile_game``: one more run of it at concurrency 1 under cProfile, for where the
    referee's CPU a call goes (None: no profile).
    """
    started = time.perf_counter()
    section = Section(
        "wire", "2. Over the wire: the referee vs. a bare gRPC unary echo",
        ["game", "concurrency", "echo calls/s", "referee decisions/s", "referee calls/s",
         "decisions ÷ echo", "calls ÷ echo", "request bytes (mean)", "repeats (dec/s)",
         "CPU µs a call: referee + bot", "echo client + server", "CPU's ratio",
         "a free referee's bound"])
    client = GrpcClient(bot_address)
    channel = grpc.insecure_channel(echo_address, options=CHANNEL_OPTIONS)
    call = echo_call(channel)
    worst = None
    faults = 0
    try:
        for game in games or tuple(GAMES):
            payloads = record_requests(client, game, players)
            mean_bytes = sum(map(len, payloads)) / len(payloads)
            echo(call, payloads, min(0.2, seconds), 1)  # warm both paths up
            play_games(client, game, players, min(0.2, seconds), 1, start_index=10**6)
            for concurrency in concurrencies:
                echoes, referees = [], []
                for round_number in range(repeats):
                    if progress:
                        progress(f"wire: {game} concurrency {concurrency} "
                                 f"round {round_number + 1}/{repeats}")
                    echoes.append(with_cpu(echo_pgid, lambda: echo(
                        call, payloads, seconds, concurrency)))
                    referees.append(with_cpu(bot_pgid, lambda: play_games(
                        client, game, players, seconds, concurrency,
                        start_index=10**7 * (round_number + 1))))
                faults += sum(r.faults for r in referees)
                echo_rate = median(r.calls / r.seconds for r in echoes)
                decision_rate = median(r.decisions / r.seconds for r in referees)
                call_rate = median(r.calls / r.seconds for r in referees)
                ratio = median(r.decisions / r.seconds / (e.calls / e.seconds)
                               for r, e in zip(referees, echoes))
                call_ratio = median(r.calls / r.seconds / (e.calls / e.seconds)
                                    for r, e in zip(referees, echoes))
                referee_us = [median(r.cpu_us()[end] for r in referees) for end in (0, 1)]
                echo_us = [median(e.cpu_us()[end] for e in echoes) for end in (0, 1)]
                # Were CPU the only bound, calls ÷ echo would be the inverse ratio of the
                # two sides' CPU a call; decisions are fewer than calls (StartGame, EndGame).
                cpu_ratio = median(sum(e.cpu_us()) / max(sum(r.cpu_us()), 1e-9)
                                   * r.decisions / max(r.calls, 1)
                                   for r, e in zip(referees, echoes))
                # A referee costing nothing beyond the bare call (the echo's client) still
                # waits for the bot: the most it could reach against this bot and protocol.
                free_bound = median(sum(e.cpu_us()) / max(e.cpu_us()[0] + r.cpu_us()[1], 1e-9)
                                    * r.decisions / max(r.calls, 1)
                                    for r, e in zip(referees, echoes))
                section.add(game, concurrency, echo_rate, decision_rate, call_rate,
                            f"{ratio:.2f}", f"{call_ratio:.2f}", mean_bytes,
                            spread(r.decisions / r.seconds for r in referees),
                            f"{referee_us[0]:.0f} + {referee_us[1]:.0f}",
                            f"{echo_us[0]:.0f} + {echo_us[1]:.0f}", f"{cpu_ratio:.2f}",
                            f"{free_bound:.2f}")
                key = f"{game}.c{concurrency}"
                section.figures[f"{key}.echo_calls_per_s"] = echo_rate
                section.figures[f"{key}.referee_decisions_per_s"] = decision_rate
                section.figures[f"{key}.referee_calls_per_s"] = call_rate
                section.figures[f"{key}.ratio"] = ratio
                section.figures[f"{key}.call_ratio"] = call_ratio
                section.figures[f"{key}.request_bytes"] = mean_bytes
                section.figures[f"{key}.referee_cpu_us"] = referee_us[0]
                section.figures[f"{key}.bot_cpu_us"] = referee_us[1]
                section.figures[f"{key}.echo_client_cpu_us"] = echo_us[0]
                section.figures[f"{key}.echo_server_cpu_us"] = echo_us[1]
                section.figures[f"{key}.cpu_ratio"] = cpu_ratio
                section.figures[f"{key}.free_referee_bound"] = free_bound
                worst = ratio if worst is None else min(worst, ratio)
        if profile_game:
            if progress:
                progress(f"wire: {profile_game} under the profiler")
            section.notes.append(profiled(client, profile_game, players, seconds, section))
    finally:
        client.close()
        channel.close()
    section.figures["worst_ratio"] = worst if worst is not None else float("nan")
    section.notes.append(
        f"{players} seats, every seat the same random bot process; the referee's calls include "
        "StartGame and EndGame (2 per seat per game), its decisions/s only Decide calls; the "
        "echo replays the recorded DecisionRequest bytes and gets a Decision-sized reply")
    section.notes.append(f"median of {repeats} interleaved round(s) of ~{seconds:g} s each")
    section.notes.append(
        "CPU µs a call: each end's CPU time over its calls (this process; the server's process "
        "group, from /proc); CPU's ratio: decisions ÷ echo if CPU alone set the rates — the "
        "echo's CPU a call over the referee's and the bot's, times decisions per call; a free "
        "referee's bound: the same with the referee's CPU a call cut to the echo client's (a "
        "referee doing nothing but the call), the bot and the StartGame and EndGame calls "
        "unchanged")
    if faults:
        section.notes.append(f"{faults} fault(s) during the runs: the figures are suspect")
    if worst is not None:
        verdict = "met" if worst >= GOAL_RATIO else "NOT met"
        section.notes.append(f"goal: referee decisions/s ≥ {GOAL_RATIO}× echo calls/s at "
                             f"every concurrency — lowest {worst:.2f}: {verdict}")
    section.seconds = time.perf_counter() - started
    return section


STREAM_GOAL = 1.5   # issue 33: the Play stream's decisions/s against the echo's calls/s


def switches(pids) -> int:
    """Context switches so far of these processes' threads (the thread hand-overs a message
    costs, each a sleep and a wake-up), from /proc."""
    total = 0
    for pid in pids:
        for status in pathlib.Path(f"/proc/{pid}/task").glob("*/status"):
            try:
                lines = status.read_text().splitlines()
            except OSError:
                continue
            total += sum(int(line.split()[1]) for line in lines
                         if line.split(":")[0].endswith("ctxt_switches"))
    return total


@dataclass
class Measured:
    """A run with both ends' CPU and context switches."""

    run: Run
    switches: tuple[int, int]   # (this process, the server's process group)

    def per_decision(self) -> tuple[float, float, float, float]:
        """CPU µs and context switches a decision: referee, bot, referee, bot."""
        count = max(self.run.decisions, 1)
        return (1e6 * self.run.client_cpu / count, 1e6 * self.run.server_cpu / count,
                self.switches[0] / count, self.switches[1] / count)


def own_switches() -> int:
    """Context switches so far of this process's threads, the ended ones included: /proc's
    per-thread counts leave with their thread, so a run whose threads ended between the two
    readings would count fewer than none."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_nvcsw + usage.ru_nivcsw


def measured(server_pgid: int | None, play: Callable[[], Run]) -> Measured:
    server = list(group_members(server_pgid)) if server_pgid else []
    before = own_switches(), switches(server)
    run = with_cpu(server_pgid, play)
    # The server's threads live as long as its process (a thread pool): /proc's counts hold.
    return Measured(run, (own_switches() - before[0], switches(server) - before[1]))


def ceilings(runs: dict[str, list[Measured]], baseline: list[float], section: Section) -> str:
    """The most a Play stream could reach at concurrency 1, one decision at a time: each
    takes at least the referee's loop and the bot's choice (the no-wire row's time a
    decision) and then a bare round trip on the stream (a stream echo's time a message),
    one after the other; as a ratio to the unary echo, the median over the rounds."""
    loop = [m.run.seconds / max(m.run.decisions, 1)
            for m in runs["no wire (the bot called inline)"]]
    parts = []
    for row, key, name in (("bare stream echo", "sync", "synchronous"),
                           ("bare stream echo, grpc.aio both ends", "aio", "grpc.aio")):
        trip = [m.run.seconds / max(m.run.decisions, 1) for m in runs[row]]
        ceiling = median(1 / (a + b) / echo for a, b, echo in zip(loop, trip, baseline))
        section.figures[f"ceiling.c1.{key}"] = ceiling
        parts.append(f"{ceiling:.2f} on the {name} stream")
    return ("the Play stream's ceiling at concurrency 1 (the no-wire row's time a decision "
            "plus a bare stream echo's round trip, ÷ echo): " + ", ".join(parts))


def run_stream(bot_address: str, echo_address: str, game: str = "flea-circus",
               players: int = 2, concurrencies: tuple[int, ...] = (1, 4),
               seconds: float = 2.0, repeats: int = 3, progress=None,
               bot_pgid: int | None = None, echo_pgid: int | None = None) -> Section:
    """The referee over the Play stream, over unary calls and the bare echo, in rounds;
    beside them the bare stream echoes, the most any Play stream could reach."""
    started = time.perf_counter()
    section = Section(
        "stream", "2c. The Play stream: one stream per bot against unary calls and the echo",
        ["way", "concurrency", "decisions/s (echo: calls/s)", "÷ echo", "repeats",
         "CPU µs a decision: referee + bot", "context switches a decision: referee + bot"])

    def note(text: str) -> None:   # what the stream's client would write in the bot's log
        section.notes.append(f"Play stream: {text}")

    ways: dict[str, BotClient] = {"no wire (the bot called inline)": Inline(),
                                  "unary calls": GrpcClient(bot_address),
                                  "Play stream": StreamClient(GrpcClient(bot_address), note)}
    # (row, figures' key); the bare echoes' rows first, the unary echo the baseline.
    keys = {"bare unary echo": "echo", "bare stream echo": "stream_echo",
            "bare stream echo, grpc.aio both ends": "aio_stream_echo",
            "no wire (the bot called inline)": "inline", "unary calls": "calls",
            "Play stream": "stream"}
    channel = grpc.insecure_channel(echo_address, options=CHANNEL_OPTIONS)
    call = echo_call(channel)
    folder = tempfile.mkdtemp(prefix="circus-stream-echo-")
    aio_address = f"unix:{folder}/echo.sock"
    aio_echo = start_echo(aio_address, aio=True)
    worst = None
    try:
        wait_ready(aio_address, 30)
        payloads = record_requests(ways["unary calls"], game, players)
        echoes: dict[str, Callable[[int], Run]] = {
            "bare unary echo": lambda c: echo(call, payloads, seconds, c),
            "bare stream echo": lambda c: stream_echo(echo_address, payloads, seconds, c),
            "bare stream echo, grpc.aio both ends": lambda c: aio_stream_echo(
                aio_address, payloads, seconds, c)}
        # Whose CPU and switches count beside this process's (the bot's, unless named).
        pgids = {"bare unary echo": echo_pgid, "bare stream echo": echo_pgid,
                 "bare stream echo, grpc.aio both ends": aio_echo.pid,
                 "no wire (the bot called inline)": None}
        echo(call, payloads, min(0.2, seconds), 1)
        for client in ways.values():
            play_games(client, game, players, min(0.2, seconds), 1, start_index=10**6)
        for concurrency in concurrencies:
            runs: dict[str, list[Measured]] = {row: [] for row in keys}
            for round_number in range(repeats):
                if progress:
                    progress(f"stream: concurrency {concurrency} round "
                             f"{round_number + 1}/{repeats}")
                for row, bare in echoes.items():
                    runs[row].append(measured(pgids[row], lambda: bare(concurrency)))
                for way, client in ways.items():
                    runs[way].append(measured(pgids.get(way, bot_pgid), lambda: play_games(
                        client, game, players, seconds, concurrency,
                        start_index=10**7 * (round_number + 1))))
            baseline = [m.run.decisions / m.run.seconds for m in runs["bare unary echo"]]
            if concurrency == 1:
                section.notes.append(ceilings(runs, baseline, section))
            for way, results in runs.items():
                rates = [m.run.decisions / m.run.seconds for m in results]
                ratio = median(rate / echo_rate for rate, echo_rate in zip(rates, baseline))
                cpu = [median(m.per_decision()[part] for m in results) for part in range(4)]
                section.add(way, concurrency, median(rates), f"{ratio:.2f}", spread(rates),
                            f"{cpu[0]:.0f} + {cpu[1]:.0f}", f"{cpu[2]:.1f} + {cpu[3]:.1f}")
                key = f"{keys[way]}.c{concurrency}"
                section.figures[f"{key}.per_s"] = median(rates)
                section.figures[f"{key}.ratio"] = ratio
                section.figures[f"{key}.referee_cpu_us"] = cpu[0]
                section.figures[f"{key}.bot_cpu_us"] = cpu[1]
                section.figures[f"{key}.referee_switches"] = cpu[2]
                section.figures[f"{key}.bot_switches"] = cpu[3]
                if way == "Play stream":
                    worst = ratio if worst is None else min(worst, ratio)
                if any(m.run.faults for m in results):
                    section.notes.append(f"{way}, concurrency {concurrency}: faults during "
                                         "the runs: the figures are suspect")
        if progress:
            progress("stream: the referee over the stream under the profiler")
        # A client of its own, so that its stream's threads start under the profiler.
        ways["profiled"] = StreamClient(GrpcClient(bot_address), note)
        section.notes.append("Play stream: " + profiled(
            ways.pop("profiled"), game, players, seconds, section, prefix="profile.stream",
            close=True))
    finally:
        for client in ways.values():
            client.close()
        channel.close()
        stop_echo(aio_echo)
        shutil.rmtree(folder, ignore_errors=True)
    section.figures["worst_ratio"] = worst if worst is not None else float("nan")
    section.notes.append(
        f"{game}, {players} seats, both the same Python SDK random bot process (threads); the "
        "echo replays the recorded DecisionRequest bytes; per way the echo's row counts calls, "
        "the others decisions (StartGame and EndGame also cross the wire, uncounted); "
        f"median of {repeats} interleaved round(s) of ~{seconds:g} s")
    section.notes.append(
        "no wire: the same games with the SDK's random bot called on each game's own thread "
        "(the referee's loop and the bot's choice, nothing carrying them; its CPU is all the "
        "referee's column); at concurrency 1 a transport's decision takes at least this row's "
        "time plus a bare round trip of the transport")
    section.notes.append(
        "bare stream echoes: the same request bytes on one stream, as many in flight as the "
        "concurrency, each answered by a server that parses nothing (the synchronous echo "
        "over TCP; the grpc.aio one, client and server, over a unix socket): what a Play "
        "stream costs with no referee and no bot, the ceiling of the Play stream's row")
    section.notes.append(
        "CPU µs and context switches a decision (a call, for the echo): this process, and the "
        "server's process group, from /proc; a context switch is a thread going to sleep or "
        "being preempted, so the switches count the hand-overs between threads a message costs")
    if worst is not None:
        verdict = "met" if worst >= STREAM_GOAL else "NOT met"
        section.notes.append(f"goal: the Play stream's decisions/s ≥ {STREAM_GOAL}× the echo's "
                             f"calls/s at every concurrency — lowest {worst:.2f}: {verdict}")
    section.seconds = time.perf_counter() - started
    return section
