"""The arena as its users meet it: served by ``circus-referee arena``, entrants added and
bots submitted from the command line, a kill -9 that loses no accepted submission, the
real gate (check-bot in the sandbox), and a real browser signing in and uploading."""

from __future__ import annotations

import contextlib
import dataclasses

import os
import signal
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from arena_support import (
    CONFIG,
    FAST_HASHER,
    bot_files,
    make_arena,
    make_config,
    stand_in_ladder,
    tar_of,
    wait_for,
    zip_of,
)
from click.testing import CliRunner
from starlette.testclient import TestClient
from conftest import run_tournament, write_config

from arena.app import make_app
from arena.playing import load_ladder
from arena.service import Arena
from arena.store import ArenaStore
from circus_referee.main import main
from referee.process import free_port

CHROMIUM = Path("/usr/bin/chromium")
COMMAND = Path(sys.executable).with_name("circus-referee")
#: A ladder match's games, stored as the ladder stores them.
GAME = """\
name: spring-m000001
game: flea-circus
players: 2
bots:
  - {name: alice.v1, python: "bots.random_bot:RandomBot"}
  - {name: bob.v1, python: "bots.random_bot:RandomBot"}
"""


#: CONFIG with its ladder's matches unsandboxed.
UNSANDBOXED = CONFIG.replace("  match: {time:", "  match: {sandbox: false, time:")


class Server:
    """``circus-referee arena`` in its own process, on a free port."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Server:
        self.process = subprocess.Popen(
            [str(COMMAND), "arena", str(self.folder / "arena.yaml"), "--port", str(self.port)],
            cwd=self.folder, stderr=(self.folder / "server.log").open("ab"))
        wait_for(self._answers)
        return self

    def _answers(self) -> bool:
        assert self.process is not None and self.process.poll() is None, \
            (self.folder / "server.log").read_text()
        try:
            with urllib.request.urlopen(self.url, timeout=5) as answer:
                return answer.status == 200
        except OSError:
            return False

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)


@pytest.fixture
def arena_folder(tmp_path) -> Path:
    (tmp_path / "arena.yaml").write_text(CONFIG)
    bot = tmp_path / "mybot"
    bot.mkdir()
    for name, data in bot_files().items():
        (bot / name).write_bytes(data)
    return tmp_path


@pytest.fixture
def server(arena_folder):
    running = Server(arena_folder)
    yield running
    running.stop()


def add_entrant(folder: Path, name: str) -> str:
    """A token made as ``arena add-entrant`` makes one, at argon2's cheapest cost."""
    config = make_config(folder)
    store = ArenaStore(config.db, FAST_HASHER)
    try:
        return store.add_entrant(name)
    finally:
        store.close()


def test_add_entrant_prints_a_token_once_and_refuses_a_name_twice(arena_folder):
    config = ["--config", str(arena_folder / "arena.yaml")]
    added = CliRunner().invoke(main, ["arena", "add-entrant", "dora", *config])
    assert added.exit_code == 0, added.output
    token = added.stdout.strip()
    store = ArenaStore(make_config(arena_folder).db)
    assert store.holder(token).name == "dora"
    again = CliRunner().invoke(main, ["arena", "add-entrant", "dora", *config])
    assert again.exit_code == 2 and "already an entrant 'dora'" in again.output


def test_the_arena_commands_name_the_extra_they_need(arena_folder, monkeypatch):
    monkeypatch.setitem(sys.modules, "arena.serve", None)
    result = CliRunner().invoke(main, ["arena", str(arena_folder / "arena.yaml")])
    assert result.exit_code == 2
    assert "install circus-referee[arena]" in result.output


@pytest.mark.slow
def test_a_submission_survives_a_kill_and_is_gated_after_the_restart(server, arena_folder):
    """Accepted is on disk before the answer: killed at once after it, the service loses
    nothing, and the version's gate (real check-bot, in the sandbox) runs when it is
    back."""
    token = add_entrant(arena_folder, "erin")
    server.start()
    sent = CliRunner().invoke(main, ["submit", server.url, str(arena_folder / "mybot"),
                                     "--token", token])
    assert sent.exit_code == 0, sent.output
    assert '"version": "erin.v1"' in sent.stdout
    server.kill()
    store = ArenaStore(make_config(arena_folder).db, FAST_HASHER)
    version = store.version("erin.v1")
    assert version is not None and (version.folder / "bot.py").read_bytes() == \
        bot_files()["bot.py"]
    server.start()
    gated = wait_for(lambda: store.gate("erin.v1"), timeout=240)
    assert gated.passed, gated.lines
    assert any(line.startswith("PASS") for line in gated.lines)


