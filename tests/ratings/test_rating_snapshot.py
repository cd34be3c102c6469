"""The ratings snapshot kept in the store: the same leaderboard byte for byte with it and
without it, carried on with games stored after it, made again when a game before its end or
the parameters change, kept by the runner, and added to stores from before it (so a
100,000-game board is read in seconds)."""

from __future__ import annotations

import json
import random
import sqlite3

import pytest
from click.testing import CliRunner

from circus_referee.main import main
from ratings.board import Fold, fold_key
from ratings.params import RatingConfig
from referee.match import MatchResult
from tournaments import store as store_module
from tournaments.schedule import Pairing
from tournaments.standings import outcome, rating_config
from tournaments.store import Store

BOTS = ["a", "b", "c", "d", "e", "idle"]
PARAMS = {"beta": 4.0, "draw_probability": 0.05}
#: Every leaderboard output: each format, every section, resampled or not.
OUTPUTS = [[], ["--format", "json", "--h2h", "--los", "--seats", "--history", "b"],
           ["--format", "csv"], ["--format", "csv", "--seats"],
           ["--format", "markdown", "--h2h", "--seats", "--history", "idle"],
           ["--resamples", "3", "--h2h", "--los"]]


def add_games(store: Store, first: int, count: int, seed: int) -> None:
    """Games of 2–4 of the bots but ``idle``, with ties and void games."""
    rng = random.Random(seed)
    for index in range(first, first + count):
        seats = tuple(rng.sample(BOTS[:5], rng.choice([2, 3, 4])))
        ranks = [rng.randint(1, len(seats)) for _ in seats]
        ranks = [1 + sorted(ranks).index(rank) for rank in ranks]   # competition ranks
        status = "void" if rng.random() < 0.05 else "finished"
        result = MatchResult(seats, 0, "flea-circus", "standard", [5 - r for r in ranks], ranks,
                             status, "", [0], [(0, 1, 0.5)], [], "", "", 0.01)
        store.add_game("t", Pairing(index, index, 0, seats, 0), result)


def make_store(path, games: int = 60) -> None:
    store = Store(path)
    config = {"game": "flea-circus", "variant": "standard", "rating": PARAMS,
              "bots": [{"name": bot} for bot in BOTS]}
    store.create_tournament("t", config, config, games + 10, "")
    add_games(store, 0, games, seed=1)
    store.close()


def board(path, *args: str) -> str:
    """The command's output; without resampling unless asked (the bootstrap of every
    resample is slow, and is the same with the snapshot or without)."""
    if "--resamples" not in args:
        args = (*args, "--resamples", "0")
    result = CliRunner().invoke(main, ["leaderboard", "--db", str(path), *args])
    assert result.exit_code == 0, result.output
    return result.output


def kept(path) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT tournament, games, fold FROM rating_snapshots").fetchall()


