"""The Python bot SDK: serving, version check, error reporting."""

from __future__ import annotations

import grpc
import pytest

from bots.random_bot import RandomBot
from bots.sdk import Bot, start_server
from circus.v1 import bot_pb2, bot_pb2_grpc
from referee.process import free_port


class Broken(Bot):
    def decide(self, request):
        raise ValueError("no idea")


@pytest.fixture
def stub_for():
    servers = []

    def make(bot):
        port = free_port()
        servers.append(start_server(bot, port))
        return bot_pb2_grpc.BotStub(grpc.insecure_channel(f"127.0.0.1:{port}"))

    yield make
    for server in servers:
        server.stop(0)


def test_hello_lists_games_and_refuses_another_major_version(stub_for):
    stub = stub_for(RandomBot())
    hello = stub.Hello(bot_pb2.HelloRequest(protocol_version="1.4.0"), timeout=5)
    assert hello.name == "random" and hello.protocol_version.startswith("1.")
    assert {g.game for g in hello.games} == {"flea-circus", "flohcati", "animal-circus"}
    with pytest.raises(grpc.RpcError) as error:
        stub.Hello(bot_pb2.HelloRequest(protocol_version="2.0.0"), timeout=5)
    assert error.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "1.1.0" in error.value.details() and "2.0.0" in error.value.details()


def test_a_failing_handler_reports_its_exception(stub_for):
    stub = stub_for(Broken())
    request = bot_pb2.DecisionRequest(game_id="g", decision_id=1,
                                      legal_actions=[bot_pb2.LegalAction(code="x")])
    with pytest.raises(grpc.RpcError) as error:
        stub.Decide(request, timeout=5)
    assert error.value.code() == grpc.StatusCode.UNKNOWN
    assert error.value.details() == "ValueError: no idea"


def test_random_bot_answers_the_decision_it_was_asked_deterministically(stub_for):
    stub = stub_for(RandomBot())
    request = bot_pb2.DecisionRequest(game_id="g/3", decision_id=7,
                                      legal_actions=[bot_pb2.LegalAction(code=str(i))
                                                     for i in range(10)])
    answers = {stub.Decide(request, timeout=5).action_index for _ in range(5)}
    reply = stub.Decide(request, timeout=5)
    assert reply.decision_id == 7 and len(answers) == 1 and 0 <= reply.action_index < 10


def test_a_bot_given_a_port_in_use_refuses_to_share_it():
    """gRPC binds with SO_REUSEPORT by default: two bots on one port would split the calls."""
    port = free_port()
    first = start_server(RandomBot(), port)
    try:
        with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{port}"):
            start_server(RandomBot(), port)
    finally:
        first.stop(0)
