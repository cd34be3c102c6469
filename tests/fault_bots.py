"""Bots that misbehave on purpose: the fixtures for the fault rules.

Run as ``python tests/fault_bots.py MODE --address ADDRESS``. Each mode breaks the
protocol in one way; otherwise the bot plays at random, every game. The bot serves unary
calls only, unless ``--stream``: then it announces the Play stream and its faults happen
there (and the stream's own modes, ``wrong-id``, ``wrong-case`` and ``end-stream``, can
be asked for; ``unserved-stream`` announces the stream and answers it UNIMPLEMENTED).
"""

from __future__ import annotations

import argparse
import mmap
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent import futures
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.random_bot import RandomBot  # noqa: E402
from bots.sdk import PROTOCOL_VERSION, _Servicer, listen_address  # noqa: E402
from circus.v1 import bot_pb2, bot_pb2_grpc  # noqa: E402


def oversize_bytes(decision: bot_pb2.Decision) -> bytes:
    """A Decision with an unknown length-delimited field (number 100) of 5 MiB:
    valid protobuf, but over the referee's default 4 MiB message limit."""
    payload = b"x" * (5 * 1024 * 1024)
    length, varint = len(payload), bytearray()
    while True:
        byte, length = length & 0x7F, length >> 7
        varint.append(byte | (0x80 if length else 0))
        if not length:
            break
    return decision.SerializeToString() + b"\xa2\x06" + bytes(varint) + payload


class FaultBot(RandomBot):
    """A random bot with one fault, chosen by ``mode``.

    The ``crash-*`` modes start a helper process first (its pid goes to the
    log as ``helper pid N``) and then exit: ``crash-decide`` at the 7th
    decision of every run, ``crash-start`` in its 2nd StartGame, ``crash-end``
    in its 1st EndGame (with status 3); ``crash-abort`` aborts (SIGABRT) at the 7th
    decision of every run. ``freeze`` stops the whole process at its 1st decision.
    ``exit`` exits at a decision from the 3rd on in seat 0 (in a tournament of 3 bots at a
    table of 3, the config's first bot sits there in game 0 only); ``linger`` then stops serving
    (its connections drop) and exits ``--sleep-ms`` later, as a dying bot may.
    ``two-players`` answers out of range in games of more than two players;
    ``one-game`` fails when asked to decide while another game is under way.
    ``hog`` holds ``--sleep-ms`` MiB more at each decision (RLIMIT_DATA stops it),
    ``shared-hog`` as much shared memory (only a memory cgroup stops it).
    """

    def __init__(self, mode: str, sleep_ms: int, hold: str | None = None) -> None:
        self.mode = mode
        self.sleep_ms = sleep_ms
        self.hold = hold
        self.name = f"fault-{mode}"
        self.calls = {"decide": 0, "start": 0, "end": 0}
        self.players: dict[str, int] = {}
        if mode == "no-game":
            self.games = {}
        if mode.startswith("crash-"):
            helper = subprocess.Popen(["sleep", "3600"])
            print(f"helper pid {helper.pid}", file=sys.stderr, flush=True)

    def _crash_at(self, call: str, mode: str, count: int) -> None:
        self.calls[call] += 1
        if self.mode == mode and self.calls[call] == count:
            os._exit(3)

    def start_game(self, request) -> None:
        self._crash_at("start", "crash-start", 2)
        self.players[request.game_id] = request.num_players

    def end_game(self, request) -> None:
        self._crash_at("end", "crash-end", 1)
        self.players.pop(request.game_id, None)

    def hello(self, request):
        response = super().hello(request)
        if self.mode == "wrong-version":
            response.protocol_version = "2.0.0"
        return response

    def _hold(self) -> None:
        """With ``--hold FILE``: answer no decision while FILE exists (at most a minute), so a
        test can stop a tournament in place whatever the machine's speed."""
        deadline = time.monotonic() + 60
        while self.hold and os.path.exists(self.hold) and time.monotonic() < deadline:
            time.sleep(0.002)

    def decide(self, request) -> int:
        index = super().decide(request)
        self._hold()
        self._crash_at("decide", "crash-decide", 7)
        if self.mode == "crash-abort" and self.calls["decide"] == 7:
            os.abort()
        mode = self.mode
        if mode == "freeze":
            os.kill(os.getpid(), signal.SIGSTOP)
        if mode == "hang":
            time.sleep(3600)
        elif mode == "slow":
            time.sleep(self.sleep_ms / 1000)
        elif mode in ("exit", "linger") and request.seat == 0 and request.decision_id >= 3:
            if mode == "linger":
                self.server.stop(grace=0)
                time.sleep(self.sleep_ms / 1000)
            os._exit(3)
        elif mode == "out-of-range" or (
                mode == "two-players" and self.players.get(request.game_id, 2) > 2):
            return len(request.legal_actions) + 5
        elif mode == "one-game" and len(self.players) > 1:
            raise RuntimeError("a second game while one is under way")
        elif mode == "raise":
            raise RuntimeError("the bot's handler failed")
        elif mode == "hog":
            self.hoard = bytearray(self.sleep_ms * 1024 * 1024)  # --sleep-ms doubles as MiB
        elif mode == "shared-hog":   # shared memory, which RLIMIT_DATA does not count
            size = self.sleep_ms * 1024 * 1024
            shared = mmap.mmap(-1, size, mmap.MAP_SHARED)
            for offset in range(0, size, mmap.PAGESIZE):
                shared[offset] = 1
            self.hoard = shared
        return index


