"""A bare gRPC unary echo server: the floor any referee call over the wire stands on.

Run as ``python -m bench.echo_server --port N --reply-bytes K``. One unary method,
``/bench.Echo/Call``, takes the request as raw bytes (no parsing) and answers a fixed
reply of ``K`` bytes (a serialized ``Decision`` is a few bytes). Same server set-up as the
Python bot SDK: a thread pool of 8 workers, loopback only.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from concurrent import futures

import grpc

METHOD = "/bench.Echo/Call"


def start(port: int, reply_bytes: int, workers: int = 8) -> grpc.Server:
    reply = b"\x08" * reply_bytes

    def call(request: bytes, context) -> bytes:
        return reply

    handler = grpc.method_handlers_generic_handler(
        "bench.Echo", {"Call": grpc.unary_unary_rpc_method_handler(call)})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers))
    server.add_generic_rpc_handlers((handler,))
    if server.add_insecure_port(f"127.0.0.1:{port}") == 0:
        raise OSError(f"cannot listen on 127.0.0.1:{port}")
    server.start()
    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--reply-bytes", type=int, default=4)
    args = parser.parse_args(argv)
    server = start(args.port, args.reply_bytes)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    print(f"echo listening on 127.0.0.1:{args.port}", file=sys.stderr, flush=True)
    stop.wait()
    server.stop(grace=0.2).wait()


if __name__ == "__main__":
    main()
