"""A random bot on the stdio transport, with nothing but Python's standard library.

The referee writes one request per line on stdin (JSON, docs/protocol.md "The stdio
transport"); the bot writes one reply per line on stdout, in order, with the request's
request_id. Anything for people goes to stderr, which the referee keeps in the bot's log.
Its choice is seeded by the game and decision, so a replayed game plays the same.

A decision's line is mostly the observation and the events, which a random bot never
looks at: it reads the line's head (its ids) and the legal actions alone, and parses the
whole line only when the head is not the usual one. On a core shared with the referee,
every object a bot builds is paid for again in cache misses (docs/performance.md, 15b).

    command: python bots/stdio/random_bot.py
    transport: stdio
"""

import json
import random
import re
import sys

GAMES = [{"game": "flea-circus"}, {"game": "flohcati"}, {"game": "animal-circus"}]
#: The head of the referee's usual decision line: its request_id, game_id and decision_id
#: (each as its JSON string, kept as it is for the reply).
DECISION_HEAD = re.compile(rb'\{"request_id":("\d+"),"decide":\{"game_id":("[^"\\]*"),'
                           rb'"decision_id":("\d+"),')
LEGAL_ACTIONS = b'"legal_actions":'
#: The reply to a decision; its two ids are JSON strings, as in the request.
DECIDED = b'{"decide": {"decision_id": %s, "action_index": %d}, "request_id": %s}\n'
CHOICE = random.Random()
LIST = json.JSONDecoder()


def choose(game_id, decision_id, count):
    """An index below ``count``, the same for the same game and decision."""
    CHOICE.seed(f"{game_id}/{decision_id}")
    return CHOICE.randrange(count)


def answer(message):
    """The reply to one request: the same case (hello, start_game, decide, end_game)."""
    if "hello" in message:
        return {"hello": {"name": "stdio-random", "version": "1.0",
                          "protocol_version": "1.1.0", "games": GAMES}}
    if "decide" in message:
        request = message["decide"]
        return {"decide": {"decision_id": request["decision_id"],
                           "action_index": choose(request["game_id"], request["decision_id"],
                                                  len(request["legal_actions"]))}}
    if "start_game" in message:
        return {"start_game": {}}
    return {"end_game": {}}


def decision_reply(line):
    """The reply line to a usual decision line, from its head and its legal actions; None
    for any other line."""
    head = DECISION_HEAD.match(line)
    start = line.find(LEGAL_ACTIONS, head.end()) if head is not None else -1
    if start < 0:
        return None
    actions, _ = LIST.raw_decode(line[start + len(LEGAL_ACTIONS):].decode())
    game_id, decision_id = (token[1:-1].decode() for token in head.groups()[1:])
    return DECIDED % (head[3], choose(game_id, decision_id, len(actions)), head[1])


def reply_line(line):
    """The reply line to any request line."""
    reply = decision_reply(line)
    if reply is None:
        message = json.loads(line)
        reply_message = answer(message)
        reply_message["request_id"] = message["request_id"]
        reply = (json.dumps(reply_message) + "\n").encode()
    return reply


def main():
    replies = sys.stdout.buffer
    for line in sys.stdin.buffer:
        replies.write(reply_line(line))
        replies.flush()


if __name__ == "__main__":
    main()
