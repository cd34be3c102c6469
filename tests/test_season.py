"""A field that changes during a season: what code played each game,
and adding, replacing, withdrawing and extending, each said before it is done."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import run_tournament, write_config
from invariants import assert_consistent

from circus_referee.main import main
from referee.settings import BotSpec
from tournaments.config import load_config
from tournaments.fingerprint import fingerprint
from tournaments.runner import TournamentError
from tournaments.standings import standings
from tournaments.store import Store

RANDOM, GREEDY = "bots.random_bot:RandomBot", "bots.flea_greedy:FleaGreedyBot"


def league(folder: Path, bots: dict[str, str], rounds: int = 2, fmt: str = "round-robin"
           ) -> Path:
    """A heads-up Flea Circus league of in-process bots (name: python class)."""
    entries = "\n".join(f"  - {{name: {name}, python: \"{python}\"}}"
                        for name, python in bots.items())
    return write_config(folder, f"name: season\ngame: flea-circus\nplayers: 2\n"
                                f"rounds: {rounds}\nformat: {fmt}\nseed: 7\nbots:\n{entries}\n")


FIELD = {"a": GREEDY, "b": RANDOM, "c": RANDOM}


def cli(*args: object) -> str:
    result = CliRunner().invoke(main, [str(arg) for arg in args])
    assert result.exit_code == 0, result.output
    return result.output


def season(path: Path, db: Path, *options: str, apply: bool = True) -> str:
    """The season command's dry run, then (with ``apply``) the change made."""
    dry = cli("season", path, "--db", db, *options)
    assert "dry run: nothing changed" in dry
    return cli("season", path, "--db", db, *options, "--apply") if apply else dry


def games_of(store: Store, bot: str) -> list:
    return [game for game in store.games("season") if bot in game.seats]


# -- what code played each game -------------------------------------------------------

def test_every_game_keeps_the_code_and_hello_of_each_seat(tmp_path):
    path = league(tmp_path, FIELD, rounds=1)
    _, store, _ = run_tournament(path, tmp_path)
    codes = {spec.name: fingerprint(spec) for spec in load_config(path).bots}
    for game in store.games("season"):
        assert [code for code, _ in game.code] == [codes[bot] for bot in game.seats]
        assert all(hello is not None and hello.split()[0] for _, hello in game.code)
    db = tmp_path / "results.sqlite"
    exported = [json.loads(line) for line in cli("export", "--db", db).splitlines()]
    assert [record["code"] for record in exported] == [game.code for game in store.games("season")]
    board = json.loads(cli("leaderboard", "--db", db, "--format", "json"))
    assert {bot: [item["fingerprint"] for item in items] for bot, items in
            board["code"].items()} == {bot: [code] for bot, code in codes.items()}
    assert codes["a"] in cli("leaderboard", "--db", db)


def test_a_bot_whose_code_changed_under_its_name_is_warned_of(tmp_path):
    path = league(tmp_path, FIELD, rounds=1)
    run_tournament(path, tmp_path)
    changed = league(tmp_path, {**FIELD, "b": GREEDY}, rounds=1)
    _, _, out = run_tournament(changed, tmp_path)
    assert "warning: bot 'b' runs other code than in its stored games" in out
    assert "--replace b" in out and "'a'" not in out


def test_a_bot_whose_hello_changed_under_its_name_is_warned_of(tmp_path):
    """An address: bot's code is out of reach: what it says in Hello is checked too."""
    path = league(tmp_path, FIELD, rounds=1)
    _, store, _ = run_tournament(path, tmp_path)
    said = dict(zip(store.games("season")[0].seats, store.games("season")[0].code))["a"][1]
    with sqlite3.connect(tmp_path / "results.sqlite") as db:
        db.execute("UPDATE games SET code = replace(code, ?, 'greedy 0.9')", (said,))
        db.execute("DELETE FROM games WHERE game_index >= 4")
    _, _, out = run_tournament(path, tmp_path)
    assert f"warning: bot 'a' says it is {said!r} in Hello, not 'greedy 0.9'" in out


