"""The stdio example bots (bots/stdio): Python, Node.js and Go, standard library only.

Each passes check-bot over stdio in every game, and the three play a sandboxed
tournament together. The Go bot is built with plain ``go build`` (``make -C
bots/stdio``): no module to download, only Debian's golang-go, which ``scripts/test``
installs. Without node or go the test fails, saying what is missing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import assert_no_process_left, check_bot, run_tournament, write_config
from test_cpp_bot import make_once

from referee.games import GAMES

ROOT = Path(__file__).resolve().parent.parent
STDIO = ROOT / "bots" / "stdio"
COMMANDS = {"python": f"python {STDIO / 'random_bot.py'}",
            "node": f"node {STDIO / 'random_bot.js'}",
            "go": str(STDIO / "build" / "stdio-random")}


@pytest.fixture(scope="module")
def go_bot() -> Path:
    if shutil.which("go") is None:
        pytest.fail("go is not on PATH: the Go stdio bot needs Debian's golang-go")
    binary = STDIO / "build" / "stdio-random"
    built = make_once(["make", "-C", str(STDIO)], binary)
    assert built.returncode == 0, built.stdout + built.stderr
    return binary


@pytest.fixture
def toolchains(go_bot) -> None:
    if shutil.which("node") is None:
        pytest.fail("node is not on PATH: the Node.js stdio bot needs Node.js 18 or later")


@pytest.mark.parametrize("language", sorted(COMMANDS))
def test_each_stdio_example_passes_check_bot_in_every_game(toolchains, language):
    """Each seat once (check-bot's full rotation of every seat of every count has its own
    test, tests/test_check_bot.py)."""
    result = check_bot("--command", COMMANDS[language], "--transport", "stdio", "--rotation",
                       "once", cwd=ROOT)
    assert result.exit_code == 0, result.output
    for game in GAMES.values():
        for variant in game.variants:
            assert f"PASS  play {game.name}/{variant}" in result.output, result.output


def test_the_three_stdio_examples_play_a_sandboxed_tournament(tmp_path, started, toolchains):
    bots = "\n".join(f"  - {{name: {language}, command: \"{command}\", transport: stdio}}"
                     for language, command in sorted(COMMANDS.items()))
    path = write_config(tmp_path, f"""
name: three
game: animal-circus
players: 3
rounds: 2
seed: 5
concurrency: 2
renew_bots: false   # their games are the subject: a process per game at once, not per rotation
bots:
{bots}
""")
    summary, store, out = run_tournament(path, tmp_path)
    games = store.games("three")
    assert summary.played == len(games) == 6 and not list(store.faults("three"))
    assert all(game.status == "finished" for game in games)
    assert {identity[0] for identity in store.identities("three").values()} == {
        "stdio-random", "stdio-random-js", "stdio-random-go"}
    assert_no_process_left(started)
