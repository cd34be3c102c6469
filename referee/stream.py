"""One Play stream per bot process: StartGame, Decide and EndGame as messages of one call.

A bot that says ``serves_play_stream`` in its Hello (protocol 1.1) is reached through a
:class:`StreamClient`: the same four calls the match makes of any client, carried as
``RefereeMessage``/``BotMessage`` pairs on one long-lived bidirectional stream, many games
in flight at once, each reply matched to its request by ``request_id``. Hello (and the
health check after a timeout) stays a unary call. Every wait is bounded by the caller's
timeout, measured from the moment the request is handed to the stream, as a unary call's
deadline is.

What can go wrong, and whose fault it is (docs/protocol.md, "The Play stream"):

- no reply in time: that request's ``timeout``; a reply that comes later is stale, skipped
  and noted in the bot's log (its timeout was the fault), as a second reply to a request
  is (:mod:`referee.request_ids`, the policy stdio shares).
- a reply of the wrong kind (a StartGame reply to a Decide): that request is ``illegal``;
  an ``error`` reply (the bot's handler failed): that request's ``error``.
- a reply to a request_id never sent, or bytes that are no ``BotMessage``: ``illegal``
  for every request in flight on the stream, since any of them may be the one it
  answered (or, with none in flight, for the next request).
- an over-size message: gRPC ends the stream with RESOURCE_EXHAUSTED, ``illegal`` for the
  requests in flight; the next request opens a new stream.
- the stream answered ``UNIMPLEMENTED`` (a bot that announced it, behind an older server
  or a proxy): no fault; the requests in flight go again as unary calls, and so does every
  later one (:data:`FELL_BACK`, a line in the bot's log).
- the stream ending or breaking in any other way: a ``crash`` of the requests in flight,
  as a dropped connection is to unary calls; the next request opens a new stream.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import TYPE_CHECKING, Callable

from google.protobuf.message import DecodeError, Message

from circus.v1 import bot_pb2
from circus_outcomes import FaultClass
from referee.clients import BotClient, BotFault, GrpcClient, WireLog
from referee.request_ids import RequestIds, skipped
from referee.text import printable
from referee.wire import varint

if TYPE_CHECKING:   # imported by the GrpcClient a stream is made on (see there)
    import grpc

PLAY_METHOD = "/circus.v1.Bot/Play"
#: What the requests in flight on a stream the bot answered UNIMPLEMENTED are told: the
#: bot never saw them, so each goes again as a unary call.
UNSERVED = BotFault(FaultClass.CRASH, "UNIMPLEMENTED: the bot serves no Play stream")
#: The line in the bot's log when it falls back to unary calls.
FELL_BACK = ("the bot announced the Play stream in Hello but answers it UNIMPLEMENTED: its "
             "StartGame, Decide and EndGame go as unary calls from now on")

#: Each call's field of ``RefereeMessage``, as protobuf's wire format starts it: the key
#: byte of a length-delimited field (field number << 3 | 2).
_KEYS = {case: bytes([bot_pb2.RefereeMessage.DESCRIPTOR.fields_by_name[case].number << 3 | 2])
         for case in ("start_game", "decide", "end_game")}
_REQUEST_ID_KEY = bytes([bot_pb2.RefereeMessage.DESCRIPTOR.fields_by_name["request_id"].number
                         << 3])   # a varint field


class _Waiter:
    """One request in flight: the caller sleeps on ``arrived`` until the reader hands it
    a reply or a fault (a bare lock: the cheapest hand-over between two threads)."""

    __slots__ = ("arrived", "stream", "reply", "fault")

    def __init__(self, stream: _Stream) -> None:
        self.arrived = threading.Lock()
        self.arrived.acquire()
        self.stream = stream
        self.reply: bot_pb2.BotMessage | None = None
        self.fault: BotFault | None = None


class _Stream:
    """One open Play call: the queue its requests leave by, and the call's replies."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.requests: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        # Raw bytes both ways: the requests are serialized by envelope(), and a reply that
        # does not parse is judged here.
        play: grpc.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(
            PLAY_METHOD, request_serializer=None, response_deserializer=None)
        self.call = play(iter(self.requests.get, None))

    def close(self) -> None:
        self.requests.put(None)
        self.call.cancel()


