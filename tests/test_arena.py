"""The arena's pages and API through Starlette's TestClient: signing in, uploading from
the form and the API, the gate's result on the entrant's page, CSRF, rate limits, and
every route tried with a second entrant's token."""

from __future__ import annotations

import asyncio
import html
import logging
import re
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from arena_support import (
    CONFIG,
    FAST_HASHER,
    StandInLadder,
    bot_files,
    make_arena,
    make_config,
    stand_in_gate,
    tar_of,
    wait_for,
    zip_of,
)
from conftest import run_tournament, write_config
from starlette.datastructures import UploadFile
from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from arena import views
from arena.app import make_app
from arena.events import Coalesced, Events
from arena.playing import LadderHook, LadderThread
from arena.security import CHECKS_PER_KEY, SESSION_COOKIE, client_of
from arena.store import ArenaStore, Gate, now
from ratings.collusion import ALPHA, PairCollusion, checked
from tournaments.config import ConfigError
from tournaments.store import Store

GAMES_CONFIG = """\
name: spring-m000001
game: flea-circus
players: 2
seed: 3
bots:
  - name: alice.v1
    python: bots.random_bot:RandomBot
  - name: bob.v1
    python: bots.random_bot:RandomBot
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """An arena with alice (one version passed, one failed), bob (one passed), an
    organiser, and two ladder games between alice.v1 and bob.v1 in its store."""
    folder = tmp_path_factory.mktemp("arena")
    arena = make_arena(folder, CONFIG.replace("uploads_per_hour: 5", "uploads_per_hour: 50"))
    tokens = {name: arena.store.add_entrant(name) for name in ("alice", "bob")}
    tokens["olga"] = arena.store.add_entrant("olga", role="organiser")
    with TestClient(make_app(arena)) as client:
        for name, extra, command in (("alice", "", "python bot.py"),
                                     ("alice", "# 2\n", "python bot.py --fail"),
                                     ("bob", "", "python bot.py")):
            answer = client.post("/api/versions", content=zip_of(bot_files(
                command=command, extra=extra)), headers=bearer(tokens[name]))
            assert answer.status_code == 201, answer.text
        wait_for(lambda: not arena.store.queued())
        # A gate's end is stored before its version's code is compared: the last one's too.
        wait_for(lambda: {("bob.v1", "alice.v1"), ("bob.v1", "alice.v2")} <= {
            (like.version, like.other) for like in arena.store.alike(0.0)})
        run_tournament(write_config(folder, GAMES_CONFIG), folder, db="results.sqlite")
        # Another tournament's games in the same file are none of the arena's.
        run_tournament(write_config(folder, GAMES_CONFIG.replace("spring", "autumn"),
                                    "autumn.yaml"), folder, db="results.sqlite")
        # The board lists the entries once the ladder's thread was given them.
        wait_for(lambda: arena.ladder.standings())
        yield arena, client, tokens


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def signed_in(arena, token: str, app=None) -> TestClient:
    """A second browser, signed in with ``token`` through the form (of ``app``, or of an
    app of its own)."""
    client = TestClient(app or make_app(arena))
    answer = client.post("/signin", data={"token": token, "csrf": csrf_of(client, "/signin")},
                         follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return client


def csrf_of(client: TestClient, path: str) -> str:
    page = client.get(path)
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)


def test_the_board_shows_the_ladders_standings_and_games_with_replays(served):
    arena, client, _tokens = served
    page = client.get("/")
    assert page.status_code == 200
    assert "alice.v1" in page.text and "20.1 .. 29.9" in page.text   # 25 ± 1.96 × 2.5
    assert '<a href="/bots/alice.v1">alice.v1</a></td><td>alice</td>' in page.text
    assert "<td>0</td><td>no</td><td></td><td></td></tr>" in page.text   # games, settled
    game = arena.games.latest(1)[0]
    assert f'href="/games/{game.id}"' in page.text
    replay = client.get(f"/games/{game.id}")
    assert replay.status_code == 200 and '<script src="/static/viewer.js">' in replay.text
    policy = replay.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src" not in policy   # no inline script
    assert "function" in client.get("/static/viewer.js").text   # the one viewer, served


def test_the_board_is_made_once_per_change_of_it_whoever_asks(served, monkeypatch):
    """Counted while no ladder match ends: the ladder plays on in the background, and a
    match it ends is a change of the board too (on a slow machine, one ends mid-test)."""
    arena, client, tokens = served
    made: list[int] = []
    board = views.board
    monkeypatch.setattr(views, "board", lambda served: made.append(1) or board(served))
    own_thread = threading.current_thread()
    elsewhere: list[tuple[str, ...]] = []
    publish = arena.events.publish

    def watched(*names: str) -> None:
        if "board" in names and threading.current_thread() is not own_thread:
            elsewhere.append(names)
        publish(*names)

    monkeypatch.setattr(arena.events, "publish", watched)
    bob = signed_in(arena, tokens["bob"], client.app)
    for _attempt in range(5):
        made.clear()
        elsewhere.clear()
        arena.events.publish("board")
        part = client.get("/board").text
        shown = [part in client.get("/").text, part in bob.get("/").text]
        once = len(made)
        arena.events.publish("versions")   # not the board's
        unchanged = client.get("/board").text == part and len(made) == once
        arena.events.publish("board")
        again = client.get("/board").text == part
        twice = len(made)
        if not elsewhere:
            break
    assert not elsewhere, "a ladder match ended during each of five tries"
    assert "alice.v1" in part and all(shown) and "bob" in bob.get("/").text
    assert once == 1 and unchanged and again and twice == 2


def test_a_moved_deadline_tells_the_board_which_shows_it(served, monkeypatch):
    arena, _client, tokens = served
    moved = []
    monkeypatch.setattr(arena.ladder, "set_deadline", moved.append)
    olga = signed_in(arena, tokens["olga"])
    told = arena.events.published("board")
    answer = olga.post("/organiser/deadline", data={
        "deadline": "2030-01-01T00:00:00+00:00", "csrf": csrf_of(olga, "/organiser")})
    assert answer.status_code == 200 and len(moved) == 1
    assert arena.events.published("board") > told


def test_the_games_of_another_tournament_in_the_file_are_not_the_arenas(served):
    arena, client, tokens = served
    other = Store(arena.config.db).latest_games("autumn", 1)[0].id
    assert not Store(arena.config.db).latest_games("spring", 100)[0].tournament.startswith("a")
    assert client.get(f"/games/{other}").status_code == 404
    assert signed_in(arena, tokens["alice"]).get(f"/me/games/{other}").status_code == 404
    assert f"/games/{other}\"" not in client.get("/").text


def test_a_failed_or_unknown_version_has_no_public_page(served):
    _arena, client, _tokens = served
    assert client.get("/bots/alice.v1").status_code == 200
    assert client.get("/bots/alice.v2").status_code == 404
    assert client.get("/bots/nobody.v1").status_code == 404


def test_an_entrant_signs_in_and_sees_its_versions_and_the_gates_result(served):
    arena, _client, tokens = served
    alice = signed_in(arena, tokens["alice"])
    page = alice.get("/me")
    assert 'href="/me/versions/alice.v1"' in page.text
    assert 'href="/me/versions/alice.v2"' in page.text
    assert 'href="/me/versions/bob' not in page.text
    failed = alice.get("/me/versions/alice.v2")
    assert "failed: check-bot: play flea-circus/standard: it failed" in failed.text
    assert "a line of its log" in failed.text


def test_an_upload_through_the_form_is_stored_and_gated(served):
    arena, _client, tokens = served
    alice = signed_in(arena, tokens["alice"])
    archive = tar_of(bot_files(extra="# from the form\n"))
    answer = alice.post("/me/upload", data={"csrf": csrf_of(alice, "/me")},
                        files={"archive": ("bot.tar.gz", archive, "application/gzip")})
    assert answer.status_code == 200 and "stored as alice.v3" in answer.text
    wait_for(lambda: arena.store.version("alice.v3").state == "passed")
    assert "passed" in alice.get("/me/versions/alice.v3").text


def test_a_bad_upload_through_the_form_says_why(served):
    arena, _client, tokens = served
    alice = signed_in(arena, tokens["alice"])
    answer = alice.post("/me/upload", data={"csrf": csrf_of(alice, "/me")},
                        files={"archive": ("bot.zip", b"not an archive", "application/zip")})
    assert "not stored: not a .zip or .tar.gz archive" in answer.text
    assert "not stored" not in alice.get("/me").text   # said once
    assert "send your token" not in alice.get("/me?message=send+your+token").text


@pytest.mark.parametrize("name, said", [("名前", "name '名前' is not allowed"),
                                         ("a" * 5000, "aaaa\u2026")])
def test_a_refusal_quoting_any_name_is_said_and_fits_in_a_cookie(served, name, said):
    """The page's message travels in a cookie: a header of Latin-1, under 4096 bytes."""
    arena, _client, tokens = served
    alice = signed_in(arena, tokens["alice"])
    archive = zip_of({**bot_files(), "entrant.yaml": f"name: {name}\n".encode()})
    answer = alice.post("/me/upload", data={"csrf": csrf_of(alice, "/me")},
                        files={"archive": ("bot.zip", archive, "application/zip")},
                        follow_redirects=False)
    assert answer.status_code == 303 and len(answer.headers["set-cookie"]) < 4096
    assert said in html.unescape(alice.get("/me").text)


