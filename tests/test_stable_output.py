"""One config gives the same bytes, whatever order its games finished in.

Concurrent games finish in an order set by timing. Two runs of one config here are made to
finish in different orders (one bot is slow in the first, another in the second), and the
JSON outputs that hold no timings must still be byte-identical.
"""

from __future__ import annotations

import json
import time

from click.testing import CliRunner

from bots.flea_greedy import FleaGreedyBot
from bots.random_bot import RandomBot
from circus_referee.main import main

CONFIG = """
name: stable
game: flea-circus
players: 2
rounds: 2
seed: 5
concurrency: 2
secret_deals: false
bots:
  - {name: random, python: "test_stable_output:Random"}
  - {name: greedy, python: "test_stable_output:Greedy"}
  - {name: dawdler, python: "test_stable_output:Dawdler"}
"""


class Lingering:
    """A bot that takes 20 ms a decision when its class is the one named ``slow``: two runs
    that slow different bots finish their games in different orders."""

    slow = ""

    def decide(self, request):
        if type(self).__name__ == Lingering.slow:
            time.sleep(0.02)
        return super().decide(request)


class Random(Lingering, RandomBot):
    pass


class Greedy(Lingering, FleaGreedyBot):
    pass


class Dawdler(Lingering, RandomBot):
    name = "dawdler"


def ok(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def run(folder, slow: str) -> dict[str, str]:
    Lingering.slow = slow
    folder.mkdir()
    (folder / "stable.yaml").write_text(CONFIG)
    db = str(folder / "r.sqlite")
    ok("tournament", str(folder / "stable.yaml"), "--db", db, "--logs", str(folder / "logs"), "-q")
    played = json.loads(ok("played", "--db", db, "--format", "json"))
    by_finish = sorted(played, key=lambda row: row["id"])   # ids are given as games are stored
    outputs = {"finish order": str([row["index"] for row in by_finish])}
    for name, args in (("leaderboard", ["leaderboard", "--format", "json", "--h2h", "--los",
                                        "--seats"]),
                       ("faults", ["faults", "--format", "json"])):
        outputs[name] = ok(*args, "--db", db)
    return outputs


def test_two_runs_of_one_config_give_the_same_bytes(tmp_path):
    first, second = run(tmp_path / "a", "Dawdler"), run(tmp_path / "b", "Greedy")
    assert first["finish order"] != second["finish order"], "the runs did not differ in timing"
    for name in ("leaderboard", "faults"):
        assert first[name] == second[name], f"{name} differs between the runs"

