"""``circus-referee leaderboard`` and ``report`` on a real (small, in-process) tournament."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from click.testing import CliRunner

from circus_referee.main import main

CONFIG = """
name: small
game: flea-circus
players: 3
rounds: 2
seed: 7
concurrency: 1
rating:
  beta: 5.0
  draw_probability: 0.05
bots:
  - {name: greedy, python: "bots.flea_greedy:FleaGreedyBot"}
  - {name: half, python: "bots.mixed:Mixed50"}
  - {name: random, python: "bots.random_bot:RandomBot"}
  - {name: sloppy, python: "rating_helpers:SloppyBot"}
"""
BOTS = {"greedy", "half", "random", "sloppy"}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("board")
    (folder / "bots.yaml").write_text(CONFIG)
    path = str(folder / "r.sqlite")
    result = CliRunner().invoke(main, ["tournament", str(folder / "bots.yaml"), "--db", path,
                                       "--logs", str(folder / "logs"), "-q"])
    assert result.exit_code == 0, result.output
    return path


def run(db, *args):
    result = CliRunner().invoke(main, ["leaderboard", "--db", db, *args])
    return result


def ok(db, *args) -> str:
    result = run(db, *args)
    assert result.exit_code == 0, result.output
    return result.output


def test_table_shows_every_column_and_the_parameters_underneath(db):
    out = ok(db)
    header = next(line for line in out.splitlines() if line.strip().startswith("rank"))
    for column in ("range", "bot", "mu ± 95%", "sigma", "mu-3σ", "games", "wins", "win rate",
                   "mean place", "norm. score", "ties", "faults"):
        assert column in header
    # The tournament's own rating parameters, under the table.
    assert "TrueSkill: mu=25 sigma=8.333 beta=5 tau=0.08333 draw_probability=0.05" in out
    assert "200 bootstrap resamples of the 8 deal sets (24 rated games, seed 0)" in out
    # What the verdict on the order rests on: here too few deal sets to settle it.
    assert "verdict (duplicate deal sets): not settled: " in out
    assert "8 deal set(s) at 0.95, anytime-valid" in out
    assert out.index("TrueSkill:") > out.index(header)
    assert re.search(r"\d+ illegal", out), "sloppy's faults are counted per class"


def test_json_rows_are_consistent(db):
    data = json.loads(ok(db, "--format", "json"))
    assert {"tournament", "game", "variant", "parameters", "resamples", "verdict"} <= set(data)
    assert data["verdict"]["deal_sets"] == 8 and data["verdict"]["settled"] is False
    rows = data["leaderboard"]
    assert {row["bot"] for row in rows} == BOTS
    assert {"bot", "mu", "sigma", "conservative", "games", "wins", "rank_low", "rank_high",
            "mu_low", "mu_high", "provisional", "win_rate", "mean_place", "norm_score",
            "ties", "faults"} <= set(rows[0])
    assert [row["rank"] for row in rows] == [1, 2, 3, 4]
    assert sum(row["games"] for row in rows) == 24 * 3
    assert sum(row["wins"] for row in rows) >= 24
    for row in rows:
        assert row["rank_low"] <= row["rank"] <= row["rank_high"]
        assert row["conservative"] == pytest.approx(row["mu"] - 3 * row["sigma"])
        half = 1.96 * max(row["sigma"], row["mu_sd_bootstrap"])
        assert row["mu_sd_bootstrap"] > 0
        assert row["mu_low"] == pytest.approx(row["mu"] - half, abs=1e-3)
        assert row["mu_high"] == pytest.approx(row["mu"] + half, abs=1e-3)
        assert row["provisional"] == (row["games"] < 10 or row["sigma"] > 25 / 9)
        assert 0 <= row["norm_score"] <= 1 and 1 <= row["mean_place"] <= 3
    faults = {row["bot"]: row["faults"] for row in rows}
    assert faults["sloppy"].get("illegal", 0) > 0 and faults["greedy"] == {}


def test_output_is_deterministic(db):
    assert ok(db, "--format", "json") == ok(db, "--format", "json")
    assert ok(db) == ok(db)


def test_csv_and_markdown(db):
    rows = list(csv.DictReader(io.StringIO(ok(db, "--format", "csv"))))
    assert {row["bot"] for row in rows} == BOTS
    assert {"rank_low", "rank_high", "faults", "faults_illegal", "faults_timeout"} <= set(rows[0])
    sloppy = next(row for row in rows if row["bot"] == "sloppy")
    assert int(sloppy["faults"]) >= int(sloppy["faults_illegal"]) > 0
    markdown = ok(db, "--format", "markdown")
    assert markdown.startswith("## small: flea-circus")
    assert re.search(r"\|\s+rank\s+\|\s+range\s+\|\s+bot", markdown)
    assert "TrueSkill: mu=25" in markdown


def test_head_to_head(db):
    data = json.loads(ok(db, "--h2h", "--format", "json"))
    pairs = data["h2h"]
    assert len(pairs) == 6   # every pair of 4 bots met
    ranked = [row["bot"] for row in data["leaderboard"]]
    for pair in pairs:
        assert pair["a_ahead"] + pair["b_ahead"] + pair["ties"] == pair["games"]
        assert ranked.index(pair["a"]) < ranked.index(pair["b"])
        assert 0 < pair["predicted"] < 1
    # Two bots share a 3-player table in 2 of the 4 tables: 2 tables × 3 rotations × 2 rounds.
    assert {pair["games"] for pair in pairs} == {12}
    table = ok(db, "--h2h")
    assert "A's share" in table and "predicted" in table


def test_los_matrix(db):
    data = json.loads(ok(db, "--los", "--format", "json"))
    los = {entry["bot"]: entry["los"] for entry in data["los"]}
    for a in BOTS:
        for b in BOTS - {a}:
            assert los[a][b] + los[b][a] == pytest.approx(1.0)
    # LOS is P(skill > skill) under the posterior: above ½ against every other bot for the
    # highest mu (the board's order, by mu − 3σ, may put a surer bot first; the deals are
    # the store's secret, so which happens varies from run to run).
    best = max(data["leaderboard"], key=lambda row: row["mu"])["bot"]
    assert all(value > 0.5 for value in los[best].values())
    rows = list(csv.reader(io.StringIO(ok(db, "--los", "--format", "csv"))))
    assert rows[0][0] == "bot" and len(rows) == 5 and len(rows[0]) == 5


def test_seats(db):
    data = json.loads(ok(db, "--seats", "--format", "json"))
    (table,) = data["seats"]
    assert table["players"] == 3 and table["games"] == 24
    assert sum(seat["games"] for seat in table["overall"]) == 72
    # Each bot sat in each seat equally often (seat rotation).
    for entries in table["bots"].values():
        assert len({seat["games"] for seat in entries}) == 1
    assert table["test"]["name"] == "friedman" and 0 <= table["test"]["p_value"] <= 1
    assert "Friedman test" in ok(db, "--seats")


def test_history(db):
    rows = json.loads(ok(db, "--history", "greedy", "--format", "json"))["history"]["greedy"]
    board = {row["bot"]: row for row in json.loads(ok(db, "--format", "json"))["leaderboard"]}
    assert len(rows) == board["greedy"]["games"] == 18
    assert all("greedy" not in row["opponents"] and len(row["opponents"]) == row["players"] - 1
               and set(row["opponents"]) <= BOTS for row in rows)
    assert rows[-1]["mu"] == pytest.approx(board["greedy"]["mu"])
    assert rows[-1]["sigma"] == pytest.approx(board["greedy"]["sigma"])
    text = ok(db, "--history", "greedy")
    assert "greedy: rating after each of its 18 rated games" in text
    history_csv = list(csv.DictReader(io.StringIO(ok(db, "--history", "half", "--format", "csv"))))
    assert len(history_csv) == 18 and set(history_csv[0]) >= {"game_id", "opponents", "mu"}
    assert "game_index" not in history_csv[0], "one id column: the game id replay takes"


def test_sections_combine_in_table_and_json(db):
    out = ok(db, "--h2h", "--los", "--seats", "--history", "random")
    for title in ("-- Head to head --", "-- Likelihood of superiority --", "-- Seats --",
                  "-- History of random --"):
        assert title in out
    data = json.loads(ok(db, "--h2h", "--los", "--seats", "--history", "random", "--format",
                         "json"))
    assert {"leaderboard", "h2h", "los", "seats", "history", "parameters"} <= set(data)
    assert data["parameters"]["beta"] == 5.0


def test_bad_requests_get_a_clear_message_and_status_2(db):
    result = run(db, "--history", "nobody")
    assert result.exit_code == 2 and "no bot 'nobody'" in result.output
    result = run(db, "--h2h", "--los", "--format", "csv")
    assert result.exit_code == 2 and "csv holds one table" in result.output
    result = run(db, "--tournament", "nope")
    assert result.exit_code == 2 and "no tournament 'nope'" in result.output


def test_resamples_option(db):
    assert "20 bootstrap resamples" in ok(db, "--resamples", "20")
    none = ok(db, "--resamples", "0")
    assert "rank ranges: no resampling" in none


def test_report_is_one_self_contained_file(db, tmp_path):
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", "--db", db, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>")
    # Nothing is fetched: no external scripts, styles, images, fonts or imports.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "<link" not in page and "@import" not in page
    assert not re.search(r"""url\(\s*["']?(?!#)""", page), "only in-page url(#id) references"
    for text in ("Leaderboard", "Ratings over the tournament", "Head to head",
                 "Likelihood of superiority", "Seats", "Faults", "Configuration",
                 "Friedman test", "TrueSkill: mu=25", *BOTS,
                 "verdict (duplicate deal sets): not settled: "):
        assert text in page
    data = json.loads(re.search(r'<script type="application/json" id="chart-data">(.*?)</script>',
                                page, re.S).group(1))
    assert {series["bot"] for series in data["series"]} == BOTS
    greedy = next(s for s in data["series"] if s["bot"] == "greedy")
    assert len(greedy["points"]) == 18 + 1      # the prior, then one point per game
    assert "<dt>draw_probability</dt><dd>0.05</dd>" in page  # the config, as stored
    # Each bot's own name and version, as it said them in Hello, and how it was reached.
    assert '<small class="identity">flea-greedy 1.0 (protocol 1.1.0, in-process)</small>' in page


def test_the_bots_own_names_and_versions_are_kept(db):
    identities = json.loads(ok(db, "--format", "json"))["identities"]
    assert set(identities) == BOTS
    assert identities["greedy"] == "flea-greedy 1.0 (protocol 1.1.0, in-process)"
