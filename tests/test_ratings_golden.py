"""TrueSkill through the project's own environment gives the package's known results."""

from __future__ import annotations

import pytest

from ratings.board import leaderboard
from ratings.trueskill_ratings import Outcome


def test_new_one_vs_one_matches_the_known_result():
    rows = {row.bot: row for row in leaderboard([Outcome(0, ("a", "b"), (1, 2))], ["a", "b"])}
    assert rows["a"].mu == pytest.approx(29.396, abs=1e-3)
    assert rows["a"].sigma == pytest.approx(7.171, abs=1e-3)
    assert rows["b"].mu == pytest.approx(20.604, abs=1e-3)
    assert rows["b"].sigma == pytest.approx(7.171, abs=1e-3)
    assert rows["a"].wins == 1 and rows["b"].wins == 0


def test_void_games_are_not_rated():
    rows = leaderboard([Outcome(0, ("a", "b"), (1, 2), rated=False)], ["a", "b"])
    assert all(row.mu == 25.0 and row.games == 0 for row in rows)