def test_an_uploaded_files_spool_is_closed_whatever_the_form_says(served, monkeypatch):
    arena, _client, tokens = served
    alice = signed_in(arena, tokens["alice"])
    closed: list[str | None] = []
    close = UploadFile.close

    async def counted(upload: UploadFile) -> None:
        closed.append(upload.filename)
        await close(upload)

    monkeypatch.setattr(UploadFile, "close", counted)
    for csrf in (csrf_of(alice, "/me"), "0" * 64):
        alice.post("/me/upload", data={"csrf": csrf},
                   files={"archive": ("bot.zip", b"not an archive", "application/zip")})
    assert closed == ["bot.zip", "bot.zip"]


def test_a_form_without_its_csrf_token_is_refused(served):
    arena, _client, tokens = served
    alice = signed_in(arena, tokens["alice"])
    for fields in ({}, {"csrf": "0" * 64}):
        answer = alice.post("/me/upload", data=fields,
                            files={"archive": ("bot.zip", zip_of(bot_files(extra="# csrf\n")),
                                               "application/zip")})
        assert answer.status_code == 403
    stranger = TestClient(make_app(arena))
    assert stranger.post("/signin", data={"token": tokens["alice"]}).status_code == 403
    assert "# csrf" not in "".join(v.entry["command"] for v in arena.store.versions())
    assert not any(v.id == "alice.v4" for v in arena.store.versions())


