"""The arena as a running service, without the web: its config, its store, the gate
queue, the ladder's thread, the events they publish and the limits of the uploads.

:mod:`arena.app` puts routes over it; tests drive it without a server.
"""

from __future__ import annotations

from typing import Callable

from arena.config import ArenaConfig
from arena.events import Events
from arena.gate import GateQueue, check_version
from arena.playing import LadderLike, LadderThread, load_ladder
from arena.security import Holders, RateLimit
from arena.store import ArenaStore, Entrant, Gate, Version
from arena.uploads import Accepted, LimitReached, accept
from tournaments.store import Store

#: The rate limits' window: uploads are counted per token per hour.
HOUR_S = 3600.0


class Arena:
    """One arena's state while it serves."""

    def __init__(self, config: ArenaConfig, store: ArenaStore | None = None,
                 check: Callable[[Version], Gate] | None = None,
                 ladder: LadderLike | None = None) -> None:
        self.config = config
        self.store = store or ArenaStore(config.db)
        self.holders = Holders(self.store)
        self.events = Events()
        self.uploads = RateLimit(config.limits.uploads_per_hour, HOUR_S)
        self.gates = GateQueue(self.store, check or (lambda v: check_version(config, v)),
                               self._gated)
        self.ladder = ladder if ladder is not None else load_ladder(config.db, config.raw)
        self.playing = (LadderThread(self.ladder, self.store, self._played)
                        if self.ladder is not None else None)
        self.csrf_secret = self.store.secret("csrf")
        # The tournaments' tables, where the ladder keeps its games, in the same file.
        self.games = Store(config.db)

    def start(self) -> None:
        """Gate what a stopped service left queued, and play."""
        self.gates.start()
        if self.playing is not None:
            self.playing.start()

    def stop(self) -> None:
        self.gates.stop()
        if self.playing is not None:
            self.playing.stop()
        self.games.close()
        self.store.close()

    def submit(self, entrant: Entrant, data: bytes) -> Accepted:
        """An upload of ``entrant``'s, within its rate, stored and queued for its gate."""
        if not self.uploads.allow(entrant.name):
            raise LimitReached(f"more than {self.config.limits.uploads_per_hour} uploads "
                                "in an hour: try again later")
        accepted = accept(self.config, self.store, entrant, data)
        if accepted.new:
            self.gates.wake.set()
            self.events.publish("versions")
        return accepted

    def _gated(self) -> None:
        if self.playing is not None:
            self.playing.wake.set()
        self.events.publish("versions", "board")

    def _played(self) -> None:
        self.events.publish("board")
