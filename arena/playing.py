"""The ladder's background thread: the versions that passed their gate, handed to the
ladder (:mod:`arena.ladder`) to play, again and again, while the service runs.

The ladder is reached through :class:`LadderLike`, the part of its contract the service
uses: made from the database's path and the arena config's ``ladder:`` mapping, it plays
the next match of the entries it is given (each entrant's newest version that passed its
gate and is not disqualified), or says there is none to play now; it says its standings,
its status and its grade sheet, and is paused and resumed (a flag in the store, which
every ladder on it reads). Each thread that uses a ladder makes its own
(:class:`LadderHook`).

At the deadline the thread plays the finals among each entrant's final version, once
(a restart finds them stored, or resumes them), and hands their tournament to the
service to publish.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

from arena.apart import LadderApart
from arena.background import Background
from arena.store import ArenaStore

LOG = logging.getLogger(__name__)
#: How long the thread waits for a change when the ladder has nothing to play, or after
#: a match that failed.
IDLE_S = 5.0
#: How long the ladder's child plays on with the entries it was given before it answers
#: (:class:`arena.apart.LadderApart`): the test matches, the board's event (told at
#: most once a second anyway) and a new version wait at most that long.
PLAY_ON_S = 0.25


class LadderPlayer(Protocol):
    """What the playing thread uses of a ladder."""

    def play_next(self, entries: Sequence[Any]) -> Any | None:
        """Play the next match and return it, or None if none may be played now."""

    def status(self) -> Any:
        """Whether it is paused, frozen (``frozen``), past its deadline (``past_deadline``);
        its games in the last hour."""

    def final_entries(self, entries: Sequence[Any]) -> Sequence[Any]:
        """The finals' field: each entrant's final version among ``entries``."""

    def run_finals(self, entries: Sequence[Any]) -> Any:
        """Play (or resume) the finals, then freeze; their standing (``tournament``)."""

    def close(self) -> None: ...


class LadderLike(LadderPlayer, Protocol):
    def standings(self) -> Sequence[Any]: ...

    def grades_csv(self) -> str:
        """The promotion tests as a grade sheet: a row per version and league."""

    def promotions(self, versions: Sequence[str]) -> dict[str, Sequence[Any]]:
        """Each version's promotion tests, with their evidence."""

    def similar(self) -> Sequence[Any]:
        """The pairs of versions flagged for playing alike, with their evidence."""

    def collusion(self) -> Any:
        """The collusion check over the rated matches (a ``CollusionCheck``)."""

    def verdict(self, versions: Sequence[str]) -> Any:
        """The deal sets' verdict on the order of ``versions`` (a ``Verdict``)."""

    def pause(self) -> None: ...

    def set_deadline(self, when: datetime | None) -> None:
        """Move the deadline (None: back to the config's)."""

    def resume(self) -> None: ...


@dataclass(frozen=True)
class LadderHook:
    """How the service reaches a ladder: a new one for each thread that uses it, and its
    entry of a version (its id, its entrant, its bots.yaml entry); ``playing`` makes the
    playing thread's, if not ``make`` (the real ladder's plays in a child process:
    :mod:`arena.apart`)."""

    make: Callable[[], LadderLike]
    entry: Callable[[str, str, dict[str, Any]], Any]
    playing: Callable[[], LadderPlayer] | None = None


def load_ladder(db: Path, settings: dict[str, Any],
                clock: Callable[[], float] = time.time) -> LadderHook | None:
    """The ladder of :mod:`arena.ladder`, or None where this install has none; ``clock``
    is its time (the deadline and the games-per-hour cap are read by it)."""
    try:
        module = importlib.import_module("arena.ladder")
    except ModuleNotFoundError as error:
        if error.name != "arena.ladder":
            raise
        return None
    # Its games apart from the pages (arena.apart), unless on a clock of the caller's (a
    # test's), which a child process cannot share.
    playing = (lambda: LadderApart(db, settings, PLAY_ON_S)) if clock is time.time else None
    return LadderHook(lambda: module.Ladder(db, settings, clock), module.LadderEntry, playing)


