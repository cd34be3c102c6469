"""Starting and stopping ``command:`` bots as isolated child processes.

Each bot runs in its own process group (so stopping it stops everything it
started), with stdin closed, stdout and stderr appended to its own log file,
resource limits set by ``prlimit``, and a parent-death signal so that it
cannot outlive the referee. The port is chosen here and given to
the bot both in place of ``{port}`` and as ``CIRCUS_BOT_PORT``.
"""

from __future__ import annotations

import os
import queue
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from referee import reaper


def free_port() -> int:
    """A loopback port that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def bot_environment(port: int) -> dict[str, str]:
    """The bot's environment: ours, its port, and our interpreter first on PATH.

    Putting this interpreter's directory first makes ``python -m bots.x`` in a
    config run with the same virtual environment as the referee.
    """
    env = dict(os.environ)
    env["CIRCUS_BOT_PORT"] = str(port)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


class _Spawner:
    """Starts child processes from one long-lived thread.

    Children are started under ``setpriv --pdeathsig KILL``, so a bot dies
    with the referee even when the referee is killed with SIGKILL and cannot
    clean up. The kernel sends that signal when the *thread* that forked the
    child ends, so every child is forked from this one thread, which lives as
    long as the process.
    """

    def __init__(self) -> None:
        self.requests: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=self._serve, name="bot-spawner", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            args, kwargs, reply = self.requests.get()
            try:
                reply.put((subprocess.Popen(*args, **kwargs), None))
            except OSError as error:
                reply.put((None, error))

    def popen(self, *args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        reply: queue.Queue = queue.Queue(maxsize=1)
        self.requests.put((args, kwargs, reply))
        process, error = reply.get()
        if error is not None:
            raise error
        return process


_spawner: _Spawner | None = None
_spawner_lock = threading.Lock()


def spawn(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = _Spawner()
    return _spawner.popen(*args, **kwargs)


def dies_with_referee(argv: list[str]) -> list[str]:
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", "--", *argv] if setpriv else argv


def limited(argv: list[str], memory_mb: int | None, cpu_seconds: int | None) -> list[str]:
    """Wrap ``argv`` in ``prlimit`` for a memory and CPU-time limit.

    Memory is limited by the data segment (RLIMIT_DATA: heap and private
    writable mappings), not the address space: runtimes such as V8 and glibc's
    per-thread arenas reserve gigabytes of address space they never use.
    """
    limits = []
    if memory_mb:
        limits.append(f"--data={memory_mb * 1024 * 1024}")
    if cpu_seconds:
        limits.append(f"--cpu={cpu_seconds}")
    prlimit = shutil.which("prlimit")
    if not limits or prlimit is None:
        return argv
    return [prlimit, *limits, "--", *argv]


class BotProcess:
    """One run of a bot's command; :meth:`start` may be called again after a crash."""

    def __init__(self, name: str, command: str, log_path: Path,
                 memory_mb: int | None = None, cpu_seconds: int | None = None) -> None:
        self.name = name
        self.command = command
        self.log_path = log_path
        self.memory_mb = memory_mb
        self.cpu_seconds = cpu_seconds
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.runs = 0

    def start(self) -> str:
        """Start the command and return the address it is to listen on."""
        self.port = free_port()
        try:
            argv = shlex.split(self.command.replace("{port}", str(self.port)))
        except ValueError as error:
            raise OSError(f"cannot parse command {self.command!r}: {error}") from None
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.runs += 1
        with open(self.log_path, "ab") as log:
            log.write(f"=== run {self.runs} of {self.name}: {self.command} "
                      f"(port {self.port}, {time.strftime('%Y-%m-%d %H:%M:%S')})\n".encode())
            log.flush()
            self.process = spawn(
                dies_with_referee(limited(argv, self.memory_mb, self.cpu_seconds)),
                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                env=bot_environment(self.port), start_new_session=True)
        reaper.watch(self.process.pid)
        return f"127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def exit_status(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def exit_description(self) -> str:
        """How the bot ended, for reports: "exited with status 3" or "killed by SIGABRT"."""
        status = self.exit_status()
        if status is None or status >= 0:
            return f"exited with status {status}"
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"

    def stop(self, grace: float = 1.0) -> None:
        """Stop the bot's whole process group: SIGTERM, then SIGKILL."""
        if self.process is None:
            return
        for signum, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(self.process.pid, signum)
            except ProcessLookupError:
                break
            try:
                self.process.wait(timeout=wait)
                # The leader is gone; make sure nothing it started survives it.
                os.killpg(self.process.pid, signal.SIGKILL)
            except subprocess.TimeoutExpired:
                continue
            except ProcessLookupError:
                pass
            break
        reaper.forget(self.process.pid)

    def log_tail(self, lines: int = 5) -> str:
        """The last lines of the bot's log, for error messages."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return " | ".join(line for line in text.strip().splitlines()[-lines:])
