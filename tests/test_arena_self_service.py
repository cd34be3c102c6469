"""What an entrant does without the organiser: test matches asked for from the page or
the API (unrated, private to the one who asked, rate-limited, resumed after a restart),
and joining the arena by an invite link.

The versions are in-process bots (``python:``, put in the store as passed): a test
match of four games costs milliseconds, and no claim here needs the sandbox.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from arena_support import CONFIG, StandInLadder, make_arena, wait_for
from starlette.testclient import TestClient
from test_arena import bearer, csrf_of
from test_arena_private import views_of

from arena.app import make_app
from arena.ladder import Ladder, LadderEntry
from arena.playing import LadderHook
from arena.store import Gate, UnratedState, now
from arena.unrated import UNPLAYED, UnratedLimit, UnratedRefused
from tournaments.run.errors import TournamentError

RANDOM = "bots.random_bot:RandomBot"
GREEDY = "bots.flea_greedy:FleaGreedyBot"
#: Two leagues' bosses are the baselines; a bank no busy machine spends.
SELF_SERVICE = CONFIG.replace(
    "  match: {time: {move_ms: 5000, bank_ms: 30000, startup_ms: 30000}}\n",
    "  deals: 1\n"
    "  match: {concurrency: 1, time: {move_ms: 600000}}\n"
    "  leagues:\n"
    f"    - {{name: wood, boss: {{name: boss-random, python: \"{RANDOM}\"}}}}\n"
    f"    - {{name: bronze, boss: {{name: boss-greedy, python: \"{GREEDY}\"}}}}\n"
).replace("arena: {", "arena: {test_match_games: 4, test_matches_per_hour: 3, ")


def add_version(arena, entrant: str, bot: str, passed: bool = True) -> str:
    """A version of ``entrant``'s playing ``bot`` in process, gated as ``passed`` says."""
    folder = arena.config.versions_dir / entrant / bot
    folder.mkdir(parents=True, exist_ok=True)
    version = arena.store.add_version(entrant, f"{bot}-{len(arena.store.versions())}",
                                      folder, {"python": bot})
    arena.store.finish_gate(Gate(version.id, passed, "" if passed else "it failed", [], "",
                                 now()))
    return version.id


def browser(client: TestClient) -> TestClient:
    """Another browser, with cookies of its own, on the served app."""
    return TestClient(client.app)


