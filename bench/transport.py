"""Benchmark: which gRPC transport could carry the referee's calls faster than a unary echo.

Issue 16 lists ways to a referee faster than the bare echo of section 2: unix sockets,
``grpc.aio``, a bidirectional ``Play`` stream per seat and game. This measures them on the
echo itself (no referee, no bot: raw bytes in, a 4-byte reply out), so that a change to the
protocol or the referee's threading is made only for a measured gain: calls/s and the
client's CPU per call of each way, next to section 2's baseline (a synchronous unary call to
a synchronous server over loopback TCP) measured in the same round. The stdio transport's
physical limit, a bare JSON-lines ping-pong between two Python processes over pipes, is
measured in section 2c (bench/stdio.py) beside the referee over stdio, not again here.
"""

from __future__ import annotations

import asyncio
import itertools
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import grpc

from bench.echo_server import METHOD, STREAM_METHOD, echo_call
from bench.farm import start_echo, stop_echo, wait_ready
from bench.report import Section, median, spread
from referee.process import free_port

PAYLOAD = b"\x0a" * 1_600   # about a Flea Circus DecisionRequest
Rate = tuple[float, float]  # calls per second, client CPU µs per call


def _timed(run: Callable[[], int]) -> Rate:
    wall, cpu = time.perf_counter(), time.process_time()
    calls = run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return calls / wall, cpu / calls * 1e6


def _in_threads(concurrency: int, work: Callable[[float], int], seconds: float) -> int:
    deadline = time.perf_counter() + seconds
    counts = [0] * concurrency

    def worker(slot: int) -> None:
        counts[slot] = work(deadline)

    threads = [threading.Thread(target=worker, args=(slot,)) for slot in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts)


def sync_unary(address: str, concurrency: int, seconds: float) -> Rate:
    """Blocking unary calls, one thread each: how the referee calls bots today."""
    with grpc.insecure_channel(address) as channel:
        call = echo_call(channel)
        call(PAYLOAD, timeout=10)

        def work(deadline: float) -> int:
            done = 0
            while time.perf_counter() < deadline:
                call(PAYLOAD, timeout=10)
                done += 1
            return done
        return _timed(lambda: _in_threads(concurrency, work, seconds))


def sync_stream(address: str, concurrency: int, seconds: float) -> Rate:
    """One synchronous bidirectional stream per thread, a request then its reply."""
    with grpc.insecure_channel(address) as channel:
        play: grpc.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(STREAM_METHOD)

        def work(deadline: float) -> int:
            requests: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
            replies = play(iter(requests.get, None))
            done = 0
            while time.perf_counter() < deadline:
                requests.put(PAYLOAD)
                next(replies)
                done += 1
            requests.put(None)
            replies.cancel()
            return done
        return _timed(lambda: _in_threads(concurrency, work, seconds))


def aio_unary(address: str, concurrency: int, seconds: float) -> Rate:
    """Unary calls on ``grpc.aio``: one event loop, ``concurrency`` coroutines."""
    async def main() -> int:
        async with grpc.aio.insecure_channel(address) as channel:
            call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(METHOD)
            await call(PAYLOAD, timeout=10)
            deadline = time.perf_counter() + seconds

            async def work() -> int:
                done = 0
                while time.perf_counter() < deadline:
                    await call(PAYLOAD, timeout=10)
                    done += 1
                return done
            return sum(await asyncio.gather(*(work() for _ in range(concurrency))))
    return _timed(lambda: asyncio.run(main()))


def aio_stream(address: str, concurrency: int, seconds: float) -> Rate:
    """One ``grpc.aio`` bidirectional stream per coroutine, a request then its reply."""
    async def main() -> int:
        async with grpc.aio.insecure_channel(address) as channel:
            play: grpc.aio.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(
                STREAM_METHOD)
            deadline = time.perf_counter() + seconds

            async def work() -> int:
                stream, done = play(), 0
                while time.perf_counter() < deadline:
                    await stream.write(PAYLOAD)
                    await stream.read()
                    done += 1
                await stream.done_writing()
                return done
            return sum(await asyncio.gather(*(work() for _ in range(concurrency))))
    return _timed(lambda: asyncio.run(main()))


#: (label, client, server on grpc.aio?, over a unix socket?); the first is the baseline.
WAYS = (
    ("sync unary, sync server, TCP (section 2's echo)", sync_unary, False, False),
    ("sync unary, sync server, unix socket", sync_unary, False, True),
    ("aio unary, aio server, unix socket", aio_unary, True, True),
    ("sync stream, sync server, unix socket", sync_stream, False, True),
    ("aio stream, aio server, unix socket", aio_stream, True, True),
)


class Servers:
    """A synchronous and a ``grpc.aio`` echo server, each on TCP and on a unix socket."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="circus-transport-"))
        self.processes: list[subprocess.Popen] = []
        self.addresses: dict[tuple[bool, bool], str] = {}
        try:
            for aio, unix in itertools.product((False, True), repeat=2):
                address = (f"unix:{self.folder / f'echo-{int(aio)}.sock'}" if unix
                           else f"127.0.0.1:{free_port()}")
                self.processes.append(start_echo(address, aio=aio))
                self.addresses[aio, unix] = address
            for address in self.addresses.values():
                wait_ready(address, 30)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        for process in self.processes:
            stop_echo(process)
        shutil.rmtree(self.folder, ignore_errors=True)


def run(seconds: float = 1.5, repeats: int = 3, concurrencies: tuple[int, ...] = (1, 4),
        progress=None) -> Section:
    started = time.perf_counter()
    section = Section(
        "transport", "2b. Transports for the referee's calls: echo only",
        ["way", "concurrency", "calls/s", "× baseline", "client CPU µs/call", "repeats (calls/s)"])
    servers = Servers()
    try:
        for concurrency in concurrencies:
            rates: dict[str, list[Rate]] = {label: [] for label, *_ in WAYS}
            ratios: dict[str, list[float]] = {label: [] for label, *_ in WAYS}
            for round_number in range(repeats):
                if progress:
                    progress(f"transport: concurrency {concurrency} round "
                             f"{round_number + 1}/{repeats}")
                for label, client, aio, unix in WAYS:
                    rates[label].append(client(servers.addresses[aio, unix], concurrency,
                                               seconds))
                baseline = rates[WAYS[0][0]][-1][0]
                for label in rates:
                    ratios[label].append(rates[label][-1][0] / baseline)
            for label, *_ in WAYS:
                calls = [rate for rate, _ in rates[label]]
                ratio = median(ratios[label])
                section.add(label, concurrency, median(calls), f"{ratio:.2f}",
                            median(cpu for _, cpu in rates[label]), spread(calls))
                section.figures[f"{label}.c{concurrency}.ratio"] = ratio
    finally:
        servers.close()
    section.notes.append(
        f"{len(PAYLOAD):,}-byte requests, 4-byte replies; the servers do no work; × baseline "
        f"is the median over {repeats} interleaved round(s) of ~{seconds:g} s of each way's "
        "calls/s against the first row's in the same round")
    section.notes.append(
        "a stream's figure counts messages on streams opened once; the referee would open one "
        "per seat and game, and the synchronous client spends a thread per stream")
    section.seconds = time.perf_counter() - started
    return section
