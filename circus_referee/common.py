"""What the command modules share: the database options, one-line errors, opening a
stored tournament, progress bars. The notes more than one area prints about a stored
tournament are the report's, :mod:`pages.notes`.

Each area of commands is a module of :mod:`circus_referee.commands` that imports these;
:mod:`circus_referee.main` registers its commands.
"""

from __future__ import annotations

import importlib
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, NoReturn

import click

from referee.errors import CircusError
from referee.interrupts import unstoppable_note
from referee.text import printable
from tournaments.standings import entrants
from tournaments.store import DEFAULT_DB, Store, StoredTournament

DB_OPTION = click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
                         default=DEFAULT_DB, show_default=True, help="results database")
TOURNAMENT_OPTION = click.option("--tournament", "-t", default=None,
                                 help="tournament name (default: the latest)")


#: Seconds between two redraws of a progress bar: a season's pages take minutes.
PROGRESS_EVERY_S = 2.0


@contextmanager
def progress(total: int, what: str, unit: str) -> Iterator[Callable[[], None]]:
    """A progress bar on standard error (redrawn in place on a terminal, a line every
    :data:`PROGRESS_EVERY_S` otherwise); yields what counts one more ``unit`` done. tqdm is
    imported here, by the commands that draw one: a command that draws none (a
    tournament) does not pay for its import."""
    from tqdm import tqdm

    with tqdm(total=total, desc=what, unit=unit, file=sys.stderr,
              mininterval=PROGRESS_EVERY_S) as bar:
        def advance() -> None:
            bar.update()
        yield advance


def fail(message: str, status: int = 2) -> NoReturn:
    """One inert line and the exit status: a message may quote a bot (its log's tail,
    its Hello)."""
    click.echo(f"error: {printable(message)}", err=True)
    sys.exit(status)


class CommandGroup(click.Group):
    """The command group, where every command's project errors end as one line: the
    :class:`~referee.errors.CircusError` family is caught here, once, for every command.

    Its commands are named, not imported (``commands``: each name's ``module:attribute``):
    a command's module is imported when it runs, or when the help lists it, so a command
    pays for no other's imports (the arena's client, the reports' pages, the submissions').
    """

    def __init__(self, *args: Any, commands: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.places = commands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self.places)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        place = self.places.get(cmd_name)
        if place is None:
            return None
        module, _, name = place.partition(":")
        command: click.Command = getattr(importlib.import_module(module), name)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CircusError as error:
            fail(str(error), error.exit_status)


def say_if_unstoppable() -> None:
    """Before a long run: say so on stderr if Ctrl-C cannot stop it, and what does."""
    note = unstoppable_note()
    if note is not None:
        click.echo(note, err=True)


def open_store(db_path: Path) -> Store:
    return Store.open_existing(db_path)


def tournament_bots(record: StoredTournament) -> list[str]:
    return [bot["name"] for bot in record.config.get("bots", [])]


def known_bot(store: Store, record: StoredTournament, bot: str | None) -> None:
    """Refuse a --bot that did not play in the tournament, listing those that did (those
    of its field, and those that left it with their games: BOT@v1, withdrawn bots)."""
    known = entrants(store, record)
    if bot is not None and bot not in known:
        fail(f"no bot {bot!r} in tournament {record.name!r} (bots: {', '.join(known)})")


def open_tournament(db_path: Path, name: str | None) -> tuple[Store, StoredTournament]:
    """The store and the named (or latest) tournament in it, or a one-line error."""
    store = open_store(db_path)
    return store, store.resolve(name)
