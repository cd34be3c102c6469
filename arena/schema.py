"""The arena's schema versions, kept in the database file beside its tables.

Each part of the arena that keeps tables (the service's, the ladder's) has its own list
of migrations, each a tuple of statements; the count applied is its schema version,
kept in ``arena_meta`` under the part's key. Opening a file applies the migrations it
lacks, in one transaction; a file written by a newer circus-referee (more migrations
than this one knows) is refused before anything in it is changed.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tournaments.store import StoreError

Migrations = tuple[tuple[str, ...], ...]


def migrate(db: sqlite3.Connection, path: Path, key: str, part: str,
            migrations: Migrations) -> None:
    """Bring ``part``'s tables (its version kept under ``key``) up to ``migrations``."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("CREATE TABLE IF NOT EXISTS arena_meta "
                   "(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        applied = version(db, key)
        if applied > len(migrations):
            raise StoreError(f"{path}: its {part} tables are at schema version {applied}, "
                             f"newer than this circus-referee's {len(migrations)}: "
                             "open it with a newer circus-referee")
        for migration in migrations[applied:]:
            for statement in migration:
                db.execute(statement)
        db.execute("INSERT OR REPLACE INTO arena_meta VALUES (?, ?)",
                   (key, str(len(migrations))))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def version(db: sqlite3.Connection, key: str) -> int:
    """The schema version kept under ``key`` (0: none yet)."""
    row = db.execute("SELECT value FROM arena_meta WHERE key = ?", (key,)).fetchone()
    return int(row[0]) if row else 0
