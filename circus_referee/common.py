"""What the command modules share: the database options, one-line errors, opening a
stored tournament, and the notes more than one area prints about it.

Each area of commands is a module of :mod:`circus_referee.commands` that imports these;
:mod:`circus_referee.main` registers its commands.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, NoReturn

import click
from tqdm import tqdm

from ratings.sprt import SprtResult
from referee.errors import CircusError
from referee.interrupts import unstoppable_note
from referee.text import printable
from tournaments.fingerprint import code_text
from tournaments.packs import reached
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
    :data:`PROGRESS_EVERY_S` otherwise); yields what counts one more ``unit`` done."""
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
    :class:`~referee.errors.CircusError` family is caught here, once, for every command."""

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


def remembering(record: StoredTournament) -> list[str]:
    """The bots that keep memory across games (``memory: true`` or ``address:``)."""
    return [bot["name"] for bot in record.config.get("bots", [])
            if bot.get("memory") or (bot.get("memory") is None and bot.get("address"))]


def memory_note(record: StoredTournament) -> str:
    return (f"memory across games: {', '.join(remembering(record))} (their games were dealt "
            "deals of their own, not shared with other seat rotations)")


def ab_line(record: StoredTournament, test: SprtResult) -> str:
    """An A/B test's result, for the summary and the leaderboard."""
    bounds = record.config["sprt"]
    return (f"A/B test: a={record.config['a']} against b={record.config['b']}, "
            f"elo0={bounds['elo0']:g} elo1={bounds['elo1']:g} alpha={bounds['alpha']:g} "
            f"beta={bounds['beta']:g}\n{test.line()}")


def code_column(store: Store, record: StoredTournament) -> dict[str, str]:
    """Each bot's code fingerprint as the leaderboard shows it."""
    return {bot: code_text(digests) for bot, digests in store.codes(record.name).items()}


def transports(record: StoredTournament) -> dict[str, str]:
    """How the referee reached each bot (grpc, stdio or in-process), from the stored config
    (one stored before the stdio transport had gRPC and in-process bots only), and the bots'
    logs (a gRPC bot that fell back from its Play stream to unary calls)."""
    log_dir = Path(record.log_dir or ".")
    return {bot["name"]: reached(log_dir, bot["name"], "in-process" if bot.get("python")
                                 else bot.get("transport") or "grpc")
            for bot in record.config.get("bots") or []}


def withheld_notes(count: int, what: str) -> list[str]:
    """Why ``count`` games' ``what`` (replays, seeds) are left out, if any are."""
    if not count:
        return []
    return [f"{what} of {count} game(s) withheld: the tournament is not finished and their "
            "deals are still to be dealt in other seat rotations (make it again once the "
            "tournament is finished)"]
