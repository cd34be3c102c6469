"""The submission flow: a folder of entrants, each gated by check-bot, becomes a bots.yaml
that plays a real tournament, and each entrant's pack holds its own log, faults, times
and replays."""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import interrupted_run, run_tournament, write_config

from circus_referee.main import main
from pages.viewer import embedded_data
from referee.checkbot import Check
from tournaments.config import load_config
from tournaments.packs import copy_logs
from tournaments.submissions import (
    Entrant,
    SubmissionError,
    Verdict,
    gate,
    one_per_author,
    read_manifest,
    submission_folders,
    unique_names,
)

ROOT = Path(__file__).resolve().parent.parent
# An SDK bot; CHEAT plays an illegal action at its first decision of each game once a file
# ARMED is beside it (a bot that behaved while it was gated: check-bot's games show it no
# sign of a check, so the test arms it between the gate and the tournament), ILLEGAL at
# every decision, and any bot one whenever it can read a file of SNOOP (others' files,
# which it must not see).
BOT = '''
import os
import threading
from bots.sdk import Bot, rng_for, serve

MODE = {mode!r}
SNOOP = {snoop!r}
ARMED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "armed")
seen, lock = set(), threading.Lock()


class Entry(Bot):
    name = {name!r}

    def decide(self, request):
        with lock:
            first = request.game_id not in seen
            seen.add(request.game_id)
        if MODE == "illegal" or any(os.access(path, os.R_OK) for path in SNOOP) or (
                MODE == "cheat" and first and os.path.exists(ARMED)):
            return len(request.legal_actions)
        return rng_for(request).randrange(len(request.legal_actions))


if __name__ == "__main__":
    serve(Entry())
'''
MANIFEST = """\
name: {name}
author: {author}
language: python
command: python bot.py --address {{address}}
"""
# A clock no busy machine spends: only the illegal bot is meant to fail.
BASE = """\
seed: 7
concurrency: 2
time: {move_ms: 5000, bank_ms: 30000, startup_ms: 30000}
bots:
  - name: house
    python: bots.random_bot:RandomBot
"""


def submit(folder: Path, name: str, author: str, mode: str = "random",
           manifest: str | None = None, snoop: tuple[Path, ...] = ()) -> Path:
    """One entrant's folder: its bot and its manifest."""
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(BOT.format(mode=mode, name=name,
                                              snoop=[str(path) for path in snoop]))
    (folder / "entrant.yaml").write_text(manifest if manifest is not None
                                         else MANIFEST.format(name=name, author=author))
    return folder


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def season(tmp_path_factory) -> Path:
    """Five submissions (one refused by check-bot, one by its manifest, two by one
    author), made into a field, played, and packed. Alice would fault if she could read
    another's files, the base config, the checks or the results."""
    root = tmp_path_factory.mktemp("season")
    subs, league = root / "subs", root / "league"
    league.mkdir()
    submit(subs / "alice", "alice", "Alice", snoop=(
        subs / "carol-v2" / "bot.py", subs / "dave" / "entrant.yaml", league / "base.yaml",
        league / "bots-checks" / "dave" / "dave.log", root / "results.sqlite"))
    older = submit(subs / "carol-v1", "carol", "Carol")
    submit(subs / "carol-v2", "carol-v2", " carol ", mode="cheat")
    os.utime(older / "entrant.yaml", (1_000_000, 1_000_000))
    submit(subs / "dave", "dave", "Dave", mode="illegal")
    submit(subs / "eve", "eve", "Eve", manifest="name: eve\nlanguage: python\n"
                                                "command: python bot.py --address {address}\n")
    (league / "base.yaml").write_text(BASE)
    made = invoke("submissions", str(subs), "-o", str(league / "bots.yaml"),
                  "--base", str(league / "base.yaml"), "--game", "flea-circus",
                  "--players", "2", "--one-per-author", "--at-once", "2")
    assert made.exit_code == 0, made.output
    (root / "made.txt").write_text(made.output)
    (subs / "carol-v2" / "armed").touch()
    db, logs = str(root / "results.sqlite"), str(root / "logs")
    played = invoke("tournament", str(league / "bots.yaml"), "--db", db, "--logs", logs,
                    "--quiet")
    assert played.exit_code == 0, played.output
    packed = invoke("packs", "--db", db, "-o", str(root / "packs"))
    assert packed.exit_code == 0, packed.output
    (root / "packed.txt").write_text(packed.output)
    return root


