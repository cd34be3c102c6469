"""The ladder's background thread: the versions that passed their gate, handed to the
ladder (:mod:`arena.ladder`) to play, again and again, while the service runs.

The ladder is reached through :class:`LadderLike`, the contract it keeps: made from the
database's path and the arena's config, it plays the next games of the entries it is
given (``(version id, entrant, bots.yaml entry)``, each entrant's newest version that
passed and is not disqualified) and says its standings.
"""

from __future__ import annotations

import importlib
import threading
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

from arena.store import ArenaStore

#: ``(version id, entrant, bots.yaml entry)``
LadderEntry = tuple[str, str, dict[str, Any]]
#: How long the thread waits for a change when too few versions can play.
IDLE_S = 5.0


class LadderLike(Protocol):
    def play_next(self, entries: list[LadderEntry]) -> None: ...

    def standings(self) -> Sequence[Any]: ...


def load_ladder(db: Path, config: dict[str, Any]) -> LadderLike | None:
    """The ladder of :mod:`arena.ladder`, or None where this install has none."""
    try:
        module = importlib.import_module("arena.ladder")
    except ModuleNotFoundError as error:
        if error.name != "arena.ladder":
            raise
        return None
    ladder: LadderLike = module.Ladder(db, config)
    return ladder


def entries(store: ArenaStore) -> list[LadderEntry]:
    return [(version.id, version.entrant, version.entry) for version in store.active()]


class LadderThread:
    """Plays while the service runs; ``changed`` is called after each of the ladder's
    steps, ``wake`` set when the entries may have changed."""

    def __init__(self, ladder: LadderLike, store: ArenaStore,
                 changed: Callable[[], None]) -> None:
        self.ladder = ladder
        self.store = store
        self.changed = changed
        self.wake = threading.Event()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="arena-ladder", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.wake.set()
        self.thread.join()

    def _run(self) -> None:
        while not self.stopping.is_set():
            playing = entries(self.store)
            if len(playing) < 2:
                self.wake.wait(IDLE_S)
                self.wake.clear()
                continue
            self.ladder.play_next(playing)
            self.changed()
