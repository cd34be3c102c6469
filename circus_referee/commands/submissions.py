"""The submission flow's commands: ``submissions`` makes a field, ``packs`` hands it back.

``submissions DIR`` reads one folder per entrant, gates each by check-bot and writes
the ``bots.yaml`` of those that passed; after the tournament, ``packs`` writes each
entrant's pack (its log, faults, decision times and replays).
"""

from __future__ import annotations

from pathlib import Path

import click

from circus_referee.common import (
    DB_OPTION,
    TOURNAMENT_OPTION,
    fail,
    known_bot,
    open_tournament,
    progress,
    say_if_unstoppable,
)
from pages.packs import SHARED, PackedTournament, write_packs, write_shared_replays
from tournaments.config import NAME
from tournaments.export import unsettled_groups
from tournaments.packs import folder_bytes
from tournaments.standings import entrants
from tournaments.submissions import (
    FieldRefused,
    config_text,
    load_base,
    make_field,
    table,
)


@click.command("submissions")
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("bots.yaml"), show_default=True,
              help="the bots.yaml to write (each entrant's dir: relative to its folder)")
@click.option("--base", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="a bots.yaml whose keys (and bots, the house's) the config starts from; "
                   "keep it beside --output: its relative paths are taken from there")
@click.option("--game", default=None, help="the game (overrides the base's `game:`)")
@click.option("--players", type=int, default=None,
              help="seats per game (overrides the base's `players:`)")
@click.option("--name", default=None, help="the tournament's name (overrides the base's "
              "`name:`; with neither, DIR's name)")
@click.option("--one-per-author", is_flag=True, help="keep one entrant per author: the "
              "newest (by its manifest's modification time) of those that pass check-bot")
@click.option("--games", type=click.IntRange(min=1), default=1, show_default=True,
              help="check-bot games per variant and player count")
@click.option("--at-once", type=click.IntRange(min=1), default=3, show_default=True,
              help="check-bot games at the same time on one connection (1: none)")
@click.option("--checks", "checks_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="folder for each entrant's verdict, check-bot output and "
                                 "log (default: OUTPUT's name with -checks, beside it)")
@click.option("--recheck", is_flag=True, help="check every entrant again, even one whose "
              "code and check are those of a verdict kept in the checks folder")
def submissions(folder: Path, output: Path, base: Path | None, game: str | None,
                players: int | None, name: str | None, one_per_author: bool, games: int,
                at_once: int, checks_dir: Path | None, recheck: bool) -> None:
    """Make a tournament's bots.yaml from DIR, one folder per entrant, each gated by check-bot.

    Each folder holds the entrant's files and an entrant.yaml with its name, author,
    language and command. An entrant is in the field if its manifest holds, check-bot
    passes it (sandboxed, at the config's clock, on the config's game) and its name is
    its own. The table says why each refused one was; every verdict, with check-bot's
    lines and the bot's log, is kept in the checks folder, and an entrant whose code is
    unchanged since its last check there keeps its verdict without a new check.
    """
    if not folder.is_dir():
        fail(f"{folder} is not a folder of submissions")
    if base is not None and base.resolve() == output.resolve():
        fail(f"--output {output} is the base config: write the field elsewhere")
    data = {**load_base(base), **given(game=game, players=players, name=name)}
    if data.get("game") is None:
        fail("give --game G (or `game:` in the --base config); `circus-referee games` lists them")
    if NAME.fullmatch(folder.resolve().name):
        data.setdefault("name", folder.resolve().name)
    if data.get("sandbox") is False:
        click.echo("warning: the base says `sandbox: false`: every entrant's code runs "
                   "unsandboxed, as you, in its check and in the tournament", err=True)
    checks_dir = checks_dir or output.with_name(f"{output.stem}-checks")
    say_if_unstoppable()
    try:
        field = make_field(folder, data, output, checks_dir=checks_dir, games=games,
                           at_once=at_once, per_author=one_per_author, recheck=recheck,
                           private=(base,) if base is not None else (),
                           progress=lambda line: click.echo(line, err=True))
        output.write_text(config_text(field.config, folder, field.verdicts))
    except FieldRefused as error:
        click.echo(table(error.verdicts, checks_dir))
        fail(f"{error} (every verdict is in {checks_dir}/)")
    except OSError as error:
        fail(f"cannot write {error.filename or output}: {error.strerror}")
    click.echo(table(field.verdicts, checks_dir))
    passed = sum(verdict.passed for verdict in field.verdicts)
    house = len(field.config["bots"]) - passed
    click.echo(f"\nwrote {output}: {passed} of {len(field.verdicts)} entrants"
               + (f" and {house} house bot(s)" if house else "")
               + f"; each verdict, with check-bot's output, in {checks_dir}/\n"
               f"next: circus-referee tournament {output}")


def given(**options: object) -> dict[str, object]:
    """The options given, as config keys."""
    return {key: value for key, value in options.items() if value is not None}


@click.command("packs")
@DB_OPTION
@TOURNAMENT_OPTION
@click.option("--output", "-o", type=click.Path(file_okay=False, path_type=Path),
              default=Path("packs"), show_default=True, help="folder for the packs")
@click.option("--bot", "bots", multiple=True, help="only this bot's pack (repeatable)")
@click.option("--replays-from", "report_replays", metavar="FOLDER",
              type=click.Path(file_okay=False, path_type=Path),
              help="a report's replays folder (REPORT-replays, of a report made without "
                   "--public): its pages of games with no fault are the packs' own, copied "
                   "rather than replayed")
def packs(db_path: Path, tournament: str | None, output: Path, bots: tuple[str, ...],
          report_replays: Path | None) -> None:
    """Write each entrant's pack: its log, faults, decision times and games with replays.

    OUTPUT/BOT/index.html links what the pack holds (BOT.log, faults.csv, times.csv,
    games.csv) and its games' replays, in OUTPUT/replays/, shared by the packs: hand an
    entrant its folder and that one. OUTPUT/index.html lists the packs. A replay marks no
    fault but in the pack's own replays/ (its bot's faults only); a game whose deal is still
    to come in an unfinished tournament gets none.
    """
    store, record = open_tournament(db_path, tournament)
    for bot in bots:
        known_bot(store, record, bot)
    chosen = list(bots) or entrants(store, record)
    packed = PackedTournament.of(store, record)
    shared = packed.replayed(chosen)
    try:
        with progress(len(shared), "replays", "page") as page_done:
            rewritten = write_shared_replays(shared, output, page_done, report_replays)
        with progress(len(chosen), "packs", "pack") as done:
            written = write_packs(packed, output, chosen, lambda pack: done())
    except OSError as error:
        fail(f"cannot write {error.filename or output}: {error.strerror}")
    replays = sum(pack.replays for pack in written)
    click.echo(f"wrote {len(written)} packs of {record.name} in {output}/ "
               f"({folder_bytes(output) / 2**20:.1f} MB, {replays} links to replays; "
               f"index: {output / 'index.html'}); their {len(shared)} games' pages in "
               f"{output / SHARED}/ ({rewritten} written, {len(shared) - rewritten} unchanged)")
    if unsettled_groups(store, record):
        click.echo("the tournament is not finished: games whose deals are still to be dealt "
                   "in other seat rotations have no replay (make the packs again once it is)",
                   err=True)
