"""The verdict's statistic (ratings/verdict.py): deal sets, comparisons, the betting
martingale checked against a slow recomputation and its error bound computed exactly."""

from __future__ import annotations

import itertools
import math

import pytest

from ratings.trueskill_ratings import Outcome
from ratings.verdict import (
    STAKES,
    SHARED,
    SUBSTITUTED,
    Comparisons,
    DealSet,
    DealSets,
    Game,
    by_round,
    PairEvidence,
    certified_chain,
    deal_set,
    game_outcomes,
    judge,
    verdict,
)


def rotations(table):
    return [table[shift:] + table[:shift] for shift in range(len(table))]


def test_a_deal_set_sums_each_bots_outcome_over_its_rotations():
    games = [Game(seats, ranks) for seats, ranks in
             zip(rotations(("a", "b", "c")), [(1, 2, 3), (2, 3, 1), (1, 3, 2)])]
    made = deal_set(7, games)
    assert made is not None and made.group == 7 and made.seats == 3
    # Rotation by rotation: a 1st, 1st, 3rd; b 2nd every time; c 3rd, 3rd, 1st.
    assert made.scores == {"a": 1.0 + 1.0 + 0.0, "b": 0.5 + 0.5 + 0.5, "c": 0.0 + 0.0 + 1.0}


def test_a_deal_set_waits_for_every_rotation_and_drops_a_void_game():
    sets = DealSets()
    for seats in rotations(("a", "b", "c"))[:2]:
        sets.add(0, seats, (1, 2, 3))
    assert sets.complete() == []
    sets.add(0, ("c", "a", "b"), (1, 2, 3))
    assert [made.group for made in sets.complete()] == [0]
    for seats, rated in zip(rotations(("a", "b", "c")), (True, False, True)):
        sets.add(1, seats, (1, 2, 3), rated)
    assert [made.group for made in sets.complete()] == [0]


def test_game_outcomes_read_score_margins_and_fall_back_to_places():
    assert game_outcomes(Game(("a", "b", "c"), (1, 2, 3), True, (10, 8, 0))) == [1.0, 0.8, 0.0]
    # All scores equal: a tie-break decided the places.
    assert game_outcomes(Game(("a", "b", "c"), (2, 1, 3), True, (4, 4, 4))) == [0.5, 1.0, 0.0]
    assert game_outcomes(Game(("a", "b"), (2, 1))) == [0.0, 1.0]


def test_a_deal_set_weighs_each_rotation_by_its_score_spread():
    # Rotation 1: a wins by 30 points; rotation 2: b wins by 2.
    games = [Game(("a", "b"), (1, 2), True, (40, 10)), Game(("b", "a"), (1, 2), True, (12, 10))]
    made = deal_set(0, games)
    assert made is not None
    # seats x sum of (s - min) over sum of (max - min): a (30 + 0) / 32, b (0 + 2) / 32.
    assert made.scores == pytest.approx({"a": 2 * 30 / 32, "b": 2 * 2 / 32})
    # Each game alike, the blowout and the near thing would have cancelled.
    alike = sum(game_outcomes(game)[game.seats.index("a")] for game in games)
    assert alike == pytest.approx(1.0)
    # A tied rotation weighs nothing beside one with a spread.
    level = deal_set(2, [games[0], Game(("b", "a"), (1, 1), True, (5, 5))])
    assert level is not None and level.scores == pytest.approx({"a": 2.0, "b": 0.0})
    # Every rotation tied: the places (a tie-break's) count, each game alike.
    tied = deal_set(1, [Game(("a", "b"), (1, 2), True, (3, 3)),
                        Game(("b", "a"), (2, 1), True, (3, 3))])
    assert tied is not None and tied.scores == {"a": 2.0, "b": 0.0}


def test_each_table_of_a_deal_set_is_weighed_on_its_own():
    # An A/B deal: a's table with spreads 10, b's with spreads 1; each bot still in [0, 2].
    games = [Game(("a", "f"), (1, 2), True, (10, 0)), Game(("f", "a"), (1, 2), True, (10, 0)),
             Game(("b", "g"), (1, 2), True, (1, 0)), Game(("g", "b"), (2, 1), True, (0, 1))]
    made = deal_set(0, games)
    assert made is not None
    assert made.scores == pytest.approx({"a": 1.0, "f": 1.0, "b": 2.0, "g": 0.0})


