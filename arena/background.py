"""The service's background work: one daemon thread per kind, woken when there is news."""

from __future__ import annotations

import threading


class Background:
    """A daemon thread running :meth:`_run` until :meth:`stop`; ``wake`` cuts its wait short
    (a new upload to gate, new entries to play), ``stopping`` tells it to end."""

    def __init__(self, name: str) -> None:
        self.wake = threading.Event()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.wake.set()
        self.thread.join()

    def _run(self) -> None:
        raise NotImplementedError
