"""The ``circus-referee`` command line: the top of the stack, imported by nothing.

Each command parses its options, calls down into ``tournaments``, ``referee`` or
``ratings``, and turns their errors into one line and exit status 2.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Iterator

import click
from tabulate import tabulate

from circus_referee.common import (
    DB_OPTION,
    TOURNAMENT_OPTION,
    fail,
    known_bot,
    open_store,
    open_tournament,
    tournament_bots,
)
from circus_referee.season import change_notes, season
from circus_referee.submissions import packs, submissions
from ratings import formatting, rounds
from ratings.board import RoundHistory
from ratings.report import FaultRow, GameRow, ReportLinks, render_report
from ratings.sprt import SprtResult
from referee.checkbot import SLOW_SHARE, Coverage, check_bot
from referee.games import GAMES, GameConfigError, GameRecord
from referee.games.base import IllegalActionError
from referee.interrupts import signals_as_stop, until_stopped
from referee.replay import END_REASONS, end_reason_words, replay_frames, text_lines
from referee.settings import FAULT_CLASSES, TRANSPORTS, BotSpec, TimeConfig
from referee.text import printable
from referee.viewer import render_replay
from tournaments import cluster
from tournaments.config import ConfigError, load_config
from tournaments.export import (
    game_records,
    read_records,
    replay_record,
    unsettled_groups,
    write_csv,
    write_jsonl,
)
from tournaments.fingerprint import code_text
from tournaments.packs import (
    FAULT_COLUMNS,
    PLAYED_COLUMNS,
    TIME_COLUMNS,
    fault_records,
    played_records,
    time_records,
)
from tournaments.public import Redactor, private_parts, public_config
from tournaments.replays import ReplayError, write_replays
from tournaments.runner import Interrupted, TournamentError, TournamentRunner
from tournaments.standings import round_history, standings, stored_ab_test
from tournaments.store import (
    DEFAULT_DB,
    DEFAULT_WAIT_S,
    Store,
    StoredGame,
    StoredTournament,
    StoreError,
    database_paths,
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
    """Print rows as a table, a JSON array or CSV (README, "Output formats").

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


def stopped_note(store: Store, record: StoredTournament) -> str | None:
    """Whether a finished tournament stopped before its last scheduled game."""
    played = len(store.done_indices(record.name))
    if record.finished_at is None or played >= record.total_games:
        return None
    return (f"stopped early after {played:,} of {record.total_games:,} scheduled games "
            f"({record.total_games - played:,} not needed)")


def verdicts(store: Store, record: StoredTournament,
             history: RoundHistory | None = None) -> list[str]:
    """What ended the tournament, for the leaderboard and the report: an A/B test's
    result, an early stop; with ``history``, a Swiss's rounds and how the stop rule
    ended (or that it did not fire, and why)."""
    test = stored_ab_test(store, record)
    notes = [ab_line(record, test)] if test is not None else []
    stopped = stopped_note(store, record)
    notes += [stopped] if stopped is not None else []
    if history is not None and history.swiss:
        notes.append(rounds.summary(history))
    if history is not None and history.stop_rule is not None:
        notes.append(history.stop_rule)
    return notes


def told_by_round(record: StoredTournament) -> bool:
    """Whether the leaderboard and the report say how the rounds went: a Swiss's are
    paired from the standings, a stop rule is checked at each round's end."""
    return record.config.get("format") == "swiss" or bool(record.config.get("stop"))


CLUSTER_OPTION = click.option(
    "--cluster", "cluster_address", metavar="tcp://HOST:PORT", default=None,
    help="play the games on the workers of this Dask scheduler (overrides the config's "
         "`cluster:`); needs pip install 'circus-referee[cluster]'")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option("0.1.0", prog_name="circus-referee")
def main() -> None:
    """Run card-game AI tournaments: bots over gRPC, TrueSkill leaderboards."""


