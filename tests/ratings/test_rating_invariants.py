"""Invariants of the ratings on random inputs (hypothesis)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import trueskill
import trueskill.backends
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings import fast_trueskill
from ratings.batch_trueskill import BatchTrueSkill
from ratings.fast_trueskill import FastTrueSkill
from ratings.params import RatingConfig
from ratings.trueskill_ratings import Outcome, Rater

BOTS = ["a", "b", "c", "d", "e", "f"]


@st.composite
def games(draw, min_size=1, max_size=12):
    """A log of games between BOTS: seats (2–5 distinct bots) and ranks (ties allowed)."""
    log = []
    for index in range(draw(st.integers(min_size, max_size))):
        n = draw(st.integers(2, 5))
        seats = tuple(draw(st.permutations(BOTS))[:n])
        ranks = tuple(draw(st.lists(st.integers(1, n), min_size=n, max_size=n)))
        # Ranks as the referee writes them: competition ranks (1, 1, 3).
        ranks = tuple(1 + sum(other < rank for other in ranks) for rank in ranks)
        log.append(Outcome(index, seats, ranks))
    return log


def replay(log, params=RatingConfig()):
    rater = Rater(params)
    for outcome in log:
        rater.add(outcome)
    return rater


@settings(max_examples=150, deadline=None)
@given(log=games(max_size=6), n=st.integers(2, 5), data=st.data())
def test_with_equal_priors_the_winner_rises_and_the_last_falls(log, n, data):
    ranks = data.draw(st.lists(st.integers(1, n), min_size=n, max_size=n)
                      .filter(lambda r: len(set(r)) > 1))
    ranks = [1 + sum(other < rank for other in ranks) for rank in ranks]
    seats = tuple(f"new{i}" for i in range(n))   # all at the prior: equal ratings
    rater = replay(log)
    rater.add(Outcome(99, seats, tuple(ranks)))
    best, worst = min(ranks), max(ranks)
    for bot, rank in zip(seats, ranks):
        if rank == best:
            assert rater.rating(bot).mu > 25.0
        if rank == worst:
            assert rater.rating(bot).mu < 25.0


@settings(max_examples=150, deadline=None)
@given(log=games(min_size=2), data=st.data())
def test_the_seat_order_of_the_input_does_not_matter(log, data):
    shuffled = []
    for outcome in log:
        order = data.draw(st.permutations(range(len(outcome.seats))))
        shuffled.append(Outcome(outcome.index, tuple(outcome.seats[i] for i in order),
                                tuple(outcome.ranks[i] for i in order)))
    first, second = replay(log), replay(shuffled)
    for bot in BOTS:
        assert first.rating(bot).mu == second.rating(bot).mu
        assert first.rating(bot).sigma == second.rating(bot).sigma


@settings(max_examples=150, deadline=None)
@given(log=games(max_size=20))
def test_sigma_never_grows_with_tau_zero(log):
    rater = Rater(RatingConfig(tau=0.0))
    for outcome in log:
        before = {bot: rater.rating(bot).sigma for bot in outcome.seats}
        rater.add(outcome)
        for bot in outcome.seats:
            assert rater.rating(bot).sigma <= before[bot] + 1e-12


@settings(max_examples=150, deadline=None)
@given(log=games(max_size=20))
def test_with_tau_the_sigma_of_a_bot_that_sits_out_does_not_change(log):
    """Dynamics are added only when a bot plays, never to bystanders."""
    rater = Rater(RatingConfig())
    for outcome in log:
        before = {bot: rater.rating(bot).sigma for bot in BOTS if bot not in outcome.seats}
        rater.add(outcome)
        assert {bot: rater.rating(bot).sigma for bot in before} == before


RATINGS = st.lists(st.tuples(st.floats(5, 45), st.floats(0.3, 9)), min_size=2, max_size=5)
PARAMS = st.sampled_from([RatingConfig(), RatingConfig(tau=0.0, draw_probability=0.3),
                          RatingConfig(mu=0, sigma=3, beta=1.5, tau=0.01, draw_probability=0.02)])


def package_rate(params, ratings, ranks):
    env = trueskill.TrueSkill(mu=params.mu, sigma=params.sigma, beta=params.beta,
                              tau=params.tau, draw_probability=params.draw_probability)
    try:
        return [(r.mu, r.sigma) for (r,) in env.rate(
            [(trueskill.Rating(mu, sigma),) for mu, sigma in ratings], ranks=ranks)]
    except FloatingPointError:   # out of the package's range: nothing to compare
        return None


@settings(max_examples=200, deadline=None)
@given(ratings=RATINGS, data=st.data(), params=PARAMS)
def test_the_fast_replica_agrees_with_the_package(ratings, data, params):
    """Within the package's own convergence tolerance (its sweeps stop at a change of 1e-4).

    The replica uses math.erfc where the package uses its own approximation of
    erfc (relative error ~1e-7), which can move the stopping point by a sweep.
    """
    ranks = data.draw(st.lists(st.integers(1, len(ratings)), min_size=len(ratings),
                               max_size=len(ratings)))
    expected = package_rate(params, ratings, ranks)
    if expected is None:
        return
    got = FastTrueSkill(params).rate(ratings, ranks)
    for (want_mu, want_sigma), (mu, sigma) in zip(expected, got):
        assert mu == pytest.approx(want_mu, abs=1e-4)
        assert sigma == pytest.approx(want_sigma, abs=1e-4)


@settings(max_examples=200, deadline=None)
@given(ratings=RATINGS, data=st.data(), params=PARAMS)
def test_with_the_package_s_erfc_the_replica_runs_the_very_same_schedule(ratings, data, params):
    ranks = data.draw(st.lists(st.integers(1, len(ratings)), min_size=len(ratings),
                               max_size=len(ratings)))
    expected = package_rate(params, ratings, ranks)
    if expected is None:
        return
    engine = FastTrueSkill(params)
    env = trueskill.TrueSkill(mu=params.mu, sigma=params.sigma, beta=params.beta,
                              tau=params.tau, draw_probability=params.draw_probability)
    engine._margins[2] = trueskill.calc_draw_margin(params.draw_probability, 2, env)
    saved = fast_trueskill.math
    fast_trueskill.math = SimpleNamespace(erfc=trueskill.backends.erfc, exp=math.exp,
                                          sqrt=math.sqrt)
    try:
        got = engine.rate(ratings, ranks)
    finally:
        fast_trueskill.math = saved
    for (want_mu, want_sigma), (mu, sigma) in zip(expected, got):
        assert mu == pytest.approx(want_mu, abs=1e-9)
        assert sigma == pytest.approx(want_sigma, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), params=PARAMS, games=st.integers(1, 12))
def test_the_batch_replica_rates_each_pair_as_the_scalar_one(data, params, games):
    """A batch of independent two-player games (wins, losses and draws in any
    seat order) gives each game the scalar replica's result."""
    rating = st.tuples(st.floats(0, 50), st.floats(0.5, 10))
    tables = data.draw(st.lists(st.tuples(rating, rating), min_size=games, max_size=games))
    ranks = data.draw(st.lists(st.lists(st.integers(1, 2), min_size=2, max_size=2),
                               min_size=games, max_size=games))
    scalar = FastTrueSkill(params)
    try:
        expected = [scalar.rate(table, table_ranks) for table, table_ranks in zip(tables, ranks)]
    except FloatingPointError:   # out of range for the scalar replica: nothing to compare
        return
    mu = np.array([[m for m, _ in table] for table in tables])
    sigma = np.array([[s for _, s in table] for table in tables])
    got_mu, got_sigma = BatchTrueSkill(params).rate(mu, sigma, np.array(ranks))
    for game, results in enumerate(expected):
        for seat, (want_mu, want_sigma) in enumerate(results):
            assert got_mu[game, seat] == pytest.approx(want_mu, abs=1e-9)
            assert got_sigma[game, seat] == pytest.approx(want_sigma, abs=1e-9)
