"""The request ids of one channel to a bot, and what a reply's id means: one policy for the
stdio transport (:mod:`referee.stdio`) and the Play stream (:mod:`referee.stream`).

The referee numbers a channel's requests 1, 2, 3, … and never reuses an id, so the id a
reply names is one of three things:

- **pending**: a request still waiting; this is its reply.
- **stale**: a request sent earlier whose call has ended (it timed out, a line that was not
  its reply failed it, or it was answered already). The reply is skipped, and the channel
  notes it in the bot's log: its call's outcome is decided, and charging the reply to
  another request would make one stray line cost every call after it.
- **a breach**: an id never sent, or none at all. Nothing tells which request it was meant
  for, so it is an ``illegal`` fault of the request (or requests) the channel awaits.

Only the pending requests are kept: a request is forgotten as its call ends, so a channel
that times out all run long holds nothing more for it.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from circus_outcomes import FaultClass
from referee.clients import BotFault
from referee.text import printable

Waiter = TypeVar("Waiter")


class RequestIds(Generic[Waiter]):
    """The ids sent on one channel and the requests in flight, each with what waits for its
    reply (the channel's own kind of waiter)."""

    def __init__(self) -> None:
        self.last_sent = 0
        self.pending: dict[int, Waiter] = {}

    def send(self, waiter: Waiter) -> int:
        """A new request's id, pending until its call ends."""
        self.last_sent += 1
        self.pending[self.last_sent] = waiter
        return self.last_sent

    def end(self, request_id: int) -> Waiter | None:
        """Forget a request whose call ended; its waiter, None if it had ended already.
        A reply to it that comes later is stale."""
        return self.pending.pop(request_id, None)

    def claim(self, answered: int | None, said: object = None) -> Waiter | None:
        """The waiter of the pending request a reply names (``answered``: its id, None if
        it names none; ``said``: the id as the reply wrote it), which the reply ends.
        None for a stale reply, to be skipped; a breach is an ``illegal`` fault."""
        if answered is not None:
            waiter = self.pending.pop(answered, None)
            if waiter is not None:
                return waiter
            if 0 < answered <= self.last_sent:
                return None
        if answered is None and said is None:
            raise BotFault(FaultClass.ILLEGAL, "a reply with no request_id")
        raise BotFault(FaultClass.ILLEGAL, printable(
            f"a reply to request_id {answered if said is None else said!r}, which was never "
            f"sent (the last sent: {self.last_sent})"))


def skipped(request_id: int | None) -> str:
    """The note in a bot's log for a stale reply it sent."""
    return (f"skipped a reply to request_id {request_id}: that request's call had already "
            "ended (timed out, failed by a line that was not its reply, or answered)")