class FaultServicer(_Servicer):
    def decision(self, request):
        decision = super().decision(request)
        if self.bot.mode == "stale":
            decision.decision_id = request.decision_id - 1
        return decision

    def reply(self, message):
        """A stream reply, broken as the mode says: to a decision only."""
        reply = super().reply(message)
        if message.WhichOneof("call") == "decide":
            if self.bot.mode == "wrong-id":
                reply.request_id += 1000
            elif self.bot.mode == "wrong-case":
                reply.start_game.SetInParent()
        return reply

    def Play(self, request_iterator, context):  # noqa: N802
        """The SDK's stream, its replies as bytes: garbage or over-size for a decision,
        or the stream ended at game 0's 3rd decision."""
        for reply in super().Play(request_iterator, context):
            mode, decision = self.bot.mode, reply.decide if reply.HasField("decide") else None
            if decision is None:
                yield reply.SerializeToString()
            elif mode == "garbage":
                yield b"\xff\xff\xff\xff"
            elif mode == "oversize":
                yield oversize_bytes(reply)
            elif mode == "end-stream" and self.bot.calls["decide"] >= 3:
                print("ending the Play stream", file=sys.stderr, flush=True)
                self.bot.mode = "random"   # once
                return
            else:
                yield reply.SerializeToString()


def typed(method, request_type):
    return grpc.unary_unary_rpc_method_handler(
        method, request_deserializer=request_type.FromString,
        response_serializer=lambda message: message.SerializeToString())


def stream_service(bot: FaultBot) -> grpc.GenericRpcHandler:
    """The service with the Play stream's replies sent as raw bytes."""
    servicer = FaultServicer(bot)
    handlers = {
        "Hello": typed(servicer.Hello, bot_pb2.HelloRequest),
        "StartGame": typed(servicer.StartGame, bot_pb2.StartGameRequest),
        "Decide": typed(servicer.Decide, bot_pb2.DecisionRequest),
        "EndGame": typed(servicer.EndGame, bot_pb2.EndGameRequest),
        "Play": grpc.stream_stream_rpc_method_handler(
            servicer.Play, request_deserializer=bot_pb2.RefereeMessage.FromString,
            response_serializer=lambda data: data),
    }
    if bot.mode == "unserved-stream":   # gRPC answers a method with no handler UNIMPLEMENTED
        del handlers["Play"]
    return grpc.method_handlers_generic_handler("circus.v1.Bot", handlers)


def raw_decide_service(bot: FaultBot) -> grpc.GenericRpcHandler:
    """The service with Decide answered as raw bytes: garbage, or an oversize message."""
    servicer = FaultServicer(bot)

    def decide(request, context):
        decision = bot_pb2.Decision(decision_id=request.decision_id,
                                    action_index=bot.decide(request))
        return b"\xff\xff\xff\xff" if bot.mode == "garbage" else oversize_bytes(decision)

    return grpc.method_handlers_generic_handler("circus.v1.Bot", {
        "Hello": typed(servicer.Hello, bot_pb2.HelloRequest),
        "StartGame": typed(servicer.StartGame, bot_pb2.StartGameRequest),
        "EndGame": typed(servicer.EndGame, bot_pb2.EndGameRequest),
        "Decide": grpc.unary_unary_rpc_method_handler(
            decide, request_deserializer=bot_pb2.DecisionRequest.FromString,
            response_serializer=lambda data: data),
    })


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode")
    parser.add_argument("--address", default=None)
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument("--sleep-ms", type=int, default=0)
    parser.add_argument("--hold", default=None, help="a file: no decision while it exists")
    parser.add_argument("--stream", action="store_true", help="serve the Play stream")
    args = parser.parse_args()
    bot = FaultBot(args.mode, args.sleep_ms, args.hold)
    bot.serves_play_stream = args.stream
    if args.mode == "no-port":
        time.sleep(3600)
    options = [("grpc.max_send_message_length", 64 * 1024 * 1024)]
    server = bot.server = grpc.server(futures.ThreadPoolExecutor(max_workers=32),
                                      options=options)
    if args.stream:
        server.add_generic_rpc_handlers((stream_service(bot),))
    elif args.mode in ("garbage", "oversize"):
        server.add_generic_rpc_handlers((raw_decide_service(bot),))
    else:
        bot_pb2_grpc.add_BotServicer_to_server(FaultServicer(bot), server)
    address = listen_address(args.address, args.port)
    server.add_insecure_port(address)
    server.start()
    print(f"fault bot {args.mode} (protocol {PROTOCOL_VERSION}) on {address}",
          file=sys.stderr, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