@main.command()
@click.argument("config_path", metavar="BOTS_YAML", type=click.Path(path_type=Path))
@DB_OPTION
@click.option("--logs", "log_root", type=click.Path(file_okay=False, path_type=Path),
              default=Path("runs/logs"), show_default=True, help="folder for bot logs")
@click.option("--concurrency", type=click.IntRange(min=1), default=None,
              help="games at once (overrides the config)")
@click.option("--fresh", is_flag=True, help="discard stored games of this tournament first")
@click.option("--skip-bad-bots", is_flag=True, help="play without bots that fail to start")
@click.option("--quiet", "-q", is_flag=True, help="no progress lines")
@click.option("--debug-wire", is_flag=True, help="write every request and reply of every bot, "
              "as JSON, to the bot's log (as a bot entry's `debug: true` does for one bot)")
@click.option("--db-wait", "db_wait", type=click.FloatRange(min=0, max=3600),
              default=DEFAULT_WAIT_S, show_default=True,
              help="seconds to wait for a database another program holds")
@CLUSTER_OPTION
def tournament(config_path: Path, db_path: Path, log_root: Path, concurrency: int | None,
               fresh: bool, skip_bad_bots: bool, quiet: bool, debug_wire: bool,
               db_wait: float, cluster_address: str | None) -> None:
    """Run (or resume) the tournament described in BOTS_YAML."""
    try:
        config = load_config(config_path)
    except ConfigError as error:
        fail(str(error))
    if debug_wire:
        config = replace(config, bots=tuple(replace(bot, debug=True) for bot in config.bots))
    if concurrency is not None:
        config = replace(config, concurrency=concurrency)
    if cluster_address is not None:
        config = replace(config, cluster=cluster_address)
    try:
        store = Store(db_path, wait_s=db_wait)
    except StoreError as error:
        fail(str(error))
    runner = TournamentRunner(config, store, log_root / config.name, quiet=quiet,
                              skip_bad_bots=skip_bad_bots, fresh=fresh,
                              private=(config_path, log_root), config_path=config_path)
    try:
        summary = runner.run()
    except TournamentError as error:
        fail(str(error))
    except Interrupted as stop:
        fail(str(stop), status=130)
    faults = fault_text(summary.all_faults)
    if summary.already_done and summary.all_faults != summary.faults:
        faults += f" ({fault_text(summary.faults)} in this run)"
    click.echo(f"\n{config.name}: {summary.played} games played"
               f" ({summary.already_done} already stored) of {summary.total}"
               f" in {summary.wall_s:.1f}s; faults: {faults}; results in {db_path}",
               err=True)
    for bot, games in summary.suspended.items():
        click.echo(f"{bot} was suspended for failing game after game: "
                   f"{games} of its games were played by substitutes", err=True)
    if summary.archived is not None:
        click.echo(f"the previous run is kept as tournament {summary.archived!r}", err=True)
    if summary.stopped is not None and config.format != "ab":   # an A/B test's is below
        click.echo(f"stopped early: {summary.stopped}", err=True)
    if summary.byes:
        click.echo("byes (Swiss rounds sat out): " + ", ".join(
            f"{bot} {count}" for bot, count in summary.byes.items()), err=True)
    record = store.resolve(config.name)
    test = stored_ab_test(store, record)
    if test is not None:
        click.echo(ab_line(record, test))
    click.echo(formatting.format_board(standings(store, record), "table", FAULT_CLASSES,
                                       code_column(store, record)))
    if remembering(record):
        click.echo(memory_note(record))


def code_column(store: Store, record: StoredTournament) -> dict[str, str]:
    """Each bot's code fingerprint as the leaderboard shows it."""
    return {bot: code_text(digests) for bot, digests in store.codes(record.name).items()}


def fault_text(counts: dict[str, int]) -> str:
    """Faults per class in a line: "2 crash, 1 timeout", or "none"."""
    return ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items())) or "none"


RESAMPLES_OPTION = click.option(
    "--resamples", type=click.IntRange(min=0), default=None,
    help="bootstrap resamples for the rank ranges (default: 200, fewer for long logs, none "
         "for very long ones; 0: none)")


