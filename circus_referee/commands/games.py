"""The games and one game's record: ``games`` lists the rules, ``replay`` plays a record
again, as text or as an HTML viewer."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from tabulate import tabulate

from circus_referee.common import DB_OPTION, fail, open_store
from pages.viewer import record_data, render_page
from referee.games import GAMES, GameConfigError, GameRecord, end_words
from referee.games.base import IllegalActionError
from referee.replay import replay_frames, text_lines
from tournaments.export import read_records, replay_record


@click.command()
def games() -> None:
    """List the games, their variants and player counts."""
    rows = [[game.name, game.title, ", ".join(game.variants),
             f"{game.min_players}-{game.max_players}", game.summary]
            for game in GAMES.values()]
    click.echo(tabulate(rows, headers=["game", "title", "variants", "players", "summary"]))


@dataclass(frozen=True)
class ReplaySource:
    """A game to replay, from the store or an export file, with what was kept of it."""

    record: GameRecord
    title: str                        # e.g. "game 12: demo #11"
    status: str
    seats: list[str]
    scores: list[int]
    ranks: list[int]
    times: list[list[float]]
    faults: list[dict[str, Any]]


def stored_source(db_path: Path, game_id: int) -> ReplaySource:
    store = open_store(db_path)
    # SQLite ids are 64-bit: a larger number names no game.
    stored = store.game(game_id) if 0 < game_id < 2**63 else None
    if stored is None:
        fail(f"no game with id {game_id} in {db_path}")
    faults = [dict(row) for row in store.faults(stored.tournament) if row["game_id"] == game_id]
    return ReplaySource(
        GameRecord(stored.game, stored.variant, len(stored.seats), stored.seed,
                   tuple(stored.actions)),
        f"game {stored.id}: {stored.tournament} #{stored.game_index}", stored.status,
        stored.seats, stored.scores, stored.ranks, stored.times, faults)


def exported_source(path: Path, index: int | None) -> ReplaySource:
    """The record with schedule index ``index`` (its ``game_index``) of an export file."""
    if not path.is_file():
        fail(f"no export file at {path}")
    try:
        records = read_records(path)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        fail(f"cannot read {path}: {error}")
    indices = [int(record.get("game_index", -1)) for record in records]
    if index is None:
        if len(records) != 1:
            fail(f"{path} holds {len(records)} games: give --index N (its game_index)")
        index = indices[0]
    if index not in indices:
        shown = f"{min(indices)}-{max(indices)}" if indices else "none"
        fail(f"no game with index {index} in {path} (game_index: {shown})")
    found = records[indices.index(index)]
    if found.get("seed") in (None, ""):
        fail(f"record {index} of {path} has no seed: it was exported while its deal was still "
             "to be played in other seat rotations; export again once the tournament is "
             "finished")
    try:
        record = replay_record(found)
    except (KeyError, TypeError, ValueError) as error:
        fail(f"record {index} of {path} is not replayable ({error})")
    return ReplaySource(
        record, f"{found.get('tournament', path.name)} #{index}", found.get("status", "?"),
        list(found["seats"]), list(found.get("scores") or []), list(found.get("ranks") or []),
        list(found.get("times") or []),
        [{**fault, "decision_id": fault.get("decision_id", 0)}
         for fault in found.get("faults") or []])


@click.command()
@click.argument("game_id", type=int, required=False)
@DB_OPTION
@click.option("--from", "source", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="an export file (jsonl or csv) instead of the database")
@click.option("--index", "index", type=int, default=None,
              help="with --from: the game's schedule index (game_index in the export)")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="write an HTML replay viewer to this file")
@click.option("--view", "view_given", default=None, metavar="SEAT|BOT",
              help="only what one seat saw (its number, or its bot's name): its events and "
                   "its own decisions")
def replay(game_id: int | None, db_path: Path, source: Path | None, index: int | None,
           html_path: Path | None, view_given: str | None) -> None:
    """Replay a game from its record: decision by decision, or as an HTML viewer.

    GAME_ID is the database id (`circus-referee faults` and the report show it);
    or give --from EXPORT_FILE with --index N.
    """
    if (game_id is None) == (source is None):
        fail("give a GAME_ID or --from EXPORT_FILE (not both)")
    if index is not None and source is None:
        fail("--index goes with --from EXPORT_FILE")
    if source is not None:
        game = exported_source(source, index)
    else:
        assert game_id is not None, "one of the two, as checked above"
        game = stored_source(db_path, game_id)
    view = None if view_given is None else viewed_seat(view_given, game.seats)
    try:
        replayed = replay_frames(game.record, game.seats, game.times, game.faults,
                                 game.ranks or None)
    except (GameConfigError, IllegalActionError) as error:
        fail(f"the record does not replay: {error}")
    if html_path is not None:
        page = render_page(game.record.game, game.title,
                           record_data(game.record, game.seats, game.title, game.times,
                                       game.faults, game.ranks or None))
        try:
            html_path.write_text(page, encoding="utf-8")
        except OSError as error:
            fail(f"cannot write {html_path}: {error.strerror}")
        click.echo(f"wrote {html_path} ({len(page) // 1024} KB): {len(replayed.decisions)} "
                   f"decisions of {game.title}")
        return
    record = game.record
    click.echo(f"{game.title}, {record.game} ({record.variant}), seed {record.seed}, "
               f"status {game.status}")
    click.echo("seats: " + ", ".join(f"{seat}={name}" for seat, name in enumerate(game.seats)))
    click.echo("\n".join(text_lines(replayed, view)))
    click.echo(f"end: {replayed.end_reason} ({end_words(replayed.end_reason)}); "
               f"scores {replayed.scores}; ranks {replayed.ranks}")
    if game.scores and replayed.scores != game.scores:
        fail(f"replay gives scores {replayed.scores}, the record has {game.scores}", status=1)


def viewed_seat(given: str, seats: list[str]) -> int:
    """The seat ``--view`` names: a seat number, or the name of the bot in it."""
    if given in seats:
        return seats.index(given)
    if given.isdigit() and int(given) < len(seats):
        return int(given)
    what = f"seat {given}" if given.isdigit() else f"bot {given!r}"
    fail(f"no {what} in this game (seats: "
         + ", ".join(f"{seat}={name}" for seat, name in enumerate(seats)) + ")")
