"""The two ways a tournament's run ends early, raised by every part of the runner."""

from __future__ import annotations

from referee.errors import CircusError


class TournamentError(CircusError):
    """The tournament cannot run; the message is one line for the user."""


class Interrupted(CircusError):
    """Stopped by Ctrl-C or SIGTERM; finished games are stored. A stop the user asked for,
    told in one line (the games stored, how to resume) with the shell's status for it."""

    exit_status = 130