def table_row(output: str, folder: str) -> str:
    return next(line for line in output.splitlines() if line.startswith(folder + " "))


def test_the_field_is_the_entrants_that_passed_with_their_folders(season):
    config = load_config(season / "league" / "bots.yaml")
    assert [bot.name for bot in config.bots] == ["house", "alice", "carol-v2"]
    assert [Path(bot.dir).resolve() for bot in config.bots[1:]] == [
        season / "subs" / "alice", season / "subs" / "carol-v2"]
    text = (season / "league" / "bots.yaml").read_text()
    assert "dir: ../subs/alice" in text, text   # relative: the two folders move together
    assert (config.game, config.players, config.seed) == ("flea-circus", 2, 7)
    assert config.name == "subs"


def test_every_refusal_says_why(season):
    made = (season / "made.txt").read_text()
    assert "passed" in table_row(made, "alice") and "passed" in table_row(made, "carol-v2")
    assert re.search(r"refused +check-bot: play flea-circus/standard: dave faulted in game 1",
                     table_row(made, "dave")), made
    assert "eve/entrant.yaml: missing required key 'author'" in table_row(made, "eve"), made
    assert "one entry per author: carol's newer entry carol-v2 (carol-v2) is kept" in \
        table_row(made, "carol-v1"), made
    assert ": 2 of 5 entrants and 1 house bot(s); each verdict" in made, made


def test_nothing_of_a_refused_entrant_is_lost(season):
    checks = season / "league" / "bots-checks"
    verdict = (checks / "dave" / "check.txt").read_text()
    assert "verdict: refused: check-bot: play flea-circus/standard" in verdict
    assert "PASS  handshake:" in verdict and "FAIL  play flea-circus/standard:" in verdict
    assert "\ncovered: " in verdict
    assert "=== run 1 of dave" in (checks / "dave" / "dave.log").read_text()
    assert "missing required key 'author'" in (checks / "eve" / "check.txt").read_text()
    assert "verdict: passed" in (checks / "alice" / "check.txt").read_text()
    assert "carol-v1" in (checks / "entrants.txt").read_text()


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open() as rows:
        return list(csv.DictReader(rows))


def test_each_pack_holds_its_own_log_faults_times_and_replays(season):
    packs = season / "packs"
    index = (packs / "index.html").read_text()
    for bot in ("house", "alice", "carol-v2"):
        assert f'href="{bot}/index.html"' in index
    assert "<td>by carol, in python</td>" in index
    games = read_csv(packs / "alice" / "games.csv")
    assert len(games) == 4 and all("alice" in game["seats"] for game in games)
    # Its games' replays are in the folder the packs share (alice is at fault in none).
    replays = sorted(f"game-{game['id']}.html" for game in games)
    assert all((packs / "replays" / name).is_file() for name in replays)
    assert not list((packs / "alice" / "replays").glob("game-*.html"))
    page = (packs / "alice" / "index.html").read_text()
    assert all(f'href="../replays/{name}"' in page for name in replays)
    assert '<a href="alice.log">' in page
    assert "=== run 1 of alice" in (packs / "alice" / "alice.log").read_text()
    assert [row["bot"] for row in read_csv(packs / "alice" / "times.csv")] == ["alice"]
    assert int(read_csv(packs / "alice" / "times.csv")[0]["decisions"]) > 0
    assert read_csv(packs / "alice" / "faults.csv") == []
    cheats = read_csv(packs / "carol-v2" / "faults.csv")
    assert len(cheats) == 4 and {(row["bot"], row["class"]) for row in cheats} == \
        {("carol-v2", "illegal")}
    assert "log" not in cheats[0]   # the organiser's paths stay the organiser's
    assert "no log was kept" in (packs / "house" / "index.html").read_text()


