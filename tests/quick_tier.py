"""The quick tier (``scripts/test --quick``): every test the last full run measured as quick.

A test is in the quick tier unless it is marked ``slow``, or the record names it as over
:data:`BUDGET_S` (setup, call and teardown, in a full run), or it shares a module- or
session-scoped fixture whose setup took more than that (the first test that would use the
fixture pays its setup, whichever test it is). A test with no record, a new one, is in:
new code is where breakage is likeliest, and the next full run measures it.

The record, ``tests/quick-record.json``, names only the tests over the budget, so it changes
when a test crosses the budget by a factor, not at every run. It also keeps each test file's seconds from
the run that last wrote it, by which :func:`longest_first` orders the files. ``scripts/test`` passes ``--record-quick``
when it runs the whole suite, which rewrites the record from that run's times, and only if its
membership changed. Membership changes only when a test's time moves by a factor
(:data:`BAND`): a test enters the record when measured over twice the budget and leaves it
when within half of it, and a skipped test keeps its place (its time says nothing).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

RECORD = Path(__file__).with_name("quick-record.json")
#: The most seconds one test may take (on the idle 2-core machine) and stay in the quick tier.
BUDGET_S = 1.0
#: How far past the budget a test must move to change its membership, either way. A test's
#: time in the full run varies with the machine's load and with which files share its worker
#: (1.7x for a file between the run that wrote the record and a fresh clone's): with the
#: band from half the budget to the budget, the fresh clone's run of an unchanged tree
#: flipped 21 tests in or out, and each full run dirtied the tracked record.
BAND = 2.0
#: Fixtures set up once for many tests: a costly one keeps every test using it out.
SHARED_SCOPES = ("session", "package", "module", "class")


def addoption(parser: pytest.Parser) -> None:
    parser.addoption("--quick", action="store_true",
                     help="only the quick tier: not slow, and within the budget when last "
                          "measured (tests/quick_tier.py)")
    parser.addoption("--record-quick", action="store_true",
                     help="write which tests ran over the quick tier's budget to "
                          "tests/quick-record.json (scripts/test does, for the whole suite)")


def read_record() -> dict:
    if not RECORD.exists():
        return {"over_budget": [], "costly_setup": []}
    return json.loads(RECORD.read_text())


def longest_first(items: list[pytest.Item]) -> None:
    """Order the test files longest first by the record's seconds (``--dist loadfile`` hands
    them out in this order with ``--no-loadscope-reorder``), so that no long file starts last
    while the other workers wait. Files the record does not know (new ones, or every file
    before the first recorded run) go first, most tests first, as xdist's own order does."""
    seconds = read_record().get("file_seconds", {})
    tests: dict[str, int] = {}
    for item in items:
        tests[file_of(item.nodeid)] = tests.get(file_of(item.nodeid), 0) + 1

    def rank(item: pytest.Item) -> tuple[int, float]:
        name = file_of(item.nodeid)
        return (1, -seconds[name]) if name in seconds else (0, -tests[name])
    items.sort(key=rank)


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def shared_fixtures(item: pytest.Item) -> set[tuple[str, str]]:
    """The project's fixtures this test shares with others, each keyed by where it is shared
    (its file, or the whole session). Plugins' fixtures (``tmp_path_factory``) have an empty
    ``baseid`` and are left out: nearly every test shares them."""
    shared = set()
    for name, definitions in item._fixtureinfo.name2fixturedefs.items():  # type: ignore[attr-defined]
        scope, baseid = definitions[-1].scope, definitions[-1].baseid
        if scope in SHARED_SCOPES and baseid:
            shared.add(("" if scope == "session" else str(item.path), name))
    return shared


def select(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With ``--quick``, deselect every test outside the quick tier."""
    if not config.getoption("quick"):
        return
    record = read_record()
    over, costly = set(record["over_budget"]), set(record["costly_setup"])
    costly_fixtures = {key for item in items if item.nodeid in costly
                       for key in shared_fixtures(item)}
    kept, dropped = [], []
    for item in items:
        out = (item.get_closest_marker("slow") is not None or item.nodeid in over
               or bool(shared_fixtures(item) & costly_fixtures))
        (dropped if out else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


class Recorder:
    """Each test's time as its reports come in (on the controller, under xdist too)."""

    def __init__(self) -> None:
        self.total: dict[str, float] = {}
        self.setup: dict[str, float] = {}
        self.skipped: set[str] = set()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.total[report.nodeid] = self.total.get(report.nodeid, 0.0) + report.duration
        if report.when == "setup":
            self.setup[report.nodeid] = report.duration
        if report.skipped:
            self.skipped.add(report.nodeid)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):   # an xdist worker: the controller writes
            return
        before = read_record()
        record = {"budget_s": BUDGET_S,
                  "over_budget": over_budget(self.total, before["over_budget"], self.skipped),
                  "costly_setup": over_budget(self.setup, before["costly_setup"],
                                              self.skipped)}
        if all(before.get(key) == value for key, value in record.items()) and \
                "file_seconds" in before:
            return   # the same tier: the file seconds too stay, so a full run dirties nothing
        files: dict[str, float] = {}
        for test, took in self.total.items():
            files[file_of(test)] = files.get(file_of(test), 0.0) + took
        record["file_seconds"] = {name: round(took, 1) for name, took in sorted(files.items())}
        RECORD.write_text(json.dumps(record, indent=1) + "\n")


def over_budget(seconds: dict[str, float], recorded: list[str],
                skipped: set[str]) -> list[str]:
    """The tests over the budget, with hysteresis by a factor: one not recorded enters only
    over ``BAND`` times the budget, one recorded leaves only within the budget over ``BAND``,
    and a skipped one (a missing tool, a file outside the clone) stays as it was. Between,
    each test keeps its membership, so a full run at a similar speed rewrites nothing."""
    was = set(recorded)
    return sorted(test for test, took in seconds.items()
                  if (test in was if test in skipped
                      else took > (BUDGET_S / BAND if test in was else BUDGET_S * BAND)))


def configure(config: pytest.Config) -> None:
    if config.getoption("record_quick") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(Recorder(), "quick-record")
