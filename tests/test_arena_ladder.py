"""The arena's ladder: matches chosen from a seed and the stored results, played as small
tournaments, validated, placed, promoted, compared for similar play, and closed by finals.

The bots are in process (``python:``), so a match of two games costs a few milliseconds;
deals come from the seed alone (``secret_deals: false``), so two stores can be compared.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures.process import BrokenProcessPool
from datetime import datetime, timezone
from pathlib import Path

import pytest
import trueskill
from click.testing import CliRunner
from ladder_bots import HELD_FILE, HOLD_AFTER

from arena.apart import LadderApart
from arena.ladder import Ladder, LadderEntry
from arena.ladder_settings import ladder_settings
from arena import schema
from arena.ladder_store import MIGRATIONS as LADDER_MIGRATIONS
from arena.ladder_store import SCHEMA_KEY as LADDER_SCHEMA_KEY
from arena.ladder_store import LadderStore, MatchKind, MatchPlan, MatchStatus
from arena.leagues import Grade
from arena.matchmaking import Candidate, pick_field, quality
from arena.matches import MAX_ATTEMPTS
from circus_referee.main import main
from ratings.params import RatingConfig
from referee import sandbox
from tournaments.config import ConfigError
from tournaments.runner import Interrupted, TournamentError, TournamentRunner
from tournaments.store import Store, StoreError

TESTS = Path(__file__).resolve().parent
RANDOM = {"python": "bots.random_bot:RandomBot"}
GREEDY = {"python": "bots.flea_greedy:FleaGreedyBot"}
HALF = {"python": "bots.mixed:Mixed50"}
#: Compared runs must not differ by a timeout on a busy machine: a bank no machine spends.
SETTINGS = {"seed": 11, "deals": 1, "match": {"concurrency": 1, "secret_deals": False,
                                              "time": {"move_ms": 600_000}}}


def entries(*specs: tuple[str, str, dict]) -> list[LadderEntry]:
    return [LadderEntry(version, entrant, bot) for version, entrant, bot in specs]


FIELD = entries(("g1", "ann", GREEDY), ("r1", "bob", RANDOM), ("h1", "cat", HALF))


def play(ladder: Ladder, field: list[LadderEntry], matches: int) -> list[tuple[str, tuple]]:
    """Play ``matches`` matches; each one's kind and seats."""
    played = []
    for _ in range(matches):
        match = ladder.play_next(field)
        assert match is not None
        played.append((match.kind, match.field))
    return played


def board(ladder: Ladder) -> list[tuple[str, float, float, int]]:
    return [(row.version, row.mu, row.sigma, row.games) for row in ladder.standings()]


def test_the_same_seed_and_results_make_the_same_matches(tmp_path):
    first, second = (Ladder(tmp_path / name, SETTINGS) for name in ("a.sqlite", "b.sqlite"))
    assert play(first, FIELD, 12) == play(second, FIELD, 12)
    assert board(first) == board(second)
    # A new ladder on a store reads its results and carries on alike.
    again = Ladder(tmp_path / "a.sqlite", SETTINGS)
    assert board(again) == board(first)
    assert play(again, FIELD, 3) == play(second, FIELD, 3)
    other = Ladder(tmp_path / "c.sqlite", {**SETTINGS, "seed": 12})
    play(other, FIELD, 4)
    seeds = [[match.config["seed"] for match in ladder.records.matches()][:4]
             for ladder in (first, other)]
    assert seeds[0] != seeds[1]


def test_matches_played_at_once_are_chosen_from_the_results_before_them(tmp_path,
                                                                       monkeypatch):
    settings = {**SETTINGS, "parallel": 3}
    ladder = Ladder(tmp_path / "a.sqlite", settings)
    first = ladder.play_batch(FIELD)
    assert [(match.number, match.kind) for match in first] == \
        [(1, "validation"), (2, "validation"), (3, "validation")]
    assert [match.number for match in ladder.play_batch(FIELD)] == [4, 5, 6]
    # A batch stopped midway is finished by the next call, then the ladder goes on alike.
    add_game = Store.add_game
    stored = []

    def stopping(self, tournament, *args, **kwargs):
        game_id = add_game(self, tournament, *args, **kwargs)
        stored.append(tournament)
        if tournament.endswith("m000008") and stored.count(tournament) == 1:
            raise KeyboardInterrupt
        return game_id

    monkeypatch.setattr(Store, "add_game", stopping)
    with pytest.raises(Interrupted):
        ladder.play_batch(FIELD)
    monkeypatch.undo()
    assert [match.number for match in ladder.records.unfinished()] == [8]
    assert [match.number for match in Ladder(tmp_path / "a.sqlite", settings).play_batch(FIELD)
            ] == [8]
    again = Ladder(tmp_path / "a.sqlite", settings)
    play(again, FIELD, 2)
    whole = Ladder(tmp_path / "b.sqlite", settings)
    for _ in range(5):
        whole.play_batch(FIELD)
    assert [(m.kind, m.field) for m in again.records.matches()] == \
        [(m.kind, m.field) for m in whole.records.matches()]
    assert board(again) == board(whole)