def test_a_replay_marks_only_its_packs_own_faults(season):
    packs = season / "packs"
    fault = read_csv(packs / "carol-v2" / "faults.csv")[0]
    game = next(game for game in read_csv(packs / "carol-v2" / "games.csv")
                if game["id"] == fault["game_id"])
    other = next(bot for bot in game["seats"].split("; ") if bot != "carol-v2")
    name = f"game-{fault['game_id']}.html"
    assert fault["detail"] in embedded_data((packs / "carol-v2" / "replays" / name).read_text())
    assert fault["detail"] not in embedded_data((packs / "replays" / name).read_text())
    page = (packs / "carol-v2" / "index.html").read_text()
    assert f'href="replays/{name}#step={int(fault["decision"]) - 1}&amp;view=' in page
    assert f'href="../replays/{name}"' in (packs / other / "index.html").read_text()


# -- manifests and choices, without check-bot ------------------------------------------

@pytest.mark.parametrize("manifest, problem", [
    ("author: a\nlanguage: c\ncommand: ./bot\n", "missing required key 'name'"),
    ("name: ../x\nauthor: a\nlanguage: c\ncommand: ./bot\n", "name '../x' is not allowed"),
    ("name: x\nauthor: a\nlanguage: c\ncommand: ./bot\nenv: {A: b}\n", "unknown key 'env'"),
    ("name: x\nauthor: ''\nlanguage: c\ncommand: ./bot\n", "'author' must be 1-100 printable"),
    ("name: x\nauthor: \"a\\x1b[2J\"\nlanguage: c\ncommand: ./bot\n", "'author' must be"),
    ("name: x\nauthor: a\nlanguage: c\ncommand: \"./bot\\r\"\n", "command holds a control"),
    ("name: x\nauthor: a\nlanguage: c\ncommand: ./bot --port {port}\n", "{port} needs"),
    ("- a list\n", "must be a mapping of name, author, language, command"),
    ("name: [x\n", "not valid YAML"),
    ("name: x\nauthor: a\nlanguage: c\ncommand: ./bot\ntransport: pipes\n",
     "transport must be one of grpc, stdio, not 'pipes'"),
    ("name: x\nauthor: a\nlanguage: c\ncommand: ./bot {address}\ntransport: stdio\n",
     "takes no {address}"),
])
def test_a_bad_manifest_is_named_with_its_folder_and_key(tmp_path, manifest, problem):
    folder = tmp_path / "entry"
    folder.mkdir()
    (folder / "entrant.yaml").write_text(manifest)
    with pytest.raises(SubmissionError) as error:
        read_manifest(folder)
    assert str(error.value).startswith("entry"), error.value
    assert problem in str(error.value), error.value
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("named", ["../other/bot.py", "link.py", "--script=../other/bot.py"])
def test_a_command_may_name_only_the_entrants_own_files(tmp_path, named):
    """The sandbox shows a bot what its command names: another entrant's files, or the
    organiser's behind a link, must not be shown to an entrant by naming them."""
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "bot.py").write_text("secret = 1\n")
    folder = submit(tmp_path / "entry", "entry", "E",
                    manifest=MANIFEST.format(name="entry", author="E").replace("bot.py", named))
    (folder / "link.py").symlink_to(tmp_path / "other" / "bot.py")
    with pytest.raises(SubmissionError, match=r"^entry/entrant\.yaml: command names .*, "
                                              r"outside its folder"):
        read_manifest(folder)


def test_a_command_may_name_its_own_files_and_the_systems(tmp_path):
    folder = submit(tmp_path / "entry", "entry", "E", manifest=MANIFEST.format(
        name="entry", author="E").replace("python bot.py", "/usr/bin/env python3 bot.py"))
    assert read_manifest(folder).command.startswith("/usr/bin/env python3 bot.py")


