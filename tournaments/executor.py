"""Where a tournament's games run: the one small interface the runner calls.

The runner hands an executor the games to play and a function that plays one;
the executor gives back each result as it finishes, in any order (the runner
stores and rates them in schedule order). Today games run on a local thread
pool; a cluster backend is another class with the same two methods.
"""

from __future__ import annotations

from concurrent import futures
from typing import Callable, Iterable, Iterator, Protocol, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


class Executor(Protocol):
    def results(self, play: Callable[[Item], Result],
                items: Iterable[Item]) -> Iterator[tuple[Item, Result]]:
        """Play every item; yield (item, result) as each finishes."""

    def close(self) -> None:
        """Drop what has not started and wait for what has."""


class ThreadExecutor:
    """Games on ``concurrency`` threads of this process."""

    def __init__(self, concurrency: int) -> None:
        self.pool = futures.ThreadPoolExecutor(concurrency, thread_name_prefix="match")

    def results(self, play: Callable[[Item], Result],
                items: Iterable[Item]) -> Iterator[tuple[Item, Result]]:
        pending = {self.pool.submit(play, item): item for item in items}
        for future in futures.as_completed(pending):
            yield pending[future], future.result()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
