"""How the referee talks to a bot: over gRPC, or in-process with no wire.

A client knows nothing of rules: it sends requests, bounds every wait, and
turns every way a call can fail into a :class:`BotFault` of one of the four
fault classes (``timeout``, ``crash``, ``illegal``, ``error``).
"""

from __future__ import annotations

import importlib
import json
import os
import queue
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, NamedTuple, Protocol, Sequence

from google.protobuf import json_format
from google.protobuf.message import Message

from circus.v1 import bot_pb2
from circus_outcomes import FaultClass
from referee import wire
from referee.errors import CircusError
from referee.games.base import Action, Event, State
from referee.text import printable


class BotFault(Exception):
    """A bot failed a call. ``fault_class`` is the class of the fault."""

    def __init__(self, fault_class: FaultClass, detail: str) -> None:
        super().__init__(f"{fault_class}: {detail}")
        self.fault_class = fault_class
        self.detail = detail


class BotClient(Protocol):
    """The four calls of the protocol, each with a deadline in seconds."""

    def hello(self, request: bot_pb2.HelloRequest, timeout: float) -> bot_pb2.HelloResponse: ...

    def start_game(self, request: bot_pb2.StartGameRequest, timeout: float) -> None: ...

    def decide(self, request: bot_pb2.DecisionRequest, timeout: float) -> bot_pb2.Decision: ...

    def end_game(self, request: bot_pb2.EndGameRequest, timeout: float) -> None: ...

    def close(self) -> None: ...


@dataclass(slots=True)
class DecisionView:
    """The plain parts of a decision's request, before any message is built: the match's
    state and caches, as :func:`referee.wire.decision_request` takes them. A
    :class:`ViewDecider` writes its request from them directly; any other client gets
    :meth:`message`."""

    state: State
    game_id: str
    decision_id: int
    events_from: int
    move_ms: int
    bank_ms: int
    actions: Sequence[Action]
    #: The game's events, each encoded once a game: as message bytes, and as JSON text.
    event_cache: list[bytes]
    event_texts: list[bytes]

    def message(self) -> bot_pb2.DecisionRequest:
        return wire.decision_request(
            self.state, self.game_id, self.decision_id, self.events_from,
            bot_pb2.Clock(move_ms=self.move_ms, bank_ms=self.bank_ms), self.actions,
            self.event_cache)

    def plain(self) -> PlainRequest:
        return PlainRequest(self)


class PlainClock(NamedTuple):
    """A decision's clock, as ``Clock`` carries it."""

    move_ms: int
    bank_ms: int


class StaleRequest(Exception):
    """A plain request's observation or events read after the game moved on."""


class PlainRequest:
    """A decision's request as the engine's own values, for an in-process bot that asks for
    them (``plain_requests = True`` on its class, see :class:`InProcessBot`).

    The fields are a ``DecisionRequest``'s, by the same names, with no message built:
    building it is most of what an in-process decision costs the referee.
    ``legal_actions`` are the engine's actions, each with ``code``, ``label`` and
    ``payload`` (the dict of its typed payload); ``observation`` is the dict of the game's
    typed observation (``observation.flea_circus`` and so on), and ``events`` each new
    event the seat may see with its sequence number, both made when first read, which
    must be during the call (after it, the game has moved on: :class:`StaleRequest`), and
    kept from then on.
    They are the engine's own objects, shared with the game and the other seats: a bot
    reads them and never changes them (a ``python:`` bot runs in the referee, trusted).
    """

    __slots__ = ("game_id", "decision_id", "seat", "kind", "prompt", "legal_actions", "clock",
                 "_state", "_events_from", "_moment", "_observation", "_events")

    def __init__(self, view: DecisionView) -> None:
        state = self._state = view.state
        self.game_id = view.game_id
        self.decision_id = view.decision_id
        self.seat = state.current_seat()
        self.kind = state.decision_kind()
        self.prompt = state.prompt()
        self.legal_actions = tuple(view.actions)
        self.clock = PlainClock(view.move_ms, view.bank_ms)
        self._events_from = view.events_from
        self._moment = len(state.history)
        self._observation: dict[str, Any] | None = None
        self._events: list[tuple[int, Event]] | None = None

    def _current(self) -> State:
        if len(self._state.history) != self._moment:
            raise StaleRequest(f"decision {self.decision_id}'s request read after its call")
        return self._state

    @property
    def observation(self) -> dict[str, Any]:
        if self._observation is None:
            self._observation = self._current().observation(self.seat)
        return self._observation

    @property
    def events(self) -> list[tuple[int, Event]]:
        if self._events is None:
            start = self._events_from
            self._events = [(sequence, event)
                            for sequence, event in enumerate(self._current().events[start:], start)
                            if event.visible_for(self.seat)]
        return self._events


