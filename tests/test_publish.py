"""What an organiser publishes: a public report without env values or
the machine's paths, Swiss rounds in the report and on the leaderboard, and a
``tournaments`` table that stays readable with a class's worth of bots."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import run_tournament

from arena.report import publish_report
from circus_referee.main import main
from pages.viewer import embedded_data
from ratings.verdict import DealSet, stop_reason, verdict
from tournaments.config import parse_config
from tournaments.public import Redactor, public_command, public_config
from tournaments.store import Store, StoreError

TOKEN = "hunter2"

# A bot whose handler fails now and then with its API token in the message: the fault's
# detail (in the report and in its replay pages) then quotes the secret.
LEAKY = f"""
import os
from bots.random_bot import RandomBot
from bots.sdk import rng_for, serve


class Leaky(RandomBot):
    name = "leaky"

    def decide(self, request):
        if rng_for(request).random() < 0.2:
            raise RuntimeError("token " + os.environ["API_TOKEN"])
        return super().decide(request)


serve(Leaky())
"""


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def leaky_db(tmp_path_factory) -> tuple[Path, Path]:
    """A finished tournament of a command: bot with env: API_TOKEN, in a dir: of the
    config's folder, beside an in-process bot; the database and the config's folder."""
    folder = tmp_path_factory.mktemp("publish")
    (folder / "leaky").mkdir()
    (folder / "leaky" / "leaky.py").write_text(LEAKY)
    config = {"name": "class", "game": "flea-circus", "players": 2, "rounds": 1, "seed": 5,
              "concurrency": 1, "sandbox": False,
              "bots": [{"name": "leaky", "dir": "leaky",
                        "command": f"{sys.executable} {folder}/leaky/leaky.py "
                                   "--address {address}",
                        "env": {"API_TOKEN": TOKEN}},
                       {"name": "random", "python": "bots.random_bot:RandomBot"}]}
    path = folder / "bots.yaml"
    path.write_text(yaml.safe_dump(config))
    result = run("tournament", str(path), "--db", str(folder / "r.sqlite"), "--logs",
                 str(folder / "runs" / "logs"), "-q")
    assert result.exit_code == 0, result.output
    return folder / "r.sqlite", folder.resolve()


def written_pages(report: Path) -> list[str]:
    """The report and each replay page, with the game's data the page holds packed."""
    pages = [report.read_text()]
    pages += [page.read_text() + embedded_data(page.read_text())
              for page in report.with_name(f"{report.stem}-replays").glob("game-*.html")]
    return pages