def test_a_wrong_token_signs_nobody_in(served):
    arena, _client, tokens = served
    client = TestClient(make_app(arena))
    key = tokens["alice"].partition("_")[0]
    answer = client.post("/signin", data={"token": f"{key}_guess",
                                          "csrf": csrf_of(client, "/signin")})
    assert answer.status_code == 403 and "unknown token" in answer.text
    assert client.get("/me", follow_redirects=False).headers["location"] == "/signin"


ODD_TOKENS = ["", "_", "x_", "_x", "nounderscore", "k" * 10_000, "\u00e9_\u00e9",
              "\u202e_x", "a_b_c"]


@pytest.mark.parametrize("token", ODD_TOKENS)
def test_a_token_session_or_invite_code_of_any_shape_is_refused_as_unknown(served, token):
    arena, _client, tokens = served
    client = TestClient(make_app(arena))
    sent = token.encode()   # a header is bytes: UTF-8 as a client may send them
    assert client.get("/api/versions", headers={"Authorization": b"Bearer " + sent}
                      ).status_code == 401
    answer = client.post("/signin", data={"token": token, "csrf": csrf_of(client, "/signin")})
    assert answer.status_code == 403 and "unknown token" in answer.text
    assert client.get("/me", headers={"Cookie": f"{SESSION_COOKIE}=".encode() + sent},
                      follow_redirects=False).headers["location"] == "/signin"
    assert client.get(f"/invite/{token or 'x'}").status_code == 404


def test_a_keys_wrong_secrets_cost_at_most_a_few_argon2_checks_an_hour(tmp_path, monkeypatch):
    """The API limits no address: an entrant sending its own key with wrong secrets would
    make the service spend argon2's time and memory on each."""
    arena = make_arena(tmp_path)
    token = arena.store.add_entrant("carl")
    checked = []
    monkeypatch.setattr(arena.store, "_verified", lambda hashed, secret: checked.append(secret))
    client = TestClient(make_app(arena))
    key = token.partition("_")[0]
    answers = [client.get("/api/versions", headers=bearer(f"{key}_guess{number}"))
               for number in range(CHECKS_PER_KEY + 5)]
    assert {answer.status_code for answer in answers} == {401}
    assert len(checked) == CHECKS_PER_KEY
    for number in range(20):   # keys of no entrant's are not counted, nor kept
        client.get("/api/versions", headers=bearer(f"nokey{number}_guess"))
    assert list(arena.holders.checks.times) == [key]


