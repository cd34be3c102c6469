"""The HTML report in a real browser: headless Chromium renders it, scripts and all.

Chromium is Debian's ``chromium`` package, installed by ``scripts/install-chromium``
(which the README's test command runs). Without it the test is skipped locally
and fails in CI (``CI`` set), so CI cannot pass without exercising it.
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from headless import Browser
from rating_helpers import KNOWN, chromium, chromium_or_skip, read_png, tournament

from circus_referee.main import main
from pages.report import colour

WINDOW = "--window-size=1280,1600"
BOTS = [bot for bot, _ in KNOWN[:4]] + ["sloppy"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    # The known family and a sloppy bot, so there are faults to list and link.
    tournament(folder, KNOWN[:4] + [("sloppy", "rating_helpers:SloppyBot")], players=3,
               rounds=2, seed=11, name="browser")
    out = folder / "report.html"
    result = CliRunner().invoke(main, ["report", "--db", str(folder / "results.sqlite"),
                                       "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.slow
def test_chromium_renders_the_report_and_draws_the_chart(report, tmp_path):
    binary = chromium_or_skip()
    url = report.resolve().as_uri()
    dom = chromium(binary, tmp_path / "profile", WINDOW, "--dump-dom", url)

    # The page's text, as the browser parsed it.
    text = re.sub(r"<[^>]+>", " ", dom)
    for phrase in ("browser", "Leaderboard", "Ratings over the tournament", "Head to head",
                   "Likelihood of superiority", "Seats", "Friedman test", "Faults",
                   "Configuration", "TrueSkill: mu=25", "bootstrap resamples", "Games",
                   "Decision times", "median ms", "Every fault",
                   "the Earth ran out of loot", "games played by the bot"):
        assert phrase in text, phrase
    for bot in BOTS:
        assert bot in text
    configuration = re.search(r'<dl class="config">.*</dl>', dom, re.S).group(0)
    assert "null" not in configuration and "{" not in configuration  # readable, not JSON

    # The script ran and drew one line and one band per bot, into the SVG.
    root = re.search(r"<html[^>]*>", dom).group(0)
    assert 'data-chart="drawn"' in root and 'data-chart-series="5"' in root
    lines = re.findall(r'<path class="mu-line" stroke="([^"]+)" d="M([^"]+)"', dom)
    bands = re.findall(r'<path class="band" d="M[^"]+Z" fill="[^"]+"', dom)
    assert len(lines) == 5 and len(bands) == 5
    ends = set()
    for _, points in lines:
        assert points.count("L") == 36          # the prior and each of the bot's 36 games
        ends.add(points.rsplit("L", 1)[1].split(",")[0])
    assert len(ends) == 1                       # so every line runs to the right edge
    assert len(re.findall(r'<div class="legend" id="legend">.*?</div>', dom, re.S)) == 1
    assert dom.count('<button type="button">') == 5

    # And the pixels are there: each bot's colour inside the chart's box on a screenshot.
    left, top, width, height = map(int, re.search(r'data-chart-box="([\d,]+)"', root)
                                   .group(1).split(","))
    assert width > 600 and height > 300
    shot = tmp_path / "report.png"
    chromium(binary, tmp_path / "profile", WINDOW, f"--screenshot={shot}", url)
    image_width, image_height, channels, rows = read_png(shot)
    assert top + height <= image_height and left + width <= image_width

    def pixels(x0, y0, x1, y1):
        for y in range(y0, y1):
            row = rows[y]
            for x in range(x0, x1):
                yield row[x * channels:x * channels + 3]

    inside = list(pixels(left, top, left + width, top + height))
    saturated = sum(1 for r, g, b in inside if max(r, g, b) - min(r, g, b) > 60)
    assert saturated > 2000, f"only {saturated} coloured pixels in the chart"
    for index in range(5):
        want = tuple(int(colour(index)[i:i + 2], 16) for i in (1, 3, 5))
        near = sum(1 for pixel in inside if sum(abs(a - b) for a, b in zip(pixel, want)) < 40)
        assert near > 150, f"line {index} ({colour(index)}) not drawn: {near} pixels"
    # A blank strip of the page (the margin left of the content) stays background.
    margin = list(pixels(2, top, 40, top + height))
    assert all(max(p) - min(p) < 10 for p in margin)


@pytest.mark.slow
def test_the_games_table_sorts_filters_and_links_replays_that_open(report, tmp_path):
    browser = Browser(chromium_or_skip(), tmp_path / "profile", height=900)
    try:
        browser.open(report.resolve().as_uri())
        assert browser.js("document.documentElement.dataset.games") == "60"
        links = browser.js('[...document.querySelectorAll("#games-table a")].map((a) => a.href)')
        assert len(links) == 60
        faults = browser.js('[...document.querySelectorAll(".fault-list a")].map((a) => a.href)')
        assert faults and all("#step=" in link for link in faults)
        # Filter by a bot: only its games stay; sort by decisions: the column is in order.
        shown = browser.js("""(() => { const f = document.getElementById("game-filter");
          f.value = "sloppy"; f.dispatchEvent(new Event("change"));
          return [...document.querySelectorAll("#games-table tbody tr")]
            .filter((r) => r.style.display !== "none").map((r) => r.dataset.bots); })()""")
        assert len(shown) == 36 and all("sloppy" in bots.split("\t") for bots in shown)
        decisions = browser.js("""(() => { document.querySelector('#games-table th[data-col="5"]')
          .click(); return [...document.querySelectorAll("#games-table tbody tr")]
          .map((r) => Number(r.cells[5].textContent)); })()""")
        assert decisions == sorted(decisions) and decisions[0] < decisions[-1]
        # A replay from the table, and a fault's link, open at their step with no error.
        for link in (links[0], faults[0]):
            browser.open(link)
            assert browser.js("window.replayLoaded.then(() => document.documentElement"
                              ".dataset.ready)") == "1"
            step = link.split("#step=")[1].split("&")[0] if "#step=" in link else "0"
            assert browser.js("document.documentElement.dataset.step") == step
            assert browser.js('document.querySelectorAll("#table .card").length') > 5
        assert browser.problems == []
        assert all(url.startswith("file://") for url in browser.requests)
    finally:
        browser.close()


def test_the_report_embeds_everything_the_chart_needs(report):
    page = report.read_text()
    data = json.loads(re.search(r'id="chart-data">(.*?)</script>', page, re.S).group(1))
    assert {s["bot"] for s in data["series"]} == set(BOTS)
    assert data["games"] == 36                  # each bot's own games, not the schedule's 60
    for series in data["series"]:
        assert series["points"][0] == [0, 25.0, 25 / 3]
        assert all(len(point) == 3 and point[2] > 0 for point in series["points"])
