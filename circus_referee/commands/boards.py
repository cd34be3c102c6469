"""A stored tournament's verdict for people: ``leaderboard`` and the HTML ``report``."""

from __future__ import annotations

import json
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Callable

import click

from circus_referee.common import DB_OPTION, TOURNAMENT_OPTION, fail, open_tournament, progress
from pages.assembly import write_report
from pages.notes import (
    change_notes,
    code_column,
    identities,
    memory_note,
    remembering,
    stopped_note,
    told_by_round,
    verdicts,
)
from ratings import formatting, rounds
from referee.settings import FAULT_CLASSES
from tournaments.packs import folder_bytes
from tournaments.public import private_parts
from tournaments.standings import round_history, standings, stored_ab_test, stored_collusion


RESAMPLES_OPTION = click.option(
    "--resamples", type=click.IntRange(min=0), default=None,
    help="bootstrap resamples for the rank ranges (default: 200, fewer for long logs, none "
         "for very long ones; 0: none)")


@click.command()
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
@click.option("--collusion", "collusion", is_flag=True,
              help="every pair's results together against apart, beyond their ratings, "
                   "with the pairs flagged as colluding")
@RESAMPLES_OPTION
def leaderboard(db_path: Path, tournament: str | None, fmt: str, h2h: bool, los: bool,
                seats: bool, history_bot: str | None, by_round: bool, collusion: bool,
                resamples: int | None) -> None:
    """Show a tournament's TrueSkill leaderboard, with rank ranges from resampling.

    With --h2h, --los, --seats, --history, --rounds or --collusion the table and markdown formats
    add those sections below the leaderboard; json is always one object (the
    tournament, the rating parameters, the leaderboard rows and a key per
    section asked for), and csv (one table only) prints just the section asked
    for. docs/ratings.md explains every column.
    """
    sections = [name for name, wanted in (("h2h", h2h), ("los", los), ("seats", seats),
                                          ("history", history_bot is not None),
                                          ("rounds", by_round), ("collusion", collusion))
                if wanted]
    if fmt == "csv" and len(sections) > 1:
        fail("csv holds one table: give only one of --h2h, --los, --seats, --history, "
             "--rounds, --collusion")
    store, record = open_tournament(db_path, tournament)
    board = standings(store, record, resamples=resamples)
    history = round_history(store, record) if by_round or told_by_round(record) else None
    pairs = stored_collusion(store, record) if collusion else None
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
        if pairs is not None:
            data["collusion"] = json.loads(formatting.format_collusion(pairs, "json"))
        click.echo(json.dumps(data, indent=2))
        return
    render: dict[str, Callable[[], str]] = {
        "h2h": lambda: formatting.format_h2h(board, fmt),
        "los": lambda: formatting.format_los(board, fmt),
        "seats": lambda: formatting.format_seats(board, fmt)}
    if history_bot is not None:   # the sections asked for: --history, --rounds, --collusion
        render["history"] = partial(formatting.format_history, board, history_bot, fmt)
    if history is not None:
        render["rounds"] = partial(rounds.format_rounds, history, fmt)
    if pairs is not None:
        render["collusion"] = partial(formatting.format_collusion, pairs, fmt)
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
              "seats": "Seats", "history": f"History of {history_bot}", "rounds": "Rounds",
              "collusion": "Collusion"}
    for name in sections:
        title = f"### {titles[name]}" if fmt == "markdown" else f"-- {titles[name]} --"
        parts += [title, render[name]()]
    click.echo("\n\n".join(parts))


@click.command()
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
    written = write_report(store, record, output, public=public, replays=replays,
                           resamples=resamples,
                           progress=lambda total: progress(total, "replays", "page"))
    click.echo(f"wrote {output} ({written.size // 1024} KB): {record.name}, "
               f"{written.rated_games} rated games, {written.bots} bots"
               + (f"; {written.replays} replay pages in {written.folder}/ "
                  f"({folder_bytes(written.folder) / 2**20:.1f} MB, {written.rewritten} "
                  f"written, {written.replays - written.rewritten} unchanged)"
                  if replays else "")
               + ("; public: no env values, paths or addresses" if public else ""))
    for note in written.withheld:
        click.echo(note, err=True)
    private = private_parts(record.config)
    if private and not public:
        click.echo(f"note: this report shows {' and '.join(private)}; for a copy to publish, "
                   "make it with --public", err=True)

