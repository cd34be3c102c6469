"""The arena's tables, in the same SQLite file as the tournaments': entrants, versions,
gates, code likeness, test matches, invites, webhooks, signed-in browsers' sessions.

The file is in WAL mode, as the tournaments' store keeps it; the arena's connection
commits with ``synchronous=FULL``, so an accepted submission is on disk before its
answer is sent. Its schema carries a version (``arena_meta``) and each change of it is
a migration, applied in order when an older file is opened.

A token, and an invite's code, is ``KEY_SECRET``: the key finds its row, the secret is
kept only as an argon2 hash and checked by argon2's own constant-time comparison.
A browser signed in holds a session of its own, not the token: a random 256-bit value
kept only as its SHA-256 (too random to guess, so no slow hash is needed), which signing
out deletes, so a copied cookie dies with it while the token lives on.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from arena import schema
from tournaments.config import NAME, NAME_RULE, ConfigError

#: Where ``arena_meta`` keeps the version of these tables (:mod:`arena.schema`).
SCHEMA_KEY = "schema"
#: Each migration in order, a tuple of statements; the schema's version is how many were
#: applied.
MIGRATIONS: schema.Migrations = ((
    """CREATE TABLE arena_entrants (
        name        TEXT PRIMARY KEY,
        role        TEXT NOT NULL,          -- entrant | organiser
        token_key   TEXT NOT NULL UNIQUE,   -- finds the row, the secret being hashed
        token_hash  TEXT NOT NULL,          -- argon2 of the token's secret
        per_day     INTEGER,                -- versions a day, if not the arena's
        created_at  TEXT NOT NULL
    )""",
    """CREATE TABLE arena_versions (
        id           TEXT PRIMARY KEY,      -- ENTRANT.vN: the bot's name in the ladder
        entrant      TEXT NOT NULL REFERENCES arena_entrants(name),
        number       INTEGER NOT NULL,
        fingerprint  TEXT NOT NULL,         -- tournaments.fingerprint of its files
        folder       TEXT NOT NULL,
        entry        TEXT NOT NULL,         -- its bots.yaml entry, JSON
        submitted_at TEXT NOT NULL,
        state        TEXT NOT NULL,         -- queued | passed | failed
        disqualified INTEGER NOT NULL DEFAULT 0,
        UNIQUE (entrant, fingerprint),
        UNIQUE (entrant, number)
    )""",
    """CREATE TABLE arena_gates (
        version     TEXT PRIMARY KEY REFERENCES arena_versions(id),
        passed      INTEGER NOT NULL,
        reason      TEXT NOT NULL,          -- why it failed, '' if it passed
        lines       TEXT NOT NULL,          -- check-bot's lines, JSON
        log         TEXT NOT NULL,          -- the tail of the bot's log in its gate
        finished_at TEXT NOT NULL
    )""",
    """CREATE TABLE arena_secrets (
        name        TEXT PRIMARY KEY,       -- csrf: the key of the forms' tokens
        value       TEXT NOT NULL
    )""",
), (
    """CREATE TABLE arena_likeness (
        version     TEXT NOT NULL REFERENCES arena_versions(id),
        other       TEXT NOT NULL REFERENCES arena_versions(id),  -- another entrant's
        share       REAL NOT NULL,          -- of version's code, found in other's
        other_share REAL NOT NULL,          -- of other's code, found in version's
        PRIMARY KEY (version, other)
    )""",
), (
    """CREATE TABLE arena_test_matches (
        number       INTEGER PRIMARY KEY,   -- its tournament is LADDER-tNNNNNN
        tournament   TEXT NOT NULL UNIQUE,
        entrant      TEXT NOT NULL REFERENCES arena_entrants(name),   -- who asked
        version      TEXT NOT NULL REFERENCES arena_versions(id),     -- theirs
        opponents    TEXT NOT NULL,         -- versions' and baselines' names, JSON
        config       TEXT NOT NULL,         -- the tournament's config, JSON
        requested_at TEXT NOT NULL,
        state        TEXT NOT NULL,         -- queued | played | failed
        note         TEXT NOT NULL DEFAULT '',   -- why it failed
        finished_at  TEXT
    )""",
    """CREATE TABLE arena_invites (
        code_key    TEXT PRIMARY KEY,       -- finds the row, the secret being hashed
        code_hash   TEXT NOT NULL,          -- argon2 of the code's secret
        per_day     INTEGER,                -- the new entrant's versions a day
        created_at  TEXT NOT NULL,
        expires_at  TEXT NOT NULL,
        used_by     TEXT,                   -- the entrant it made; NULL while open
        used_at     TEXT
    )""",
), (
    """CREATE TABLE arena_webhooks (
        entrant     TEXT PRIMARY KEY REFERENCES arena_entrants(name),
        url         TEXT NOT NULL,          -- where the service POSTs its messages
        base        TEXT NOT NULL,          -- the service's address as the entrant used it
        set_at      TEXT NOT NULL
    )""",
), (
    """CREATE TABLE arena_sessions (
        digest      TEXT PRIMARY KEY,       -- SHA-256 of the browser's session cookie
        entrant     TEXT NOT NULL REFERENCES arena_entrants(name),
        created_at  TEXT NOT NULL,
        expires_at  TEXT NOT NULL
    )""",
))
ROLES = ("entrant", "organiser")
#: An entrant's name leaves room for ``.vN`` in its versions' names.
NAME_LENGTH = 56


class GateState:
    """Where a version is in its gate."""

    QUEUED = "queued"
    PASSED = "passed"
    FAILED = "failed"


@dataclass(frozen=True)
class Entrant:
    name: str
    role: str
    per_day: int | None


@dataclass(frozen=True)
class Version:
    id: str
    entrant: str
    number: int
    fingerprint: str
    folder: Path
    entry: dict[str, Any]
    submitted_at: str
    state: str
    disqualified: bool


@dataclass(frozen=True)
class Gate:
    version: str
    passed: bool
    reason: str
    lines: list[str]
    log: str
    finished_at: str


def now() -> str:
    return _stamp(datetime.now(timezone.utc))


class ArenaStore:
    """The arena's tables; one connection shared by the service's threads, each call
    under one lock."""

    def __init__(self, path: Path, hasher: PasswordHasher | None = None) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.hasher = hasher or PasswordHasher()
        self.lock = threading.Lock()
        self.db = sqlite3.connect(path, timeout=10, check_same_thread=False,
                                  isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self._migrate()

    def _migrate(self) -> None:
        with self.lock:
            schema.migrate(self.db, self.path, SCHEMA_KEY, "arena", MIGRATIONS)

    def schema_version(self) -> int:
        with self.lock:
            return schema.version(self.db, SCHEMA_KEY)

    def close(self) -> None:
        self.db.close()

    def _one(self, sql: str, *args: Any) -> sqlite3.Row | None:
        with self.lock:
            row: sqlite3.Row | None = self.db.execute(sql, args).fetchone()
            return row

    def _all(self, sql: str, *args: Any) -> list[sqlite3.Row]:
        with self.lock:
            return self.db.execute(sql, args).fetchall()

    def _write(self, sql: str, *args: Any) -> None:
        with self.lock:
            self.db.execute(sql, args)

    # -- entrants and tokens ---------------------------------------------------------

    def add_entrant(self, name: str, role: str = "entrant", per_day: int | None = None) -> str:
        """Add an entrant (or an organiser) and return its token, which is kept only
        hashed: this is the one time it is seen."""
        self._check_new_name(name)
        key, secret = _new_secret()
        self._write("INSERT INTO arena_entrants VALUES (?, ?, ?, ?, ?, ?)", name, role, key,
                    self.hasher.hash(secret), per_day, now())
        return f"{key}_{secret}"

    def _check_new_name(self, name: str) -> None:
        if not NAME.fullmatch(name) or len(name) > NAME_LENGTH:
            raise ConfigError(f"entrant name {name!r} is not allowed: use {NAME_RULE}, "
                              f"at most {NAME_LENGTH} characters")
        if self.entrant(name) is not None:
            raise ConfigError(f"there is already an entrant {name!r}")

    def entrant(self, name: str) -> Entrant | None:
        row = self._one("SELECT name, role, per_day FROM arena_entrants WHERE name = ?", name)
        return Entrant(row["name"], row["role"], row["per_day"]) if row else None

    def entrants(self) -> list[Entrant]:
        return [Entrant(row["name"], row["role"], row["per_day"]) for row in
                self._all("SELECT name, role, per_day FROM arena_entrants ORDER BY name")]

    def holder(self, token: str, may_check: Callable[[str], bool] = lambda key: True
               ) -> Entrant | None:
        """Whose token this is, or None; its secret is checked only if its key is an
        entrant's and ``may_check(key)``."""
        key, _, secret = token.partition("_")
        row = self._one("SELECT name, role, per_day, token_hash FROM arena_entrants "
                        "WHERE token_key = ?", key)
        if row is None or not may_check(key) or not self._verified(row["token_hash"], secret):
            return None
        return Entrant(row["name"], row["role"], row["per_day"])

    def _verified(self, hashed: str, secret: str) -> bool:
        """Whether ``secret`` is the one ``hashed`` was made of (argon2's constant-time
        comparison)."""
        if not secret:
            return False
        try:
            return bool(self.hasher.verify(hashed, secret))
        except (VerificationError, InvalidHashError):
            return False

    # -- sessions --------------------------------------------------------------------

    def open_session(self, name: str, lasting: timedelta) -> str:
        """A new session of entrant ``name``'s for a browser, good for ``lasting``; it is
        kept only as its digest: this is the one time it is seen."""
        session = secrets.token_urlsafe(32)
        moment = datetime.now(timezone.utc)
        with self.lock:
            self.db.execute("DELETE FROM arena_sessions WHERE expires_at <= ?",
                            (_stamp(moment),))
            self.db.execute("INSERT INTO arena_sessions VALUES (?, ?, ?, ?)",
                            (_digest(session), name, _stamp(moment), _stamp(moment + lasting)))
        return session

    def session_holder(self, session: str) -> Entrant | None:
        """Whose unexpired session this is, or None."""
        row = self._one("SELECT name, role, per_day FROM arena_sessions JOIN arena_entrants "
                        "ON entrant = name WHERE digest = ? AND expires_at > ?",
                        _digest(session), now())
        return Entrant(row["name"], row["role"], row["per_day"]) if row else None

    def close_session(self, session: str) -> None:
        self._write("DELETE FROM arena_sessions WHERE digest = ?", _digest(session))

    # -- invites ---------------------------------------------------------------------

    def add_invite(self, per_day: int | None, lasting: timedelta) -> str:
        """A new invite's code, which is kept only hashed: this is the one time it is
        seen. It makes one entrant (with ``per_day`` versions a day, if given) until
        ``lasting`` from now."""
        key, secret = _new_secret()
        self._write("INSERT INTO arena_invites (code_key, code_hash, per_day, created_at, "
                    "expires_at) VALUES (?, ?, ?, ?, ?)", key, self.hasher.hash(secret),
                    per_day, now(), _stamp(datetime.now(timezone.utc) + lasting))
        return f"{key}_{secret}"

    def invite(self, code: str) -> Invite | None:
        """The invite of this code, used or not, or None."""
        key, _, secret = code.partition("_")
        row = self._one("SELECT * FROM arena_invites WHERE code_key = ?", key)
        if row is None or not self._verified(row["code_hash"], secret):
            return None
        return _invite(row)

    def invites(self) -> list[Invite]:
        """Every invite, the newest first."""
        return [_invite(row) for row in self._all(
            "SELECT * FROM arena_invites ORDER BY created_at DESC, code_key")]

    def join(self, invite: Invite, name: str) -> str:
        """Add the invite's entrant, named ``name``, and use the invite up, in one
        transaction (of two at once, one is refused); return the entrant's token."""
        self._check_new_name(name)
        key, secret = _new_secret()
        hashed = self.hasher.hash(secret)
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.execute("INSERT INTO arena_entrants VALUES (?, ?, ?, ?, ?, ?)",
                                (name, "entrant", key, hashed, invite.per_day, now()))
                used = self.db.execute(
                    "UPDATE arena_invites SET used_by = ?, used_at = ? WHERE code_key = ? "
                    "AND used_by IS NULL AND expires_at > ?", (name, now(), invite.key, now()))
                if used.rowcount != 1:
                    raise ConfigError("this invite was used already, or it expired")
                self.db.execute("COMMIT")
            except sqlite3.IntegrityError:
                self.db.execute("ROLLBACK")
                raise ConfigError(f"there is already an entrant {name!r}") from None
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
        return f"{key}_{secret}"

    def secret(self, name: str) -> str:
        """A secret of the service's, made on first use and kept across restarts."""
        with self.lock:
            self.db.execute("INSERT OR IGNORE INTO arena_secrets VALUES (?, ?)",
                            (name, secrets.token_hex(32)))
            return str(self.db.execute("SELECT value FROM arena_secrets WHERE name = ?",
                                       (name,)).fetchone()[0])

    # -- versions ------------------------------------------------------------------

    def find_version(self, entrant: str, fingerprint: str) -> Version | None:
        row = self._one("SELECT * FROM arena_versions WHERE entrant = ? AND fingerprint = ?",
                        entrant, fingerprint)
        return _version(row) if row else None

    def add_version(self, entrant: str, fingerprint: str, folder: Path,
                    entry: dict[str, Any]) -> Version:
        """A new version of the entrant's, queued for its gate; its name in ``entry``
        becomes the version's id."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                number = self.db.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM "
                                         "arena_versions WHERE entrant = ?",
                                         (entrant,)).fetchone()[0]
                version = f"{entrant}.v{number}"
                self.db.execute("INSERT INTO arena_versions VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)",
                                (version, entrant, number, fingerprint, str(folder),
                                 json.dumps({**entry, "name": version}), now(),
                                 GateState.QUEUED))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
        found = self.version(version)
        assert found is not None
        return found

    def version(self, version: str) -> Version | None:
        row = self._one("SELECT * FROM arena_versions WHERE id = ?", version)
        return _version(row) if row else None

    def versions(self, entrant: str | None = None) -> list[Version]:
        """Every version (of ``entrant``), newest first."""
        if entrant is None:
            rows = self._all("SELECT * FROM arena_versions ORDER BY submitted_at DESC, id DESC")
        else:
            rows = self._all("SELECT * FROM arena_versions WHERE entrant = ? "
                             "ORDER BY number DESC", entrant)
        return [_version(row) for row in rows]

    def versions_since(self, entrant: str, hours: float) -> int:
        since = datetime.now(timezone.utc) - timedelta(hours=hours)
        row = self._one("SELECT COUNT(*) FROM arena_versions WHERE entrant = ? AND "
                        "submitted_at >= ?", entrant, since.isoformat(timespec="seconds"))
        return int(row[0]) if row else 0

    def queued(self) -> list[Version]:
        """The versions waiting for their gate, oldest first."""
        return [_version(row) for row in self._all(
            "SELECT * FROM arena_versions WHERE state = ? ORDER BY submitted_at, id",
            GateState.QUEUED)]

    def active(self) -> list[Version]:
        """Each entrant's newest version that passed its gate and is not disqualified."""
        return [_version(row) for row in self._all(
            "SELECT * FROM arena_versions AS v WHERE state = ? AND disqualified = 0 AND "
            "number = (SELECT MAX(number) FROM arena_versions WHERE entrant = v.entrant "
            "AND state = ? AND disqualified = 0) ORDER BY entrant",
            GateState.PASSED, GateState.PASSED)]

    def disqualify(self, version: str, disqualified: bool) -> None:
        self._write("UPDATE arena_versions SET disqualified = ? WHERE id = ?",
                    int(disqualified), version)

    # -- gates -------------------------------------------------------------------------

    def finish_gate(self, gate: Gate) -> None:
        """A version's gate result and its state, in one transaction."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.execute("INSERT OR REPLACE INTO arena_gates VALUES (?, ?, ?, ?, ?, ?)",
                                (gate.version, int(gate.passed), gate.reason,
                                 json.dumps(gate.lines), gate.log, gate.finished_at))
                self.db.execute("UPDATE arena_versions SET state = ? WHERE id = ?",
                                (GateState.PASSED if gate.passed else GateState.FAILED,
                                 gate.version))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    # -- webhooks ------------------------------------------------------------------

    def set_webhook(self, entrant: str, url: str, base: str) -> None:
        """The entrant's webhook (``url`` empty: none); ``base`` begins its messages'
        links."""
        if url:
            self._write("INSERT OR REPLACE INTO arena_webhooks VALUES (?, ?, ?, ?)",
                        entrant, url, base, now())
        else:
            self._write("DELETE FROM arena_webhooks WHERE entrant = ?", entrant)

    def webhook(self, entrant: str) -> Webhook | None:
        row = self._one("SELECT url, base FROM arena_webhooks WHERE entrant = ?", entrant)
        return Webhook(row["url"], row["base"]) if row else None

    # -- code likeness ---------------------------------------------------------------

    def keep_likeness(self, found: list[Likeness]) -> None:
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.executemany("INSERT OR REPLACE INTO arena_likeness VALUES (?, ?, ?, ?)",
                                    [(like.version, like.other, like.share, like.other_share)
                                     for like in found])
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def alike(self, least: float) -> list[Likeness]:
        """The pairs of which one holds at least ``least`` of the other's code, the most
        alike first."""
        rows = self._all("SELECT * FROM arena_likeness WHERE MAX(share, other_share) >= ? "
                         "ORDER BY MAX(share, other_share) DESC, version, other", least)
        return [Likeness(row["version"], row["other"], row["share"], row["other_share"])
                for row in rows]

    # -- test matches (unrated) ------------------------------------------------------

    def add_unrated(self, entrant: str, version: str, opponents: list[str], prefix: str,
                    config: Callable[[str], dict[str, Any]]) -> UnratedMatch:
        """Queue a test match: its tournament is named ``prefix`` and its number, and
        ``config`` makes the tournament's config from that name."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                number = self.db.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM "
                                         "arena_test_matches").fetchone()[0]
                name = f"{prefix}{number:06d}"
                self.db.execute("INSERT INTO arena_test_matches (number, tournament, entrant, "
                                "version, opponents, config, requested_at, state) VALUES "
                                "(?, ?, ?, ?, ?, ?, ?, ?)",
                                (number, name, entrant, version, json.dumps(opponents),
                                 json.dumps(config(name)), now(), UnratedState.QUEUED))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
        found = self.unrated_match(name)
        assert found is not None
        return found

    def unrated_match(self, tournament: str) -> UnratedMatch | None:
        row = self._one("SELECT * FROM arena_test_matches WHERE tournament = ?", tournament)
        return _unrated(row) if row else None

    def unrated_matches(self, entrant: str) -> list[UnratedMatch]:
        """The entrant's test matches, the newest first."""
        return [_unrated(row) for row in self._all(
            "SELECT * FROM arena_test_matches WHERE entrant = ? ORDER BY number DESC",
            entrant)]

    def unrated_queue(self) -> list[UnratedMatch]:
        """The test matches waiting to be played (or resumed), the oldest first."""
        return [_unrated(row) for row in self._all(
            "SELECT * FROM arena_test_matches WHERE state = ? ORDER BY number",
            UnratedState.QUEUED)]

    def unrated_since(self, entrant: str, hours: float) -> int:
        since = datetime.now(timezone.utc) - timedelta(hours=hours)
        row = self._one("SELECT COUNT(*) FROM arena_test_matches WHERE entrant = ? AND "
                        "requested_at >= ?", entrant, _stamp(since))
        return int(row[0]) if row else 0

    def finish_unrated(self, number: int, state: str, note: str) -> None:
        self._write("UPDATE arena_test_matches SET state = ?, note = ?, finished_at = ? "
                    "WHERE number = ?", state, note, now(), number)

    def gate(self, version: str) -> Gate | None:
        row = self._one("SELECT * FROM arena_gates WHERE version = ?", version)
        if row is None:
            return None
        return Gate(row["version"], bool(row["passed"]), row["reason"], json.loads(row["lines"]),
                    row["log"], row["finished_at"])