def test_submit_says_why_an_upload_was_refused_in_one_line(in_process, arena_folder):
    """The client's messages: the service in the test's process will do."""
    _, url = in_process
    refused = CliRunner().invoke(main, ["submit", url, str(arena_folder / "mybot"),
                                        "--token", "nobody_nothing"])
    assert refused.exit_code == 2 and refused.output.strip() == "error: not stored: unknown token"
    (arena_folder / "mybot" / "entrant.yaml").unlink()
    missing = CliRunner().invoke(main, ["submit", url, str(arena_folder / "mybot"),
                                        "--token", "x"])
    assert missing.exit_code == 2 and "no entrant.yaml" in missing.output


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="no Chromium at /usr/bin/chromium "
                    "(Debian's chromium package; scripts/install-system-packages installs it)")
def test_in_a_browser_an_entrant_uploads_and_sees_its_gate_and_no_other_does(arena_folder,
                                                                            new_page):
    """The real gate, the service in the test's process (the kill test starts its own),
    the stand-in ladder: no match is played with one entrant, nor is it the subject."""
    token, gil = add_entrant(arena_folder, "fran"), add_entrant(arena_folder, "gil")
    archive = arena_folder / "bot.tar.gz"
    archive.write_bytes(tar_of(bot_files()))
    with serving(Arena(make_config(arena_folder), ladder=stand_in_ladder())) as url:
        page = new_page()
        page.goto(url + "signin")
        page.fill("input[name=token]", token)
        page.click("button[type=submit]")
        page.wait_for_url("**/me")
        page.set_input_files("input[name=archive]", str(archive))
        page.click("form[action='/me/upload'] button")
        page.wait_for_selector("#message")
        assert "stored as fran.v1" in page.inner_text("#message")
        # The gate ends while the page is open: the row turns without a reload.
        page.wait_for_selector("#versions tr.passed", timeout=240_000)
        page.click("#versions a:has-text('fran.v1')")
        assert "PASS" in page.inner_text("pre.lines")
        # Another entrant, in a browser context of their own, finds no such page.
        other = new_page()
        other.goto(url + "signin")
        other.fill("input[name=token]", gil)
        other.click("button[type=submit]")
        other.wait_for_url("**/me")
        answer = other.goto(url + "me/versions/fran.v1")
        assert answer.status == 404 and "PASS" not in other.content()


@pytest.fixture(scope="module")
def chromium():
    """One Chromium for the module's browser tests: a launch costs more CPU than a test."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"])
        yield browser
        browser.close()


@pytest.fixture
def new_page(chromium):
    """Opens pages each in a context of its own (no cookie shared), all closed when the test
    ends, before its server stops."""
    contexts = []

    def open_page():
        contexts.append(chromium.new_context())
        return contexts[-1].new_page()
    yield open_page
    for context in contexts:
        context.close()


@contextlib.contextmanager
def serving(arena: Arena) -> Iterator[str]:
    """``arena`` served by uvicorn in a thread of the test's, at the URL yielded."""
    server = uvicorn.Server(uvicorn.Config(make_app(arena), host="127.0.0.1",
                                           port=free_port(), log_level="warning",
                                           timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run)
    thread.start()
    wait_for(lambda: server.started)
    yield f"http://127.0.0.1:{server.config.port}/"
    server.should_exit = True
    thread.join()


@pytest.fixture
def in_process(tmp_path):
    """An arena with the stand-in ladder, served in the test's process."""
    arena = make_arena(tmp_path)
    with serving(arena) as url:
        yield arena, url


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="no Chromium at /usr/bin/chromium "
                    "(Debian's chromium package; scripts/install-system-packages installs it)")
