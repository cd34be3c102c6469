"""``circus-referee season``: change a stored tournament's field.

Edit ``bots.yaml`` (add a bot, take one out, raise ``rounds``), then ``circus-referee
season bots.yaml`` says what that does to the games stored, scheduled and to come; the
same with ``--apply`` does it and records it in the store, and ``circus-referee
tournament bots.yaml`` plays on. The rules are in :mod:`tournaments.season`.
"""

from __future__ import annotations

from pathlib import Path

import click

from circus_referee.common import DB_OPTION
from pages.notes import change_notes
from referee.text import printable
from tournaments.config import load_config
from tournaments.season import changed_code, plan_change
from tournaments.store import Store


@click.command()
@click.argument("config_path", metavar="BOTS_YAML", type=click.Path(path_type=Path))
@DB_OPTION
@click.option("--replace", "replaced", multiple=True, metavar="BOT",
              help="BOT's code is a new version: the old one's games go under BOT@vN (or "
                   "are dropped, with --drop-games BOT) and the new one enters afresh")
@click.option("--drop-games", "dropped", multiple=True, metavar="BOT",
              help="a withdrawn or replaced BOT's stored games leave the tournament (kept "
                   "as the tournament NAME.dropped-N) instead of staying rated")
@click.option("--apply", "apply", is_flag=True,
              help="make the change (without it, only say what it would do)")
def season(config_path: Path, db_path: Path, replaced: tuple[str, ...],
           dropped: tuple[str, ...], apply: bool) -> None:
    """Change a stored tournament's field to BOTS_YAML's: add, replace, withdraw, extend.

    Without --apply a dry run: what each change does to the games (kept, dropped,
    cancelled, added). With --apply it is made and recorded in the store, and
    `circus-referee tournament BOTS_YAML` plays the new games.
    """
    config = load_config(config_path)
    store = Store.open_existing(db_path)
    change = plan_change(store, config, replaced, dropped)
    if change is None:
        click.echo(f"{config.name}: nothing to change (the stored field and rounds are "
                   f"{config_path}'s)")
        for line in changed_code(store, config):
            click.echo(f"  {printable(line)}")
        for note in change_notes(store, store.resolve(config.name)):
            click.echo("\n".join(printable(line) for line in note.splitlines()))
        return
    click.echo(f"{config.name}: {'applying' if apply else 'what would change'}:")
    for line in change.lines:
        click.echo(f"  {printable(line)}")
    if not apply:
        click.echo("dry run: nothing changed; --apply makes the change")
        return
    store.lock(config.name)
    try:
        moved = store.apply_change(change)
    finally:
        store.unlock(config.name)
    if moved is not None:
        click.echo(f"the dropped games are kept as the tournament {moved!r}")
    click.echo(f"applied and recorded; `circus-referee tournament {config_path}` plays on")