def round_robin_round(group: int, scores: dict[frozenset, dict[str, float]]):
    """A round of 4 bots at 3 seats: every table of three, one deal set each."""
    return [DealSet(group + number, 3, scores.get(frozenset(table), dict.fromkeys(table, 1.5)),
                    round=group)
            for number, table in enumerate(itertools.combinations("abcd", 3))]


def test_a_round_robin_round_compares_each_pair_twice_together_and_once_substituted():
    comparisons = Comparisons("abcd", 0.95)
    comparisons.add_round(round_robin_round(0, {}))
    assert len(comparisons.pairs) == 6
    for pair in comparisons.pairs.values():
        assert (pair.shared, pair.substituted) == (2, 1)


def test_a_substituted_comparison_sets_one_bot_against_the_other_at_the_same_others():
    # a at (a, c, d) scores 3, b at (b, c, d) scores 0: a did better in b's place.
    scores = {frozenset("acd"): {"a": 3.0, "c": 0.0, "d": 0.0},
              frozenset("bcd"): {"b": 0.0, "c": 1.5, "d": 1.5}}
    recorded = []

    class Recording(PairEvidence):
        def add(self, x, kind):
            recorded.append((self.a, self.b, x, kind))
            super().add(x, kind)

    comparisons = Comparisons("abcd", 0.95)
    comparisons._pair = lambda a, b: comparisons.pairs.setdefault((a, b), Recording(a, b))
    comparisons.add_round(round_robin_round(0, scores))
    assert ("a", "b", 1.0, SUBSTITUTED) in recorded


def test_deal_sets_of_different_rounds_are_not_substituted():
    # A later round's pairing may depend on the earlier round's results.
    sets = [DealSet(0, 3, {"a": 3.0, "c": 0.0, "d": 0.0}, round=0),
            DealSet(1, 3, {"b": 0.0, "c": 1.5, "d": 1.5}, round=1)]
    comparisons = Comparisons("abcd", 0.95)
    for batch in by_round(sets):
        comparisons.add_round(batch)
    assert ("a", "b") not in comparisons.pairs


def slow_evidence(xs: list[float]) -> float:
    """The mixture's wealth recomputed from its definition: the mean over the stakes of
    the product of (1 + stake * x)."""
    return sum(math.prod(1 + stake * x for x in xs) for stake in STAKES) / len(STAKES)


def test_the_evidence_is_the_mixtures_wealth_recomputed():
    xs = [0.4, -0.2, 0.6, 0.1, -0.8, 0.5, 0.3, 0.7]
    pair = PairEvidence("a", "b")
    for number, x in enumerate(xs):
        pair.add(x, SHARED if number % 2 else SUBSTITUTED)
        if number == 3:
            pair.look()
    assert math.exp(pair.log_evidence("a")) == pytest.approx(slow_evidence(xs), rel=1e-12)
    assert math.exp(pair.log_evidence("b")) == pytest.approx(slow_evidence([-x for x in xs]),
                                                             rel=1e-12)
    # The best is kept at looks only (round ends).
    assert math.exp(pair.log_best("a")) == pytest.approx(max(1.0, slow_evidence(xs[:4])),
                                                         rel=1e-12)
    assert (pair.shared, pair.substituted) == (4, 4)


def test_evidence_far_beyond_a_floats_range_is_kept_exactly_in_log_space():
    # 2,000 comparisons won outright: the boldest gambler's wealth is 1.9^2000, 10^557.
    pair = PairEvidence("a", "b")
    for _ in range(2000):
        pair.add(1.0, SHARED)
    assert pair.log_evidence("a") == pytest.approx(2000 * math.log(1.9) - math.log(5),
                                                   rel=1e-12)
    assert pair.log_evidence("b") == pytest.approx(2000 * math.log(1 - 0.18) - math.log(5),
                                                   rel=1e-12)
    # A long log of a sure order stays certified, its verdict a number people read.
    sure = [DealSet(group, 3, {"a": 3.0, "b": 1.5, "c": 0.0}, round=group)
            for group in range(2500)]
    found = verdict(sure, "abc", 0.95)
    assert found.certified and found.order == list("abc")
    assert found.neighbours[0][2] == math.inf


