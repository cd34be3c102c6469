"""Benchmark 2c: the stdio transport, next to a bare gRPC unary echo and a bare pipe ping-pong.

The referee side is the real one: :class:`referee.match.Match` playing two-player Amazing
Flea Circus over :class:`referee.stdio.StdioPool`, against processes of the standard-library
random bot (``bots/stdio/random_bot.py``, sandboxed, one per seat of each game at once).
Beside it, in interleaved rounds at the same concurrency: the bare gRPC unary echo of the
wire benchmark (the same games' DecisionRequests), and the physical limit of the transport
in Python, a JSON-lines ping-pong between this process and a Python process over pipes (the
very request lines the referee sent, each parsed and answered with a Decision-sized line).
Then the whole command (bench 8) of a two-player tournament of stdio bots against the same
over gRPC. Goals (issue 33): decisions/s ≥ 3× the echo and ≥ 0.5× the ping-pong at every
concurrency; the whole command ≥ 2× the gRPC one's decisions/s.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

import grpc

from bench.command import whole_run
from bench.echo_server import echo_call
from bench.report import Section, median, spread
from bench.wire import CHANNEL_OPTIONS, Run, echo, play_games, record_requests
from circus.v1 import bot_pb2
from referee.clients import GrpcClient
from referee.participants import Participant
from referee.settings import BotSpec, LimitsConfig
from referee.stdio import request_line

ROOT = Path(__file__).resolve().parent.parent
GOAL_ECHO, GOAL_PINGPONG, GOAL_COMMAND = 3.0, 0.5, 2.0
#: The other end of the ping-pong: parse each line, answer a Decision-sized line.
PONG = ("import json, sys\n"
        "for line in sys.stdin:\n"
        "    message = json.loads(line)\n"
        "    sys.stdout.write(json.dumps({'request_id': message['request_id'], 'decide': "
        "{'decision_id': '1', 'action_index': 0}}) + '\\n')\n"
        "    sys.stdout.flush()\n")


def pingpong(lines: list[bytes], seconds: float, concurrency: int) -> Run:
    """Round trips of ``lines`` to ``concurrency`` Python processes, one thread each.

    Each peer answers one line before the clock starts: its interpreter's start-up (a
    second and more on a loaded machine, the whole of a short round) is no round trip.
    """
    peers = [subprocess.Popen([sys.executable, "-c", PONG], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE) for _ in range(concurrency)]
    for peer in peers:
        assert peer.stdin is not None and peer.stdout is not None
        peer.stdin.write(lines[0])
        peer.stdin.flush()
        peer.stdout.readline()
    counts = [0] * concurrency
    deadline = time.perf_counter() + seconds

    def worker(slot: int) -> None:
        peer, done = peers[slot], 0
        assert peer.stdin is not None and peer.stdout is not None
        while time.perf_counter() < deadline:
            peer.stdin.write(lines[done % len(lines)])
            peer.stdin.flush()
            peer.stdout.readline()
            done += 1
        counts[slot] = done

    started = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(slot,)) for slot in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    for peer in peers:
        peer.stdin.close()   # type: ignore[union-attr]
        peer.wait()
    return Run(sum(counts), sum(counts), 0, elapsed)


def stdio_bots(processes: int, log_dir: Path, sandbox: bool = True) -> Participant:
    spec = BotSpec(name="stdio-random", transport="stdio", sandbox=sandbox,
                   command=f"python {ROOT / 'bots' / 'stdio' / 'random_bot.py'}")
    participant = Participant(spec, log_dir, LimitsConfig(), 30_000, processes=processes)
    participant.start(None)
    return participant


def run(bot_address: str, echo_address: str, concurrencies: tuple[int, ...] = (1, 4),
        seconds: float = 2.0, repeats: int = 3, command_games: int = 600, sandbox: bool = True,
        progress: Callable[[str], None] | None = None) -> Section:
    """``sandbox``: the bots sandboxed, as by default (a smoke run's not: it proves the
    section runs, and a sandboxed start costs more CPU)."""
    started = time.perf_counter()
    section = Section(
        "stdio", "2c. The stdio transport: the referee vs. a bare unary echo and a pipe "
        "ping-pong",
        ["concurrency", "stdio decisions/s", "echo calls/s", "ping-pong round trips/s",
         "÷ echo", "÷ ping-pong", "request bytes (mean)", "repeats (dec/s)"])
    workdir = Path(tempfile.mkdtemp(prefix="circus-bench-stdio-"))
    client = GrpcClient(bot_address)
    channel = grpc.insecure_channel(echo_address, options=CHANNEL_OPTIONS)
    call = echo_call(channel)
    verdicts: list[str] = []
    try:
        payloads = record_requests(client, "flea-circus", 2)
        lines = [request_line(number, "decide", bot_pb2.DecisionRequest.FromString(payload))
                 for number, payload in enumerate(payloads, 1)]
        mean_bytes = sum(map(len, lines)) / len(lines)
        for concurrency in concurrencies:
            bots = stdio_bots(2 * concurrency, workdir / f"c{concurrency}", sandbox)
            try:
                play_games(bots.client, "flea-circus", 2, min(0.2, seconds), concurrency)
                rows: list[tuple[Run, Run, Run]] = []
                for number in range(repeats):
                    if progress:
                        progress(f"stdio: concurrency {concurrency} round {number + 1}/{repeats}")
                    rows.append((play_games(bots.client, "flea-circus", 2, seconds,
                                            concurrency, start_index=10**7 * (number + 1)),
                                 echo(call, payloads, seconds, concurrency),
                                 pingpong(lines, seconds, concurrency)))
            finally:
                bots.stop()
            rates = [[run.calls / run.seconds if kind else run.decisions / run.seconds
                      for kind, run in enumerate(row)] for row in rows]
            by_echo = median(r[0] / r[1] for r in rates)
            by_pingpong = median(r[0] / r[2] for r in rates)
            section.add(concurrency, median(r[0] for r in rates), median(r[1] for r in rates),
                        median(r[2] for r in rates), f"{by_echo:.2f}", f"{by_pingpong:.2f}",
                        mean_bytes, spread(r[0] for r in rates))
            key = f"c{concurrency}"
            section.figures.update({f"{key}.decisions_per_s": median(r[0] for r in rates),
                                    f"{key}.echo_calls_per_s": median(r[1] for r in rates),
                                    f"{key}.pingpong_per_s": median(r[2] for r in rates),
                                    f"{key}.echo_ratio": by_echo,
                                    f"{key}.pingpong_ratio": by_pingpong})
            verdicts.append(f"c{concurrency}: {by_echo:.2f}× echo "
                            f"({'met' if by_echo >= GOAL_ECHO else 'NOT met'}), "
                            f"{by_pingpong:.2f}× ping-pong "
                            f"({'met' if by_pingpong >= GOAL_PINGPONG else 'NOT met'})")
        if command_games:
            if progress:
                progress(f"stdio: the whole command, {command_games} games, stdio and gRPC")
            commands = {transport: whole_run(command_games, workdir, transport, sandbox)
                        for transport in ("stdio", "grpc")}
            rate = {transport: decisions / wall
                    for transport, (wall, decisions, _, _) in commands.items()}
            ratio = rate["stdio"] / rate["grpc"]
            section.figures.update(command_stdio_decisions_per_s=rate["stdio"],
                                   command_grpc_decisions_per_s=rate["grpc"],
                                   command_ratio=ratio)
            section.notes.append(
                f"the whole command ({command_games}-game two-player tournament, start to exit, "
                f"leaderboard included): stdio {rate['stdio']:,.0f} decisions/s, gRPC "
                f"{rate['grpc']:,.0f}: {ratio:.2f}× (goal ≥ {GOAL_COMMAND}×: "
                f"{'met' if ratio >= GOAL_COMMAND else 'NOT met'})")
    finally:
        client.close()
        channel.close()
        shutil.rmtree(workdir, ignore_errors=True)
    section.notes.append(
        "two-player Amazing Flea Circus; the stdio bots: bots/stdio/random_bot.py, "
        f"{'sandboxed' if sandbox else 'unsandboxed'}, two processes per game at once; the "
        "echo: the gRPC unary echo of the same games' requests; the ping-pong: those "
        "requests as stdio lines to a Python process that parses "
        f"each and answers a Decision line; median of {repeats} interleaved round(s) of "
        f"~{seconds:g} s")
    section.notes.append(f"goals: decisions/s ≥ {GOAL_ECHO}× the echo and ≥ {GOAL_PINGPONG}× "
                         "the ping-pong — " + "; ".join(verdicts))
    section.seconds = time.perf_counter() - started
    return section
