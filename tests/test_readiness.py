"""A starting bot is ready when its address accepts a connection (referee/participants.py)."""

from __future__ import annotations

import socket
import threading

import pytest

from referee.participants import accepts_connections, socket_endpoint


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