def test_a_fingerprint_covers_a_bots_files_and_command_wherever_its_folder_is(tmp_path):
    folder = tmp_path / "alice"
    (folder / "__pycache__").mkdir(parents=True)
    (folder / "bot.py").write_text("print('v1')\n")
    spec = BotSpec("alice", command="python bot.py --address {address}", dir=str(folder))
    first = fingerprint(spec)
    (folder / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"cache")
    assert fingerprint(spec) == first          # Python's cache is not the bot's code
    moved = shutil.copytree(folder, tmp_path / "league" / "alice")
    assert fingerprint(BotSpec("alice", command=spec.command, dir=str(moved))) == first
    (folder / "bot.py").write_text("print('v2')\n")
    assert fingerprint(spec) != first
    assert fingerprint(BotSpec("alice", command="python bot.py --address {address} --fast",
                               dir=str(moved))) != first
    # Without dir:, the files the command names count.
    named = BotSpec("alice", command="python alice/bot.py --address {address}",
                    cwd=str(tmp_path))
    before = fingerprint(named)
    (folder / "helper.py").write_text("x = 1\n")
    assert fingerprint(named) != before


def test_an_older_store_opens_gains_the_code_column_and_resumes(tmp_path):
    path = league(tmp_path, FIELD, rounds=1)
    _, store, _ = run_tournament(path, tmp_path)
    store.close()
    db = sqlite3.connect(tmp_path / "results.sqlite")
    with db:
        db.execute("ALTER TABLE games DROP COLUMN code")
        db.execute("DELETE FROM games WHERE game_index >= 3")
    db.close()
    summary, store, _ = run_tournament(path, tmp_path)
    assert (summary.already_done, summary.played) == (3, 3)
    assert [game.code is None for game in store.games("season")] == [True] * 3 + [False] * 3
    assert_consistent(store, "season", load_config(path))


# -- a changed field is refused with what changed and how to apply it ------------------

def test_a_changed_field_names_each_change_and_the_command_that_applies_it(tmp_path):
    run_tournament(league(tmp_path, FIELD), tmp_path)
    changed = league(tmp_path, {"a": GREEDY, "b": RANDOM, "d": RANDOM}, rounds=3)
    with pytest.raises(TournamentError) as refused:
        run_tournament(changed, tmp_path, config_path=changed)
    message = str(refused.value)
    assert "bot 'd' added, bot 'c' withdrawn, rounds 2 → 3" in message
    assert f"circus-referee season {changed}" in message and "--apply" in message
    nothing = cli("season", league(tmp_path, FIELD), "--db", tmp_path / "results.sqlite")
    assert "nothing to change" in nothing
    changed = league(tmp_path, {"a": GREEDY, "b": RANDOM, "d": RANDOM}, rounds=3)
    result = CliRunner().invoke(main, ["tournament", str(changed), "--db",
                                       str(tmp_path / "results.sqlite"), "-q"])
    assert result.exit_code == 2 and f"`circus-referee season {changed}`" in result.output


def test_a_change_of_other_keys_is_refused_by_the_season_command_too(tmp_path):
    path = league(tmp_path, FIELD)
    run_tournament(path, tmp_path)
    path.write_text(path.read_text().replace("seed: 7", "seed: 8"))
    result = CliRunner().invoke(main, ["season", str(path), "--db",
                                       str(tmp_path / "results.sqlite")])
    assert result.exit_code == 2
    assert "seed 7 → 8: only the field and its rounds can change" in result.output


# -- add, replace, withdraw, extend -----------------------------------------------------

