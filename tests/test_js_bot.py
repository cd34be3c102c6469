"""The Node.js example bot (bots/js) in real tournaments with Python bots.

Every registered game and variant gets a small tournament in which the JS bot,
started through ``command:`` like any other bot, meets two Python bots (in the
referee's process: the JS bot's process is the subject). ``scripts/test`` installs
the bot's packages (``npm ci`` in bots/js) before the suite runs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import check_bot, run_tournament, write_config

from referee.games import GAMES

ROOT = Path(__file__).resolve().parent.parent
JS_BOT = ROOT / "bots" / "js" / "bot.js"
JS_COMMAND = f"node {JS_BOT} --address {{address}}"
# A Python bot made for the game, where the project has one; random otherwise.
SPECIALISTS = {"flea-circus": "bots.flea_greedy:FleaGreedyBot",
               "flohcati": "bots.flohcati_heuristic:FlohcatiHeuristicBot"}

GAME_VARIANTS = [(game.name, variant) for game in GAMES.values() for variant in game.variants]


def require_node_bot() -> None:
    if shutil.which("node") is None:
        pytest.fail("node is not on PATH: the Node.js bot needs Node.js 18 or later")
    if not (ROOT / "bots" / "js" / "node_modules" / "@grpc" / "grpc-js").is_dir():
        pytest.fail("bots/js has no node_modules: run `(cd bots/js && npm ci)` "
                    "(scripts/test does it)")


def test_js_bot_passes_check_bot_in_every_game():
    """Each seat once (check-bot's full rotation of every seat of every count has its own
    test, tests/test_check_bot.py)."""
    require_node_bot()
    result = check_bot("--command", JS_COMMAND, "--rotation", "once")
    assert result.exit_code == 0, result.output
    for game, variant in GAME_VARIANTS:
        assert f"PASS  play {game}/{variant}:" in result.output, result.output
    assert "FAIL" not in result.output


@pytest.mark.parametrize("game,variant", GAME_VARIANTS, ids=[f"{g}-{v}" for g, v in GAME_VARIANTS])
def test_js_bot_plays_with_python_bots(game, variant, tmp_path, bot_processes):
    require_node_bot()
    specialist = SPECIALISTS.get(game, "bots.random_bot:RandomBot")
    # Fresh JS bots each seat rotation in Flea Circus's tournament; one process in the
    # others' (a Node.js start is the dearest of the test's processes).
    renew = game == "flea-circus"
    config = write_config(tmp_path, f"""
        name: js-{game}-{variant}
        game: {game}
        variant: {variant}
        players: 3
        rounds: 1
        seed: 8
        concurrency: 2
        renew_bots: {str(renew).lower()}
        # A loaded machine may be slow to start Node.js and its gRPC packages: a start that
        # overran would be retried, a second process, which this test counts.
        time: {{startup_ms: 120000}}
        bots:
          - name: js
            command: {JS_COMMAND}
          - name: python-random
            python: bots.random_bot:RandomBot
          - name: python-other
            python: {specialist}
        """)
    summary, store, output = run_tournament(config, tmp_path)
    name = f"js-{game}-{variant}"
    games = store.games(name)
    assert summary.played == len(games) == 3  # one table, three seat rotations
    assert all(g.status == "finished" and g.game == game and g.variant == variant for g in games)
    assert all("js" in g.seats for g in games)
    assert [dict(fault) for fault in store.faults(name, "js")] == []
    # The JS bot answered decisions in every game (none was substituted).
    js_seats = [g.seats.index("js") for g in games]
    assert all(any(seat == js for seat, _, _ in g.times) for g, js in zip(games, js_seats))

    log = (tmp_path / "logs" / name / "js.log").read_text()
    assert "listening on unix:" in log
    assert log.count(" end ") == 3  # every EndGame reached it
    assert "rule failed" not in log  # no exception in a rule
    assert "no rule for" not in log  # every decision kind met has a rule of its own
    # One process per seat rotation where bots are renewed, else one; each ended cleanly.
    runs = 3 if renew else 1
    js = [p for p in bot_processes if p.name == "js"]
    assert len(js) == runs and all(p.exit_status() == 0 for p in js), output
    assert log.count("SIGTERM: shutting down") == runs