def test_a_report_shows_the_config_as_it_is_and_says_so(leaky_db, tmp_path):
    db, folder = leaky_db
    out = tmp_path / "report.html"
    result = run("report", "--db", str(db), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert TOKEN in out.read_text() and str(folder) in out.read_text()
    assert ("note: this report shows the bots' env: values and paths on this machine; for a "
            "copy to publish, make it with --public") in result.stderr


def test_a_public_report_and_its_replays_hold_no_env_value_and_no_path(leaky_db, tmp_path):
    db, folder = leaky_db
    store = Store(db)
    assert any(TOKEN in fault["detail"] for fault in store.faults("class")), \
        "the bot's fault quotes the token: the pages must scrub it"
    out = tmp_path / "public.html"
    result = run("report", "--db", str(db), "-o", str(out), "--public")
    assert result.exit_code == 0, result.output
    assert "public: no env values, paths or addresses" in result.stdout
    assert "note:" not in result.stderr
    pages = written_pages(out)
    assert len(pages) == 1 + len(store.games("class"))
    for page in pages:
        assert TOKEN not in page
        assert str(folder) not in page and str(Path.home()) + "/" not in page
    report = pages[0]
    # What is left is still told: the variable's name, the command within the bot's folder,
    # the bot by its name and never by its folder.
    assert "API_TOKEN" in report
    assert f"<dd>…/{Path(sys.executable).name} leaky.py --address {{address}}</dd>" in report
    assert "<dt>dir</dt>" not in report
    assert "token •••" in report, "the fault is listed, its secret scrubbed"


def files_in(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_the_arena_publishes_the_commands_public_report_apart_from_its_pages(
        leaky_db, tmp_path, monkeypatch):
    db, _ = leaky_db
    by_command = tmp_path / "command" / "index.html"
    by_command.parent.mkdir()
    assert run("report", "--db", str(db), "-t", "class", "--public",
               "-o", str(by_command)).exit_code == 0

    def not_here(*args, **kwargs):
        raise AssertionError("the service's own process wrote the report")
    monkeypatch.setattr("arena.report.write_report", not_here)
    served = tmp_path / "report"
    served.mkdir()
    publish_report(db, "class", served)
    published = files_in(served)
    assert "index.html" in published and any(name.startswith("index-replays/game-")
                                             for name in published)
    assert published == files_in(by_command.parent)


def test_a_report_the_arena_cannot_write_is_a_one_line_error_and_serves_nothing(
        leaky_db, tmp_path):
    db, _ = leaky_db
    served = tmp_path / "report"
    served.mkdir()
    with pytest.raises(StoreError, match=r"^the report of finals could not be written: "
                                         r"no tournament 'finals' in .*$"):
        publish_report(db, "finals", served)
    assert not any(served.iterdir())


def test_a_report_that_cannot_be_written_is_a_one_line_error(leaky_db, tmp_path):
    db, _ = leaky_db
    out = tmp_path / "missing" / "report.html"
    result = run("report", "--db", str(db), "-o", str(out), "--no-replays")
    assert result.exit_code == 2
    assert result.output == f"error: cannot write {out}: No such file or directory\n"


def test_a_public_config_keeps_what_a_reader_needs_and_nothing_private():
    config = {"name": "t", "cluster": "tcp://10.0.0.5:8786", "seed": 3, "bots": [
        {"name": "a", "command": "/usr/bin/python3 /home/o/season/a/bot.py --address {address}",
         "dir": "/home/o/season/a", "cwd": "/home/o/season", "env": [["KEY", "s3cret"]],
         "mounts": ["/home/o/season/data", "/opt/models/big"], "sandbox": None},
        {"name": "b", "address": "10.0.0.9:5000"},
        {"name": "c", "python": "bots.random_bot:RandomBot"}]}
    shown = public_config(config)
    assert shown["seed"] == 3 and shown["cluster"] == "•••"
    a, b, c = shown["bots"]
    assert a == {"name": "a", "command": "…/python3 bot.py --address {address}",
                 "mounts": ["data", "big"], "env": {"KEY": "•••"}}
    assert b == {"name": "b", "address": "•••"}
    assert c == {"name": "c", "python": "bots.random_bot:RandomBot"}
    assert "s3cret" not in json.dumps(shown) and "/home/o" not in json.dumps(shown)
    assert public_command("run.sh", "/x") == "run.sh"
    entrant = {"name": "alice", "command": "python bot.py --address {address}",
               "dir": "/home/o/season/subs/s1234-alice", "cwd": "/home/o/season/league"}
    assert public_config({"bots": [entrant]})["bots"] == [
        {"name": "alice", "command": "python bot.py --address {address}"}]
    scrub = Redactor.of({"bots": [entrant]}, None)
    assert scrub('File "/home/o/season/subs/s1234-alice/bot.py"') == 'File "bot.py"'


def test_the_redactor_scrubs_secrets_in_every_written_form_and_folders():
    config = {"bots": [{"name": "a", "cwd": "/home/o/season", "env": [["K", 'p&"w<1'],
                                                                      ["SHORT", "1"]]}]}
    scrub = Redactor.of(config, "/var/runs/logs/t", home="/home/o")
    page = ('p&"w<1 | p&amp;&quot;w&lt;1 | p&\\"w<1 | /home/o/season/a/bot.py | '
            '/var/runs/logs/t/a.log | /home/o/elsewhere/x | 1 2')
    assert scrub(page) == ("••• | ••• | ••• | a/bot.py | …/t/a.log | ~/elsewhere/x | 1 2")


# -- Swiss in the report and on the leaderboard -------------------------------------------

def swiss_config(**more) -> dict:
    bots = [{"name": f"p{p}", "python": f"bots.mixed:Mixed{p}"} for p in (0, 25, 50, 75, 100)]
    return {"name": "swiss", "game": "flea-circus", "players": 2, "rounds": 3,
            "format": "swiss", "concurrency": 2, "secret_deals": False, "seed": 7,
            "bots": bots, **more}


@pytest.fixture(scope="module")
def swiss_db(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("swiss")
    run_tournament(parse_config(swiss_config()), folder)
    return folder / "results.sqlite"


def test_the_leaderboard_shows_each_swiss_round_as_paired(swiss_db):
    store = Store(swiss_db)
    data = json.loads(run("leaderboard", "--db", str(swiss_db), "--rounds", "--format",
                          "json").stdout)
    rounds = data["rounds"]
    assert rounds["planned"] == 3 and rounds["swiss"] and rounds["stop_rule"] is None
    assert [r["round"] for r in rounds["rounds"]] == [1, 2, 3]
    for number, shown in enumerate(rounds["rounds"]):
        kept = store.swiss_round("swiss", number)
        assert [tuple(table) for table in shown["tables"]] == kept.tables
        assert shown["byes"] == kept.byes and len(shown["byes"]) == 1   # five bots, tables of 2
        assert shown["games"] == 4                                   # 2 tables x 2 rotations
        assert len(shown["standings"]) == 5
    # The standings after the last round are the leaderboard's.
    last = rounds["rounds"][-1]["standings"]
    assert [row["bot"] for row in last] == [row["bot"] for row in data["leaderboard"]]
    table = run("leaderboard", "--db", str(swiss_db), "--rounds").output
    assert "-- Rounds --" in table and "round 2 (4 games)" in table
    assert f"byes: {rounds['rounds'][0]['byes'][0]}" in table
    assert "Swiss: 3 of 3 rounds played; byes: " in table


def test_the_report_shows_the_swiss_rounds(swiss_db, tmp_path):
    out = tmp_path / "r.html"
    assert run("report", "--db", str(swiss_db), "-o", str(out), "--no-replays").exit_code == 0
    page = out.read_text()
    assert '<h2 id="rounds">Swiss rounds</h2>' in page
    assert page.count('<details class="round"') == 3
    assert "No stop rule: every scheduled round is played (3)." in page
    assert "standings after round 3" in page


@pytest.mark.parametrize("strengths, rounds, confidence", [
    ((0, 100), 100, 0.95),            # fires: the weak and the strong bot told apart
    ((0, 25, 50, 75, 100), 3, 0.999999),   # cannot fire: neighbours never that sure
])
def test_the_stop_rule_says_when_it_fired_or_why_it_did_not(tmp_path, strengths, rounds,
                                                           confidence):
    bots = [{"name": f"p{p}", "python": f"bots.mixed:Mixed{p}"} for p in strengths]
    data = swiss_config(rounds=rounds, bots=bots,
                        stop={"when": "settled", "confidence": confidence})
    summary, store, _ = run_tournament(parse_config(data), tmp_path)
    db = str(tmp_path / "results.sqlite")
    shown = json.loads(run("leaderboard", "--db", db, "--format", "json").stdout)
    line = shown["stop_rule"]
    assert line.startswith(f"stop rule (settled: the order the deal sets certify at "
                           f"{confidence:g}, anytime-valid)")
    if len(strengths) == 2:
        # The round the runner stopped at, and the order it found.
        number = re.search(r"settled after round (\d+)", summary.stopped).group(1)
        assert f" fired after round {number} of {rounds}: p100 > p0 on " in line, line
    else:
        assert summary.stopped is None
        assert f" did not fire in {rounds} round(s): after the last, " in line, line
        assert " is not ruled out: the evidence against it is " in line, line
        assert " of the 2e+06 that rules an order out (" in line, line
    assert line in run("leaderboard", "--db", db).output


def test_the_stop_reason_names_what_holds_the_order_back():
    # a and b alike, c always last: only a against b is in doubt.
    sets = [DealSet(group, 3, {"a": 1.5 + (-1) ** group, "b": 1.5 - (-1) ** group, "c": 0.0},
                    round=group) for group in range(30)]
    found = verdict(sets, ["a", "b", "c"], 0.95)
    games = {"a": 90, "b": 90, "c": 90}
    reason = stop_reason(found, games)
    assert not found.certified and reason.startswith("b > a > c is not ruled out: ")
    assert stop_reason(found, {**games, "c": 3}, 10) == \
        "1 bot(s) short of 10 rated games (c has 3)"
    sure = verdict([DealSet(group, 3, {"a": 3.0, "b": 1.5, "c": 0.0}, round=group)
                    for group in range(30)], ["a", "b", "c"], 0.95)
    assert sure.certified and sure.order == ["a", "b", "c"] and stop_reason(sure, games) is None


# -- tournaments, with a class's worth of bots ----------------------------------------------

def test_tournaments_stays_readable_with_30_bots(tmp_path):
    store = Store(tmp_path / "class.sqlite")
    bots = [{"name": f"student-{number:02d}", "python": "bots.random_bot:RandomBot"}
            for number in range(30)]
    store.create_tournament("class", {"game": "flea-circus", "variant": "standard",
                                      "bots": bots}, {}, 450, "logs")
    table = run("tournaments", "--db", str(tmp_path / "class.sqlite")).output
    assert "30: student-00, student-01, student-02, … (+27)" in table
    # The whole field's names alone would be 378 characters wide.
    assert max(len(line) for line in table.splitlines()) < 180, table
    rows = json.loads(run("tournaments", "--db", str(tmp_path / "class.sqlite"), "--format",
                          "json").stdout)
    assert rows[0]["bots"] == [bot["name"] for bot in bots], "json keeps the whole field"
