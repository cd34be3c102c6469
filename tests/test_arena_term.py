"""A term through the service, as its organiser and entrants meet it: the organiser adds
three entrants on the organiser's page, each submits through the HTTP API; one bot fails
its gate, one is a near copy of another (flagged for its code and for its play), one
beats the first league's boss and is promoted; the ladder plays, the organiser brings
the deadline forward and it passes (on the service's clock, which the test holds), the
finals run, and the public report is published and served, every number on it the fold
of the stored games.

The bots are real stdio bots, gated by check-bot and played in the sandbox, as an
entrant's are; the games are few (three deals a match, a cap on the games an hour with
the clock held still) so the term costs seconds.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import html
import io
import re
from datetime import datetime, timezone
from pathlib import Path

import httpx2 as httpx
import pytest
from arena_support import FAST_HASHER, make_config, wait_for, zip_of
from starlette.testclient import TestClient

from arena.app import make_app
from arena.playing import load_ladder
from arena.service import Arena
from arena.store import ArenaStore
from ratings.board import Fold, board_from
from tournaments.standings import fault_counts, outcome, rating_config
from tournaments.store import Store

GREEDY = (Path(__file__).with_name("term_bots") / "greedy.py").read_text()
#: The greedy bot under other names: a near copy.
COPIED = GREEDY.replace("A greedy flea-circus bot", "My own bot").replace(
    "value(", "worth(").replace("choose", "pick").replace('"greedy"', '"mine"')
CRASHES = "import sys\nsys.exit('cannot start: no model file')\n"
MANIFEST = "name: {name}\nauthor: A. Student\nlanguage: python\ncommand: python bot.py\n" \
           "transport: stdio\n"
DEADLINE = 1_900_000_000.0   # 2030-03-17T17:46:40Z
CONFIG = """\
name: Spring term
ladder:
  name: term
  seed: 3
  deals: 3
  placement_matches: 1
  games_per_hour: 120         # with the clock held still, the ladder stops by itself
  deadline: "2030-03-17T17:46:40+00:00"
  similarity: {share: 0.9, points: 10}
  leagues:
    - {name: wood, boss: {name: boss-random, python: "bots.random_bot:RandomBot"},
       confidence: 0.8}
  finals: {max_games: 6}
  match: {concurrency: 2, time: {move_ms: 5000, bank_ms: 60000, startup_ms: 30000}}
