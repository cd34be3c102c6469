"""The leaderboard's columns, rank ranges, head-to-head, LOS, seats, and the statistics."""

from __future__ import annotations

import itertools
import math
import re

import pytest

from ratings.board import (
    MAX_RESAMPLES,
    MIN_RESAMPLES,
    TABLE_BATCH_ROWS,
    auto_resamples,
    build_board,
    predicted_ahead,
    rank_ranges,
)
from ratings.params import RatingConfig
from ratings.stats import chi2_sf, friedman, kendall_tau, midranks, normal_cdf, percentile
from ratings.trueskill_ratings import Outcome, Rater, canonical


def log(*games):
    """Outcomes from (seats, ranks) pairs, indexed in order."""
    return [Outcome(i, tuple(seats), tuple(ranks)) for i, (seats, ranks) in enumerate(games)]


# -- statistics --------------------------------------------------------------------------

@pytest.mark.parametrize("x, df", [(3.841458820694124, 1), (5.991464547107979, 2),
                                   (7.814727903251178, 3), (9.487729036781154, 4),
                                   (11.070497693516351, 5)])
def test_chi_square_tail_at_the_tabled_5_percent_points(x, df):
    assert chi2_sf(x, df) == pytest.approx(0.05, abs=1e-9)


def test_chi_square_tail_other_points():
    assert chi2_sf(6.634896601021213, 1) == pytest.approx(0.01, abs=1e-9)
    assert chi2_sf(13.276704135987622, 4) == pytest.approx(0.01, abs=1e-9)
    assert chi2_sf(2.0, 2) == pytest.approx(math.exp(-1))
    assert chi2_sf(0.0, 3) == 1.0


def test_friedman_of_a_perfectly_biased_and_a_perfectly_fair_log():
    # Seat 0 always first, seat 2 always last: Q = 2N for 3 seats, tiny p.
    statistic, df, p = friedman([(1, 2, 3)] * 30)
    assert (statistic, df) == (pytest.approx(60.0), 2) and p < 1e-12
    # Every order equally often: Q = 0.
    fair = list(itertools.permutations((1, 2, 3)))
    assert friedman(fair * 5)[0] == pytest.approx(0.0)
    assert friedman(fair * 5)[2] == pytest.approx(1.0)


def test_friedman_with_ties_uses_midranks_and_the_tie_correction():
    assert midranks([1, 1, 3]) == [1.5, 1.5, 3.0]
    assert midranks([1, 2, 2, 2]) == [1.0, 3.0, 3.0, 3.0]
    blocks = [(1, 1, 3), (1, 2, 3), (2, 1, 3)]
    # By hand: rank sums 4.5, 4.5, 9; A = 13.5+14+14 = 41.5; C = 3·3·16/4 = 36;
    # T = 2·((4.5−6)² + (4.5−6)² + (9−6)²) / (41.5 − 36) = 2·13.5/5.5.
    statistic, df, _ = friedman(blocks)
    assert statistic == pytest.approx(2 * 13.5 / 5.5) and df == 2
    assert friedman([(1, 1), (1, 1)]) == (0.0, 1, 1.0)


def test_kendall_tau_percentile_and_normal_cdf():
    assert kendall_tau(list("abcde"), list("abcde")) == 1.0
    assert kendall_tau(list("abcde"), list("edcba")) == -1.0
    assert kendall_tau(list("abcde"), list("bacde")) == pytest.approx(0.8)
    assert percentile([3, 1, 2, 4], 50) == 2.5
    assert percentile(list(range(101)), 2.5) == pytest.approx(2.5)
    assert normal_cdf(1.959963984540054) == pytest.approx(0.975)


# -- the columns ----------------------------------------------------------------------------

