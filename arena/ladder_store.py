"""The ladder's own tables, beside the tournaments' in the same SQLite store.

A ladder match is a small tournament (its games, faults and replays are the
tournaments' tables'); these tables say which tournaments are the ladder's matches, in
what order, of what kind, and whether each is over. Everything the ladder computes
(ratings, leagues, similarity) is folded from them and the games, so the store is the
truth: a match is rated once it is marked finished, and marked once.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Callable, ContextManager

from arena import schema
from tournaments.store import DEFAULT_WAIT_S, StoreError, writing

#: Where ``arena_meta`` keeps the version of the ladder's tables (:mod:`arena.schema`).
SCHEMA_KEY = "ladder_schema"
#: Each migration in order, a tuple of statements. The first keeps ``IF NOT EXISTS``: a
#: file whose ladder tables were made before they carried a version takes them as they are.
MIGRATIONS: schema.Migrations = ((
    """CREATE TABLE IF NOT EXISTS ladder_matches (
        number      INTEGER PRIMARY KEY, -- the order the ladder folds its matches in
        tournament  TEXT NOT NULL UNIQUE,-- the tournament holding its games
        kind        TEXT NOT NULL,       -- validation | ladder | promotion | finals
        field       TEXT NOT NULL,       -- the versions (and bosses) it seats, JSON
        league      TEXT,                -- a promotion match's league
        config      TEXT NOT NULL,       -- the tournament's config, as parse_config takes it
        created_at  REAL NOT NULL,       -- unix time
        finished_at REAL,                -- unix time; NULL while it is being played
        status      TEXT,                -- played | failed
        games       INTEGER NOT NULL DEFAULT 0,
        note        TEXT NOT NULL DEFAULT '',
        failures    INTEGER NOT NULL DEFAULT 0  -- runs that failed after storing games
    )""",
    """CREATE TABLE IF NOT EXISTS ladder_versions (
        version     TEXT PRIMARY KEY,
        entrant     TEXT NOT NULL,
        registered  INTEGER NOT NULL,    -- the ladder's order of first sight
        parent      TEXT,                -- the entrant's version seen before it
        validation  TEXT                 -- NULL until validated: passed | failed: why
    )""",
    """CREATE TABLE IF NOT EXISTS ladder_flags (
        name        TEXT PRIMARY KEY,    -- paused | frozen
        value       TEXT NOT NULL,
        at          REAL NOT NULL
    )""",
), (
    # What every batch asks (a match left unfinished, the finals begun) read from an
    # index, not from every match: a ladder that never stops finishes tens of thousands.
    "CREATE INDEX ladder_matches_unfinished ON ladder_matches (number) "
    "WHERE finished_at IS NULL",
    "CREATE INDEX ladder_matches_kind ON ladder_matches (kind, number)",
))


class MatchKind(StrEnum):
    """Why a match was played: a version's validation against copies of itself, a rated
    ladder match, a promotion test against a league's boss, or the finals."""

    VALIDATION = "validation"
    LADDER = "ladder"
    PROMOTION = "promotion"
    FINALS = "finals"


class MatchStatus(StrEnum):
    PLAYED = "played"
    # The tournament could not be played (a bot did not start): never rated.
    FAILED = "failed"


@dataclass(frozen=True)
class MatchPlan:
    """A match chosen, not yet kept."""

    number: int
    tournament: str
    kind: MatchKind
    field: tuple[str, ...]
    league: str | None
    config: dict[str, Any]


@dataclass(frozen=True)
class StoredMatch:
    number: int
    tournament: str
    kind: MatchKind
    field: tuple[str, ...]
    league: str | None
    config: dict[str, Any]
    created_at: float
    finished_at: float | None
    status: MatchStatus | None
    games: int
    note: str


@dataclass(frozen=True)
class StoredVersion:
    version: str
    entrant: str
    registered: int
    parent: str | None
    validation: str | None

    @property
    def validated(self) -> bool:
        return self.validation == "passed"