class StreamClient:
    """A bot reached over one Play stream (and unary Hello), behind the usual client calls.

    The stream opens with the first request and again after it ended; a thread of its own
    reads the replies and hands each to the request it answers.
    """

    def __init__(self, unary: GrpcClient, note: Callable[[str], None]) -> None:
        self.unary = unary
        self.note = note   # a line in the bot's log
        self.lock = threading.Lock()
        self.ids: RequestIds[_Waiter] = RequestIds()
        self.stream: _Stream | None = None
        # A reply that matched nothing while nothing was in flight: the next request's fault.
        self.breach: BotFault | None = None
        # The bot answered its Play stream UNIMPLEMENTED: every call is a unary one.
        self.unary_only = False
        self.closed = False

    # -- the calls -----------------------------------------------------------
    def hello(self, request: bot_pb2.HelloRequest, timeout: float) -> bot_pb2.HelloResponse:
        return self.unary.hello(request, timeout)

    def start_game(self, request: bot_pb2.StartGameRequest, timeout: float) -> None:
        self._ask("start_game", request, timeout)

    def decide(self, request: bot_pb2.DecisionRequest, timeout: float) -> bot_pb2.Decision:
        decision = self._ask("decide", request, timeout)
        assert isinstance(decision, bot_pb2.Decision)
        return decision

    def end_game(self, request: bot_pb2.EndGameRequest, timeout: float) -> None:
        self._ask("end_game", request, timeout)

    def close(self) -> None:
        with self.lock:
            self.closed = True
            stream, self.stream = self.stream, None
            self._fail(list(self.ids.pending), BotFault(
                FaultClass.CRASH, "the referee closed the Play stream (the bot was stopped)"))
        if stream is not None:
            stream.close()
        self.unary.close()

    # -- one request ---------------------------------------------------------
    def _ask(self, case: str, body: Message, timeout: float) -> Message | None:
        """The reply's message (None from a unary StartGame or EndGame)."""
        asked = time.monotonic()
        sending = self._send(case, body)
        if sending is None:
            return self._unary(case, body, timeout)
        request_id, waiter = sending
        if not waiter.arrived.acquire(timeout=max(timeout, 0.0)):
            with self.lock:
                if self.ids.end(request_id) is not None:
                    raise BotFault(FaultClass.TIMEOUT, f"DEADLINE_EXCEEDED: no reply on the Play "
                                                       f"stream within {timeout:.3f}s")
            waiter.arrived.acquire()   # handed over as the wait ran out: it is there now
        if waiter.fault is UNSERVED:   # never reached the bot: asked again, in the time left
            return self._unary(case, body, timeout - (time.monotonic() - asked))
        if waiter.fault is not None:
            raise waiter.fault
        reply = waiter.reply
        assert reply is not None
        answered = reply.WhichOneof("reply")
        if answered == "error":
            raise BotFault(FaultClass.ERROR, printable(reply.error))
        if answered != case:
            raise BotFault(FaultClass.ILLEGAL, f"the reply to {case} is "
                                               f"{answered or 'empty'}, not {case}")
        body_reply: Message = getattr(reply, case)
        return body_reply

    def _unary(self, case: str, body: Message, timeout: float) -> Message | None:
        """The request as a unary call, for a bot whose Play stream is unserved."""
        reply: Message | None = getattr(self.unary, case)(body, max(timeout, 0.0))
        return reply

    def _send(self, case: str, body: Message) -> tuple[int, _Waiter] | None:
        """Register the request and hand it to the stream (opened if none is): its
        request_id and its waiter; None once the stream proved unserved (unary calls
        then). The body is serialized first, so that nothing is registered for a
        request that never leaves."""
        data = body.SerializeToString()
        self.unary.check_size(case, len(data))
        with self.lock:
            if self.closed:
                raise BotFault(FaultClass.CRASH, "the referee closed the Play stream")
            if self.unary_only:
                return None
            if self.breach is not None:
                fault, self.breach = self.breach, None
                raise fault
            stream = self.stream
            if stream is None:
                stream = self.stream = _Stream(self.unary.channel)
                threading.Thread(target=self._read, args=(stream,), daemon=True,
                                 name=f"play-stream {self.unary.address}").start()
            waiter = _Waiter(stream)
            request_id = self.ids.send(waiter)
        stream.requests.put(envelope(request_id, case, data))
        return request_id, waiter

    # -- the reader ----------------------------------------------------------
    def _read(self, stream: _Stream) -> None:
        """Hand every reply of ``stream`` to its request, until the stream ends."""
        import grpc   # imported already, by the unary client

        try:
            for data in stream.call:
                self._arrived(data)
            ended = BotFault(FaultClass.CRASH, "the bot ended its Play stream")
        except grpc.RpcError as error:
            ended = UNSERVED if error.code() == grpc.StatusCode.UNIMPLEMENTED \
                else stream_fault(error)
        except Exception as error:  # the channel itself failed under the stream
            ended = BotFault(FaultClass.CRASH, printable(f"{type(error).__name__}: {error}"))
        stream.requests.put(None)   # gRPC's thread sending the requests ends too
        with self.lock:
            if self.stream is stream:
                self.stream = None
            falls_back = ended is UNSERVED and not self.unary_only
            self.unary_only = self.unary_only or falls_back
            self._fail([request_id for request_id, waiter in self.ids.pending.items()
                        if waiter.stream is stream], ended)
        if falls_back:
            self.note(FELL_BACK)

    def _arrived(self, data: bytes) -> None:
        try:
            reply = bot_pb2.BotMessage.FromString(data)
        except DecodeError as error:
            self._breached(f"a reply on the Play stream is no BotMessage ({error})")
            return
        with self.lock:
            try:
                # A protobuf field unset reads 0, an id never sent: no request_id at all.
                waiter = self.ids.claim(reply.request_id or None)
            except BotFault as fault:
                self._breached_locked(fault)
                return
        if waiter is None:
            self.note(skipped(reply.request_id))
            return
        waiter.reply = reply
        waiter.arrived.release()

    def _breached(self, detail: str) -> None:
        with self.lock:
            self._breached_locked(BotFault(FaultClass.ILLEGAL, printable(detail)))

    def _breached_locked(self, fault: BotFault) -> None:
        if self.ids.pending:
            # Their own replies may still come: each is then stale, as after a timeout.
            self._fail(list(self.ids.pending), fault)
        else:
            self.breach = fault

    def _fail(self, request_ids: list[int], fault: BotFault) -> None:
        """Wake these requests with ``fault`` (the lock held)."""
        for request_id in request_ids:
            waiter = self.ids.pending.pop(request_id)
            waiter.fault = fault
            waiter.arrived.release()


