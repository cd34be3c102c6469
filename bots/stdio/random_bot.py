"""A random bot on the stdio transport, with nothing but Python's standard library.

The referee writes one request per line on stdin (JSON, docs/protocol.md "The stdio
transport"); the bot writes one reply per line on stdout, in order, with the request's
request_id. Anything for people goes to stderr, which the referee keeps in the bot's log.
Its choice is seeded by the game and decision, so a replayed game plays the same.

    command: python bots/stdio/random_bot.py
    transport: stdio
"""

import json
import random
import sys

GAMES = [{"game": "flea-circus"}, {"game": "flohcati"}, {"game": "animal-circus"}]


def answer(message):
    """The reply to one request: the same case (hello, start_game, decide, end_game)."""
    if "hello" in message:
        return {"hello": {"name": "stdio-random", "version": "1.0",
                          "protocol_version": "1.1.0", "games": GAMES}}
    if "decide" in message:
        request = message["decide"]
        choice = random.Random(f"{request['game_id']}/{request['decision_id']}")
        return {"decide": {"decision_id": request["decision_id"],
                           "action_index": choice.randrange(len(request["legal_actions"]))}}
    if "start_game" in message:
        return {"start_game": {}}
    return {"end_game": {}}


def main():
    for line in sys.stdin:
        message = json.loads(line)
        reply = answer(message)
        reply["request_id"] = message["request_id"]
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