def test_a_stdio_entrant_is_checked_and_entered_on_stdio(tmp_path):
    """``transport: stdio`` reaches the entry: check-bot talks to the bot on its stdin,
    and the written bots.yaml runs it so (a gRPC check of it would find no socket)."""
    folder = tmp_path / "subs" / "sam"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text((ROOT / "bots" / "stdio" / "random_bot.py").read_text())
    (folder / "entrant.yaml").write_text("name: sam\nauthor: Sam\nlanguage: python\n"
                                         "command: python bot.py\ntransport: stdio\n")
    assert read_manifest(folder).entry()["transport"] == "stdio"
    (tmp_path / "base.yaml").write_text(BASE)
    made = invoke("submissions", str(tmp_path / "subs"), "-o", str(tmp_path / "bots.yaml"),
                  "--base", str(tmp_path / "base.yaml"), "--game", "flea-circus")
    assert made.exit_code == 0, made.output
    assert "passed" in table_row(made.output, "sam"), made.output
    config = load_config(tmp_path / "bots.yaml")
    assert {bot.name: bot.transport for bot in config.bots} == {"house": "grpc",
                                                                "sam": "stdio"}


def test_a_manifest_without_transport_is_a_grpc_entry(tmp_path):
    folder = submit(tmp_path / "entry", "entry", "E")
    assert read_manifest(folder).entry()["transport"] == "grpc"


def test_a_folder_without_a_manifest_says_what_one_holds(tmp_path):
    with pytest.raises(SubmissionError, match=r"^x: no entrant\.yaml \(keys: name, author"):
        read_manifest(tmp_path / "x")


def config_of(text: str, tmp_path: Path):
    return load_config(write_config(tmp_path, text))


@pytest.mark.parametrize("checks, refused", [
    ([("handshake", True), ("play flohcati/en", True), ("play flohcati/es", False),
      ("timing", True)], None),
    ([("handshake", True), ("play flohcati/en", False), ("play flohcati/es", True)],
     "check-bot: play flohcati/en: says why"),
    ([("handshake", True), ("play flohcati/es", True)],
     "check-bot: it does not claim flohcati/en"),
    ([("handshake", False)], "check-bot: handshake: says why"),
    ([("handshake", True), ("play flohcati/en", True), ("concurrent flohcati", False)],
     "check-bot: concurrent flohcati: says why"),
])
def test_the_gate_is_the_tournaments_game_and_variant(tmp_path, checks, refused):
    config = config_of("game: flohcati\nvariant: en\nbots: [{name: a, python: x:Y}, "
                       "{name: b, python: x:Y}]\n", tmp_path)
    assert gate([Check(name, ok, "says why") for name, ok in checks], config) == refused


def test_hidden_folders_files_and_the_checks_folder_are_no_submissions(tmp_path):
    for name in ("b", "a", ".git", "bots-checks"):
        (tmp_path / name).mkdir()
    (tmp_path / "notes.txt").write_text("")
    assert submission_folders(tmp_path, (tmp_path / "bots-checks",)) == [tmp_path / "a",
                                                                         tmp_path / "b"]
    with pytest.raises(SubmissionError, match="no submission folders"):
        submission_folders(tmp_path / "a")


def passed(folder: str, name: str, author: str, submitted: float) -> Verdict:
    return Verdict(Path(folder), Entrant(Path(folder), name, author, "python", "./bot",
                                         submitted), None)


def test_one_per_author_keeps_the_newest_entry_that_passed():
    entries = [passed("a1", "a1", "Ann", 1.0), passed("a2", "a2", "ann", 3.0),
               passed("a3", "a3", "ANN", 2.0).refuse("check-bot: failed"),
               passed("b", "b", "Bo", 0.0)]
    chosen = one_per_author(entries)
    assert [verdict.passed for verdict in chosen] == [False, True, False, True]
    assert chosen[0].refused == "one entry per author: ann's newer entry a2 (a2) is kept"
    assert chosen[2].refused == "check-bot: failed"


def test_a_name_two_entrants_share_refuses_both():
    chosen = unique_names([passed("x1", "x", "A", 0), passed("x2", "x", "B", 0),
                           passed("h", "house", "C", 0), passed("y", "y", "D", 0)], {"house"})
    assert [verdict.refused for verdict in chosen] == [
        "the name x is also the entrant of x2", "the name x is also the entrant of x1",
        "the name house is a bot of the base config's", None]


def test_no_game_is_a_one_line_error(tmp_path):
    (tmp_path / "subs" / "a").mkdir(parents=True)
    result = invoke("submissions", str(tmp_path / "subs"), "-o", str(tmp_path / "bots.yaml"))
    assert result.exit_code == 2
    assert result.output.startswith("error: give --game G"), result.output