@dataclass(frozen=True, slots=True)
class GameStart:
    """The plain parts of one seat's ``StartGameRequest``, as :class:`DecisionView` is of a
    decision's: a :class:`ViewDecider` writes the request from them, any other client
    gets :meth:`message`."""

    game_id: str
    game: str
    variant: str
    seat: int
    seat_names: list[str]
    move_ms: int
    bank_ms: int

    def message(self) -> bot_pb2.StartGameRequest:
        return bot_pb2.StartGameRequest(
            game_id=self.game_id, game=self.game, variant=self.variant,
            num_players=len(self.seat_names), seat=self.seat, seat_names=self.seat_names,
            time_control=bot_pb2.TimeControl(move_ms=self.move_ms, bank_ms=self.bank_ms))


@dataclass
class GameEnd:
    """The plain parts of a game's ``EndGameRequest``, one for all its seats (the request
    of each adds its seat): the final state is converted once a game, as a message for
    :meth:`message` and as JSON text for a :class:`ViewDecider` (``final_text``, filled by
    :mod:`referee.jsonwire` at the first seat's request)."""

    game_id: str
    game: str
    scores: list[int]
    ranks: list[int]
    reason: str
    final: dict[str, Any]
    status: str
    final_text: list[str] = field(default_factory=list)

    @cached_property
    def final_messages(self) -> tuple[Any, bot_pb2.FinalState]:
        """The final state as the ``Struct`` and as the game's typed message."""
        return wire.struct(self.final), wire.final_state_message(self.game, self.final)

    def message(self, seat: int) -> bot_pb2.EndGameRequest:
        final_state, typed_final_state = self.final_messages
        return bot_pb2.EndGameRequest(
            game_id=self.game_id, scores=self.scores, ranks=self.ranks, reason=self.reason,
            final_state=final_state, typed_final_state=typed_final_state, seat=seat,
            status=self.status)


class ViewDecider:
    """A client that writes its requests from their plain parts itself (stdio: straight to
    JSON text, no message built first): a decision's in two steps so that the match's
    clock starts after the request is made, as it does for a message."""

    def prepare(self, view: DecisionView) -> object:
        """The request, made ready to send (what :meth:`decide_prepared` takes)."""
        raise NotImplementedError

    def decide_prepared(self, view: DecisionView, prepared: object,
                        timeout: float) -> bot_pb2.Decision:
        raise NotImplementedError

    def start_game_view(self, start: GameStart, timeout: float) -> None:
        """StartGame, its request written from ``start``."""
        raise NotImplementedError

    def end_game_view(self, end: GameEnd, seat: int, timeout: float) -> None:
        """EndGame to ``seat``, its request written from ``end``."""
        raise NotImplementedError


class RequestTooLarge(CircusError):
    """A request the referee must send is over ``limits.message_bytes``, the limit the
    organiser set for both directions: not the bot's fault, and no game can go on."""

    def __init__(self, case: str, size: int, bot: str, limit: int) -> None:
        super().__init__(f"a {case} request of {size} bytes to {bot} is over "
                         f"limits.message_bytes ({limit}): raise it, and run the same command "
                         "again to resume")


# The fault class each gRPC status code means for the referee, by the code's name.
_STATUS_FAULTS = {
    "DEADLINE_EXCEEDED": FaultClass.TIMEOUT,
    "UNAVAILABLE": FaultClass.CRASH,
    "CANCELLED": FaultClass.CRASH,
    "RESOURCE_EXHAUSTED": FaultClass.ILLEGAL,
    "INTERNAL": FaultClass.ILLEGAL,
}


