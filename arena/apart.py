"""The playing thread's ladder in a child process of its own.

A match's games run in the process that plays them: the referee's engine and protocol
work, and all of an in-process bot's (a ``python:`` entry: the organiser's bosses), hold
Python's interpreter lock while they play. In the service's own process the pages'
requests would wait for that lock between every step of their own, and the ladder for
theirs (measured: while the board was fetched the ladder played 10 games a second, not
60 to 80; docs/performance.md, "The arena under load"). So the playing thread hands
what it asks of its ladder to one in a child process, which dies with the service (a
kill of the service kills it: no orphan plays on, and the restarted service resumes its
match as after any kill), and the pages read the store as before.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Sequence

#: Linux's prctl option that signals a process when the thread that started it ends.
PR_SET_PDEATHSIG = 1

# The child's ladder, made once by its initializer.
_ladder: Any = None


class LadderApart:
    """A :class:`arena.ladder.Ladder` on ``db`` with ``settings``, in a child process: what
    the playing thread calls (``play_next``, ``status``, the finals) run there, their
    answers (or errors) here.

    ``play_on_s``: how long ``play_next`` plays on, batch after batch with the entries it
    was given, before it answers with the last match (0: one batch). Each call is a round
    trip through both processes' threads, 5 to 9 ms on a busy machine, a tenth of a
    short match's time; the pause, the cap and the deadline still hold at every batch
    (the child reads them in the store), and new entries wait at most that long.
    """

    def __init__(self, db: Path, settings: dict[str, Any], play_on_s: float = 0.0) -> None:
        self.db = db
        self.settings = settings
        self.play_on_s = play_on_s
        self.pool = self._child()

    def _child(self) -> ProcessPoolExecutor:
        # spawn, not fork: the service's threads hold locks a forked child would inherit.
        return ProcessPoolExecutor(1, mp_context=get_context("spawn"), initializer=_start,
                                   initargs=(self.db, self.settings, os.getpid()))

    def play_next(self, entries: Sequence[Any]) -> Any | None:
        return self._there("play_on", list(entries), self.play_on_s)

    def status(self) -> Any:
        return self._there("status")

    def final_entries(self, entries: Sequence[Any]) -> Sequence[Any]:
        found: Sequence[Any] = self._there("final_entries", list(entries))
        return found

    def run_finals(self, entries: Sequence[Any]) -> Any:
        return self._there("run_finals", list(entries))

    def close(self) -> None:
        self.pool.shutdown()

    def _there(self, method: str, *args: Any) -> Any:
        """The child's answer. A child that died (killed, out of memory) is replaced
        for the next call, and this one fails as a match that failed: the playing
        thread tries again after its pause, and the match is resumed."""
        try:
            return self.pool.submit(_call, method, *args).result()
        except BrokenProcessPool:
            self.pool.shutdown()
            self.pool = self._child()
            raise


def _start(db: Path, settings: dict[str, Any], parent: int) -> None:
    """In the child: die with the thread that started it, then make the ladder."""
    global _ladder
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):   # not Linux: the child ends when its pipe closes
        pass
    if os.getppid() != parent:   # the service died before the prctl held
        os._exit(1)
    from arena.ladder import Ladder
    _ladder = Ladder(db, settings)


def _call(method: str, *args: Any) -> Any:
    return getattr(_ladder, method)(*args) if method != "play_on" else _play_on(*args)


def _play_on(entries: list[Any], seconds: float) -> Any | None:
    """In the child: the ladder's next batches for ``seconds`` (at least one, unless none
    may be played); the last match played, or None. A batch that fails after others were
    played ends the call with those (the board is told of them), and the next call meets
    its failure again if it lasts (a match left unfinished is played first)."""
    until = time.monotonic() + seconds
    last = _ladder.play_next(entries)
    while last is not None and time.monotonic() < until:
        try:
            played = _ladder.play_next(entries)
        except Exception:   # noqa: BLE001 - raised again by the next call
            break
        if played is None:
            break
        last = played
    return last
