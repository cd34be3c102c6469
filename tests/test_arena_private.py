"""An entrant's own view of the season: replays of their games showing only their own
seats (and to everyone else only what every seat saw) until the deadline, their own
faults by game, their record against each opponent version, their versions' packs, and
their webhook (sent to a local server of the test's: the service is not sandboxed)."""

from __future__ import annotations

import dataclasses
import http.server
import io
import json
import re
import threading
import zipfile
from datetime import datetime, timedelta, timezone

import pytest
from arena_support import CONFIG, bot_files, make_arena, make_config, wait_for, zip_of
from conftest import run_tournament, write_config
from starlette.testclient import TestClient

from arena.app import make_app
from arena.playing import load_ladder
from arena.webhooks import Target, WebhookRefused, Webhooks, target
from pages.viewer import STATIC_FILES, embedded_data
from tournaments.config import ConfigError

#: A ladder match of three seats: two of alice's versions and bob's.
GAMES = """\
name: spring-m000001
game: flea-circus
players: 3
seed: 5
secret_deals: false
bots:
  - {name: alice.v1, python: "sloppy_bot:Sloppy"}
  - {name: alice.v2, python: "bots.random_bot:RandomBot"}
  - {name: bob.v1, python: "sloppy_bot:Sloppy"}
"""


@pytest.fixture(scope="module")
def season(tmp_path_factory):
    """alice (two versions), bob (one), an organiser; a match of the three in the store."""
    folder = tmp_path_factory.mktemp("season")
    arena = make_arena(folder, CONFIG.replace("players: 2", "players: 3"))
    tokens = {name: arena.store.add_entrant(name) for name in ("alice", "bob")}
    tokens["olga"] = arena.store.add_entrant("olga", role="organiser")
    for name, extra in (("alice", ""), ("alice", "# 2\n"), ("bob", "# bob\n")):
        arena.submit(arena.store.entrant(name), zip_of(bot_files(extra=extra)))
    with TestClient(make_app(arena)) as client:
        wait_for(lambda: not arena.store.queued())
        run_tournament(write_config(folder, GAMES), folder, db="results.sqlite")
        yield arena, client, tokens


def signed_in(arena, token: str) -> TestClient:
    client = TestClient(make_app(arena))
    page = client.get("/signin")
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)
    assert client.post("/signin", data={"token": token, "csrf": csrf},
                       follow_redirects=False).status_code == 303
    return client


def views_of(page: str) -> list[int | None]:
    """The seats of the views a replay page's data holds (None: every card, or the public)."""
    return [view["seat"] for view in json.loads(embedded_data(page))["meta"]["views"]]


def seats_of(game, *names: str) -> list[int]:
    return [seat for seat, name in enumerate(game.seats) if name in names]


def test_an_entrants_replay_holds_only_their_own_seats_during_the_season(season):
    arena, _client, tokens = season
    alice, bob = signed_in(arena, tokens["alice"]), signed_in(arena, tokens["bob"])
    games = arena.games.latest(10)
    assert len(games) > 1
    for game in games:
        mine = alice.get(f"/me/games/{game.id}").text
        assert views_of(mine) == seats_of(game, "alice.v1", "alice.v2")
        data = json.loads(embedded_data(mine))
        assert "seed" not in data["meta"] and str(game.seed) not in embedded_data(mine)
        assert views_of(bob.get(f"/me/games/{game.id}").text) == seats_of(game, "bob.v1")


def test_a_public_replay_holds_what_every_seat_saw_and_the_organiser_sees_every_card(season):
    arena, client, tokens = season
    game = arena.games.latest(1)[0]
    assert views_of(client.get(f"/games/{game.id}").text) == [None]
    assert views_of(signed_in(arena, tokens["bob"]).get(f"/games/{game.id}").text) == [None]
    whole = signed_in(arena, tokens["olga"]).get(f"/games/{game.id}").text
    assert views_of(whole) == [None, 0, 1, 2]
    assert json.loads(embedded_data(whole))["meta"]["seed"] == str(game.seed)


@pytest.mark.parametrize("closed, keys, whole", [
    (True, {}, True), (False, {}, False), (False, {"replays": "full"}, True),
    (True, {"full_after_deadline": False}, False)])
def test_replays_are_whole_after_the_deadline_or_when_the_organiser_says(season, monkeypatch,
                                                                         closed, keys, whole):
    arena, client, tokens = season
    monkeypatch.setattr(arena.ladder, "closed", lambda: closed)
    monkeypatch.setattr(arena, "config", dataclasses.replace(arena.config, **keys))
    game = arena.games.latest(1)[0]
    every = [None, 0, 1, 2]
    assert (views_of(client.get(f"/games/{game.id}").text) == every) == whole
    mine = signed_in(arena, tokens["alice"]).get(f"/me/games/{game.id}").text
    assert (views_of(mine) == every) == whole