def test_the_usual_commands_read_a_ladder_match(tmp_path):
    db = tmp_path / "a.sqlite"
    ladder = Ladder(db, SETTINGS)
    played = ladder.play_batch(FIELD) + ladder.play_batch(FIELD)
    name = played[-1].tournament
    listing = CliRunner().invoke(main, ["played", "--db", str(db), "-t", name])
    assert listing.exit_code == 0 and "finished" in listing.output, listing.output
    exported = CliRunner().invoke(main, ["export", "--db", str(db), "-t", name])
    records = [json.loads(line) for line in exported.output.splitlines()]
    assert {tuple(record["seats"]) for record in records} == {played[-1].field,
                                                              played[-1].field[::-1]}
    game = str(records[0]["game_id"])
    replayed = CliRunner().invoke(main, ["replay", game, "--db", str(db)])
    assert replayed.exit_code == 0 and f"game {game}: {name}" in replayed.output


def test_an_unsettled_version_plays_more_often_and_against_close_ratings():
    def pick(candidates, seed):
        return pick_field(candidates, 2, random.Random(seed), RatingConfig(),
                          placement_matches=4, settled_sigma=2.5, unsettled_weight=4)

    settled = [Candidate("a", "ann", 30, 1, 9), Candidate("b", "bob", 29, 1, 9),
               Candidate("far", "cat", 10, 1, 9)]
    fields = [pick([*settled, Candidate("new", "dan", 25, 25 / 3, 9)], seed)
              for seed in range(300)]
    assert Counter(field[0] for field in fields)["new"] > 250
    opponents = Counter(field[1] for field in (pick(settled, seed) for seed in range(300))
                        if field[0] == "a")
    assert opponents["b"] > 10 * opponents["far"]
    assert fields == [pick([*settled, Candidate("new", "dan", 25, 25 / 3, 9)], seed)
                      for seed in range(300)]
    # In its placement series a version is chosen every time, the least placed first.
    assert pick([*settled, Candidate("new", "dan", 25, 25 / 3, 1)], 0)[0] == "new"


def test_the_matchmaking_s_quality_is_trueskill_s():
    rng = random.Random(3)
    for _ in range(200):
        one, other = (Candidate("x", "y", rng.uniform(-10, 60), rng.uniform(0.5, 9), 0)
                      for _ in range(2))
        beta = rng.uniform(1, 8)
        env = trueskill.TrueSkill(beta=beta)
        assert quality(one, other, beta) == pytest.approx(trueskill.quality_1vs1(
            trueskill.Rating(one.mu, one.sigma), trueskill.Rating(other.mu, other.sigma),
            env=env), rel=1e-12)


def test_no_bot_is_shown_the_logs_of_the_ladder(tmp_path, monkeypatch):
    """The logs hold every entrant's bot logs: the runner hides them from every bot, as
    it hides the store, wherever the settings put them."""
    hidden = []
    start = TournamentRunner.__init__

    def spy(self, *args, **kwargs):
        start(self, *args, **kwargs)
        hidden.append(self.private)

    monkeypatch.setattr(TournamentRunner, "__init__", spy)
    logs = tmp_path / "elsewhere" / "logs"
    play(Ladder(tmp_path / "db" / "a.sqlite", {**SETTINGS, "logs": str(logs)}), FIELD, 1)
    assert hidden and logs in hidden[0] and tmp_path / "db" in hidden[0]


#: An entrant's bot that tries to read the files its PRY variable lists (another
#: entrant's code, the store), says in its log what it could, then plays the greedy bot.
PRYING_BOT = """import os, sys, runpy
for path in os.environ["PRY"].split(os.pathsep):
    try:
        open(path).read()
        print("READ", path, file=sys.stderr)
    except OSError:
        print("HIDDEN", path, file=sys.stderr)
runpy.run_module("bots.flea_greedy", run_name="__main__")
"""


@pytest.mark.skipif(sandbox.unavailable_reason() is not None, reason="no sandbox here")
def test_a_sandboxed_version_is_validated_and_sees_neither_others_code_nor_the_store(
        tmp_path):
    """A version as the service gives it: a command in its own folder, sandboxed."""
    folders = {name: tmp_path / "versions" / name for name in ("ann-1", "bob-1")}
    for folder in folders.values():
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text(PRYING_BOT)
    db, other = tmp_path / "arena" / "a.sqlite", folders["bob-1"] / "bot.py"
    ladder = Ladder(db, SETTINGS)   # matches are sandboxed unless `match:` says otherwise
    match = ladder.play_next([LadderEntry("ann-1", "ann", {
        "command": "python bot.py --address {address}", "dir": str(folders["ann-1"]),
        "env": {"PRY": os.pathsep.join([str(other), str(db)])}})])
    assert (match.kind, match.status, match.games, match.note) == \
        ("validation", "played", 2, "passed")
    log = (tmp_path / "arena" / "logs" / match.tournament / "ann-1.log").read_text()
    assert f"HIDDEN {other}" in log and f"HIDDEN {db}" in log and "READ" not in log


