"""Stdio bots that misbehave on purpose: the fixtures for the stdio transport's faults.

Run as ``python tests/stdio_fault_bots.py MODE [--sleep-ms N]``: standard library only, like
a bot author's. Each mode breaks the transport in one way at decisions; otherwise the bot
plays at random, every game. ``hang`` stops answering at its first decision; ``slow``
answers each decision ``--sleep-ms`` late; ``garbage`` answers a line that is not JSON,
``wrong-id`` another request's id, ``wrong-case`` an EndGame reply, ``out-of-range`` an
action that does not exist, ``oversize`` a 5 MiB line; ``crash`` exits with status 3 at
its 3rd decision, ``close-stdout`` closes its stdout there and lives on; ``chatter``
writes a line to stderr at every decision; ``two-lines`` answers each decision twice;
``stray-line`` prints a debugging line to stdout at its first decision, then answers;
``banner`` prints one before its hello reply; ``no-decision-id`` leaves the decision's id
out of its reply.
``crash-start`` exits with status 3 at its 2nd StartGame, ``crash-end`` at its 1st EndGame
(each count is the process's); ``wrong-version`` says it speaks protocol 2.0.0,
``no-version`` names none.
``fallback`` fails in its decide handler at every decision, writes the traceback to stderr
and answers choice 0, as a bot with a catch-all falls back; ``last-seat`` exits with
status 3 at its first decision in the last seat; ``hog`` holds ``--sleep-ms`` MiB (the
number doubles as the size) from its first decision on.
"""

import json
import os
import random
import sys
import time
import traceback

GAMES = [{"game": "flea-circus"}, {"game": "flohcati"}, {"game": "animal-circus"}]


def send(reply):
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()


def decide(mode, message, count, sleep_ms, last_seat=False):
    request = message["decide"]
    choice = random.Random(f"{request['game_id']}/{request['decision_id']}")
    reply = {"request_id": message["request_id"],
             "decide": {"decision_id": request["decision_id"],
                        "action_index": choice.randrange(len(request["legal_actions"]))}}
    if mode == "hang":
        time.sleep(3600)
    elif mode == "slow":
        time.sleep(sleep_ms / 1000)
    elif mode == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
        return
    elif mode == "wrong-id":
        reply["request_id"] = str(int(message["request_id"]) + 1000)
    elif mode == "no-decision-id":
        del reply["decide"]["decision_id"]
    elif mode == "wrong-case":
        reply = {"request_id": message["request_id"], "end_game": {}}
    elif mode == "out-of-range":
        reply["decide"]["action_index"] = len(request["legal_actions"]) + 5
    elif mode == "oversize":
        reply["padding"] = "x" * (5 * 1024 * 1024)
    elif mode == "crash" and count == 3:
        os._exit(3)
    elif mode == "close-stdout" and count == 3:
        os.close(1)
        time.sleep(3600)
    elif mode == "chatter":
        print(f"thinking about decision {request['decision_id']}", file=sys.stderr, flush=True)
    elif mode == "two-lines":
        send(reply)
    elif mode == "stray-line" and count == 1:
        print("thinking...", flush=True)
    elif mode == "fallback":
        try:
            request["observation"]["no such field"]
        except KeyError:
            traceback.print_exc()
            sys.stderr.flush()
            reply["decide"]["action_index"] = 0
    elif mode == "last-seat" and last_seat:
        os._exit(3)
    elif mode == "hog" and count == 1:
        HELD.append(bytearray(sleep_ms * 1024 * 1024))
    send(reply)


HELD = []


def main():
    mode = sys.argv[1]
    sleep_ms = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--sleep-ms" else 0
    count = 0
    calls = {"start_game": 0, "end_game": 0}
    last_seat = False
    if mode == "banner":
        print("my bot, version 1", flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        if "decide" in message:
            count += 1
            decide(mode, message, count, sleep_ms, last_seat)
            continue
        if "start_game" in message:
            start = message["start_game"]
            last_seat = start.get("seat", 0) == start.get("num_players", 0) - 1
        case = next(key for key in ("hello", "start_game", "end_game") if key in message)
        if case in calls:
            calls[case] += 1
            if (mode, case, calls[case]) in (("crash-start", "start_game", 2),
                                             ("crash-end", "end_game", 1)):
                os._exit(3)
        version = {"wrong-version": "2.0.0", "no-version": ""}.get(mode, "1.1.0")
        body = ({"name": f"stdio-fault-{mode}", "version": "1.0", "protocol_version": version,
                 "games": GAMES} if case == "hello" else {})
        send({"request_id": message["request_id"], case: body})


if __name__ == "__main__":
    main()