def crossing_probability(distribution: dict[float, float], steps: int, bound: float) -> float:
    """P(the evidence that the first bot is better ever reaches ``bound`` within
    ``steps`` comparisons), summed exactly over every sequence of results."""
    total = 0.0
    for sequence in itertools.product(distribution, repeat=steps):
        pair = PairEvidence("a", "b")
        for x in sequence:
            pair.add(x, SHARED)
            if pair.log_evidence("a") >= math.log(bound):
                total += math.prod(distribution[v] for v in sequence)
                break
    return total


@pytest.mark.parametrize("distribution", [
    {-1.0: 0.5, 1.0: 0.5},                       # a fair coin: the hardest null
    {-1.0: 0.3, 0.0: 0.4, 1.0: 0.3},
    {-1.0: 0.35, 0.0: 0.35, 1.0: 0.3},           # the first bot slightly worse
])
def test_the_chance_of_ever_crossing_under_the_null_is_at_most_its_level(distribution):
    # Ville's inequality, computed over every one of the 3^9 (or 2^9) sequences.
    level = 0.25
    probability = crossing_probability(distribution, 9, 1 / level)
    assert probability <= level


def test_a_better_bot_crosses_often_within_the_same_comparisons():
    # Not vacuous: the same bound is crossed when the first bot is better.
    assert crossing_probability({-1.0: 0.15, 0.0: 0.25, 1.0: 0.6}, 9, 4.0) > 0.4


def evidence(certified: list[tuple[str, str]], names: str):
    """Pairs whose best evidence for (upper, lower) is huge, every other pair's 1."""
    pairs = {}
    for a, b in itertools.combinations(sorted(names), 2):
        pair = pairs[a, b] = PairEvidence(a, b)
        pair.best_a = 20.0 if (a, b) in certified else 0.0
        pair.best_b = 20.0 if (b, a) in certified else 0.0
    return pairs


def test_pair_by_pair_an_order_needs_each_bot_certified_above_the_next():
    chain = [("a", "b"), ("b", "c"), ("c", "d")]
    assert certified_chain("abcd", evidence(chain, "abcd"), 5) == list("abcd")
    assert certified_chain("abcd", evidence(chain[:2], "abcd"), 5) is None
    # Far pairs certified instead of neighbours do not make an order.
    assert certified_chain("abcd", evidence([("a", "c"), ("a", "d"), ("b", "d"), ("a", "b"),
                                             ("c", "d")], "abcd"), 5) is None
    # A cycle (a wrong certificate somewhere) certifies nothing.
    assert certified_chain("abc", evidence([("a", "b"), ("b", "c"), ("c", "a")], "abc"),
                           5) is None


def test_the_bound_splits_the_error_between_both_one_sided_nulls_of_a_pair(monkeypatch):
    # Order by order: 2 / (1 - c), whatever the field; pair by pair: n(n - 1) / (1 - c).
    assert math.exp(Comparisons("abcd", 0.95).log_bound) == pytest.approx(40)
    assert math.exp(Comparisons("ab", 0.9).log_bound) == pytest.approx(20)
    assert math.exp(Comparisons("abcdefgh", 0.95).log_bound) == pytest.approx(56 * 20)
    monkeypatch.setattr("ratings.verdict.MAX_ORDERS", 1)
    assert math.exp(Comparisons("ab", 0.9).log_bound) == pytest.approx(20)


def set_evidence(comparisons: Comparisons, evidence_of: dict[tuple[str, str], float]) -> None:
    for (upper, lower), value in evidence_of.items():
        pair = comparisons._pair(min(upper, lower), max(upper, lower))
        if upper < lower:
            pair.log_a = math.log(value)
        else:
            pair.log_b = math.log(value)


def capital(comparisons: Comparisons, order: str) -> float:
    """The log capital against an open order."""
    return dict(zip(comparisons.open, comparisons.capital.tolist()))[tuple(order)]


def orders_left(evidence_of: dict[tuple[str, str], float], names: str) -> list[str]:
    """The orders left after one round that ends with this evidence."""
    comparisons = Comparisons(names, 0.95)
    start = comparisons.log_matrix()
    set_evidence(comparisons, evidence_of)
    comparisons.look(start, names)
    return ["".join(order) for order in comparisons.open]