def test_a_command_that_names_a_file_outside_its_folder_is_refused_unplayed(tmp_path):
    """The sandbox shows a bot the files its command names: naming another entrant's
    code (or the store) would show it that."""
    folders = {name: tmp_path / "versions" / name for name in ("ann-1", "bob-1")}
    for folder in folders.values():
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text(PRYING_BOT)
    ladder = Ladder(tmp_path / "a.sqlite", SETTINGS)
    prying = LadderEntry("ann-1", "ann", {
        "command": "python bot.py --address {address} --peek=../bob-1/bot.py",
        "dir": str(folders["ann-1"])})
    played = play(ladder, [prying, *FIELD], 4)
    assert all("ann-1" not in seats for _, seats in played)
    row = {row.version: row for row in ladder.standings()}["ann-1"]
    assert row.validation == (f"failed: its command names {folders['bob-1'] / 'bot.py'}, "
                              "outside its folder (the sandbox would show it)")


def test_a_version_entered_after_the_others_were_validated_is_looked_at_first(tmp_path):
    """The ladder keeps its versions and looks at a command only until its version's
    validation: one entered later is still registered, checked and validated at once."""
    folder = tmp_path / "versions" / "ann-2"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(PRYING_BOT)
    ladder = Ladder(tmp_path / "a.sqlite", SETTINGS)
    play(ladder, FIELD, 4)
    prying = LadderEntry("ann-2", "ann", {"command": f"python bot.py --peek={tmp_path}",
                                          "dir": str(folder)})
    later = LadderEntry("d1", "dan", GREEDY)
    played = play(ladder, [*FIELD, prying, later], 3)
    assert played[0] == (MatchKind.VALIDATION, ("d1", "d1-copy2"))
    assert all("ann-2" not in seats for _, seats in played)
    rows = {row.version: row for row in ladder.standings()}
    assert rows["ann-2"].validation.startswith(f"failed: its command names {tmp_path}")
    assert rows["d1"].validation == "passed" and rows["g1"].validation == "passed"


def test_every_version_s_k_th_promotion_match_is_dealt_the_same_deals(tmp_path):
    settings = {**SETTINGS, "leagues": [{"name": "wood", "boss": {"name": "boss", **RANDOM}}]}
    ladder = Ladder(tmp_path / "a.sqlite", settings)
    play(ladder, FIELD, 21)
    seeds: dict[str, list[int]] = {}
    for match in ladder.records.matches(kind=MatchKind.PROMOTION):
        seeds.setdefault(match.field[0], []).append(match.config["seed"])
    assert len(seeds) == 3 and all(len(set(row)) == len(row) > 1 for row in seeds.values())
    shortest = min(len(row) for row in seeds.values())
    assert len({tuple(row[:shortest]) for row in seeds.values()}) == 1


def test_a_match_s_in_process_bots_start_and_stop_on_the_runner_s_thread(tmp_path,
                                                                        monkeypatch):
    """A match starts its bots, and starts them afresh before each seat rotation: for
    in-process bots that is a call, and a thread's start (a pool's for each) would cost
    more than it. The games' and the renewal's threads are kept from match to match, and
    a closed bot's call workers serve the next: a thread is started only when none
    waits (a bot's calls at once outnumber those)."""
    ladder = Ladder(tmp_path / "a.sqlite", {**SETTINGS, "deals": 2,
                                            "match": {**SETTINGS["match"], "concurrency": 2}})
    assert play(ladder, FIELD, 4)[-1][0] == MatchKind.LADDER
    started = []
    start = threading.Thread.start

    def noting(thread):
        started.append(thread.name.split("_")[0])
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", noting)
    assert play(ladder, FIELD, 1)[0][0] == MatchKind.LADDER
    assert set(started) <= {"inproc-bot"} and len(started) < 8


def test_every_match_is_a_stored_tournament_of_duplicate_deals(tmp_path):
    ladder = Ladder(tmp_path / "a.sqlite", {**SETTINGS, "deals": 2})
    play(ladder, FIELD, 5)
    store = Store(tmp_path / "a.sqlite")
    for match in ladder.records.matches():
        games = store.games(match.tournament)
        # A validation only looks for faults: one deal; the others have two.
        assert len(games) == (2 if match.kind == "validation" else 4)
        assert store.tournament(match.tournament).finished_at is not None
        for deal in ({game.group_index for game in games}):
            rotations = [game for game in games if game.group_index == deal]
            assert len({game.seed for game in rotations}) == 1
            assert {tuple(game.seats) for game in rotations} == {match.field, match.field[::-1]}


def test_the_verdict_on_the_ladders_order_settles_as_matches_are_played(tmp_path):
    ladder = Ladder(tmp_path / "a.sqlite", {**SETTINGS, "deals": 2})
    field = entries(("g1", "ann", GREEDY), ("r1", "bob", RANDOM))
    play(ladder, field, 2)
    assert not ladder.verdict(["g1", "r1"], 0.9).certified
    for _ in range(20):
        ladder.play_next(field)
        found = ladder.verdict(["g1", "r1"], 0.9)
        if found.certified:
            break
    assert found.certified and found.order == ["g1", "r1"]