@main.command()
@DB_OPTION
@TOURNAMENT_OPTION
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "markdown"]),
              default="table", show_default=True)
@click.option("--h2h", is_flag=True, help="head-to-head record and prediction of every pair")
@click.option("--los", is_flag=True, help="likelihood-of-superiority matrix")
@click.option("--seats", is_flag=True, help="place and win rate by seat, with a seat-bias test")
@click.option("--history", "history_bot", metavar="BOT", default=None,
              help="BOT's mu and sigma after each of its games")
@click.option("--rounds", "by_round", is_flag=True,
              help="round by round: a Swiss's tables and byes, the standings after each "
                   "round, the stop rule's verdict")
@RESAMPLES_OPTION
def leaderboard(db_path: Path, tournament: str | None, fmt: str, h2h: bool, los: bool,
                seats: bool, history_bot: str | None, by_round: bool,
                resamples: int | None) -> None:
    """Show a tournament's TrueSkill leaderboard, with rank ranges from resampling.

    With --h2h, --los, --seats, --history or --rounds the table and markdown formats
    add those sections below the leaderboard; json is always one object (the
    tournament, the rating parameters, the leaderboard rows and a key per
    section asked for), and csv (one table only) prints just the section asked
    for. docs/ratings.md explains every column.
    """
    sections = [name for name, wanted in (("h2h", h2h), ("los", los), ("seats", seats),
                                          ("history", history_bot is not None),
                                          ("rounds", by_round)) if wanted]
    if fmt == "csv" and len(sections) > 1:
        fail("csv holds one table: give only one of --h2h, --los, --seats, --history, "
             "--rounds")
    store, record = open_tournament(db_path, tournament)
    board = standings(store, record, resamples=resamples)
    history = round_history(store, record) if by_round or told_by_round(record) else None
    if history_bot is not None and history_bot not in board.bots:
        fail(f"no bot {history_bot!r} in tournament {record.name!r} "
             f"(bots: {', '.join(board.bots)})")
    if fmt == "json":
        data = {"tournament": record.name, "game": record.config.get("game"),
                "variant": record.config.get("variant"), "memory": remembering(record),
                "identities": identities(store, record),
                "code": {bot: [{"fingerprint": digest, "hello": hello}
                               for digest, hello in codes]
                         for bot, codes in store.codes(record.name).items()},
                "parameters": asdict(board.params),
                "resamples": board.resamples,
                "leaderboard": formatting.leaderboard_rows(board)}
        if board.verdict is not None:
            data["verdict"] = formatting.verdict_data(board.verdict)
        test = stored_ab_test(store, record)
        if test is not None:
            data["sprt"] = asdict(test)
        if stopped_note(store, record) is not None:
            data["stopped"] = stopped_note(store, record)
        if history is not None and history.stop_rule is not None:
            data["stop_rule"] = history.stop_rule
        if by_round and history is not None:
            data["rounds"] = rounds.rounds_data(history)
        if store.changes(record.name):
            data["changes"] = [{"at": at, "lines": lines}
                               for at, lines in store.changes(record.name)]
        if h2h:
            data["h2h"] = formatting.h2h_rows(board)
        if los:
            data["los"] = json.loads(formatting.format_los(board, "json"))
        if seats:
            data["seats"] = json.loads(formatting.format_seats(board, "json"))
        if history_bot is not None:
            data["history"] = {history_bot: formatting.history_rows(board, history_bot)}
        click.echo(json.dumps(data, indent=2))
        return
    render = {"h2h": lambda: formatting.format_h2h(board, fmt),
              "los": lambda: formatting.format_los(board, fmt),
              "seats": lambda: formatting.format_seats(board, fmt),
              "history": lambda: formatting.format_history(board, history_bot, fmt),
              "rounds": lambda: rounds.format_rounds(history, fmt)}
    if fmt == "csv":
        click.echo(render[sections[0]]() if sections
                   else formatting.format_board(board, "csv", FAULT_CLASSES,
                                                code_column(store, record)))
        return
    heading = (f"{record.name}: {record.config['game']} ({record.config['variant']}), "
               f"{len(store.done_indices(record.name))} of {record.total_games} games")
    parts = [f"## {heading}" if fmt == "markdown" else heading,
             formatting.format_board(board, fmt, FAULT_CLASSES, code_column(store, record))]
    if remembering(record):
        parts.append(memory_note(record))
    parts += verdicts(store, record, history) + change_notes(store, record)
    titles = {"h2h": "Head to head", "los": "Likelihood of superiority",
              "seats": "Seats", "history": f"History of {history_bot}", "rounds": "Rounds"}
    for name in sections:
        title = f"### {titles[name]}" if fmt == "markdown" else f"-- {titles[name]} --"
        parts += [title, render[name]()]
    click.echo("\n\n".join(parts))