class LadderThread(Background):
    """Plays while the service runs, on a ladder of its own; ``changed`` is called after
    each match, ``wake`` set when the entries may have changed, ``between`` after each
    batch; ``finished`` is given the finals' tournament once they are over."""

    def __init__(self, hook: LadderHook, store: ArenaStore, changed: Callable[[], None],
                 between: Callable[[], bool], finished: Callable[[str], None]) -> None:
        self.hook = hook
        self.store = store
        self.changed = changed
        # What is played after each of the ladder's batches (a test match): whether it was.
        self.between = between
        self.finished = finished
        # The finals' tournament, once they are over and handed on.
        self.finals: str | None = None
        # The last match's failure, for the organiser; None once one is played.
        self.failure: str | None = None
        super().__init__("arena-ladder")

    def entries(self) -> list[Any]:
        return [self.hook.entry(version.id, version.entrant, version.entry)
                for version in self.store.active()]

    def _run(self) -> None:
        ladder = (self.hook.playing or self.hook.make)()
        try:
            while not self.stopping.is_set():
                played = self._played(ladder)
                if played:
                    self.changed()
                if not self._between() and not played:
                    self.wake.wait(IDLE_S)
                    self.wake.clear()
        finally:
            ladder.close()

    def _between(self) -> bool:
        """Whether the work between two batches was done; its failure is logged, and the
        ladder plays on."""
        try:
            return self.between()
        except Exception:   # noqa: BLE001 - the service outlives a failed test match
            LOG.exception("the work between the ladder's batches failed")
            return False

    def _played(self, ladder: LadderPlayer) -> bool:
        """Whether the ladder played a match; a match that fails is the organiser's to
        read, and the thread tries again after a pause rather than stop the ladder (the
        same failure again, such as finals with too few versions, is logged once)."""
        try:
            entries = self.entries()
            played = ladder.play_next(entries) is not None or self._closed(ladder, entries)
        except Exception as error:   # noqa: BLE001 - the service outlives a failed match
            failure = f"{type(error).__name__}: {error}"
            if failure != self.failure:
                LOG.exception("the ladder's match failed")
            self.failure = failure
            return False
        self.failure = None if played else self.failure
        return played

    def _closed(self, ladder: LadderPlayer, entries: list[Any]) -> bool:
        """Past the deadline, the finals played (or found stored) and handed on, once."""
        if self.finals is not None or not ladder.status().past_deadline:
            return False
        final = ladder.run_finals(ladder.final_entries(entries))
        self.finished(final.tournament)
        self.finals = final.tournament
        return True


class ServedLadder:
    """The ladder as the service reaches it, or its absence: the playing thread and
    the pages' own ladder, read one request at a time."""

    def __init__(self, hook: LadderHook | None, store: ArenaStore,
                 changed: Callable[[], None], between: Callable[[], bool],
                 finished: Callable[[str], None]) -> None:
        self.pages = hook.make() if hook is not None else None
        self.lock = threading.Lock()
        self.thread = LadderThread(hook, store, changed, between, finished) \
            if hook is not None \
            else None

    @property
    def running(self) -> bool:
        return self.pages is not None

    @property
    def failure(self) -> str | None:
        """Why its last match failed, if it did."""
        return self.thread.failure if self.thread is not None else None

    def start(self) -> None:
        if self.thread is not None:
            self.thread.start()

    def wake(self) -> None:
        """Tell the playing thread the entries may have changed."""
        if self.thread is not None:
            self.thread.wake.set()

    def stop(self) -> None:
        if self.thread is not None:
            self.thread.stop()
        if self.pages is not None:
            self.pages.close()

    def standings(self) -> list[Any]:
        if self.pages is None:
            return []
        with self.lock:
            return list(self.pages.standings())

    def grades_csv(self) -> str | None:
        if self.pages is None:
            return None
        with self.lock:
            return self.pages.grades_csv()

    def status(self) -> Any | None:
        if self.pages is None:
            return None
        with self.lock:
            return self.pages.status()

    def paused(self) -> bool:
        status = self.status()
        return status is not None and bool(status.paused)

    def closed(self) -> bool:
        """Whether submissions are closed: the ladder's deadline has passed, or the
        finals froze it (a deadline moved later after them opens nothing)."""
        status = self.status()
        return status is not None and bool(status.past_deadline or status.frozen)

    def deadline(self) -> str | None:
        """The deadline (ISO 8601), if there is one."""
        status = self.status()
        return None if status is None else status.deadline

    def set_deadline(self, when: datetime | None) -> None:
        """Move the deadline (None: back to the config's); past it, the playing thread
        closes the ladder with the finals."""
        if self.pages is None:
            return
        with self.lock:
            self.pages.set_deadline(when)
        self.wake()

    def promotions(self, version: str) -> list[Any]:
        """A version's promotion tests, league by league."""
        if self.pages is None:
            return []
        with self.lock:
            return list(self.pages.promotions([version]).get(version, ()))

    def similar(self) -> list[Any]:
        if self.pages is None:
            return []
        with self.lock:
            return list(self.pages.similar())

    def collusion(self) -> Any | None:
        if self.pages is None:
            return None
        with self.lock:
            return self.pages.collusion()

    def verdict(self, versions: Sequence[str]) -> str | None:
        """The deal sets' verdict on the order of ``versions``, in one line; None with
        fewer than two."""
        if self.pages is None or len(versions) < 2:
            return None
        with self.lock:
            return str(self.pages.verdict(sorted(versions)).line())

    def pause(self, paused: bool) -> None:
        """Pause the ladder (its match in play ends first) or resume it."""
        if self.pages is None:
            return
        with self.lock:
            if paused:
                self.pages.pause()
            else:
                self.pages.resume()
        self.wake()
