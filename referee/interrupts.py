"""Ctrl-C and SIGTERM as a request to stop that cannot be lost.

Python's own SIGINT handler raises KeyboardInterrupt wherever the main thread happens to
be. When that is a finaliser the garbage collector runs (a gRPC channel's ``__del__``,
say), the exception is printed as "Exception ignored in ..." and dropped: the program
goes on as if nothing was asked, and a bot holding a decision keeps it waiting for its
full move time. Here the handler only sets an event, which nothing can drop; the main
thread does nothing but wait for the work's results or that event, and the work, on a
thread of its own, is stopped by whoever owns it (its bots killed, so every wait on them
ends at once).
"""

from __future__ import annotations

import functools
import os
import queue
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import NoReturn, TypeVar

Item = TypeVar("Item")

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# How often the waiting main thread looks at the stop event between results.
_LOOK_S = 0.05


@contextmanager
def signals_as_stop(raising: bool = False) -> Iterator[threading.Event]:
    """SIGINT and SIGTERM set the event yielded, until the block ends (one the program
    was started ignoring stays ignored).

    ``raising``: they raise KeyboardInterrupt as well, for a main thread that also waits
    in places no look at the event reaches (a bot's start); an interrupt a finaliser
    swallows is still in the event, and the next :func:`interrupt_if_asked` raises it.
    """
    stop = threading.Event()

    def handle(signum: int, frame: object) -> None:
        stop.set()
        if raising:
            raise KeyboardInterrupt

    # A signal ignored when the program started stays ignored, as Python's own handler
    # leaves it (a job started in the background of a script ignores Ctrl-C).
    previous = {number: signal.signal(number, handle) for number in STOP_SIGNALS
                if signal.getsignal(number) is not signal.SIG_IGN}
    try:
        yield stop
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def unstoppable_note() -> str | None:
    """One line for a program started with SIGINT ignored, where Ctrl-C does nothing (nohup,
    a job in the background of a script, some CI runners: Python keeps the signal ignored,
    and so does :func:`signals_as_stop`), naming what stops it instead; None where Ctrl-C
    works."""
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        return None
    if signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:
        return (f"note: this process was started ignoring Ctrl-C and SIGTERM: only "
                f"`kill -KILL {os.getpid()}` stops it (its bots die with it; run the same "
                "command again to resume)")
    return (f"note: Ctrl-C does nothing here (this process was started ignoring SIGINT, as "
            f"nohup does); `kill {os.getpid()}` (SIGTERM) stops it as Ctrl-C would")


def interrupt_if_asked(stop: threading.Event | None) -> None:
    """Raise KeyboardInterrupt here, at a safe place, if a stop was asked for."""
    if stop is not None and stop.is_set():
        raise KeyboardInterrupt


def until_stopped(produce: Callable[[], Iterator[Item]], stop: threading.Event,
                  wind_down_s: float) -> Iterator[Item]:
    """The items of ``produce()``, made on a thread of their own, until ``stop`` is set.

    The producer watches ``stop`` itself and makes nothing after it; what it made before
    is still given. Then it is left ``wind_down_s`` to end (its clean-up runs on its own
    thread), and KeyboardInterrupt is raised here, in the caller's code, where nothing
    can swallow it. A producer's exception is raised here too.
    """
    # Each result is handed over as a function that gives the item or raises the error;
    # None is the end.
    results: queue.Queue[Callable[[], Item] | None] = queue.Queue()
    producer = threading.Thread(target=_produce_into, args=(produce, results),
                                name="until-stopped", daemon=True)
    producer.start()
    while True:
        try:
            result = results.get(timeout=_LOOK_S)
        except queue.Empty:
            if stop.is_set():
                break
            continue
        if result is None:
            if stop.is_set():
                break   # it ended because it was stopped: still an interrupt
            return
        yield result()
    producer.join(wind_down_s)
    raise KeyboardInterrupt


def _produce_into(produce: Callable[[], Iterator[Item]],
                  results: queue.Queue[Callable[[], Item] | None]) -> None:
    try:
        for item in produce():
            results.put(functools.partial(_given, item))
    except BaseException as error:  # handed to the caller's thread, raised there
        results.put(functools.partial(_raise, error))
    else:
        results.put(None)


def _given(item: Item) -> Item:
    return item


def _raise(error: BaseException) -> NoReturn:
    raise error
