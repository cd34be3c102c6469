"""The replay: frames rebuilt from a record, the text replay, and the HTML viewer.

The viewer's promise is that a seat's view shows exactly what that seat was
sent: the tests compare the cards drawn for a seat with the engine's own
``observation(seat)`` at the same step, in Python and in headless Chromium.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from headless import Browser, chromium_or_skip

from circus_referee.main import main
from referee.games import GAMES, GameRecord, get_game, replay
from referee.replay import Replaying, replay_frames
from pages.replays import write_replays
from pages.viewer import STATIC_FILES, embedded_data, page_data, record_data, render_page
from referee.tables import card_looks, tables
from tournaments.config import parse_config
from tournaments.runner import TournamentRunner
from tournaments.store import Store

SETUPS = [(game.name, variant) for game in GAMES.values() for variant in game.variants]


def random_record(game: str, variant: str, players: int = 3, seed: int = 5) -> GameRecord:
    state = get_game(game).new_state(players, variant, seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply(rng.randrange(len(state.legal_actions())))
    return state.record()


def observed_cards(game: str, observation: Any) -> Counter:
    """Every card an observation holds, by the id the viewer gives it (found by walking it)."""
    found: Counter = Counter()

    def walk(value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            if game == "flohcati" and "code" in value:
                found[value["code"]] += 1
            elif game == "animal-circus" and {"value", "color"} <= value.keys():
                found[f"{value['value']}-{value['color']}"] += 1
            elif game == "flea-circus" and value.get("kind") in (
                    "saucer", "numbers", "counterattack", "recruitment", "general"):
                found[value.get("saucer") or value["kind"]] += 1
            else:
                for item in value.values():
                    walk(item)
    walk(observation)
    if game == "flohcati" and observation.get("action_card"):
        found[observation["action_card"]] += 1  # the action card being carried out, by name
    return found


def shown_cards(table: dict[str, Any]) -> Counter:
    """The face-up cards of a table the viewer draws."""
    zones = [*table["center"], *(z for seat in table["seats"] for z in seat["zones"])]
    return Counter(card.removeprefix("*") for z in zones for card in z["cards"] if card)


def position(record: GameRecord, step: int):
    """The engine's state before decision ``step + 1``, replayed independently of the viewer."""
    return replay(GameRecord(record.game, record.variant, record.players, record.seed,
                             record.actions[:step]))


# -- frames and tables, in Python ---------------------------------------------------------------

@pytest.mark.parametrize("game,variant", SETUPS)
def test_frames_follow_the_record_with_times_and_faults(game, variant):
    record = random_record(game, variant)
    times = [[number % 3, number, float(number)] for number in range(2, len(record.actions), 2)]
    faults = [{"decision_id": 0, "seat": 1, "class": "error", "detail": "StartGame: no",
               "policy": "substitute"},
              {"decision_id": 4, "seat": 2, "class": "illegal", "detail": "index 9",
               "policy": "substitute"}]
    replayed = replay_frames(record, ["a", "b", "c"], times, faults)
    assert len(replayed.frames) == len(record.actions) + 1
    assert [d.chosen for d in replayed.decisions] == list(record.actions)
    assert replayed.frames[-1].decision is None
    assert replayed.scores == replay(record).scores()
    decisions = replayed.decisions
    assert decisions[0].time_ms is None and decisions[1].time_ms == 2.0
    assert [f["class"] for f in decisions[0].faults] == ["error"]
    assert [f["class"] for f in decisions[3].faults] == ["illegal"]
    # Every event is in exactly one frame, in order.
    assert [i for frame in replayed.frames for i in frame.events] == \
        list(range(len(replayed.events)))


@pytest.mark.parametrize("game,variant", SETUPS)
def test_a_page_made_frame_by_frame_is_the_page_of_the_kept_frames(game, variant):
    """A page drawn as its frames are made, each let go once used, is byte for byte the
    page of the game's kept frames, and the game's end reads the same after."""
    record = random_record(game, variant, players=4)
    seats = [f"bot{seat}" for seat in range(record.players)]
    times = [[number % record.players, number, number / 7] for number in range(1, 9)]
    kept = replay_frames(record, seats, times)
    replaying = Replaying(record, seats, times)
    every_seat = range(record.players)
    assert page_data(replaying, every_seat) == page_data(kept, every_seat)
    assert (replaying.scores, replaying.ranks, replaying.end_reason, replaying.events) == \
        (kept.scores, kept.ranks, kept.end_reason, kept.events)
    assert next(replaying.frames, None) is None       # made once