def test_a_browser_holds_a_session_not_the_token_and_signing_out_ends_it(served):
    arena, _client, tokens = served
    alice = signed_in(arena, tokens["alice"])
    session = alice.cookies[SESSION_COOKIE]
    assert session != tokens["alice"] and tokens["alice"] not in str(alice.cookies)
    copied = TestClient(alice.app, cookies={SESSION_COOKIE: session})
    assert copied.get("/me", follow_redirects=False).status_code == 200
    assert alice.post("/signout", data={"csrf": csrf_of(alice, "/me")},
                      follow_redirects=False).status_code == 303
    assert copied.get("/me", follow_redirects=False).headers["location"] == "/signin"
    assert signed_in(arena, tokens["alice"]).get("/me").status_code == 200   # the token lives
    raw = TestClient(alice.app, cookies={SESSION_COOKIE: tokens["alice"]})
    assert raw.get("/me", follow_redirects=False).headers["location"] == "/signin"


def test_a_session_ends_when_it_expires(served):
    arena, _client, tokens = served
    session = arena.store.open_session("alice", timedelta(seconds=-1))
    late = TestClient(make_app(arena), cookies={SESSION_COOKIE: session})
    assert late.get("/me", follow_redirects=False).headers["location"] == "/signin"
    assert arena.store.session_holder(arena.store.open_session("alice", timedelta(hours=1)))


def test_the_api_says_what_became_of_an_upload(served):
    _arena, client, tokens = served
    again = client.post("/api/versions", content=zip_of(bot_files()),
                        headers=bearer(tokens["bob"]))
    assert again.status_code == 200 and again.json()["version"] == "bob.v1"
    assert not again.json()["new"]
    bad = client.post("/api/versions", content=b"PK\x03\x04junk", headers=bearer(tokens["bob"]))
    assert bad.status_code == 400 and "corrupt .zip" in bad.json()["error"]
    assert client.post("/api/versions", content=b"x",
                       headers=bearer("nobody_x")).status_code == 401
    assert client.post("/api/versions", content=bytes(6 << 20),
                       headers=bearer(tokens["bob"])).status_code == 413
    listed = [row["version"] for row in
              client.get("/api/versions", headers=bearer(tokens["bob"])).json()]
    assert "bob.v1" in listed and not any(name.startswith("alice") for name in listed)


def test_what_a_kill_left_unpacking_is_gone_when_the_service_starts(tmp_path):
    arena = make_arena(tmp_path)
    left = arena.config.staging_dir / "tmp1234" / "alice"
    left.mkdir(parents=True)
    (left / "bot.py").write_bytes(b"half")
    with TestClient(make_app(arena)):
        assert not arena.config.staging_dir.exists()


def test_uploads_are_rate_limited_per_token(tmp_path):
    arena = make_arena(tmp_path)
    token = arena.store.add_entrant("carl")
    with TestClient(make_app(arena)) as client:
        answers = [client.post("/api/versions", content=b"junk", headers=bearer(token))
                   for _ in range(6)]
    assert [a.status_code for a in answers] == [400] * 5 + [429]


def test_the_organiser_disqualifies_and_reinstates_a_version(served):
    arena, _client, tokens = served
    olga = signed_in(arena, tokens["olga"])
    page = olga.get("/organiser")
    assert "alice.v1" in page.text and "bob.v1" in page.text
    csrf = csrf_of(olga, "/organiser")
    olga.post("/organiser/versions/bob.v1/disqualify", data={"csrf": csrf})
    assert arena.store.version("bob.v1").disqualified
    assert "bob.v1" not in [v.id for v in arena.store.active()]
    olga.post("/organiser/versions/bob.v1/reinstate", data={"csrf": csrf})
    assert not arena.store.version("bob.v1").disqualified
    assert "a line of its log" in olga.get("/me/versions/alice.v2").text
    assert "<th>state</th><td>playing</td>" in page.text
    assert "<th>deadline</th><td>none set</td>" in page.text
    assert not any(word in page.text for word in ("False", "True", "None"))
    olga.post("/organiser/ladder/pause", data={"csrf": csrf})
    paused = olga.get("/organiser").text
    assert arena.ladder.status().paused and "resume the ladder" in paused
    assert "<th>state</th><td>paused</td>" in paused
    olga.post("/organiser/ladder/resume", data={"csrf": csrf})
    assert not arena.ladder.status().paused
    sheet = olga.get("/organiser/grades.csv")
    assert sheet.headers["content-type"].startswith("text/csv")
    assert "bob.v1,bob,first,yes" in sheet.text


def test_the_organiser_sees_which_entrants_code_is_alike_side_by_side(served):
    """alice.v1 and bob.v1 are the same bot; alice.v2 one line more."""
    arena, _client, tokens = served
    olga = signed_in(arena, tokens["olga"])
    page = olga.get("/organiser").text
    assert 'href="/organiser/alike/bob.v1/alice.v1"' in page
    assert 'href="/organiser/alike/bob.v1/alice.v2"' in page
    shown = olga.get("/organiser/alike/bob.v1/alice.v1").text
    assert "100% of bob.v1's code is in alice.v1's" in shown
    assert "def answer(message):" in shown.split("<mark>")[1]
    assert olga.get("/organiser/alike/bob.v1/nobody.v1").status_code == 404


