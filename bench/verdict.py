"""The verdict on simulated fields of known strength (issue 34): does ``stop: settled``
keep its promise, and how soon does it stop, before (TrueSkill's posterior LOS) and now
(the duplicate deal sets' anytime-valid verdict, ratings/verdict.py)?

Outcomes are simulated, not played, so hundreds of tournaments take seconds: in each
game a bot's performance is its strength, plus its seat's luck on the deal (the same in
every rotation of the deal: what duplicate deals cancel), plus noise of standard
deviation 1; places follow the performances and scores are performances in tenths.
:data:`ISSUE_FIELD`'s strengths and luck were chosen so that the comparisons the
verdict reads have the means and spreads measured on six real round robins of the
issue's field (bots.mixed p = .75, .5, .25, 0 at 3 seats, 720 games each): a mean
margin per shared deal set of 0.12–0.15 between neighbours with a standard deviation
of about 0.38 (simulated: 0.12–0.15, 0.37), each rotation alike. The real round robins
themselves (:func:`real_runs`) are judged too: the goals are about them.

The rules are judged on no one field: :func:`family` (``python -m bench fields``)
measures them over fields drawn at random, close and wide, and :func:`swiss_run`
judges a simulated Swiss with absences as a run judges it, for the calibration tests.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

from bench.bigfields import _run
from bench.report import Section, median
import ratings.verdict as rules
from ratings.board import build_board, los
from ratings.params import RatingConfig
from ratings.trueskill_ratings import Outcome, Rater
from ratings.verdict import Comparisons, DealSets, Judge, judge
from tournaments.standings import outcome
from tournaments.store import StoredGame


@dataclass(frozen=True)
class Field:
    """Bots of known strength, best first, at tables of ``players``."""

    strengths: tuple[float, ...]
    players: int
    luck: float = 0.5

    @property
    def names(self) -> list[str]:
        return [f"s{number}" for number in range(len(self.strengths))]

    def right(self, order: Sequence[str]) -> bool:
        """Whether every bot of ``order`` is strictly stronger than the next: of two
        exactly equal bots either order is wrong."""
        strength = dict(zip(self.names, self.strengths))
        return all(strength[upper] > strength[lower] for upper, lower in zip(order, order[1:]))


#: The issue's field: four bots a third of the noise apart, at 3 seats.
ISSUE_FIELD = Field((1.0, 0.67, 0.33, 0.0), 3)
#: The goals (issue 34): share of runs settled, true order among them, median games.
GOAL_SETTLED, GOAL_TRUE, GOAL_MEDIAN_GAMES = 0.90, 0.95, 360
#: The issue's field as real bots, best first (bots.mixed, greedy with probability p).
REAL_FIELD = ("p75", "p50", "p25", "p0")


def simulated_round(field: Field, number: int, rng: random.Random) -> list[Outcome]:
    """A round robin round: every table of ``players`` bots, one deal each, played in
    every rotation; the round's games indexed and grouped after the rounds before."""
    tables = list(itertools.combinations(field.names, field.players))
    return [outcome for offset, table in enumerate(tables)
            for outcome in simulated_deal(field, table, number * len(tables) + offset, number,
                                          rng)]


def simulated_deal(field: Field, table: Sequence[str], group: int, number: int,
                   rng: random.Random) -> list[Outcome]:
    """One deal at ``table``, played in every rotation: the games of group ``group``."""
    strength = dict(zip(field.names, field.strengths))
    luck = [rng.gauss(0.0, field.luck) for _ in table]
    outcomes = []
    for shift in range(len(table)):
        seats = tuple(table[shift:]) + tuple(table[:shift])
        performance = [strength[bot] + luck[seat] + rng.gauss(0.0, 1.0)
                       for seat, bot in enumerate(seats)]
        order = sorted(range(len(seats)), key=lambda seat: -performance[seat])
        ranks = [0] * len(seats)
        for place, seat in enumerate(order):
            ranks[seat] = place + 1
        outcomes.append(Outcome(group * len(seats) + shift, seats, tuple(ranks),
                                scores=tuple(round(10 * value) for value in performance),
                                group=group, round=number))
    return outcomes


