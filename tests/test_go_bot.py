"""The Go example bot (bots/go): built offline from Debian's packages, checked, and played.

The bot is built once per session with ``make -C bots/go`` (GOPATH mode against
Debian's /usr/share/gocode, no module proxy: the recipe of docs/protocol.md's Go
section), and its Go unit tests run with ``make -C bots/go test``. It needs
Debian's golang-go, protoc-gen-go, protoc-gen-go-grpc, golang-google-grpc-dev,
golang-google-protobuf-dev and golang-github-golang-protobuf-1-5-dev, which
``scripts/test`` installs (scripts/install-system-packages). Without them the
tests are skipped on a workstation and fail in CI.

The bot plays the Node.js bot's rules, ported move for move, so the margins over
the random bot are those of tests/test_cpp_bot.py (the same deals give the same
games). Its binary lives in bots/go/build, the bot's own folder: the sandbox shows a
bot the program its command names and its dir:, not the rest of the host's folders.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import Result
from conftest import check_bot
from test_cpp_bot import (
    LISTEN_WAYS,
    assert_beats_random_without_faults,
    assert_listens_where_told_and_exits_on_sigterm,
    hello,
    make_once,
)

from referee import process
from referee.games import GAMES

# The session's first test builds the bot (a cold Go build took 2 min 20 s under load): more
# than the suite's default 300 s a test, so a slow machine does not fail what a fast one passes.
pytestmark = pytest.mark.timeout(1200)

ROOT = Path(__file__).resolve().parent.parent
GO_DIR = ROOT / "bots" / "go"
BINARY = GO_DIR / "build" / "go-rules"
TOOLS = ("make", "go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc")
DEBIAN_GO = Path("/usr/share/gocode/src")
GO_SOURCES = ("google.golang.org/grpc", "google.golang.org/protobuf", "github.com/golang/protobuf")

GAME_VARIANTS = [(game.name, variant) for game in GAMES.values() for variant in game.variants]

pytestmark = pytest.mark.slow


def missing_toolchain() -> str | None:
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    missing += [str(DEBIAN_GO / source) for source in GO_SOURCES
                if not (DEBIAN_GO / source).is_dir()]
    return "missing: " + ", ".join(missing) if missing else None


def make(*arguments: str, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "-C", str(GO_DIR), *arguments], capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="session")
def go_bot() -> Path:
    """The built bot's binary; built (or brought up to date) once per session."""
    problem = missing_toolchain()
    if problem:
        message = (f"the Go bot's toolchain is missing ({problem}): "
                   "run scripts/install-system-packages")
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(message)
        pytest.skip(message)
    result = make_once(["make", "-C", str(GO_DIR)], BINARY)
    assert result.returncode == 0, result.stdout + result.stderr
    assert BINARY.is_file()
    return BINARY


def test_go_unit_tests_pass(go_bot):
    """A panicking handler answers INTERNAL (an error fault), not a crash; unix: listens."""
    result = make("test")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok " in result.stdout


def test_the_build_refuses_golang_protobuf_1_3(go_bot, tmp_path):
    """The Debian trap: with protobuf 1.3 in GOPATH the bot would build, then panic."""
    old = tmp_path / "src" / "github.com" / "golang" / "protobuf" / "proto"
    old.mkdir(parents=True)
    (old / "proto.go").write_text('package proto\n\nimport (\n\t"fmt"\n\t"reflect"\n)\n')
    result = make("check-protobuf", f"DEBIAN_GO={tmp_path}")
    assert result.returncode != 0
    assert "golang/protobuf 1.3" in result.stderr
    assert "golang-github-golang-protobuf-1-5-dev" in result.stderr
    assert make("check-protobuf").returncode == 0  # the installed one is 1.5


@pytest.fixture(scope="module")
def checked_from_tmp(go_bot, tmp_path_factory) -> tuple[Path, Result]:
    """check-bot of a copy of the bot in the host's /tmp, each seat of every game once: the
    two tests below read it."""
    copy = tmp_path_factory.mktemp("go-copy") / "go-rules"
    shutil.copy2(go_bot, copy)
    return copy, check_bot("--command", str(copy), "--rotation", "once")


