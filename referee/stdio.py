"""The stdio transport: a bot that reads requests on its stdin and answers on its stdout.

Each request is one line of UTF-8 JSON, a ``RefereeMessage`` of ``proto/circus/v1/bot.proto``
in protobuf's canonical JSON mapping with the .proto's field names (``request_id`` and
one of ``hello``, ``start_game``, ``decide``, ``end_game``); each reply is one line, a
``BotMessage`` with the same ``request_id`` and case. A bot needs no library and no
thread: it answers in order, one request at a time. So one process plays one game at
a time, and the referee keeps as many processes of a stdio bot as games it plays at
once (:class:`StdioPool`); each game's seat has one process from StartGame to EndGame.
docs/protocol.md ("The stdio transport") is the bot author's side of this.

Every wait is bounded by the call's deadline (the same clock as over gRPC): writing the
request (a bot that does not read its stdin blocks a long one) and reading the reply.
A reply to an earlier request (after its timeout, or after a stray line failed it) is
skipped; a reply that is not one (not JSON, an id never sent, another call's case, a
message that does not parse, a line over ``message_bytes``) is an ``illegal`` fault; a
closed stdout or stdin is a ``crash``, named by how the process ended.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import threading
import time
from functools import partial
from typing import Any, Callable

from google.protobuf import json_format
from google.protobuf.message import Message

from circus.v1 import bot_pb2
from circus_outcomes import FaultClass
from referee.clients import (BotClient, BotFault, DecisionView, GameEnd, GameStart, RequestTooLarge,
                             ViewDecider)
from referee.jsonwire import Unencodable, decision_text, end_game_text, start_game_text
from referee.process import BotProcess
from referee.request_ids import RequestIds, skipped
from referee.text import printable

#: Each call's case in the envelope, and the message its reply carries.
REPLIES: dict[str, type[Message]] = {
    "hello": bot_pb2.HelloResponse,
    "start_game": bot_pb2.StartGameResponse,
    "decide": bot_pb2.Decision,
    "end_game": bot_pb2.EndGameResponse,
}
#: The canonical mapping's lowerCamelCase names, which a reply may use too.
CAMEL_CASES = {"startGame": "start_game", "endGame": "end_game", "requestId": "request_id"}
#: How long a bot whose stdout closed is given to end, so the fault can say how it ended.
SETTLE_S = 2.0


# -- the lines -------------------------------------------------------------------------
def request_line(request_id: int, case: str, message: Message | bytes) -> bytes:
    """One request, as the line (with its newline) the bot reads: its JSON text already
    written (:mod:`referee.jsonwire`, every game's requests, UTF-8), or a message, written
    by protobuf's own mapping (Hello, a logged wire's requests, data the writer does not
    take)."""
    body = message if isinstance(message, bytes) else json.dumps(
        json_format.MessageToDict(message, preserving_proto_field_name=True),
        ensure_ascii=False, separators=(",", ":")).encode()
    return b'{"request_id":"%d","%s":%s}\n' % (request_id, case.encode(), body)


def reply_id(reply: Any) -> int | None:
    """The request id a parsed reply line answers (None if it names none)."""
    if not isinstance(reply, dict):
        return None
    value = reply.get("request_id", reply.get("requestId"))
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    # ASCII digits only: str.isdigit also accepts "²" and other digits int() refuses.
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


def reply_message(reply: dict[str, Any], case: str) -> Message:
    """The message of a reply of the call ``case``; an ``illegal`` fault if it is none."""
    if case == "decide" and len(reply) == 2 and ("request_id" in reply or "requestId" in reply):
        body = reply.get("decide")   # the usual reply: its case and its id, nothing else
        if body.__class__ is dict:
            decision = _plain_decision(body)
            if decision is not None:
                return decision
    keys = [key for key in reply if CAMEL_CASES.get(key, key) in REPLIES]
    cases = [CAMEL_CASES.get(key, key) for key in keys]
    if cases != [case]:
        found = " and ".join(cases) or "none"
        raise BotFault(FaultClass.ILLEGAL, f"a {case} request answered with the case {found}")
    body = reply[keys[0]]
    if body is not None and not isinstance(body, dict):
        raise BotFault(FaultClass.ILLEGAL,
                       f"the {case} reply does not parse: {body!r:.40} is not an object")
    if not body:   # no fields: the empty message (StartGame's and EndGame's usual reply)
        return REPLIES[case]()
    message = REPLIES[case]()
    try:
        # Unknown fields are skipped, as protobuf's binary format skips them: a bot of a
        # later minor version may send more.
        json_format.ParseDict(body, message, ignore_unknown_fields=True)
    except (json_format.ParseError, TypeError, ValueError, RecursionError) as error:
        raise BotFault(FaultClass.ILLEGAL,
                       printable(f"the {case} reply does not parse: {error}")) from None
    return message


def _plain_decision(body: dict[str, Any]) -> bot_pb2.Decision | None:
    """The usual reply to a decision (both fields, as integers or strings of digits, in
    range) without ``ParseDict``, a third of a call's cost; None for any other, which
    ``ParseDict`` then judges."""
    if len(body) != 2:
        return None
    decision_id, index = body.get("decision_id"), body.get("action_index")
    if isinstance(decision_id, str) and decision_id.isascii() and decision_id.isdigit():
        decision_id = int(decision_id)
    if (type(decision_id) is int and type(index) is int and 0 <= decision_id < 1 << 64
            and 0 <= index < 1 << 32):
        return bot_pb2.Decision(decision_id=decision_id, action_index=index)
    return None


# -- one process -----------------------------------------------------------------------
class StdioClient:
    """One stdio bot process, reached through its stdin and stdout, one call at a time.

    A bot answers in order, so a reply to an earlier request (one that timed out, or
    that a stray line failed) comes before the one awaited: it is stale, skipped and
    noted in the bot's log (:mod:`referee.request_ids`). Once a request is left half
    written, or stdout closes, the client is ``broken`` and every call a ``crash``.
    The pipes are the client's: only the thread holding ``lock`` (the call's) closes
    them, so a descriptor is never closed, or reused, under a call in flight.
    """

    def __init__(self, process: BotProcess, message_bytes: int,
                 settle_s: float = SETTLE_S) -> None:
        assert process.pipes is not None and process.process is not None
        self.process = process
        # This client's run of the process: the participant may start the bot again
        # while a call of this run still settles its crash.
        self.run = process.process
        self.max_line = message_bytes
        self.settle_s = settle_s
        self.stdin = process.pipes.requests
        self.stdout = process.pipes.replies
        os.set_blocking(self.stdin.fileno(), False)
        os.set_blocking(self.stdout.fileno(), False)
        self.writable = select.poll()
        self.writable.register(self.stdin.fileno(), select.POLLOUT)
        self.readable = select.poll()
        self.readable.register(self.stdout.fileno(), select.POLLIN)
        self.buffer = bytearray()
        self.scanned = 0          # how much of the buffer holds no newline
        self.skipping = False     # the rest of an over-long line is being discarded
        self.ids: RequestIds[str] = RequestIds()
        self.broken: str | None = None
        self.closed = False
        self.lock = threading.Lock()
        # Held while ``closed`` is set or the call lock let go, so that a close meets
        # either an idle client (and closes the pipes) or a call that will.
        self.closing = threading.Lock()

    # The four calls of BotClient.
    def hello(self, request: bot_pb2.HelloRequest, timeout: float) -> bot_pb2.HelloResponse:
        reply = self.call("hello", request, timeout)
        assert isinstance(reply, bot_pb2.HelloResponse)
        return reply

    def start_game(self, request: bot_pb2.StartGameRequest, timeout: float) -> None:
        self.call("start_game", request, timeout)

    def decide(self, request: bot_pb2.DecisionRequest | bytes,
               timeout: float) -> bot_pb2.Decision:
        """``request``: the message, or its JSON text (:meth:`StdioPool.prepare`)."""
        reply = self.call("decide", request, timeout)
        assert isinstance(reply, bot_pb2.Decision)
        return reply

    def end_game(self, request: bot_pb2.EndGameRequest, timeout: float) -> None:
        self.call("end_game", request, timeout)

    def call(self, case: str, request: Message | bytes, timeout: float) -> Message:
        """Write the request (a message, or its JSON text already written), read its
        reply: each within ``timeout`` seconds in all."""
        deadline = time.monotonic() + timeout
        if not self.lock.acquire(timeout=max(0.0, timeout)):
            raise BotFault(FaultClass.TIMEOUT, f"no reply within {timeout:.3f} s (another call "
                                               "to this process was still waiting)")
        try:
            if self.closed or self.broken:
                raise BotFault(FaultClass.CRASH, self.broken or "the process was stopped")
            request_id = self.ids.send(case)
            try:
                self._write(self._request_line(request_id, case, request), deadline, timeout)
                return self._reply(request_id, case, deadline, timeout)
            finally:
                self.ids.end(request_id)
        finally:
            self._let_go()

    def _request_line(self, request_id: int, case: str, request: Message | bytes) -> bytes:
        line = request_line(request_id, case, request)
        if len(line) > self.max_line:
            raise RequestTooLarge(case, len(line), self.process.name, self.max_line)
        return line

    def _write(self, line: bytes, deadline: float, timeout: float) -> None:
        view = memoryview(line)
        while view:
            try:
                view = view[os.write(self.stdin.fileno(), view):]
                continue
            except BlockingIOError:
                pass
            except OSError:   # EPIPE: nothing reads the bot's stdin any more
                raise self._crash("its stdin closed", deadline) from None
            wait = deadline - time.monotonic()
            if wait <= 0 or not self.writable.poll(wait * 1000):
                if len(view) < len(line):
                    self.broken = "a request was left half written (the bot read no more)"
                raise BotFault(FaultClass.TIMEOUT, f"no reply within {timeout:.3f} s (the bot did "
                                                   "not read its request)")

    def _reply(self, request_id: int, case: str, deadline: float, timeout: float) -> Message:
        """The reply to ``request_id``, stale replies to earlier requests skipped."""
        while True:
            line = self._line(deadline)
            if line is None:
                raise BotFault(FaultClass.TIMEOUT, f"no reply within {timeout:.3f} s")
            try:
                reply = json.loads(line)
            except (ValueError, RecursionError) as error:   # not JSON, not UTF-8, too deep
                raise BotFault(FaultClass.ILLEGAL, printable(f"the reply is not JSON ({error}): "
                                                             f"{line[:80]!r}")) from None
            if not isinstance(reply, dict):
                raise BotFault(FaultClass.ILLEGAL, "the reply is not a JSON object")
            answered = reply_id(reply)
            if self.ids.claim(answered, reply.get("request_id", reply.get("requestId"))) is None:
                self.process.note(skipped(answered))
                continue
            return reply_message(reply, case)

    def _line(self, deadline: float) -> bytes | None:
        """The next whole line of stdout, or None at the deadline.

        A line over ``max_line`` bytes (its newline included) is an ``illegal`` fault
        as soon as that is known; the rest of it is discarded as it comes, so the next
        reply is read whole.
        """
        while True:
            newline = self.buffer.find(b"\n", self.scanned)
            if newline >= 0:
                line = bytes(self.buffer[:newline])
                del self.buffer[:newline + 1]
                self.scanned = 0
                if self.skipping:
                    self.skipping = False
                    continue
                if newline + 1 > self.max_line:
                    raise self._over_limit()
                return line
            self.scanned = len(self.buffer)
            if self.skipping:
                self.buffer.clear()
                self.scanned = 0
            elif len(self.buffer) >= self.max_line:
                self.buffer.clear()
                self.scanned = 0
                self.skipping = True
                raise self._over_limit()
            wait = deadline - time.monotonic()
            if wait <= 0 or not self.readable.poll(wait * 1000):
                if time.monotonic() >= deadline:
                    return None
                continue
            try:
                chunk = os.read(self.stdout.fileno(), 1 << 16)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                raise self._crash("its stdout closed", deadline)
            self.buffer += chunk

    def _over_limit(self) -> BotFault:
        return BotFault(FaultClass.ILLEGAL, f"a reply line over the limit of {self.max_line} bytes")

    def _crash(self, what: str, deadline: float) -> BotFault:
        """A ``crash`` fault for a closed pipe, saying how the process ended: given what
        is left of the call's time to end (at most ``settle_s``), else stopped (a bot
        that cannot be talked to cannot play)."""
        settle = min(self.settle_s, max(0.0, deadline - time.monotonic()))
        try:
            self.run.wait(timeout=settle)
        except subprocess.TimeoutExpired:
            self.process.stop(grace=0)
            self.broken = f"{what} while the process ran on: it was stopped"
        else:
            self.broken = (f"its process ended: {self.process.exit_description(self.run)} "
                           f"({what})")
        return BotFault(FaultClass.CRASH, self.broken)

    def close(self) -> None:
        """Close the pipes now, or as soon as the call in flight returns."""
        with self.closing:
            self.closed = True
            if not self.lock.acquire(blocking=False):
                return   # the call in flight closes them as it lets go (_let_go)
        try:
            self._close_pipes()
        finally:
            self.lock.release()

    def _let_go(self) -> None:
        """End a call: the pipes closed first if the client was closed meanwhile."""
        with self.closing:
            if self.closed:
                self._close_pipes()
            self.lock.release()

    def _close_pipes(self) -> None:
        for pipe in (self.stdin, self.stdout):
            try:
                pipe.close()
            except OSError:
                pass


# -- the processes of one bot ------------------------------------------------------------
class Lane:
    """One process of a stdio bot and the game seat it plays (``None``: free)."""

    def __init__(self, process: BotProcess) -> None:
        self.process = process
        # What the referee calls: the process's StdioClient, or it with its wire logged.
        self.client: BotClient | None = None
        self.seat: tuple[str, int] | None = None

    def connect(self, client: BotClient) -> None:
        self.client, self.seat = client, None

    def disconnect(self) -> None:
        if self.client is not None:
            self.client.close()
        self.client, self.seat = None, None

    def free(self) -> bool:
        return self.client is not None and self.seat is None and self.process.alive()


class StdioPool(ViewDecider):
    """A :class:`~referee.clients.BotClient` over the processes of one stdio bot.

    StartGame takes a free process for its game and seat, which then gets that
    seat's every call; EndGame frees it. The lanes are the participant's: it
    starts, greets, restarts and stops their processes; ``describe`` says, for a
    seat whose process is gone, why. A decision's request is written as JSON from
    the match's plain data (:mod:`referee.jsonwire`), with no message built first;
    unless the lanes' wire is ``logged`` (a :class:`~referee.clients.WireLog` around
    each), which writes the message it logs.
    """

    def __init__(self, lanes: list[Lane], describe: Callable[[], str],
                 logged: bool = False) -> None:
        self.lanes = lanes
        self.describe = describe
        self.logged = logged
        self.lock = threading.Lock()
        # The lane each seat took at StartGame, so that a decision need not look for it
        # (a hit counts only while the lane still plays that seat: a lane's ``seat`` is
        # the truth, and a restart clears it).
        self.taken: dict[tuple[str, int], Lane] = {}

    def _take(self, seat: tuple[str, int]) -> Lane:
        with self.lock:
            lane = next((lane for lane in self.lanes if lane.free()), None)
            if lane is None:
                raise BotFault(FaultClass.CRASH, f"none of its {len(self.lanes)} processes is free "
                                                 f"({self.describe()})")
            lane.seat = seat
            if len(self.taken) >= 2 * len(self.lanes):   # games that ended with no EndGame
                self.taken = {key: held for key, held in self.taken.items()
                              if held.seat == key}
            self.taken[seat] = lane
            return lane

    def _lane_of(self, seat: tuple[str, int]) -> Lane:
        lane = self.taken.get(seat)
        if lane is None or lane.seat != seat:
            lane = self.lane_of(seat)
        if lane is None:
            raise BotFault(FaultClass.CRASH, f"the process that played this game is gone "
                                             f"({self.describe()})")
        return lane

    def _call(self, lane: Lane, call: str, request: Message | bytes, timeout: float) -> Any:
        client = lane.client
        if client is None:
            raise BotFault(FaultClass.CRASH, f"the process that played this game is gone "
                                             f"({self.describe()})")
        return getattr(client, call)(request, timeout)

    def lane_of(self, seat: tuple[str, int]) -> Lane | None:
        """The lane playing ``seat`` (game id, seat), None if none does."""
        with self.lock:
            return next((lane for lane in self.lanes if lane.seat == seat), None)

    def hello(self, request: bot_pb2.HelloRequest, timeout: float) -> bot_pb2.HelloResponse:
        with self.lock:
            lane = next((lane for lane in self.lanes if lane.client is not None), None)
        if lane is None:
            raise BotFault(FaultClass.CRASH, f"no process of the bot runs ({self.describe()})")
        reply: bot_pb2.HelloResponse = self._call(lane, "hello", request, timeout)
        return reply

    def start_game(self, request: bot_pb2.StartGameRequest, timeout: float) -> None:
        self._call(self._take((request.game_id, request.seat)), "start_game", request, timeout)

    def start_game_view(self, start: GameStart, timeout: float) -> None:
        """StartGame, its JSON text written from ``start`` (as :meth:`prepare` does)."""
        request = self._written(partial(start_game_text, start.game_id, start.game,
                                        start.variant, start.seat, start.seat_names,
                                        start.move_ms, start.bank_ms), start.message)
        self._call(self._take((start.game_id, start.seat)), "start_game", request, timeout)

    def decide(self, request: bot_pb2.DecisionRequest, timeout: float) -> bot_pb2.Decision:
        reply: bot_pb2.Decision = self._call(self._lane_of((request.game_id, request.seat)),
                                             "decide", request, timeout)
        return reply

    def prepare(self, view: DecisionView) -> bytes | Message:
        """The request's JSON text, or its message (:meth:`_written`)."""
        return self._written(partial(decision_text, view.state, view.game_id,
                                     view.decision_id, view.events_from, view.move_ms,
                                     view.bank_ms, view.actions, view.event_texts),
                             view.message)

    def _written(self, text: Callable[[], bytes],
                 message: Callable[[], Message]) -> bytes | Message:
        """A request's JSON text by the direct writer (:mod:`referee.jsonwire`); its message
        for a logged wire (the log writes the message), or for data the writer does not
        take (protobuf then checks it, as for every other transport)."""
        if self.logged:
            return message()
        try:
            return text()
        except Unencodable:
            return message()

    def decide_prepared(self, view: DecisionView, prepared: object,
                        timeout: float) -> bot_pb2.Decision:
        lane = self._lane_of((view.game_id, view.state.current_seat()))
        assert isinstance(prepared, (bytes, Message)), "what prepare made"
        reply: bot_pb2.Decision = self._call(lane, "decide", prepared, timeout)
        return reply

    def end_game(self, request: bot_pb2.EndGameRequest, timeout: float) -> None:
        self._end(request.game_id, request.seat, request, timeout)

    def end_game_view(self, end: GameEnd, seat: int, timeout: float) -> None:
        """EndGame, its JSON text written from ``end`` (as :meth:`prepare` does)."""
        request = self._written(partial(end_game_text, end.game_id, end.game, end.scores,
                                        end.ranks, end.reason, end.final, seat, end.status,
                                        end.final_text), partial(end.message, seat))
        self._end(end.game_id, seat, request, timeout)

    def _end(self, game_id: str, seat: int, request: Message | bytes, timeout: float) -> None:
        """EndGame to the lane of the game's seat, which is free after it."""
        lane = self._lane_of((game_id, seat))
        try:
            self._call(lane, "end_game", request, timeout)
        finally:
            with self.lock:
                self.taken.pop((game_id, seat), None)
                if lane.seat == (game_id, seat):
                    lane.seat = None

    def close(self) -> None:
        for lane in self.lanes:
            if lane.client is not None:
                lane.client.close()
