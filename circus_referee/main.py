"""The ``circus-referee`` command line: the top of the stack, imported by nothing.

Each command parses its options and calls down into ``tournaments``, ``referee`` or
``ratings``; the project's errors (:class:`~referee.errors.CircusError`, each a line for
the user) are caught here, once, and printed as that line with exit status 2. The
commands live in :mod:`circus_referee.commands`, one module per area; this module only
assembles them.
"""

from __future__ import annotations

import click

from circus_referee.commands import (arena, boards, bots, cluster, games, season, stored,
                                     submissions, tournament)
from circus_referee.common import CommandGroup


@click.group(cls=CommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option("0.1.0", prog_name="circus-referee")
def main() -> None:
    """Run card-game AI tournaments: bots over gRPC or stdio, TrueSkill leaderboards."""


for command in (
        tournament.tournament, cluster.cluster_check,
        boards.leaderboard, boards.report,
        stored.tournaments_command, stored.played, stored.faults, stored.times, stored.export,
        games.games, games.replay,
        bots.check_bot_command, bots.doctor,
        season.season, submissions.submissions, submissions.packs, arena.arena, arena.submit):
    main.add_command(command)