def swiss_round(field: Field, number: int, rng: random.Random, points: dict[str, float],
                absence: float) -> tuple[list[str], list[Outcome]]:
    """A Swiss round with absences: each bot sits the round out with probability
    ``absence`` (drawn before it, whatever the results), the others are seated by their
    points so far, best first, at tables of ``players`` (those left over have a bye), one
    deal a table. The bots present, and the games; ``points`` gain each game's
    (n − place) / (n − 1)."""
    present = [bot for bot in field.names if rng.random() >= absence]
    standing = sorted(present, key=lambda bot: (-points[bot], bot))
    seated = len(standing) - len(standing) % field.players
    outcomes = []
    for offset in range(0, seated, field.players):
        table = standing[offset:offset + field.players]
        group = number * len(field.names) + offset
        outcomes += simulated_deal(field, table, group, number, rng)
    for game in outcomes:
        for bot, rank in zip(game.seats, game.ranks):
            points[bot] += (field.players - rank) / (field.players - 1)
    return present, outcomes


def swiss_run(field: Field, rounds: int, confidence: float, seed: int,
              absence: float = 0.25) -> list[list[str]]:
    """The orders certified of the bots present at each round's end of a simulated Swiss
    with absences, judged as ``stop: settled`` judges it (:class:`Judge`, whose field is
    every bot), whether or not the run would have stopped."""
    rng, judge = random.Random(seed), Judge()
    points = dict.fromkeys(field.names, 0.0)
    certified = []
    for number in range(rounds):
        present, outcomes = swiss_round(field, number, rng, points, absence)
        for outcome in outcomes:
            judge.add_outcome(outcome)
        if len(present) > 1:
            found = judge.verdict(present, confidence, field.names)
            if found.certified:
                certified.append(found.order)
    return certified


def trueskill_settled(rater: Rater, names: Sequence[str], confidence: float
                      ) -> list[str] | None:
    """The rule the verdict replaced, for the "before" figures: the bots by mu − 3σ,
    settled when each one's LOS over the next, under TrueSkill's posterior, is at least
    ``confidence``."""
    ratings = {bot: (rater.rating(bot).mu, rater.rating(bot).sigma) for bot in names}
    order = sorted(names, key=lambda bot: (-(ratings[bot][0] - 3 * ratings[bot][1]), bot))
    sure = all(los(ratings[upper], ratings[lower]) >= confidence
               for upper, lower in zip(order, order[1:]))
    return order if sure else None


@dataclass(frozen=True)
class Run:
    """Where one simulated tournament stopped under each rule (None: it ran out)."""

    games: int                       # the schedule's
    before: tuple[int, list[str]] | None
    after: tuple[int, list[str]] | None


def run(field: Field, rounds: int, confidence: float, seed: int, before: bool = True) -> Run:
    """One tournament of up to ``rounds`` rounds, both rules checked at every round end
    (the rule replaced only with ``before``)."""
    rng = random.Random(seed)
    names, rater = field.names, Rater(RatingConfig())
    comparisons = Comparisons(names, confidence)
    old = new = None
    played = 0
    for number in range(rounds):
        outcomes, sets = simulated_round(field, number, rng), DealSets()
        for outcome in outcomes:
            if before:
                rater.add(outcome)
            sets.add_outcome(outcome)
        played += len(outcomes)
        comparisons.add_round(sets.complete())
        if before and old is None:
            order = trueskill_settled(rater, names, confidence)
            old = None if order is None else (played, order)
        if new is None:
            found = judge(comparisons)
            new = (played, found.order) if found.certified else None
        if new is not None and (old is not None or not before):
            break
    per_round = len(list(itertools.combinations(names, field.players))) * field.players
    return Run(rounds * per_round, old, new)


def real_round_robin(seed: int, rounds: int, folder: Path) -> list[StoredGame]:
    """The stored games of a real round robin of :data:`REAL_FIELD` at 3 seats (duplicate
    deals, the runner's defaults), played in full: 12 games a round."""
    name = f"verdict-{seed}"
    _, store = _run({"name": name, "players": 3, "rounds": rounds, "seed": seed,
                     "bots": [{"name": bot, "python": f"bots.mixed:Mixed{bot[1:]}"}
                              for bot in REAL_FIELD]}, folder)
    games = store.games(name)
    store.close()
    return games


