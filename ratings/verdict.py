"""The verdict: which order of the bots the duplicate deal sets certify, anytime-valid.

A *deal set* is one group of the schedule: a deal played at one table in every seat
rotation (the same deal with ``duplicate``), so the deal's luck falls on every seated
bot alike and cancels in their differences. Each seated bot's outcome on it is its
normalised score (n − place) / (n − 1) summed over the rotations, so places count,
not only wins. Deal sets are independent of each other (each has its own deal); the
games within one are not, which is why they, not games, are the unit.

For two bots i and j sharing a deal set of n seats, x = (S_i − S_j) / n lies in
[−1, 1]. "i is better than j" is certified by a test martingale (Waudby-Smith and
Ramdas, "Estimating means of bounded random variables by betting", JRSS B 2023):
the wealth of a gambler betting on i a predictable fraction λ of it on each shared
deal set, W = Π (1 + λ_t x_t), with λ_t ∈ [0, LAMBDA_CAP] chosen from the deal sets
before t (aGRAPA: the running mean over the running second moment). If i is not
better than j (E[x] ≤ 0 on every deal set, whoever else sits there), W is a
nonnegative supermartingale from 1, and by Ville's inequality it ever reaches 1/a
with probability at most a, however often it is looked at and whenever one stops.

An order is certified at level c when each bot's wealth against the next one down
has reached m / (1 − c), m = n(n − 1)/2 the pairs of the field: a wrong order puts
some bot above one that is truly better next to it, so a wrong certified order needs
one of at most m true "not better" hypotheses to have crossed m / (1 − c), which
has probability at most m · (1 − c) / m = 1 − c. Which pairs end up neighbours does
not matter: every pair is held to the same bound. ``docs/ratings.md`` ("The verdict")
has the derivation and the measured calibration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations
from typing import Iterable, Mapping, NamedTuple, Sequence

#: The largest fraction of its wealth a bet may stake: a deal set lost outright
#: (x = −1) then halves the wealth rather than ending it.
LAMBDA_CAP = 0.5
#: The running mean and second moment of x start as if PRIOR_WEIGHT deal sets of
#: mean 0 and second moment PRIOR_SQUARE had been seen, so the first bets are small.
PRIOR_WEIGHT = 1.0
PRIOR_SQUARE = 0.25


@dataclass(frozen=True)
class DealSet:
    """One deal set: its group, and each seated bot's outcome summed over its
    rotations (``scores[bot]`` in [0, seats]: :func:`game_outcomes`)."""

    group: int
    seats: int
    scores: Mapping[str, float]


class DealSets:
    """Deal sets gathered from games in any order: a group becomes a deal set when it
    has as many games as seats times tables (every rotation of every table), each
    rated; a group with a void game is left out (its rotations no longer balance)."""

    def __init__(self) -> None:
        self._games: dict[int, list[Game]] = {}

    def add(self, group: int, seats: Sequence[str], ranks: Sequence[int],
            rated: bool = True, scores: Sequence[int] = ()) -> None:
        self._games.setdefault(group, []).append(
            Game(tuple(seats), tuple(ranks), rated, tuple(scores)))

    def complete(self) -> list[DealSet]:
        """The complete deal sets, in group order (the order the verdict reads them in)."""
        sets = []
        for group in sorted(self._games):
            made = deal_set(group, self._games[group])
            if made is not None:
                sets.append(made)
        return sets


class Game(NamedTuple):
    """What a deal set needs of one of its games."""

    seats: tuple[str, ...]
    ranks: tuple[int, ...]
    rated: bool = True
    scores: tuple[int, ...] = ()


def game_outcomes(game: Game) -> list[float]:
    """Each seat's outcome in [0, 1]: its score's place between the lowest and the
    highest score of the game, (s − min) / (max − min), so margins count; from the
    places, (n − place) / (n − 1), when the game has no scores or all are equal (a
    tie-break then decided the places)."""
    scores, n = game.scores, len(game.seats)
    if len(scores) == n and max(scores) > min(scores):
        low, spread = min(scores), max(scores) - min(scores)
        return [(score - low) / spread for score in scores]
    return [(n - rank) / (n - 1) for rank in game.ranks]


def deal_set(group: int, games: Sequence[Game]) -> DealSet | None:
    """The deal set of a group's games, or None while one is missing or any is void."""
    if not games or not all(game.rated for game in games):
        return None
    seats = len(games[0].seats)
    tables = {frozenset(game.seats) for game in games}
    if len(games) != seats * len(tables):
        return None
    totals: dict[str, float] = {}
    for game in games:
        for bot, value in zip(game.seats, game_outcomes(game)):
            totals[bot] = totals.get(bot, 0.0) + value
    return DealSet(group, seats, totals)


