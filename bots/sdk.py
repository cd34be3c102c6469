"""The Python bot SDK: write ``decide(request) -> index``, get a gRPC server.

A whole random bot::

    from bots.sdk import Bot, rng_for, serve

    class RandomBot(Bot):
        name = "random"

        def decide(self, request):
            return rng_for(request).randrange(len(request.legal_actions))

    if __name__ == "__main__":
        serve(RandomBot())

Run it with ``python -m mybot --address {address}`` in a ``command:``: the
referee gives the address to listen on (a unix socket in the bot's sandbox) in
place of ``{address}`` and in ``CIRCUS_BOT_ADDRESS``; ``--port`` (or
``CIRCUS_BOT_PORT``) still works for ``sandbox: false``. The same class works
in-process with ``python: mymodule:RandomBot`` in bots.yaml.

The server answers the unary calls and the Play stream (protocol 1.1), and Hello says
so: a referee that speaks 1.1 then sends StartGame, Decide and EndGame over the stream.
Either way the bot's methods run on a pool of worker threads, several games at once.
Why threads and not ``grpc.aio``: measured, an aio server was no faster for either path
(docs/performance.md, "The Play stream, built and profiled"; answering on its loop saves
little of the bot's work, "The Play stream's ceiling, measured"), and a thread
per call keeps one game's slow decision from holding the others' replies. gRPC is imported
by the server (:func:`start_server`), not with this module: a bot the referee calls
in-process never serves, and gRPC's import is a large part of the referee's.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
import queue
import random
import signal
import sys
import threading
import traceback
from concurrent import futures
from typing import TYPE_CHECKING, Any, Iterator, Protocol, Sequence

from google.protobuf.message import Message

from circus.v1 import bot_pb2

if TYPE_CHECKING:   # imported by the server (see the module's docstring)
    import grpc

PROTOCOL_VERSION = "1.1.0"
ALL_GAMES: dict[str, tuple[str, ...]] = {
    "flea-circus": (), "flohcati": (), "animal-circus": (),
}


class Bot:
    """Base class of a bot. Override :meth:`decide`; the rest has defaults.

    ``games`` maps each game the bot plays to the variants it supports (an
    empty tuple: every variant).
    """

    name: str = "bot"
    version: str = "1.0"
    games: dict[str, tuple[str, ...]] = ALL_GAMES
    #: Announce the Play stream in Hello (protocol 1.1): the referee then sends StartGame,
    #: Decide and EndGame over one stream instead of one unary call each. False (or
    #: ``serve``'s ``--no-play-stream``): unary calls only, as with a 1.0 referee.
    serves_play_stream: bool = True
    #: In process (``python:`` in bots.yaml), be handed each decision as the engine's own
    #: values (``referee.clients.PlainRequest``: the same field names, the observation a
    #: dict, the legal actions the engine's) instead of a ``DecisionRequest``, whose
    #: building is most of an in-process decision's cost to the referee. ``decide`` must
    #: take both: over gRPC and in the training environments it still gets the message.
    #: Set it beside the ``decide`` it is true of: a subclass that overrides ``decide``
    #: gets the message unless it sets it again.
    plain_requests: bool = False

    def hello(self, request: bot_pb2.HelloRequest) -> bot_pb2.HelloResponse:
        return bot_pb2.HelloResponse(
            name=self.name, version=self.version, protocol_version=PROTOCOL_VERSION,
            games=[bot_pb2.GameSupport(game=game, variants=variants)
                   for game, variants in self.games.items()],
            serves_play_stream=self.serves_play_stream)

    def start_game(self, request: bot_pb2.StartGameRequest) -> None:
        """Called once per game before its first decision."""

    def decide(self, request: bot_pb2.DecisionRequest) -> int:
        """Return an index into ``request.legal_actions``."""
        raise NotImplementedError

    def end_game(self, request: bot_pb2.EndGameRequest) -> None:
        """Called once per game with the final scores and ranks."""

    # The referee skips a call it knows does nothing (referee.clients.InProcessBot).
    start_game.does_nothing = True  # type: ignore[attr-defined]
    end_game.does_nothing = True  # type: ignore[attr-defined]


class DecisionIds(Protocol):
    """What names a decision: a ``DecisionRequest`` or the referee's plain request."""

    @property
    def game_id(self) -> str: ...

    @property
    def decision_id(self) -> int: ...