def forget(path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM rating_snapshots")


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "r.sqlite"
    make_store(path)
    return path


def test_the_board_is_the_same_byte_for_byte_with_the_snapshot_and_without(db):
    for args in OUTPUTS:
        forget(db)
        folded = board(db, *args)        # folds the games, and keeps the snapshot
        assert len(kept(db)) == 1
        assert board(db, *args) == folded, args


def test_the_kept_snapshot_is_what_the_board_shows(db):
    board(db)
    with sqlite3.connect(db) as connection:
        (text,) = connection.execute("SELECT fold FROM rating_snapshots").fetchone()
        fold = json.loads(text)
        fold["ratings"]["a"] = [40.0, 1.0]
        connection.execute("UPDATE rating_snapshots SET fold = ?", (json.dumps(fold),))
    rows = json.loads(board(db, "--format", "json"))["leaderboard"]
    assert rows[0]["bot"] == "a" and rows[0]["mu"] == pytest.approx(40.0)


def test_games_stored_after_the_snapshot_are_folded_on(db):
    board(db)
    store = Store(db)
    key = fold_key(rating_config(store.resolve("t")))
    before = store.snapshot("t", key)
    add_games(store, 60, 3, seed=2)             # later in the schedule: a run going on
    assert store.snapshot("t", key) == before   # still true of the games it covers
    store.close()
    with_new_games = board(db, "--format", "json", "--h2h", "--seats")
    assert kept(db)[0][1] == 63                 # carried on, and kept
    forget(db)
    assert board(db, "--format", "json", "--h2h", "--seats") == with_new_games


def test_a_board_during_a_run_keeps_the_snapshot_before_the_first_gap(db):
    store = Store(db)
    add_games(store, 65, 1, seed=3)             # 60-64 still being played, as in a run
    store.close()
    first = board(db, "--format", "json", "--h2h", "--seats")
    store = Store(db)
    key = fold_key(rating_config(store.resolve("t")))
    assert store.snapshot("t", key)["last_index"] == 59
    add_games(store, 62, 1, seed=4)             # after the snapshot: it still holds
    assert store.snapshot("t", key)["last_index"] == 59
    store.close()
    later = board(db, "--format", "json", "--h2h", "--seats")
    assert later != first
    forget(db)
    assert board(db, "--format", "json", "--h2h", "--seats") == later


def test_a_game_stored_before_the_snapshots_last_index_makes_it_again(db):
    store = Store(db)
    add_games(store, 65, 1, seed=3)     # 60-64 skipped: a run's snapshot covers 65 too
    params = rating_config(store.resolve("t"))
    fold = Fold(params)
    for game in store.results("t"):
        fold.add(outcome(game))
    store.keep_snapshot("t", fold_key(params), fold.to_json())
    assert store.snapshot("t", fold_key(params))["last_index"] == 65
    add_games(store, 62, 1, seed=4)     # a resumed run plays a skipped game
    assert store.snapshot("t", fold_key(params)) is None
    store.close()
    refolded = board(db, "--format", "json", "--h2h", "--seats")
    forget(db)
    assert board(db, "--format", "json", "--h2h", "--seats") == refolded


def test_a_snapshot_of_other_parameters_or_version_is_not_used(db, monkeypatch):
    board(db)
    store = Store(db)
    params = rating_config(store.resolve("t"))
    assert store.snapshot("t", fold_key(params)) is not None
    assert store.snapshot("t", fold_key(RatingConfig(beta=5.0))) is None
    monkeypatch.setattr("ratings.board.FOLD_VERSION", 99)
    assert store.snapshot("t", fold_key(params)) is None
    store.close()


def test_a_store_from_before_snapshots_gets_their_table(tmp_path, monkeypatch):
    old = tmp_path / "old.sqlite"
    monkeypatch.setattr(store_module, "SCHEMA", without_snapshots(store_module.SCHEMA))
    make_store(old)
    with sqlite3.connect(old) as connection:
        tables = {name for name, in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "rating_snapshots" not in tables and "games" in tables
    monkeypatch.undo()
    first = board(old, "--format", "json", "--seats")
    assert len(kept(old)) == 1
    assert board(old, "--format", "json", "--seats") == first


def without_snapshots(schema: str) -> str:
    start = schema.index("CREATE TABLE IF NOT EXISTS rating_snapshots")
    return schema[:start] + schema[schema.index(");", start) + 2:]


CONFIG = """
name: small
game: flea-circus
players: 3
rounds: 1
seed: 5
concurrency: 2
rating: {beta: 5.0}
bots:
  - {name: greedy, python: "bots.flea_greedy:FleaGreedyBot"}
  - {name: r1, python: "bots.random_bot:RandomBot"}
  - {name: r2, python: "bots.random_bot:RandomBot"}
  - {name: r3, python: "bots.random_bot:RandomBot"}
"""


def test_the_runner_keeps_the_snapshot_of_every_game_it_stored(tmp_path):
    (tmp_path / "bots.yaml").write_text(CONFIG)
    path = tmp_path / "r.sqlite"
    result = CliRunner().invoke(main, ["tournament", str(tmp_path / "bots.yaml"), "--db",
                                       str(path), "--logs", str(tmp_path / "logs"), "-q"])
    assert result.exit_code == 0, result.output
    store = Store(path)
    record = store.resolve("small")
    params = rating_config(record)
    snapshot = store.snapshot("small", fold_key(params))
    fold = Fold(params)
    for game in store.results("small"):
        fold.add(outcome(game))
    store.close()
    assert snapshot is not None and snapshot["games"] == 12
    assert snapshot == json.loads(json.dumps(fold.to_json()))
