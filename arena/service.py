"""The arena as a running service, without the web: its config, its store, the gate
queue, the ladder's thread, the events they publish and the limits of the uploads.

:mod:`arena.app` puts routes over it; tests drive it without a server.
"""

from __future__ import annotations

import json
import logging
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from arena.config import ArenaConfig
from arena.events import BOARD_EVERY_S, Coalesced, Events
from arena.gate import GateQueue, check_version
from arena.likeness import Fingerprints
from arena.playing import LadderHook, ServedLadder, load_ladder
from arena.report import publish_report
from arena.security import Holders, RateLimit
from arena.store import ArenaStore, Entrant, Gate, Likeness, UnratedMatch, Version
from arena.unrated import UnratedMatches, UnratedRefused
from arena.uploads import Accepted, LimitReached, UploadRefused, accept
from arena.webhooks import Webhooks
from circus_outcomes import FaultClass
from tournaments.store import Store, StoredGame, StoredTournament

LOG = logging.getLogger(__name__)
#: The rate limits' window: uploads are counted per token per hour.
HOUR_S = 3600.0


class Arena:
    """One arena's state while it serves."""

    def __init__(self, config: ArenaConfig, store: ArenaStore | None = None,
                 check: Callable[[Version], Gate] | None = None,
                 ladder: LadderHook | None = None) -> None:
        self.config = config
        self.store = store or ArenaStore(config.db)
        self.holders = Holders(self.store)
        self.events = Events()
        self.uploads = RateLimit(config.limits.uploads_per_hour, HOUR_S)
        # One upload is stored at a time: two of the same code would share one folder.
        self.storing = threading.Lock()
        self.gates = GateQueue(self.store, check or (lambda v: check_version(config, v)),
                               self._gated)
        self.unrated = UnratedMatches(config, self.store,
                                      lambda: self.events.publish("test-matches"))
        self.played = Coalesced(self._played, BOARD_EVERY_S)
        self.ladder = ServedLadder(
            ladder if ladder is not None else load_ladder(config.db, config.ladder),
            self.store, self.played, self._play_unrated, self.publish_report)
        self.csrf_secret = self.store.secret("csrf")
        self.fingerprints = Fingerprints()
        self.games = LadderGames(config.db, config.ladder_prefix, config.test_match_prefix)
        # Where the finals' report is published: empty (each page not found) until then.
        config.report_dir.mkdir(parents=True, exist_ok=True)
        self.webhooks = Webhooks(config.webhook_hosts)
        # Each version's crash streak its entrant was told of: the game before it.
        self.told: dict[str, int] = {}

    def start(self) -> None:
        """Gate what a stopped service left queued, and play; what a kill left unpacking
        (no version's files: an accepted one is moved out before its row is kept) goes."""
        shutil.rmtree(self.config.staging_dir, ignore_errors=True)
        self.webhooks.start()
        self.gates.start()
        self.ladder.start()

    def stop(self) -> None:
        self.gates.stop()
        self.ladder.stop()
        self.played.cancel()
        self.webhooks.stop()
        self.games.close()
        self.store.close()

    def submit(self, entrant: Entrant, data: bytes) -> Accepted:
        """An upload of ``entrant``'s, within its rate, stored and queued for its gate."""
        if self.ladder.closed():
            raise UploadRefused("the deadline has passed: submissions are closed")
        if not self.uploads.allow(entrant.name):
            raise LimitReached(f"more than {self.config.limits.uploads_per_hour} uploads "
                                "in an hour: try again later")
        with self.storing:
            accepted = accept(self.config, self.store, entrant, data)
        if accepted.new:
            self.gates.wake.set()
            self.events.publish("versions")
        return accepted

    def request_unrated(self, entrant: Entrant, version: str, opponents: list[str]
                        ) -> UnratedMatch:
        """Queue a test match (:mod:`arena.unrated`) and wake the thread that plays it."""
        if not self.ladder.running:
            raise UnratedRefused("this arena has no ladder to play test matches")
        match = self.unrated.request(entrant, version, opponents)
        self.ladder.wake()
        self.events.publish("test-matches")
        return match

    def _play_unrated(self) -> bool:
        """One test match between two of the ladder's batches, unless it is paused."""
        return not self.ladder.paused() and self.unrated.play_next()

    def publish_report(self, finals: str) -> None:
        """The finals' public report, written where ``/report/`` serves it (once: a
        restart finds it there)."""
        if not (self.config.report_dir / "index.html").exists():
            publish_report(self.config.db, finals, self.config.report_dir)
        self.events.publish("board")

    def _gated(self, version: Version) -> None:
        self.compare(version)
        self.ladder.wake()
        self.events.publish("versions", "board")
        gate = self.store.gate(version.id)
        if gate is not None:
            self.tell(version.entrant, "gate-ended", version.id,
                      "passed" if gate.passed else "failed", gate.reason)

    def _played(self) -> None:
        """After ladder matches (at most once a second: a ladder of quick matches ends
        several a second): the board, and the entrants whose versions crash."""
        self.events.publish("board")
        try:
            self.tell_crashes()
        except Exception:   # noqa: BLE001 - the ladder outlives a message not told
            LOG.exception("the crashes' webhooks could not be told")

    def tell(self, entrant: str, event: str, version: str, state: str, reason: str) -> None:
        """A message to the entrant's webhook, if they set one (sent in the background)."""
        hook = self.store.webhook(entrant)
        if hook is not None:
            self.webhooks.send(hook.url, {
                "event": event, "version": version, "state": state, "reason": reason,
                "link": f"{hook.base.rstrip('/')}/me/versions/{version}"})

    def tell_crashes(self) -> None:
        """Tell each entrant with a webhook of each active version of theirs that crashed
        in its last ``crashes_in_a_row`` games or more, once a streak."""
        for version in self.store.active():
            if self.store.webhook(version.entrant) is None:
                continue
            streak = self.games.crash_streak(version.id)
            if streak.games >= self.config.crashes_in_a_row and \
                    self.told.get(version.id) != streak.after:
                self.told[version.id] = streak.after
                self.tell(version.entrant, "crashing", version.id, version.state,
                          f"crashed in its last {streak.games} games in a row: {streak.last}")

    def compare(self, version: Version) -> None:
        """Keep how alike the version's code is to every other entrant's versions."""
        self.store.keep_likeness([
            Likeness(version.id, other.id, *self.fingerprints.shares(version.folder,
                                                                      other.folder))
            for other in self.store.versions() if other.entrant != version.entrant])


