"""The processes the over-the-wire benchmarks talk to: random bots and the echo server.

Started once per ``python -m bench`` run and shared by the wire and scaling benchmarks.
Each is a child process of its own, started the way the referee starts ``command:`` bots
(its own process group, stdin closed, output to a log, dying with its parent).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import grpc

from referee.process import BotProcess, dies_with_referee, free_port, spawn
from referee.sandbox import Isolation

ROOT = Path(__file__).resolve().parent.parent


class Farm:
    """``bots`` random bot processes and one echo server, until :meth:`close`.

    ``sandbox``: the bots sandboxed, as the referee starts ``command:`` bots by default (a
    smoke run's without: no benchmark of the farm measures the sandbox, and each start
    costs more CPU in one)."""

    def __init__(self, bots: int = 4, reply_bytes: int = 4, workdir: Path | None = None,
                 startup_s: float = 30.0, sandbox: bool = True) -> None:
        self.own_workdir = workdir is None
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="circus-bench-"))
        self.processes: list[BotProcess] = []
        self.addresses: list[str] = []
        self.echo = None
        self.echo_address = ""
        try:
            for number in range(bots):
                process = BotProcess(f"random{number}",
                                     "python -m bots.random_bot --address {address}",
                                     self.workdir / "logs" / f"random{number}.log",
                                     isolation=Isolation(sandbox=sandbox))
                self.addresses.append(process.start())
                self.processes.append(process)
            self.echo_address = f"127.0.0.1:{free_port()}"
            with open(self.workdir / "logs" / "echo.log", "ab") as log:
                self.echo = start_echo(self.echo_address, log, reply_bytes=reply_bytes)
            for address in [*self.addresses, self.echo_address]:
                wait_ready(address, startup_s)
            self.addresses = [shareable(address) for address in self.addresses]
        except BaseException:
            self.close()
            raise

    def process_groups(self) -> tuple[int, int]:
        """The first bot's process group and the echo server's, for their CPU time."""
        bot, echo = self.processes[0].process, self.echo
        assert bot is not None and echo is not None  # both started in __init__
        return bot.pid, echo.pid

    def close(self) -> None:
        for process in self.processes:
            process.stop()
        if self.echo is not None:
            stop_echo(self.echo)
        if self.own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> "Farm":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def shareable(address: str) -> str:
    """A sandboxed bot's address as another process reaches it (the scaling benchmark's
    referee runs in a child process): the link the referee makes points at one of this
    process's descriptors, ``/proc/self/fd/N``, which another process names by our pid."""
    if address.startswith("unix:"):
        target = os.readlink(address.removeprefix("unix:"))
        if target.startswith("/proc/self/"):
            return "unix:" + target.replace("/proc/self/", f"/proc/{os.getpid()}/", 1)
    return address


def start_echo(address: str, log: Any = subprocess.DEVNULL, aio: bool = False,
               reply_bytes: int = 4) -> subprocess.Popen:
    """A ``bench.echo_server`` process listening on ``address``, dying with this one."""
    argv = [sys.executable, "-m", "bench.echo_server", "--address", address,
            "--reply-bytes", str(reply_bytes), *(["--aio"] if aio else [])]
    return spawn(dies_with_referee(argv), cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log,
                 stderr=log, start_new_session=True)


def stop_echo(process: subprocess.Popen) -> None:
    """End an echo server: SIGTERM (it stops its server), SIGKILL if it lingers."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_ready(address: str, timeout_s: float) -> None:
    channel = grpc.insecure_channel(address)
    try:
        grpc.channel_ready_future(channel).result(timeout=timeout_s)
    except grpc.FutureTimeoutError:
        raise RuntimeError(f"nothing answered on {address} within {timeout_s:.0f}s") from None
    finally:
        channel.close()
