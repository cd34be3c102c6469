"""``circus-referee tournament``: run (or resume) the tournament a config describes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from circus_referee.common import DB_OPTION, say_if_unstoppable
from pages.notes import ab_line, code_column, memory_note, remembering
from ratings import formatting
from referee.settings import FAULT_CLASSES
from tournaments.config import load_config
from tournaments.runner import Summary, TournamentRunner
from tournaments.standings import standings, stored_ab_test
from tournaments.store import DEFAULT_WAIT_S, Store


CLUSTER_OPTION = click.option(
    "--cluster", "cluster_address", metavar="tcp://HOST:PORT", default=None,
    help="play the games on the workers of this Dask scheduler (overrides the config's "
         "`cluster:`); needs pip install 'circus-referee[cluster]'")


@click.command()
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
    config = load_config(config_path)
    say_if_unstoppable()
    if debug_wire:
        config = replace(config, bots=tuple(replace(bot, debug=True) for bot in config.bots))
    if concurrency is not None:
        config = replace(config, concurrency=concurrency)
    if cluster_address is not None:
        config = replace(config, cluster=cluster_address)
    store = Store(db_path, wait_s=db_wait)
    runner = TournamentRunner(config, store, log_root / config.name, quiet=quiet,
                              skip_bad_bots=skip_bad_bots, fresh=fresh,
                              private=(config_path, log_root), config_path=config_path)
    summary = runner.run()
    faults = fault_text(summary.all_faults)
    if summary.already_done and summary.all_faults != summary.faults:
        faults += f" ({fault_text(summary.faults)} in this run)"
    click.echo(f"\n{config.name}: {summary.played} games played"
               f" ({summary.already_done} already stored) of {summary.total}"
               f" in {summary.wall_s:.1f}s; faults: {faults}; results in {db_path}",
               err=True)
    if summary.skipped_bots:
        click.echo(skipped_line(summary), err=True)
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


def skipped_line(summary: Summary) -> str:
    """Why a run with --skip-bad-bots ended short of its total: the games it left are those
    of the bots that did not start, and the same command plays them once they do."""
    unplayed = summary.total - summary.already_done - summary.played
    they, start = ("it", "starts") if len(summary.skipped_bots) == 1 else ("they", "start")
    line = f"skipped, as {they} did not start: {', '.join(summary.skipped_bots)}"
    if unplayed:
        line += (f"; {unplayed} game(s) left unplayed: the same command plays them once "
                 f"{they} {start}")
    return line


def fault_text(counts: dict[str, int]) -> str:
    """Faults per class in a line: "2 crash, 1 timeout", or "none"."""
    return ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items())) or "none"