@dataclass
class Bettor:
    """The running moments of one side's comparisons of one kind, which choose its
    next stake."""

    count: int = 0
    total: float = 0.0
    squares: float = 0.0

    def stake(self) -> float:
        """aGRAPA's fraction: the running mean over the running second moment of x
        (from the comparisons before this one only), within [0, LAMBDA_CAP]."""
        weight = PRIOR_WEIGHT + self.count
        mean = self.total / weight
        square = (PRIOR_SQUARE * PRIOR_WEIGHT + self.squares) / weight
        return min(LAMBDA_CAP, max(0.0, mean / square))

    def learn(self, x: float) -> None:
        self.count += 1
        self.total += x
        self.squares += x * x


#: The two kinds of comparison of a pair: on a deal set they shared, and on two deal
#: sets with the same other bots, one with each of them (the one substituted for the
#: other). Each kind keeps its own running moments for the stakes: a substituted
#: comparison spans two deals, so no luck cancels in it and it is noisier.
SHARED, SUBSTITUTED = 0, 1


@dataclass
class PairEvidence:
    """Two bots (a < b by name) over the comparisons they had: a betting on a, b on b."""

    a: str
    b: str
    shared: int = 0
    substituted: int = 0
    difference: float = 0.0           # Σ x over every comparison
    for_a: list[Bettor] = field(default_factory=lambda: [Bettor(), Bettor()])
    for_b: list[Bettor] = field(default_factory=lambda: [Bettor(), Bettor()])
    best_a: float = 1.0
    best_b: float = 1.0
    wealth_a: float = 1.0
    wealth_b: float = 1.0

    def add(self, x: float, kind: int) -> None:
        """One comparison, x = (S_a − S_b) / seats in [−1, 1]."""
        if kind == SHARED:
            self.shared += 1
        else:
            self.substituted += 1
        self.difference += x
        self.wealth_a *= 1.0 + self.for_a[kind].stake() * x
        self.wealth_b *= 1.0 - self.for_b[kind].stake() * x
        self.for_a[kind].learn(x)
        self.for_b[kind].learn(-x)
        self.best_a = max(self.best_a, self.wealth_a)
        self.best_b = max(self.best_b, self.wealth_b)

    @property
    def comparisons(self) -> int:
        return self.shared + self.substituted

    def evidence(self, upper: str) -> float:
        """The largest wealth yet of betting that ``upper`` does better than the other."""
        return self.best_a if upper == self.a else self.best_b

    def mean(self, upper: str) -> float:
        """``upper``'s mean margin over the other per comparison (x units)."""
        sign = 1.0 if upper == self.a else -1.0
        return sign * self.difference / self.comparisons if self.comparisons else 0.0


class Comparisons:
    """Every pair's evidence, fed deal sets in group order.

    A deal set compares each two bots seated at it. It also waits, for each seated
    bot i, under the other bots seated with it (O): the k-th deal set of i with O is
    compared with the k-th deal set of any other bot j with O, j in i's place. The
    matching depends only on who sat where, never on a result, so each comparison's
    stake is still chosen before its result is seen.
    """

    def __init__(self, bots: Iterable[str] | None = None) -> None:
        self.keep = None if bots is None else set(bots)
        self.pairs: dict[tuple[str, str], PairEvidence] = {}
        self.deal_sets = 0
        # Per set of other bots: per bot, its scores at the deal sets with them.
        self.waiting: dict[frozenset[str], dict[str, list[float]]] = {}

    def add(self, dealt: DealSet) -> None:
        seated = sorted(bot for bot in dealt.scores if self.keep is None or bot in self.keep)
        self.deal_sets += 1
        scores, n = dealt.scores, dealt.seats
        for a, b in combinations(seated, 2):
            self._pair(a, b).add((scores[a] - scores[b]) / n, SHARED)
        for bot in seated:
            others = frozenset(dealt.scores) - {bot}
            lists = self.waiting.setdefault(others, {})
            mine = lists.setdefault(bot, [])
            mine.append(scores[bot])
            for other, theirs in lists.items():
                if other != bot and len(theirs) >= len(mine):
                    x = (mine[-1] - theirs[len(mine) - 1]) / n
                    a, b = sorted((bot, other))
                    self._pair(a, b).add(x if a == bot else -x, SUBSTITUTED)

    def _pair(self, a: str, b: str) -> PairEvidence:
        pair = self.pairs.get((a, b))
        if pair is None:
            pair = self.pairs[a, b] = PairEvidence(a, b)
        return pair