def settled_at(games: Sequence[StoredGame], names: Sequence[str], confidence: float
               ) -> tuple[int, list[str]] | None:
    """Where ``stop: settled`` would have stopped a stored round robin: the games played
    by the first round end at which the verdict certified an order, and the order."""
    comparisons, played = Comparisons(names, confidence), 0
    for number in sorted({game.round for game in games}):
        sets = DealSets()
        for game in games:
            if game.round == number:
                sets.add_outcome(outcome(game))
                played += 1
        comparisons.add_round(sets.complete())
        found = judge(comparisons)
        if found.certified:
            return played, found.order
    return None


def real_runs(seeds: int, rounds: int, confidence: float,
              progress: Callable[[str], None] = print) -> dict[str, float]:
    """The verdict on ``seeds`` real round robins of the issue's field (seeds 1, 2, ...),
    each played in full and judged after every round: :func:`summary`'s figures."""
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(1, seeds + 1):
            progress(f"verdict: real round robin {seed} of {seeds}")
            games = real_round_robin(seed, rounds, Path(folder))
            runs.append(Run(len(games), None, settled_at(games, REAL_FIELD, confidence)))
    return summary(runs, list(REAL_FIELD), "after")


def summary(runs: Sequence[Run], truth: list[str], which: str) -> dict[str, float]:
    """Share settled, share with the true order among them, median games to settle
    (a run that never settled counting its whole schedule)."""
    stops = [getattr(one, which) for one in runs]
    done = [stop for stop in stops if stop is not None]
    right = sum(1 for _, order in done if order == truth)
    games = [stop[0] if stop is not None else one.games for stop, one in zip(stops, runs)]
    return {"settled": len(done) / len(runs), "true": right / len(done) if done else 1.0,
            "median_games": median(games),
            "median_settled_games": median([stop[0] for stop in done])}


def calibration(field: Field, rounds: int, confidence: float, runs: int,
                first_seed: int = 1) -> tuple[dict[str, float], dict[str, float]]:
    """(before, after) summaries over ``runs`` simulated tournaments."""
    played = [run(field, rounds, confidence, seed)
              for seed in range(first_seed, first_seed + runs)]
    return summary(played, field.names, "before"), summary(played, field.names, "after")


#: Other fields of known strength, run for fewer rounds: (label, field, rounds).
OTHER_FIELDS = (
    ("2 seats, 3 bots, close", Field((0.67, 0.33, 0.0), 2), 60),
    ("3 seats, 4 bots, wide", Field((3.0, 2.0, 1.0, 0.0), 3), 60),
    ("4 seats, 5 bots, close", Field((1.33, 1.0, 0.67, 0.33, 0.0), 4), 30),
)