@dataclass(frozen=True)
class CrashStreak:
    # The last game before the streak that the bot did not crash in (0: none).
    after: int
    games: int
    # The detail of its last crash.
    last: str


#: The largest id SQLite holds (a signed 64-bit integer).
MAX_ID = 2**63 - 1


class LadderGames:
    """The ladder's stored games: those of its matches, each a tournament whose name
    starts with ``prefix``, in the tournaments' tables of the same file; read by one
    connection that the service's threads share in turn."""

    def __init__(self, db: Path, prefix: str, unrated_prefix: str) -> None:
        self.store = Store(db)
        self.prefix = prefix
        self.unrated_prefix = unrated_prefix
        self.lock = threading.Lock()

    def latest(self, count: int, seated: set[str] | None = None) -> list[StoredGame]:
        """The games stored last (of those where one of ``seated`` sat)."""
        with self.lock:
            return self.store.latest_games(self.prefix, count, sorted(seated or ()))

    def game(self, game_id: int) -> StoredGame | None:
        """One of the ladder's games (a game of another tournament is none of its)."""
        return self._game(game_id, self.prefix)

    def unrated_game(self, game_id: int) -> StoredGame | None:
        """One of the test matches' games."""
        return self._game(game_id, self.unrated_prefix)

    def _game(self, game_id: int, prefix: str) -> StoredGame | None:
        if game_id > MAX_ID:   # a URL's number SQLite cannot hold: no game's
            return None
        with self.lock:
            game = self.store.game(game_id)
        return game if game is not None and game.tournament.startswith(prefix) else None

    def games_of(self, tournament: str) -> list[StoredGame]:
        """A match's games, in its schedule's order."""
        with self.lock:
            return self.store.games(tournament)

    def faults(self, game: StoredGame, bots: set[str]) -> list[dict[str, Any]]:
        """The faults of ``bots`` in one game."""
        with self.lock:
            return [dict(fault) for fault in self.store.faults(game.tournament)
                    if fault["game_id"] == game.id and fault["bot"] in bots]

    def placings(self, seated: set[str]) -> list[tuple[list[str], list[int]]]:
        """The seats and ranks of every game one of ``seated`` sat in (what a
        head-to-head folds: read alone, not whole games)."""
        among = " OR ".join("instr(seats, ?) > 0" for _ in seated)
        with self.lock:
            rows = self.store.db.execute(
                f"SELECT seats, ranks FROM games WHERE substr(tournament, 1, ?) = ? "
                f"AND ({among}) ORDER BY id", (len(self.prefix), self.prefix,
                                               *map(json.dumps, sorted(seated)))).fetchall()
        return [(json.loads(seats), json.loads(ranks)) for seats, ranks in rows]

    def crash_streak(self, bot: str) -> CrashStreak:
        """The games in a row, the latest, that ``bot`` crashed in."""
        seated, prefix = json.dumps(bot), (len(self.prefix), self.prefix)
        ladder_games = "FROM games WHERE substr(tournament, 1, ?) = ? AND instr(seats, ?) > 0"
        with self.lock:
            db = self.store.db
            after = db.execute(
                f"SELECT COALESCE(MAX(id), 0) {ladder_games} AND id NOT IN "
                "(SELECT game_id FROM faults WHERE bot = ? AND class = ?)",
                (*prefix, seated, bot, FaultClass.CRASH)).fetchone()[0]
            games = db.execute(f"SELECT COUNT(*) {ladder_games} AND id > ?",
                               (*prefix, seated, after)).fetchone()[0]
            last = db.execute("SELECT detail FROM faults WHERE bot = ? AND class = ? "
                              "ORDER BY id DESC LIMIT 1", (bot, FaultClass.CRASH)).fetchone()
        return CrashStreak(int(after), int(games), last[0] if last else "")

    def match(self, game: StoredGame) -> StoredTournament | None:
        """The tournament of the game's match (its logs folder)."""
        with self.lock:
            return self.store.tournament(game.tournament)

    def close(self) -> None:
        self.store.close()
