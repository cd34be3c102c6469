"""A random bot on the stdio transport, with nothing but Python's standard library.

The referee writes one request per line on stdin (JSON, docs/protocol.md "The stdio
transport"); the bot writes one reply per line on stdout, in order, with the request's
request_id. Anything for people goes to stderr, which the referee keeps in the bot's log.
Its choice is seeded by the game and decision, so a replayed game plays the same. Of the
usual decision line it reads the ids and the legal actions alone; any other line whole.

    command: python bots/stdio/random_bot.py
    transport: stdio
"""

import json
import random
import sys

GAMES = [{"game": "flea-circus"}, {"game": "flohcati"}, {"game": "animal-circus"}]
# The usual decision line's head, split at its quotes; "?": the request, game and decision ids.
HEAD = b'{"request_id":"?","decide":{"game_id":"?","decision_id":"?",'.split(b'"')[:14]
CHOICE, DECODER = random.Random(), json.JSONDecoder()


def choose(game_id, decision_id, count):
    CHOICE.seed(f"{game_id}/{decision_id}")
    return CHOICE.randrange(count)


def answer(message):
    """The reply to one request: the same case (hello, start_game, decide, end_game)."""
    if "hello" in message:
        return {"hello": {"name": "stdio-random", "version": "1.0",
                          "protocol_version": "1.1.0", "games": GAMES}}
    if "decide" in message:
        request = message["decide"]
        return {"decide": {"decision_id": request["decision_id"], "action_index": choose(
            request["game_id"], request["decision_id"], len(request["legal_actions"]))}}
    if "start_game" in message:
        return {"start_game": {}}
    return {"end_game": {}}


def reply_line(line):
    """The reply line to a request line (bytes, as both are on the pipes)."""
    head, start = line.split(b'"', 14)[:14], line.find(b'"legal_actions":')
    if (start > 0 and len(head) == 14 and all(want in (b"?", got) for want, got in zip(HEAD, head))
            and head[3].isdigit() and head[13].isdigit() and b"\\" not in head[9]):
        actions = DECODER.raw_decode(line[start + 16:].decode())[0]
        index = choose(head[9].decode(), head[13].decode(), len(actions))
        return b'{"decide": {"decision_id": "%s", "action_index": %d}, "request_id": "%s"}\n' % (
            head[13], index, head[3])
    message = json.loads(line)
    reply = answer(message)
    reply["request_id"] = message["request_id"]
    return (json.dumps(reply) + "\n").encode()


if __name__ == "__main__":
    for request in sys.stdin.buffer:
        sys.stdout.buffer.write(reply_line(request))
        sys.stdout.buffer.flush()