def test_a_new_version_is_validated_against_copies_of_itself_first(tmp_path):
    ladder = Ladder(tmp_path / "a.sqlite", SETTINGS)
    field = [*FIELD, LadderEntry("s1", "dan", {"python": "ladder_bots:Sloppy"})]
    played = play(ladder, field, 8)
    assert played[:4] == [(MatchKind.VALIDATION, (version, f"{version}-copy2"))
                          for version in ("g1", "r1", "h1", "s1")]
    # The rule breaker failed its validation and is never seated on the ladder.
    assert all("s1" not in seats for _, seats in played[4:])
    rows = {row.version: row for row in ladder.standings()}
    assert rows["s1"].validation.startswith("failed: ") and "illegal" in rows["s1"].validation
    assert rows["g1"].validation == "passed"


def test_a_new_version_places_first_and_may_inherit_its_entrants_rating(tmp_path):
    settings = {**SETTINGS, "new_rating": "inherit", "placement_matches": 3}
    ladder = Ladder(tmp_path / "a.sqlite", settings)
    play(ladder, FIELD, 12)
    before = {row.version: row for row in ladder.standings()}
    field = [*FIELD, LadderEntry("g2", "ann", {"python": "ladder_bots:CopiedGreedy"})]
    assert play(ladder, field, 1) == [(MatchKind.VALIDATION, ("g2", "g2-copy2"))]
    start = {row.version: row for row in ladder.standings()}["g2"]
    assert (start.mu, start.sigma, start.games) == (before["g1"].mu, 25 / 3, 0)
    ladder_matches = [seats for kind, seats in play(ladder, field, 3) if kind == "ladder"]
    assert ladder_matches and all(seats[0] == "g2" for seats in ladder_matches)
    # Against another entrant: its own earlier version only when no one else is left.
    assert all(seats[1] != "g1" for seats in ladder_matches)
    fresh = Ladder(tmp_path / "b.sqlite", {**settings, "new_rating": "fresh"})
    play(fresh, FIELD, 12)
    play(fresh, field, 1)
    assert {row.version: row for row in fresh.standings()}["g2"].mu == 25