def test_go_bot_passes_check_bot_in_every_game(checked_from_tmp):
    """Each seat once (check-bot's full rotation of every seat of every count has its own
    test, tests/test_check_bot.py)."""
    _, result = checked_from_tmp
    assert result.exit_code == 0, result.output
    assert "FAIL" not in result.output
    for game, variant in GAME_VARIANTS:
        assert f"PASS  play {game}/{variant}:" in result.output, result.output


@pytest.mark.parametrize("how", LISTEN_WAYS)
def test_go_bot_listens_where_told_and_exits_cleanly_on_sigterm(go_bot, tmp_path, how):
    assert_listens_where_told_and_exits_on_sigterm(go_bot, "go-rules", tmp_path, how)


def test_go_bot_refuses_a_taken_port(go_bot):
    port = process.free_port()
    first = subprocess.Popen([str(go_bot), "--port", str(port)], stdin=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        hello(f"127.0.0.1:{port}")
        second = subprocess.run([str(go_bot), "--port", str(port)], capture_output=True,
                                text=True, timeout=30)
        assert second.returncode != 0
        assert f"cannot listen on 127.0.0.1:{port}" in second.stderr
    finally:
        first.kill()
        first.wait()


# Two-player tournaments against the random bot (in-process: only the Go bot is a
# separate process). The rules are the C++ and Node.js bots', so are the margins
# (tests/test_cpp_bot.py gives the measurements).
@pytest.mark.parametrize("game,variant", GAME_VARIANTS, ids=[f"{g}-{v}" for g, v in GAME_VARIANTS])
def test_go_bot_beats_random_without_faults(go_bot, game, variant, tmp_path, bot_processes):
    assert_beats_random_without_faults(go_bot, "go", game, variant, tmp_path, bot_processes,
                                       ("panic", "no rule for"))


def protocol_doc_block(language: str, first_line: str) -> str:
    """The fenced ``language`` block of docs/protocol.md whose first line starts so."""
    text = (ROOT / "docs" / "protocol.md").read_text()
    for block in re.findall(rf"```{language}\n(.*?)```", text, re.DOTALL):
        if block.startswith(first_line):
            return block
    raise AssertionError(f"docs/protocol.md has no {language} block starting {first_line!r}")


def test_the_go_recipe_and_skeleton_of_the_docs_build_a_bot_that_passes_check_bot(go_bot):
    """docs/protocol.md's Go section, as written: the offline recipe builds the skeleton,
    in a folder the sandbox shows (bots/go/build, as a bot's own folder would be)."""
    folder = GO_DIR / "build" / "skeleton"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "main.go").write_text(protocol_doc_block("go", "// mybot: a minimal"))
    recipe = protocol_doc_block("sh", "BOT=mybot ")
    recipe = recipe.replace("BOT=mybot ", f"BOT={folder.relative_to(ROOT)} ", 1)
    env = dict(os.environ, GOCACHE=str(GO_DIR / "build" / "cache"))  # the Makefile's, warm
    built = subprocess.run(["bash", "-euo", "pipefail", "-c", recipe], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stdout + built.stderr
    result = check_bot("--command", str(folder / "build" / "mybot"), "--rotation", "once")
    assert result.exit_code == 0, result.output
    assert "PASS  handshake: mybot 0.1, protocol 1.0.0" in result.output
    for game, variant in GAME_VARIANTS:
        assert f"PASS  play {game}/{variant}:" in result.output, result.output


def test_a_binary_named_by_its_command_runs_wherever_it_lives(checked_from_tmp):
    """What docs/protocol.md says of where a compiled bot may live: the sandbox shows the
    program its command names, even from the host's /tmp (which it otherwise never shows)."""
    copy, result = checked_from_tmp
    assert str(copy).startswith("/tmp/")
    assert result.exit_code == 0, result.output
    assert "PASS  handshake" in result.output, result.output