def test_the_organiser_sees_the_ladders_collusion_check_and_its_flagged_pairs(served):
    arena, _client, tokens = served
    olga = signed_in(arena, tokens["olga"])
    assert "collusion: not tested (0 bots: collusion needs four" in olga.get("/organiser").text
    flagged = PairCollusion("alice.v1", "bob.v1", 12, 9, 10, 0.31, 0.28, 30.0, 1e-5, 1e-4, True)
    arena.ladder.pages.collusion = lambda: checked([flagged], ALPHA)
    page = olga.get("/organiser").text
    assert "collusion: FLAGGED alice.v1 &amp; bob.v1 (p 0.0001)" in page
    assert "<td>alice.v1 &amp; bob.v1</td><td>12</td><td>9 / 10</td>" in page


# -- every route with a second entrant's token --------------------------------------

#: Each route with alice's things in it, and what of hers must not reach bob.
PRIVATE = [
    ("GET", "/", "a line of its log"),
    ("GET", "/board", "alice.v2"),
    ("GET", "/bots/alice.v2", "a line of its log"),
    ("GET", "/games/{game}", "a line of its log"),
    ("GET", "/signin", "alice.v"),
    ("GET", "/me/versions/alice.v1", "bot.py"),
    ("GET", "/me/versions/alice.v2", "a line of its log"),
    ("GET", "/me/versions/alice.v1/pack.zip", "replays/"),
    ("GET", "/me/games/{game}", ""),   # his own game too: carl is refused it, below
    ("GET", "/me/games/{game}/log", "== alice.v1"),
    ("GET", "/me", "/me/versions/alice"),
    ("GET", "/me/versions", "/me/versions/alice"),
    ("GET", "/organiser", "alice.v"),
    ("POST", "/organiser/versions/alice.v1/disqualify", ""),
    ("POST", "/organiser/versions/alice.v1/reinstate", ""),
    ("POST", "/organiser/ladder/pause", ""),
    ("GET", "/organiser/alike/alice.v1/bob.v1", "<mark>"),
    ("GET", "/organiser/grades.csv", ",alice,"),
    ("POST", "/organiser/entrants", "token"),
    ("POST", "/organiser/deadline", ""),
    ("POST", "/me/upload", ""),
    ("POST", "/me/webhook", ""),   # his own: test_arena_private tries alice's after it
    ("POST", "/signout", ""),
    ("GET", "/api/versions", "alice.v"),
    ("POST", "/api/versions", "alice.v"),
    ("GET", "/me/test-matches", "alice.v"),
    ("POST", "/me/test-matches", ""),
    ("GET", "/api/test-matches", "alice.v"),
    ("POST", "/api/test-matches", "alice.v"),
    ("POST", "/organiser/invites", "/invite/"),
    ("GET", "/invite/{game}", ""),     # an invite's page is anyone's who holds its code
    ("POST", "/invite/{game}", ""),
]
def test_every_route_is_tried_with_a_second_entrants_token(served):
    """Every route but the event stream (which carries only event names) is one of
    PRIVATE's: a new route is tried there."""
    arena, _client, _tokens = served
    routes = [route for route in make_app(arena).routes if isinstance(route, Route)]
    # and the static files, and the public report (public files both)
    assert len(routes) + 2 == len(make_app(arena).routes)
    tried = {route.path for route in routes for _method, path, _secret in PRIVATE
             if route.path_regex.match(path.format(game=1))}
    assert {route.path for route in routes} - tried == {"/events"}


@pytest.mark.parametrize("method, path, secret", PRIVATE)
def test_a_second_entrant_reads_and_changes_nothing_of_the_first(served, method, path,
                                                                   secret):
    arena, _client, tokens = served
    bob = signed_in(arena, tokens["bob"])
    game = arena.games.latest(1)[0].id
    path = path.format(game=game)
    before = [(v.id, v.disqualified) for v in arena.store.versions()]
    if path.startswith("/api/"):
        answer = bob.request(method, path, headers=bearer(tokens["bob"]),
                             content=zip_of(bot_files(extra="# bob's\n"))
                             if method == "POST" else None)
    elif method == "POST":
        answer = bob.post(path, data={"csrf": csrf_of(bob, "/me")},
                          files={"archive": ("b.zip", zip_of(bot_files(extra="# bob\n")),
                                             "application/zip")})
    else:
        answer = bob.get(path)
    if path.startswith("/me/versions/alice") or path.startswith("/organiser"):
        assert answer.status_code == 404, answer.text
    if secret:
        assert secret not in answer.text
    after = [(v.id, v.disqualified) for v in arena.store.versions() if v.entrant == "alice"]
    assert after == [pair for pair in before if pair[0].startswith("alice")]
    assert not arena.ladder.status().paused and arena.ladder.deadline() is None