def test_counts_wins_places_normalised_score_and_ties():
    games = log((("a", "b", "c"), (1, 2, 3)),
                (("a", "b", "c"), (1, 1, 3)),          # shared first: a win for both
                (("b", "c"), (1, 2)),
                (("a", "b", "c", "d"), (4, 2, 2, 1)))
    board = build_board(games, "abcd", resamples=0)
    a, b, c, d = (board.row(bot) for bot in "abcd")
    assert (a.games, a.wins, a.ties) == (3, 2, 1)
    assert (b.games, b.wins, b.ties) == (4, 2, 2)
    assert a.mean_place == pytest.approx((1 + 1 + 4) / 3)
    assert a.win_rate == pytest.approx(2 / 3)
    # (n − place)/(n − 1): 1, 1, 0 for a; c: 0, 0, 0 (2-player last), 2/3.
    assert a.norm_score == pytest.approx((1 + 1 + 0) / 3)
    assert c.norm_score == pytest.approx((0 + 0 + 0 + 2 / 3) / 4)
    assert d.norm_score == 1.0 and d.games == 1 and d.provisional


def test_void_games_are_left_out_of_everything():
    games = log((("a", "b"), (1, 2)), (("a", "b"), (2, 1)))
    games.append(Outcome(2, ("a", "b"), (1, 2), rated=False))
    board = build_board(games, "ab", resamples=10)
    assert board.rated_games == 2 and board.void_games == 1
    assert sum(row.games for row in board) == 4
    assert board.pair("a", "b").games == 2


def test_the_headline_ratings_are_the_rater_s_in_schedule_order():
    games = log((("a", "b", "c"), (1, 2, 3)), (("c", "a", "b"), (1, 3, 2)),
                (("b", "c", "a"), (2, 1, 3)))
    shuffled = [games[2], games[0], games[1]]     # the order given does not matter
    board = build_board(shuffled, "abc", resamples=0)
    rater = Rater()
    for outcome in games:
        rater.add(outcome)
    for row in board:
        assert (row.mu, row.sigma) == (rater.rating(row.bot).mu, rater.rating(row.bot).sigma)
        assert row.conservative == pytest.approx(row.mu - 3 * row.sigma)
    assert [row.conservative for row in board] == sorted((r.conservative for r in board),
                                                         reverse=True)
    assert [p.mu for p in board.history["a"]] != []
    assert board.history["a"][-1].mu == board.row("a").mu
    assert [p.place for p in board.history["a"]] == [1, 3, 3]


def test_provisional_until_ten_games_and_while_sigma_is_large():
    games = log(*[(("a", "b"), (1, 2) if i % 2 else (2, 1)) for i in range(9)])
    assert all(row.provisional for row in build_board(games, "ab", resamples=0))
    games = log(*[(("a", "b"), (1, 2) if i % 2 else (2, 1)) for i in range(40)])
    assert not any(row.provisional for row in build_board(games, "ab", resamples=0))
    # 40 games, but so noisy (beta ≫ sigma) that sigma stays above a third of its start.
    noisy = build_board(games, "ab", RatingConfig(beta=100.0), resamples=0)
    assert all(row.provisional and row.sigma > 25 / 9 for row in noisy)


def test_fault_counts_per_class_reach_the_rows():
    games = log((("a", "b"), (1, 2)))
    board = build_board(games, "ab", faults={"b": {"timeout": 2, "crash": 1}}, resamples=0)
    assert board.row("b").faults == {"timeout": 2, "crash": 1}
    assert board.row("a").faults == {}


# -- rank ranges ---------------------------------------------------------------------------

def test_rank_ranges_share_ranks_between_bots_not_clearly_apart():
    # Five bots over 40 resamples: a and b swap now and then, c and d too; e is last.
    a = [10.0] * 40
    b = [9.0] * 36 + [11.0] * 4            # above a in 10% of the resamples
    c = [5.0] * 40
    d = [4.0] * 38 + [6.0] * 2              # above c in 5% of them: not clearly below
    e = [0.0] * 40
    assert rank_ranges([a, b, c, d, e]) == [(1, 2), (1, 2), (3, 4), (3, 4), (5, 5)]
    d = [4.0] * 40                          # now c beats d every time
    assert rank_ranges([a, b, c, d, e]) == [(1, 2), (1, 2), (3, 3), (4, 4), (5, 5)]
    # A shift of every bot at once in a resample changes nothing (only the order counts).
    shifted = [[x + 100 * (r % 2) for r, x in enumerate(bot)] for bot in (a, b, c, d, e)]
    assert rank_ranges(shifted) == rank_ranges([a, b, c, d, e])
    # Bots that never separate: everyone 1..n. No resamples: each range is the rank.
    assert rank_ranges([[1.0, 2.0], [2.0, 1.0], [1.5, 1.5]]) == [(1, 3)] * 3
    assert rank_ranges([[], [], []]) == [(1, 1), (2, 2), (3, 3)]