#: How soon the channel tries again to connect after a failed attempt, in ms. gRPC's
#: default waits a second (growing to two minutes): a bot that starts listening just
#: after the first attempt would be greeted a second late. A bot's address is local (a
#: unix socket or loopback), so trying every 20–100 ms costs nothing. Only the initial and
#: the maximum backoff are set: gRPC also takes ``grpc.min_reconnect_backoff_ms`` as the
#: shortest time it gives one connection attempt (20 s by default), and a bot on a loaded
#: machine may take longer than 100 ms to send its first HTTP/2 frame; a Hello then failed
#: as UNAVAILABLE ("timed out before receiving SETTINGS frame").
RECONNECT_MS = (20, 100)


class GrpcClient:
    """A bot reached at ``host:port``; messages over ``message_bytes`` are refused.

    gRPC is imported by the first such client, not with this module: its import (asyncio
    and ssl among it) is a large part of a command's, and a tournament of stdio or in-process
    bots makes none."""

    def __init__(self, address: str, message_bytes: int = 4 * 1024 * 1024) -> None:
        import grpc

        from circus.v1 import bot_pb2_grpc

        self.address = address
        self.message_bytes = message_bytes
        first, most = RECONNECT_MS
        options = [("grpc.max_send_message_length", message_bytes),
                   ("grpc.max_receive_message_length", message_bytes),
                   ("grpc.enable_retries", 0),
                   ("grpc.initial_reconnect_backoff_ms", first),
                   ("grpc.max_reconnect_backoff_ms", most)]
        self.channel = grpc.insecure_channel(address, options=options)
        self.stub = bot_pb2_grpc.BotStub(self.channel)

    def _call(self, case: str, method: Callable[..., Any], request: Any, timeout: float) -> Any:
        import grpc   # imported already, by __init__

        self.check_size(case, request.ByteSize())
        try:
            return method(request, timeout=timeout)
        except grpc.RpcError as error:
            code = error.code()
            fault_class = _STATUS_FAULTS.get(code.name, FaultClass.ERROR)
            # The details are the bot's own words: inert before they are stored or shown.
            detail = printable(error.details() or "")
            if code == grpc.StatusCode.INTERNAL and "serializ" not in detail.lower():
                fault_class = FaultClass.ERROR
            raise BotFault(fault_class, f"{code.name}: {detail}".strip(": ")) from None
        except Exception as error:  # e.g. a channel closed by a restart under a game in flight
            raise BotFault(FaultClass.CRASH,
                           printable(f"{type(error).__name__}: {error}")) from None

    def check_size(self, case: str, size: int) -> None:
        """Refuse to send a request over the limit: gRPC would fail it as
        RESOURCE_EXHAUSTED, which is the bot's fault when it comes from the bot's side."""
        if size > self.message_bytes:
            raise RequestTooLarge(case, size, self.address, self.message_bytes)

    def hello(self, request: bot_pb2.HelloRequest, timeout: float) -> bot_pb2.HelloResponse:
        return self._call("hello", self.stub.Hello, request, timeout)

    def start_game(self, request: bot_pb2.StartGameRequest, timeout: float) -> None:
        self._call("start_game", self.stub.StartGame, request, timeout)

    def decide(self, request: bot_pb2.DecisionRequest, timeout: float) -> bot_pb2.Decision:
        return self._call("decide", self.stub.Decide, request, timeout)

    def end_game(self, request: bot_pb2.EndGameRequest, timeout: float) -> None:
        self._call("end_game", self.stub.EndGame, request, timeout)

    def close(self) -> None:
        self.channel.close()


class InProcessBot(Protocol):
    """What the referee asks of a bot it calls in-process, with no wire.

    The referee owns this interface and knows no bot package: ``bots.sdk.Bot``
    is one implementation. ``decide`` returns an index into the request's legal
    actions. A method whose function carries ``does_nothing = True`` (the SDK's
    defaults of ``start_game`` and ``end_game``) is known to neither fail nor
    hang, so the referee skips the call. A class that sets ``plain_requests = True``
    beside its ``decide`` is handed each decision as a :class:`PlainRequest`, not a
    ``DecisionRequest`` (a subclass that overrides ``decide`` gets the message unless it
    sets it too: :func:`takes_plain_requests`).
    """

    def hello(self, request: bot_pb2.HelloRequest) -> bot_pb2.HelloResponse: ...

    def start_game(self, request: bot_pb2.StartGameRequest) -> None: ...

    def decide(self, request: Any) -> int: ...

    def end_game(self, request: bot_pb2.EndGameRequest) -> None: ...