@pytest.mark.parametrize("path", ["/games/{}", "/me/games/{}", "/me/games/{}/log"])
def test_a_game_id_too_large_for_the_store_is_no_game(served, path):
    arena, _client, tokens = served
    alice = signed_in(arena, tokens["alice"])
    assert alice.get(path.format(2**63)).status_code == 404


def test_a_replay_of_bobs_game_is_his_and_not_carls(served):
    arena, _client, tokens = served
    game = arena.games.latest(1)[0].id
    bob = signed_in(arena, tokens["bob"])
    assert bob.get(f"/me/games/{game}").status_code == 200
    tokens.setdefault("carl", arena.store.add_entrant("carl"))
    carl = signed_in(arena, tokens["carl"])
    assert carl.get(f"/me/games/{game}").status_code == 404


def test_pages_escape_what_a_bot_says(tmp_path):
    """check-bot's lines quote the bot (its Hello, its errors): shown as text."""
    hostile = "<script>alert(1)</script>"
    arena = make_arena(tmp_path, check=lambda version: Gate(
        version.id, False, hostile, [hostile], hostile, now()))
    token = arena.store.add_entrant("mallory")
    with TestClient(make_app(arena)) as client:
        client.post("/api/versions", content=zip_of(bot_files()), headers=bearer(token))
        wait_for(lambda: not arena.store.queued())
        page = signed_in(arena, token).get("/me/versions/mallory.v1").text
    assert hostile not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_an_event_published_from_a_thread_reaches_an_open_stream():
    events = Events()

    async def first_event() -> str:
        stream = events.stream(events.listen("127.0.0.1", 10))
        assert (await anext(stream)).startswith(":")
        waiting = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0)
        threading.Thread(target=events.publish, args=("board",)).start()
        line = await asyncio.wait_for(waiting, 30)
        await stream.aclose()
        return line

    assert asyncio.run(first_event()) == "event: board\ndata: board\n\n"
    assert events.listeners() == 0


def test_one_address_holds_at_most_its_share_of_event_streams():
    events = Events()

    async def open_streams() -> list:
        held = [events.listen("10.0.0.1", 2), events.listen("10.0.0.1", 2)]
        assert events.listen("10.0.0.1", 2) is None            # a third is refused
        assert events.listen("10.0.0.2", 2) is not None         # another address is not
        stream = events.stream(held.pop())
        await anext(stream)
        await stream.aclose()                                    # a stream closed ...
        held.append(events.listen("10.0.0.1", 2))                # ... makes room
        assert held[-1] is not None and events.listen("10.0.0.1", 2) is None
        held.pop()                                               # one never started ...
        assert events.listen("10.0.0.1", 2) is not None          # ... is forgotten
        return held

    held = asyncio.run(open_streams())
    assert events.listeners() == len(held) == 1


def test_the_events_route_refuses_an_address_over_its_streams(tmp_path):
    arena = make_arena(tmp_path, CONFIG.replace("max_files: 20}",
                                                "max_files: 20, streams_per_address: 1}"))
    client = TestClient(make_app(arena))

    async def hold() -> object:
        return arena.events.listen("testclient", 1)   # TestClient's address

    held = asyncio.run(hold())
    answer = client.get("/events")
    assert answer.status_code == 429 and "too many open event streams" in answer.text
    assert held is not None


def test_an_ipv6_client_is_counted_by_its_64_not_by_each_address(served, monkeypatch):
    """One host is given a whole /64: each of its addresses is not a client of its own
    (the limits of sign-ins, invites and event streams count by :func:`client_of`)."""
    assert client_of("2001:db8::1") == client_of("2001:db8::ffff:2") == "2001:db8::/64"
    assert client_of("2001:db8:0:1::1") != client_of("2001:db8::1")
    assert client_of("::ffff:192.0.2.7") == client_of("192.0.2.7") == "192.0.2.7"
    arena, _client, _tokens = served
    monkeypatch.setattr("arena.app.SIGNINS_PER_HOUR", 1)
    app = make_app(arena)
    answers = [TestClient(app, client=(f"2001:db8::{number}", 50000)).post(
        "/signin", data={"token": "x_y"}).status_code for number in (1, 2)]
    assert answers == [403, 429]