@pytest.mark.parametrize("days, whole", [(-1, True), (1, False)])
def test_the_ladders_deadline_makes_every_replay_whole(tmp_path, days, whole):
    """The real ladder's deadline, from the config: past it every card is shown."""
    deadline = (datetime.now(timezone.utc) + timedelta(days=days)).isoformat()
    text = CONFIG.replace("players: 2", f"players: 3\n  deadline: '{deadline}'")
    config = make_config(tmp_path, text)
    arena = make_arena(tmp_path, text, ladder=load_ladder(config.db, config.ladder))
    run_tournament(write_config(tmp_path, GAMES), tmp_path, db="results.sqlite")
    game = arena.games.latest(1)[0]
    shown = views_of(TestClient(make_app(arena)).get(f"/games/{game.id}").text)
    assert shown == ([None, 0, 1, 2] if whole else [None])


def test_the_config_says_what_replays_show(tmp_path):
    assert make_config(tmp_path).replays == "seat"
    assert make_config(tmp_path).full_after_deadline
    with pytest.raises(ConfigError, match="'arena.replays' must be one of seat, full"):
        make_config(tmp_path, CONFIG.replace("arena: {", "arena: {replays: all, "))
    with pytest.raises(ConfigError, match="full_after_deadline' must be bool"):
        make_config(tmp_path, CONFIG.replace("arena: {", "arena: {full_after_deadline: 2, "))


def test_an_entrants_page_shows_their_own_faults_and_their_record_against_each_opponent(
        season):
    arena, _client, tokens = season
    page = signed_in(arena, tokens["alice"]).get("/me").text
    games = arena.games.latest(100)
    assert page.count("alice.v1: illegal (") == min(len(games), 20)
    assert "bob.v1: illegal" not in page
    rows = re.findall(r"<tr><td>(alice\.v\d)</td><td>([^<]+)</td><td>(\d+)</td>\s*"
                      r"<td>(\d+)</td><td>(\d+)</td><td>(\d+)</td></tr>", page)
    expected = []
    for mine in ("alice.v1", "alice.v2"):
        ranks = [(game.ranks[game.seats.index(mine)], game.ranks[game.seats.index("bob.v1")])
                 for game in games]
        expected.append((mine, "bob.v1", str(len(ranks)), str(sum(a < b for a, b in ranks)),
                         str(sum(a > b for a, b in ranks)), str(sum(a == b for a, b in ranks))))
    assert rows == expected
    bob = signed_in(arena, tokens["bob"]).get("/me").text
    assert "<td>bob.v1</td><td>alice.v1</td>" in bob and "alice.v1: illegal" not in bob


def test_a_versions_pack_holds_its_games_in_its_own_seats_view(season):
    arena, _client, tokens = season
    alice = signed_in(arena, tokens["alice"])
    answer = alice.get("/me/versions/alice.v1/pack.zip")
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(answer.content))
    games = arena.games.latest(100)
    names = set(archive.namelist())
    assert {f"replays/game-{game.id}.html" for game in games} | {
        f"replays/{name}" for name in STATIC_FILES} | {
        "games.csv", "faults.csv", "times.csv", "README.txt"} == names
    times = archive.read("times.csv").decode().splitlines()
    assert len(times) == 2 and times[1].startswith("alice.v1,")
    for game in games:
        page = archive.read(f"replays/game-{game.id}.html").decode()
        assert views_of(page) == seats_of(game, "alice.v1")
    faults = archive.read("faults.csv").decode()
    assert faults.count(",alice.v1,") == len(games) and "bob.v1" not in faults
    assert signed_in(arena, tokens["bob"]).get(
        "/me/versions/alice.v1/pack.zip").status_code == 404


def test_packs_are_limited_per_entrant(season, monkeypatch):
    arena, _client, tokens = season
    monkeypatch.setattr("arena.app.PACKS_PER_HOUR", 1)
    bob = signed_in(arena, tokens["bob"])
    assert bob.get("/me/versions/bob.v1/pack.zip").status_code == 200
    assert bob.get("/me/versions/bob.v1/pack.zip").status_code == 429


# -- webhooks --------------------------------------------------------------------------