@pytest.mark.parametrize("game,variant", SETUPS)
def test_a_seats_table_shows_only_cards_of_its_observation(game, variant):
    record = random_record(game, variant, players=4, seed=9)
    replayed = replay_frames(record)
    revealing = 0
    for frame in replayed.frames[::3]:
        views = tables(game, frame.state, frame.observations, frame.scores)
        for seat in range(record.players):
            allowed = observed_cards(game, frame.observations[seat])
            assert not shown_cards(views[seat + 1]) - allowed, (seat, frame.decision)
            revealing += bool(shown_cards(views[0]) - allowed)
    assert revealing, "the omniscient table never shows more than a seat sees"


# -- the tables in the viewer's script, under node ----------------------------------------------

STEPS_JS = Path(__file__).parent.parent / "pages" / "static" / "steps.js"

#: Every step the viewer's steps.js rebuilds from each page's data (a JSON list on
#: stdin), a line each: its tables as JSON (compared as text first: parsing them all takes
#: seconds); then a line of the look of every card it shows. (The state and observations
#: it rebuilds are compared in Chromium, below.)
NODE_STEPS = """
const path = require("path"), folder = path.dirname(process.argv[1]);
for (const name of require("fs").readdirSync(folder)) {
  if (/^rules-.*[.]js$/.test(name)) require(path.join(folder, name));
}
const steps = require(process.argv[1]);
const pages = JSON.parse(require("fs").readFileSync(0, "utf8"));
const lines = [];
for (const data of pages) {
  const looks = {};
  for (const frame of steps.rebuild(data)) {
    lines.push(JSON.stringify(frame.v));
    for (const table of frame.v) {
      for (const zone of table.center.concat(...table.seats.map((seat) => seat.zones))) {
        for (const card of zone.cards) {
          const id = card.replace(/^[*]/, "");
          if (id) looks[id] = steps.look(data.meta.game, id);
        }
      }
    }
  }
  lines.push(JSON.stringify(looks));
}
process.stdout.write(lines.join("\\n"));
"""


def node_steps(pages: list[str]) -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: the viewer's tables are tested under Node.js")
    done = subprocess.run([node, "-e", NODE_STEPS, str(STEPS_JS)], input=f"[{','.join(pages)}]",
                          capture_output=True, text=True, check=True)
    return done.stdout.split("\n")


def same_json(made: str, value: Any) -> bool:
    """Whether the JSON text ``made`` is ``value``: as text when the keys come in the same
    order (most steps), else parsed."""
    return made == json.dumps(value, separators=(",", ":"), ensure_ascii=False) or \
        json.loads(made) == value


@pytest.mark.slow
def test_the_viewers_script_draws_every_table_as_python_does():
    """Every step of a game of every kind, variant and table size: the tables the script
    draws from the page's data are Python's, and so is the look of every card drawn."""
    replays = [replay_frames(random_record(game.name, variant, players, seed=6))
               for game in GAMES.values() for variant in game.variants
               for players in range(game.min_players, game.max_players + 1)]
    drawn = iter(node_steps([record_data(replayed.record, replayed.seats)
                             for replayed in replays]))
    notes: set[str] = set()
    for replayed in replays:
        game, players = replayed.record.game, replayed.record.players
        cards: Counter = Counter()
        for step, frame in enumerate(replayed.frames):
            shown = tables(game, frame.state, frame.observations, frame.scores)
            assert same_json(next(drawn), shown), (game, players, step)
            for table in shown:
                cards.update(shown_cards(table))
            notes.update(zone["title"] + ": " + zone["note"] for zone in shown[0]["center"])
        assert same_json(next(drawn), card_looks(game, cards)), (game, players)
    # The games reached the parts of a table that only some positions have.
    for part in ("Matching card: ", "Action card: ", "Ring: Bat: play lower than"):
        assert any(note.startswith(part) for note in notes), part


#: Every step of one page (on stdin), rebuilt by steps.js: its tables, what they are drawn
#: from, and the decision.
NODE_PAGE = """
const steps = require(process.argv[1]);
const data = JSON.parse(require("fs").readFileSync(0, "utf8"));
const frames = steps.rebuild(data);
process.stdout.write(JSON.stringify(frames.map((frame) => [frame.v, frame.o, frame.d])));
"""