def test_the_ladder_s_quick_matches_tell_the_board_once_an_interval_the_last_never_lost():
    published, now = [], [100.0]
    coalesced = Coalesced(lambda: published.append(now[0]), 0.3, clock=lambda: now[0])
    coalesced()
    assert published == [100.0]   # the first at once
    for _ in range(10):
        coalesced()
    assert published == [100.0]   # the others at the interval's end, once
    wait_for(lambda: len(published) == 2)
    now[0] += 1.0
    coalesced()
    assert len(published) == 3     # a quiet interval later: at once again


def test_a_stopped_service_publishes_no_board_still_due():
    published, now = [], [100.0]
    coalesced = Coalesced(lambda: published.append(now[0]), 0.05, clock=lambda: now[0])
    coalesced()
    coalesced()   # due at the interval's end
    coalesced.cancel()
    time.sleep(0.2)
    coalesced()
    assert published == [100.0]


def test_every_response_forbids_framing_and_the_pages_load_only_their_own(served):
    arena, client, _tokens = served
    game = arena.games.latest(1)[0].id
    for path in ("/", "/signin", f"/games/{game}", "/static/arena.js", "/bots/nobody.v1"):
        headers = client.get(path).headers
        assert headers["x-frame-options"] == "DENY", path
        assert headers["x-content-type-options"] == "nosniff", path
    assert "default-src 'self'" in client.get("/").headers["content-security-policy"]


def test_sign_in_attempts_are_limited_per_address(served, monkeypatch):
    arena, _client, _tokens = served
    monkeypatch.setattr("arena.app.SIGNINS_PER_HOUR", 3)
    client = TestClient(make_app(arena))
    csrf = csrf_of(client, "/signin")
    answers = [client.post("/signin", data={"token": "x_y", "csrf": csrf}).status_code
               for _ in range(4)]
    assert answers == [403, 403, 403, 429]


def test_a_gate_that_cannot_run_fails_its_version_and_the_queue_goes_on(tmp_path):
    def check(version):
        if version.number == 1:
            raise OSError("the disk is full")
        return stand_in_gate(version)

    arena = make_arena(tmp_path, check=check)
    token = arena.store.add_entrant("gus")
    with TestClient(make_app(arena)) as client:
        for extra in ("", "# 2\n"):
            client.post("/api/versions", content=zip_of(bot_files(extra=extra)),
                        headers=bearer(token))
        wait_for(lambda: not arena.store.queued())
        assert arena.store.gate("gus.v1").reason == "the gate could not run: the disk is full"
        assert arena.store.gate("gus.v2").passed


