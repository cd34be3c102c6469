"""``python -m bench.sandbox``: what the bot sandbox costs (docs/performance.md, "Sandbox").

Three figures, each sandboxed (bwrap, cgroups, seccomp, a unix socket; as root,
an unprivileged uid and the staging of the interpreter) against
``sandbox: false`` (a TCP loopback port), interleaved so machine noise hits both:

* start: from :meth:`BotProcess.start` to the bot's ``Hello`` answered, for the
  random bot (a Python interpreter loading gRPC), median of ``--starts`` each;
* bare start: from :meth:`BotProcess.start` to the end of ``true``, the
  sandbox's own cost without an interpreter's, median of ``--starts`` each;
* decision: one ``Decide`` round trip of a real Amazing Flea Circus request to
  the running random bot, median and mean of ``--decisions`` each.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import grpc

from circus.v1 import bot_pb2
from referee import wire
from referee.clients import GrpcClient
from referee.games import get_game
from referee.process import BotProcess
from referee.sandbox import Isolation

COMMAND = "python -m bots.random_bot --address {address}"


def started(sandbox: bool, logs: Path) -> tuple[BotProcess, GrpcClient, float]:
    """A random bot started and greeted; the seconds that took."""
    began = time.perf_counter()
    bot = BotProcess("random", COMMAND, logs / f"{sandbox}.log", 1024,
                     isolation=Isolation(sandbox=sandbox))
    client = GrpcClient(bot.start())
    grpc.channel_ready_future(client.channel).result(timeout=30)
    client.hello(bot_pb2.HelloRequest(protocol_version="1.0.0"), timeout=30)
    return bot, client, time.perf_counter() - began


def start_times(starts: int, logs: Path) -> dict[bool, list[float]]:
    times: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(starts):
        for sandbox in (True, False):
            bot, client, seconds = started(sandbox, logs)
            times[sandbox].append(seconds)
            client.close()
            bot.stop()
    return times


def bare_times(starts: int, logs: Path) -> dict[bool, list[float]]:
    """Seconds from start to exit of ``true``, sandboxed and not."""
    times: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(starts):
        for sandbox in (True, False):
            bot = BotProcess("true", "true", logs / f"true-{sandbox}.log",
                             isolation=Isolation(sandbox=sandbox))
            began = time.perf_counter()
            bot.start()
            bot.wait(30)
            times[sandbox].append(time.perf_counter() - began)
            bot.stop()
    return times


def decision_times(decisions: int, logs: Path) -> dict[bool, list[float]]:
    state = get_game("flea-circus").new_state(3, "standard", 1)
    request = wire.decision_request(state, "bench/0", 1, 0,
                                    bot_pb2.Clock(move_ms=1000, bank_ms=10000))
    bots = {sandbox: started(sandbox, logs) for sandbox in (True, False)}
    times: dict[bool, list[float]] = {True: [], False: []}
    try:
        for _ in range(decisions):
            for sandbox, (_, client, _) in bots.items():
                began = time.perf_counter()
                client.decide(request, timeout=5)
                times[sandbox].append(time.perf_counter() - began)
    finally:
        for bot, client, _ in bots.values():
            client.close()
            bot.stop()
    return times


def table(starts: dict[bool, list[float]], bare: dict[bool, list[float]],
          decisions: dict[bool, list[float]]) -> str:
    rows = ["| | sandboxed (unix socket) | `sandbox: false` (TCP loopback) | difference |",
            "|---|---:|---:|---:|"]
    for label, times, scale, unit in (("bot start to Hello answered, median", starts, 1e3, "ms"),
                                      ("`true` started and ended, median", bare, 1e3, "ms"),
                                      ("Decide round trip, median", decisions, 1e6, "µs"),
                                      ("Decide round trip, mean", decisions, 1e6, "µs")):
        pick = statistics.mean if "mean" in label else statistics.median
        inside, outside = pick(times[True]) * scale, pick(times[False]) * scale
        rows.append(f"| {label} | {inside:.1f} {unit} | {outside:.1f} {unit} | "
                    f"{inside - outside:+.1f} {unit} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.sandbox", description=__doc__)
    parser.add_argument("--starts", type=int, default=10, help="bot starts per side")
    parser.add_argument("--decisions", type=int, default=2000, help="decisions per side")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="circus-bench-") as folder:
        logs = Path(folder)
        starts = start_times(args.starts, logs)
        bare = bare_times(args.starts, logs)
        decisions = decision_times(args.decisions, logs)
    print(f"{args.starts} starts and {args.decisions} decisions per side, interleaved\n")
    print(table(starts, bare, decisions))


if __name__ == "__main__":
    main()
