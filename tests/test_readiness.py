"""A starting bot is ready when its address accepts a connection (referee/participants.py)."""

from __future__ import annotations

import socket
import threading

import pytest

from bots.random_bot import RandomBot
from bots.sdk import start_server
from circus.v1 import bot_pb2
from referee.clients import GrpcClient
from referee.participants import accepts_connections, socket_endpoint
from referee.wire import PROTOCOL_VERSION


@pytest.mark.parametrize("address, endpoint", [
    ("unix:/run/bot/bot.sock", (socket.AF_UNIX, "/run/bot/bot.sock")),
    ("unix:///tmp/b.sock", (socket.AF_UNIX, "/tmp/b.sock")),
    ("127.0.0.1:50051", (socket.AF_INET, ("127.0.0.1", 50051))),
    ("dns:///localhost:7000", (socket.AF_INET, ("localhost", 7000))),
    ("[::1]:50051", (socket.AF_INET6, ("::1", 50051))),
    ("ipv4:127.0.0.2:1,127.0.0.3:2", None),
    ("no-port", None),
])
def test_a_grpc_target_names_the_socket_to_try(address, endpoint):
    assert socket_endpoint(address) == endpoint


def test_a_listening_socket_accepts_and_a_missing_one_does_not(tmp_path):
    path = str(tmp_path / "bot.sock")
    assert not accepts_connections(socket.AF_UNIX, path)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(path)
        assert not accepts_connections(socket.AF_UNIX, path), "bound, not yet listening"
        server.listen()
        accepted = threading.Thread(target=lambda: server.accept()[0].close())
        accepted.start()
        assert accepts_connections(socket.AF_UNIX, path)
        accepted.join(timeout=10)


def _relay(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        sink.close()


def slow_handshake_proxy(listening: socket.socket, target: str, delay_s: float) -> None:
    """Accept one connection and forward it to ``target`` only after ``delay_s``: a bot
    on a loaded machine, whose socket accepts at once but whose server answers late."""
    client, _ = listening.accept()
    threading.Event().wait(delay_s)
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    upstream.connect(target)
    threading.Thread(target=_relay, args=(upstream, client), daemon=True).start()
    _relay(client, upstream)


def test_a_bot_slow_to_finish_its_handshake_is_still_greeted(tmp_path):
    """A connection attempt may take as long as the handshake needs (gRPC's 20 s), not the
    reconnect backoff's few milliseconds: on a loaded machine a bot's server can take a
    second to send its first HTTP/2 frame, and Hello must not fail as UNAVAILABLE then."""
    real, front = str(tmp_path / "real.sock"), str(tmp_path / "front.sock")
    server = start_server(RandomBot(), address=f"unix:{real}")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listening:
            listening.bind(front)
            listening.listen()
            threading.Thread(target=slow_handshake_proxy, args=(listening, real, 1.0),
                             daemon=True).start()
            client = GrpcClient(f"unix:{front}")
            try:
                hello = client.hello(bot_pb2.HelloRequest(protocol_version=PROTOCOL_VERSION),
                                     timeout=60)
            finally:
                client.close()
        assert hello.name == "random"
    finally:
        server.stop(grace=None)