def test_rank_ranges_always_hold_the_rank():
    # Listed best first by the headline rating, yet the resamples say the other way round.
    assert rank_ranges([[0.0] * 10, [5.0] * 10]) == [(1, 2), (1, 2)]


def test_bootstrap_is_seeded_and_separates_a_clearly_better_bot():
    games = log(*[((a, b), (1, 2)) for a, b in [("strong", "weak1"), ("strong", "weak2"),
                                                 ("weak1", "weak2"), ("weak2", "weak1")] * 15])
    first = build_board(games, ["strong", "weak1", "weak2"], resamples=50, seed=1)
    again = build_board(games, ["strong", "weak1", "weak2"], resamples=50, seed=1)
    other = build_board(games, ["strong", "weak1", "weak2"], resamples=50, seed=2)
    assert [(r.boot_low, r.boot_high) for r in first] == [(r.boot_low, r.boot_high) for r in again]
    assert [(r.boot_low, r.boot_high) for r in first] != [(r.boot_low, r.boot_high) for r in other]
    strong, weak1, weak2 = (first.row(b) for b in ("strong", "weak1", "weak2"))
    assert (strong.rank, strong.rank_low, strong.rank_high) == (1, 1, 1)
    assert (weak1.rank_low, weak1.rank_high) == (2, 3) == (weak2.rank_low, weak2.rank_high)
    for row in first:
        assert row.boot_low <= row.boot_high and row.rank_low <= row.rank <= row.rank_high
    assert first.resamples == 50 and "50 bootstrap resamples" in first.method()


def test_the_bootstrap_rated_in_waves_ends_as_each_resample_rated_in_order():
    """Games of no common bot are rated in one wave: the same numbers as rating each
    resample's games one by one in the order drawn, in far fewer batches than steps."""
    import random

    from ratings.board import _SortedLog, bootstrap, deal_set_draws
    from ratings.fast_trueskill import FastTrueSkill
    rng = random.Random(7)
    bots = [f"b{number}" for number in range(12)]
    rated: list[Outcome] = []
    for group in range(40):       # deal sets of one to three games, tables of 2 to 4
        for _ in range(rng.choice((1, 2, 3))):
            seats = tuple(rng.sample(bots, rng.choice((2, 3, 4))))
            ranks = tuple(rng.choice((1, 2, 2, 3, 4)) for _ in seats)
            rated.append(Outcome(len(rated), seats, ranks, group=group))
    params, resamples = RatingConfig(), 60
    waved = bootstrap(rated, bots, params, resamples, seed=3)
    draws = deal_set_draws(rated, resamples, seed=3)
    scalar = FastTrueSkill(params)
    for row in range(resamples):
        ratings = {bot: (params.mu, params.sigma) for bot in bots}
        for position in draws[row][draws[row] >= 0].tolist():
            seats, ranks = canonical(rated[position].seats, rated[position].ranks)
            ratings.update(zip(seats, scalar.rate([ratings[bot] for bot in seats], ranks)))
        for bot in bots:
            assert waved[bot][row] == pytest.approx(ratings[bot], abs=1e-6)
    waves = list(_SortedLog(rated, bots).waves(draws))
    assert sum(len(rows) for rows, _ in waves) == int((draws >= 0).sum())
    assert len(waves) < draws.shape[1]
    for rows, games in waves:    # no resample rates one bot twice in a wave
        seen = [(row, bot) for row, game in zip(rows.tolist(), games.tolist())
                for bot in rated[game].seats]
        assert len(seen) == len(set(seen))
    assert (draws < 0).any()      # deal sets of unequal sizes: some resamples end early


