"""The results store: one SQLite file holding tournaments, games and faults.

Each finished game is written in one transaction, in WAL mode, so a referee
killed at any moment leaves a database that opens and is consistent: a game
is either wholly there or not at all. Games in flight are never written.
(``synchronous=NORMAL``: a power cut, unlike a kill, may lose the last few
committed games; the file stays consistent and a resume replays them.)
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, ContextManager, Iterator, Mapping, NamedTuple, Sequence

from referee.errors import CircusError
from referee.match import MatchResult
from referee.participants import real_path
from tournaments.schedule import Pairing, Segment

DEFAULT_DB = Path("runs/circus.sqlite")
#: The files SQLite keeps beside a database, made and removed as it works.
COMPANIONS = ("-wal", "-shm", "-journal")


def database_paths(path: Path) -> tuple[Path, ...]:
    """Every path that shows a database's contents, to hide from bots: its folder and
    the file, as given and with symlinks resolved (SQLite keeps the companions beside
    the real file, and makes them later: only the real folder's hiding covers them),
    and the companions."""
    real = real_path(path)
    return (path.parent, real.parent, path, real,
            *(real.with_name(real.name + suffix) for suffix in COMPANIONS))

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    name        TEXT PRIMARY KEY,
    config      TEXT NOT NULL,      -- the full config, as JSON
    identity    TEXT NOT NULL,      -- the keys that define the games, as JSON
    total_games INTEGER NOT NULL,
    created_at  TEXT NOT NULL,
    finished_at TEXT,
    log_dir     TEXT
);
CREATE TABLE IF NOT EXISTS games (
    id          INTEGER PRIMARY KEY,
    tournament  TEXT NOT NULL REFERENCES tournaments(name) ON DELETE CASCADE,
    game_index  INTEGER NOT NULL,
    group_index INTEGER NOT NULL,
    round       INTEGER NOT NULL,
    seed        INTEGER NOT NULL,
    game        TEXT NOT NULL,
    variant     TEXT NOT NULL,
    seats       TEXT NOT NULL,      -- bot names by seat, JSON
    scores      TEXT NOT NULL,      -- JSON, by seat
    ranks       TEXT NOT NULL,      -- JSON, by seat; 1 is first
    status      TEXT NOT NULL,      -- finished | forfeit | void
    end_reason  TEXT NOT NULL,
    actions     TEXT NOT NULL,      -- chosen action indices, JSON: the replay record
    times       TEXT NOT NULL,      -- [seat, decision_id, ms] per answered decision, JSON
    started_at  TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    duration_s  REAL NOT NULL,
    code        TEXT,               -- what code played, by seat: [fingerprint, hello], JSON
    UNIQUE (tournament, game_index)
);
CREATE TABLE IF NOT EXISTS secrets (
    tournament  TEXT PRIMARY KEY REFERENCES tournaments(name) ON DELETE CASCADE,
    secret      TEXT NOT NULL       -- joins the seed of every deal; never shown to a bot
);
CREATE TABLE IF NOT EXISTS faults (
    id          INTEGER PRIMARY KEY,
    tournament  TEXT NOT NULL REFERENCES tournaments(name) ON DELETE CASCADE,
    game_id     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    game_index  INTEGER NOT NULL,
    seat        INTEGER NOT NULL,
    bot         TEXT NOT NULL,
    decision_id INTEGER NOT NULL,
    class       TEXT NOT NULL,      -- timeout | crash | illegal | error
    detail      TEXT NOT NULL,
    policy      TEXT NOT NULL,      -- substitute | forfeit | void
    time        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS bot_identities (
    tournament  TEXT NOT NULL REFERENCES tournaments(name) ON DELETE CASCADE,
    bot         TEXT NOT NULL,      -- the entry's name in the config
    name        TEXT NOT NULL,      -- what the bot calls itself in HelloResponse
    version     TEXT NOT NULL,
    protocol    TEXT NOT NULL,
    PRIMARY KEY (tournament, bot)
);
CREATE TABLE IF NOT EXISTS rating_snapshots (
    tournament  TEXT PRIMARY KEY REFERENCES tournaments(name) ON DELETE CASCADE,
    key         TEXT NOT NULL,      -- what it was made with (parameters, version), JSON
    games       INTEGER NOT NULL,   -- the games it covers: how many,
    id_sum      INTEGER NOT NULL,   -- and the sum of their ids
    fold        TEXT NOT NULL       -- the ratings and counts after those games, JSON
);
CREATE TABLE IF NOT EXISTS swiss_rounds (
    tournament  TEXT NOT NULL REFERENCES tournaments(name) ON DELETE CASCADE,
    round       INTEGER NOT NULL,
    tables      TEXT NOT NULL,      -- the round's tables, bot names in seating order, JSON
    byes        TEXT NOT NULL,      -- the bots that sat it out, JSON
    absent      TEXT NOT NULL,      -- the bots left out: they did not start in the run
                                    -- that paired it, JSON
    PRIMARY KEY (tournament, round)
);
CREATE TABLE IF NOT EXISTS segments (
    tournament  TEXT NOT NULL REFERENCES tournaments(name) ON DELETE CASCADE,
    number      INTEGER NOT NULL,   -- a stretch of the schedule with one field (a change
    first_index INTEGER NOT NULL,   -- of the field starts the next): its first game index,
    first_group INTEGER NOT NULL,   -- its first group (deal) index,
    first_round INTEGER NOT NULL,   -- its rounds,
    rounds      INTEGER NOT NULL,
    bots        TEXT NOT NULL,      -- its field, JSON
    remembering TEXT NOT NULL,      -- those of its field with memory: true, JSON
    entering    TEXT NOT NULL,      -- late entrants: only their tables are played, JSON
    excluded    TEXT NOT NULL,      -- bots withdrawn since: their games left are not, JSON
    PRIMARY KEY (tournament, number)
);
CREATE TABLE IF NOT EXISTS changes (
    tournament  TEXT NOT NULL REFERENCES tournaments(name) ON DELETE CASCADE,
    number      INTEGER NOT NULL,
    at          TEXT NOT NULL,
    lines       TEXT NOT NULL,      -- what was changed and chosen, one line each, JSON
    PRIMARY KEY (tournament, number)
);
CREATE TABLE IF NOT EXISTS locks (
    tournament  TEXT PRIMARY KEY,   -- held by the referee running it
    pid         INTEGER NOT NULL,
    host        TEXT NOT NULL,
    since       TEXT NOT NULL
);
"""

# How long a write waits for a database another program holds, by default.
DEFAULT_WAIT_S = 10.0
#: Columns added since the first release: (table, column, declaration). An older store
#: gets them when it is opened (NULL in its rows), so it still opens and resumes.
ADDED_COLUMNS = (("games", "code", "TEXT"),)


def _schema_columns() -> dict[str, set[str]]:
    """Each table of SCHEMA and its columns, read from SQLite itself."""
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    return {table: _columns(db, table) for table, in
            db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info('{table}')")}


def _alive(pid: int) -> bool:
    """Whether a process of this host is running (a zombie is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(") ", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


@dataclass(frozen=True)
class StoredGame:
    id: int
    tournament: str
    game_index: int
    group_index: int
    round: int
    seed: int
    game: str
    variant: str
    seats: list[str]
    scores: list[int]
    ranks: list[int]
    status: str
    end_reason: str
    actions: list[int]
    times: list[list[float]]
    started_at: str
    finished_at: str
    duration_s: float
    # What code played, by seat: [fingerprint, "name version" from Hello or None]; None
    # for a game stored by an older referee.
    code: list[list[str | None]] | None = None

    @property
    def shown_round(self) -> int:
        """Its round as people count rounds, from 1: the progress line, ``season`` and
        ``leaderboard --rounds`` say "round 1" of the round stored as 0."""
        return self.round + 1


class GameResult(NamedTuple):
    """The result columns of a stored game (:meth:`Store.results`)."""

    id: int
    game_index: int
    seats: list[str]
    scores: list[int]
    ranks: list[int]
    status: str
    group_index: int
    round: int


@dataclass(frozen=True)
class SwissRound:
    """A Swiss round as it was paired: kept before its first game is played, so every
    game of the round, whichever run plays it, sits at one of these tables."""

    tables: list[tuple[str, ...]]
    byes: list[str]
    absent: list[str]


@dataclass(frozen=True)
class StoredTournament:
    name: str
    config: dict[str, Any]
    identity: dict[str, Any]
    total_games: int
    created_at: str
    finished_at: str | None
    log_dir: str | None


class StoreError(CircusError):
    """The database cannot be used; the message says why."""


def store_error(path: Path, wait_s: float, error: sqlite3.OperationalError) -> StoreError:
    """A one-line StoreError, saying how long we waited if another program holds the file."""
    if "locked" in str(error) or "busy" in str(error):
        return StoreError(f"{path} is locked by another program (waited {wait_s:g}s)")
    return StoreError(f"{path}: {error}")


@contextmanager
def writing(db: sqlite3.Connection, path: Path, wait_s: float) -> Iterator[None]:
    """One transaction on ``db`` (the file at ``path``); a database error becomes a
    one-line StoreError. The tournaments' tables and the ladder's are written so."""
    try:
        with db:
            yield
    except sqlite3.OperationalError as error:
        raise store_error(path, wait_s, error) from None


@dataclass(frozen=True)
class FieldChange:
    """A change of a tournament's field, as the store applies it (made and described by
    :func:`tournaments.season.plan_change`)."""

    tournament: str
    # What it does, a line each, as the dry run showed it; kept with the change.
    lines: list[str]
    # The schedule's segments after it.
    segments: list[Segment]
    # Earlier versions of replaced bots: each bot's new name for what it stored.
    renames: dict[str, str]
    # The stored games to take out of the tournament (their ids).
    dropped: list[int]
    total: int
    config: dict[str, Any]
    identity: dict[str, Any]


class Store:
    def __init__(self, path: Path | str, wait_s: float = DEFAULT_WAIT_S) -> None:
        self.path = Path(path)
        self.wait_s = wait_s
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"{self.path}: cannot create its folder: "
                             f"{error.strerror or error}") from None
        try:
            self.db = sqlite3.connect(self.path, timeout=wait_s, check_same_thread=False)
            self.db.row_factory = sqlite3.Row
            self._check_foreign_tables()
            mode = self.db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() == "wal":
                # In WAL mode NORMAL syncs at checkpoints, not at every commit: a
                # killed referee loses nothing committed, and a power cut can lose
                # only the last games (resume plays them again), never the file's
                # consistency. FULL would fsync at every game's commit, which costs
                # as much as playing a short game (docs/performance.md, "Optimisations").
                self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(SCHEMA)
            self._migrate()
        except sqlite3.OperationalError as error:
            raise self._error(error) from None
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path}: not a usable results database ({error})") from None

    def _check_foreign_tables(self) -> None:
        """Refuse, before changing anything, a database whose tables are another program's."""
        added = {(table, column) for table, column, _ in ADDED_COLUMNS}
        for table, wanted in _schema_columns().items():
            found = _columns(self.db, table)
            if found and not {column for column in wanted
                              if (table, column) not in added} <= found:
                raise StoreError(f"{self.path}: its table {table!r} is not circus-referee's "
                                 "(other columns); give another --db")

    def _migrate(self) -> None:
        """Add the columns an older store lacks."""
        for table, column, declaration in ADDED_COLUMNS:
            if column not in _columns(self.db, table):
                with self.db:
                    self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")

    def _error(self, error: sqlite3.OperationalError) -> StoreError:
        return store_error(self.path, self.wait_s, error)

    def _writing(self) -> ContextManager[None]:
        return writing(self.db, self.path, self.wait_s)

    def close(self) -> None:
        self.db.close()

    @classmethod
    def open_existing(cls, path: Path | str) -> Store:
        """Open a database that must already exist (for the read-only commands)."""
        if not Path(path).exists():
            raise StoreError(f"no results database at {path} (run a tournament first, "
                             "or give --db PATH)")
        return cls(path)

    # -- tournaments ---------------------------------------------------------
    def tournament(self, name: str) -> StoredTournament | None:
        row = self.db.execute("SELECT * FROM tournaments WHERE name = ?", (name,)).fetchone()
        return None if row is None else _tournament(row)

    def tournaments(self) -> list[StoredTournament]:
        rows = self.db.execute("SELECT * FROM tournaments ORDER BY created_at, rowid").fetchall()
        return [_tournament(row) for row in rows]

    def resolve(self, name: str | None) -> StoredTournament:
        """The named tournament, or the latest one when no name is given."""
        if name is not None:
            found = self.tournament(name)
            if found is None:
                known = ", ".join(t.name for t in self.tournaments()) or "none"
                raise StoreError(f"no tournament {name!r} in {self.path} (tournaments: {known})")
            return found
        every = self.tournaments()
        if not every:
            raise StoreError(f"no tournament in {self.path} yet")
        return every[-1]

    def create_tournament(self, name: str, config: dict[str, Any], identity: dict[str, Any],
                          total_games: int, log_dir: str, secret: str = "") -> None:
        """Keep a tournament's record, and its deal ``secret`` if it has one, at once."""
        with self._writing():
            self.db.execute(
                "INSERT INTO tournaments (name, config, identity, total_games, created_at, log_dir)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (name, json.dumps(config), json.dumps(identity, sort_keys=True), total_games,
                 _now(), log_dir))
            if secret:
                self.db.execute("INSERT INTO secrets (tournament, secret) VALUES (?, ?)",
                                (name, secret))

    def free_name(self, stem: str) -> str:
        """The first of STEM-1, STEM-2, … that names no tournament."""
        taken = {t.name for t in self.tournaments()}
        return next(f"{stem}-{n}" for n in range(1, len(taken) + 2)
                    if f"{stem}-{n}" not in taken)

    def archive_tournament(self, name: str) -> str:
        """Keep a tournament's record and games under a new, free name; return it.

        ``--fresh`` frees the name this way instead of deleting anything.
        """
        archive = self.free_name(f"{name}.old")
        row = dict(self.db.execute("SELECT * FROM tournaments WHERE name = ?", (name,)).fetchone())
        row["name"] = archive
        with self._writing():
            self.db.execute(f"INSERT INTO tournaments ({', '.join(row)}) "
                            f"VALUES ({', '.join('?' * len(row))})", list(row.values()))
            for table in ("games", "faults", "secrets", "bot_identities", "rating_snapshots",
                          "swiss_rounds", "segments", "changes"):
                self.db.execute(f"UPDATE {table} SET tournament = ? WHERE tournament = ?",
                                (archive, name))
            self.db.execute("DELETE FROM tournaments WHERE name = ?", (name,))
        return archive

    # -- the lock: one referee per tournament --------------------------------
    def lock(self, tournament: str) -> None:
        """Take the tournament's lock, or raise a StoreError naming who holds it.

        A lock left by a dead referee of this host is taken over; one of another
        host cannot be checked, so it is refused like a live one.
        """
        me = (os.getpid(), socket.gethostname(), _now())
        with self._writing():
            taken = self.db.execute("INSERT OR IGNORE INTO locks VALUES (?, ?, ?, ?)",
                                    (tournament, *me)).rowcount
        if taken:
            return
        holder = self.db.execute("SELECT * FROM locks WHERE tournament = ?",
                                 (tournament,)).fetchone()
        if holder is not None and holder["host"] == me[1] and not _alive(holder["pid"]):
            with self._writing():
                taken = self.db.execute(
                    "UPDATE locks SET pid = ?, host = ?, since = ? WHERE tournament = ?"
                    " AND pid = ? AND host = ?", (*me, tournament, holder["pid"],
                                                  holder["host"])).rowcount
            if taken:
                return
            holder = self.db.execute("SELECT * FROM locks WHERE tournament = ?",
                                     (tournament,)).fetchone()
        if holder is None:  # released in between: try again
            return self.lock(tournament)
        raise StoreError(f"tournament {tournament!r} is being run by another referee "
                         f"(pid {holder['pid']} on {holder['host']}, since {holder['since']})")

    def unlock(self, tournament: str) -> None:
        """Release our lock; if the database cannot be written, it goes stale and is taken over."""
        try:
            with self._writing():
                self.db.execute("DELETE FROM locks WHERE tournament = ? AND pid = ? AND host = ?",
                                (tournament, os.getpid(), socket.gethostname()))
        except StoreError:
            pass

    def set_identities(self, tournament: str,
                       identities: Mapping[str, tuple[str, str, str]]) -> None:
        """Keep what each bot said of itself in Hello (the latest run's): (name, version,
        protocol version) per bot entry, in one transaction."""
        with self._writing():
            self.db.executemany("INSERT OR REPLACE INTO bot_identities VALUES (?, ?, ?, ?, ?)",
                                [(tournament, bot, *said)
                                 for bot, said in sorted(identities.items())])

    def identities(self, tournament: str) -> dict[str, tuple[str, str, str]]:
        """Per bot entry: (name, version, protocol version) from its Hello."""
        rows = self.db.execute("SELECT bot, name, version, protocol FROM bot_identities "
                               "WHERE tournament = ? ORDER BY bot", (tournament,))
        return {row[0]: (row[1], row[2], row[3]) for row in rows}

    def secret(self, name: str) -> str | None:
        """The tournament's deal secret, if it has one."""
        row = self.db.execute("SELECT secret FROM secrets WHERE tournament = ?",
                              (name,)).fetchone()
        return None if row is None else row[0]

    def set_secret(self, name: str, secret: str) -> None:
        with self._writing():
            self.db.execute("INSERT INTO secrets (tournament, secret) VALUES (?, ?)",
                            (name, secret))

    def finish_tournament(self, name: str) -> None:
        with self._writing():
            self.db.execute("UPDATE tournaments SET finished_at = ? WHERE name = ?",
                            (_now(), name))

    # -- Swiss rounds: each round's pairing, kept once made -----------------------
    def keep_round(self, tournament: str, number: int, pairing: SwissRound,
                   vacant_games: int) -> None:
        """Keep a round's pairing and take the games it leaves vacant (tables of bots
        that did not start) off the tournament's total, in one transaction."""
        with self._writing():
            self.db.execute("INSERT INTO swiss_rounds VALUES (?, ?, ?, ?, ?)",
                            (tournament, number, json.dumps(pairing.tables),
                             json.dumps(pairing.byes), json.dumps(pairing.absent)))
            self.db.execute("UPDATE tournaments SET total_games = total_games - ? "
                            "WHERE name = ?", (vacant_games, tournament))

    def rounds_paired(self, tournament: str) -> int:
        """How many Swiss rounds are paired: those kept, and any an older referee began
        without keeping its pairing."""
        kept, played = (self.db.execute(f"SELECT max(round) FROM {table} WHERE tournament = ?",
                                        (tournament,)).fetchone()[0]
                        for table in ("swiss_rounds", "games"))
        return max(-1 if last is None else last for last in (kept, played)) + 1

    def swiss_round(self, tournament: str, number: int) -> SwissRound | None:
        """A round's pairing, if it was made."""
        row = self.db.execute("SELECT tables, byes, absent FROM swiss_rounds WHERE "
                              "tournament = ? AND round = ?", (tournament, number)).fetchone()
        if row is None:
            return None
        return SwissRound([tuple(table) for table in json.loads(row[0])], json.loads(row[1]),
                          json.loads(row[2]))

    # -- a season's changes: the schedule's segments and what was changed ---------
    def segments(self, tournament: str) -> list[Segment]:
        """The schedule's segments, if the field ever changed (else none is kept)."""
        rows = self.db.execute("SELECT * FROM segments WHERE tournament = ? ORDER BY number",
                               (tournament,))
        return [Segment(row["number"], row["first_index"], row["first_group"],
                        range(row["first_round"], row["first_round"] + row["rounds"]),
                        *(tuple(json.loads(row[key])) for key in
                          ("bots", "remembering", "entering", "excluded")))
                for row in rows]

    def changes(self, tournament: str) -> list[tuple[str, list[str]]]:
        """Each change of the field applied, in order: when, and what it did."""
        rows = self.db.execute("SELECT at, lines FROM changes WHERE tournament = ? "
                               "ORDER BY number", (tournament,))
        return [(row[0], json.loads(row[1])) for row in rows]

    def apply_change(self, change: FieldChange) -> str | None:
        """Apply a change of the field in one transaction (:mod:`tournaments.season`
        says what it is): every later version's old games renamed, the dropped games
        moved into a tournament of their own (returned: ``NAME.dropped-N``), the
        segments, config, total and the change's record kept, the rating snapshot
        (which a rename would not invalidate) dropped."""
        name = change.tournament
        with self._writing():
            for bot, label in change.renames.items():
                self._rename(name, bot, label)
            dropped = self._move_games(name, change.dropped) if change.dropped else None
            self.db.execute("DELETE FROM segments WHERE tournament = ?", (name,))
            self.db.executemany(
                "INSERT INTO segments VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(name, seg.number, seg.first_index, seg.first_group, seg.rounds.start,
                  len(seg.rounds), *(json.dumps(list(getattr(seg, key))) for key in
                                     ("bots", "remembering", "entering", "excluded")))
                 for seg in change.segments])
            self.db.execute("UPDATE tournaments SET config = ?, identity = ?, total_games = ?,"
                            " finished_at = NULL WHERE name = ?",
                            (json.dumps(change.config), json.dumps(change.identity,
                                                                   sort_keys=True),
                             change.total, name))
            self.db.execute("DELETE FROM rating_snapshots WHERE tournament = ?", (name,))
            number = self.db.execute("SELECT count(*) FROM changes WHERE tournament = ?",
                                     (name,)).fetchone()[0]
            self.db.execute("INSERT INTO changes VALUES (?, ?, ?, ?)",
                            (name, number + 1, _now(), json.dumps(change.lines)))
        return dropped

    def _rename(self, tournament: str, bot: str, label: str) -> None:
        """Call ``bot`` ``label`` in everything stored of the tournament: its games, their
        faults, its Hello identity and the Swiss rounds it was paired in."""
        def renamed(names: list[str]) -> list[str]:
            return [label if item == bot else item for item in names]

        for game_id, seats in self.db.execute(
                "SELECT id, seats FROM games WHERE tournament = ?", (tournament,)).fetchall():
            names = json.loads(seats)
            if bot in names:
                self.db.execute("UPDATE games SET seats = ? WHERE id = ?",
                                (json.dumps(renamed(names)), game_id))
        self.db.execute("UPDATE faults SET bot = ? WHERE tournament = ? AND bot = ?",
                        (label, tournament, bot))
        self.db.execute("UPDATE bot_identities SET bot = ? WHERE tournament = ? AND bot = ?",
                        (label, tournament, bot))
        for number, tables, byes, absent in self.db.execute(
                "SELECT round, tables, byes, absent FROM swiss_rounds WHERE tournament = ?",
                (tournament,)).fetchall():
            self.db.execute(
                "UPDATE swiss_rounds SET tables = ?, byes = ?, absent = ? WHERE tournament = ?"
                " AND round = ?", (json.dumps([renamed(table) for table in json.loads(tables)]),
                                   json.dumps(renamed(json.loads(byes))),
                                   json.dumps(renamed(json.loads(absent))), tournament, number))

    def _move_games(self, tournament: str, game_ids: list[int]) -> str:
        """Move games and their faults into a new finished tournament, NAME.dropped-N,
        with the same config: kept and replayable, but no longer the tournament's."""
        moved = self.free_name(f"{tournament}.dropped")
        row = dict(self.db.execute("SELECT * FROM tournaments WHERE name = ?",
                                   (tournament,)).fetchone())
        row.update(name=moved, total_games=len(game_ids), created_at=_now(),
                   finished_at=_now())
        self.db.execute(f"INSERT INTO tournaments ({', '.join(row)}) "
                        f"VALUES ({', '.join('?' * len(row))})", list(row.values()))
        for table, key in (("games", "id"), ("faults", "game_id")):
            self.db.executemany(f"UPDATE {table} SET tournament = ? WHERE {key} = ?",
                                [(moved, game_id) for game_id in game_ids])
        return moved

    # -- games ---------------------------------------------------------------
    def add_game(self, tournament: str, pairing: Pairing, result: MatchResult,
                 code: list[tuple[str, str | None]] | None = None) -> int:
        """Write a finished game and its faults in one transaction; ``code``: what code
        played it, by seat (fingerprint, Hello name and version).

        Idempotent on (tournament, game index): a game already stored (say, a
        cluster game played twice after its worker was lost) is kept as it is,
        and its id returned.
        """
        with self._writing():
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO games (tournament, game_index, group_index, round, seed,"
                " game, variant, seats, scores, ranks, status, end_reason, actions, times,"
                " started_at, finished_at, duration_s, code)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (tournament, pairing.index, pairing.group, pairing.round, pairing.seed,
                 result.game, result.variant, json.dumps(list(pairing.seats)),
                 json.dumps(result.scores), json.dumps(result.ranks), result.status,
                 result.end_reason, json.dumps(result.actions), json.dumps(result.times),
                 result.started_at, result.finished_at, result.duration_s,
                 None if code is None else json.dumps(code)))
            if cursor.rowcount == 0:
                return self.db.execute(
                    "SELECT id FROM games WHERE tournament = ? AND game_index = ?",
                    (tournament, pairing.index)).fetchone()[0]
            game_id = cursor.lastrowid
            assert game_id is not None, "an INSERT that added a row sets lastrowid"
            self.db.executemany(
                "INSERT INTO faults (tournament, game_id, game_index, seat, bot, decision_id,"
                " class, detail, policy, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(tournament, game_id, pairing.index, fault.seat, fault.bot, fault.decision_id,
                  fault.fault_class, fault.detail, fault.policy, fault.time)
                 for fault in result.faults])
        return game_id

    def codes(self, tournament: str) -> dict[str, list[tuple[str, str | None]]]:
        """What code each bot played its stored games with: (fingerprint, Hello name and
        version) pairs, in the schedule order it last played with each (the last is its
        latest), bots sorted by name: the same games give the same mapping, whatever order
        they finished in."""
        seen: dict[str, dict[tuple[str, str | None], None]] = {}
        for seats, code in self.db.execute(
                "SELECT seats, code FROM games WHERE tournament = ? AND code IS NOT NULL "
                "ORDER BY game_index", (tournament,)):
            for bot, (digest, hello) in zip(json.loads(seats), json.loads(code)):
                seen.setdefault(bot, {}).pop((digest, hello), None)
                seen[bot][digest, hello] = None
        return {bot: list(seen[bot]) for bot in sorted(seen)}

    def seated(self, tournament: str) -> set[str]:
        """Every bot that sits in a stored game: the field's, and those that left it with
        their games (a withdrawn bot, an earlier version ``BOT@vN``)."""
        rows = self.db.execute("SELECT DISTINCT seats FROM games WHERE tournament = ?",
                               (tournament,))
        return {bot for (seats,) in rows for bot in json.loads(seats)}

    def done_indices(self, tournament: str) -> set[int]:
        rows = self.db.execute("SELECT game_index FROM games WHERE tournament = ?",
                               (tournament,))
        return {row[0] for row in rows}

    def group_counts(self, tournament: str) -> dict[int, int]:
        """How many games of each group (deal) are stored."""
        rows = self.db.execute("SELECT group_index, count(*) FROM games WHERE tournament = ?"
                               " GROUP BY group_index ORDER BY group_index", (tournament,))
        return {row[0]: row[1] for row in rows}

    def games(self, tournament: str) -> list[StoredGame]:
        """The tournament's games in schedule order (the order ratings use)."""
        rows = self.db.execute(
            "SELECT * FROM games WHERE tournament = ? ORDER BY game_index", (tournament,))
        return [_game(row) for row in rows]

    def latest_games(self, prefix: str, count: int,
                     seated: Sequence[str] = ()) -> list[StoredGame]:
        """The ``count`` games stored last of the tournaments whose names start with
        ``prefix`` (an arena's matches), the latest first; only those where one of the
        bots ``seated`` sat, if any are given."""
        # A name is found whole in the seats' JSON by its quotes (a name holds none).
        among = " OR ".join("instr(seats, ?) > 0" for _ in seated)
        rows = self.db.execute(
            "SELECT * FROM games WHERE substr(tournament, 1, ?) = ? "
            + (f"AND ({among}) " if seated else "") + "ORDER BY id DESC LIMIT ?",
            (len(prefix), prefix, *(json.dumps(name) for name in seated), count))
        return [_game(row) for row in rows]

    def results(self, tournament: str, indices: range | None = None) -> Iterator[GameResult]:
        """The tournament's games (those of ``indices`` if given) in schedule order, only
        what ratings need, one at a time: a long log's leaderboard need not parse every
        game's actions and times, nor hold every game at once."""
        query = ("SELECT id, game_index, seats, scores, ranks, status, group_index, round "
                 "FROM games WHERE tournament = ?")
        params: tuple[Any, ...] = (tournament,)
        if indices is not None:
            query += " AND game_index >= ? AND game_index < ?"
            params += (indices.start, indices.stop)
        rows = self.db.execute(query + " ORDER BY game_index", params)
        loads = json.loads
        for row in rows:
            yield GameResult(row[0], row[1], loads(row[2]), loads(row[3]), loads(row[4]), row[5],
                             row[6], row[7])

    # -- rating snapshots: a tournament's ratings and counts kept with its games -----
    def snapshot(self, tournament: str, key: dict[str, Any]) -> dict[str, Any] | None:
        """The kept fold of the tournament's games (:class:`ratings.board.Fold`), if it
        was made with ``key`` and covers exactly the games stored now up to its
        ``last_index`` (games stored since, all later in the schedule, can be folded on).

        Games are only ever added, never changed, and their ids are not reused, so
        the same number of games with the same sum of ids are the same games.
        """
        row = self.db.execute("SELECT key, games, id_sum, fold FROM rating_snapshots "
                              "WHERE tournament = ?", (tournament,)).fetchone()
        if row is None or json.loads(row[0]) != key:
            return None
        fold = json.loads(row[3])
        stored = self.db.execute("SELECT count(*), coalesce(sum(id), 0) FROM games "
                                 "WHERE tournament = ? AND game_index <= ?",
                                 (tournament, fold["last_index"])).fetchone()
        return fold if (row[1], row[2]) == tuple(stored) else None

    def keep_snapshot(self, tournament: str, key: dict[str, Any], fold: dict[str, Any]
                      ) -> None:
        """Keep a fold (its ``games`` and ``id_sum`` say which games it covers)."""
        with self._writing():
            self.db.execute("INSERT OR REPLACE INTO rating_snapshots VALUES (?, ?, ?, ?, ?)",
                            (tournament, json.dumps(key, sort_keys=True), fold["games"],
                             fold["id_sum"], json.dumps(fold)))

    def game(self, game_id: int) -> StoredGame | None:
        row = self.db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else _game(row)

    def faults(self, tournament: str, bot: str | None = None) -> Iterator[sqlite3.Row]:
        query = "SELECT * FROM faults WHERE tournament = ?"
        params: tuple[Any, ...] = (tournament,)
        if bot is not None:
            query += " AND bot = ?"
            params += (bot,)
        return iter(self.db.execute(query + " ORDER BY game_index, decision_id, id", params))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _tournament(row: sqlite3.Row) -> StoredTournament:
    return StoredTournament(row["name"], json.loads(row["config"]), json.loads(row["identity"]),
                            row["total_games"], row["created_at"], row["finished_at"],
                            row["log_dir"])


_JSON_COLUMNS = ("seats", "scores", "ranks", "actions", "times", "code")


def _game(row: sqlite3.Row) -> StoredGame:
    values = {key: json.loads(row[key]) if key in _JSON_COLUMNS and row[key] is not None
              else row[key] for key in row.keys()}
    return StoredGame(**values)
