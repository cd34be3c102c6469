"""Benchmarks of big fields and fewer games (issue 18): Swiss order, early stopping, SPRT.

Real tournaments of the in-process bots of known strength (bots/mixed.py: the
greedy move with probability p, else a random one), through the runner and the
store like ``circus-referee tournament``, over many seeds:

* ``swiss``: a Swiss tournament of a big field (p cycling through 0, .25, .5,
  .75, 1); Kendall's tau-b of the leaderboard against the true strengths after
  each round, and the seconds per round; and how often Swiss pairings seat a pair of
  bots together again (issue 40), on simulated results of a 30-bot field at 2 to 5
  seats;
* ``stopping``: round robins of p = 0, .5, 1 with ``stop: {when: settled}``: how
  often they stop with the true order, and with what share of the full schedule;
* ``sprt``: the SPRT's error rates, on exact hypotheses (simulated deals whose
  Elo is exactly elo0 or elo1) and on real A/B tests (identical bots; a clearly
  stronger A).
"""

from __future__ import annotations

import io
import random
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Callable

from bench.report import Section, median
from ratings.params import RatingConfig
from ratings.sprt import expected_score, sprt
from ratings.stats import kendall_tau_b
from ratings.trueskill_ratings import Outcome, Rater
from tournaments.config import parse_config
from tournaments.run.live import LiveStandings
from tournaments.runner import TournamentRunner
from tournaments.schedule import pairs_of, swiss_tables
from tournaments.standings import outcome
from tournaments.store import Store

STRENGTHS = (0, 25, 50, 75, 100)


def _run(data: dict, folder: Path):
    """Run one tournament of in-process bots quietly; return its summary and store."""
    config = parse_config({"game": "flea-circus", "concurrency": 2, "secret_deals": False,
                           **data})
    store = Store(folder / f"{config.name}.sqlite")
    summary = TournamentRunner(config, store, folder / "logs", out=io.StringIO(),
                               quiet=True).run()
    return summary, store


def swiss(bots: int = 200, rounds: int = 8, pairing_seeds: int = 20,
          progress: Callable[[str], None] = print) -> Section:
    started = time.perf_counter()
    section = Section("swiss", f"Swiss: {bots} bots of known strength, 3 seats",
                      ["round", "games", "Kendall tau-b", "s per round"])
    names = {f"b{n:03d}-p{STRENGTHS[n % 5]}": STRENGTHS[n % 5] for n in range(bots)}
    with tempfile.TemporaryDirectory() as folder:
        progress(f"swiss: {bots} bots, {rounds} rounds")
        began = time.perf_counter()
        summary, store = _run({"name": "swiss", "format": "swiss", "players": 3,
                               "rounds": rounds, "seed": 1,
                               "bots": [{"name": name, "python": f"bots.mixed:Mixed{p}"}
                                        for name, p in names.items()]}, Path(folder))
        per_round = (time.perf_counter() - began) / rounds
        games = store.games("swiss")
        live = LiveStandings(RatingConfig(), [game.game_index for game in games])
        by_round: dict[int, list] = {}
        for game in games:
            by_round.setdefault(game.round, []).append(game)
        tau = 0.0
        for number in sorted(by_round):
            for game in by_round[number]:
                live.add(outcome(game))
            ratings = live.conservative()
            order = sorted(names, key=lambda bot: (-ratings.get(bot, 0.0), bot))
            tau = kendall_tau_b(order, names)
            section.add(number + 1, len(by_round[number]), tau, per_round)
            section.figures[f"tau_round_{number + 1}"] = tau
        section.figures["tau_last"] = tau
        section.figures["seconds_per_round"] = per_round
        most = max(summary.byes.values(), default=0)
        section.notes.append(f"{summary.played} games; {len(summary.byes)} bots had a bye "
                             f"(at most {most} each)")
    progress("swiss: repeated pairs of simulated 30-bot fields")
    section.notes += repeated_pairs(section.figures, seeds=pairing_seeds)
    section.seconds = time.perf_counter() - started
    return section


