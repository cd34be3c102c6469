"""The quick tier's rule (tests/quick_tier.py): which tests ``--quick`` keeps, and the record
the whole suite writes for it."""

from __future__ import annotations

import json

import pytest
import quick_tier

pytest_plugins = ["pytester"]

TESTS = '''
import time
import pytest

@pytest.fixture(scope="module")
def costly():
    return 1

def test_quick(tmp_path):
    pass

def test_new_and_unmeasured():
    pass

@pytest.mark.slow
def test_marked_slow():
    pass

def test_over_budget():
    pass

def test_paid_for_the_fixture(costly, tmp_path):
    pass

def test_shares_the_costly_fixture(costly):
    pass
'''
CONFTEST = '''
import quick_tier

def pytest_addoption(parser):
    quick_tier.addoption(parser)

def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long")
    quick_tier.configure(config)

def pytest_collection_modifyitems(config, items):
    quick_tier.longest_first(items)
    quick_tier.select(config, items)
'''


@pytest.fixture
def suite(pytester, monkeypatch):
    monkeypatch.setattr(quick_tier, "RECORD", pytester.path / "quick-record.json")
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_some=TESTS)
    return pytester


def test_the_quick_tier_leaves_out_slow_over_budget_and_costly_fixture_tests(suite):
    quick_tier.RECORD.write_text(json.dumps({
        "budget_s": 1.0, "over_budget": ["test_some.py::test_over_budget"],
        "costly_setup": ["test_some.py::test_paid_for_the_fixture"]}))
    result = suite.runpytest("--quick", "-v")
    result.assert_outcomes(passed=2, deselected=4)
    result.stdout.fnmatch_lines(["*test_quick PASSED*", "*test_new_and_unmeasured PASSED*"])


def test_without_quick_every_test_runs(suite):
    quick_tier.RECORD.write_text(json.dumps({
        "budget_s": 1.0, "over_budget": ["test_some.py::test_over_budget"], "costly_setup": []}))
    suite.runpytest().assert_outcomes(passed=6)


def test_the_recorded_run_names_the_tests_over_the_budget(suite, monkeypatch):
    """A test that sleeps past the band over a tiny budget is recorded, and the next --quick
    leaves it out (only the over-budget side is asserted: how fast `pass` runs is the
    machine's)."""
    monkeypatch.setattr(quick_tier, "BUDGET_S", 0.05)
    suite.makepyfile(test_sleepy="import time\n\ndef test_sleeps():\n    time.sleep(0.15)\n")
    suite.runpytest("--record-quick").assert_outcomes(passed=7)
    record = json.loads(quick_tier.RECORD.read_text())
    assert "test_sleepy.py::test_sleeps" in record["over_budget"]
    assert record["budget_s"] == 0.05
    result = suite.runpytest("--quick", "test_sleepy.py")
    result.assert_outcomes(deselected=1)


def test_a_recorded_test_stays_recorded_until_within_half_the_budget(suite, monkeypatch):
    """The record's hysteresis: a test already over the budget that now runs between half the
    budget and the budget (a sleep bounds it from below) stays in; an unchanged record is not
    rewritten, so a full run leaves the checkout clean."""
    monkeypatch.setattr(quick_tier, "BUDGET_S", 0.05)
    suite.makepyfile(test_sleepy="import time\n\ndef test_sleeps():\n    time.sleep(0.03)\n")
    quick_tier.RECORD.write_text(json.dumps({
        "budget_s": 0.05, "over_budget": ["test_sleepy.py::test_sleeps"],
        "costly_setup": [], "file_seconds": {"test_sleepy.py": 9.0}}, indent=1) + "\n")
    written = quick_tier.RECORD.stat().st_mtime_ns
    suite.runpytest("--record-quick", "test_sleepy.py").assert_outcomes(passed=1)
    record = json.loads(quick_tier.RECORD.read_text())
    assert record["over_budget"] == ["test_sleepy.py::test_sleeps"]
    assert quick_tier.RECORD.stat().st_mtime_ns == written


def test_an_unrecorded_test_enters_only_past_the_band_over_the_budget(suite, monkeypatch):
    """A test not recorded that runs over the budget but within ``BAND`` times it (a sleep
    bounds it from below, and the budget is set far above what the sleep can overrun by)
    stays out of the record, and the unchanged record is not rewritten."""
    monkeypatch.setattr(quick_tier, "BUDGET_S", 0.5)
    suite.makepyfile(test_sleepy="import time\n\ndef test_sleeps():\n    time.sleep(0.6)\n")
    quick_tier.RECORD.write_text(json.dumps({
        "budget_s": 0.5, "over_budget": [], "costly_setup": [],
        "file_seconds": {"test_sleepy.py": 9.0}}, indent=1) + "\n")
    written = quick_tier.RECORD.stat().st_mtime_ns
    suite.runpytest("--record-quick", "test_sleepy.py").assert_outcomes(passed=1)
    assert quick_tier.RECORD.stat().st_mtime_ns == written


def test_a_skipped_test_keeps_its_place_in_the_record(suite, monkeypatch):
    """A test skipped in this run (a tool missing here) measured nothing: a recorded one
    stays recorded, though it took no time at all."""
    suite.makepyfile(test_skipping="import pytest\n\n"
                                   "def test_needs_a_tool():\n    pytest.skip('no tool')\n")
    quick_tier.RECORD.write_text(json.dumps({
        "budget_s": 1.0, "over_budget": ["test_skipping.py::test_needs_a_tool"],
        "costly_setup": [], "file_seconds": {"test_skipping.py": 9.0}}, indent=1) + "\n")
    suite.runpytest("--record-quick", "test_skipping.py").assert_outcomes(skipped=1)
    record = json.loads(quick_tier.RECORD.read_text())
    assert record["over_budget"] == ["test_skipping.py::test_needs_a_tool"]


def test_a_changed_tier_records_each_file_s_seconds(suite, monkeypatch):
    """The file seconds are written with the tier (a sleep bounds one from below), and kept
    while the tier stays the same (the previous test: an unchanged record is not rewritten)."""
    monkeypatch.setattr(quick_tier, "BUDGET_S", 0.05)
    suite.makepyfile(test_sleepy="import time\n\ndef test_sleeps():\n    time.sleep(0.2)\n")
    suite.runpytest("--record-quick").assert_outcomes(passed=7)
    seconds = json.loads(quick_tier.RECORD.read_text())["file_seconds"]
    assert set(seconds) == {"test_some.py", "test_sleepy.py"}
    assert seconds["test_sleepy.py"] >= 0.2


def test_files_run_longest_first_as_recorded_and_unrecorded_ones_before_them(suite):
    suite.makepyfile(test_short="def test_a():\n    pass\n",
                     test_long="def test_b():\n    pass\n",
                     test_new="def test_c():\n    pass\n")
    quick_tier.RECORD.write_text(json.dumps({
        "budget_s": 1.0, "over_budget": [], "costly_setup": [],
        "file_seconds": {"test_short.py": 2.0, "test_long.py": 30.0, "test_some.py": 5.0}}))
    lines = suite.runpytest("--collect-only", "-q").outlines
    files = [line.split("::")[0] for line in lines if "::" in line]
    order = [name for place, name in enumerate(files) if name not in files[:place]]
    assert order == ["test_new.py", "test_long.py", "test_some.py", "test_short.py"]
