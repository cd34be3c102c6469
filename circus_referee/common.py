"""What every command module shares: the database options, one-line errors, and opening a
stored tournament.

A command area in a module of its own (:mod:`circus_referee.submissions`) imports these,
and :mod:`circus_referee.main` registers its commands.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from referee.text import printable
from tournaments.store import DEFAULT_DB, Store, StoredTournament, StoreError

DB_OPTION = click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
                         default=DEFAULT_DB, show_default=True, help="results database")
TOURNAMENT_OPTION = click.option("--tournament", "-t", default=None,
                                 help="tournament name (default: the latest)")


def fail(message: str, status: int = 2) -> NoReturn:
    """One inert line and the exit status: a message may quote a bot (its log's tail,
    its Hello)."""
    click.echo(f"error: {printable(message)}", err=True)
    sys.exit(status)


def open_store(db_path: Path) -> Store:
    try:
        return Store.open_existing(db_path)
    except StoreError as error:
        fail(str(error))


def tournament_bots(record: StoredTournament) -> list[str]:
    return [bot["name"] for bot in record.config.get("bots", [])]


def known_bot(store: Store, record: StoredTournament, bot: str | None) -> None:
    """Refuse a --bot that did not play in the tournament, listing those that did (those
    of its field, and those that left it with their games: BOT@v1, withdrawn bots)."""
    known = list(dict.fromkeys([*tournament_bots(record), *store.codes(record.name)]))
    if bot is not None and bot not in known:
        fail(f"no bot {bot!r} in tournament {record.name!r} (bots: {', '.join(known)})")


def open_tournament(db_path: Path, name: str | None) -> tuple[Store, StoredTournament]:
    """The store and the named (or latest) tournament in it, or a one-line error."""
    store = open_store(db_path)
    try:
        return store, store.resolve(name)
    except StoreError as error:
        fail(str(error))
