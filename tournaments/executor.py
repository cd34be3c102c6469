"""Where a tournament's games run: the one small interface the runner calls.

The runner hands an executor the games to play and a function that plays one;
the executor gives back each result as it finishes, in any order (the runner
stores and rates them in schedule order). Games run on a local thread pool
(:class:`ThreadExecutor`) or as tasks of a Dask cluster (:class:`DaskExecutor`).
"""

from __future__ import annotations

import itertools
import threading
import time
from concurrent import futures
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Protocol, TypeVar

from referee.interrupts import interrupt_if_asked

Item = TypeVar("Item")
Result = TypeVar("Result")


class Executor(Protocol):
    def results(self, play: Callable[[Any], Result],
                items: Iterable[Item]) -> Iterator[tuple[Item, Result]]:
        """Play every item; yield (item, result) as each finishes. ``play`` takes the item
        (on threads) or what the executor made of it to send (a Dask task's argument),
        hence Any."""

    def close(self) -> None:
        """Drop what has not started and wait for what has."""


#: Games queued per thread beyond the one it plays, so a thread finishing a game
#: starts the next at once while the runner stores the last.
AHEAD = 1
# How long one wait for the next result lasts, so a Ctrl-C a finaliser swallowed is heard
# all the same (a lost scheduler ends the wait at once).
POLL_S = 1.0


@dataclass(frozen=True)
class KeptThreads:
    """Threads a caller keeps from run to run: a ladder's matches, each a run of a few
    games, where a thread's start costs a busy machine as much as a quick game's move.
    ``games``: a pool of the runs' ``concurrency`` threads; ``renewal``: one thread, that
    starts the bots of the next seat rotation while one plays."""

    games: futures.ThreadPoolExecutor
    renewal: futures.ThreadPoolExecutor

    @classmethod
    def made(cls, concurrency: int) -> KeptThreads:
        return cls(futures.ThreadPoolExecutor(concurrency, thread_name_prefix="match"),
                   futures.ThreadPoolExecutor(1, thread_name_prefix="renewal"))

    def close(self) -> None:
        self.games.shutdown()
        self.renewal.shutdown()


class ThreadExecutor:
    """Games on ``concurrency`` threads of this process: a pool of its own, or
    ``threads``, a pool of ``concurrency`` threads its caller keeps (:class:`KeptThreads`).

    Only ``concurrency × (1 + AHEAD)`` games are submitted at a time, and each is
    forgotten once yielded: submitting every game up front kept a future, and then
    its whole MatchResult (actions, times), per game of the tournament until the
    last one ended, so the referee's memory grew with the number of games.
    """

    def __init__(self, concurrency: int, asked: threading.Event | None = None,
                 threads: futures.ThreadPoolExecutor | None = None) -> None:
        self.own = threads is None
        self.pool = threads or futures.ThreadPoolExecutor(concurrency,
                                                          thread_name_prefix="match")
        self.window = concurrency * (1 + AHEAD)
        self.asked = asked
        # The games submitted and not yet yielded.
        self.pending: dict[futures.Future, Any] = {}

    def results(self, play: Callable[[Item], Result],
                items: Iterable[Item]) -> Iterator[tuple[Item, Result]]:
        waiting = iter(items)
        pending = self.pending
        self._fill(play, waiting, pending)
        while pending:
            done, _ = futures.wait(pending, timeout=POLL_S, return_when=futures.FIRST_COMPLETED)
            interrupt_if_asked(self.asked)
            for future in [future for future in pending if future in done]:  # submission order
                yield pending.pop(future), future.result()
            self._fill(play, waiting, pending)

    def _fill(self, play: Callable[[Item], Result], waiting: Iterator[Item],
              pending: dict[futures.Future, Item]) -> None:
        for item in itertools.islice(waiting, max(0, self.window - len(pending))):
            pending[self.pool.submit(play, item)] = item

    def close(self) -> None:
        for future in self.pending:
            future.cancel()
        futures.wait(self.pending)
        if self.own:
            self.pool.shutdown(wait=True)


class ClusterLost(Exception):
    """The cluster cannot go on (its scheduler went away, or a game killed worker after
    worker); the games returned before are kept.

    Not a :class:`~referee.errors.CircusError`: the executor cannot tell the user what
    they need (how many games are stored where, how to resume), so its one caller, the
    runner, turns it into a ``TournamentError`` that says so."""


# How often the number of workers (and so the games in flight) is looked up again.
WORKERS_EVERY_S = 2.0


class DaskExecutor:
    """Games as tasks of a Dask cluster, ``per_worker`` games in flight per worker.

    ``play`` and the tasks must be picklable, as they go to other machines: each
    item is made into its task by ``prepare`` as late as possible, when a slot
    frees up, so a task carries what the referee knows at that moment (which bots
    are suspended). A worker that dies takes its games with it and Dask sends them
    to another worker, where they are played again from their seeds; each item
    still gives exactly one result. A lost scheduler raises :class:`ClusterLost`.
    """

    def __init__(self, client: Any, per_worker: int, prepare: Callable[[Any], Any],
                 asked: threading.Event | None = None) -> None:
        self.asked = asked
        self.client = client
        self.per_worker = per_worker
        self.prepare = prepare
        self.workers, self.counted = 1, float("-inf")
        # The games sent and not yet returned, by their Dask futures.
        self.pending: dict[Any, Any] = {}

    def worker_count(self) -> int:
        """The workers there now (at least one), looked up at most every WORKERS_EVERY_S."""
        if time.monotonic() - self.counted >= WORKERS_EVERY_S:
            self.workers = max(1, len(self.client.nthreads()))
            self.counted = time.monotonic()
        return self.workers

    def results(self, play: Callable[[Any], Result],
                items: Iterable[Item]) -> Iterator[tuple[Item, Result]]:
        from distributed import wait

        waiting, pending = iter(items), self.pending
        self._fill(play, waiting, pending)
        while pending:
            try:
                done, _ = wait(list(pending), timeout=POLL_S, return_when="FIRST_COMPLETED")
            except futures.TimeoutError:
                interrupt_if_asked(self.asked)
                continue
            except futures.CancelledError:
                raise ClusterLost(LOST) from None
            interrupt_if_asked(self.asked)
            for future in done:
                yield pending.pop(future), self._result(future)
            self._fill(play, waiting, pending)

    def _fill(self, play: Callable[[Any], Result], waiting: Iterator[Item],
              pending: dict[Any, Item]) -> None:
        room = self.per_worker * self.worker_count() - len(pending)
        for item in itertools.islice(waiting, max(0, room)):
            pending[self.client.submit(play, self.prepare(item), pure=False)] = item

    def _result(self, future: Any) -> Any:
        from distributed import KilledWorker
        from distributed.comm import CommClosedError

        try:
            return future.result()
        except (futures.CancelledError, CommClosedError):
            # A scheduler gone while its result was fetched: the connection closes under it.
            raise ClusterLost(LOST) from None
        except KilledWorker as error:
            raise ClusterLost(f"a game was running on each of several workers that died "
                              f"({error})") from None

    def close(self) -> None:
        """Cancel the games not yet returned; the referee stops the workers' bots itself."""
        outstanding, self.pending = list(self.pending), {}
        if outstanding and self.client.status == "running":
            self.client.cancel(outstanding)


LOST = "the connection to its scheduler broke"
