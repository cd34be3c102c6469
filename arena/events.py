"""Server-sent events: the service's threads say what changed, open pages hear it.

An event is only a name (``board``: a game or a gate changed the public board;
``versions``: a gate ended), never data: each page fetches its own part again with its
own credentials, so a public stream carries nothing private.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
import weakref
from collections import Counter
from dataclasses import dataclass
from typing import AsyncIterator, Callable

#: A comment line this often keeps proxies from closing a quiet stream.
KEEPALIVE_S = 15.0
#: The ladder's matches tell the board at most this often (:class:`Coalesced`).
BOARD_EVERY_S = 1.0


@dataclass(eq=False)
class Listener:
    """One open stream: where it came from, and the queue its loop reads."""

    address: str
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[str]


class Events:
    """The open streams, fed from any thread. A stream's listener is held only by its
    stream, so one whose response never started (its client gone at once) is forgotten
    with it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.listening: weakref.WeakSet[Listener] = weakref.WeakSet()
        # How many times each name was published: what is made once per change
        # (arena.cache) is made again when its name's count moves.
        self.counts: Counter[str] = Counter()

    def publish(self, *names: str) -> None:
        """Tell every open stream; safe to call from any thread."""
        with self.lock:
            self.counts.update(names)
            listeners = list(self.listening)
        for listener in listeners:
            for name in names:
                try:
                    listener.loop.call_soon_threadsafe(listener.queue.put_nowait, name)
                except RuntimeError:   # its loop closed as the service stopped
                    pass

    def listen(self, address: str, most: int) -> Listener | None:
        """A new stream's listener, in the running event loop; None if ``address``
        already holds ``most`` streams open (one client must not hold the service's
        connections)."""
        with self.lock:
            if sum(listener.address == address for listener in self.listening) >= most:
                return None
            listener = Listener(address, asyncio.get_running_loop(), asyncio.Queue())
            self.listening.add(listener)
            return listener

    async def stream(self, listener: Listener) -> AsyncIterator[str]:
        """One page's stream, in the text/event-stream format, until it closes."""
        try:
            yield ": connected\n\n"
            while True:
                try:
                    name = await asyncio.wait_for(listener.queue.get(), KEEPALIVE_S)
                except asyncio.TimeoutError:
                    yield ": keepalive\n\n"
                    continue
                yield f"event: {name}\ndata: {name}\n\n"
        finally:
            with self.lock:
                self.listening.discard(listener)

    def published(self, name: str) -> int:
        with self.lock:
            return self.counts[name]

    def listeners(self) -> int:
        with self.lock:
            return len(self.listening)


class Coalesced:
    """``publish()`` at most once per ``interval`` seconds, the last call never lost: a
    call within the interval after the last publish is published at its end, with every
    other call made meanwhile. A ladder of quick matches ends several a second, and
    every open page fetches the board again at each event: once a second is as live."""

    def __init__(self, publish: Callable[[], None], interval: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.publish = publish
        self.interval = interval
        self.clock = clock
        self.lock = threading.Lock()
        # One publish at a time: the timer's and a caller's never overlap.
        self.publishing = threading.Lock()
        self.last = -math.inf
        self.due: threading.Timer | None = None
        self.cancelled = False

    def __call__(self) -> None:
        with self.lock:
            if self.due is not None or self.cancelled:
                return   # a publish is due already: it tells this change too
            wait = self.last + self.interval - self.clock()
            if wait > 0:
                self.due = threading.Timer(wait, self._due)
                self.due.daemon = True
                self.due.start()
                return
            self.last = self.clock()
        with self.publishing:
            self.publish()

    def _due(self) -> None:
        with self.lock:
            if self.cancelled:
                return
            self.due = None
            self.last = self.clock()
        with self.publishing:
            self.publish()

    def cancel(self) -> None:
        """Publish nothing more, and return once a publish under way is done: a stopping
        service closes what its publish reads."""
        with self.lock:
            self.cancelled = True
            if self.due is not None:
                self.due.cancel()
                self.due = None
        with self.publishing:
            pass