@main.command()
@DB_OPTION
@TOURNAMENT_OPTION
@click.option("--output", "-o", "output", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("report.html"), show_default=True, help="HTML file to write")
@click.option("--replays/--no-replays", default=True, show_default=True,
              help="write every game's HTML replay into a folder beside the report, linked "
                   "from its games table")
@click.option("--public", is_flag=True,
              help="a copy to publish: the bots' env: values, the paths of this machine and "
                   "addresses left out of the report and its replays")
@RESAMPLES_OPTION
def report(db_path: Path, tournament: str | None, output: Path, replays: bool, public: bool,
           resamples: int | None) -> None:
    """Write a tournament's report: one self-contained HTML file (no network needed).

    With --replays (the default) each game's replay goes to REPORT-replays/game-ID.html,
    but for a game whose deal is still to be dealt again in an unfinished tournament.
    Give --public for a copy others will read: without it, the report shows the config
    as it is, env values and paths included.
    """
    store, record = open_tournament(db_path, tournament)
    board = standings(store, record, resamples=resamples)
    games = store.games(record.name)
    faults = [dict(row) for row in store.faults(record.name)]
    folder = output.with_name(f"{output.stem}-replays")
    unsettled = unsettled_groups(store, record)
    shown = [game for game in games if game.group_index not in unsettled] if replays else []
    links = {game.id: f"{folder.name}/game-{game.id}.html" for game in shown}
    withheld = withheld_notes(len(games) - len(shown) if replays else 0, "replays")
    history = round_history(store, record) if told_by_round(record) else None
    notes = verdicts(store, record, history) + change_notes(store, record) + withheld
    scrub = Redactor.of(record.config, record.log_dir, str(Path.home())) if public else str
    reported = replace(record, config=public_config(record.config)) if public else record
    try:
        if replays:
            write_replays(shown, faults, folder, scrub)
        html = scrub(render_report(board, reported, games,
                                   report_links(games, faults, links, identities(store, record),
                                                code_column(store, record)),
                                   notes, history))
        output.write_text(html, encoding="utf-8")
    except OSError as error:
        fail(f"cannot write {error.filename or output}: {error.strerror}")
    except ReplayError as error:
        fail(str(error))
    click.echo(f"wrote {output} ({len(html) // 1024} KB): {record.name}, "
               f"{board.rated_games} rated games, {len(board.rows)} bots"
               + (f"; {len(shown)} replays in {folder}" if replays else "")
               + ("; public: no env values, paths or addresses" if public else ""))
    for note in withheld:
        click.echo(note, err=True)
    private = private_parts(record.config)
    if private and not public:
        click.echo(f"note: this report shows {' and '.join(private)}; for a copy to publish, "
                   "make it with --public", err=True)


def withheld_notes(count: int, what: str) -> list[str]:
    """Why ``count`` games' ``what`` (replays, seeds) are left out, if any are."""
    if not count:
        return []
    return [f"{what} of {count} game(s) withheld: the tournament is not finished and their "
            "deals are still to be dealt in other seat rotations (make it again once the "
            "tournament is finished)"]


