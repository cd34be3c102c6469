"""The ``circus-referee`` command line: the top of the stack, imported by nothing.

Each command parses its options, calls down into ``tournaments``, ``referee`` or
``ratings``, and turns their errors into one line and exit status 2. The commands live
in :mod:`circus_referee.commands`, one module per area; this module only assembles them.
"""

from __future__ import annotations

import click

from circus_referee.commands import (
    boards,
    bots,
    cluster,
    games,
    season,
    stored,
    submissions,
    tournament,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option("0.1.0", prog_name="circus-referee")
def main() -> None:
    """Run card-game AI tournaments: bots over gRPC, TrueSkill leaderboards."""


for command in (
        tournament.tournament, cluster.cluster_check,
        boards.leaderboard, boards.report,
        stored.tournaments_command, stored.played, stored.faults, stored.times, stored.export,
        games.games, games.replay,
        bots.check_bot_command,
        season.season, submissions.submissions, submissions.packs):
    main.add_command(command)