@dataclass(frozen=True)
class Webhook:
    """Where an entrant's messages go, and the service's address their links begin with."""

    url: str
    base: str


@dataclass(frozen=True)
class Likeness:
    """How much of two versions' code each holds of the other's."""

    version: str
    other: str
    share: float
    other_share: float

    @property
    def most(self) -> float:
        return max(self.share, self.other_share)


@dataclass(frozen=True)
class Invite:
    """An invite: it makes one entrant, until it expires."""

    key: str
    per_day: int | None
    created_at: str
    expires_at: str
    used_by: str | None

    def problem(self) -> str | None:
        """Why it can make no entrant now, if so."""
        if self.used_by is not None:
            return "this invite was used already"
        if self.expires_at <= now():
            return f"this invite expired at {self.expires_at}"
        return None


@dataclass(frozen=True)
class UnratedMatch:
    """A test match an entrant asked for: its version against opponents, unrated."""

    number: int
    tournament: str
    entrant: str
    version: str
    opponents: list[str]
    config: dict[str, Any]
    requested_at: str
    state: str
    note: str
    finished_at: str | None


class UnratedState:
    QUEUED = "queued"
    PLAYED = "played"
    FAILED = "failed"


def _new_secret() -> tuple[str, str]:
    """A token's (or an invite's) key, which finds its row, and its secret."""
    return secrets.token_hex(6), secrets.token_urlsafe(24)


def _digest(session: str) -> str:
    return hashlib.sha256(session.encode()).hexdigest()


def _stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def _invite(row: sqlite3.Row) -> Invite:
    return Invite(row["code_key"], row["per_day"], row["created_at"], row["expires_at"],
                  row["used_by"])


def _unrated(row: sqlite3.Row) -> UnratedMatch:
    return UnratedMatch(row["number"], row["tournament"], row["entrant"], row["version"],
                        json.loads(row["opponents"]), json.loads(row["config"]),
                        row["requested_at"], row["state"], row["note"], row["finished_at"])


def _version(row: sqlite3.Row) -> Version:
    return Version(row["id"], row["entrant"], row["number"], row["fingerprint"],
                   Path(row["folder"]), json.loads(row["entry"]), row["submitted_at"],
                   row["state"], bool(row["disqualified"]))