def _error_fault(error: Exception) -> BotFault:
    """What an exception raised in an in-process bot's call is: an ``error`` fault."""
    return BotFault(FaultClass.ERROR, printable(f"{type(error).__name__}: {error}"))


def _decision(request: bot_pb2.DecisionRequest | PlainRequest, index: Any) -> bot_pb2.Decision:
    """An in-process bot's answer to ``request``: the index it returned, if it is one."""
    if not isinstance(index, int) or index < 0:
        raise BotFault(FaultClass.ILLEGAL, f"decide returned {index!r}, not an index")
    return bot_pb2.Decision(decision_id=request.decision_id, action_index=index)


def takes_plain_requests(bot_class: type) -> bool:
    """Whether the class that defines the bot's ``decide`` sets ``plain_requests = True``:
    a flag says what its own ``decide`` reads, so a subclass's ``decide`` (one written for
    the message, say) does not inherit it."""
    for owner in bot_class.__mro__:
        if "decide" in vars(owner):
            return vars(owner).get("plain_requests", False) is True
    return False


_IN_PROCESS_CALLS = ("hello", "start_game", "decide", "end_game")


@dataclass(slots=True, eq=False)
class _Call:
    """A call handed to an in-process bot's worker: the bot's method, its request, and the
    queue its outcome goes to, (True, what it returned) or (False, what it raised); one its
    caller ``gave_up`` on before a worker took it is never made."""

    function: Callable[[Any], Any]
    request: Any
    answer: queue.SimpleQueue[tuple[bool, Any]] = field(default_factory=queue.SimpleQueue)
    gave_up: bool = False


def load_python_bot(target: str) -> InProcessBot:
    """Instantiate ``module:Class`` for an in-process bot.

    Anything but a class with the four calls of :class:`InProcessBot` is refused
    here, so that a wrong target (``os:getcwd``) is a clear start error, not a
    failure later.
    """
    module_name, _, class_name = target.partition(":")
    if not module_name or not class_name:
        raise ValueError(f"python bot {target!r} must look like module:Class")
    found = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(found, type)
            and all(callable(getattr(found, call, None)) for call in _IN_PROCESS_CALLS)):
        raise TypeError(f"{target} is not a bot class: name a subclass of bots.sdk.Bot (a class "
                        f"with the methods {', '.join(_IN_PROCESS_CALLS)})")
    bot: InProcessBot = found()
    return bot


