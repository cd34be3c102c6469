"""``circus-referee cluster-check``: whether a Dask scheduler's workers can run a field."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from circus_referee.common import fail
from referee.settings import package_version
from referee.text import printable
from tournaments import cluster
from tournaments.config import load_config


@click.command("cluster-check")
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
        config = load_config(config_path)
    address = cluster_address or (config.cluster if config is not None else None)
    if address is None:
        fail("give --cluster tcp://HOST:PORT (or `cluster:` in BOTS_YAML)")
    client = cluster.connect(address)
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
             else f"sandbox: unavailable ({report.sandbox})", report.limits]
    if report.refused is not None:
        lines.append(f"FAIL  {report.refused}")
        problems += 1
    for bot, failure in report.bots.items():
        lines.append(f"PASS  {bot}" if failure is None else f"FAIL  {bot}: {failure}")
        problems += failure is not None
    return lines, problems