def test_the_same_code_sent_twice_at_once_is_one_version(tmp_path):
    arena = make_arena(tmp_path)
    arena.store.add_entrant("hal")
    hal = arena.store.entrant("hal")
    archive = zip_of(bot_files())
    results = []
    threads = [threading.Thread(target=lambda: results.append(arena.submit(hal, archive)))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(result.new for result in results) == [False, False, False, True]
    assert [version.id for version in arena.store.versions()] == ["hal.v1"]
    assert (arena.store.version("hal.v1").folder / "bot.py").is_file()


def test_an_entrant_reads_its_own_versions_log_of_a_game_and_no_other(served):
    arena, _client, tokens = served
    game = arena.games.latest(1)[0]
    logs = Path(arena.games.match(game).log_dir)
    (logs / "alice.v1.log").write_text("alice's own words\n")
    (logs / "bob.v1.log").write_text("bob's secret words\n")
    alice = signed_in(arena, tokens["alice"]).get(f"/me/games/{game.id}/log").text
    assert "== alice.v1 in spring-m000001" in alice and "alice's own words" in alice
    assert "bob's secret words" not in alice


def test_an_entrants_log_of_a_match_on_a_cluster_is_read_from_each_worker(tmp_path):
    arena = make_arena(tmp_path)
    token = arena.store.add_entrant("alice")
    arena.store.add_version("alice", "f1", tmp_path, {"name": "a", "command": "python bot.py"})
    run_tournament(write_config(tmp_path, GAMES_CONFIG), tmp_path, db="results.sqlite")
    game = arena.games.latest(1)[0]
    workers = Path(arena.games.match(game).log_dir) / "workers"
    for worker in ("127.0.0.1-4001", "127.0.0.1-4002"):
        (workers / worker).mkdir(parents=True)
        (workers / worker / "alice.v1.log").write_text(f"alice's words on {worker}\n")
    (workers / "127.0.0.1-4001" / "bob.v1.log").write_text("bob's secret words\n")
    log = signed_in(arena, token).get(f"/me/games/{game.id}/log").text
    assert "== alice.v1 in spring-m000001 (worker 127.0.0.1-4002)" in log
    assert "alice's words on 127.0.0.1-4001" in log and "alice's words on 127.0.0.1-4002" in log
    assert "bob's secret words" not in log


def test_a_ladder_match_that_fails_is_shown_to_the_organiser_and_tried_again(tmp_path,
                                                                             monkeypatch):
    monkeypatch.setattr("arena.playing.IDLE_S", 0.01)
    tries = []

    class Failing(StandInLadder):
        def play_next(self, entries):
            tries.append(entries)
            raise ValueError("no match today")

    arena = make_arena(tmp_path, ladder=LadderHook(lambda: Failing([], set()),
                                                   lambda *entry: entry))
    olga = arena.store.add_entrant("olga", role="organiser")
    with TestClient(make_app(arena)):
        wait_for(lambda: len(tries) >= 2)
        page = signed_in(arena, olga).get("/organiser").text
    assert "its last match failed: ValueError: no match today" in page


def test_a_versions_games_are_found_by_its_whole_name(served):
    arena, _client, _tokens = served
    assert len(arena.games.latest(10, {"alice.v1"})) == 2
    assert arena.games.latest(10, {"alice.v", "lice.v1", "alice"}) == []
    assert all(game.tournament.startswith("spring-m") for game in arena.games.latest(10))


def test_the_organiser_adds_an_entrant_whose_token_is_shown_once(served):
    arena, _client, tokens = served
    olga = signed_in(arena, tokens["olga"])
    csrf = csrf_of(olga, "/organiser")
    added = olga.post("/organiser/entrants", data={"csrf": csrf, "name": "ivy"})
    token = re.search(r"<code>([^<]+)</code>", added.text).group(1)
    assert added.headers["cache-control"] == "no-store"
    assert arena.store.holder(token).name == "ivy"
    assert token not in olga.get("/organiser").text
    again = olga.post("/organiser/entrants", data={"csrf": csrf, "name": "ivy"})
    assert again.status_code == 400 and "already an entrant &#39;ivy&#39;" in again.text


@pytest.mark.parametrize("per_day", ["0", "two", "\u00b2", "9" * 30])
@pytest.mark.parametrize("path", ["/organiser/entrants", "/organiser/invites"])
def test_versions_a_day_not_a_small_whole_number_are_refused_in_one_line(served, path,
                                                                         per_day):
    arena, _client, tokens = served
    olga = signed_in(arena, tokens["olga"])
    answer = olga.post(path, data={"csrf": csrf_of(olga, "/organiser"), "name": "jay",
                                   "per_day": per_day})
    assert answer.status_code == 400 and "must be a whole number from 1" in answer.text
    assert arena.store.entrant("jay") is None


def test_a_form_longer_than_an_upload_is_refused_before_it_is_read(served):
    arena, _client, _tokens = served
    client = TestClient(make_app(arena))
    csrf = csrf_of(client, "/signin")
    answer = client.post("/signin", data={"csrf": csrf, "token": "x" * (6 << 20)})
    assert answer.status_code == 413


class FailingLadder(StandInLadder):
    """A ladder whose every match fails the same way, as finals with too few versions do."""

    def play_next(self, entries: list[tuple[str, str, dict[str, Any]]]) -> str | None:
        raise ConfigError("the finals need at least 2 versions, not 1")


def test_the_same_ladder_failure_again_and_again_is_logged_once(tmp_path, caplog):
    config = make_config(tmp_path)
    thread = LadderThread(LadderHook(lambda: FailingLadder([], set()), lambda *entry: entry),
                          ArenaStore(config.db, FAST_HASHER), changed=lambda: None,
                          between=lambda: False, finished=lambda name: None)
    ladder = thread.hook.make()
    with caplog.at_level(logging.ERROR, logger="arena"):
        assert not thread._played(ladder) and not thread._played(ladder)
    assert thread.failure == "ConfigError: the finals need at least 2 versions, not 1"
    assert len([record for record in caplog.records if "failed" in record.message]) == 1


def test_the_service_holds_at_most_its_configured_connections(tmp_path, monkeypatch):
    from arena import serve
    asked = {}
    monkeypatch.setattr(serve.uvicorn, "run", lambda app, **options: asked.update(options))
    serve.serve(make_config(tmp_path, CONFIG.replace("max_files: 20}",
                                                     "max_files: 20, max_connections: 50}")))
    assert asked["limit_concurrency"] == 50 and asked["host"] == "127.0.0.1"