class InProcessClient(ViewDecider):
    """An :class:`InProcessBot` called directly: no wire, for fast self-play.

    Calls still run under a deadline (on a worker thread, at most ``MAX_CALLS`` at
    once), and a raised exception is an ``error`` fault, so in-process bots are judged
    like remote ones. A call is handed over on two queues, not a ``ThreadPoolExecutor``'s
    future (its locks and condition cost a third more a call); the workers are daemon
    threads, so a bot hung in one does not hold the referee's exit. A game's decisions
    need no hand-off at all: :class:`referee.match.Match` makes them on a thread of their
    own with :meth:`decide_here`, and watches their deadline. A closed client's idle
    workers wait ``PARKED_S`` for a new client to serve, then end: a ladder's match
    makes four clients (two bots, started afresh before each seat rotation), and a
    thread's start waits for the new thread to run, as long as a quick game's move on a
    busy machine. A decision is handed over as its message, or as a :class:`PlainRequest`
    to a bot that asks for them (:class:`InProcessBot`); StartGame's and EndGame's message
    is built only for a call that is made.
    """

    MAX_CALLS = 4

    def __init__(self, bot: InProcessBot) -> None:
        self.bot = bot
        self.plain = takes_plain_requests(type(bot))
        self.calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.workers = 0
        self.idle = 0   # workers waiting for a call
        self.closed = False
        # Decisions made on a game's own thread still running past their deadline (see
        # referee.match): until they return, every call is handed to a worker, at most
        # MAX_CALLS at once, so a bot that keeps hanging holds no more threads than that.
        self.running_late = 0

    def _call(self, function: Callable[..., Any], request: Any, timeout: float) -> Any:
        call = _Call(function, request)
        with self.lock:
            if self.closed:
                raise BotFault(FaultClass.ERROR, "the bot's client was closed")
            if self.idle:
                self.idle -= 1
            elif self.workers < self.MAX_CALLS:
                self.workers += 1
                run_elsewhere(self._work)
            self.calls.put(call)
        try:
            returned, value = call.answer.get(timeout=timeout)
        except queue.Empty:
            with self.lock:
                call.gave_up = True
            raise BotFault(FaultClass.TIMEOUT, f"no answer within {timeout:.3f}s") from None
        if returned:
            return value
        if not isinstance(value, Exception):   # SystemExit and the like: not the bot's fault
            raise value
        raise _error_fault(value)

    def _work(self) -> None:
        """One worker: calls the bot for each call handed over, until a None."""
        while (call := self.calls.get()) is not None:
            with self.lock:
                if call.gave_up:
                    self.idle += 1
                    continue
            try:
                call.answer.put((True, call.function(call.request)))
            except BaseException as error:  # the bot's own failure, whatever it is
                call.answer.put((False, error))
            with self.lock:
                self.idle += 1

    def _does_nothing(self, name: str) -> bool:
        """Whether the bot's ``name`` is marked ``does_nothing`` (see :class:`InProcessBot`).

        Such a call can neither fail nor hang, so it is skipped rather than
        handed to a thread (two thread wake-ups, the dearest part of a call).
        """
        return getattr(getattr(type(self.bot), name, None), "does_nothing", False) is True

    def hello(self, request: bot_pb2.HelloRequest, timeout: float) -> bot_pb2.HelloResponse:
        return self._call(self.bot.hello, request, timeout)

    def start_game(self, request: bot_pb2.StartGameRequest, timeout: float) -> None:
        if not self._does_nothing("start_game"):
            self._call(self.bot.start_game, request, timeout)

    def decide(self, request: bot_pb2.DecisionRequest | PlainRequest,
               timeout: float) -> bot_pb2.Decision:
        return _decision(request, self._call(self.bot.decide, request, timeout))

    def decide_here(self, request: bot_pb2.DecisionRequest | PlainRequest) -> bot_pb2.Decision:
        """``decide`` on the calling thread, with no deadline of its own: for a caller whose
        time another thread watches, going on without it if the bot hangs
        (:class:`referee.match.Match`). No hand-off to a worker: two thread switches less."""
        if self.closed:
            raise BotFault(FaultClass.ERROR, "the bot's client was closed")
        try:
            index = self.bot.decide(request)
        except Exception as error:   # the bot's own failure (SystemExit and the like go on)
            raise _error_fault(error) from None
        return _decision(request, index)

    def end_game(self, request: bot_pb2.EndGameRequest, timeout: float) -> None:
        if not self._does_nothing("end_game"):
            self._call(self.bot.end_game, request, timeout)

    # The calls of a ViewDecider.
    def prepare(self, view: DecisionView) -> bot_pb2.DecisionRequest | PlainRequest:
        return view.plain() if self.plain else view.message()

    def decide_prepared(self, view: DecisionView, prepared: object,
                        timeout: float) -> bot_pb2.Decision:
        assert isinstance(prepared, (bot_pb2.DecisionRequest, PlainRequest)), "what prepare made"
        return self.decide(prepared, timeout)

    def start_game_view(self, start: GameStart, timeout: float) -> None:
        if not self._does_nothing("start_game"):
            self._call(self.bot.start_game, start.message(), timeout)

    def end_game_view(self, end: GameEnd, seat: int, timeout: float) -> None:
        if not self._does_nothing("end_game"):
            self._call(self.bot.end_game, end.message(seat), timeout)

    def close(self) -> None:
        """Let the idle workers end (one hung in the bot ends with the process)."""
        with self.lock:
            if self.closed:
                return
            self.closed = True
            for _ in range(self.workers):
                self.calls.put(None)


#: How long an idle worker (a closed in-process client's, or one whose game's decisions are
#: done) waits for a new job.
PARKED_S = 1.0
# The inbox of each worker waiting for a new job (its next job is put there).
_parked: list[queue.SimpleQueue[Callable[[], None] | None]] = []
_parked_lock = threading.Lock()