def test_a_late_entrant_plays_its_tables_against_the_field_in_every_round(tmp_path):
    db = tmp_path / "results.sqlite"
    run_tournament(league(tmp_path, FIELD), tmp_path)
    bigger = league(tmp_path, {**FIELD, "d": GREEDY})
    dry = season(bigger, db, apply=False)
    assert "add d: plays its tables against the field" in dry
    assert "games added per bot: a 4, b 4, c 4, d 12" in dry
    assert "games: 12 stored kept, 0 dropped, 0 not yet played cancelled, 12 added; " \
           "total 12 → 24" in dry
    assert len(Store(db).games("season")) == 12          # a dry run changes nothing
    season(bigger, db)
    with sqlite3.connect(db) as source, sqlite3.connect(tmp_path / "copy.sqlite") as copy:
        source.backup(copy)
    summary, store, _ = run_tournament(bigger, tmp_path)
    assert (summary.played, summary.total) == (12, 24)
    opponents = Counter(bot for game in games_of(store, "d") for bot in game.seats if bot != "d")
    assert opponents == {"a": 4, "b": 4, "c": 4}        # 2 rounds x 2 seats each
    assert_consistent(store, "season", load_config(bigger))
    # The same config and store give the same games, at any concurrency.
    _, again, _ = run_tournament(replace(load_config(bigger), concurrency=3), tmp_path,
                                 db="copy.sqlite")
    assert ([(g.game_index, g.seats, g.seed, g.actions) for g in again.games("season")]
            == [(g.game_index, g.seats, g.seed, g.actions) for g in store.games("season")])
    changes = cli("leaderboard", "--db", db)
    assert "changes of the field:" in changes and "add d" in changes
    assert "1. " in cli("season", bigger, "--db", db).split("nothing to change")[1]
    recorded = json.loads(cli("leaderboard", "--db", db, "--format", "json"))["changes"]
    assert [lines[0] for lines in (change["lines"] for change in recorded)] == [
        "add d: plays its tables against the field in every round"]


def test_a_replaced_bot_keeps_its_old_games_as_a_separate_entrant(tmp_path):
    db = tmp_path / "results.sqlite"
    run_tournament(league(tmp_path, FIELD), tmp_path)
    newer = league(tmp_path, {**FIELD, "b": GREEDY})
    old_code = fingerprint(BotSpec("b", python=RANDOM))
    dry = season(newer, db, "--replace", "b", apply=False)
    assert (f"replace b (code {old_code} → {fingerprint(BotSpec('b', python=GREEDY))}): its 8 "
            "stored games kept, rated as the separate entrant b@v1") in dry
    season(newer, db, "--replace", "b")
    _, store, _ = run_tournament(newer, tmp_path)
    board = {row.bot: row.games for row in standings(store, store.resolve("season"))}
    assert board == {"a": 12, "b": 8, "c": 12, "b@v1": 8}
    assert {code for game in games_of(store, "b@v1")
            for bot, (code, _) in zip(game.seats, game.code) if bot == "b@v1"} == {old_code}
    assert_consistent(store, "season", load_config(newer))
    shown = json.loads(cli("leaderboard", "--db", db, "--format", "json"))["code"]["b@v1"]
    assert [item["fingerprint"] for item in shown] == [old_code]
    assert "b@v1" in cli("played", "--db", db, "--bot", "b@v1")
    cli("report", "--db", db, "-o", tmp_path / "report.html", "--no-replays")
    page = (tmp_path / "report.html").read_text()
    assert f"code {old_code}" in page and "changes of the field:" in page
    assert "replace b (code" in page


def test_a_disqualified_bot_leaves_with_its_games_which_are_kept_apart(tmp_path):
    db = tmp_path / "results.sqlite"
    run_tournament(league(tmp_path, FIELD), tmp_path)
    smaller = league(tmp_path, {"a": GREEDY, "b": RANDOM})
    out = season(smaller, db, "--drop-games", "c")
    assert "withdraw c: its 8 stored games dropped" in out
    assert "the dropped games are kept as the tournament 'season.dropped-1'" in out
    summary, store, _ = run_tournament(smaller, tmp_path)
    assert (summary.played, summary.total) == (0, 4)
    assert [row.bot for row in standings(store, store.resolve("season"))] != []
    assert {bot for game in store.games("season") for bot in game.seats} == {"a", "b"}
    assert len(store.games("season.dropped-1")) == 8
    assert_consistent(store, "season", load_config(smaller))