def pair_evidence(sets: Iterable[DealSet], bots: Iterable[str] | None = None
                  ) -> dict[tuple[str, str], PairEvidence]:
    """Every pair's evidence over the deal sets, read in the order given (group order);
    with ``bots``, only pairs of those bots."""
    comparisons = Comparisons(bots)
    for dealt in sets:
        comparisons.add(dealt)
    return comparisons.pairs


@dataclass(frozen=True)
class Verdict:
    """What the deal sets say of a field's order at a confidence."""

    order: list[str]                  # certified, best first; else the likeliest order
    certified: bool
    confidence: float
    deal_sets: int
    needed: float                     # the wealth each neighbour pair must reach
    # Per neighbour pair of ``order``: (upper, lower, evidence, comparisons).
    neighbours: list[tuple[str, str, float, int]]

    def weakest(self) -> tuple[str, str, float, int] | None:
        """The neighbour pair told apart least surely."""
        return min(self.neighbours, key=lambda item: (item[2] / self.needed, item[3]),
                   default=None)

    def line(self) -> str:
        """One line: the order and what it rests on, or what holds it back."""
        rests = (f"{self.deal_sets} deal set(s) at {self.confidence:g}, anytime-valid "
                 f"(each neighbour's evidence >= {self.needed:.4g})")
        if self.certified:
            return f"{' > '.join(self.order)} on {rests}"
        weakest = self.weakest()
        if weakest is None:
            return f"no deal set compares the bots yet ({rests})"
        upper, lower, evidence, shared = weakest
        return (f"{upper} is above {lower} with evidence {evidence:.3g} only from {shared} "
                f"comparison(s) (needs {self.needed:.4g}; {rests})")


def threshold(bots: int, confidence: float) -> float:
    """The wealth each neighbour pair must reach: pairs / (1 − confidence)."""
    return max(1, bots * (bots - 1) // 2) / (1.0 - confidence)


def verdict(sets: Sequence[DealSet], bots: Sequence[str], confidence: float) -> Verdict:
    """Whether the deal sets certify an order of ``bots`` at ``confidence``.

    The order is that of the certified pairs (each bot certified above the next) when
    they chain through the whole field; else the bots by their summed mean margins over
    the others, which names the neighbours still to be told apart.
    """
    names = list(dict.fromkeys(bots))
    pairs = pair_evidence(sets, names)
    needed = threshold(len(names), confidence)
    chain = certified_chain(names, pairs, needed)
    order = chain if chain is not None else likeliest_order(names, pairs)
    neighbours = []
    for upper, lower in zip(order, order[1:]):
        pair = pairs.get(tuple(sorted((upper, lower))))   # type: ignore[arg-type]
        neighbours.append((upper, lower, pair.evidence(upper) if pair else 1.0,
                           pair.comparisons if pair else 0))
    return Verdict(order, chain is not None, confidence, len(sets), needed, neighbours)


def certified_chain(names: Sequence[str], pairs: Mapping[tuple[str, str], PairEvidence],
                    needed: float) -> list[str] | None:
    """The order in which each bot is certified above the next, if the certified pairs
    make one through every bot (a Hamiltonian path of their graph: in a graph without
    cycles there is at most one, the order of its sources taken one at a time)."""
    above: dict[str, set[str]] = {bot: set() for bot in names}
    for pair in pairs.values():
        for upper, lower in ((pair.a, pair.b), (pair.b, pair.a)):
            if pair.evidence(upper) >= needed:
                above[lower].add(upper)
    order: list[str] = []
    left = set(names)
    while left:
        sources = [bot for bot in left if not (above[bot] & left)]
        if len(sources) != 1:
            return None
        top = sources[0]
        if order and order[-1] not in above[top]:
            return None
        order.append(top)
        left.remove(top)
    return order


def likeliest_order(names: Sequence[str], pairs: Mapping[tuple[str, str], PairEvidence]
                    ) -> list[str]:
    """The bots by the sum of their mean margins over the others they shared deal sets
    with, best first, ties by name."""
    margin = {bot: 0.0 for bot in names}
    for pair in pairs.values():
        margin[pair.a] += pair.mean(pair.a)
        margin[pair.b] += pair.mean(pair.b)
    return sorted(names, key=lambda bot: (-margin[bot], bot))
