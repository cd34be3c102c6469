"""A stored tournament's records for programs and people: ``tournaments``, ``played``,
``faults``, ``times`` and ``export``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, TextIO

import click
from tabulate import tabulate

from circus_referee.common import (
    DB_OPTION,
    TOURNAMENT_OPTION,
    known_bot,
    open_store,
    open_tournament,
    tournament_bots,
)
from pages.notes import transports, withheld_notes
from ratings import formatting
from referee.text import printable
from tournaments.export import game_records, unsettled_groups, write_csv, write_jsonl
from tournaments.packs import (
    FAULT_COLUMNS,
    PLAYED_COLUMNS,
    TIME_COLUMNS,
    fault_records,
    played_records,
    time_records,
)


RECORDS_FORMAT_OPTION = click.option(
    "--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
    show_default=True, help="table for people; json or csv for programs")


def inert(value: Any) -> Any:
    """A cell's strings, in lists too, made :func:`printable`; other values as they are."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, list):
        return [inert(item) for item in value]
    return value


def emit_records(records: list[dict[str, Any]], columns: list[str], fmt: str,
                 empty: str) -> None:
    """Print rows as a table, a JSON array or CSV (docs/commands.md, "Output formats").

    Tables join lists with ", "; JSON keeps them as arrays; CSV writes them
    spreadsheet-style (see :func:`ratings.formatting.csv_value`).
    """
    if fmt == "json":
        click.echo(json.dumps(records, indent=2))   # JSON escapes control characters
        return
    # A cell may hold a bot's words (a fault's detail): inert, as in every output.
    records = [{key: inert(value) for key, value in record.items()} for record in records]
    if fmt == "csv":
        click.echo(formatting.csv_text(records, columns))
    elif not records:
        click.echo(empty)
    else:
        cells = [[", ".join(map(str, value)) if isinstance(value, list) else value
                  for value in (record[column] for column in columns)] for record in records]
        click.echo(tabulate(cells, headers=[column.replace("_", " ") for column in columns],
                            disable_numparse=True))


@click.command("tournaments")
@DB_OPTION
@RECORDS_FORMAT_OPTION
def tournaments_command(db_path: Path, fmt: str) -> None:
    """List the tournaments stored in the database, newest first."""
    store = open_store(db_path)
    records: list[dict[str, Any]] = []   # a row per tournament, of mixed values
    for stored in reversed(store.tournaments()):
        done = len(store.done_indices(stored.name))
        status = ("finished" if done >= stored.total_games else "stopped early") \
            if stored.finished_at else \
            "not started" if done == 0 else "unfinished (run it again to resume)"
        records.append({"name": stored.name, "game": stored.config.get("game"),
                        "variant": stored.config.get("variant"),
                        "bots": tournament_bots(stored), "games_done": done,
                        "games_total": stored.total_games, "status": status,
                        "created": stored.created_at, "finished": stored.finished_at})
    if fmt == "table":   # json and csv keep every name
        records = [{**record, "bots": few_bots(record["bots"])} for record in records]
    emit_records(records, ["name", "game", "variant", "bots", "games_done", "games_total",
                           "status", "created", "finished"], fmt,
                 f"no tournaments in {db_path}")


@click.command()
@DB_OPTION
@TOURNAMENT_OPTION
@click.option("--bot", default=None, help="only the games this bot played")
@RECORDS_FORMAT_OPTION
def played(db_path: Path, tournament: str | None, bot: str | None, fmt: str) -> None:
    """List a tournament's stored games: the ids `replay` takes, seats, scores, status."""
    store, record = open_tournament(db_path, tournament)
    known_bot(store, record, bot)
    emit_records(played_records(store.games(record.name), bot), PLAYED_COLUMNS, fmt,
                 f"no games{f' with {bot}' if bot else ''} stored in {record.name}")


@click.command()
@DB_OPTION
@TOURNAMENT_OPTION
@click.option("--bot", default=None, help="only this bot's faults")
@RECORDS_FORMAT_OPTION
def faults(db_path: Path, tournament: str | None, bot: str | None, fmt: str) -> None:
    """List the faults bots made, with the path of each bot's log."""
    store, record = open_tournament(db_path, tournament)
    known_bot(store, record, bot)
    emit_records(fault_records(store, record, bot), FAULT_COLUMNS, fmt,
                 f"no faults{f' by {bot}' if bot else ''} in {record.name}")


@click.command()
@DB_OPTION
@TOURNAMENT_OPTION
@RECORDS_FORMAT_OPTION
def times(db_path: Path, tournament: str | None, fmt: str) -> None:
    """Show each bot's decision times in milliseconds: median, 99th percentile, maximum, total."""
    store, record = open_tournament(db_path, tournament)
    ways = transports(record)
    # One precision for every figure: milliseconds to 0.1 ms.
    records = [{"bot": row["bot"], "transport": ways.get(row["bot"], "grpc"),
                **{key: value for key, value in row.items() if key != "bot"}}
               for row in time_records(store.games(record.name))]
    if fmt == "table":
        records = [{key: f"{value:.1f}" if isinstance(value, float) else value
                    for key, value in row.items()} for row in records]
    emit_records(records, ["bot", "transport", *TIME_COLUMNS[1:]], fmt,
                 f"no decisions stored in {record.name}")


@click.command()
@DB_OPTION
@TOURNAMENT_OPTION
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl",
              show_default=True, help="jsonl: one JSON record per line; csv: one row per game")
@click.option("--output", "-o", type=click.File("w"), default="-", show_default=True,
              help="file to write (default: standard output)")
def export(db_path: Path, tournament: str | None, fmt: str, output: TextIO) -> None:
    """Export every game of a tournament, one record per game, replayable."""
    store, record = open_tournament(db_path, tournament)
    writer = write_jsonl if fmt == "jsonl" else write_csv
    unsettled = unsettled_groups(store, record)
    count = writer(game_records(store, record.name, unsettled), output)
    # "-" comes as click's wrapper of standard output, not sys.stdout itself: by its name.
    if output.name != sys.stdout.name:
        click.echo(f"{count} games of {record.name} written to {output.name}", err=True)
    withheld = sum(games for group, games in store.group_counts(record.name).items()
                   if group in unsettled)
    for note in withheld_notes(withheld, "seeds"):
        click.echo(note, err=True)


#: Bots named in a table's cell; a bigger field shows its count and the first few names.
SHOWN_BOTS = 4


def few_bots(bots: list[str]) -> str:
    """A field of bots for one table cell: a 30-bot Swiss must not make the table 400
    characters wide."""
    if len(bots) <= SHOWN_BOTS:
        return ", ".join(bots)
    return f"{len(bots)}: {', '.join(bots[:SHOWN_BOTS - 1])}, … (+{len(bots) - SHOWN_BOTS + 1})"