def test_a_match_that_keeps_failing_after_storing_games_is_given_up_unrated(tmp_path,
                                                                            monkeypatch):
    ladder = Ladder(tmp_path / "a.sqlite", {**SETTINGS, "deals": 2})
    play(ladder, FIELD, 4)
    add_game = Store.add_game

    def stored_then_stopped(self, *args, **kwargs):
        add_game(self, *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(Store, "add_game", stored_then_stopped)
    with pytest.raises(Interrupted):
        ladder.play_next(FIELD)
    [cut] = ladder.records.unfinished()
    monkeypatch.setattr(Store, "add_game", add_game)

    def lost(self):
        raise TournamentError("the cluster was lost")

    monkeypatch.setattr(TournamentRunner, "run", lost)
    for _ in range(MAX_ATTEMPTS - 1):
        with pytest.raises(TournamentError, match="the cluster was lost"):
            ladder.play_next(FIELD)
    given_up = ladder.play_next(FIELD)
    assert (given_up.number, given_up.status, given_up.games) == (cut.number, "failed", 1)
    monkeypatch.undo()
    assert ladder.play_next(FIELD).number == cut.number + 1
    rated = sum(match.games for match in ladder.records.matches()
                if match.kind == "ladder" and match.status == "played")
    assert sum(games for *_, games in board(ladder)) == 2 * rated


#: The killed ladder's field (its subprocess imports it).
KILL_FIELD = entries(("g1", "ann", {"python": "ladder_bots:HeldGreedy"}),
                     ("r1", "bob", RANDOM), ("h1", "cat", HALF))


def test_a_match_killed_midway_is_resumed_and_no_game_is_rated_twice(tmp_path):
    """kill -9 of a ladder while a game is under way, then a new ladder on the store: it
    finishes the match, and the ratings are those of a ladder never killed."""
    settings, field = SETTINGS, KILL_FIELD
    killed, held = tmp_path / "killed.sqlite", tmp_path / "held"
    script = ("import sys; from pathlib import Path; from arena.ladder import Ladder;"
              "import test_arena_ladder as t\n"
              "ladder = Ladder(Path(sys.argv[1]), t.SETTINGS)\n"
              "while ladder.play_next(t.KILL_FIELD): pass\n")
    env = {**os.environ, HOLD_AFTER: "150", HELD_FILE: str(held),
           "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([sys.executable, "-c", script, str(killed)], env=env)
    try:
        deadline = time.monotonic() + 120
        while not held.exists():
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    records = LadderStore(killed)
    [cut] = records.unfinished()
    assert cut.number > 4
    resumed = Ladder(killed, settings)
    assert resumed.play_next(field).number == cut.number
    total = cut.number + 3
    while records.next_number() <= total:
        resumed.play_next(field)
    never_killed = Ladder(tmp_path / "whole.sqlite", settings)
    whole = play(never_killed, field, total)
    assert [(m.kind, m.field) for m in records.matches()] == whole
    assert board(resumed) == board(never_killed)
    # Every stored game of a rated match is counted once.
    store = Store(killed)
    seated = sum(len(game.seats) for match in records.matches()
                 if match.kind in (MatchKind.LADDER, MatchKind.PROMOTION)
                 for game in store.games(match.tournament))
    assert sum(games for *_, games in board(resumed)) == seated


def test_the_service_s_ladder_plays_in_a_child_that_dies_with_it(tmp_path):
    """The playing thread's ladder (arena.apart) plays its matches in a process of its
    own, and a kill -9 of the service's process mid-game ends it: no orphan plays on."""
    held = tmp_path / "held"
    script = ("import os, sys; from pathlib import Path\n"
              "from arena.apart import LadderApart; import test_arena_ladder as t\n"
              "apart = LadderApart(Path(sys.argv[1]), t.SETTINGS)\n"
              "print(apart.pool.submit(os.getpid).result(), flush=True)\n"
              "while apart.play_next(t.KILL_FIELD): pass\n")
    env = {**os.environ, HOLD_AFTER: "150", HELD_FILE: str(held),
           "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    service = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "a.sqlite")],
                               env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert service.stdout is not None
        child = int(service.stdout.readline())
        deadline = time.monotonic() + 120
        while not held.exists():
            assert service.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
    finally:
        service.kill()
        service.wait()
    assert child != service.pid and LadderStore(tmp_path / "a.sqlite").unfinished()
    deadline = time.monotonic() + 60
    while alive(child):
        assert time.monotonic() < deadline, "the ladder's child outlived the service"
        time.sleep(0.05)


def test_the_ladder_apart_answers_what_the_playing_thread_asks(tmp_path):
    apart = LadderApart(tmp_path / "a.sqlite", SETTINGS)
    try:
        assert apart.play_next(FIELD).kind == "validation"
        assert not apart.status().paused and apart.status().matches == 1
        assert apart.final_entries(FIELD) == FIELD
        # A child that died is replaced: the call it took fails, the next plays on.
        os.kill(apart.pool.submit(os.getpid).result(), signal.SIGKILL)
        with pytest.raises(BrokenProcessPool):
            apart.play_next(FIELD)
        assert apart.play_next(FIELD).number == 2
    finally:
        apart.close()


def test_the_ladder_apart_plays_on_until_a_batch_may_not_start(tmp_path):
    """Given time to play on, the child plays batch after batch in one call, and reads
    what holds the ladder (here the cap: 8 games, four matches of two) before each."""
    apart = LadderApart(tmp_path / "a.sqlite", {**SETTINGS, "games_per_hour": 8},
                        play_on_s=600)
    try:
        assert apart.play_next(FIELD).number == 4
        assert apart.status().capped_until is not None and apart.play_next(FIELD) is None
    finally:
        apart.close()


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for its reaper does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def test_the_ladder_s_rows_sync_as_the_games_do(tmp_path):
    """In WAL mode both of a ladder's connections sync at checkpoints (a commit survives
    a kill, as the test above shows), not at each commit: a sync per match's start and end
    would slow the ladder beside a tournament."""
    ladder = Ladder(tmp_path / "a.sqlite", SETTINGS)
    synchronous = [connection.execute("PRAGMA synchronous").fetchone()[0]
                   for connection in (ladder.store.db, ladder.records.db)]
    assert synchronous == [1, 1]   # NORMAL
    assert LadderStore(tmp_path / "rollback.sqlite").db.execute(
        "PRAGMA synchronous").fetchone()[0] == 2   # FULL, outside WAL mode


def test_a_stronger_version_is_promoted_past_the_random_boss_and_graded(tmp_path):
    settings = {**SETTINGS, "leagues": [
        {"name": "wood", "boss": {"name": "boss-random", **RANDOM}, "confidence": 0.9},
        {"name": "bronze", "boss": {"name": "boss-greedy", **GREEDY}, "confidence": 0.9,
         "max_deal_sets": 6}]}
    ladder = Ladder(tmp_path / "a.sqlite", settings)
    field = entries(("g1", "ann", GREEDY), ("r1", "bob", RANDOM))
    for _ in range(80):
        ladder.play_next(field)
        tests = ladder.promotions()
        if tests["g1"][0].grade is Grade.PASSED and tests["g1"][1].grade is not Grade.OPEN:
            break
    wood, bronze = ladder.promotions()["g1"]
    assert wood.grade is Grade.PASSED and wood.evidence >= wood.needed == pytest.approx(2 / (1 - 0.9))
    # Against a boss of its own strength the test ends undecided at its budget.
    assert bronze.grade is Grade.UNDECIDED and bronze.deal_sets == 6
    assert ladder.promotions()["r1"][0].grade is not Grade.PASSED
    assert {row.version: row.league for row in ladder.standings()}["g1"] == "bronze"
    assert len(wood.matches) == len(set(wood.matches)) > 0
    store = Store(tmp_path / "a.sqlite")
    assert all(set(store.games(name)[0].seats) == {"g1", "boss-random"} for name in wood.matches)
    sheet = ladder.grades_csv().splitlines()
    assert sheet[0] == "entrant,version,league,boss,grade,confidence,evidence,needed,deal_sets"
    assert any(line.startswith("ann,g1,wood,boss-random,passed,0.9,") for line in sheet)


def test_a_near_copy_is_flagged_for_playing_alike(tmp_path):
    settings = {**SETTINGS, "similarity": {"share": 0.9, "points": 20}}
    ladder = Ladder(tmp_path / "a.sqlite", settings)
    field = entries(("g1", "ann", GREEDY), ("c1", "bob", {"python": "ladder_bots:CopiedGreedy"}),
                    ("r1", "cat", RANDOM))
    played = play(ladder, field, 12)
    assert any(set(seats) == {"g1", "c1"} for kind, seats in played if kind == "ladder")
    flagged = ladder.similar()
    assert [(pair.a, pair.b) for pair in flagged] == [("c1", "g1")]
    assert flagged[0].share == 1.0 and flagged[0].games
    # Every pair that met at identical decision points, as similar() just counted them.
    met = [pair for pair in ladder.agreements.flagged(0.0, 1) if "r1" in (pair.a, pair.b)]
    assert met and all(pair.share < 0.9 for pair in met)


def test_a_near_copy_is_flagged_on_the_bosss_deals_though_it_never_met_its_original(
        tmp_path):
    """Every version's k-th promotion match is dealt the same deals: two versions meet
    there at identical decision points (the boss plays the same on the same deal)."""
    settings = {**SETTINGS, "similarity": {"share": 0.9, "points": 10}, "leagues": [
        {"name": "wood", "boss": {"name": "boss", "python": "ladder_bots:FirstLegal"}}]}
    ladder = Ladder(tmp_path / "a.sqlite", settings)
    field = entries(("g1", "ann", GREEDY), ("c1", "ann", {"python": "ladder_bots:CopiedGreedy"}),
                    ("r1", "bob", RANDOM), ("h1", "cat", HALF))
    played = play(ladder, field, 14)
    assert not any({"g1", "c1"} <= set(seats) for _, seats in played)
    assert [(pair.a, pair.b, pair.share) for pair in ladder.similar()] == [("c1", "g1", 1.0)]


def test_finals_settle_a_final_standing_and_freeze_the_ladder(tmp_path, monkeypatch):
    ladder = Ladder(tmp_path / "a.sqlite", {**SETTINGS, "finals": {"max_games": 600}})
    play(ladder, [*FIELD, LadderEntry("g0", "ann", RANDOM)], 5)
    assert [entry.version_id for entry in ladder.final_entries(
        [*FIELD, LadderEntry("g0", "ann", RANDOM)])] == ["r1", "h1", "g0"]
    add_game = Store.add_game

    def stopped_at_the_tenth(self, *args, **kwargs):
        if len(self.done_indices(args[0])) == 9:
            raise KeyboardInterrupt
        return add_game(self, *args, **kwargs)

    monkeypatch.setattr(Store, "add_game", stopped_at_the_tenth)
    with pytest.raises(Interrupted):
        ladder.run_finals(FIELD)
    monkeypatch.undo()
    # Finals begun hold the ladder; asked again, they go on from their stored games.
    assert ladder.play_next(FIELD) is None and not ladder.status().frozen
    final = ladder.run_finals(FIELD)
    assert final.settled and final.order[0] == "g1" and final.order[-1] == "r1"
    assert final.games <= 600
    assert ladder.status().frozen and ladder.play_next(FIELD) is None
    # Asked again (say, after a restart), the stored finals are not played again.
    assert Ladder(tmp_path / "a.sqlite", SETTINGS).run_finals(FIELD).games == final.games


def test_the_cap_pause_and_deadline_hold_the_ladder(tmp_path):
    now = [1_000_000.0]
    ladder = Ladder(tmp_path / "a.sqlite", {**SETTINGS, "games_per_hour": 4,
                                            "deadline": "2000-01-01T00:00:00+00:00"},
                    clock=lambda: now[0])
    assert play(ladder, FIELD, 2)
    assert ladder.play_next(FIELD) is None
    assert ladder.status().capped_until == pytest.approx(now[0] + 3600)
    now[0] += 3601
    ladder.pause()
    assert ladder.play_next(FIELD) is None and ladder.status().paused
    ladder.resume()
    assert ladder.play_next(FIELD) is not None
    assert [match.number for match in ladder.recent(2)] == [3, 2]
    assert ladder.play_next([]) is None   # no version: nothing to play
    now[0] = 946_684_800.0 + 1   # past the deadline
    now_ladder = Ladder(tmp_path / "a.sqlite", {**SETTINGS, "deadline": "2000-01-01T00:00:00Z"},
                        clock=lambda: now[0])
    assert now_ladder.status().past_deadline and now_ladder.play_next(FIELD) is None


def test_an_uncapped_ladder_does_not_count_its_hour_before_each_batch(tmp_path, monkeypatch):
    """Matches finished in the last hour are tens of thousands for a ladder that never
    stops: read before a batch only under a games-per-hour cap."""
    ladder = Ladder(tmp_path / "a.sqlite", SETTINGS)
    monkeypatch.setattr(LadderStore, "finish_times", lambda *args: pytest.fail("read"))
    assert len(play(ladder, FIELD, 4)) == 4


@pytest.mark.parametrize("bad, message", [
    ({"deals": 0}, "ladder.deals must be at least 1"),
    ({"new_rating": "keep"}, "ladder.new_rating must be one of fresh, inherit"),
    ({"match": {"rounds": 3}}, "ladder.match: rounds are set by the ladder itself"),
    ({"match": {"time": {"move": 3}}}, "ladder: unknown key time.'move' (did you mean 'move_ms'?"),
    ({"leagues": [{"name": "wood"}]}, "ladder.leagues[1].boss is missing"),
    ({"leagues": [{"name": "wood", "boss": {"name": "a", **RANDOM}},
                  {"name": "wood", "boss": {"name": "b", **GREEDY}}]},
     "ladder.leagues: two leagues (or a league and top_league) have one name"),
    ({"leagues": [{"boss": {"name": "b"}}]}, "ladder: bot 'b' needs exactly one of"),
    ({"deadline": "soon"}, "ladder.deadline 'soon' is not a date and time"),
    ({"rating": {"tau": "high"}}, "ladder.rating.tau must be float, not 'high'"),
    ({"rating": {"sigma": 0}}, "ladder: rating.sigma must be from 0.001"),
    ({"games_per_hour": 0}, "ladder.games_per_hour must be at least 1"),
    ({"finlas": {}}, "unknown key ladder.'finlas' (did you mean 'finals'?"),
])
def test_bad_settings_are_refused_in_one_line(bad, message):
    with pytest.raises(ConfigError) as caught:
        ladder_settings(bad)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


@pytest.mark.parametrize("version, message", [
    ("../x", "version id '../x' is not allowed"),
    ("v" * 57, "is not allowed: use 1-56 letters"),
    ("boss", "version id 'boss' is given twice or names a boss"),
    ("r1", "version id 'r1' is given twice"),
])
def test_a_version_id_must_name_one_bot(tmp_path, version, message):
    ladder = Ladder(tmp_path / "a.sqlite", {**SETTINGS, "leagues": [
        {"name": "wood", "boss": {"name": "boss", **RANDOM}}]})
    with pytest.raises(ConfigError, match=message):
        ladder.play_next([LadderEntry(version, "ann", GREEDY), *FIELD])


def test_finals_whose_round_is_over_the_budget_are_refused(tmp_path):
    ladder = Ladder(tmp_path / "a.sqlite", {**SETTINGS, "finals": {"max_games": 5}})
    with pytest.raises(ConfigError, match=r"makes 6 games, more than finals.max_games \(5\)"):
        ladder.run_finals(FIELD)
    assert not ladder.status().frozen and ladder.play_next(FIELD) is not None


#: The ladder's tables as the first release made them, before they carried a version.
UNVERSIONED_LADDER = """
CREATE TABLE ladder_matches (number INTEGER PRIMARY KEY, tournament TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL, field TEXT NOT NULL, league TEXT, config TEXT NOT NULL,
    created_at REAL NOT NULL, finished_at REAL, status TEXT,
    games INTEGER NOT NULL DEFAULT 0, note TEXT NOT NULL DEFAULT '',
    failures INTEGER NOT NULL DEFAULT 0);
CREATE TABLE ladder_versions (version TEXT PRIMARY KEY, entrant TEXT NOT NULL,
    registered INTEGER NOT NULL, parent TEXT, validation TEXT);
CREATE TABLE ladder_flags (name TEXT PRIMARY KEY, value TEXT NOT NULL, at REAL NOT NULL);
"""


def test_what_every_batch_asks_of_the_ladder_s_matches_is_read_from_an_index(tmp_path):
    """Before each batch the ladder asks for a match left unfinished and for finals
    begun: from indices, not by reading every match stored (a ladder that never stops
    stores tens of thousands)."""
    ladder = Ladder(tmp_path / "a.sqlite", SETTINGS)
    play(ladder, FIELD, 3)
    asked: list[str] = []
    ladder.records.db.set_trace_callback(asked.append)
    play(ladder, FIELD, 2)
    ladder.records.db.set_trace_callback(None)
    reads = [query for query in asked if query.lstrip().upper().startswith("SELECT")
             and "ladder_matches" in query]
    assert any("finished_at IS NULL" in query for query in reads)
    for query in reads:
        plan = [row[3] for row in ladder.records.db.execute(f"EXPLAIN QUERY PLAN {query}")]
        assert not [step for step in plan if step == "SCAN ladder_matches"], query


def test_a_match_kept_or_marked_over_is_what_the_store_reads_back(tmp_path):
    records = LadderStore(tmp_path / "a.sqlite")
    plan = MatchPlan(1, "m1", MatchKind.LADDER, ("a", "b"), None,
                     {"name": "m1", "bots": ({"name": "a"}, {"name": "b"}), "seed": 3})
    [kept] = records.add_matches([plan])
    assert [kept] == records.matches() and kept.config["bots"] == [{"name": "a"},
                                                                    {"name": "b"}]
    assert records.finish_match(1, MatchStatus.PLAYED, 2, "")
    assert not records.finish_match(1, MatchStatus.FAILED, 0, "again")
    assert (records.match(1).status, records.match(1).games) == ("played", 2)


def test_ladder_tables_made_before_their_schema_version_are_migrated_with_their_rows(
        tmp_path):
    path = tmp_path / "a.sqlite"
    ladder = Ladder(path, SETTINGS)
    play(ladder, FIELD, 4)
    before = board(ladder)
    ladder.close()
    older = tmp_path / "older.sqlite"
    db = sqlite3.connect(older)
    db.executescript(UNVERSIONED_LADDER)
    db.execute(f"ATTACH DATABASE '{path}' AS made")
    for table in ("ladder_matches", "ladder_versions", "ladder_flags"):
        db.execute(f"INSERT INTO {table} SELECT * FROM made.{table}")
    # The tournaments' tables as they are: only the ladder's changed.
    for table, in db.execute("SELECT name FROM made.sqlite_master WHERE type = 'table' AND "
                             "name NOT LIKE 'ladder_%' AND name NOT LIKE 'arena_%'").fetchall():
        sql = db.execute("SELECT sql FROM made.sqlite_master WHERE name = ?",
                         (table,)).fetchone()[0]
        db.execute(sql)
        db.execute(f"INSERT INTO main.{table} SELECT * FROM made.{table}")
    db.commit()
    db.execute("DETACH DATABASE made")
    db.close()
    again = Ladder(older, SETTINGS)
    assert schema.version(again.records.db, LADDER_SCHEMA_KEY) == len(LADDER_MIGRATIONS)
    assert board(again) == before and len(again.records.matches()) == 4
    assert play(again, FIELD, 1)


def test_a_file_from_a_newer_circus_referee_is_refused_in_one_line(tmp_path):
    path = tmp_path / "a.sqlite"
    LadderStore(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE arena_meta SET value = '99' WHERE key = ?", (LADDER_SCHEMA_KEY,))
    db.commit()
    db.close()
    with pytest.raises(StoreError) as caught:
        Ladder(path, SETTINGS)
    assert str(caught.value) == (
        f"{path}: its ladder tables are at schema version 99, newer than this "
        f"circus-referee's {len(LADDER_MIGRATIONS)}: open it with a newer circus-referee")


def test_a_deadline_the_organiser_sets_holds_over_the_settings_and_after_a_restart(tmp_path):
    now = [946_684_800.0]   # 2000-01-01T00:00:00Z
    settings = {**SETTINGS, "deadline": "2000-01-02T00:00:00+00:00"}
    ladder = Ladder(tmp_path / "a.sqlite", settings, clock=lambda: now[0])
    ladder.set_deadline(datetime(1999, 12, 31, tzinfo=timezone.utc))
    again = Ladder(tmp_path / "a.sqlite", settings, clock=lambda: now[0])
    assert again.status().deadline == "1999-12-31T00:00:00+00:00"
    assert again.status().past_deadline and again.play_next(FIELD) is None
    again.set_deadline(None)
    assert ladder.status().deadline == "2000-01-02T00:00:00+00:00"
    assert not ladder.status().past_deadline and ladder.play_next(FIELD) is not None


def test_the_collusion_check_takes_each_rated_matchs_deal_set_as_a_table(tmp_path):
    """Five versions at three seats: every pair that sat together is counted once a match
    (one deal set), and the validations (a version against copies of itself) are left out."""
    field = entries(("g1", "ann", GREEDY), ("r1", "bob", RANDOM), ("h1", "cat", HALF),
                    ("r2", "dan", RANDOM), ("g2", "eve", GREEDY))
    ladder = Ladder(tmp_path / "ladder.sqlite", {**SETTINGS, "players": 3})
    kinds = Counter(kind for kind, _ in play(ladder, field, 40))
    assert kinds[MatchKind.VALIDATION] == 5
    check = ladder.collusion()
    rated = [set(match.field) for match in ladder.records.matches()
             if match.kind is not MatchKind.VALIDATION]
    assert check.untested is None and check.tested > 0
    assert {(pair.a, pair.b): pair.together for pair in check.pairs} == {
        (a, b): sum({a, b} <= seated for seated in rated)
        for a, b in [("g1", "g2"), ("g1", "h1"), ("g1", "r1"), ("g1", "r2"), ("g2", "h1"),
                     ("g2", "r1"), ("g2", "r2"), ("h1", "r1"), ("h1", "r2"), ("r1", "r2")]}