def test_in_a_browser_the_board_shows_a_finished_game_without_a_reload(in_process, tmp_path,
                                                                       new_page):
    arena, url = in_process
    page = new_page()
    page.goto(url)
    assert "No games yet" in page.inner_text("#board")
    page.evaluate("window.notReloaded = true")
    wait_for(lambda: arena.events.listeners())   # the page's event stream is open
    run_tournament(write_config(tmp_path, GAME), tmp_path, db="results.sqlite")
    arena.events.publish("board")
    page.wait_for_selector("#board a[href^='/games/']")
    assert page.evaluate("window.notReloaded") is True
    # A replay of every card, under the service's policy: the browser replays its record.
    arena.config = dataclasses.replace(arena.config, replays="full")
    game = arena.games.latest(1)[0]
    page.goto(f"{url}games/{game.id}")
    page.wait_for_function("window.replayLoaded && document.documentElement"
                           ".dataset.ready === '1'")
    assert page.evaluate("window.replay.steps") == len(game.actions) + 1
    assert page.eval_on_selector_all("#view option", "(os) => os.length") == len(game.seats) + 1


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="no Chromium at /usr/bin/chromium "
                    "(Debian's chromium package; scripts/install-system-packages installs it)")
def test_in_a_browser_an_entrants_replay_shows_their_own_seat_only(in_process, tmp_path,
                                                                   new_page):
    arena, url = in_process
    token = arena.store.add_entrant("alice")
    arena.store.add_entrant("bob")
    for name in ("alice", "bob"):
        arena.submit(arena.store.entrant(name), zip_of(bot_files(extra=f"# {name}\n")))
    run_tournament(write_config(tmp_path, GAME), tmp_path, db="results.sqlite")
    game = arena.games.latest(1)[0]
    seat = game.seats.index("alice.v1")
    page = new_page()
    page.goto(url + "signin")
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.wait_for_url("**/me")
    page.goto(f"{url}me/games/{game.id}")
    page.wait_for_function("window.replayLoaded && document.documentElement"
                           ".dataset.ready === '1'")
    assert page.eval_on_selector_all("#view option", "(os) => os.map((o) => o.text)") \
        == [f"as seat {seat} saw it (alice.v1)"]
    assert page.evaluate("window.replay.frames.every("
                         "(f) => f.v.filter((v) => v !== null).length === 1)")
    hand = "#table .seat[data-seat='{}'] [data-zone='Hand'] .card"
    assert page.locator(hand.format(seat) + ":not(.back)").count() > 0
    for step in (0, page.evaluate("window.replay.steps") // 2):
        page.evaluate(f"window.replay.go({step})")
        assert page.locator(hand.format(1 - seat)).count() > 0
        assert page.locator(hand.format(1 - seat) + ":not(.back)").count() == 0
    # The public replay: what every seat saw, every hand face down.
    page.goto(f"{url}games/{game.id}")
    page.wait_for_function("document.documentElement.dataset.ready === '1'")
    assert page.eval_on_selector_all("#view option", "(os) => os.map((o) => o.text)") \
        == ["public: what every seat saw"]
    assert page.locator("#table [data-zone='Hand'] .card").count() > 0
    assert page.locator("#table [data-zone='Hand'] .card:not(.back)").count() == 0


def test_no_extra_is_needed_to_submit():
    """The client's module imports no web framework and no argon2."""
    code = ("import sys; import arena.client, circus_referee.main; "
            "print(sorted(m for m in ('starlette', 'uvicorn', 'jinja2', 'argon2') "
            "if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ}).stdout.strip() == "[]"


@pytest.mark.slow
def test_the_real_ladder_plays_the_versions_that_passed_and_the_board_shows_them(tmp_path):
    """The service on the ladder's contract (arena/ladder.py, once it is there): each
    entrant's passed version handed to it, its standings and games on the board. Its
    matches' bots unsandboxed: the sandbox is the gate's subject, not this test's."""
    pytest.importorskip("arena.ladder", reason="no ladder in this install (arena/ladder.py)")
    from arena import views
    config = make_config(tmp_path, UNSANDBOXED)
    assert config.ladder["match"]["sandbox"] is False
    arena = make_arena(tmp_path, UNSANDBOXED, ladder=load_ladder(config.db, config.ladder))
    for name, extra in (("kim", ""), ("lou", "# lou\n")):
        arena.store.add_entrant(name)
        arena.submit(arena.store.entrant(name), zip_of(bot_files(extra=extra)))
    with TestClient(make_app(arena)) as client:
        wait_for(lambda: {row["version"] for row in views.standings(arena)[1]
                          if row.get("games")} >= {"kim.v1", "lou.v1"}, timeout=240)
        board = client.get("/").text
    assert '<a href="/bots/kim.v1">kim.v1</a>' in board and "/games/" in board
    assert "The deal sets' verdict on the order: " in board
