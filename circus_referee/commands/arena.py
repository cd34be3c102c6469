"""The arena's commands: ``arena ARENA.yaml`` serves one, ``arena add-entrant`` adds an
entrant, ``submit`` sends a bot folder to one.

The service needs the ``arena`` extra (Starlette, uvicorn, Jinja2, argon2); it is
imported only when an arena command runs, so ``submit`` and every other command work
without it.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import click

from arena.client import submit as send
from circus_referee.common import fail

CONFIG_OPTION = click.option("--config", "config_path", default=Path("arena.yaml"),
                             show_default=True, help="the arena's config",
                             type=click.Path(dir_okay=False, path_type=Path))


def serving() -> ModuleType:
    """:mod:`arena.serve`, or a one-line error naming the extra to install."""
    try:
        import arena.serve
    except ImportError as error:
        fail(f"the arena needs the [arena] extra ({error.name} is missing): install "
             "circus-referee[arena]")
    return arena.serve


class ArenaGroup(click.Group):
    """``arena ARENA.yaml`` serves; ``arena COMMAND`` runs one of its commands."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["serve", *args]
        return super().parse_args(ctx, args)


@click.group("arena", cls=ArenaGroup, subcommand_metavar="ARENA.yaml | COMMAND [ARGS]...")
def arena() -> None:
    """Serve an arena: submissions, gates, a ladder and its pages (docs/arena.md).

    `circus-referee arena ARENA.yaml` serves it, on 127.0.0.1:8080 unless the config
    or --host/--port say otherwise.
    """


@arena.command("serve")
@click.argument("config_path", metavar="ARENA.yaml",
                type=click.Path(dir_okay=False, path_type=Path))
@click.option("--host", default=None, help="the address to listen on (default: the "
              "config's arena.host, 127.0.0.1: put a reverse proxy before it)")
@click.option("--port", type=click.IntRange(1, 65535), default=None,
              help="the port (default: the config's arena.port, 8080)")
def serve_command(config_path: Path, host: str | None, port: int | None) -> None:
    """Serve the arena of ARENA.yaml until Ctrl-C."""
    module: Any = serving()
    config = module.load_arena_config(config_path)
    click.echo(f"arena {config.name} on http://{host or config.host}:{port or config.port}/ "
               f"(store: {config.db}, files: {config.data}); Ctrl-C stops it", err=True)
    module.serve(config, host, port)


@arena.command("add-entrant")
@click.argument("name")
@CONFIG_OPTION
@click.option("--organiser", is_flag=True, help="an organiser's token (the organiser's "
              "page: entrants, versions, the gate queue, disqualify) instead of an entrant")
@click.option("--per-day", type=click.IntRange(min=1), default=None,
              help="versions a day this entrant may submit (default: the config's)")
def add_entrant(name: str, config_path: Path, organiser: bool, per_day: int | None) -> None:
    """Add an entrant NAME and print its token, once: it is kept only hashed."""
    module: Any = serving()
    token = module.add_entrant(config_path, name, organiser, per_day)
    click.echo(token)
    click.echo(f"added {'organiser' if organiser else 'entrant'} {name}: give them this "
               "token; it is not shown again", err=True)


@click.command("submit")
@click.argument("url")
@click.argument("folder", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--token", envvar="CIRCUS_ARENA_TOKEN", required=True,
              help="your entrant's token (or the CIRCUS_ARENA_TOKEN variable)")
def submit(url: str, folder: Path, token: str) -> None:
    """Send a bot FOLDER (its entrant.yaml and code) to the arena at URL."""
    answer = send(url, folder, token)
    click.echo(json.dumps(answer))
    if answer.get("new"):
        click.echo(f"stored as {answer['version']}, queued for its gate: {answer['page']}",
                   err=True)
    else:
        click.echo(f"the same code as {answer['version']}: nothing new stored", err=True)