def test_a_withdrawn_bot_that_never_started_has_its_games_cancelled(tmp_path):
    broken = league(tmp_path, {**FIELD, "d": "bots.no_such_bot:Bot"})
    summary, store, _ = run_tournament(broken, tmp_path, skip_bad_bots=True)
    assert summary.skipped_bots == ["d"]
    out = season(league(tmp_path, FIELD), tmp_path / "results.sqlite")
    assert "withdraw d: its 0 stored games kept and rated" in out
    assert "12 not yet played cancelled" in out
    summary, store, _ = run_tournament(league(tmp_path, FIELD), tmp_path)
    assert (summary.played, summary.total, store.resolve("season").finished_at is not None) \
        == (0, 12, True)
    assert_consistent(store, "season", load_config(league(tmp_path, FIELD)))


def test_extending_rounds_adds_rounds_of_the_whole_field(tmp_path):
    db = tmp_path / "results.sqlite"
    run_tournament(league(tmp_path, FIELD, rounds=1), tmp_path)
    longer = league(tmp_path, FIELD, rounds=3)
    assert "rounds 1 → 3: rounds 2-3 of the whole field added" in season(longer, db)
    summary, store, _ = run_tournament(longer, tmp_path)
    assert (summary.played, summary.total) == (12, 18)
    assert_consistent(store, "season", load_config(longer))
    fewer = CliRunner().invoke(main, ["season", str(league(tmp_path, FIELD, rounds=2)),
                                      "--db", str(db)])
    assert fewer.exit_code == 2 and "rounds cannot go down" in fewer.output


def test_a_swiss_pairs_a_late_entrant_from_its_next_round(tmp_path):
    db = tmp_path / "results.sqlite"
    four = {"a": GREEDY, "b": RANDOM, "c": RANDOM, "d": GREEDY}
    run_tournament(league(tmp_path, four, rounds=2, fmt="swiss"), tmp_path)
    five = league(tmp_path, {**four, "e": GREEDY}, rounds=4, fmt="swiss")
    out = season(five, db)
    assert "add e: paired from round 3" in out and "rounds 2 → 4" in out
    _, store, _ = run_tournament(five, tmp_path)
    assert {game.round for game in games_of(store, "e")} == {2, 3}
    # It counts the rounds it missed as byes: the byes go to the others.
    assert all("e" not in store.swiss_round("season", number).byes for number in (2, 3))
    assert_consistent(store, "season", load_config(five))


def test_a_gauntlet_takes_a_late_entrant_against_its_challenger(tmp_path):
    db = tmp_path / "results.sqlite"
    path = league(tmp_path, FIELD)
    path.write_text(path.read_text().replace("format: round-robin",
                                             "format: gauntlet\nchallenger: a"))
    run_tournament(path, tmp_path)
    bigger = tmp_path / "bigger.yaml"
    bigger.write_text(path.read_text() + '  - {name: d, python: "bots.random_bot:RandomBot"}\n')
    season(bigger, db)
    summary, store, _ = run_tournament(bigger, tmp_path)
    assert summary.played == 4 and {frozenset(game.seats) for game in games_of(store, "d")} \
        == {frozenset({"a", "d"})}
    assert_consistent(store, "season", load_config(bigger))


