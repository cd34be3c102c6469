"""The outcomes the store, the exports, the report and the protocol share, one definition
each: the class of a bot's fault, the policy that was applied to it, a game's status.

Ground of the whole stack: the referee decides these outcomes, the tournaments store them,
the ratings count them, and ``ratings`` may import nothing of the referee, so they live
here, below both, importing nothing of the project (``tests/test_layout.py``).

Each is a ``StrEnum``: a member is its own string, the same in SQLite, JSON, CSV and
protobuf, so nothing stored or sent changes, and a stored string compares equal to its
member. Compare with the members, never with a string written by hand. (Each game's end
reasons are its own: ``EndReason`` beside each rules engine, on its ``Game``.)
"""

from __future__ import annotations

from enum import StrEnum


class FaultClass(StrEnum):
    """What a bot did wrong (docs/protocol.md, "Faults")."""

    TIMEOUT = "timeout"        # no answer within the time control
    CRASH = "crash"            # the bot is gone: its process ended or its channel broke
    ILLEGAL = "illegal"        # an answer the rules or the protocol do not allow
    ERROR = "error"            # the bot's handler failed and said so
    # Not a failed call: a suspended bot's seat in a game, every decision substituted.
    SUSPENDED = "suspended"


class Policy(StrEnum):
    """What a fault did to the game."""

    SUBSTITUTE = "substitute"  # a random legal action instead (a strike)
    FORFEIT = "forfeit"        # the seat ranks last
    VOID = "void"              # the game is not rated
    # A fault of EndGame: recorded for the bot's author, the result stands.
    IGNORED = "ignored"


class GameStatus(StrEnum):
    """How a game ended for the tournament."""

    FINISHED = "finished"
    FORFEIT = "forfeit"        # a seat forfeited: it ranks last, the game is rated
    VOID = "void"              # a fault's policy voided it: not rated
