"""A request the referee cannot send within ``limits.message_bytes`` is the organiser's
error on every transport (stdio's own test is in test_stdio.py): over gRPC, the library
would fail it as RESOURCE_EXHAUSTED, which the referee charges to the bot as ``illegal``."""

from __future__ import annotations

import pytest

from circus.v1 import bot_pb2
from referee.clients import GrpcClient, RequestTooLarge
from referee.stream import StreamClient

#: No bot listens here: the request must be refused before anything is sent.
NOWHERE = "unix:/nonexistent/circus-bot.sock"


def big_decision() -> bot_pb2.DecisionRequest:
    request = bot_pb2.DecisionRequest(game_id="g" * 400, decision_id=1)
    return request


def test_a_unary_request_over_the_limit_is_refused_before_it_is_sent() -> None:
    client = GrpcClient(NOWHERE, message_bytes=150)
    try:
        with pytest.raises(RequestTooLarge, match=r"over limits.message_bytes \(150\)"):
            client.decide(big_decision(), 1.0)
    finally:
        client.close()


def test_a_play_stream_request_over_the_limit_is_refused_before_it_is_sent() -> None:
    unary = GrpcClient(NOWHERE, message_bytes=150)
    client = StreamClient(unary, note=lambda line: None)
    try:
        with pytest.raises(RequestTooLarge, match="a decide request of"):
            client.decide(big_decision(), 1.0)
    finally:
        client.close()