def test_a_swiss_withdrawal_mid_round_cancels_its_tables_games_left(tmp_path):
    db = tmp_path / "results.sqlite"
    four = {"a": GREEDY, "b": RANDOM, "c": RANDOM, "d": GREEDY}
    _, store, _ = run_tournament(league(tmp_path, four, rounds=3, fmt="swiss"), tmp_path)
    with sqlite3.connect(db) as raw:      # as if killed in round 3, a game of each table left:
        raw.execute("DELETE FROM games WHERE game_index >= 10")   # rotation 2 of round 3
    table = next(t for t in store.swiss_round("season", 2).tables if "c" in t)
    out = season(league(tmp_path, {"a": GREEDY, "b": RANDOM, "d": GREEDY}, rounds=3,
                        fmt="swiss"), db)
    assert "withdraw c: its 5 stored games kept and rated" in out
    assert "1 not yet played cancelled" in out
    summary, store, _ = run_tournament(league(tmp_path, {"a": GREEDY, "b": RANDOM,
                                                          "d": GREEDY}, rounds=3, fmt="swiss"),
                                       tmp_path)
    assert summary.played == 1 and summary.total == 11
    mate = next(bot for bot in table if bot != "c")
    assert len([g for g in games_of(store, mate) if g.round == 2]) == 1
    assert_consistent(store, "season")


def test_a_swiss_replacement_enters_the_next_round_and_its_old_version_stays_rated(tmp_path):
    db = tmp_path / "results.sqlite"
    four = {"a": GREEDY, "b": RANDOM, "c": RANDOM, "d": GREEDY}
    run_tournament(league(tmp_path, four, rounds=2, fmt="swiss"), tmp_path)
    newer = league(tmp_path, {**four, "b": GREEDY}, rounds=3, fmt="swiss")
    assert "the new b paired from round 3" in season(newer, db, "--replace", "b")
    _, store, _ = run_tournament(newer, tmp_path)
    assert {game.round for game in games_of(store, "b")} == {2}
    assert {game.round for game in games_of(store, "b@v1")} == {0, 1}
    assert all("b" not in table for number in (0, 1)
               for table in store.swiss_round("season", number).tables)
    assert_consistent(store, "season", load_config(newer))


def test_a_replacement_whose_old_games_are_dropped_plays_as_if_entered_from_the_start(tmp_path):
    db = tmp_path / "results.sqlite"
    run_tournament(league(tmp_path, FIELD), tmp_path)
    newer = league(tmp_path, {**FIELD, "b": GREEDY})
    out = season(newer, db, "--replace", "b", "--drop-games", "b")
    assert "its 8 stored games dropped" in out and "season.dropped-1" in out
    _, store, _ = run_tournament(newer, tmp_path)
    board = {row.bot: row.games for row in standings(store, store.resolve("season"))}
    assert board == {"a": 8, "b": 8, "c": 8}
    assert {bot for game in store.games("season.dropped-1") for bot in game.seats} \
        == {"a", "b@v1", "c"}
    assert_consistent(store, "season", load_config(newer))


def test_a_replace_or_drop_of_a_bot_that_does_not_leave_is_refused(tmp_path):
    db = tmp_path / "results.sqlite"
    path = league(tmp_path, FIELD)
    run_tournament(path, tmp_path)
    for options, words in ((["--replace", "z"], "--replace z: no bot 'z' in both"),
                           (["--drop-games", "a"], "--drop-games a: 'a' is neither")):
        result = CliRunner().invoke(main, ["season", str(path), "--db", str(db), *options])
        assert result.exit_code == 2 and words in result.output
    assert len(Store(db).games("season")) == 12


def test_a_late_entrant_of_a_swiss_whose_rounds_are_all_paired_needs_more_rounds(tmp_path):
    four = {"a": GREEDY, "b": RANDOM, "c": RANDOM, "d": GREEDY}
    run_tournament(league(tmp_path, four, rounds=2, fmt="swiss"), tmp_path)
    result = CliRunner().invoke(main, ["season", str(league(tmp_path, {**four, "e": RANDOM},
                                                            rounds=2, fmt="swiss")),
                                       "--db", str(tmp_path / "results.sqlite")])
    assert result.exit_code == 2
    assert "every one of the 2 rounds is paired already: give more rounds" in result.output


COMMAND_BOTS = """
name: season
game: flea-circus
players: 2
rounds: 1
seed: 4
concurrency: 1
sandbox: false
bots:
  - name: here
    command: python bot.py --port {port}
  - name: there
    command: python bot.py --port {port}
    dir: entries/there
"""