def test_a_page_of_one_seat_holds_only_what_that_seat_was_shown():
    """A seat's own page (the arena's, for an entrant): its table and observation at every
    step, as Python's; no engine state, no other seat's observation, event or choices."""
    replayed = replay_frames(random_record("flohcati", "es", players=4, seed=6))
    data = page_data(replayed, seats=[1])
    assert '"deck":' not in data   # the engine's state, with the deck's order
    node = shutil.which("node") or pytest.fail("node is not on PATH")
    done = subprocess.run([node, "-e", NODE_PAGE, str(STEPS_JS)], input=data,
                          capture_output=True, text=True, check=True)
    made = json.loads(done.stdout)
    assert len(made) == len(replayed.frames)
    for (views, seen, decision), frame in zip(made, replayed.frames):
        mine = tables("flohcati", frame.state, frame.observations, frame.scores)[2]
        assert views == [None, None, mine, None, None]
        assert seen == [None, None, frame.observations[1], None, None]
        if frame.decision is not None and frame.decision.seat != 1:
            assert decision == {"n": frame.decision.number, "seat": frame.decision.seat,
                                "kind": frame.decision.kind,
                                "faults": [fault for fault in frame.decision.faults
                                           if fault["seat"] == 1]}
        elif frame.decision is not None:
            assert decision["actions"] == [label for _, label in frame.decision.actions]
    events = json.loads(data)["events"]
    assert [text for text, _ in events] == [event.text for event in replayed.events
                                            if event.visible_for(1)]
    assert len(events) < len(replayed.events)


# -- the command ------------------------------------------------------------------------------

def run_cli(*args: str) -> Any:
    return CliRunner().invoke(main, [*args], catch_exceptions=False)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """A database with a small tournament of every game and variant; bot c is sloppy."""
    folder = tmp_path_factory.mktemp("replays")
    db = folder / "results.sqlite"
    for game, variant in SETUPS:
        name = f"{game}-{variant}"
        config = parse_config({
            "name": name, "game": game, "variant": variant, "players": 3, "concurrency": 1,
            "seed": 3, "secret_deals": False,  # the same games every run: faults to show
            "bots": [{"name": "alpha", "python": "bots.random_bot:RandomBot"},
                                {"name": "bravo-longer", "python": "bots.random_bot:RandomBot"},
                                {"name": "c", "python": "sloppy_bot:Sloppy"}]})
        TournamentRunner(config, Store(db), folder / "logs", out=io.StringIO(), quiet=True).run()
    return db


def first_game(db: Path, tournament: str) -> int:
    return Store(db).games(tournament)[0].id


def test_text_replay_has_aligned_columns_hands_and_times(store):
    game_id = first_game(store, "flea-circus-standard")
    result = run_cli("replay", str(game_id), "--db", str(store))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("#"))
    rows = [line for line in lines[header + 1:] if re.match(r"\s+\d+\s", line)]
    stored = Store(store).game(game_id)
    assert len(rows) == len(stored.actions)
    column = lines[header].index("action")
    for row in rows:
        assert row[column - 2:column] == "  " and row[column] != " ", row
    # The deciding seat's hand: seat 0's cards at the first decision, as the engine dealt them.
    first_hand = get_game("flea-circus").new_state(3, "standard", stored.seed).observation(0)
    assert rows[0].endswith(" ".join(c.get("saucer") or c["kind"] for c in first_hand["hand"]))
    # Times: every answered decision shows its milliseconds; faults are named.
    assert sum(bool(re.search(r"\s\d+\.\d\s", row)) for row in rows) >= len(stored.times) - 1
    assert "[illegal:" in result.output
    assert "end: " in lines[-1]


def test_text_replay_of_one_seat_shows_only_what_it_saw(store):
    game_id = first_game(store, "flohcati-en")
    seat = 1
    result = run_cli("replay", str(game_id), "--db", str(store), "--view", str(seat))
    assert result.exit_code == 0, result.output
    stored = Store(store).game(game_id)
    replayed = replay_frames(GameRecord("flohcati", "en", 3, stored.seed, tuple(stored.actions)))
    mine = [d for d in replayed.decisions if d.seat == seat]
    deciding = re.findall(r"^\s+\d+\s+(\d)\s", result.output, re.M)
    assert deciding == [str(seat)] * len(mine)
    for event in replayed.events:
        if not event.visible_for(seat):
            assert f"· {event.text}\n" not in result.output