class LadderStore:
    """The ladder's rows: its matches, the versions it has seen, its flags."""

    def __init__(self, path: Path, clock: Callable[[], float] = time.time,
                 wait_s: float = DEFAULT_WAIT_S) -> None:
        self.path = path
        self.wait_s = wait_s
        # The time matches start and finish at (the games-per-hour cap counts them).
        self.clock = clock
        try:
            self.db = sqlite3.connect(path, timeout=wait_s, check_same_thread=False)
            self.db.row_factory = sqlite3.Row
            if str(self.db.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
                # As the games' own connection (tournaments.store.Store, which puts the
                # file in WAL mode): NORMAL syncs at checkpoints, not at every commit. A
                # kill loses nothing committed; a power cut only the last commits, in
                # order, so a match is never marked finished without its games. FULL
                # would add two syncs to every match, a tenth of a short match's time.
                self.db.execute("PRAGMA synchronous=NORMAL")
            schema.migrate(self.db, path, SCHEMA_KEY, "ladder", MIGRATIONS)
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{path}: cannot keep the ladder's tables ({error})") from None

    def _writing(self) -> ContextManager[None]:
        return writing(self.db, self.path, self.wait_s)

    def close(self) -> None:
        self.db.close()

    # -- matches -------------------------------------------------------------
    def matches(self, after: int = 0, kind: MatchKind | None = None) -> list[StoredMatch]:
        """The matches numbered above ``after`` (of one ``kind``), in order."""
        query = "SELECT * FROM ladder_matches WHERE number > ?"
        params: list[Any] = [after]
        if kind is not None:
            query += " AND kind = ?"
            params.append(kind)
        return [_match(row) for row in self.db.execute(query + " ORDER BY number", params)]

    def finished(self, after: int) -> list[StoredMatch]:
        """The matches numbered above ``after`` up to the first one unfinished, in order:
        what a fold carried on from match ``after`` may take, each match once."""
        found = []
        for match in self.matches(after):
            if match.finished_at is None:
                break
            found.append(match)
        return found

    def recent(self, count: int) -> list[StoredMatch]:
        """The last ``count`` matches finished, latest first."""
        rows = self.db.execute("SELECT * FROM ladder_matches WHERE finished_at IS NOT NULL "
                               "ORDER BY number DESC LIMIT ?", (count,))
        return [_match(row) for row in rows]

    def unfinished(self) -> list[StoredMatch]:
        rows = self.db.execute("SELECT * FROM ladder_matches WHERE finished_at IS NULL "
                               "ORDER BY number")
        return [_match(row) for row in rows]

    def next_number(self) -> int:
        return int(self.db.execute("SELECT coalesce(max(number), 0) + 1 FROM ladder_matches"
                                   ).fetchone()[0])

    def add_matches(self, planned: list[MatchPlan]) -> list[StoredMatch]:
        """Keep matches before their first game is played, in one transaction, so a
        restart plays the same ones: all of a batch, or none."""
        rows = [(plan.number, plan.tournament, plan.kind, json.dumps(plan.field), plan.league,
                 json.dumps(plan.config), self.clock()) for plan in planned]
        with self._writing():
            self.db.executemany(
                "INSERT INTO ladder_matches (number, tournament, kind, field, league, config,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        # As read back: the config as JSON gives it.
        return [StoredMatch(plan.number, plan.tournament, plan.kind, plan.field, plan.league,
                            json.loads(row[5]), row[6], None, None, 0, "")
                for plan, row in zip(planned, rows)]

    def promotion_matches(self, version: str, league: str) -> int:
        """The promotion matches of ``version`` in ``league`` kept so far but those that
        could not be played: counted in the store, not read (while a test is open they
        are every other match, and each holds its config)."""
        return int(self.db.execute(
            "SELECT count(*) FROM ladder_matches WHERE kind = ? AND league = ? AND "
            "json_extract(field, '$[0]') = ? AND status IS NOT ?",
            (MatchKind.PROMOTION, league, version, MatchStatus.FAILED)).fetchone()[0])

    def match(self, number: int) -> StoredMatch | None:
        row = self.db.execute("SELECT * FROM ladder_matches WHERE number = ?",
                              (number,)).fetchone()
        return None if row is None else _match(row)

    def finish_match(self, number: int, status: MatchStatus, games: int, note: str,
                     validated: tuple[str, str] | None = None) -> bool:
        """Mark a match over (once: a finished match is never finished again), with the
        validation it decided in the same transaction; whether this call marked it."""
        with self._writing():
            marked = self.db.execute(
                "UPDATE ladder_matches SET finished_at = ?, status = ?, games = ?, note = ? "
                "WHERE number = ? AND finished_at IS NULL",
                (self.clock(), status, games, note, number)).rowcount
            if validated is not None:
                self.db.execute("UPDATE ladder_versions SET validation = ? WHERE version = ?",
                                (validated[1], validated[0]))
        return bool(marked)

    def refuse(self, version: str, why: str) -> None:
        """Fail a version's validation without a match (its entry cannot be played)."""
        with self._writing():
            self.db.execute("UPDATE ladder_versions SET validation = ? WHERE version = ? "
                            "AND validation IS NULL", (f"failed: {why}", version))

    def failed_attempt(self, number: int) -> int:
        """Count a run of the match that failed with games stored; return the count."""
        with self._writing():
            self.db.execute("UPDATE ladder_matches SET failures = failures + 1 WHERE number = ?",
                            (number,))
        return int(self.db.execute("SELECT failures FROM ladder_matches WHERE number = ?",
                                   (number,)).fetchone()[0])

    def finish_times(self, since: float) -> list[tuple[float, int]]:
        """(finished_at, games) of the matches finished after ``since``, oldest first."""
        rows = self.db.execute("SELECT finished_at, games FROM ladder_matches WHERE "
                               "finished_at > ? ORDER BY finished_at", (since,))
        return [(row[0], row[1]) for row in rows]

    # -- versions ------------------------------------------------------------
    def versions(self) -> dict[str, StoredVersion]:
        rows = self.db.execute("SELECT version, entrant, registered, parent, validation "
                               "FROM ladder_versions ORDER BY registered")
        return {row[0]: StoredVersion(*row) for row in rows}

    def register(self, versions: list[tuple[str, str]]) -> dict[str, StoredVersion]:
        """Keep each (version, entrant) not seen before, its parent the entrant's latest
        version seen before it; every version seen, as :meth:`versions` says."""
        known = self.versions()
        if all(version in known for version, _ in versions):
            return known
        with self._writing():
            for version, entrant in versions:
                if version in known:
                    continue
                parent = self.db.execute(
                    "SELECT version FROM ladder_versions WHERE entrant = ? "
                    "ORDER BY registered DESC LIMIT 1", (entrant,)).fetchone()
                count = self.db.execute("SELECT count(*) FROM ladder_versions").fetchone()[0]
                self.db.execute("INSERT INTO ladder_versions (version, entrant, registered,"
                                " parent) VALUES (?, ?, ?, ?)",
                                (version, entrant, count + 1,
                                 None if parent is None else parent[0]))
        return self.versions()

    # -- flags ---------------------------------------------------------------
    def flag(self, name: str) -> str | None:
        row = self.db.execute("SELECT value FROM ladder_flags WHERE name = ?",
                              (name,)).fetchone()
        return None if row is None else str(row[0])

    def set_flag(self, name: str, value: str | None) -> None:
        with self._writing():
            if value is None:
                self.db.execute("DELETE FROM ladder_flags WHERE name = ?", (name,))
            else:
                self.db.execute("INSERT OR REPLACE INTO ladder_flags VALUES (?, ?, ?)",
                                (name, value, self.clock()))


def _match(row: sqlite3.Row) -> StoredMatch:
    return StoredMatch(row["number"], row["tournament"], MatchKind(row["kind"]),
                       tuple(json.loads(row["field"])), row["league"],
                       json.loads(row["config"]), row["created_at"], row["finished_at"],
                       None if row["status"] is None else MatchStatus(row["status"]),
                       row["games"], row["note"])
