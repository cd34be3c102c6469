"""The project's errors: one family, drawn here (as httpx draws its own in one module).

Each is a problem the user can fix (or a stop they asked for), and its message is one line
for them: the command line catches :class:`CircusError` once and prints that line with
the error's ``exit_status``, 2 but for a Ctrl-C. The classes live beside the code that
raises them, each a subclass of :class:`CircusError`::

    CircusError
    ├── ConfigError       tournaments.config      a bots.yaml that cannot be run
    ├── StoreError        tournaments.store       the results database cannot be used
    ├── TournamentError   tournaments.run.errors  the tournament cannot run (or go on)
    ├── Interrupted       tournaments.run.errors  a Ctrl-C or SIGTERM stopped it (status 130)
    ├── ClusterError      tournaments.cluster     the Dask cluster cannot be used
    ├── BotStartError     referee.participants    a bot cannot take part
    ├── RequestTooLarge   referee.clients         a request over limits.message_bytes
    ├── SeasonError       tournaments.season      a field change that cannot be made
    ├── SubmissionError   tournaments.submissions a submissions folder that cannot go on
    │   ├── FieldRefused                          no field can be made of it
    │   └── UploadRefused     arena.uploads       an arena's upload that is not stored
    │       └── LimitReached                      over its entrant's limits in time
    ├── ReplayError       tournaments.replays     a stored game that does not replay
    └── ReportError       pages.assembly          a report that cannot be written there

Not in it, by design, as no user meets them: a bot's failure during a game is a
``BotFault`` (:mod:`referee.clients`), a fault of that bot that its policy handles, never
an error of the referee; a cluster lost mid-run (``ClusterLost``) is the runner's to turn
into a :class:`TournamentError` (only it knows the games stored and the resume hint); a
game abandoned as its tournament stops (``MatchAbandoned``) only ends that game's thread,
once the runner has stopped reading results; the engines'
``GameConfigError`` and ``IllegalActionError`` (:mod:`referee.games.base`) belong to
the pure engines, which import nothing of the referee (a config turns the first into
a :class:`ConfigError`).
"""

from __future__ import annotations


class CircusError(Exception):
    """A problem for the user to fix; ``str(error)`` is one line saying what it is."""

    #: The command line's exit status for it.
    exit_status = 2
