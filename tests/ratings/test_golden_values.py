"""Golden values: the ratings give the trueskill package's known results.

The values are the trueskill package's (0.4.5, default parameters) for new
players; the untied 1-vs-1, 3- and 4-player ones are also those published by
Moserware's reference implementation (e.g. 3 players: 31.675/6.657,
25.000/6.208, 18.325/6.657). Each is checked through the project's own
:class:`Rater` (the headline ratings), through ``leaderboard``, and through
:class:`FastTrueSkill` (the bootstrap's replica).
"""

from __future__ import annotations

import pytest
import trueskill

from ratings.board import leaderboard
from ratings.fast_trueskill import FastTrueSkill
from ratings.params import RatingConfig
from ratings.trueskill_ratings import Outcome, Rater, environment

NAMES = ("a", "b", "c", "d")

# ranks by seat -> (mu, sigma) by seat, for new players.
GOLDEN = [
    ((1, 2), [(29.396, 7.171), (20.604, 7.171)]),
    ((2, 1), [(20.604, 7.171), (29.396, 7.171)]),
    ((1, 1), [(25.000, 6.458), (25.000, 6.458)]),
    ((1, 2, 3), [(31.675, 6.656), (25.000, 6.208), (18.325, 6.656)]),
    ((1, 1, 1), [(25.000, 5.699), (25.000, 5.695), (25.000, 5.699)]),
    ((1, 2, 2), [(30.109, 6.735), (22.443, 5.972), (22.448, 5.974)]),
    ((1, 2, 3, 4), [(33.207, 6.348), (27.401, 5.787), (22.599, 5.787), (16.793, 6.348)]),
    ((2, 1, 4, 3), [(27.401, 5.787), (33.207, 6.348), (16.793, 6.348), (22.599, 5.787)]),
    ((1, 1, 3, 4), [(29.263, 5.686), (29.272, 5.682), (23.833, 5.807), (17.632, 6.426)]),
    ((1, 2, 2, 4), [(31.564, 6.405), (24.993, 5.559), (25.007, 5.559), (18.436, 6.405)]),
]


def ids(case):
    return "-".join(map(str, case[0]))


@pytest.mark.parametrize("case", GOLDEN, ids=ids)
def test_rater_gives_the_golden_values(case):
    ranks, expected = case
    seats = NAMES[:len(ranks)]
    rater = Rater(RatingConfig())
    rater.add(Outcome(0, seats, ranks))
    for bot, (mu, sigma) in zip(seats, expected):
        assert rater.rating(bot).mu == pytest.approx(mu, abs=1e-3)
        assert rater.rating(bot).sigma == pytest.approx(sigma, abs=1e-3)


@pytest.mark.parametrize("case", GOLDEN, ids=ids)
def test_fast_replica_gives_the_golden_values(case):
    ranks, expected = case
    got = FastTrueSkill(RatingConfig()).rate([(25.0, 25 / 3)] * len(ranks), ranks)
    for (mu, sigma), (want_mu, want_sigma) in zip(got, expected):
        assert mu == pytest.approx(want_mu, abs=1e-3)
        assert sigma == pytest.approx(want_sigma, abs=1e-3)


def test_leaderboard_of_one_game_has_the_golden_values():
    rows = {row.bot: row for row in leaderboard([Outcome(0, ("a", "b", "c"), (1, 2, 3))],
                                                 ["a", "b", "c"])}
    assert (round(rows["a"].mu, 3), round(rows["a"].sigma, 3)) == (31.675, 6.656)
    assert (round(rows["c"].mu, 3), round(rows["c"].sigma, 3)) == (18.325, 6.656)
    assert [rows[b].rank for b in "abc"] == [1, 2, 3]


def test_a_second_game_builds_on_the_first():
    """The package's 1-vs-1 after a known first game: the winner wins again."""
    rater = Rater(RatingConfig())
    rater.add(Outcome(0, ("a", "b"), (1, 2)))
    rater.add(Outcome(1, ("a", "b"), (1, 2)))
    env = trueskill.TrueSkill()
    (a,), (b,) = env.rate([(env.create_rating(),), (env.create_rating(),)])
    (a,), (b,) = env.rate([(a,), (b,)])
    assert rater.rating("a").mu == pytest.approx(a.mu, abs=1e-9)
    assert rater.rating("b").sigma == pytest.approx(b.sigma, abs=1e-9)


def test_rating_parameters_are_the_tournament_ones_not_the_global_environment():
    params = RatingConfig(mu=1500, sigma=500, beta=250, tau=5, draw_probability=0.1)
    env = environment(params)
    assert (env.mu, env.sigma, env.beta, env.tau, env.draw_probability) == \
        (1500, 500, 250, 5, 0.1)
    saved = trueskill.global_env()
    try:
        trueskill.setup(mu=0, sigma=1, beta=0.5, tau=0, draw_probability=0.5)
        rater = Rater(params)
        rater.add(Outcome(0, ("a", "b"), (1, 2)))
    finally:
        trueskill.setup(env=saved)
    # The golden 1-vs-1 on a scale 60 times the default one: (29.396, 7.171) becomes this.
    assert rater.rating("a").mu == pytest.approx(1500 + 60 * 4.396, abs=0.1)
    assert rater.rating("a").sigma == pytest.approx(60 * 7.171, abs=0.1)