class Receiver(http.server.ThreadingHTTPServer):
    """A webhook's server on 127.0.0.1: keeps what is POSTed to it, answers each with the
    next of ``answers`` (then 200); a POST to /slow waits until ``release`` is set."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), ReceiverHandler)
        self.received: list[tuple[str, dict]] = []
        self.answers: list[int] = []
        self.release = threading.Event()
        self.url = f"http://127.0.0.1:{self.server_address[1]}"


class ReceiverHandler(http.server.BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/slow":
            self.server.release.wait(30)
        self.server.received.append((self.path, body))
        self.send_response(self.server.answers.pop(0) if self.server.answers else 200)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def receiver():
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,))
    thread.start()
    yield server
    server.release.set()
    server.shutdown()
    thread.join()


HOOKED = CONFIG.replace("arena: {", "arena: {webhook_hosts: [127.0.0.1], crashes_in_a_row: 2, ")
DUEL = """\
name: spring-m000001
game: flea-circus
players: 2
seed: 5
bots:
  - {name: dan.v1, python: "sloppy_bot:Sloppy"}
  - {name: erin.v1, python: "bots.random_bot:RandomBot"}
"""


def set_webhook(client: TestClient, url: str):
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get("/me").text).group(1)
    return client.post("/me/webhook", data={"csrf": csrf, "url": url})


def test_a_webhook_hears_when_a_versions_gate_ends(tmp_path, receiver):
    arena = make_arena(tmp_path, HOOKED)
    token = arena.store.add_entrant("dan")
    with TestClient(make_app(arena)):
        dan = signed_in(arena, token)
        assert "webhook set" in set_webhook(dan, receiver.url + "/hook").text
        assert receiver.url + "/hook" in dan.get("/me").text
        arena.submit(arena.store.entrant("dan"), zip_of(bot_files()))
        wait_for(lambda: receiver.received)
    assert receiver.received == [("/hook", {
        "event": "gate-ended", "version": "dan.v1", "state": "passed", "reason": "",
        "link": "http://testserver/me/versions/dan.v1"})]


def test_a_webhook_hears_once_when_a_version_crashes_in_games_in_a_row(tmp_path, receiver):
    arena = make_arena(tmp_path, HOOKED)
    for name in ("dan", "erin"):
        arena.store.add_entrant(name)
        arena.submit(arena.store.entrant(name), zip_of(bot_files(extra=f"# {name}\n")))
    with TestClient(make_app(arena)):
        wait_for(lambda: not arena.store.queued())
        _summary, store, _out = run_tournament(write_config(tmp_path, DUEL), tmp_path)
        games = len(store.games("spring-m000001"))
        arena.tell_crashes()   # faults, but no crash
        store.db.execute("UPDATE faults SET class = 'crash', detail = 'its process ended' "
                         "WHERE bot = 'dan.v1'")
        store.db.commit()
        arena.store.set_webhook("erin", receiver.url + "/erin", "http://arena/")
        arena.tell_crashes()   # dan has no webhook
        arena.store.set_webhook("dan", receiver.url + "/dan", "http://arena/")
        arena.tell_crashes()
        arena.tell_crashes()   # the same streak: told once
        wait_for(lambda: receiver.received)
        arena.webhooks.send(receiver.url + "/last", {})
        wait_for(lambda: len(receiver.received) == 2)
    assert receiver.received[0] == ("/dan", {
        "event": "crashing", "version": "dan.v1", "state": "passed",
        "reason": f"crashed in its last {games} games in a row: its process ended",
        "link": "http://arena/me/versions/dan.v1"})
    assert receiver.received[1][0] == "/last"


def test_a_webhook_is_tried_again_and_a_slow_one_holds_nothing_up(receiver, monkeypatch):
    monkeypatch.setattr("arena.webhooks.BACKOFF_S", (0.01, 0.01))
    monkeypatch.setattr("arena.webhooks.TIMEOUT_S", 0.2)
    webhooks = Webhooks(("127.0.0.1",))
    webhooks.start()
    try:
        receiver.answers = [500, 503]
        webhooks.send(receiver.url + "/flaky", {"n": 1})
        wait_for(lambda: len(receiver.received) == 3)
        assert receiver.received == [("/flaky", {"n": 1})] * 3
        webhooks.send(receiver.url + "/slow", {"n": 2})   # never answers in time
        webhooks.send(receiver.url + "/fast", {"n": 3})
        wait_for(lambda: ("/fast", {"n": 3}) in receiver.received)
    finally:
        receiver.release.set()
        webhooks.stop()


def test_the_webhooks_stop_while_their_queue_is_full(monkeypatch):
    """A sender busy with a slow server and a full queue: stopping does not wait for
    room in the queue."""
    monkeypatch.setattr("arena.webhooks.QUEUE", 2)
    sending, release = threading.Event(), threading.Event()

    def slow_post(where: Target, body: bytes) -> int:
        sending.set()
        release.wait(10)
        return 200

    monkeypatch.setattr("arena.webhooks.post", slow_post)
    webhooks = Webhooks(("example.org",), resolver=lambda host, port: ["93.184.216.34"])
    webhooks.start()
    for number in range(3):
        webhooks.send(f"http://example.org/{number}", {"n": number})
        sending.wait(10)
    assert webhooks.waiting.full()
    stopper = threading.Thread(target=webhooks.stop)
    stopper.start()
    release.set()
    stopper.join(10)
    assert not stopper.is_alive()


@pytest.mark.parametrize("url, why", [
    ("ftp://example.org/x", "http:// or https://"),
    ("http:///x", "http:// or https://"),
    ("http://user:secret@example.org/", "no user name"),
    ("http://127.0.0.1:8080/", "not a public address"),
    ("http://[::1]/", "not a public address"),
    ("http://10.1.2.3/", "not a public address"),
    ("http://169.254.169.254/latest/meta-data", "not a public address"),
    ("http://inside.example.org/", "not a public address"),   # resolves to 192.168.1.2
    ("http://nowhere.example.org/", "does not resolve"),
    ("https://example.org/h\u00e9", "printable ASCII"),   # would stop the sending thread
    ("https://example.org/a b", "printable ASCII"),
    ("https://b\u00fccher.example.org/", "printable ASCII"),
])
def test_a_webhook_may_not_point_inside_the_services_network(url, why):
    def resolver(host, port):
        """As getaddrinfo: an address is itself, a name what the test's DNS says."""
        addresses = {"example.org": ["93.184.215.14"], "inside.example.org": ["192.168.1.2"],
                     **{address: [address] for address in ("127.0.0.1", "::1", "10.1.2.3",
                                                           "169.254.169.254")}}
        if host not in addresses:
            raise OSError("no such host")
        return addresses[host]

    assert target("https://example.org:8443/x?y=1", None, resolver) == Target(
        "https", "example.org", 8443, "/x?y=1", "93.184.215.14")
    with pytest.raises(WebhookRefused, match=why):
        target(url, None, resolver)