def repeated_pairs(figures: dict[str, float], bots: int = 30, rounds: int = 10,
                   seeds: int = 20) -> list[str]:
    """Notes on how often Swiss rounds seat a pair of bots together again, at 2 to 5
    seats (``figures`` gets ``repeats_<seats>``, the mean per round, and
    ``worst_repeats_<seats>``)."""
    notes = []
    for players in range(2, 6):
        counts = [count for seed in range(1, seeds + 1)
                  for count in simulated_repeats(players, bots, rounds, seed)]
        figures[f"repeats_{players}"] = statistics.fmean(counts)
        figures[f"worst_repeats_{players}"] = max(counts)
        seated = bots // players * players * (players - 1) // 2
        notes.append(f"{players} seats: {statistics.fmean(counts):.2f} repeated pairs a round "
                     f"(worst round {max(counts)}) of the {seated} pairs seated, "
                     f"{bots} bots, {rounds} rounds, {seeds} seeds of simulated results")
    return notes


def simulated_repeats(players: int, bots: int, rounds: int, seed: int,
                      pair: Callable = swiss_tables) -> list[int]:
    """Per round of a Swiss of ``bots`` bots, the pairs at its tables that sat together
    before: the results are drawn (each bot's performance its strength plus noise)
    and rated as the runner rates them, so the standings move as in a tournament.
    ``pair``: how a round is paired (:func:`swiss_tables`' arguments)."""
    rng = random.Random(seed)
    config = parse_config({"name": "pairs", "game": "flea-circus", "players": players,
                           "format": "swiss", "rounds": rounds, "seed": seed,
                           "bots": [{"name": f"b{n:02d}", "python": "bots.mixed:Mixed50"}
                                    for n in range(bots)]})
    strength = {bot.name: rng.gauss(0.0, 1.0) for bot in config.bots}
    byes: Counter[str] = Counter()
    met: Counter[frozenset[str]] = Counter()
    rater, repeats = Rater(), []
    for number in range(rounds):
        conservative = {bot: r.mu - 3 * r.sigma for bot, r in rater.ratings.items()}
        tables, resting = pair(config, "", conservative, byes, met, number)
        repeats.append(sum(1 for seated in pairs_of(tables) if met[seated]))
        met.update(pairs_of(tables))
        byes.update(resting)
        for table in tables:
            performance = {bot: strength[bot] + rng.gauss(0.0, 1.0) for bot in table}
            order = sorted(table, key=performance.__getitem__, reverse=True)
            rater.add(Outcome(number, table, tuple(order.index(bot) + 1 for bot in table)))
    return repeats


def stopping(seeds: int = 40, rounds: int = 100, confidence: float = 0.95,
             progress: Callable[[str], None] = print) -> Section:
    started = time.perf_counter()
    truth = ["p100", "p50", "p0"]
    section = Section("stopping", f"Early stopping: p = 1, .5, 0, round robin of 3 seats, "
                      f"{rounds} rounds at most, confidence {confidence:g}",
                      ["seeds", "stopped", "true order", "median share of games",
                       "share ≤ 1/2"])
    stopped = right = halves = 0
    shares = []
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(1, seeds + 1):
            progress(f"stopping: seed {seed} of {seeds}")
            summary, store = _run({
                "name": f"stop-{seed}", "players": 3, "rounds": rounds, "seed": seed,
                "bots": [{"name": name, "python": f"bots.mixed:Mixed{name[1:]}"}
                         for name in truth],
                "stop": {"when": "settled", "confidence": confidence}}, Path(folder))
            share = len(store.games(f"stop-{seed}")) / summary.total
            shares.append(share)
            halves += share <= 0.5
            if summary.stopped is not None:
                stopped += 1
                right += f": {' > '.join(truth)} on " in summary.stopped
            store.close()
    section.add(seeds, stopped, right, median(shares), halves)
    section.figures |= {"runs": seeds, "stopped": stopped, "true_order_rate": right / seeds,
                        "median_share": median(shares), "half_or_less_rate": halves / seeds}
    section.notes.append(f"stopped with the true order in {right} of {seeds} runs "
                         f"({100 * right / seeds:.0f}%), using a median {100 * median(shares):.0f}%"
                         f" of the {rounds * 3} scheduled games; {halves} runs used at most half")
    section.seconds = time.perf_counter() - started
    return section