def identities(store: Store, record: StoredTournament) -> dict[str, str]:
    """Each bot's own name and version from its Hello, and its transport, as the report
    shows them."""
    ways = transports(record)
    return {bot: f"{name} {version} (protocol {protocol}, {ways.get(bot, 'grpc')})"
            for bot, (name, version, protocol) in store.identities(record.name).items()}


def report_links(games: list[StoredGame], faults: list[dict[str, Any]],
                 links: dict[int, str], bot_identities: dict[str, str],
                 code: dict[str, str]) -> ReportLinks:
    """The games table and fault list of the report, as the plain rows ratings/ takes."""
    counts: dict[int, int] = {}
    for fault in faults:
        counts[fault["game_id"]] = counts.get(fault["game_id"], 0) + 1
    rows = [GameRow(g.id, g.game_index, g.seats, g.scores, g.ranks, g.status, g.end_reason,
                    len(g.actions), g.duration_s, counts.get(g.id, 0), links.get(g.id))
            for g in games]
    fault_rows = [FaultRow(f["game_id"], f["game_index"], f["seat"], f["bot"], f["decision_id"],
                           f["class"], f["policy"], f["detail"],
                           links[f["game_id"]] + f"#step={max(f['decision_id'] - 1, 0)}&view=0"
                           if f["game_id"] in links else None)
                  for f in faults]
    return ReportLinks(rows, fault_rows, END_REASONS, bot_identities, code)


@main.command()
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