def section(runs: int = 200, rounds: int = 60, confidence: float = 0.95,
            range_logs: int = 10, range_rounds: int = 20, other_runs: int = 50,
            real_seeds: int = 24, real_rounds: int = 60,
            progress: Callable[[str], None] = print) -> Section:
    started = time.perf_counter()
    field = ISSUE_FIELD
    games = rounds * len(list(itertools.combinations(field.names, field.players))) * 3
    result = Section("verdict", f"The verdict: 4 bots of known strength at 3 seats, up to "
                     f"{games} games, stop settled at {confidence:g}, {runs} simulated runs",
                     ["field", "rule", "runs", "settled", "true order among settled",
                      "median games", "median games of the settled"])
    progress(f"verdict: {runs} simulated tournaments of up to {games} games")
    before, after = calibration(field, rounds, confidence, runs)
    add_rows(result, f"the issue's: 3 seats, 4 bots, close, {games} games", runs, before, after)
    for key, values in (("before", before), ("after", after)):
        result.figures |= {f"{key}_{name}": value for name, value in values.items()
                           if value == value}
    goals = [("settled", after["settled"] >= GOAL_SETTLED, f">= {GOAL_SETTLED:.0%} settle"),
             ("true", after["true"] >= GOAL_TRUE, f"true order in >= {GOAL_TRUE:.0%} of them"),
             ("median", after["median_games"] <= GOAL_MEDIAN_GAMES,
              f"median games <= {GOAL_MEDIAN_GAMES}")]
    for _, met, words in goals:
        result.notes.append(f"goal (the issue's field): {words}: {'met' if met else 'NOT met'}")
    real = real_runs(real_seeds, real_rounds, confidence, progress)
    result.add(f"the issue's, real bots.mixed games, {real_rounds * 12} games", "after: deal sets, "
               "anytime-valid", real_seeds, real["settled"], real["true"], real["median_games"],
               real["median_settled_games"])
    result.figures |= {f"real_{name}": value for name, value in real.items() if value == value}
    for label, other, other_rounds in OTHER_FIELDS:
        progress(f"verdict: {other_runs} simulated tournaments, {label}")
        old, new = calibration(other, other_rounds, confidence, other_runs)
        per_round = len(list(itertools.combinations(other.names, other.players))) * other.players
        add_rows(result, f"{label}, {other_rounds * per_round} games", other_runs, old, new)
    progress(f"verdict: rank ranges of {range_logs} logs of {range_rounds * 12} games")
    ranges = rank_ranges(field, range_rounds, range_logs)
    for key, values in ranges.items():
        result.figures |= {f"ranges_{key}_{name}": value for name, value in values.items()}
    result.notes.append(
        f"rank ranges of the issue's field after {range_rounds * 12} games, {range_logs} logs: "
        f"every true rank within its range in {ranges['before']['correct']:.0%} of logs "
        f"resampling games, {ranges['after']['correct']:.0%} resampling deal sets; mean width "
        f"{ranges['before']['width']:.2f} → {ranges['after']['width']:.2f} ranks")
    result.notes.append("simulated outcomes (bench/verdict.py: strengths in noise units, the "
                        "issue's 1, .67, .33, 0; seat luck .5 per deal), matched to real runs "
                        "of bots.mixed p = .75, .5, .25, 0")
    result.seconds = time.perf_counter() - started
    return result


def add_rows(result: Section, label: str, runs: int, before: dict[str, float],
             after: dict[str, float]) -> None:
    for rule, values in (("before: TrueSkill LOS", before),
                         ("after: deal sets, anytime-valid", after)):
        result.add(label, rule, runs, values["settled"], values["true"], values["median_games"],
                   values["median_settled_games"])


def rank_ranges(field: Field, rounds: int, logs: int, resamples: int = 200
                ) -> dict[str, dict[str, float]]:
    """Rank ranges of simulated logs of ``rounds`` rounds, the bootstrap resampling games
    (before) and deal sets (after): how often every bot's range holds its true rank,
    and the mean width (high − low) of a range."""
    figures = {"before": {"correct": 0.0, "width": 0.0}, "after": {"correct": 0.0, "width": 0.0}}
    for seed in range(1, logs + 1):
        rng = random.Random(seed)
        log = [outcome for number in range(rounds)
               for outcome in simulated_round(field, number, rng)]
        for key, games in (("before", [replace(o, group=None) for o in log]), ("after", log)):
            board = build_board(games, field.names, resamples=resamples)
            truth = {bot: rank for rank, bot in enumerate(field.names, 1)}
            held = all(row.rank_low <= truth[row.bot] <= row.rank_high for row in board)
            figures[key]["correct"] += held / logs
            figures[key]["width"] += statistics.fmean(
                row.rank_high - row.rank_low for row in board) / logs
    return figures


#: The family of fields the verdict is measured over (none tuned to): each draws its
#: size, its seats and the gaps between neighbours (in noise units) at random.
FAMILY_SIZES = (3, 8)
FAMILY_GAPS = {"close": (0.1, 0.4), "wide": (0.4, 1.2)}
#: Each field's schedule: rounds of its round robin up to this many games a bot (the
#: issue's field: 60 rounds).
GAMES_PER_BOT = 540


def random_field(rng: random.Random, kind: str) -> Field:
    """A field of 3 to 8 bots at 2 to 4 seats (at most its size), each a gap drawn from
    ``FAMILY_GAPS[kind]`` below the one above."""
    size = rng.randint(*FAMILY_SIZES)
    players = rng.randint(2, min(4, size))
    strengths = [0.0]
    for _ in range(size - 1):
        strengths.append(strengths[-1] - rng.uniform(*FAMILY_GAPS[kind]))
    return Field(tuple(round(value - strengths[-1], 3) for value in strengths), players)