def test_a_field_with_no_manifest_that_holds_lists_each_and_keeps_them(tmp_path):
    subs = tmp_path / "subs"
    submit(subs / "a", "a", "A", manifest="name: a\n")
    result = invoke("submissions", str(subs), "-o", str(tmp_path / "bots.yaml"),
                    "--game", "flea-circus")
    assert result.exit_code == 2, result.output
    assert "a/entrant.yaml: missing required key 'author'" in result.output
    assert "error: no submission's manifest holds (every verdict is in" in result.output
    assert "missing required key" in (tmp_path / "bots-checks" / "a" / "check.txt").read_text()
    assert not (tmp_path / "bots.yaml").exists()


def test_the_base_is_never_overwritten(tmp_path):
    (tmp_path / "subs" / "a").mkdir(parents=True)
    base = tmp_path / "bots.yaml"
    base.write_text(BASE)
    result = invoke("submissions", str(tmp_path / "subs"), "-o", str(base), "--base", str(base),
                    "--game", "flea-circus")
    assert result.exit_code == 2 and "is the base config" in result.output, result.output
    assert base.read_text() == BASE


def test_too_few_passing_for_a_table_writes_no_config_and_keeps_the_verdicts(tmp_path):
    subs = tmp_path / "subs"
    submit(subs / "good", "good", "Gil")
    submit(subs / "bad", "bad", "Bea", mode="illegal")
    result = invoke("submissions", str(subs), "-o", str(tmp_path / "bots.yaml"),
                    "--game", "flea-circus", "--at-once", "1")
    assert result.exit_code == 2, result.output
    assert re.search(r"^good +good +Gil +python +passed", result.output, re.M), result.output
    assert re.search(r"^bad +bad +Bea +python +refused +check-bot: ", result.output, re.M)
    assert result.output.rstrip().splitlines()[-1].startswith(
        "error: 1 of 2 entrants passed, and the config they make is refused: 1 bot(s) listed "
        "but the table has 2 seats (every verdict is in "), result.output
    assert "verdict: passed" in (tmp_path / "bots-checks" / "good" / "check.txt").read_text()
    assert not (tmp_path / "bots.yaml").exists()


def test_a_config_that_cannot_be_is_refused_before_any_check(tmp_path):
    subs = tmp_path / "subs"
    submit(subs / "solo", "solo", "Sol")
    result = invoke("submissions", str(subs), "-o", str(tmp_path / "bots.yaml"),
                    "--game", "flea-circus", "--players", "9")
    assert result.exit_code == 2, result.output
    assert "checking" not in result.output
    assert re.search(r"^solo +solo +Sol +python +refused +not checked: ", result.output, re.M)
    assert result.output.rstrip().splitlines()[-1].startswith(
        "error: the config is refused before any check: "), result.output
    assert "not checked" in (tmp_path / "bots-checks" / "solo" / "check.txt").read_text()


UNFINISHED = """\
name: unfinished
game: flea-circus
players: 2
concurrency: 1
bots:
  - {name: a, python: bots.random_bot:RandomBot}
  - {name: b, python: bots.random_bot:RandomBot}
"""


def test_an_unfinished_tournaments_packs_withhold_the_replays_of_deals_to_come(tmp_path):
    """Game 0 is stored, its deal's other seat rotation (game 1) is not: a replay of game 0
    would show the cards of game 1."""
    interrupted_run(load_config(write_config(tmp_path, UNFINISHED)), tmp_path, 1)
    db = str(tmp_path / "results.sqlite")
    result = invoke("packs", "--db", db, "-o", str(tmp_path / "packs"))
    assert result.exit_code == 0, result.output
    assert "0 links to replays" in result.output, result.output
    assert "the tournament is not finished" in result.output
    assert len(read_csv(tmp_path / "packs" / "a" / "games.csv")) == 1
    assert not list((tmp_path / "packs" / "a" / "replays").iterdir())
    assert "<td>withheld</td>" in (tmp_path / "packs" / "a" / "index.html").read_text()
    run_tournament(load_config(tmp_path / "bots.yaml"), tmp_path)   # it finishes
    (tmp_path / "packs" / "a" / "replays" / "game-99.html").write_text("of another making")
    again = invoke("packs", "--db", db, "-o", str(tmp_path / "packs"))
    assert again.exit_code == 0 and "4 links to replays" in again.output, again.output
    assert sorted(path.name for path in (tmp_path / "packs" / "replays").glob("game-*")) \
        == ["game-1.html", "game-2.html"]
    assert not list((tmp_path / "packs" / "a" / "replays").glob("game-*"))
    unknown = invoke("packs", "--db", db, "-o", str(tmp_path / "packs"), "--bot", "c")
    assert unknown.exit_code == 2
    assert unknown.output == "error: no bot 'c' in tournament 'unfinished' (bots: a, b)\n"