arena: {db: term.sqlite}
"""


def archive(name: str, code: str) -> bytes:
    return zip_of({"entrant.yaml": MANIFEST.format(name=name).encode(), "bot.py": code.encode()})


def csrf(client: TestClient, path: str) -> str:
    return re.search(r'name="csrf" value="([0-9a-f]+)"', client.get(path).text).group(1)


def test_a_term_from_intake_to_the_published_final_report(tmp_path):
    config = make_config(tmp_path, CONFIG)
    now = [DEADLINE - 86_400]
    arena = Arena(config, ArenaStore(config.db, FAST_HASHER),
                  ladder=load_ladder(config.db, config.ladder, lambda: now[0]))
    organiser = arena.store.add_entrant("olga", role="organiser")   # as add-entrant does
    with TestClient(make_app(arena)) as olga:
        olga.post("/signin", data={"token": organiser, "csrf": csrf(olga, "/signin")})
        tokens = {}
        for name, per_day in (("alice", ""), ("bob", ""), ("carl", "3")):
            page = olga.post("/organiser/entrants", data={
                "name": name, "per_day": per_day, "csrf": csrf(olga, "/organiser")})
            tokens[name] = re.search(r"<code>([^<]+)</code>", page.text).group(1)
        assert "<td>carl</td><td>entrant</td><td>0</td><td>3</td>" in page.text
        assert olga.post("/organiser/entrants", data={
            "name": "dora", "per_day": "0", "csrf": csrf(olga, "/organiser")}).status_code == 400
        api = TestClient(make_app(arena))
        for name, code in (("alice", CRASHES), ("bob", GREEDY), ("carl", COPIED)):
            sent = api.post("/api/versions", content=archive(name, code),
                            headers={"Authorization": f"Bearer {tokens[name]}"})
            assert sent.status_code == 201, sent.text
        wait_for(lambda: not arena.store.queued(), timeout=120)

        # The gate: alice's bot does not start, and she reads why.
        gates = api.get("/api/versions", headers={"Authorization": f"Bearer {tokens['alice']}"})
        assert [(row["version"], row["state"]) for row in gates.json()] == \
            [("alice.v1", "failed")]
        assert "cannot start: no model file" in olga.get("/me/versions/alice.v1").text
        # The near copy: alike code on the organiser's page, side by side.
        assert '<a href="/organiser/alike/carl.v1/bob.v1">side by side</a>' in \
            olga.get("/organiser").text
        # The ladder plays: bob beats the random boss and is promoted, with the evidence on
        # his page and in the grade sheet; the copy is flagged for playing alike.
        wait_for(lambda: any(test.grade == "passed"
                             for test in arena.ladder.promotions("bob.v1")), timeout=180)
        assert "<td>wood</td><td>boss-random</td><td>passed</td>" in \
            olga.get("/bots/bob.v1").text
        grades = list(csv.DictReader(io.StringIO(olga.get("/organiser/grades.csv").text)))
        bob = next(row for row in grades if row["version"] == "bob.v1")
        assert (bob["grade"], bob["league"], bob["boss"]) == ("passed", "wood", "boss-random")
        assert float(bob["evidence"]) >= float(bob["needed"]) == pytest.approx(2 / (1 - 0.8))
        wait_for(arena.ladder.similar, timeout=180)
        assert re.search(r"<td>bob.v1</td><td>carl.v1</td><td>100%</td>",
                         olga.get("/organiser").text)
        assert "/report/" not in olga.get("/").text

        # The organiser brings the deadline forward, to an hour from now; it passes:
        # submissions close, the finals run, the report is published.
        assert "Submissions close at 2030-03-17T17:46:40+00:00" in olga.get("/").text
        wrong = olga.post("/organiser/deadline",
                          data={"deadline": "friday", "csrf": csrf(olga, "/organiser")})
        assert wrong.status_code == 400 and \
            "ladder.deadline 'friday' is not a date" in html.unescape(wrong.text)
        earlier = datetime.fromtimestamp(now[0] + 3600, timezone.utc).isoformat()
        moved = olga.post("/organiser/deadline",
                          data={"deadline": earlier, "csrf": csrf(olga, "/organiser")})
        assert f'name="deadline" value="{earlier}"' in moved.text
        assert arena.ladder.status().deadline == earlier
        now[0] += 3601
        late = api.post("/api/versions", content=archive("bob", GREEDY + "# later\n"),
                        headers={"Authorization": f"Bearer {tokens['bob']}"})
        assert late.status_code == 400 and "deadline" in late.json()["error"]
        wait_for(lambda: (config.report_dir / "index.html").exists(), timeout=180)
        report = olga.get("/report/")
        assert report.status_code == 200
        assert_scripts_allowed_only_by_hash(report)
        assert '<a href="/report/">the final report</a>' in olga.get("/").text
        assert arena.ladder.status().frozen
        # A deadline moved later after the finals opens nothing.
        olga.post("/organiser/deadline", data={"deadline": "", "csrf": csrf(olga, "/organiser")})
        assert not arena.ladder.status().past_deadline
        again = api.post("/api/versions", content=archive("bob", GREEDY + "# later\n"),
                         headers={"Authorization": f"Bearer {tokens['bob']}"})
        assert again.status_code == 400 and "deadline" in again.json()["error"]
        finals = re.search(r"<h1>(term-finals-\d+) ", report.text).group(1)
        replay = re.search(r'href="(index-replays/game-\d+\.html)"', report.text).group(1)
        replay_page = olga.get(f"/report/{replay}")
        assert replay_page.status_code == 200
        assert_scripts_allowed_only_by_hash(replay_page)
        # Public: no path of this machine in it.
        assert str(tmp_path) not in report.text
        assert_the_fold_of_the_stored_games(Store(config.db), finals, report.text)


def assert_scripts_allowed_only_by_hash(page: httpx.Response) -> None:
    """The page is served under a policy that runs its own inline scripts, each named by
    its hash, and no other inline script."""
    policy = dict(part.strip().split(" ", 1)
                  for part in page.headers["content-security-policy"].split(";"))
    allowed = set(policy["script-src"].split())
    assert "'unsafe-inline'" not in allowed
    inline = re.findall(r"<script>(.*?)</script>", page.text, re.DOTALL)
    hashes = {f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"
              for text in inline}
    assert hashes <= allowed


def assert_the_fold_of_the_stored_games(store: Store, finals: str, page: str) -> None:
    """Every number of the report's leaderboard and games table is the stored games'."""
    record = store.resolve(finals)
    games = store.games(finals)
    assert {"bob.v1", "carl.v1"} == {seat for game in games for seat in game.seats}
    params = rating_config(record)
    fold = Fold(params)
    for game in store.results(finals):
        fold.add(outcome(game))
    board = board_from(fold, [bot["name"] for bot in record.config["bots"]], params,
                       lambda: map(outcome, store.results(finals)),
                       fault_counts(store, finals), resamples=0)
    # A bot's cell: its name, then what it said it is.
    shown = {next(bot for bot in board.bots if html.unescape(cells[2]).startswith(bot)): cells
             for cells in table_rows(page, "board")}
    assert sorted(shown) == sorted(board.bots)
    for row in board:
        cells = shown[row.bot]
        assert cells[3] == f"{row.mu:.2f} ± {row.interval:.2f}"
        assert cells[5:13] == [f"{row.sigma:.2f}", f"{row.conservative:.2f}",
                               f"{row.games}{'*' if row.provisional else ''}", f"{row.wins}",
                               f"{100 * row.win_rate:.1f}%", f"{row.mean_place:.2f}",
                               f"{row.norm_score:.3f}", f"{row.ties}"]
    listed = table_rows(page, "games")
    assert [(int(cells[0]), int(cells[1]), cells[2]) for cells in listed] == [
        (game.game_index, game.id, ", ".join(f"{seat} {score}{rank}" for seat, score, rank
                                             in zip(game.seats, game.scores, game.ranks)))
        for game in games]
    assert f"{len(games)} of {record.total_games} games" in page


def table_rows(page: str, kind: str) -> list[list[str]]:
    """The text of each cell of each body row of the report's table of class ``kind``."""
    table = re.search(rf'<table class="{kind}"[^>]*>.*?<tbody>(.*?)</tbody>', page, re.S)
    assert table is not None, kind
    return [[re.sub(r"<[^>]+>", "", cell).strip()
             for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table.group(1), re.S)]
