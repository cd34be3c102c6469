"""A bare gRPC echo server: the floor any referee call over the wire stands on.

Run as ``python -m bench.echo_server --port N --reply-bytes K`` (or ``--address
unix:/path``). One unary method, ``/bench.Echo/Call``, takes the request as raw bytes (no
parsing) and answers a fixed reply of ``K`` bytes (a serialized ``Decision`` is a few
bytes); ``/bench.Echo/Play`` does the same for each message of a bidirectional stream.
By default the server is the Python bot SDK's (a thread pool of 8 workers); ``--aio`` serves
on ``grpc.aio`` instead, for the transport benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from concurrent import futures

import grpc

METHOD = "/bench.Echo/Call"
STREAM_METHOD = "/bench.Echo/Play"


def _handlers(reply: bytes, aio: bool) -> grpc.GenericRpcHandler:
    def call(request: bytes, context: object) -> bytes:
        return reply

    async def call_aio(request: bytes, context: object) -> bytes:
        return reply

    def play(requests: Iterator[bytes], context: object) -> Iterator[bytes]:
        for _ in requests:
            yield reply

    async def play_aio(requests: AsyncIterator[bytes], context: object) -> AsyncIterator[bytes]:
        async for _ in requests:
            yield reply
    return grpc.method_handlers_generic_handler("bench.Echo", {
        "Call": grpc.unary_unary_rpc_method_handler(call_aio if aio else call),
        "Play": grpc.stream_stream_rpc_method_handler(play_aio if aio else play)})


def echo_call(channel: grpc.Channel) -> grpc.UnaryUnaryMultiCallable[bytes, bytes]:
    """The echo's unary method on ``channel``: raw bytes both ways."""
    return channel.unary_unary(METHOD)


def start(port: int, reply_bytes: int, workers: int = 8, address: str | None = None
          ) -> grpc.Server:
    """A synchronous echo server on ``address`` (default loopback ``port``), started."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers))
    server.add_generic_rpc_handlers((_handlers(b"\x08" * reply_bytes, aio=False),))
    address = address or f"127.0.0.1:{port}"
    if server.add_insecure_port(address) == 0:
        raise OSError(f"cannot listen on {address}")
    server.start()
    return server


async def serve_aio(address: str, reply_bytes: int) -> None:
    """The same echo on ``grpc.aio``, until SIGTERM or SIGINT."""
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((_handlers(b"\x08" * reply_bytes, aio=True),))
    if server.add_insecure_port(address) == 0:
        raise OSError(f"cannot listen on {address}")
    await server.start()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    await stop.wait()
    await server.stop(0.2)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", type=int, help="listen on 127.0.0.1:PORT")
    where.add_argument("--address", help="listen here, e.g. unix:/tmp/echo.sock")
    parser.add_argument("--reply-bytes", type=int, default=4)
    parser.add_argument("--aio", action="store_true", help="serve on grpc.aio")
    args = parser.parse_args(argv)
    address = args.address or f"127.0.0.1:{args.port}"
    print(f"echo listening on {address}", file=sys.stderr, flush=True)
    if args.aio:
        asyncio.run(serve_aio(address, args.reply_bytes))
        return
    server = start(args.port, args.reply_bytes, address=address)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    stop.wait()
    server.stop(grace=0.2).wait()


if __name__ == "__main__":
    main()