def test_a_pack_copies_the_bots_log_and_each_workers(tmp_path):
    logs, pack = tmp_path / "logs", tmp_path / "pack"
    for path in (logs / "a.log", logs / "workers" / "h-1" / "a.log",
                 logs / "workers" / "h-2" / "a.log", logs / "workers" / "h-2" / "b.log"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{path.parent.name}\n")
    pack.mkdir()
    assert copy_logs(logs, "a", pack) == ["a.log", "workers/h-1/a.log", "workers/h-2/a.log"]
    assert (pack / "workers" / "h-2" / "a.log").read_text() == "h-2\n"
    assert not (pack / "workers" / "h-2" / "b.log").exists()


def test_a_weekly_intake_checks_again_only_the_entrants_whose_code_changed(tmp_path,
                                                                          monkeypatch):
    checked: list[str] = []

    def check_bot(spec, game, *args, **kwargs):
        checked.append(spec.name)
        yield Check("handshake", True, "ok")
        yield Check(f"play {game}/standard", True, "ok")

    monkeypatch.setattr("tournaments.submissions.check_bot", check_bot)
    subs = tmp_path / "subs"
    for name in ("alice", "bob"):
        submit(subs / name, name, name.title())

    def intake(*options: str) -> str:
        made = invoke("submissions", str(subs), "-o", str(tmp_path / "bots.yaml"), "--game",
                      "flea-circus", *options)
        assert made.exit_code == 0, made.output
        return made.output

    intake()
    assert checked == ["alice", "bob"]
    (subs / "bob" / "bot.py").write_text((subs / "bob" / "bot.py").read_text() + "# v2\n")
    again = intake()
    assert checked == ["alice", "bob", "bob"]
    assert "alice (1 of 2): code unchanged since its last check, its verdict kept" in again
    assert "checking bob (2 of 2)" in again
    assert "PASS  handshake: ok" in (tmp_path / "bots-checks" / "alice" / "check.txt").read_text()
    intake("--games", "2")                  # another check is another key
    intake("--recheck")
    assert checked == ["alice", "bob", "bob", "alice", "bob", "alice", "bob"]


def test_a_refusal_is_one_short_reason_with_the_log_on_a_line_of_its_own(tmp_path):
    """A bot that dies at its start: check-bot quotes its traceback, absolute paths and all."""
    subs = tmp_path / "subs"
    submit(subs / "frank", "frank", "Frank")
    (subs / "frank" / "bot.py").write_text(
        "import os\nraise RuntimeError('cannot read ' + os.path.abspath('model.bin') + "
        "' (a long story follows) ' + 'x ' * 200)\n")
    (tmp_path / "base.yaml").write_text(BASE)
    made = invoke("submissions", str(subs), "-o", str(tmp_path / "bots.yaml"), "--game",
                  "flea-circus", "--base", str(tmp_path / "base.yaml"))
    assert made.exit_code == 2, made.output
    table = made.output.split("\nerror:")[0].splitlines()
    header = next(line for line in table if line.startswith("folder "))
    row = next(index for index, line in enumerate(table) if line.startswith("frank "))
    reason = table[row][header.index("reason"):]
    assert reason.startswith("check-bot: ") and len(reason) <= 80, reason
    assert str(tmp_path) not in table[row]
    log = tmp_path / "bots-checks" / "frank" / "frank.log"
    assert table[row + 1].split()[-2:] == ["log:", str(log)] and log.is_file()