def signed_in(client: TestClient, token: str) -> TestClient:
    """Another browser, signed in with ``token`` through the form."""
    other = browser(client)
    answer = other.post("/signin", data={"token": token, "csrf": csrf_of(other, "/signin")},
                        follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return other


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """alice (alice.v1 passed, alice.v2 failed, alice.v3 disqualified), bob (bob.v1
    passed), carl with no version, the organiser olga; the ladder a stand-in, the test
    matches real."""
    arena = make_arena(tmp_path_factory.mktemp("arena"), SELF_SERVICE)
    tokens = {name: arena.store.add_entrant(name) for name in ("alice", "bob", "carl")}
    tokens["olga"] = arena.store.add_entrant("olga", role="organiser")
    add_version(arena, "alice", GREEDY)
    add_version(arena, "alice", RANDOM, passed=False)
    arena.store.disqualify(add_version(arena, "alice", "bots.mixed:Mixed50"), True)
    add_version(arena, "bob", RANDOM)
    with TestClient(make_app(arena)) as client:
        yield arena, client, tokens


def played(arena, entrant: str):
    """The entrant's latest test match, once it is over."""
    return wait_for(lambda: next((match for match in arena.store.unrated_matches(entrant)
                                  if match.state != UnratedState.QUEUED), None))


@pytest.fixture(scope="module")
def asked(served):
    """alice's test match of alice.v1 against bob.v1 and the random boss, asked for on
    her page, once it is played; what the page said."""
    arena, client, tokens = served
    alice = signed_in(client, tokens["alice"])
    answer = alice.post("/me/test-matches", data={"csrf": csrf_of(alice, "/me"),
                                                  "version": "alice.v1",
                                                  "opponents": "bob.v1, boss-random"})
    return played(arena, "alice"), answer.text


def test_an_entrant_asks_for_a_test_match_on_its_page_and_reads_its_result(served, asked):
    arena, client, tokens = served
    match, said = asked
    assert "test match spring-t000001 queued" in said
    assert (match.tournament, match.state, match.opponents) == \
        ("spring-t000001", "played", ["bob.v1", "boss-random"])
    games = arena.games.games_of(match.tournament)
    # A gauntlet of one deal: alice.v1 against each opponent, in both seats.
    assert sorted(tuple(sorted(game.seats)) for game in games) == \
        [("alice.v1", "bob.v1")] * 2 + [("alice.v1", "boss-random")] * 2
    alice = signed_in(client, tokens["alice"])
    part = alice.get("/me/test-matches").text
    assert "alice.v1 (4, " in part and "bob.v1 (2, " in part
    assert all(f'href="/me/games/{game.id}"' in part for game in games)
    assert alice.get(f"/me/games/{games[0].id}").status_code == 200
    assert "== alice.v1 in spring-t000001" in alice.get(f"/me/games/{games[0].id}/log").text
    listed = alice.get("/api/test-matches", headers=bearer(tokens["alice"])).json()
    assert listed[0]["match"] == "spring-t000001" and listed[0]["state"] == "played"
    assert {row["name"] for row in listed[0]["results"]} == {"alice.v1", "bob.v1",
                                                           "boss-random"}
    assert sorted(listed[0]["games"]) == sorted(game.id for game in games)


def test_a_test_matchs_replay_shows_its_asker_their_own_seats_during_the_season(served,
                                                                               asked):
    arena, client, tokens = served
    game = arena.games.games_of(asked[0].tournament)[0]
    mine = signed_in(client, tokens["alice"]).get(f"/me/games/{game.id}").text
    assert views_of(mine) == [game.seats.index("alice.v1")]
    whole = signed_in(client, tokens["olga"]).get(f"/me/games/{game.id}").text
    assert views_of(whole) == [None, *range(len(game.seats))]


def test_a_test_match_is_the_askers_and_the_organisers_only(served, asked):
    """bob's version played in alice's test match, and still he cannot see it."""
    arena, client, tokens = served
    game = arena.games.games_of(asked[0].tournament)[0].id
    for name in ("bob", "carl"):
        other = signed_in(client, tokens[name])
        assert other.get(f"/me/games/{game}").status_code == 404
        assert other.get(f"/me/games/{game}/log").status_code == 404
        assert "spring-t" not in other.get("/me").text
        assert "spring-t" not in other.get("/me/test-matches").text
        assert other.get("/api/test-matches", headers=bearer(tokens[name])).json() == []
    assert signed_in(client, tokens["olga"]).get(f"/me/games/{game}").status_code == 200
    assert client.get(f"/games/{game}").status_code == 404
    assert f"/games/{game}\"" not in client.get("/").text
    assert arena.games.latest(100) == []


@pytest.mark.parametrize("version, opponents, problem", [
    ("alice.v1", ["nobody.v1"], "no opponent 'nobody.v1': choose a version that passed its "
                                "gate, or a baseline: boss-random, boss-greedy"),
    ("alice.v1", ["alice.v2"], "no opponent 'alice.v2'"),
    ("alice.v2", ["bob.v1"], "alice.v2 has not passed its gate (it is failed)"),
    ("alice.v3", ["bob.v1"], "alice.v3 is disqualified"),
    ("alice.v1", ["alice.v3"], "no opponent 'alice.v3'"),
    ("bob.v1", ["boss-random"], "'bob.v1' is not a version of yours"),
    ("alice.v1", [], "choose at least one opponent"),
    ("alice.v1", ["bob.v1", "bob.v1"], "name each opponent once"),
    ("alice.v1", ["bob.v1", "boss-random", "boss-greedy"],
     "3 opponents make 6 games a deal, over the arena's 4 a test match: choose fewer"),
])
def test_a_bad_request_gets_one_line_and_queues_nothing(served, version, opponents, problem):
    arena, client, tokens = served
    before = len(arena.store.unrated_matches("alice"))
    answer = client.post("/api/test-matches", headers=bearer(tokens["alice"]),
                         json={"version": version, "opponents": opponents})
    assert answer.status_code == 400 and problem in answer.json()["error"]
    assert "\n" not in answer.json()["error"]
    with pytest.raises(UnratedRefused, match=re.escape(problem)):
        arena.request_unrated(arena.store.entrant("alice"), version, opponents)
    assert len(arena.store.unrated_matches("alice")) == before


def test_the_test_match_form_says_why_it_refused_and_needs_its_csrf_token(served):
    arena, client, tokens = served
    alice = signed_in(client, tokens["alice"])
    before = len(arena.store.unrated_matches("alice"))
    refused = alice.post("/me/test-matches", data={"csrf": csrf_of(alice, "/me"),
                                                   "version": "alice.v1",
                                                   "opponents": "nobody.v1"})
    assert "no test match: no opponent &#39;nobody.v1&#39;" in refused.text
    for fields in ({}, {"csrf": "0" * 64}):
        answer = alice.post("/me/test-matches", data={**fields, "version": "alice.v1",
                                                      "opponents": "boss-greedy"})
        assert answer.status_code == 403
    assert len(arena.store.unrated_matches("alice")) == before


def test_the_api_takes_only_its_json_and_its_token(served):
    _arena, client, tokens = served
    for body in (b"not json", b"[]", b'{"version": "alice.v1", "opponents": "bob.v1"}'):
        answer = client.post("/api/test-matches", headers=bearer(tokens["alice"]),
                             content=body)
        assert answer.status_code == 400 and "the body must be JSON" in answer.json()["error"]
    assert client.post("/api/test-matches", json={"version": "alice.v1", "opponents": []},
                       headers=bearer("nobody_x")).status_code == 401
    assert client.get("/api/test-matches", headers=bearer("nobody_x")).status_code == 401


def test_one_test_match_queued_at_a_time_and_a_few_an_hour(tmp_path):
    """A paused ladder plays no test match: the first stays queued, a second is refused;
    once it is played, the hour's limit (3) refuses the fourth."""
    arena = make_arena(tmp_path, SELF_SERVICE)
    token = arena.store.add_entrant("dan")
    add_version(arena, "dan", GREEDY)
    ask = {"version": "dan.v1", "opponents": ["boss-random"]}
    arena.ladder.pause(True)
    with TestClient(make_app(arena)) as client:
        assert client.post("/api/test-matches", json=ask, headers=bearer(token)).status_code \
            == 201
        again = client.post("/api/test-matches", json=ask, headers=bearer(token))
        assert again.status_code == 429 and "queued already" in again.json()["error"]
        assert [match.state for match in arena.store.unrated_matches("dan")] == ["queued"]
        olga = signed_in(client, arena.store.add_entrant("olga", role="organiser"))
        assert "test matches queued: 1" in olga.get("/organiser").text
        arena.ladder.pause(False)
        for _ in range(2):
            played(arena, "dan")
            wait_for(lambda: not arena.store.unrated_queue())
            assert client.post("/api/test-matches", json=ask,
                               headers=bearer(token)).status_code == 201
        wait_for(lambda: not arena.store.unrated_queue())
        limited = client.post("/api/test-matches", json=ask, headers=bearer(token))
        assert limited.status_code == 429 and "more than 3 test matches in an hour" in \
            limited.json()["error"]
        with pytest.raises(UnratedLimit):
            arena.request_unrated(arena.store.entrant("dan"), "dan.v1", ["boss-greedy"])


def test_a_test_match_queued_when_the_service_stopped_is_played_after_it_starts(tmp_path):
    arena = make_arena(tmp_path, SELF_SERVICE)
    arena.store.add_entrant("eve")
    add_version(arena, "eve", RANDOM)
    arena.ladder.pause(True)
    with TestClient(make_app(arena)):
        arena.request_unrated(arena.store.entrant("eve"), "eve.v1", ["boss-greedy"])
    again = make_arena(tmp_path, SELF_SERVICE)
    assert [match.tournament for match in again.store.unrated_queue()] == ["spring-t000001"]
    with TestClient(make_app(again)):
        match = played(again, "eve")
        assert match.state == "played" and len(again.games.games_of(match.tournament)) == 4


def test_the_ladders_thread_alternates_its_batches_and_the_test_matches(tmp_path,
                                                                       monkeypatch):
    """With the ladder always busy, a queue of test matches gets one between two batches:
    neither waits for more than one of the other."""
    order = []

    class Busy(StandInLadder):
        def play_next(self, entries):
            if "paused" in self.flags or len(order) > 20:
                return None
            order.append("ladder")
            return "a match"

    flags = {"paused"}
    arena = make_arena(tmp_path, SELF_SERVICE,
                       ladder=LadderHook(lambda: Busy([], flags), lambda *entry: entry))
    for entrant in ("hal", "ida"):
        arena.store.add_entrant(entrant)
        add_version(arena, entrant, RANDOM)
        arena.request_unrated(arena.store.entrant(entrant), f"{entrant}.v1", ["boss-random"])
    play = arena.unrated.play_next

    def noted() -> bool:
        played = play()
        if played:
            order.append("test")
        return played

    monkeypatch.setattr(arena.unrated, "play_next", noted)
    with TestClient(make_app(arena)):
        arena.ladder.pause(False)
        wait_for(lambda: order.count("test") == 2)
    assert order[:4] == ["ladder", "test", "ladder", "test"]


def test_a_test_match_not_played_tells_its_asker_nothing_another_bot_said(tmp_path,
                                                                         monkeypatch, caplog):
    """A bot's start error ends with its log's tail: the opponent's words, for the
    organiser's log only."""
    arena = make_arena(tmp_path, SELF_SERVICE)
    for entrant in ("jo", "kim"):
        arena.store.add_entrant(entrant)
        add_version(arena, entrant, RANDOM)
    said = "bot 'kim.v1': Hello failed [log kim.v1.log: kim's secret plan]"
    monkeypatch.setattr("arena.unrated.run_match", lambda *args: TournamentError(said))
    arena.request_unrated(arena.store.entrant("jo"), "jo.v1", ["kim.v1"])
    assert arena.unrated.play_next()
    match = arena.store.unrated_matches("jo")[0]
    assert match.state == "failed" and match.note == UNPLAYED
    assert "secret plan" in caplog.text


def test_the_ladders_standings_are_unchanged_by_a_test_match(tmp_path):
    arena = make_arena(tmp_path, SELF_SERVICE)
    for entrant, bot in (("fay", GREEDY), ("gus", RANDOM)):
        arena.store.add_entrant(entrant)
        add_version(arena, entrant, bot)
    entries = [LadderEntry(version.id, version.entrant, {**version.entry, "name": version.id})
               for version in arena.store.active()]
    ladder = Ladder(arena.config.db, arena.config.ladder)
    for _ in range(4):
        assert ladder.play_next(entries) is not None

    def board(of: Ladder) -> list[tuple[str, float, float, int]]:
        return [(row.version, row.mu, row.sigma, row.games) for row in of.standings()]

    before, matches = board(ladder), ladder.status().matches
    arena.request_unrated(arena.store.entrant("fay"), "fay.v1", ["gus.v1"])
    assert arena.unrated.play_next()
    assert arena.store.unrated_matches("fay")[0].state == "played"
    assert board(ladder) == before and board(Ladder(arena.config.db, arena.config.ladder)) \
        == before
    assert ladder.status().matches == matches
    assert all(game.tournament.startswith("spring-m") for game in arena.games.latest(100))


# -- invites ----------------------------------------------------------------------------


def invite_link(client, tokens, per_day: str = "") -> str:
    """A new invite's path, made on the organiser's page."""
    olga = signed_in(client, tokens["olga"])
    made = olga.post("/organiser/invites", data={"csrf": csrf_of(olga, "/organiser"),
                                                 "per_day": per_day})
    assert made.status_code == 200 and made.headers["cache-control"] == "no-store"
    link = re.search(r'id="invite">[^<]*<code>([^<]+)</code>', made.text).group(1)
    assert link not in olga.get("/organiser").text   # shown once
    return "/invite/" + link.rpartition("/invite/")[2]


def join(client, path: str, name: str) -> tuple[TestClient, object]:
    """A new browser that opens the invite and joins as ``name``: it and the answer."""
    other = browser(client)
    other.get(path)
    return other, other.post(path, data={"csrf": csrf_of(other, "/signin"), "name": name})


def test_an_invite_makes_one_entrant_signed_in_with_its_token_shown_once(served):
    arena, client, tokens = served
    path = invite_link(client, tokens, per_day="3")
    code = path.rpartition("/")[2]
    assert code.partition("_")[2] not in arena.config.db.read_bytes().decode("latin-1")
    joined, answer = join(client, path, "ivy")
    assert answer.status_code == 200 and answer.headers["cache-control"] == "no-store"
    token = re.search(r'id="token">[^<]*<code>([^<]+)</code>', answer.text).group(1)
    assert arena.store.holder(token) == arena.store.entrant("ivy")
    assert arena.store.entrant("ivy").per_day == 3
    assert "ivy's bots" in joined.get("/me").text   # signed in
    opened = browser(client).get(path)
    assert opened.status_code == 410 and "this invite was used already" in opened.text
    _joined, again = join(client, path, "jon")
    assert again.status_code == 410 and arena.store.entrant("jon") is None
    assert "ivy" in signed_in(client, tokens["olga"]).get("/organiser").text


def test_an_invite_refuses_a_taken_or_bad_name_and_stays_open(served):
    arena, client, tokens = served
    path = invite_link(client, tokens)
    for name, problem in (("alice", "there is already an entrant &#39;alice&#39;"),
                          ("../x", "entrant name &#39;../x&#39; is not allowed")):
        _joined, answer = join(client, path, name)
        assert answer.status_code == 400 and problem in answer.text
    _joined, answer = join(client, path, "kay")
    assert answer.status_code == 200 and arena.store.entrant("kay").per_day is None


def test_an_expired_or_unknown_invite_says_so(served):
    arena, client, _tokens = served
    code = arena.store.add_invite(None, timedelta(seconds=-1))
    expired = client.get(f"/invite/{code}")
    assert expired.status_code == 410 and "this invite expired at" in expired.text
    other = browser(client)
    csrf = csrf_of(other, "/signin")
    refused = other.post(f"/invite/{code}", data={"csrf": csrf, "name": "lee"})
    assert refused.status_code == 410
    key = code.partition("_")[0]
    for path in (f"/invite/{key}_guess", "/invite/nothing"):
        assert client.get(path).status_code == 404
    assert arena.store.entrant("lee") is None


def test_an_invite_needs_its_forms_csrf_token_and_the_organiser_to_make_it(served):
    arena, client, tokens = served
    path = invite_link(client, tokens)
    stranger = browser(client)
    stranger.get(path)
    for fields in ({"name": "max"}, {"name": "max", "csrf": "0" * 64}):
        assert stranger.post(path, data=fields).status_code == 403
    assert arena.store.entrant("max") is None
    bob = signed_in(client, tokens["bob"])
    made = bob.post("/organiser/invites", data={"csrf": csrf_of(bob, "/me")})
    assert made.status_code == 404 and "/invite/" not in made.text
    assert join(client, path, "max")[1].status_code == 200   # still open