def test_a_command_bots_changed_file_changes_the_code_its_next_games_are_stored_with(
        tmp_path):
    script = "import runpy\nrunpy.run_module('bots.random_bot', run_name='__main__')\n"
    (tmp_path / "entries" / "there").mkdir(parents=True)
    (tmp_path / "bot.py").write_text(script)
    (tmp_path / "entries" / "there" / "bot.py").write_text(script)
    path = write_config(tmp_path, COMMAND_BOTS)
    _, store, _ = run_tournament(path, tmp_path)
    before = store.codes("season")
    with sqlite3.connect(tmp_path / "results.sqlite") as db:
        db.execute("DELETE FROM games WHERE game_index = 1")
    (tmp_path / "entries" / "there" / "bot.py").write_text(script + "# v2\n")
    _, store, out = run_tournament(path, tmp_path)
    assert "warning: bot 'there' runs other code" in out and "'here'" not in out
    after = store.codes("season")
    assert after["here"] == before["here"]
    assert len(after["there"]) == 2 and after["there"][0] == before["there"][-1]


def test_a_withdrawn_bot_and_an_earlier_version_get_their_packs(tmp_path):
    """They stand on the leaderboard with rated games: their authors are owed them."""
    db = tmp_path / "results.sqlite"
    run_tournament(league(tmp_path, FIELD, rounds=1), tmp_path)
    season(league(tmp_path, {"a": GREEDY, "b": GREEDY}, rounds=1), db, "--replace", "b")
    packs = tmp_path / "packs"
    for bot in ("c", "b@v1"):
        cli("packs", "--db", db, "-o", packs, "--bot", bot)
        games = (packs / bot / "games.csv").read_text().splitlines()[1:]
        assert len(games) == 4 and all(bot in game for game in games)
    wrote = cli("packs", "--db", db, "-o", packs)
    # A game's page is linked from each pack it is in: links, not pages, summed over packs.
    assert "wrote 4 packs" in wrote and "links to replays;" in wrote, wrote
    index = (packs / "index.html").read_text()
    assert all(f'href="{bot}/index.html"' in index for bot in ("a", "b", "c", "b@v1"))


def test_the_changes_of_the_field_are_numbered_one_number_per_change(tmp_path):
    db = tmp_path / "results.sqlite"
    run_tournament(league(tmp_path, FIELD, rounds=1), tmp_path)
    season(league(tmp_path, {**FIELD, "d": RANDOM}, rounds=2), db)
    season(league(tmp_path, FIELD, rounds=2), db)
    board = cli("leaderboard", "--db", db).split("changes of the field:\n")[1]
    numbers = [line.split()[0] for line in board.splitlines() if line[:5].strip()[:1].isdigit()]
    assert numbers == ["1.", "2."]
    assert "     add d: plays its tables" in board and "     withdraw d: its" in board
    cli("report", "--db", db, "-o", tmp_path / "report.html", "--no-replays")
    page = (tmp_path / "report.html").read_text()
    assert page.count("  1. ") == 1 and page.count("  2. ") == 1


def test_a_dry_run_lists_a_bot_whose_code_changed_with_its_old_and_new_code(tmp_path):
    db = tmp_path / "results.sqlite"
    run_tournament(league(tmp_path, FIELD, rounds=1), tmp_path)
    old, new = (fingerprint(BotSpec("b", python=python)) for python in (RANDOM, GREEDY))
    line = f"code of b changed ({old} → {new}): it plays on as the same entrant"
    alone = cli("season", league(tmp_path, {**FIELD, "b": GREEDY}, rounds=1), "--db", db)
    assert "nothing to change" in alone and line in alone
    extended = league(tmp_path, {**FIELD, "b": GREEDY}, rounds=2)
    assert line in season(extended, db, apply=False) and line in season(extended, db)
    assert line in cli("leaderboard", "--db", db)
    assert "code of b" not in season(league(tmp_path, {**FIELD, "b": GREEDY}, rounds=3), db,
                                     "--replace", "b", apply=False)
