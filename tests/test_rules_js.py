"""The games' rules in the browser (``pages/static/rules*.js``) against the engines.

A replay page holds only its game's record and the viewer replays it with the JavaScript
port of the rules, so every position it shows must be the Python engine's: these tests
replay random games of every game, variant and table size with both, under node, and
compare every step's state, observations, scores, decision and events.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest

from pages.replays import no_cycle_collection
from referee.games import GAMES, GameRecord, get_game
from referee.replay import Replaying

STATIC = Path(__file__).parent.parent / "pages" / "static"

#: Each record on stdin (a JSON list) replayed by rules.js, a JSON line each: whole (argv
#: "whole"), or as a digest of each frame and one of the rest (a game's frames are
#: megabytes of JSON: parsing them all would take most of the test's time).
NODE_REPLAY = """
const fs = require("fs"), crypto = require("crypto"), folder = process.argv[1];
const rules = require(folder + "/rules.js");
for (const name of fs.readdirSync(folder)) {
  if (/^rules-.*[.]js$/.test(name)) require(folder + "/" + name);
}
// JSON with every object's keys sorted, as Python's json.dumps(sort_keys=True) writes it.
function canonical(value) {
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  if (value !== null && typeof value === "object") {
    return "{" + Object.keys(value).sort()
      .map((key) => JSON.stringify(key) + ":" + canonical(value[key])).join(",") + "}";
  }
  return JSON.stringify(value);
}
const digest = (value) => crypto.createHash("sha1").update(canonical(value)).digest("hex");
for (const r of JSON.parse(fs.readFileSync(0, "utf8"))) {
  let made;
  try {
    made = rules.replay(r.game, r.variant, r.players, r.seed, r.actions);
    if (process.argv[2] !== "whole") {
      made = { frames: made.frames.map(digest),
               rest: digest({ events: made.events, scores: made.scores,
                              endReason: made.endReason }) };
    }
  } catch (error) {
    made = { error: String(error.stack || error) };
  }
  fs.writeSync(1, JSON.stringify(made) + "\\n");   // a line each: one string would overflow
}
"""


def random_record(game: str, variant: str, players: int, seed: int) -> GameRecord:
    """A game of random legal actions, its deal from ``seed``."""
    state = get_game(game).new_state(players, variant, seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply(rng.randrange(len(state.legal_actions())))
    return state.record()


def python_replay(record: GameRecord) -> dict[str, Any]:
    """What rules.js's ``replay`` gives for ``record``, made by the Python engine."""
    with no_cycle_collection():
        replaying = Replaying(record)
        frames = [{"state": frame.state, "observations": frame.observations,
                   "scores": frame.scores, "end": frame.events.stop,
                   "decision": None if frame.decision is None else {
                       "seat": frame.decision.seat, "kind": frame.decision.kind,
                       "prompt": frame.decision.prompt,
                       "actions": [list(action) for action in frame.decision.actions]}}
                  for frame in replaying.frames]
    events = [[event.text, None if event.visible_to is None else sorted(event.visible_to)]
              for event in replaying.events]
    return {"frames": frames, "events": events, "scores": replaying.scores,
            "endReason": replaying.end_reason}


def digest(value: Any) -> str:
    """NODE_REPLAY's digest of a value: of its JSON, keys sorted."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def digests(replayed: dict[str, Any]) -> dict[str, Any]:
    return {"frames": [digest(frame) for frame in replayed["frames"]],
            "rest": digest({key: replayed[key] for key in ("events", "scores", "endReason")})}


def node_replays(records: list[GameRecord], whole: bool = True) -> list[dict[str, Any]]:
    """rules.js's replay of each record, whole or as :func:`digests`."""
    node = shutil.which("node") or pytest.fail("node is not on PATH: the rules are tested under it")
    sent = [{"game": r.game, "variant": r.variant, "players": r.players, "seed": str(r.seed),
             "actions": list(r.actions)} for r in records]
    done = subprocess.run([node, "-e", NODE_REPLAY, str(STATIC), "whole" if whole else "digests"],
                          input=json.dumps(sent), capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def first_difference(made: Any, expected: Any, path: str = "") -> str | None:
    """Where ``made`` first differs from ``expected``, as a path and both values."""
    if isinstance(expected, dict) and isinstance(made, dict):
        for key in sorted(expected.keys() | made.keys()):
            if key not in made or key not in expected:
                return f"{path}.{key}: only in {'Python' if key in expected else 'JavaScript'}"
            found = first_difference(made[key], expected[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(made, list) and len(made) == len(expected):
        for index, (mine, theirs) in enumerate(zip(made, expected)):
            found = first_difference(mine, theirs, f"{path}[{index}]")
            if found:
                return found
        return None
    return None if made == expected else f"{path}: JavaScript {made!r}, Python {expected!r}"


def setups(game_name: str) -> Iterator[tuple[str, int]]:
    game = GAMES[game_name]
    for variant in game.variants:
        for players in range(game.min_players, game.max_players + 1):
            yield variant, players


#: Random games of each variant and table size: one keeps the suite quick (its seed over
#: 2**63: Python seeds from every 32-bit word); ``CIRCUS_RULES_SEEDS=500`` compares
#: thousands, as a port's change should be.
SEEDS = int(os.environ.get("CIRCUS_RULES_SEEDS", "1"))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_browsers_rules_replay_every_game_as_the_engine_does(game):
    """Random games of every variant and table size, step by step."""
    seeds = [2 ** 63 + 5, 1, 2 ** 40 + 7, *range(100, 100 + SEEDS - 3)][:SEEDS]
    records = [random_record(game, variant, players, seed)
               for variant, players in setups(game) for seed in seeds]
    for record, made in zip(records, node_replays(records, whole=False)):
        assert "error" not in made, (record, made.get("error"))
        expected = python_replay(record)
        if made != digests(expected):   # where: the whole replay compared
            difference = first_difference(node_replays([record])[0],
                                          json.loads(json.dumps(expected)))
            assert difference is None, f"{record.variant}, {record.players} players, " \
                                       f"seed {record.seed}: {difference}"


def test_pythons_random_is_drawn_alike():
    """The seeds of every size a store holds deal the same shuffles and choices."""
    script = """
const { PyRandom } = require(process.argv[1] + "/rules.js");
const seeds = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(seeds.map((seed) => {
  const rng = new PyRandom(seed), list = [...Array(60).keys()];
  rng.shuffle(list);
  return [list, rng.choice(list), rng.below(1000003), rng.bits(32)];
})));
"""
    seeds = [0, 1, 7, 2 ** 32, 2 ** 63 + 5, 2 ** 64 - 1, -12]
    node = shutil.which("node") or pytest.fail("node is not on PATH")
    done = subprocess.run([node, "-e", script, str(STATIC)], capture_output=True, text=True,
                          input=json.dumps([str(seed) for seed in seeds]), check=True)
    expected = []
    for seed in seeds:
        rng, cards = random.Random(seed), list(range(60))
        rng.shuffle(cards)
        expected.append([cards, rng.choice(cards), rng._randbelow(1000003),
                         rng.getrandbits(32)])
    assert json.loads(done.stdout) == expected


def test_a_record_the_rules_refuse_is_an_error_naming_its_decision():
    record = random_record("flea-circus", "standard", 2, 3)
    bad = GameRecord(record.game, record.variant, 2, record.seed, (*record.actions[:4], 99))
    (made,) = node_replays([bad])
    assert "decision 5: action index 99 is not between 0 and" in made["error"]
