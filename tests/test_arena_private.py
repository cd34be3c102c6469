"""An entrant's own view of the season: replays of their games showing only their own
seats (and to everyone else only what every seat saw) until the deadline, their own
faults by game, their record against each opponent version, their versions' packs."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import zipfile
from datetime import datetime, timedelta, timezone

import pytest
from arena_support import CONFIG, bot_files, make_arena, make_config, wait_for, zip_of
from conftest import run_tournament, write_config
from starlette.testclient import TestClient

from arena.app import make_app
from bots.random_bot import RandomBot
from pages.viewer import embedded_data
from tournaments.config import ConfigError

#: A ladder match of three seats: two of alice's versions and bob's.
GAMES = """\
name: spring-m000001
game: flea-circus
players: 3
seed: 5
secret_deals: false
bots:
  - {name: alice.v1, python: "test_arena_private:Sloppy"}
  - {name: alice.v2, python: "bots.random_bot:RandomBot"}
  - {name: bob.v1, python: "test_arena_private:Sloppy"}
"""


class Sloppy(RandomBot):
    """Answers out of range at its first decision of each game: a fault in every game."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def decide(self, request) -> int:
        if request.game_id not in self.seen:
            self.seen.add(request.game_id)
            return len(request.legal_actions) + 3
        return super().decide(request)


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


@pytest.mark.parametrize("keys, whole", [
    ({"deadline": -1}, True), ({"deadline": 1}, False), ({"replays": "full"}, True),
    ({"deadline": -1, "full_after_deadline": False}, False)])
def test_replays_are_whole_after_the_deadline_or_when_the_organiser_says(season, monkeypatch,
                                                                         keys, whole):
    arena, client, tokens = season
    days = keys.pop("deadline", None)
    deadline = None if days is None else datetime.now(timezone.utc) + timedelta(days=days)
    monkeypatch.setattr(arena, "config", dataclasses.replace(arena.config, deadline=deadline,
                                                             **keys))
    game = arena.games.latest(1)[0]
    every = [None, 0, 1, 2]
    assert (views_of(client.get(f"/games/{game.id}").text) == every) == whole
    mine = signed_in(arena, tokens["alice"]).get(f"/me/games/{game.id}").text
    assert (views_of(mine) == every) == whole


def test_the_config_says_when_replays_are_whole(tmp_path):
    past = CONFIG.replace("players: 2", "players: 2\n  deadline: 2020-01-01T00:00:00+00:00")
    assert make_config(tmp_path, past).full_replays()
    assert not make_config(tmp_path).full_replays()
    assert not make_config(tmp_path, past.replace(
        "arena: {", "arena: {full_after_deadline: false, ")).full_replays()
    with pytest.raises(ConfigError, match="'arena.replays' must be one of seat, full"):
        make_config(tmp_path, CONFIG.replace("arena: {", "arena: {replays: all, "))


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
        "replays/viewer.js", "replays/viewer.css", "games.csv", "faults.csv", "README.txt"} \
        == names
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