def run_elsewhere(job: Callable[[], None]) -> None:
    """Run ``job`` on a daemon worker thread: an idle one (see :data:`PARKED_S`), else a new
    one. A thread's start waits for the new thread to run, as long as a quick game's move
    on a busy machine; a daemon thread hung in a bot does not hold the referee's exit."""
    with _parked_lock:
        inbox = _parked.pop() if _parked else None
    if inbox is None:
        threading.Thread(target=_serve, args=(job,), daemon=True, name="inproc-bot").start()
    else:
        inbox.put(job)


def _serve(job: Callable[[], None] | None) -> None:
    """A worker's life: a job (a client's calls until it is closed, a game's decisions),
    then the next, for as long as one comes within PARKED_S of the last's end."""
    while job is not None:
        job()
        job = _next_job()


def _next_job() -> Callable[[], None] | None:
    inbox: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
    with _parked_lock:
        _parked.append(inbox)
    try:
        return inbox.get(timeout=PARKED_S)
    except queue.Empty:
        with _parked_lock:
            if inbox in _parked:
                _parked.remove(inbox)
                return None
        return inbox.get()   # hired as it gave up: its job is on the way


def end_idle_workers() -> None:
    """End the idle workers now, not ``PARKED_S`` later: the jobs after this run on threads
    started after it (a profiler that follows the threads it starts then sees them all)."""
    with _parked_lock:
        inboxes = list(_parked)
        _parked.clear()
    for inbox in inboxes:
        inbox.put(None)


def _forget_parked() -> None:
    """In a forked child: its parent's waiting workers are not there."""
    global _parked_lock
    _parked.clear()
    _parked_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_parked)


class WireLog:
    """Another client with every request and reply written to a log, one line each.

    The referee writes it, not the bot, so it shows what really crossed the
    wire even for a bot that logs nothing (like cutechess-cli's ``-debug``).
    A line is ``wire TIME GAME_ID DIRECTION CALL JSON``: ``>`` a request,
    ``<`` a reply, ``!`` a fault instead of a reply; ``-`` for Hello's game.
    """

    def __init__(self, inner: BotClient, path: Path) -> None:
        self.inner = inner
        path.parent.mkdir(parents=True, exist_ok=True)
        # Appending, and one write per line: the bot's own output shares the file.
        self.file = open(path, "a", encoding="utf-8")
        self.lock = threading.Lock()

    def _write(self, game_id: str, direction: str, call: str, body: str) -> None:
        stamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        with self.lock:
            if not self.file.closed:
                self.file.write(f"wire {stamp} {game_id or '-'} {direction} {call} {body}\n")
                self.file.flush()

    def _logged(self, call: str, method: Callable[[Any, float], Any], request: Message,
                timeout: float) -> Any:
        game_id = getattr(request, "game_id", "")
        self._write(game_id, ">", call, as_json(request))
        try:
            reply = method(request, timeout)
        except BotFault as fault:
            self._write(game_id, "!", call, json.dumps({"fault": fault.fault_class,
                                                        "detail": fault.detail}))
            raise
        self._write(game_id, "<", call, as_json(reply) if isinstance(reply, Message) else "{}")
        return reply

    def hello(self, request: bot_pb2.HelloRequest, timeout: float) -> bot_pb2.HelloResponse:
        return self._logged("Hello", self.inner.hello, request, timeout)

    def start_game(self, request: bot_pb2.StartGameRequest, timeout: float) -> None:
        self._logged("StartGame", self.inner.start_game, request, timeout)

    def decide(self, request: bot_pb2.DecisionRequest, timeout: float) -> bot_pb2.Decision:
        return self._logged("Decide", self.inner.decide, request, timeout)

    def end_game(self, request: bot_pb2.EndGameRequest, timeout: float) -> None:
        self._logged("EndGame", self.inner.end_game, request, timeout)

    def close(self) -> None:
        self.inner.close()
        with self.lock:
            self.file.close()


def as_json(message: Message) -> str:
    """A message as one line of JSON, with the .proto's field names.

    ASCII only: a reply's strings are the bot's, and JSON escapes only C0 controls
    itself; ``\\u009b`` (a one-byte CSI) or a bidi override must not reach the
    terminal of whoever reads the log.
    """
    return json.dumps(json_format.MessageToDict(message, preserving_proto_field_name=True),
                      separators=(",", ":"))
