"""Any bot of the Python SDK (a ``bots.sdk.Bot``) on the stdio transport.

    command: python -m bots.stdio.serve bots.flea_greedy:FleaGreedyBot
    transport: stdio

Each request line is parsed into its protobuf message, so the bot's methods get what
they get over gRPC. There is no error reply on stdio: a handler that fails writes its
traceback to stderr (the bot's log) and ends the process, which the referee sees as a
crash and restarts.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import IO, Any

from google.protobuf import json_format

from bots.sdk import Bot
from circus.v1 import bot_pb2

REQUESTS = {"hello": bot_pb2.HelloRequest, "start_game": bot_pb2.StartGameRequest,
            "decide": bot_pb2.DecisionRequest, "end_game": bot_pb2.EndGameRequest}


def answer(bot: Bot, message: dict[str, Any]) -> dict[str, Any]:
    """The reply line's object to one request line's."""
    case = next(case for case in REQUESTS if case in message)
    request = json_format.ParseDict(message[case], REQUESTS[case](), ignore_unknown_fields=True)
    body: dict[str, Any] = {}
    if case == "hello":
        body = json_format.MessageToDict(bot.hello(request), preserving_proto_field_name=True)
    elif case == "decide":
        body = {"decision_id": str(request.decision_id), "action_index": bot.decide(request)}
    else:
        getattr(bot, case)(request)
    return {"request_id": message["request_id"], case: body}


def serve_stdio(bot: Bot, requests: IO[str] = sys.stdin, replies: IO[str] = sys.stdout) -> None:
    """Answer every request line, in order, until stdin closes."""
    for line in requests:
        replies.write(json.dumps(answer(bot, json.loads(line))) + "\n")
        replies.flush()


def main(argv: list[str]) -> None:
    if len(argv) != 1 or ":" not in argv[0]:
        sys.exit("usage: python -m bots.stdio.serve MODULE:CLASS (a bots.sdk.Bot)")
    module, _, name = argv[0].partition(":")
    serve_stdio(getattr(importlib.import_module(module), name)())


if __name__ == "__main__":
    main(sys.argv[1:])
