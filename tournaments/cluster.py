"""The referee's side of a Dask cluster: connect, start and stop the workers' bots, check.

The referee stays the one coordinator and the only writer of the store; the
workers play games (``tournaments.worker``) and keep the bots. Dask
distributed is an optional extra (``pip install 'circus-referee[cluster]'``),
imported only here and only when a cluster is asked for.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from referee.errors import CircusError
from tournaments.config import TournamentConfig
from tournaments.worker import RunSpec, check_here, finish_run, start_lineup

INSTALL_HINT = ("--cluster needs Dask distributed, which is not installed: "
                "pip install 'circus-referee[cluster]'")
# How long connecting to the scheduler, and then waiting for a first worker, may take.
CONNECT_S = 10.0


class ClusterError(CircusError):
    """The cluster cannot be used; the message is one line for the user."""


def connect(address: str, timeout: float | None = None) -> Any:
    """A Dask client of the scheduler at ``address`` with at least one worker, within
    ``timeout`` seconds (default CONNECT_S) each."""
    timeout = timeout or CONNECT_S
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError(INSTALL_HINT) from None
    quiet_dask()
    try:
        client = Client(address, timeout=timeout)
    except Exception as error:  # refused, timed out, a bad address, or not a Dask peer at all
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: "
                           f"{first_line(error)}") from None
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (OSError, TimeoutError):
        client.close()
        raise ClusterError(f"the Dask scheduler at {address} has no worker (waited "
                           f"{timeout:g}s): start some with `dask worker {address}`") from None
    return client


def first_line(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error).strip() else type(error).__name__


def quiet_dask() -> None:
    """A scheduler that cannot be reached, or is lost, is our one line, not Dask's
    tracebacks: its loggers (each has a level of its own) keep only critical ones."""
    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name.split(".")[0] == "distributed":
            logging.getLogger(name).setLevel(logging.CRITICAL)


def on_each_worker(client: Any, function: Callable[..., Any], *args: Any) -> dict[str, Any]:
    """``function(*args)`` once on every worker, as a task on one of its threads (a start
    of bots must not block the worker's event loop); worker address → what it returned,
    or the exception it raised."""
    workers = sorted(client.nthreads())
    pinned = {worker: client.submit(function, *args, workers=[worker],
                                    allow_other_workers=False, pure=False)
              for worker in workers}
    replies: dict[str, Any] = {}
    for worker, future in pinned.items():
        try:
            replies[worker] = future.result()
        except Exception as error:  # a worker that failed or left: reported, not fatal
            replies[worker] = error
    return replies


@dataclass
class Started:
    """The bots as started on the workers: errors by bot, and each bot's Hello identity."""

    errors: dict[str, str]
    identities: dict[str, tuple[str, str, str]]


def start_bots(client: Any, spec: RunSpec, epoch: int, names: tuple[str, ...]) -> Started:
    """Start the first epoch's bots on every worker; a bot failing on any worker fails."""
    errors: dict[str, str] = {}
    identities: dict[str, tuple[str, str, str]] = {}
    for worker, reply in on_each_worker(client, start_lineup, spec, epoch, names).items():
        if isinstance(reply, Exception):
            raise ClusterError(f"worker {worker} could not start the bots: "
                               f"{type(reply).__name__}: {reply}")
        for name, (error, identity) in reply.items():
            if error is not None:
                errors.setdefault(name, error.replace(f"bot {name!r}:",
                                                      f"bot {name!r} on worker {worker}:", 1))
            elif identity is not None:
                identities.setdefault(name, identity)
    return Started(errors, identities)


def finish(client: Any, run: str, log_dir: Path) -> None:
    """Stop the run's bots on every worker and keep their logs under ``log_dir/workers/``.

    A task on each worker like any other, not ``Client.run``: that runs the function on
    the worker's event loop, which stopping processes must not block (the worker then
    stops answering). After Ctrl-C it runs once a game in play on the worker ends.
    """
    for worker, logs in on_each_worker(client, finish_run, run).items():
        if isinstance(logs, Exception):
            continue
        folder = log_dir / "workers" / worker_folder(worker)
        for name, contents in logs.items():
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(contents)


def worker_folder(worker: str) -> str:
    """A worker's address as a folder name: tcp://10.0.0.5:40123 → 10.0.0.5-40123."""
    return worker.split("://", 1)[-1].replace(":", "-").replace("/", "-")


def check(client: Any, config: TournamentConfig | None) -> dict[str, Any]:
    """What each worker says of itself and, with a config, of each of its bots."""
    return on_each_worker(client, check_here, config)