def test_a_seat_is_viewed_by_its_bots_name_as_by_its_number(store):
    game = Store(store).games("flohcati-en")[0]
    seat = game.seats.index("bravo-longer")
    by_name = run_cli("replay", str(game.id), "--db", str(store), "--view", "bravo-longer")
    by_number = run_cli("replay", str(game.id), "--db", str(store), "--view", str(seat))
    assert by_name.exit_code == 0, by_name.output
    assert by_name.output == by_number.output
    assert set(re.findall(r"^\s+\d+\s+(\d)\s", by_name.output, re.M)) == {str(seat)}


def test_an_unknown_bot_to_view_is_refused_naming_the_games_bots(store):
    game = Store(store).games("flohcati-en")[0]
    result = CliRunner().invoke(main, ["replay", str(game.id), "--db", str(store),
                                       "--view", "zed"])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert result.output.startswith("error: no bot 'zed' in this game (seats: 0=")
    assert all(bot in result.output for bot in ("alpha", "bravo-longer", "c"))


def test_replay_from_an_export_file_matches_the_database(store, tmp_path):
    tournament = "animal-circus-standard"
    games = Store(store).games(tournament)
    for fmt in ("jsonl", "csv"):
        out = tmp_path / f"export.{fmt}"
        assert run_cli("export", "--db", str(store), "-t", tournament, "--format", fmt,
                       "-o", str(out)).exit_code == 0
        from_file = run_cli("replay", "--from", str(out), "--index", str(games[1].game_index))
        from_db = run_cli("replay", str(games[1].id), "--db", str(store))
        assert from_file.exit_code == 0, from_file.output
        # The same decisions, hands and times; only the heading names the game differently.
        assert from_file.output.splitlines()[1:] == from_db.output.splitlines()[1:]


def test_bad_replay_arguments_are_one_line_errors(store, tmp_path):
    export = tmp_path / "e.jsonl"
    run_cli("export", "--db", str(store), "-t", "flea-circus-standard", "--format", "jsonl",
            "-o", str(export))
    cases = [
        (["replay", "999", "--db", str(store)], "no game with id 999"),
        (["replay", "--from", str(export), "--index", "77"], "no game with index 77"),
        (["replay", "--from", str(tmp_path / "missing.jsonl"), "--index", "0"], "no export file"),
        (["replay", "1", "--db", str(store), "--view", "3"], "no seat 3"),
        (["replay", "--from", str(export)], "give --index"),
        (["replay", "1", "--db", str(store), "--html", str(tmp_path / "no" / "x.html")],
         "cannot write"),
    ]
    for args, message in cases:
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output.startswith("error: ") and message in result.output
        assert result.output.count("\n") == 1


# -- the HTML viewer in Chromium ----------------------------------------------------------------

def page_json(path: Path) -> dict[str, Any]:
    return json.loads(embedded_data(path.read_text()))


