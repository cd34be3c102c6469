"""``circus-referee doctor``: what this machine gives a sandboxed bot, before any tournament."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from referee.limits import hierarchy, refusal, statement
from referee.sandbox import unavailable_reason
from referee.settings import LimitsConfig
from tournaments.config import load_config


@click.command("doctor")
@click.argument("config_path", metavar="[BOTS_YAML]", required=False,
                type=click.Path(path_type=Path))
def doctor(config_path: Path | None) -> None:
    """Say whether bots can be sandboxed here, and which of their limits hold, and how.

    Starts no bot and stores nothing. With BOTS_YAML, the limits are its `limits:`.
    Exits 1 when no sandbox can be made here, or when the config's `limits.require`
    would refuse to run.
    """
    limits = load_config(config_path).limits if config_path is not None else LimitsConfig()
    reason = unavailable_reason()
    click.echo("sandbox: ready" if reason is None else f"sandbox: unavailable: {reason}")
    where = hierarchy()
    for parent in where.parents:
        click.echo(f"cgroup v{parent.version}: {', '.join(parent.controllers)} "
                   f"in {parent.folder}")
    for problem in where.problems:
        click.echo(f"not held: {problem}")
    click.echo(statement(limits, where, why=False))
    refused = refusal(limits, where)
    if refused is not None:
        click.echo(refused)
    sys.exit(1 if reason is not None or refused is not None else 0)