def test_after_one_round_an_order_is_ruled_out_by_the_mean_evidence_against_its_neighbours():
    # Against acb (b and c swapped) count "c above a" (1: no evidence either way) and
    # "b above c": their mean must reach 2 / (1 - 0.95) = 40.
    strong = {("a", "b"): 1e6, ("a", "c"): 1e6, ("b", "c"): 79.0}
    assert orders_left(strong, "abc") == ["abc"]
    assert orders_left({**strong, ("b", "c"): 78.0}, "abc") == ["abc", "acb"]


def test_the_capital_moves_to_the_neighbour_most_against_the_order():
    # Round 1: "b above c" at 10, "c above a" at 1: acb's capital is their mean, 5.5.
    # Round 2: shares 10^4 : 1 fixed at its start; b/c's evidence doubles, c/a's halves.
    comparisons = Comparisons("abc", 0.95)
    first = comparisons.log_matrix()
    set_evidence(comparisons, {("b", "c"): 10.0, ("a", "b"): 1e6, ("a", "c"): 1e6})
    comparisons.look(first, "abc")
    assert math.exp(capital(comparisons, "acb")) == pytest.approx(5.5)
    second = comparisons.log_matrix()
    set_evidence(comparisons, {("b", "c"): 20.0, ("c", "a"): 0.5, ("a", "b"): 1e6,
                               ("a", "c"): 1e6})
    comparisons.look(second, "abc")
    share = 10.0 ** 4 / (10.0 ** 4 + 1.0)
    assert math.exp(capital(comparisons, "acb")) == pytest.approx(
        5.5 * (share * 2.0 + (1 - share) * 0.5))


def test_a_verdict_names_what_it_rests_on_or_what_holds_it_back():
    sure = {frozenset("abc"): {"a": 3.0, "b": 1.5, "c": 0.0}}
    sets = [DealSet(group, 3, sure[frozenset("abc")]) for group in range(40)]
    done = verdict(sets, ["c", "b", "a"], 0.95)
    assert done.certified and done.order == ["a", "b", "c"]
    assert done.line() == "a > b > c on 40 deal set(s) at 0.95, anytime-valid"
    early = verdict(sets[:3], ["a", "b", "c"], 0.95)
    assert not early.certified and early.order == ["a", "b", "c"]
    assert early.line().startswith("a > c > b is not ruled out: the evidence against it is "
                                   "1.42 of the 40 that rules an order out (6 orders still "
                                   "possible; 3 deal set(s) at 0.95")


def test_an_unsettled_verdict_shows_what_must_still_grow_not_a_need_already_passed():
    # Round 1: "c above a" falls to 0.01, so the capital against bac halves; round 2 puts
    # it on "a above b", which grows to 41, past the 40 the first round's even shares
    # would have needed: bac still stands, at half of that.
    comparisons = Comparisons("abc", 0.95)
    settled = {("c", "a"): 0.01, ("a", "c"): 1e6, ("b", "c"): 1e6}
    for evidence_of in (settled, {**settled, ("a", "b"): 41.0}):
        start = comparisons.log_matrix()
        set_evidence(comparisons, evidence_of)
        comparisons.deal_sets += 1
        comparisons.look(start, "abc")
    found = judge(comparisons)
    assert comparisons.open == [("a", "b", "c"), ("b", "a", "c")] and not found.certified
    assert found.neighbours[0][:3] == ("a", "b", pytest.approx(41.0))
    rival, capital = found.rival
    assert rival == ["b", "a", "c"] and capital == pytest.approx(20.7, rel=0.01)
    assert found.line().startswith("b > a > c is not ruled out: the evidence against it is "
                                   "20.7 of the 40 that rules an order out")
    # Pair by pair the need is a bound: a pair is certified when its best reaches it.
    pairwise = verdict([DealSet(0, 2, {"a": 1.0, "b": 1.0})], "abcdefgh", 0.95)
    assert "needs 1120" in pairwise.line()
    assert verdict([], "abc", 0.95).line().startswith("no deal set compares the bots yet")


def test_when_every_order_is_ruled_out_the_verdict_says_so():
    comparisons = Comparisons("ab", 0.95)
    start = comparisons.log_matrix()
    set_evidence(comparisons, {("a", "b"): 1e6, ("b", "a"): 1e6})
    comparisons.deal_sets = 1
    comparisons.look(start, "ab")
    found = judge(comparisons)
    assert comparisons.open == [] and not found.certified
    assert found.line().startswith("every order is ruled out, as happens to bots of exactly "
                                   "equal strength (1 deal set(s)")