def rng_for(request: DecisionIds) -> random.Random:
    """A RNG seeded from the game and decision ids.

    Bots that draw their randomness from here make the same choice for the
    same request, so tournaments of them replay exactly at any concurrency.
    """
    digest = hashlib.sha256(f"{request.game_id}/{request.decision_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _reported(method):
    """Print a failing handler's traceback to stderr (the bot's log) and tell the
    referee what failed, instead of gRPC's bare "Exception calling application"."""
    @functools.wraps(method)
    def handler(self, request, context):
        try:
            return method(self, request, context)
        except Exception as error:  # whatever the bot's code raised
            if context.code() is not None:  # a deliberate context.abort(): pass it on
                raise
            traceback.print_exc()
            import grpc   # imported already, by the server

            context.abort(grpc.StatusCode.UNKNOWN, f"{type(error).__name__}: {error}")
    return handler


class _Servicer:
    """Adapts a :class:`Bot` to the generated gRPC service: the five methods of its
    ``bot_pb2_grpc.BotServicer``, all answered."""

    def __init__(self, bot: Bot, pool: futures.Executor | None = None) -> None:
        self.bot = bot
        # The Play stream's bot calls run here: on the server's own pool, so that calls hung
        # in the bot leave Hello unanswered too, and the referee's health check sees a hung
        # bot as it does over unary calls.
        self.pool = pool or futures.ThreadPoolExecutor(max_workers=8,
                                                       thread_name_prefix="play-stream")

    @_reported
    def Hello(self, request, context):  # noqa: N802 (gRPC method names)
        theirs = request.protocol_version or "(none)"
        if theirs.split(".")[0] != PROTOCOL_VERSION.split(".")[0]:
            import grpc   # imported already, by the server

            context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                          f"the bot speaks protocol {PROTOCOL_VERSION}, the referee {theirs}: "
                          "the major versions differ")
        return self.bot.hello(request)

    @_reported
    def StartGame(self, request, context):  # noqa: N802
        self.bot.start_game(request)
        return bot_pb2.StartGameResponse()

    @_reported
    def Decide(self, request, context):  # noqa: N802
        return self.decision(request)

    @_reported
    def EndGame(self, request, context):  # noqa: N802
        self.bot.end_game(request)
        return bot_pb2.EndGameResponse()

    def decision(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
        """The bot's Decision for ``request``, on either path (unary or the stream)."""
        return bot_pb2.Decision(decision_id=request.decision_id,
                                action_index=self.bot.decide(request))

    def Play(self, request_iterator: Iterator[bot_pb2.RefereeMessage],  # noqa: N802
             context: grpc.ServicerContext) -> Iterator[bot_pb2.BotMessage]:
        """The Play stream: every request answered on a worker thread, each reply sent
        as it is ready (games in flight do not wait for each other)."""
        print(f"{self.bot.name}: the referee opened a Play stream", file=sys.stderr,
              flush=True)
        replies: queue.SimpleQueue[bot_pb2.BotMessage | None] = queue.SimpleQueue()
        threading.Thread(target=self._take, args=(request_iterator, replies), daemon=True,
                         name="play-stream reader").start()
        return iter(replies.get, None)

    def _take(self, requests: Iterator[bot_pb2.RefereeMessage],
              replies: queue.SimpleQueue[bot_pb2.BotMessage | None]) -> None:
        """Read the stream's requests and have each answered; a call the bot marks
        ``does_nothing`` is answered here at once."""
        import grpc   # imported already, by the server

        try:
            for message in requests:
                case = message.WhichOneof("call")
                if case in _ACKNOWLEDGEMENTS and _does_nothing(self.bot, case):
                    replies.put(_bot_message(message.request_id, case, _ACKNOWLEDGEMENTS[case]))
                else:
                    self.pool.submit(self._answer, message, replies)
        except grpc.RpcError:
            pass   # the referee ended the stream
        finally:
            replies.put(None)

    def _answer(self, message: bot_pb2.RefereeMessage,
                replies: queue.SimpleQueue[bot_pb2.BotMessage | None]) -> None:
        replies.put(self.reply(message))

    def reply(self, message: bot_pb2.RefereeMessage) -> bot_pb2.BotMessage:
        """The answer to one request of the Play stream. A handler that fails costs this
        request only: an ``error`` reply, its traceback in the bot's log."""
        case = message.WhichOneof("call")
        body: Message
        try:
            if case == "decide":
                body = self.decision(message.decide)
            elif case == "start_game":
                self.bot.start_game(message.start_game)
                body = bot_pb2.StartGameResponse()
            elif case == "end_game":
                self.bot.end_game(message.end_game)
                body = bot_pb2.EndGameResponse()
            else:   # Hello is a unary call on gRPC
                return bot_pb2.BotMessage(request_id=message.request_id,
                                          error=f"no {case or 'call'} on the Play stream")
        except Exception as error:  # whatever the bot's code raised
            traceback.print_exc()
            return bot_pb2.BotMessage(request_id=message.request_id,
                                      error=f"{type(error).__name__}: {error}")
        return _bot_message(message.request_id, case, body)


def _bot_message(request_id: int, case: str, body: Message) -> bot_pb2.BotMessage:
    """The reply to request ``request_id`` with ``body`` in its field ``case`` (a name known
    only at run time, so the keywords are typed Any)."""
    fields: dict[str, Any] = {case: body}
    return bot_pb2.BotMessage(request_id=request_id, **fields)


# The replies to the stream's calls a bot may mark ``does_nothing`` (its methods are named
# as the cases are): sent at once, without a hand-over to a worker thread.
_ACKNOWLEDGEMENTS = {"start_game": bot_pb2.StartGameResponse(),
                     "end_game": bot_pb2.EndGameResponse()}


def _does_nothing(bot: Bot, method: str) -> bool:
    return getattr(getattr(type(bot), method, None), "does_nothing", False) is True


def start_server(bot: Bot, port: int = 0, host: str = "127.0.0.1", workers: int = 8,
                 address: str | None = None) -> grpc.Server:
    """Start serving ``bot`` on ``address`` (e.g. ``unix:/run/circus/bot.sock``), or on
    ``host:port``, and return the running server.

    The port is not shared (``grpc.so_reuseport`` 0; gRPC shares it by default): a bot
    given a port another process listens on fails here, loudly, instead of splitting the
    referee's calls with that process.
    """
    import grpc

    from circus.v1 import bot_pb2_grpc

    address = address or f"{host}:{port}"
    pool = futures.ThreadPoolExecutor(max_workers=workers)
    server = grpc.server(pool, options=[("grpc.so_reuseport", 0)])
    bot_pb2_grpc.add_BotServicer_to_server(_Servicer(bot, pool), server)
    try:
        server.add_insecure_port(address)
    except RuntimeError as error:
        raise OSError(f"cannot listen on {address}") from error
    server.start()
    return server


def serve(bot: Bot, argv: Sequence[str] | None = None) -> None:
    """Parse ``--address`` or ``--port`` and serve until SIGTERM or SIGINT.

    The order: ``--address``, ``--port``, ``$CIRCUS_BOT_ADDRESS``, ``$CIRCUS_BOT_PORT``.
    """
    parser = argparse.ArgumentParser(description=f"circus-referee bot {bot.name!r}")
    parser.add_argument("--address", default=None,
                        help="gRPC address to listen on, e.g. unix:/run/circus/bot.sock "
                             "(default: $CIRCUS_BOT_ADDRESS)")
    parser.add_argument("--port", type=int, default=None,
                        help="loopback port to listen on (default: $CIRCUS_BOT_PORT)")
    parser.add_argument("--no-play-stream", action="store_true",
                        help="do not announce the Play stream: unary calls only")
    args = parser.parse_args(argv)
    if args.no_play_stream:
        bot.serves_play_stream = False
    address = listen_address(args.address, args.port)
    if address is None:
        parser.error("give --address or --port, or set CIRCUS_BOT_ADDRESS or CIRCUS_BOT_PORT")
    try:
        server = start_server(bot, address=address)
    except OSError as error:
        parser.exit(1, f"{bot.name}: {error}\n")
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    print(f"{bot.name} listening on {address}", file=sys.stderr, flush=True)
    stop.wait()
    server.stop(grace=0.5).wait()


def listen_address(address: str | None, port: int | None) -> str | None:
    """The address to listen on from the options, else from the referee's environment."""
    if address:
        return address
    if port:
        return f"127.0.0.1:{port}"
    if os.environ.get("CIRCUS_BOT_ADDRESS"):
        return os.environ["CIRCUS_BOT_ADDRESS"]
    if os.environ.get("CIRCUS_BOT_PORT"):
        return f"127.0.0.1:{int(os.environ['CIRCUS_BOT_PORT'])}"
    return None
