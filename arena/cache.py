"""What the pages show to everyone, made once per change rather than once per request.

The public board is the same for every visitor, and it changes only when the service
publishes a ``board`` event (a match ended, a gate ended, a version was disqualified):
so it is made on the first request after each such event, by one thread while the
others wait for it, and every other request is served what was made.
"""

from __future__ import annotations

import threading
from typing import Callable, Generic, TypeVar

T = TypeVar("T")


class PerChange(Generic[T]):
    """``make()``'s value, made again on the first ``get`` after ``changes()`` moved."""

    def __init__(self, make: Callable[[], T], changes: Callable[[], int]) -> None:
        self.make = make
        self.changes = changes
        self.lock = threading.Lock()
        self.made: tuple[int, T] | None = None

    def get(self) -> T:
        with self.lock:
            # The count is read before the value is made: a change while it is made
            # makes it again at the next request, never keeps it stale.
            now = self.changes()
            if self.made is None or self.made[0] != now:
                self.made = (now, self.make())
            return self.made[1]
