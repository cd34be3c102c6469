"""A/B tests: A and B on the same deals, decided by an SPRT.

In-process bots of known strength (bots/mixed.py) through the runner and the
store, and one A/B test of sandboxed gRPC bots through the command line.
"""

from __future__ import annotations

import json
import math
import sqlite3

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import run_tournament, write_config
from invariants import assert_consistent

from bench import dealsets
from circus_referee.main import main
from ratings.sprt import (
    DealGame,
    bounds,
    closest_distribution,
    deal_scores,
    expected_score,
    llr,
    sprt,
)
from tournaments.config import ConfigError, parse_config
from tournaments.schedule import schedule
from tournaments.worker import epoch_count, epoch_of


def ab(a: str, b: str, fillers: int = 0, players: int = 2, **more) -> dict:
    bots = [{"name": "new", "python": f"bots.mixed:{a}"},
            {"name": "old", "python": f"bots.mixed:{b}"}]
    bots += [{"name": f"filler{n}", "python": "bots.mixed:Mixed50"} for n in range(fillers)]
    return {"name": "ab", "game": "flea-circus", "players": players, "format": "ab",
            "a": "new", "b": "old", "rounds": 60, "seed": 5, "concurrency": 2,
            "secret_deals": False, "bots": bots,
            "sprt": {"elo0": 0, "elo1": 100, "alpha": 0.05, "beta": 0.05}, **more}


def test_on_a_cluster_every_round_of_an_ab_test_has_epochs_of_its_own():
    """A worker's bots are renewed when the epoch grows: epochs rise in play order,
    and no epoch spans two rounds (A's and B's rotations included)."""
    config = parse_config(ab("Mixed100", "Mixed0", fillers=3, players=3, rounds=3))
    epochs = [(epoch_of(config, game), game.round) for game in schedule(config)]
    assert [epoch for epoch, _ in epochs] == sorted(epoch for epoch, _ in epochs)
    rounds_of: dict[int, set[int]] = {}
    for epoch, round_number in epochs:
        rounds_of.setdefault(epoch, set()).add(round_number)
    assert all(len(rounds) == 1 for rounds in rounds_of.values())
    assert len(rounds_of) == 3 * 2 * 3 == epoch_count(config)


def test_a_and_b_play_the_same_deals_in_the_same_seats_with_the_same_fillers():
    config = parse_config(ab("Mixed100", "Mixed0", fillers=3, players=3, rounds=1))
    games = schedule(config)
    assert len(games) == 8 * 2 * 3   # 8 deals a round, an A and a B table, 3 rotations
    by_deal: dict[int, list] = {}
    for game in games:
        by_deal.setdefault(game.group, []).append(game)
    for deal in by_deal.values():
        a_games = [g for g in deal if "new" in g.seats]
        b_games = [g for g in deal if "old" in g.seats]
        assert len(a_games) == len(b_games) == 3 and len({g.seed for g in deal}) == 1
        # B sits where A sat, among the same fillers in the same seats.
        assert sorted(tuple("X" if bot == "new" else bot for bot in g.seats) for g in a_games) \
            == sorted(tuple("X" if bot == "old" else bot for bot in g.seats) for g in b_games)
        # Every A game comes before the B games of its deal: the fillers are started
        # afresh between the two sides, so no process sees a deal twice.
        assert max(g.index for g in a_games) < min(g.index for g in b_games)
    assert len({g.seats[1:] for g in games if g.seats[0] == "new"}) > 1   # fillers rotate


