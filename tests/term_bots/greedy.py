"""A greedy flea-circus bot on the stdio transport: the play that gains the most loot now."""

import json
import sys

STEAL = 1.5


def top(pile):
    cards = pile.get("cards", [])
    return cards[-1] if cards else None


def value(obs, play):
    card, count = play.get("card", {}), play.get("count", 0)
    loot, earth, piles = obs.get("loot", []), obs.get("earth", 0), obs.get("piles", [])
    others = [(obs.get("seat", 0) + step) % len(loot) for step in range(1, len(loot))]
    kind = card.get("kind")
    if kind == "saucer":
        for other in others:
            mark = top(piles[other]) if other < len(piles) else None
            if mark and mark.get("saucer") == card.get("saucer"):
                return STEAL * min(card.get("value", 0), loot[other])
        return min(card.get("value", 0), earth)
    if kind == "numbers":
        return min(count, earth) + 0.1 * count
    if kind == "recruitment":
        tops = sum(1 for pile in piles if (top(pile) or {}).get("kind") == "recruitment")
        return min(tops + 1, earth)
    if kind == "counterattack":
        return STEAL * min(2, max(loot[other] for other in others))
    return 1.0


def choose(request):
    obs = request["observation"]["flea_circus"]
    actions = [action["payload"]["flea_circus"] for action in request["legal_actions"]]
    if request.get("kind") == "target":
        return max(range(len(actions)),
                   key=lambda i: obs.get("loot", [])[actions[i].get("target", 0)])
    values = [value(obs, action) for action in actions]
    return max(range(len(values)), key=lambda i: (values[i], -i))


def answer(message):
    if "hello" in message:
        return {"hello": {"name": "greedy", "version": "1.0", "protocol_version": "1.1.0",
                          "games": [{"game": "flea-circus"}]}}
    if "decide" in message:
        request = message["decide"]
        return {"decide": {"decision_id": request["decision_id"],
                           "action_index": choose(request)}}
    if "start_game" in message:
        return {"start_game": {}}
    return {"end_game": {}}


for line in sys.stdin:
    message = json.loads(line)
    reply = answer(message)
    reply["request_id"] = message["request_id"]
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
