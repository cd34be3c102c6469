"""The two ways a tournament's run ends early, raised by every part of the runner."""

from __future__ import annotations


class TournamentError(Exception):
    """The tournament cannot run; the message is one line for the user."""


class Interrupted(Exception):
    """Stopped by Ctrl-C or SIGTERM; finished games are stored."""