def family_rounds(field: Field) -> int:
    """The rounds of ``field``'s schedule: up to GAMES_PER_BOT games a bot."""
    size = len(field.strengths)
    per_bot = math.comb(size - 1, field.players - 1) * field.players
    return max(1, GAMES_PER_BOT // per_bot)


def family_field(field: Field, runs: int, confidence: float, reallocation: int,
                 first_seed: int) -> dict[str, float]:
    """Settled share, wrong share of the settled, and median games (a run that never
    settled counting its whole schedule) of ``runs`` runs of ``field``, the capital
    against an order moved with ``reallocation``."""
    kept = rules.REALLOCATION
    rules.REALLOCATION = reallocation
    try:
        played = [run(field, family_rounds(field), confidence, seed, before=False)
                  for seed in range(first_seed, first_seed + runs)]
    finally:
        rules.REALLOCATION = kept
    done = [one.after for one in played if one.after is not None]
    return {"settled": len(done) / runs,
            "wrong": sum(not field.right(order) for _, order in done) / len(done) if done
            else 0.0,
            "median_games": median([one.after[0] if one.after is not None else one.games
                                    for one in played]),
            "games": played[0].games}


def family(fields_per_kind: int = 12, runs: int = 20, confidence: float = 0.95,
           reallocations: Sequence[int] = (4, 1), seed: int = 2026,
           progress: Callable[[str], None] = print) -> Section:
    """The verdict over a family of random fields, close and wide: each field's settle
    rate, error rate and median games, and their spread, for each way of moving the
    capital between an order's neighbours."""
    started = time.perf_counter()
    rng = random.Random(seed)
    fields = [(kind, random_field(rng, kind)) for kind in FAMILY_GAPS
              for _ in range(fields_per_kind)]
    result = Section("fields", f"The verdict over {len(fields)} random fields (3–8 bots, 2–4 "
                     f"seats, close and wide), {runs} simulated runs each, up to "
                     f"{GAMES_PER_BOT} games a bot, stop settled at {confidence:g}",
                     ["field", "strengths", "games", "reallocation", "settled",
                      "wrong among settled", "median games"])
    summary: dict[tuple[str, int], list[dict[str, float]]] = {}
    for number, (kind, field) in enumerate(fields):
        progress(f"fields: {number + 1} of {len(fields)}, {kind}, {len(field.strengths)} bots "
                 f"at {field.players} seats")
        for reallocation in reallocations:
            figures = family_field(field, runs, confidence, reallocation, 1 + number * runs)
            summary.setdefault((kind, reallocation), []).append(figures)
            result.add(f"{kind}: {len(field.strengths)} bots, {field.players} seats",
                       ", ".join(f"{value:g}" for value in field.strengths),
                       int(figures["games"]), reallocation, figures["settled"],
                       figures["wrong"], figures["median_games"])
    for (kind, reallocation), rows in summary.items():
        settled = sorted(row["settled"] for row in rows)
        share = sorted(row["median_games"] / row["games"] for row in rows)
        wrong = sum(row["wrong"] * row["settled"] * runs for row in rows)
        done = sum(row["settled"] * runs for row in rows)
        key = f"{kind}_r{reallocation}"
        result.figures |= {f"{key}_settled_median": median(settled),
                           f"{key}_settled_min": settled[0], f"{key}_settled_max": settled[-1],
                           f"{key}_wrong": wrong / done if done else 0.0,
                           f"{key}_games_share_median": median(share)}
        result.notes.append(
            f"{kind}, reallocation {reallocation}: settled {median(settled):.0%} of a field's "
            f"runs at the median field ({settled[0]:.0%}–{settled[-1]:.0%}); {wrong:.0f} "
            f"wrong of {done:.0f} settled; median games {median(share):.0%} of the schedule "
            f"at the median field ({share[0]:.0%}–{share[-1]:.0%})")
    result.seconds = time.perf_counter() - started
    return result
