"""The ``circus-referee`` command line: the top of the stack, imported by nothing.

Each command parses its options and calls down into ``tournaments``, ``referee`` or
``ratings``; the project's errors (:class:`~referee.errors.CircusError`, each a line for
the user) are caught here, once, and printed as that line with exit status 2. The
commands live in :mod:`circus_referee.commands`, one module per area; this module only
assembles them.
"""

from __future__ import annotations

import click

from circus_referee.common import CommandGroup

#: Each command's module and name in it, imported only when the command runs.
COMMANDS = {name: f"circus_referee.commands.{place}" for name, place in {
    "tournament": "tournament:tournament", "cluster-check": "cluster:cluster_check",
    "leaderboard": "boards:leaderboard", "report": "boards:report",
    "tournaments": "stored:tournaments_command", "played": "stored:played",
    "faults": "stored:faults", "times": "stored:times", "export": "stored:export",
    "games": "games:games", "replay": "games:replay",
    "check-bot": "bots:check_bot_command", "doctor": "bots:doctor", "season": "season:season",
    "submissions": "submissions:submissions", "packs": "submissions:packs",
    "arena": "arena:arena", "submit": "arena:submit"}.items()}


@click.group(cls=CommandGroup, commands=COMMANDS,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option("0.1.0", prog_name="circus-referee")
def main() -> None:
    """Run card-game AI tournaments: bots over gRPC or stdio, TrueSkill leaderboards."""