def envelope(request_id: int, case: str, data: bytes) -> bytes:
    """``RefereeMessage(request_id=request_id, <case>=body)``, serialized, from ``data``, the
    body's own serialization, without copying the body into an envelope first: protobuf
    writes a message field as its key, its length and its bytes, so the envelope is the
    request_id's field and ``data`` after its key and length, the very bytes the message
    would serialize to (fields in number order). The copy would be a tenth of the
    referee's work a decision (docs/performance.md, "The Play stream's ceiling, measured")."""
    return _REQUEST_ID_KEY + varint(request_id) + _KEYS[case] + varint(len(data)) + data



def stream_fault(error: grpc.RpcError) -> BotFault:
    """What a Play stream's end means for the requests in flight on it: an over-size
    message is ``illegal`` (as in a unary reply), any other end a ``crash``."""
    import grpc   # imported already, by the unary client

    code = error.code()
    detail = printable(f"{code.name}: {error.details() or ''}".strip(": "))
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return BotFault(FaultClass.ILLEGAL, detail)
    return BotFault(FaultClass.CRASH, f"the Play stream broke: {detail}")


def chosen_client(client: BotClient, hello: bot_pb2.HelloResponse,
                  note: Callable[[str], None]) -> BotClient:
    """The client to play through after ``hello``: a gRPC bot that serves the Play stream
    is reached over it (``note``: a line in its log), any other bot as it was (a wire log
    stays around it)."""
    if not hello.serves_play_stream:
        return client
    if isinstance(client, WireLog):
        client.inner = chosen_client(client.inner, hello, note)
        return client
    if isinstance(client, GrpcClient):
        return StreamClient(client, note)
    return client
