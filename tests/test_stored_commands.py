"""Commands over what is stored: tournaments, played, faults, times, export, in every format."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import pages.replays
from bots.random_bot import RandomBot
from bots.sdk import rng_for
from circus_referee.main import main
from tournaments.export import FIELDS
from tournaments.store import Store

CONFIG = """
name: {name}
game: flea-circus
players: 2
rounds: {rounds}
seed: 3
concurrency: 1
bots:
  - {{name: random, python: "bots.random_bot:RandomBot"}}
  - {{name: greedy, python: "bots.flea_greedy:FleaGreedyBot"}}
  - {{name: sloppy, python: "test_stored_commands:SloppyBot"}}
"""


class SloppyBot(RandomBot):
    """Answers out of range at one decision in ten: an illegal fault, substituted."""

    name = "sloppy"

    def decide(self, request):
        if rng_for(request).random() < 0.1:
            return len(request.legal_actions)
        return super().decide(request)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stored")
    path = str(folder / "r.sqlite")
    for name, rounds in (("first", 1), ("second", 2)):
        (folder / f"{name}.yaml").write_text(CONFIG.format(name=name, rounds=rounds))
        result = CliRunner().invoke(main, ["tournament", str(folder / f"{name}.yaml"), "--db",
                                           path, "--logs", str(folder / "logs"), "-q"])
        assert result.exit_code == 0, result.output
    return path


def ok(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_tournaments_lists_every_stored_tournament(db):
    rows = json.loads(ok("tournaments", "--db", db, "--format", "json"))
    assert [row["name"] for row in rows] == ["second", "first"], "newest first"
    second = rows[0]
    assert second["bots"] == ["random", "greedy", "sloppy"]
    assert second["games_done"] == second["games_total"] == 12
    assert second["status"] == "finished" and second["finished"]
    table = ok("tournaments", "--db", db)
    assert "first" in table and "12" in table and "random, greedy, sloppy" in table


def test_played_lists_the_ids_replay_takes(db):
    rows = json.loads(ok("played", "--db", db, "-t", "first", "--format", "json"))
    assert len(rows) == 6 and sorted(row["index"] for row in rows) == list(range(6))
    for row in rows:
        assert len(row["seats"]) == len(row["scores"]) == len(row["ranks"]) == 2
        replayed = ok("replay", str(row["id"]), "--db", db)
        assert f"{row['scores']}" in replayed
    greedy = json.loads(ok("played", "--db", db, "-t", "first", "--bot", "greedy",
                           "--format", "json"))
    assert len(greedy) == 4 and all("greedy" in row["seats"] for row in greedy)


def test_csv_writes_lists_and_booleans_for_spreadsheets(db):
    rows = list(csv.DictReader(io.StringIO(ok("played", "--db", db, "--format", "csv"))))
    assert len(rows) == 12
    assert all(len(row["seats"].split("; ")) == 2 for row in rows)
    board = list(csv.DictReader(io.StringIO(ok("leaderboard", "--db", db, "--format", "csv"))))
    assert {row["provisional"] for row in board} <= {"TRUE", "FALSE"}


def test_an_unknown_bot_is_refused_with_the_list_of_bots(db):
    for command in ("faults", "played"):
        result = CliRunner().invoke(main, [command, "--db", db, "--bot", "nosuch"])
        assert result.exit_code == 2
        assert result.output.strip() == (
            "error: no bot 'nosuch' in tournament 'second' (bots: random, greedy, sloppy)")


def test_faults_and_times_in_every_format(db):
    faults = json.loads(ok("faults", "--db", db, "--format", "json"))
    assert faults and all(f["bot"] == "sloppy" and f["class"] == "illegal" for f in faults)
    assert ok("faults", "--db", db, "--bot", "greedy").strip() == "no faults by greedy in second"
    table = ok("faults", "--db", db)
    assert "sloppy" in table and "sloppy.log" in table
    assert len(list(csv.DictReader(io.StringIO(ok("faults", "--db", db, "--format", "csv"))))) \
        == len(faults)
    times = json.loads(ok("times", "--db", db, "--format", "json"))
    assert {row["bot"] for row in times} == {"random", "greedy", "sloppy"}
    assert all(row["median_ms"] <= row["p99_ms"] <= row["max_ms"] <= row["total_ms"]
               for row in times)
    lines = ok("times", "--db", db).splitlines()[2:]
    numbers = [cell for line in lines for cell in line.split()[3:]]
    assert numbers and all(len(cell.split(".")[1]) == 1 for cell in numbers), "one precision"


def test_export_defaults_to_jsonl(db):
    lines = ok("export", "--db", db).splitlines()
    assert len(lines) == 12 and all(json.loads(line)["seats"] for line in lines)


def test_round_numbers_count_from_one_everywhere_people_read_them(db, tmp_path):
    """"second" has two rounds: the progress line and --rounds say round 1 and 2."""
    played = json.loads(ok("played", "--db", db, "--format", "json"))
    exported = [json.loads(line) for line in ok("export", "--db", db).splitlines()]
    rounds = json.loads(ok("leaderboard", "--db", db, "--rounds", "--format", "json"))
    ok("packs", "--db", db, "-o", str(tmp_path), "--bot", "random")
    with (tmp_path / "random" / "games.csv").open() as games:
        packed = {int(row["round"]) for row in csv.DictReader(games)}
    assert {game["round"] for game in played} == {record["round"] for record in exported} \
        == packed == {entry["round"] for entry in rounds["rounds"]["rounds"]} == {1, 2}


def test_every_field_of_an_export_is_documented():
    documented = (Path(__file__).resolve().parent.parent / "docs" / "export.md").read_text()
    assert [field for field in FIELDS if f"`{field}`" not in documented] == []


def test_packs_show_their_progress_and_close_with_where_and_how_big(db, tmp_path):
    result = CliRunner().invoke(main, ["packs", "--db", db, "-o", str(tmp_path), "--bot",
                                       "random", "--bot", "greedy"])
    assert result.exit_code == 0, result.output
    assert "packs: 100%" in result.stderr and "2/2" in result.stderr
    assert "replays: 100%" in result.stderr
    size = sum(path.stat().st_size for path in tmp_path.rglob("*") if path.is_file())
    assert result.stdout.startswith(f"wrote 2 packs of second in {tmp_path}/ "
                                    f"({size / 2**20:.1f} MB, ")


@pytest.fixture
def rendered(monkeypatch):
    """The titles of the replay pages rendered (rather than copied) while a test runs."""
    titles: list[str] = []
    render = pages.replays.render_page

    def counted(game, title, *options):
        titles.append(title)
        return render(game, title, *options)

    monkeypatch.setattr(pages.replays, "render_page", counted)
    return titles


def test_packs_copy_the_reports_pages_of_games_with_no_fault(db, tmp_path, rendered):
    """The report's page of a game with no fault is the packs' page of it, copied rather
    than replayed; a game with a fault the report marks is replayed for the packs."""
    ok("report", "--db", db, "-o", str(tmp_path / "report.html"))
    made = {path.name: path.read_bytes() for path in (tmp_path / "report-replays").glob("game-*")}
    rendered.clear()   # the report's own pages
    ok("packs", "--db", db, "-o", str(tmp_path / "packs"), "--replays-from",
       str(tmp_path / "report-replays"))
    shared = {path.name: path.read_bytes()
              for path in (tmp_path / "packs" / "replays").glob("game-*")}
    faulted = {f"game-{row['game_id']}.html" for row in Store(db).faults("second")}
    assert shared.keys() == made.keys() and faulted and faulted < shared.keys()
    assert [name for name in shared if (shared[name] == made[name]) == (name in faulted)] == []
    own = list((tmp_path / "packs").glob("*/replays/game-*"))
    assert len(rendered) == len(faulted) + len(own)


def test_a_report_made_again_writes_only_the_pages_that_changed(db, tmp_path):
    """A season's report made again after another week writes that week's pages only."""
    report = tmp_path / "season.html"
    first = CliRunner().invoke(main, ["report", "--db", db, "-o", str(report)])
    assert first.exit_code == 0, first.output
    assert "replays: 100%" in first.stderr and "12/12" in first.stderr
    folder = tmp_path / "season-replays"
    assert f"; 12 replay pages in {folder}/ (" in first.stdout
    assert "MB, 12 written, 0 unchanged)" in first.stdout
    pages = sorted(folder.glob("game-*.html"))
    made = {page: page.stat().st_mtime_ns for page in pages}
    pages[0].unlink()   # as if its game were new
    sources = json.loads((folder / "pages.json").read_text())
    sources[pages[1].name] = "made by an older viewer"
    (folder / "pages.json").write_text(json.dumps(sources))
    again = CliRunner().invoke(main, ["report", "--db", db, "-o", str(report)])
    assert "MB, 2 written, 10 unchanged)" in again.stdout
    assert [page for page in pages[2:] if page.stat().st_mtime_ns != made[page]] == []
    assert pages[0].is_file()


def test_a_report_reads_every_games_actions_once(db, tmp_path, monkeypatch):
    """Its round history and collusion check read the games' results alone: only the
    replays read each game's actions and times (a thousand games' take a second)."""
    read = []
    games = Store.games

    def counted(store, tournament):
        read.append(tournament)
        return games(store, tournament)

    monkeypatch.setattr(Store, "games", counted)
    ok("report", "--db", db, "--tournament", "second", "-o", str(tmp_path / "r.html"),
       "--no-replays")
    assert read == ["second"]


def test_the_packs_share_one_page_of_each_game_and_hold_their_own_faults_pages(db, tmp_path,
                                                                               rendered):
    """Each of a game's seats has it in its pack: the packs link one page of it, marking no
    fault; a pack whose bot is at fault in it holds a page of its own, marking those."""
    ok("packs", "--db", db, "-o", str(tmp_path), "--bot", "random", "--bot", "sloppy")
    shared = {path.name for path in (tmp_path / "replays").glob("game-*.html")}
    own = {bot: {path.name for path in (tmp_path / bot / "replays").glob("game-*.html")}
           for bot in ("random", "sloppy")}
    assert shared and own["sloppy"] and own["sloppy"] <= shared and not own["random"]
    assert len(rendered) == len(shared) + len(own["sloppy"])
    linked = {bot: set(re.findall(r'href="((?:\.\./)?replays/game-\d+\.html)"',
                                  (tmp_path / bot / "index.html").read_text()))
              for bot in ("random", "sloppy")}
    assert linked["random"] and linked["random"] <= {f"../replays/{name}" for name in shared}
    assert {f"replays/{name}" for name in own["sloppy"]} <= linked["sloppy"]


def test_an_export_to_standard_output_is_the_records_alone(db, tmp_path):
    """Run as a program: click hands "-" over as a wrapper, not as sys.stdout itself."""
    cli = str(Path(sys.executable).parent / "circus-referee")
    shown = subprocess.run([cli, "export", "--db", db], capture_output=True, text=True)
    assert shown.returncode == 0 and shown.stderr == "", shown.stderr
    assert len(shown.stdout.splitlines()) == 12
    written = subprocess.run([cli, "export", "--db", db, "-o", str(tmp_path / "e.jsonl")],
                             capture_output=True, text=True)
    assert written.stderr == f"12 games of second written to {tmp_path / 'e.jsonl'}\n"