@pytest.mark.parametrize("host", ["2130706433", "0177.0.0.1", "0x7f.1", "127.1",
                                  "[::ffff:127.0.0.1]", "[::ffff:a9fe:a9fe]", "[::]"])
def test_a_loopback_or_private_address_in_any_form_is_refused(host):
    with pytest.raises(WebhookRefused, match="not a public address"):
        target(f"http://{host}/", None)   # the real resolver reads each form


def test_a_host_of_a_label_too_long_to_look_up_is_refused_in_one_line():
    with pytest.raises(WebhookRefused, match="does not resolve: .*label"):
        target(f"https://{'a' * 64}.example.org/", None)   # the real resolver


def test_the_organiser_may_allow_only_some_hosts(receiver):
    with pytest.raises(WebhookRefused, match="not a public address"):
        target(receiver.url, None)   # the real resolver: no name of this machine's passes
    with pytest.raises(WebhookRefused, match="not a public address"):
        target("http://localhost/", None)
    assert target(receiver.url, ("127.0.0.1",)).address == "127.0.0.1"
    with pytest.raises(WebhookRefused, match="only to 127.0.0.1"):
        target("http://example.org/", ("127.0.0.1",))


def test_a_webhook_is_set_by_its_entrant_only_through_the_form(season, monkeypatch):
    arena, _client, tokens = season
    monkeypatch.setattr(arena.webhooks, "resolver", lambda host, port: {
        "localhost": ["127.0.0.1"]}.get(host, ["93.184.215.14"]))
    alice, bob = signed_in(arena, tokens["alice"]), signed_in(arena, tokens["bob"])
    assert "webhook set" in set_webhook(alice, "https://alice.example.org/hook").text
    assert "not a public address" in set_webhook(alice, "http://localhost:8080/").text
    assert "http:// or https://" in set_webhook(alice, "file:///etc/passwd").text
    assert alice.post("/me/webhook", data={"url": "https://x.example.org/"}).status_code == 403
    set_webhook(bob, "https://bob.example.org/")
    assert arena.store.webhook("alice").url == "https://alice.example.org/hook"
    assert "alice.example.org" not in bob.get("/me").text
    assert "webhook removed" in set_webhook(alice, "").text
    assert arena.store.webhook("alice") is None