def test_the_page_is_self_contained(store, tmp_path):
    out = tmp_path / "g.html"
    result = run_cli("replay", str(first_game(store, "flohcati-es")), "--db", str(store),
                     "--html", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|https?://|url\(", text)
    data = page_json(out)
    assert data["record"]["actions"] == Store(store).games("flohcati-es")[0].actions
    assert out.stat().st_size < 1_000_000


def viewer_pages(store: Path, folder: Path) -> list[tuple[Path, GameRecord]]:
    """A page of each game and variant: in a folder of replays sharing one viewer, and
    the first also alone (``replay --html``, the viewer inline)."""
    pages = []
    for game, variant in SETUPS:
        stored = Store(store).games(f"{game}-{variant}")[0]
        faults = [dict(row) for row in Store(store).faults(f"{game}-{variant}")]
        write_replays([stored], faults, folder / "replays")
        pages.append((folder / "replays" / f"game-{stored.id}.html",
                      GameRecord(game, variant, 3, stored.seed, tuple(stored.actions))))
    alone = folder / "alone.html"
    assert run_cli("replay", str(first_game(store, f"{SETUPS[0][0]}-{SETUPS[0][1]}")),
                   "--db", str(store), "--html", str(alone)).exit_code == 0
    return [(alone, pages[0][1]), *pages]


def test_a_folder_of_replays_holds_the_viewer_once_and_each_page_its_game(store, tmp_path):
    games = Store(store).games("flohcati-es")
    write_replays(games, [], tmp_path)
    viewer = {path.name for path in tmp_path.iterdir() if not path.name.startswith("game-")}
    assert viewer == {"viewer.js", "steps.js", "viewer.css", "pages.json", "rules.js",
                      "rules-flea-circus.js", "rules-flohcati.js", "rules-animal-circus.js"}
    for game in games:
        page = (tmp_path / f"game-{game.id}.html").read_text()
        assert '<script src="rules.js"></script><script src="rules-flohcati.js"></script>' \
               '<script src="steps.js"></script><script src="viewer.js"></script>' in page
        assert "function" not in page
        record = json.loads(embedded_data(page))["record"]
        assert record["actions"] == game.actions and len(record["ms"]) == len(game.actions)


VIEWS = "JSON.stringify(window.replay.frames.map((frame) => [...frame.v, ...frame.o]))"


def python_views(record: GameRecord) -> list[list[Any]]:
    """Every step's tables, state and observations, as Python makes them."""
    return [[*tables(record.game, frame.state, frame.observations, frame.scores),
             frame.state, *frame.observations] for frame in replay_frames(record).frames]


#: The page is drawn once its data is inflated, after the load event.
READY = "window.replayLoaded.then(() => document.documentElement.dataset.ready)"

WALK = """(() => {
  const slider = document.getElementById("slider"), seen = [];
  for (let i = 0; i <= Number(slider.max); i++) {
    slider.value = String(i);
    slider.dispatchEvent(new Event("input"));
    const chosen = document.querySelector("#actions li.chosen");
    seen.push([Number(document.documentElement.dataset.step),
               document.getElementById("decisionTitle").textContent,
               chosen ? chosen.textContent : null]);
  }
  return seen;
})()"""

CARDS = """(() => [...document.querySelectorAll("#table .card")]
  .map((card) => card.dataset.card || null))()"""


def seat_cards(steps: list[int], players: int) -> str:
    """A script: at each of ``steps``, the cards drawn in view 0 and in each seat's view (one
    call for them all: a browser's round trip costs more than drawing a view)."""
    return f"""(() => {{
  const seen = [];
  for (const step of {json.dumps(steps)}) {{
    window.replay.go(step);
    const views = [];
    for (let view = 0; view <= {players}; view++) {{
      window.replay.setView(view);
      views.push([...document.querySelectorAll("#table .card")]
        .map((card) => card.dataset.card || null));
    }}
    seen.push(views);
  }}
  window.replay.setView(0);
  return seen;
}})()"""


def check_seat_views(browser: Any, record: GameRecord) -> int:
    """At several steps, each seat's view shows only cards of its observation; returns how
    often the omniscient view showed a card that seat did not see (the check's teeth).
    ``browser`` is a :class:`headless.Browser` or a :class:`headless.Firefox`."""
    revealing = 0
    last = len(record.actions)
    steps = sorted({0, 1, last // 3, last // 2, 2 * last // 3, last})
    for step, (everything, *by_seat) in zip(steps, browser.js(seat_cards(steps,
                                                                          record.players))):
        state = position(record, step)
        for seat, shown in enumerate(by_seat):
            allowed = observed_cards(record.game, state.observation(seat))
            assert None in shown or step == last  # other hands are drawn face down
            assert not Counter(c for c in shown if c) - allowed, (record.game, step, seat)
            revealing += bool(Counter(c for c in everything if c) - allowed)
    return revealing


def check_seat_page(browser: Browser, folder: Path, record: GameRecord) -> Path:
    """A page of seat 1's views only: that view alone to choose, whatever the address asks,
    its cards those of its observation, every step walked; returns the page."""
    page = folder / "seat-1.html"
    page.write_text(render_page(record.game, "seat 1's", page_data(replay_frames(record), [1]),
                                static=""))
    browser.open(page.as_uri() + "#step=3&view=0")
    assert browser.js(READY) == "1"
    assert browser.js('[...document.querySelectorAll("#view option")].map((o) => o.value)') \
        == ["2"]
    assert browser.js("document.documentElement.dataset.view") == "2"
    allowed = observed_cards(record.game, position(record, 3).observation(1))
    assert not Counter(card for card in browser.js(CARDS) if card) - allowed
    walked = browser.js(WALK)
    assert [step for step, _, _ in walked] == list(range(len(record.actions) + 1))
    return page


def check_refused_record(browser: Browser, folder: Path, record: GameRecord) -> None:
    """A page whose record the rules refuse says so in one line, naming the decision."""
    bad = GameRecord(record.game, record.variant, record.players, record.seed,
                     (*record.actions[:2], 99))
    page = folder / "refused.html"
    page.write_text(render_page(bad.game, "refused", record_data(bad, ["a", "b", "c"]), ""))
    browser.open(page.as_uri())
    browser.js("window.replayLoaded.catch(() => 0)")
    assert browser.js('document.getElementById("failed").textContent') == \
        "This replay cannot be shown: decision 3: action index 99 is not between 0 and " \
        f"{len(position(record, 2).legal_actions()) - 1}"
    browser.problems.clear()


@pytest.mark.slow
def test_chromium_plays_every_game_and_each_seat_sees_only_its_own(store, tmp_path):
    binary = chromium_or_skip()
    pages = viewer_pages(store, tmp_path)
    shots = Path(os.environ.get("CIRCUS_SCREENSHOTS") or tmp_path)
    browser = Browser(binary, tmp_path / "profile", width=1280, height=760)
    try:
        # The watcher itself hears a console error and a network request.
        probe = tmp_path / "probe.html"
        probe.write_text('<script>console.error("probe"); fetch("http://127.0.0.1:9/x")'
                         '.catch(() => 0);</script>')
        browser.open(probe.as_uri())
        browser.js("new Promise((done) => setTimeout(done, 200))")
        assert any("probe" in p for p in browser.problems)
        assert "http://127.0.0.1:9/x" in browser.requests
        browser.problems.clear()
        browser.requests.clear()

        revealing = 0
        for page, record in pages:
            browser.open(page.as_uri() + "#step=2&view=0")
            assert browser.js(READY) == "1"
            # The steps the page rebuilds from its changes are the steps Python made.
            assert json.loads(browser.js(VIEWS)) == python_views(record)
            assert browser.js("document.documentElement.dataset.step") == "2"
            assert f"seed {record.seed} " in browser.js('document.getElementById("sub").textContent')
            walked = browser.js(WALK)
            assert [step for step, _, _ in walked] == list(range(len(record.actions) + 1))
            frames = replay_frames(record).frames
            for (step, title, chosen), frame in zip(walked, frames):
                if frame.decision is None:
                    assert title == "Game over" and chosen is None
                else:
                    assert f"Decision {step + 1} of" in title
                    assert chosen == frame.decision.actions[frame.decision.chosen][1]
            revealing += check_seat_views(browser, record)
            # Keys and the play button move it too.
            browser.js("window.replay.go(0)")
            for key in ("ArrowRight", "ArrowRight", "ArrowLeft"):
                browser.call("Input.dispatchKeyEvent", session=True, type="keyDown", key=key,
                             code=key, windowsVirtualKeyCode={"ArrowRight": 39,
                                                              "ArrowLeft": 37}[key])
            assert browser.js("document.documentElement.dataset.step") == "1"
            browser.js('document.getElementById("speed").value = "250";'
                       'document.getElementById("play").click()')
            assert browser.js("""new Promise((done) => { const t0 = Date.now();
              const poll = () => Number(document.documentElement.dataset.step) >= 3 ||
                Date.now() - t0 > 10000 ? done(document.documentElement.dataset.step)
                : setTimeout(poll, 50); poll(); })""") >= "3"
            browser.js('document.getElementById("play").click()')
            # One step per game, for docs/img (CIRCUS_SCREENSHOTS=docs/img to refresh them).
            browser.js(f"window.replay.setView(0); window.replay.go({len(record.actions) // 3})")
            if record.variant != "es":
                browser.screenshot(shots / f"replay-{record.game}.png")
                assert (shots / f"replay-{record.game}.png").read_bytes()[:4] == b"\x89PNG"
        assert revealing, "the omniscient view never showed more than a seat saw"
        seat_page = check_seat_page(browser, tmp_path / "replays", pages[2][1])
        assert browser.problems == []
        check_refused_record(browser, tmp_path / "replays", pages[2][1])
        viewer = [(tmp_path / "replays" / name).as_uri()
                  for name in STATIC_FILES]
        assert sorted(set(browser.requests)) == sorted(
            {page.as_uri() for page, _ in pages}
            | {seat_page.as_uri(), (tmp_path / "replays" / "refused.html").as_uri()} | set(viewer))
    finally:
        browser.close()
