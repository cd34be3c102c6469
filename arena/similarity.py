"""Play similarity on duplicate deals: how often two versions choose the same action at
the same decision point.

The games of one deal (a group: one deal in every seat rotation) start from the same
state, and a rules engine is a function of its deal and the actions so far, so two of
them are at the same decision point as long as their actions agree: at each such
decision the seat to move is the same, and where two different versions sit in it, both
faced the identical choice. The walk along the two games compares the versions there,
up to and including the first decision where the actions differ (after it the states
differ). Forced moves (one legal action) are no evidence and are skipped. A pair is
flagged when it chose the same at ``share`` or more of at least ``points`` decision
points: a near copy agrees almost everywhere, two independent bots seldom for long.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Iterable

from tournaments.replays import decision_points
from tournaments.store import StoredGame

#: Games kept as a pair's evidence (the organiser's side-by-side view links them).
EVIDENCE_GAMES = 5


@dataclass
class PairAgreement:
    """Two versions (a < b) at identical decision points: how many, how many alike, and
    the first few pairs of game ids where they met."""

    a: str
    b: str
    points: int = 0
    same: int = 0
    games: list[tuple[int, int]] = field(default_factory=list)

    @property
    def share(self) -> float:
        return self.same / self.points if self.points else 0.0

    def flagged(self, share: float, points: int) -> bool:
        return self.points >= points and self.share >= share


class Agreements:
    """Agreements of every pair, fed the games of one deal at a time."""

    def __init__(self) -> None:
        self.pairs: dict[tuple[str, str], PairAgreement] = {}
        # The last ladder match fed in (the ladder carries it on from there).
        self.last = 0

    def add_deal(self, games: Iterable[StoredGame]) -> None:
        """The games of one deal (same game, seats and seed); each game's decision points
        replayed once."""
        replayed: dict[int, list[tuple[int, int]]] = {}
        for first, second in combinations(games, 2):
            if (first.seed, first.game, first.variant, len(first.seats)) == \
                    (second.seed, second.game, second.variant, len(second.seats)):
                if first.id not in replayed:
                    replayed[first.id] = decision_points(first)
                self._compare(first, second, replayed[first.id])

    def _compare(self, first: StoredGame, second: StoredGame,
                 moves: list[tuple[int, int]]) -> None:
        met: set[tuple[str, str]] = set()
        for step, (mine, theirs) in enumerate(zip(first.actions, second.actions)):
            seat, choices = moves[step]
            a, b = first.seats[seat], second.seats[seat]
            if a != b and choices > 1:
                pair = self._pair(a, b)
                pair.points += 1
                pair.same += mine == theirs
                met.add((pair.a, pair.b))
            if mine != theirs:
                break
        for key in met:
            if len(self.pairs[key].games) < EVIDENCE_GAMES:
                self.pairs[key].games.append((first.id, second.id))

    def _pair(self, a: str, b: str) -> PairAgreement:
        key = (min(a, b), max(a, b))
        if key not in self.pairs:
            self.pairs[key] = PairAgreement(*key)
        return self.pairs[key]

    def flagged(self, share: float, points: int) -> list[PairAgreement]:
        """The pairs that agree at ``share`` of ``points`` or more, most alike first."""
        return sorted((pair for pair in self.pairs.values() if pair.flagged(share, points)),
                      key=lambda pair: (-pair.share, -pair.points, pair.a, pair.b))


def by_deal(games: Iterable[StoredGame]) -> list[list[StoredGame]]:
    """A tournament's games (in schedule order) grouped by deal."""
    deals: dict[int, list[StoredGame]] = {}
    for game in games:
        deals.setdefault(game.group_index, []).append(game)
    return list(deals.values())