def test_long_logs_get_fewer_resamples_but_never_too_few():
    assert auto_resamples(120, 3) == MAX_RESAMPLES
    assert MIN_RESAMPLES < auto_resamples(2_000, 3) < MAX_RESAMPLES
    assert MIN_RESAMPLES <= auto_resamples(2_000, 4) < MAX_RESAMPLES
    # Tables of three or more that fit the batch's rows get every resample: a batch
    # costs about what its fewest rows cost one by one.
    assert auto_resamples(1000, 3) == MAX_RESAMPLES
    assert auto_resamples(1000, 4) < TABLE_BATCH_ROWS
    assert auto_resamples(10_000, 2) >= MIN_RESAMPLES
    assert auto_resamples(0, 3) == 0
    games = log(*[(("a", "b"), (1, 2))] * 3000)
    board = build_board(games, "ab")
    assert board.resamples == auto_resamples(3000, 2) < MAX_RESAMPLES
    assert "fewer than 200" in board.method()


def test_a_log_too_long_for_the_fewest_resamples_gets_ranges_only_when_asked():
    assert auto_resamples(10_000, 3) == 0 == auto_resamples(100_000, 2)
    games = log(*[(("a", "b", "c"), (1, 2, 3))] * 5_000)
    board = build_board(games, "abc")
    assert board.resamples == 0 and board.too_long
    assert [(row.rank_low, row.rank_high) for row in board] == [(1, 1), (2, 2), (3, 3)]
    assert "not resampled by default" in board.method() and "--resamples 20" in board.method()
    asked = build_board(games[:3000], "abc", resamples=0)
    assert not asked.too_long and "(resamples 0)" in asked.method()


# -- head to head, LOS, seats --------------------------------------------------------------

def test_head_to_head_counts_every_pair_in_multiplayer_games():
    games = log((("a", "b", "c"), (1, 2, 3)), (("b", "c", "a"), (1, 1, 3)),
                (("c", "a", "b"), (2, 1, 3)))
    board = build_board(games, "abc", resamples=0)
    ab, ac, bc = board.pair("a", "b"), board.pair("a", "c"), board.pair("b", "c")
    assert (ab.games, ab.a_ahead, ab.b_ahead, ab.ties) == (3, 2, 1, 0)
    assert (ac.games, ac.a_ahead, ac.b_ahead, ac.ties) == (3, 2, 1, 0)
    assert (bc.games, bc.a_ahead, bc.b_ahead, bc.ties) == (3, 1, 1, 1)
    assert bc.observed == pytest.approx(0.5)
    assert board.pair("b", "a").a_ahead == 1 and board.pair("b", "a").predicted == \
        pytest.approx(1 - ab.predicted)
    # Listed once per pair, the higher-ranked bot first.
    assert len(board.h2h) == 3
    position = {bot: i for i, bot in enumerate(board.bots)}
    assert all(position[p.a] < position[p.b] for p in board.h2h)


def test_predicted_ahead_is_the_trueskill_pairwise_probability():
    beta = 25 / 6
    assert predicted_ahead((25, 1), (25, 1), beta) == pytest.approx(0.5)
    # Δ = √(2β² + 1 + 1) gives Φ(1).
    scale = math.sqrt(2 * beta ** 2 + 2)
    assert predicted_ahead((25 + scale, 1), (25, 1), beta) == pytest.approx(normal_cdf(1))


def test_los_is_a_probability_matrix_that_favours_the_better_bot():
    games = log(*[(("a", "b", "c"), (1, 2, 3)), (("b", "c", "a"), (2, 3, 1)),
                  (("c", "a", "b"), (3, 1, 2))] * 5)
    board = build_board(games, "abc", resamples=30)
    for x, y in itertools.permutations("abc", 2):
        assert board.los[x, y] + board.los[y, x] == pytest.approx(1.0)
    assert board.los["a", "b"] > 0.9 and board.los["b", "c"] > 0.5
    assert board.los["a", "c"] > board.los["a", "b"]