def _simulated(elo: float, rng: random.Random, elo0: float, elo1: float, alpha: float,
               beta: float, equal: float = 0.3, limit: int = 100_000) -> str | None:
    """One SPRT on simulated deals: A better with the score of ``elo``, equal with
    probability ``equal``."""
    score = expected_score(elo)
    better = score - equal / 2
    scores: list[float] = []
    while len(scores) < limit:
        scores.extend(1.0 if (u := rng.random()) < better else 0.5 if u < better + equal
                      else 0.0 for _ in range(max(100, len(scores))))
        result = sprt(scores, elo0, elo1, alpha, beta)
        if result.verdict is not None:
            return result.verdict
    return None


def sprt_errors(simulations: int = 2_000, seeds: int = 20,
                progress: Callable[[str], None] = print) -> Section:
    started = time.perf_counter()
    elo0, elo1, alpha, beta = 0.0, 50.0, 0.05, 0.05
    section = Section("sprt", f"SPRT error rates: elo0 {elo0:g}, elo1 {elo1:g}, "
                      f"alpha {alpha:g}, beta {beta:g}",
                      ["runs", "truth", "H1 accepted", "H0 accepted", "error rate", "target"])
    rng = random.Random(1)
    progress(f"sprt: {simulations} simulated tests of each hypothesis")
    for truth, wrong, target in ((elo0, "H1", alpha), (elo1, "H0", beta)):
        verdicts = [_simulated(truth, rng, elo0, elo1, alpha, beta) for _ in range(simulations)]
        rate = verdicts.count(wrong) / simulations
        section.add(simulations, f"simulated, elo {truth:g}", verdicts.count("H1"),
                    verdicts.count("H0"), rate, target)
        section.figures[f"simulated_error_{'alpha' if wrong == 'H1' else 'beta'}"] = rate
    with tempfile.TemporaryDirectory() as folder:
        for label, a, wrong, target in (("identical bots (p .5, .5)", "Mixed50", "H1", alpha),
                                        ("stronger A (p .75 against .5)", "Mixed75", "H0", beta)):
            verdicts, deals = [], []
            for seed in range(1, seeds + 1):
                progress(f"sprt: {label}, seed {seed} of {seeds}")
                summary, store = _run({
                    "name": f"ab-{a}-{seed}", "players": 2, "format": "ab", "a": "new",
                    "b": "old", "rounds": 200, "seed": seed,
                    "bots": [{"name": "new", "python": f"bots.mixed:{a}"},
                             {"name": "old", "python": "bots.mixed:Mixed50"}],
                    "sprt": {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta}},
                    Path(folder))
                verdicts.append(summary.sprt.verdict)
                deals.append(summary.sprt.deals)
                store.close()
            rate = verdicts.count(wrong) / seeds
            section.add(seeds, f"{label}, median {median(deals):.0f} deals",
                        verdicts.count("H1"), verdicts.count("H0"), rate, target)
            key = "identical" if a == "Mixed50" else "stronger"
            section.figures[f"{key}_error"] = rate
            section.figures[f"{key}_median_deals"] = median(deals)
    section.notes.append("a deal: A and B each play it in both seats of a 2-player table "
                         "(A against B); simulated deals are equal 30% of the time")
    section.seconds = time.perf_counter() - started
    return section
