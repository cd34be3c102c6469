"""Invariants of the ratings on random inputs (hypothesis)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import trueskill
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.batch_trueskill import BatchTrueSkill
from ratings.fast_trueskill import FastTrueSkill
from ratings.params import RatingConfig
from ratings.trueskill_ratings import Outcome, Rater, canonical

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


def package_env(params):
    return trueskill.TrueSkill(mu=params.mu, sigma=params.sigma, beta=params.beta,
                               tau=params.tau, draw_probability=params.draw_probability)


def natural(rating):
    """Everything a Rating holds and shows, to compare bit for bit."""
    return rating.pi, rating.tau, rating.mu, rating.sigma


@settings(max_examples=300, deadline=None)
@given(ratings=RATINGS, data=st.data(), params=PARAMS)
def test_the_fast_replica_gives_the_package_s_ratings_to_the_bit(ratings, data, params):
    """Not close: equal. The replica does the package's float operations in its order."""
    ranks = data.draw(st.lists(st.integers(1, len(ratings)), min_size=len(ratings),
                               max_size=len(ratings)))
    try:
        expected = package_env(params).rate(
            [(trueskill.Rating(mu, sigma),) for mu, sigma in ratings], ranks=ranks)
    except FloatingPointError:   # the package raises: so does the replica
        with pytest.raises(FloatingPointError):
            FastTrueSkill(params).rate(ratings, ranks)
        return
    got = FastTrueSkill(params).rate(ratings, ranks)
    assert [natural(trueskill.Rating(*rating)) for rating in got] == \
        [natural(rating) for (rating,) in expected]


@settings(max_examples=100, deadline=None)
@given(log=games(max_size=30), params=PARAMS)
def test_the_rater_s_ratings_are_the_package_s_over_a_whole_log(log, params):
    """Game after game, each update starting from the last: the package's very Ratings."""
    env = package_env(params)
    expected: dict[str, trueskill.Rating] = {}
    rater = Rater(params)
    for outcome in log:
        seats, ranks = canonical(outcome.seats, outcome.ranks)
        try:
            updated = env.rate([(expected.get(bot) or env.create_rating(),) for bot in seats],
                               ranks=list(ranks))
        except FloatingPointError:
            with pytest.raises(FloatingPointError):
                rater.add(outcome)
            return
        expected.update((bot, rating) for bot, (rating,) in zip(seats, updated))
        rater.add(outcome)
    for bot in BOTS:
        assert natural(rater.rating(bot)) == natural(expected.get(bot) or env.create_rating())


@settings(max_examples=200, deadline=None)
@given(data=st.data(), params=PARAMS, games=st.integers(1, 12), players=st.integers(2, 5))
def test_the_batch_replica_rates_each_game_as_the_scalar_one(data, params, games, players):
    """A batch of independent games gives each game the scalar replica's result:
    two-player games (wins, losses and draws in any seat order) by the closed form,
    tables of three to five (in rank order, any ties) by the package's schedule, each
    row stopping where the scalar one stops."""
    rating = st.tuples(st.floats(0, 50), st.floats(0.5, 10))
    tables = data.draw(st.lists(st.lists(rating, min_size=players, max_size=players),
                                min_size=games, max_size=games))
    table_ranks = st.lists(st.integers(1, players), min_size=players, max_size=players)
    ranks = data.draw(st.lists(table_ranks if players == 2 else table_ranks.map(sorted),
                               min_size=games, max_size=games))
    scalar = FastTrueSkill(params)
    try:
        expected = [scalar.rate(table, table_ranks) for table, table_ranks in zip(tables, ranks)]
    except FloatingPointError:   # out of range for the scalar replica: nothing to compare
        return
    mu = np.array([[m for m, _ in table] for table in tables])
    sigma = np.array([[s for _, s in table] for table in tables])
    batch = BatchTrueSkill(params)
    if players == 2:
        got_mu, got_sigma = batch.rate(mu, sigma, np.array(ranks))
        tolerance = 1e-9
    else:
        tie = np.array([[a == b for a, b in itertools.pairwise(r)] for r in ranks])
        got_mu, got_sigma = batch.rate_table_sorted(mu, sigma, tie)
        # Float operations in numpy's order over several sweeps: equal to about 1e-12,
        # 1e-8 at worst seen (a row stopping one sweep apart).
        tolerance = 1e-6
    for game, results in enumerate(expected):
        for seat, (want_mu, want_sigma) in enumerate(results):
            assert got_mu[game, seat] == pytest.approx(want_mu, abs=tolerance)
            assert got_sigma[game, seat] == pytest.approx(want_sigma, abs=tolerance)


@settings(max_examples=200, deadline=None)
@given(table=st.lists(st.tuples(st.integers(1, 5), st.sampled_from(BOTS)), min_size=2,
                      max_size=5))
def test_canonical_order_is_rank_then_name_keeping_seat_order_on_equal_keys(table):
    ranks, seats = tuple(rank for rank, _ in table), tuple(seat for _, seat in table)
    order = sorted(range(len(seats)), key=lambda i: (ranks[i], seats[i]))   # stable
    assert canonical(seats, ranks) == (tuple(seats[i] for i in order),
                                       tuple(ranks[i] for i in order))


def truncated_alone(t, margin, tie):
    """The truncation's v and w with each bound's tail and density in calls of its own."""
    from ratings.batch_trueskill import _INV_SQRT2, _INV_SQRT_2PI, _erfc

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = t - margin
        denom = 0.5 * _erfc(-x * _INV_SQRT2)
        v = np.where(denom != 0, _INV_SQRT_2PI * np.exp(-x * x / 2.0) / denom, -x)
        w = v * (v + x)
        abs_t = np.abs(t)
        x1, x2 = margin - abs_t, -margin - abs_t
        denom_draw = 0.5 * _erfc(-x1 * _INV_SQRT2) - 0.5 * _erfc(-x2 * _INV_SQRT2)
        p1 = _INV_SQRT_2PI * np.exp(-x1 * x1 / 2.0)
        p2 = _INV_SQRT_2PI * np.exp(-x2 * x2 / 2.0)
        v_abs = (p2 - p1) / denom_draw
        return (np.where(tie, np.where(t < 0, -v_abs, v_abs), v),
                np.where(tie, v_abs * v_abs + (x1 * p1 - x2 * p2) / denom_draw, w))


@pytest.mark.parametrize("rows", [1, 7, 200, 1001])
def test_the_batch_truncation_gives_each_bound_s_bits_as_computed_alone(rows):
    """The win's and the draw's bounds share the tail's and the density's calls: every
    entry has the bits it has computed alone, so the bootstrap's numbers do not move."""
    from ratings.batch_trueskill import _truncate

    rng = np.random.default_rng(rows)
    t = rng.normal(0, 3, rows)
    margin = np.abs(rng.normal(0, 0.5, rows))
    for tie in (rng.random(rows) < 0.3, np.zeros(rows, dtype=bool)):
        got, want = _truncate(t, margin, tie), truncated_alone(t, margin, tie)
        assert all(np.array_equal(a, b) for a, b in zip(got, want))