def test_a_clearly_stronger_a_is_accepted_as_h1_early(tmp_path):
    summary, store, out = run_tournament(parse_config(ab("Mixed100", "Mixed0")), tmp_path,
                                         quiet=False)
    assert summary.sprt is not None and summary.sprt.verdict == "H1", summary.sprt
    # The progress lines carry the live LLR and its bounds; the last one the verdict.
    progress = [line for line in out.splitlines() if line.startswith("games ")]
    assert all("SPRT: LLR" in line and "(-2.94, 2.94)" in line for line in progress)
    assert "H1 accepted" in progress[-1]
    assert summary.sprt.llr >= summary.sprt.upper and summary.sprt.elo > 100
    assert summary.stopped == summary.sprt.line()
    assert len(store.games("ab")) < summary.total == 60 * 8 * 2
    assert store.resolve("ab").finished_at is not None
    assert_consistent(store, "ab", parse_config(ab("Mixed100", "Mixed0")))
    # Run again: nothing more is played, and the stored deals give the same verdict.
    again, _, _ = run_tournament(parse_config(ab("Mixed100", "Mixed0")), tmp_path)
    assert again.played == 0 and again.sprt == summary.sprt


def test_an_interrupted_ab_test_resumes_to_the_same_verdict(tmp_path):
    config = parse_config(ab("Mixed75", "Mixed50"))
    whole, store, _ = run_tournament(config, tmp_path, db="whole.sqlite")
    assert whole.sprt is not None and whole.sprt.verdict is not None
    # What a kill leaves: the games of the last rounds missing, the tournament unfinished.
    played = len(store.games("ab"))
    with sqlite3.connect(tmp_path / "whole.sqlite") as db:
        db.execute("DELETE FROM games WHERE game_index >= ?", (played // 2,))
        db.execute("UPDATE tournaments SET finished_at = NULL")
    resumed, store, _ = run_tournament(config, tmp_path, db="whole.sqlite")
    assert resumed.already_done == played // 2 and resumed.played == played - played // 2
    assert resumed.sprt == whole.sprt and resumed.stopped == whole.stopped
    assert_consistent(store, "ab", config)


def test_identical_bots_are_accepted_as_h0(tmp_path):
    summary, store, _ = run_tournament(parse_config(ab("Mixed50", "Mixed50")), tmp_path)
    assert summary.sprt is not None and summary.sprt.verdict == "H0", summary.sprt
    assert summary.sprt.llr <= summary.sprt.lower
    assert len(store.games("ab")) < summary.total


def test_with_fillers_a_stronger_a_is_accepted_too(tmp_path):
    summary, _, _ = run_tournament(
        parse_config(ab("Mixed100", "Mixed0", fillers=2, players=3)), tmp_path)
    assert summary.sprt is not None and summary.sprt.verdict == "H1", summary.sprt


@pytest.mark.slow
def test_a_grpc_ab_test_is_stopped_early_and_shown_on_the_leaderboard(tmp_path):
    command = "python -m bots.mixed --p {p} --address {{address}}"
    text = f"""
    name: ab-grpc
    game: flea-circus
    players: 2
    format: ab
    a: greedy
    b: random
    rounds: 40
    seed: 3
    concurrency: 2
    secret_deals: false
    sprt: {{elo0: 0, elo1: 150}}
    bots:
      - {{name: greedy, command: "{command.format(p=1)}"}}
      - {{name: random, command: "{command.format(p=0)}"}}
    """
    path = write_config(tmp_path, text)
    db = str(tmp_path / "r.sqlite")
    result = CliRunner().invoke(main, ["tournament", str(path), "--db", db,
                                       "--logs", str(tmp_path / "logs")])
    assert result.exit_code == 0, result.output
    assert "SPRT: LLR" in result.output and "H1 accepted" in result.output
    report = tmp_path / "report.html"
    written = CliRunner().invoke(main, ["report", "--db", db, "-o", str(report), "--no-replays"])
    assert written.exit_code == 0, written.output
    assert "H1 accepted" in report.read_text() and "stopped early after" in report.read_text()
    board = CliRunner().invoke(main, ["leaderboard", "--db", db, "--format", "json"])
    data = json.loads(board.output)
    assert data["sprt"]["verdict"] == "H1" and "stopped early after" in data["stopped"]
    listed = CliRunner().invoke(main, ["tournaments", "--db", db, "--format", "json"])
    assert json.loads(listed.output)[0]["status"] == "stopped early"
    table = CliRunner().invoke(main, ["leaderboard", "--db", db])
    assert "A/B test: a=greedy against b=random" in table.output
    assert "H1 accepted" in table.output


# -- the statistics -----------------------------------------------------------------

def test_llr_is_fishtests_gsprt_and_near_the_hypotheses_the_chess_testers_approximation():
    s0, s1 = 0.5, expected_score(10)
    for worse, equal, better in ((340, 320, 340), (340, 300, 360), (3400, 3000, 3600)):
        count = worse + equal + better
        mean = (better + equal / 2) / count
        variance = (better + equal / 4) / count - mean * mean
        # cutechess/fastchess: LLR ≈ (s1 − s0)(2m − s0 − s1) / (2 v / N).
        approximation = (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance / count)
        assert llr(((0.0, worse), (0.5, equal), (1.0, better)), 0, 10) == \
            pytest.approx(approximation, rel=0.01)
    # The MLE distributions have the hypotheses' means: the LLR is N·Σ p̂ ln(p1/p0).
    frequencies = [0.2, 0.3, 0.5]
    for mean in (0.5, 0.6):
        closest = closest_distribution((0.0, 0.5, 1.0), frequencies, mean)
        assert sum(closest) == pytest.approx(1) and \
            sum(p * x for p, x in zip(closest, (0, 0.5, 1))) == pytest.approx(mean)
    assert expected_score(0) == 0.5 and expected_score(400) == pytest.approx(10 / 11)
    lower, upper = bounds(0.05, 0.05)
    assert (lower, upper) == (pytest.approx(-2.944, abs=1e-3), pytest.approx(2.944, abs=1e-3))


def test_the_test_stops_at_the_first_crossing_whatever_comes_after():
    scores = [1.0, 0.5] * 20 + [0.0] * 200
    decided = sprt(scores, 0, 100, 0.05, 0.05)
    assert decided.verdict == "H1" and decided.deals < 40
    assert sprt(scores[:decided.deals], 0, 100, 0.05, 0.05) == decided


def test_deal_scores_compare_a_and_b_on_complete_deals_only():
    games = [DealGame(0, ("a", "f"), (1, 2)), DealGame(0, ("f", "b"), (1, 2)),   # A better
             DealGame(1, ("a", "f"), (2, 1)), DealGame(1, ("f", "b"), (1, 2)),   # equal
             DealGame(2, ("a", "f"), (2, 1)),                                     # incomplete
             DealGame(3, ("a", "f"), (1, 2)), DealGame(3, ("b", "f"), (1, 2), rated=False)]
    assert deal_scores(games, "a", "b", 2) == [1.0, 0.5]
    # Every deal alike: regularised as fishtest does, the evidence still adds up.
    assert sprt([0.5] * 400, 0, 10, 0.05, 0.05).verdict == "H0"
    assert sprt([1.0] * 400, 0, 10, 0.05, 0.05).verdict == "H1"
    assert math.isinf(sprt([1.0], 0, 10, 0.05, 0.05).elo)


def test_deal_sets_score_the_margin_of_the_summed_places():
    # 3 seats with fillers, 1 game each (per_deal 2): A first (1), B second (0.5).
    games = [DealGame(0, ("a", "f", "g"), (1, 2, 3)), DealGame(0, ("b", "f", "g"), (2, 1, 3))]
    assert deal_scores(games, "a", "b", 2) == [0.75]
    # 2 seats, A against B in both seats: fishtest's pentanomial (a win and a tie: 3/4;
    # two losses: 0).
    pair = [DealGame(0, ("a", "b"), (1, 2)), DealGame(0, ("b", "a"), (1, 1)),
            DealGame(1, ("a", "b"), (2, 1)), DealGame(1, ("b", "a"), (1, 2))]
    assert deal_scores(pair, "a", "b", 2) == [0.75, 0.0]


def test_the_closest_distribution_is_the_most_likely_with_that_mean():
    # Any change that keeps the total and the mean makes the observed frequencies less
    # likely: the MLE of a 5-point (pentanomial) distribution, checked by perturbation.
    scores, frequencies = (0.0, 0.25, 0.5, 0.75, 1.0), (0.05, 0.2, 0.4, 0.25, 0.1)
    closest = closest_distribution(scores, frequencies, 0.6)
    assert sum(closest) == pytest.approx(1)
    assert sum(p * x for p, x in zip(closest, scores)) == pytest.approx(0.6)

    def likelihood(q):
        return sum(p * math.log(x) for p, x in zip(frequencies, q))

    best = likelihood(closest)
    # Directions with zero sum and zero mean: second differences.
    for shift in range(3):
        direction = [0.0] * 5
        direction[shift], direction[shift + 1], direction[shift + 2] = 1.0, -2.0, 1.0
        for step in (-1e-3, 1e-3):
            moved = [q + step * d for q, d in zip(closest, direction)]
            assert likelihood(moved) < best


def test_deal_set_tests_keep_their_error_rates_and_take_fewer_deals_than_the_trinomial():
    """A cheap ``python -m bench dealsets``: 120 simulated tests at each exact hypothesis
    (3 seats with fillers), and the trinomial's deals with the same bounds for identical
    bots (Elo 0 on either scale)."""
    rng = np.random.default_rng(5)
    errors, taken = [], []
    for d, wrong in ((0.0, "H1"), (dealsets.dealset_skill(50), "H0")):
        results = [dealsets.one_test(dealsets.simulated(d, 0, rng), 0, 50, 0.05, 0.05)
                   for _ in range(120)]
        errors.append(sum(verdict == wrong for verdict, _ in results))
        taken.append(sum(deals for _, deals in results) / len(results))
    # Error counts ~ Binomial(120, <= 0.05): mean <= 6, sd ~2.4.
    assert max(errors) <= 6 + 3 * 2.4
    trinomial = [dealsets.one_test(dealsets.simulated(0.0, 1, rng), 0, 50, 0.05, 0.05)[1]
                 for _ in range(20)]
    assert taken[0] <= 0.5 * sum(trinomial) / len(trinomial)


def test_the_deal_set_score_has_the_mean_the_simulation_promises():
    rng = np.random.default_rng(6)
    scores, _ = dealsets.deals(dealsets.dealset_skill(50), 100_000, rng)
    assert scores.mean() == pytest.approx(expected_score(50), abs=0.002)


@pytest.mark.parametrize("more, message", [
    ({"a": None}, "format: ab needs `a: NAME`"),
    ({"b": "nobody"}, "b 'nobody' is not one of the bots"),
    ({"b": "new"}, "a and b must be two different bots"),
    ({"players": 3, "bots": ab("Mixed100", "Mixed0", fillers=1)["bots"]},
     "format: ab with players: 3 needs at least 2 filler bot(s) besides a and b (has 1)"),
    ({"sprt": {"elo0": 5, "elo1": 5}}, "sprt.elo0 must be below sprt.elo1"),
    ({"sprt": {"alpha": 0.9}}, "sprt.alpha must be from"),
    ({"sprt": {"model": "normalized"}}, "unknown key sprt.'model'"),
    ({"format": "round-robin"}, "`a` and `b` are only for format: ab"),
    ({"stop": {"when": "settled"}}, "(an A/B test stops by its SPRT)"),
])
def test_bad_ab_configs_are_refused_in_one_line(more, message):
    data = ab("Mixed100", "Mixed0") | more
    if more.get("format") == "round-robin":
        data.pop("sprt")
    with pytest.raises(ConfigError) as error:
        parse_config(data)
    assert message in str(error.value) and "\n" not in str(error.value)
