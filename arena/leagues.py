"""Leagues with calibrated promotion: a version leaves a league when the duplicate-deal
verdict (:mod:`ratings.verdict`, the one ``stop:`` uses) says it beats the league's boss.

Every version starts in the first league and plays promotion matches against the boss
of the league it is in: heads-up, or with copies of the boss in the other seats, each
deal in every seat rotation. Each match is one round of the verdict (its deals were
dealt before any was played), so the evidence is anytime-valid: looked at after every
match, a promotion is wrong with probability at most 1 − confidence. The test ends when
the verdict certifies either order, or after the league's ``max_deal_sets`` without one.
The same test is a course's pass requirement ("beats the heuristic bot at 95%"):
:func:`grades_csv` exports it.
"""

from __future__ import annotations

import csv
import io
import math
import sys
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Iterable, Mapping, Sequence

from arena.ladder_settings import LadderSettings, League
from arena.ladder_store import LadderStore, MatchKind, MatchStatus
from circus_outcomes import GameStatus
from ratings.verdict import Comparisons, DealSets, by_round, judge
from tournaments.store import Store

#: The log of the largest float: evidence past it is shown as that float.
LOG_FLOAT_MAX = math.log(sys.float_info.max)


class Grade(StrEnum):
    PASSED = "passed"          # the verdict certifies the version above the boss
    FAILED = "failed"          # ... the boss above the version
    UNDECIDED = "undecided"    # no verdict within the league's deal sets
    OPEN = "open"              # still being tested
    UNTESTED = "untested"      # a lower league's boss is not beaten yet


@dataclass(frozen=True)
class PromotionTest:
    """A version against one league's boss: the verdict's evidence so far."""

    version: str
    league: str
    boss: str
    grade: Grade
    deal_sets: int
    # The evidence that the version beats the boss, and what it must reach.
    evidence: float
    needed: float
    confidence: float
    line: str
    # The promotion matches' tournaments (their games are the evidence), in order.
    matches: tuple[str, ...] = ()


def boss_field(league: League, version: str, players: int) -> list[str]:
    """A promotion match's seats: the version, the boss, copies of the boss after."""
    return [version, league.boss_name,
            *(f"{league.boss_name}-copy{seat}" for seat in range(2, players))]


def boss_bots(league: League, players: int) -> list[dict[str, Any]]:
    """The boss's bots.yaml entries for a promotion match (the boss and its copies)."""
    names = boss_field(league, "", players)[1:]
    return [{**league.boss, "name": name} for name in names]


class PromotionEvidence:
    """The deal sets of every (version, league) from the promotion matches, carried on
    as matches finish (each match a round of the verdict, each deal a group numbered
    across matches)."""

    def __init__(self) -> None:
        self.sets: dict[tuple[str, str], DealSets] = {}
        self.last = 0
        self.groups = 0
        # Each test as last judged, with the games it was judged on: judged again only
        # when its version played the boss since (a board asks for every version's).
        self.judged: dict[tuple[str, str, bool], tuple[int, PromotionTest]] = {}
        self.games: dict[tuple[str, str], int] = {}
        self.matches: dict[tuple[str, str], list[str]] = {}

    def update(self, store: Store, records: LadderStore) -> None:
        for match in records.finished(self.last):
            self.last = match.number
            if match.kind is not MatchKind.PROMOTION or match.status is not MatchStatus.PLAYED \
                    or match.league is None:
                continue
            key = (match.field[0], match.league)
            sets = self.sets.setdefault(key, DealSets())
            self.matches.setdefault(key, []).append(match.tournament)
            groups: dict[int | None, int] = {}
            for game in store.results(match.tournament):
                self.games[key] = self.games.get(key, 0) + 1
                if game.group_index not in groups:
                    self.groups += 1
                    groups[game.group_index] = self.groups
                sets.add(groups[game.group_index], game.seats, game.ranks,
                         game.status != GameStatus.VOID, game.scores, match.number)

    def tests(self, settings: LadderSettings, versions: Iterable[str]
              ) -> dict[str, list[PromotionTest]]:
        """Each version's test against every league's boss, lowest league first."""
        tests: dict[str, list[PromotionTest]] = {}
        for version in versions:
            below_passed = True
            row = []
            for league in settings.leagues:
                made = self._test(version, league, below_passed)
                below_passed = made.grade is Grade.PASSED
                row.append(made)
            tests[version] = row
        return tests

    def _test(self, version: str, league: League, reached: bool) -> PromotionTest:
        games = self.games.get((version, league.name), 0)
        kept = self.judged.get((version, league.name, reached))
        if kept is None or kept[0] != games:
            kept = games, replace(
                _test(version, league, self.sets.get((version, league.name), DealSets()),
                      reached), matches=tuple(self.matches.get((version, league.name), ())))
            self.judged[version, league.name, reached] = kept
        return kept[1]


def league_of(tests: Sequence[PromotionTest], settings: LadderSettings) -> str:
    """The league a version is in: the first whose boss it has not beaten, else the top."""
    return next((test.league for test in tests if test.grade is not Grade.PASSED),
                settings.top_league)


def open_test(tests: Mapping[str, Sequence[PromotionTest]]) -> PromotionTest | None:
    """The open test with the fewest deal sets (on a tie, the first in ``tests``)."""
    found = [test for row in tests.values() for test in row if test.grade is Grade.OPEN]
    return min(found, key=lambda test: test.deal_sets, default=None)


def _test(version: str, league: League, sets: DealSets, reached: bool) -> PromotionTest:
    complete = sets.complete()
    comparisons = Comparisons([version, league.boss_name], league.confidence)
    for batch in by_round(complete):
        comparisons.add_round(batch)
    found = judge(comparisons)
    if not reached:
        grade = Grade.UNTESTED
    elif found.certified:
        grade = Grade.PASSED if found.order[0] == version else Grade.FAILED
    elif len(complete) >= league.max_deal_sets:
        grade = Grade.UNDECIDED
    else:
        grade = Grade.OPEN
    return PromotionTest(version, league.name, league.boss_name, grade, len(complete),
                         _evidence(comparisons, version, league.boss_name), found.needed,
                         league.confidence, found.line())


def _evidence(comparisons: Comparisons, upper: str, lower: str) -> float:
    """The evidence now that ``upper`` does better than ``lower`` (1: none either way);
    past a float's range, the largest float."""
    pair = comparisons.pair(upper, lower)
    return math.exp(min(pair.log_evidence(upper), LOG_FLOAT_MAX)) if pair else 1.0


def grades_csv(tests: Mapping[str, Sequence[PromotionTest]],
               entrants: Mapping[str, str]) -> str:
    """The promotion tests as a grade sheet: a row per version and league."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["entrant", "version", "league", "boss", "grade", "confidence",
                     "evidence", "needed", "deal_sets"])
    for version, row in tests.items():
        for test in row:
            writer.writerow([entrants.get(version, ""), version, test.league, test.boss,
                             test.grade, test.confidence, f"{test.evidence:.4g}",
                             f"{test.needed:.4g}", test.deal_sets])
    return out.getvalue()