def test_the_bootstrap_draws_whole_deal_sets_in_play_order():
    from ratings.board import deal_set_draws
    rated = [Outcome(index, ("a", "b", "c"), (1, 2, 3), group=index // 3) for index in range(12)]
    draws = deal_set_draws(rated, resamples=50, seed=3)
    assert draws.shape == (50, 12)
    for row in draws.tolist():
        for start in range(0, 12, 3):
            first = row[start]
            assert first % 3 == 0 and row[start:start + 3] == [first, first + 1, first + 2]


def test_a_log_without_groups_is_resampled_game_by_game_as_before():
    import numpy as np

    from ratings.board import deal_set_draws
    rated = [Outcome(index, ("a", "b"), (1, 2)) for index in range(7)]
    expected = np.random.default_rng(5).integers(0, 7, size=(20, 7))
    assert (deal_set_draws(rated, resamples=20, seed=5) == expected).all()


def test_deal_sets_of_unequal_size_pad_the_shorter_resamples():
    from ratings.board import deal_set_draws
    rated = [Outcome(0, ("a", "b"), (1, 2), group=0), Outcome(1, ("b", "a"), (1, 2), group=0),
             Outcome(2, ("a", "b"), (2, 1))]   # a game of its own
    draws = deal_set_draws(rated, resamples=30, seed=1)
    for row in draws.tolist():
        games = [position for position in row if position >= 0]
        assert len(games) in (2, 3, 4) and row[len(games):] == [-1] * (len(row) - len(games))
    # The padded steps rate nothing: every resample still rates only the games it drew.
    from ratings.board import build_board
    board = build_board(rated, ["a", "b"], resamples=30)
    assert board.deal_sets == 2 and all(row.rank_low <= row.rank <= row.rank_high for row in board)


def test_a_verdict_carried_on_round_by_round_is_the_verdict_of_the_whole_log():
    from bench.verdict import ISSUE_FIELD, simulated_round
    import random

    from ratings.verdict import Judge
    rng, judge, log = random.Random(4), Judge(), []
    for number in range(12):
        for outcome in simulated_round(ISSUE_FIELD, number, rng):
            judge.add_outcome(outcome)
            log.append(outcome)
        carried = judge.verdict(ISSUE_FIELD.names, 0.8)
        sets = DealSets()
        for outcome in log:
            sets.add_outcome(outcome)
        assert carried == verdict(sets.complete(), ISSUE_FIELD.names, 0.8)
    # Other bots judged: the comparisons are made again from every deal set.
    assert judge.verdict(ISSUE_FIELD.names[:3], 0.8) == \
        verdict(sets.complete(), ISSUE_FIELD.names[:3], 0.8)


def test_a_judge_keeps_one_set_of_comparisons_of_the_field_whichever_bots_it_judges():
    from bench.verdict import ISSUE_FIELD, simulated_round
    import random

    from ratings.verdict import Judge
    rng, judge, field = random.Random(5), Judge(), ISSUE_FIELD.names
    kept = None
    for number, present in enumerate([field, field[:3], field[1:], field]):
        for outcome in simulated_round(ISSUE_FIELD, number, rng):
            judge.add_outcome(outcome)
        found = judge.verdict(present, 0.8, field)
        kept = kept or judge.comparisons
        assert judge.comparisons is kept and len(found.neighbours) == len(present) - 1
        # Each verdict reads the bots present from the field's orders not ruled out.
        assert found.open_orders == len({tuple(bot for bot in order if bot in present)
                                         for order in kept.open})
    assert kept.deal_sets == 4 * 4


def test_a_board_judges_the_log_its_bootstrap_read_and_says_when_it_read_none():
    from ratings.board import build_board
    place = {"a": 1, "b": 2, "c": 3}     # a always first, c always last
    log = [Outcome(index, seats, tuple(place[bot] for bot in seats), group=index // 3,
                   round=index // 3)
           for index, seats in enumerate(rotations(("a", "b", "c")) * 20)]
    board = build_board(log, ["a", "b", "c"], resamples=20)
    assert board.verdict is not None and board.verdict.certified
    assert board.verdict_line() == \
        "verdict (duplicate deal sets): settled: " + board.verdict.line()
    quick = build_board(log, ["a", "b", "c"], resamples=0)
    assert quick.verdict is None and "not computed without resampling" in quick.verdict_line()