@main.command()
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
    game = stored_source(db_path, game_id) if source is None else exported_source(source, index)
    view = None if view_given is None else viewed_seat(view_given, game.seats)
    try:
        replayed = replay_frames(game.record, game.seats, game.times, game.faults,
                                 game.ranks or None)
    except (GameConfigError, IllegalActionError) as error:
        fail(f"the record does not replay: {error}")
    if html_path is not None:
        page = render_replay(replayed, game.title)
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
    click.echo(f"end: {replayed.end_reason} ({end_reason_words(replayed.end_reason)}); "
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


@main.command()
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


# How long an interrupted check-bot leaves its checks to end once their bot is stopped
# (a stopped bot's waits end at once; this bounds only the clean-up).
CHECK_WIND_DOWN_S = 30.0


@main.command("check-bot")
@click.option("--command", "command", default=None, help="command line that starts the bot "
              "in its sandbox ({address} is replaced by the address to listen on)")
@click.option("--address", default=None, help="a running bot: HOST:PORT or unix:/path/to/socket")
@click.option("--game", "only_game", default=None, help="check only this game")
@click.option("--games", "games", type=click.IntRange(min=1), default=2, show_default=True,
              help="games per claimed game, variant and player count")
@click.option("--at-once", type=click.IntRange(min=1), default=3, show_default=True,
              help="games played at the same time on one connection, once per game "
                   "(1: no concurrency check)")
@click.option("--move-ms", type=click.IntRange(min=1), default=1000, show_default=True,
              help="time per decision, in milliseconds")
@click.option("--bank-ms", type=click.IntRange(min=0), default=10000, show_default=True,
              help="time bank per game for decisions over --move-ms, in milliseconds")
@click.option("--startup-ms", type=click.IntRange(min=1), default=10000, show_default=True,
              help="time to start and answer Hello, in milliseconds")
@click.option("--log-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="keep the bot's log here (default: a temporary folder, removed)")
@click.option("--debug-wire", is_flag=True, help="write every request and reply, as JSON, "
              "to the bot's log (with --log-dir, to read it afterwards)")
@click.option("--no-sandbox", is_flag=True, help="start the command unsandboxed (a trusted "
              "bot; {port} is then its loopback port)")
@click.option("--transport", type=click.Choice(TRANSPORTS), default="grpc", show_default=True,
              help="how the command's bot talks: gRPC on {address}, or stdio (one JSON line "
                   "per request on its stdin, one per reply on its stdout)")
@click.option("--db", "db_paths", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="a results database to hide from the bot, with its folder (repeatable; "
                   f"{DEFAULT_DB} is always hidden)")
@click.option("--fail-on-slow", is_flag=True,
              help=f"fail (not only warn) when the p99 decision time reaches "
                   f"{SLOW_SHARE:.0%} of --move-ms")
def check_bot_command(command: str | None, address: str | None, only_game: str | None,
                      games: int, at_once: int, move_ms: int, bank_ms: int, startup_ms: int,
                      log_dir: Path | None, debug_wire: bool, no_sandbox: bool,
                      transport: str, db_paths: tuple[Path, ...], fail_on_slow: bool
                      ) -> None:
    """Check that a bot follows the protocol: handshake, games, legal and timely replies.

    The bot is a candidate nobody has vetted: it sees no results database (the default
    one and each --db, their folders and SQLite's companion files) and no logs folder.
    Each check's line is printed as it ends (an autograder killed at its timeout has
    printed what passed); SIGTERM and Ctrl-C stop the bot and remove the temporary folder.
    """
    if (command is None) == (address is None):
        fail("give exactly one of --command and --address")
    if only_game is not None and only_game not in GAMES:
        fail(f"unknown game {only_game!r} (games: {', '.join(sorted(GAMES))})")
    if transport == "stdio" and (address is not None or "{address}" in command
                                 or "{port}" in command):
        fail("--transport stdio: the bot talks on its stdin and stdout, so give a --command "
             "with no {address} or {port}")
    spec = BotSpec(name="candidate", command=command, address=address, debug=debug_wire,
                   transport=transport)
    time_config = TimeConfig(move_ms=move_ms, bank_ms=bank_ms, startup_ms=startup_ms)
    covered = Coverage()
    private = hidden_databases((DEFAULT_DB, *db_paths))
    verdicts: list[str] = []
    with signals_as_stop() as stop:
        checks = until_stopped(lambda: check_bot(
            spec, only_game, games, time_config, log_dir, sandbox=not no_sandbox,
            at_once=at_once, private=private, covered=covered, fail_on_slow=fail_on_slow,
            stop=stop), stop, wind_down_s=CHECK_WIND_DOWN_S)
        try:
            for check in checks:
                click.echo(check.line())   # flushed: each line is out as its check ends
                verdicts.append(check.verdict)
        except KeyboardInterrupt:
            fail(f"interrupted after {len(verdicts)} check(s); the bot is stopped", status=130)
    click.echo(covered.line())
    failed, warned = verdicts.count("FAIL"), verdicts.count("WARN")
    click.echo(f"{len(verdicts) - failed} passed, {failed} failed"
               + (f" ({warned} with a warning)" if warned else ""))
    sys.exit(1 if failed else 0)


def hidden_databases(databases: tuple[Path, ...]) -> tuple[Path, ...]:
    """What hides these databases from a checked bot (:func:`database_paths`); a missing
    folder is made first, so a database another program makes there during the check
    is hidden too (a folder made after the sandbox would not be)."""
    for database in databases:
        try:
            real = database.resolve()
        except (OSError, RuntimeError):
            fail(f"--db {database}: its symlinks loop; give the database's real path")
        try:
            real.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass   # the folder stays unmade, and unhidden
    return tuple(path for database in databases for path in database_paths(database))


@main.command()
@DB_OPTION
@TOURNAMENT_OPTION
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl",
              show_default=True, help="jsonl: one JSON record per line; csv: one row per game")
@click.option("--output", "-o", type=click.File("w"), default="-", show_default=True,
              help="file to write (default: standard output)")
def export(db_path: Path, tournament: str | None, fmt: str, output) -> None:
    """Export every game of a tournament, one record per game, replayable."""
    store, record = open_tournament(db_path, tournament)
    writer = write_jsonl if fmt == "jsonl" else write_csv
    unsettled = unsettled_groups(store, record)
    count = writer(game_records(store, record.name, unsettled), output)
    if output is not sys.stdout:
        click.echo(f"{count} games of {record.name} written to {output.name}", err=True)
    withheld = sum(games for group, games in store.group_counts(record.name).items()
                   if group in unsettled)
    for note in withheld_notes(withheld, "seeds"):
        click.echo(note, err=True)


@main.command()
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


def transports(record: StoredTournament) -> dict[str, str]:
    """How the referee reached each bot (grpc, stdio or in-process), from the stored config;
    a config stored before the stdio transport had gRPC and in-process bots only."""
    return {bot["name"]: "in-process" if bot.get("python") else bot.get("transport") or "grpc"
            for bot in record.config.get("bots") or []}


@main.command("tournaments")
@DB_OPTION
@RECORDS_FORMAT_OPTION
def tournaments_command(db_path: Path, fmt: str) -> None:
    """List the tournaments stored in the database, newest first."""
    store = open_store(db_path)
    records = []
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


#: Bots named in a table's cell; a bigger field shows its count and the first few names.
SHOWN_BOTS = 4


def few_bots(bots: list[str]) -> str:
    """A field of bots for one table cell: a 30-bot Swiss must not make the table 400
    characters wide."""
    if len(bots) <= SHOWN_BOTS:
        return ", ".join(bots)
    return f"{len(bots)}: {', '.join(bots[:SHOWN_BOTS - 1])}, … (+{len(bots) - SHOWN_BOTS + 1})"


@main.command()
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


@main.command("cluster-check")
@click.argument("config_path", metavar="[BOTS_YAML]", required=False,
                type=click.Path(path_type=Path))
@click.option("--cluster", "cluster_address", metavar="tcp://HOST:PORT", default=None,
              help="the Dask scheduler (default: the config's `cluster:`)")
def cluster_check(config_path: Path | None, cluster_address: str | None) -> None:
    """Say which workers a Dask scheduler has and whether each can run each bot.

    Starts no tournament and stores nothing. With BOTS_YAML, every worker plays a
    check-bot game of the config's game at every player count with each bot,
    started as a tournament would start it there. Exits 0 only if every check passes.
    """
    config = None
    if config_path is not None:
        try:
            config = load_config(config_path)
        except ConfigError as error:
            fail(str(error))
    address = cluster_address or (config.cluster if config is not None else None)
    if address is None:
        fail("give --cluster tcp://HOST:PORT (or `cluster:` in BOTS_YAML)")
    try:
        client = cluster.connect(address)
    except cluster.ClusterError as error:
        fail(str(error))
    try:
        reports = cluster.check(client, config)
    finally:
        client.close()
    ours = package_version()
    failed = 0
    click.echo(f"{len(reports)} worker(s) at {address}")
    for worker, report in reports.items():
        lines, bad = worker_lines(report, ours)
        failed += bad
        click.echo(printable(f"{worker}: " + lines[0]))
        for line in lines[1:]:
            click.echo(f"  {printable(line)}")
    click.echo("every worker can run every bot" if not failed and config is not None else
               "every worker answered" if not failed else f"{failed} problem(s)")
    sys.exit(1 if failed else 0)


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("circus-referee")
    except PackageNotFoundError:
        return "not installed"


def worker_lines(report: Any, ours: str) -> tuple[list[str], int]:
    """One worker's report as lines, and how many problems it shows."""
    if isinstance(report, Exception):
        return [f"FAIL  {type(report).__name__}: {report}"], 1
    problems = 0
    head = f"circus-referee {report.version}, Python {report.python}"
    if report.version != ours:
        head += f" (FAIL: this referee is {ours}; install the same version everywhere)"
        problems += 1
    lines = [head, "sandbox: available" if report.sandbox is None
             else f"sandbox: unavailable ({report.sandbox})"]
    for bot, failure in report.bots.items():
        lines.append(f"PASS  {bot}" if failure is None else f"FAIL  {bot}: {failure}")
        problems += failure is not None
    return lines, problems


main.add_command(season)
main.add_command(submissions)
main.add_command(packs)
