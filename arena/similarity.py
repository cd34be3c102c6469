"""Play similarity on duplicate deals: how often two versions choose the same action at
the same decision point.

The games of one deal (the same game, seats and seed: the rotations of a match's deal,
or the same deal dealt to several promotion matches) start from the same state, and a
rules engine is a function of its deal and the actions so far, so two of them are at
the same decision point as long as their actions agree: at each such
decision the seat to move is the same, and where two different versions sit in it, both
faced the identical choice. The walk along the two games compares the versions there,
up to and including the first decision where the actions differ (after it the states
differ). Forced moves (one legal action) are no evidence and are skipped. A pair is
flagged when it chose the same at ``share`` or more of at least ``points`` decision
points: a near copy agrees almost everywhere, two independent bots seldom for long.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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


#: What makes two games one deal: the same game, variant, seats and seed.
DealKey = tuple[str, str, int, int]


@dataclass(frozen=True)
class Played:
    """What the comparison needs of a game: its seats, actions and decision points."""

    id: int
    seats: tuple[str, ...]
    actions: tuple[int, ...]
    points: tuple[tuple[int, int], ...]


class Agreements:
    """Agreements of every pair, fed the games of one match at a time: each game is
    compared with the other games of its deal in the match, and with those of the deals
    kept from earlier matches (matches whose deals recur, such as promotion matches dealt
    from the seed alone)."""

    def __init__(self) -> None:
        self.pairs: dict[tuple[str, str], PairAgreement] = {}
        self.kept: dict[DealKey, list[Played]] = {}
        # The last ladder match fed in (the ladder carries it on from there).
        self.last = 0

    def add_match(self, games: Iterable[StoredGame], keep: bool) -> None:
        """A match's games; ``keep``: its deals may recur, so its games are kept to
        compare later matches' with."""
        here: dict[DealKey, list[Played]] = {}
        for game in games:
            key = (game.game, game.variant, len(game.seats), game.seed)
            played = Played(game.id, tuple(game.seats), tuple(game.actions),
                            tuple(decision_points(game)))
            for other in [*self.kept.get(key, ()), *here.get(key, ())]:
                self._compare(other, played)
            here.setdefault(key, []).append(played)
        if keep:
            for key, games_of_deal in here.items():
                self.kept.setdefault(key, []).extend(games_of_deal)

    def _compare(self, first: Played, second: Played) -> None:
        """Walk two games of one deal while their actions agree (and at the first
        decision where they do not)."""
        met: set[tuple[str, str]] = set()
        for (seat, choices), mine, theirs in zip(first.points, first.actions, second.actions):
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