def test_los_without_resampling_is_the_posterior_probability():
    board = build_board(log((("a", "b"), (1, 2))), "ab", resamples=0)
    a, b = board.row("a"), board.row("b")
    assert board.los["a", "b"] == pytest.approx(
        normal_cdf((a.mu - b.mu) / math.sqrt(a.sigma ** 2 + b.sigma ** 2)))


def test_seat_table_and_its_test():
    # Seat 0 wins every game: biased.
    games = log(*[((x, y, z), (1, 2, 3)) for x, y, z in itertools.permutations("abc")] * 4)
    (table,) = build_board(games, "abc", resamples=0).seats
    assert table.players == 3 and table.games == 24
    assert [s.win_rate for s in table.overall] == [1.0, 0.0, 0.0]
    assert [s.mean_place for s in table.overall] == [1.0, 2.0, 3.0]
    assert table.by_bot["a"][0].games == 8 and table.by_bot["a"][0].wins == 8
    assert table.p_value < 1e-6
    # Places follow the bots, whatever the seat: no seat bias.
    strength = {"a": 1, "b": 2, "c": 3}
    fair = log(*[((x, y, z), (strength[x], strength[y], strength[z]))
                 for x, y, z in itertools.permutations("abc")] * 4)
    (table,) = build_board(fair, "abc", resamples=0).seats
    assert table.statistic == pytest.approx(0.0) and table.p_value == pytest.approx(1.0)


def test_one_seat_table_per_table_size():
    games = log((("a", "b"), (1, 2)), (("a", "b", "c"), (1, 2, 3)))
    assert [t.players for t in build_board(games, "abc", resamples=0).seats] == [2, 3]


# -- text formats ----------------------------------------------------------------------------

def test_table_marks_provisional_bots_and_shows_the_parameters():
    from ratings.formatting import format_board
    games = log(*[(("a", "b"), (1, 2))] * 3)
    board = build_board(games, "ab", RatingConfig(beta=3.0), resamples=5)
    text = format_board(board, "table")
    assert re.search(r"\ba\b.*\s3\*\s", text), text        # games 3, marked provisional
    assert "* provisional: fewer than 10 games or sigma above 2.78" in text
    assert "TrueSkill: mu=25 sigma=8.333 beta=3 tau=0.08333 draw_probability=0.1" in text
    assert "5 bootstrap resamples" in text
    markdown = format_board(board, "markdown")
    assert "\\* provisional" in markdown and markdown.count("|") > 20
    plain_rows = format_board(list(board), "table")          # rows only: no footer
    assert "TrueSkill" not in plain_rows and "3*" in plain_rows


def test_a_tournament_without_rated_games_still_renders_everywhere():
    from ratings import formatting
    from pages.report import render_report
    from tournaments.store import StoredTournament
    board = build_board([Outcome(0, ("a", "b"), (1, 2), rated=False)], "ab")
    assert board.rated_games == 0 and board.void_games == 1 and board.resamples == 0
    assert [(row.games, row.mu, row.rank_low, row.rank_high) for row in board] == \
        [(0, 25.0, 1, 1), (0, 25.0, 2, 2)]
    for fmt in formatting.FORMATS:
        assert "a" in formatting.format_board(board, fmt)
        formatting.format_h2h(board, fmt)
        formatting.format_los(board, fmt)
        formatting.format_seats(board, fmt)
        formatting.format_history(board, "a", fmt)
    assert "rank ranges: no rated games" in formatting.format_board(board, "table")
    assert "1 void game(s) are not rated" in formatting.format_board(board, "table")
    record = StoredTournament("empty", {"game": "flea-circus", "variant": "standard",
                                        "players": 2, "bots": []}, {}, 4, "2026-01-01T00:00:00",
                              None, None)
    page = render_report(board, record, [])
    assert "empty" in page and "No rated games" in page and "(not finished)" in page
