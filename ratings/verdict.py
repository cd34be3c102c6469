"""The verdict: which order of the bots the duplicate deal sets certify, anytime-valid.

A *deal set* is one group of the schedule: a deal played at one table in every seat
rotation (the same deal with ``duplicate``), so a seat's luck on the deal falls on every
seated bot alike. Each seated bot's outcome on it is its score margins over the game's
lowest summed over the rotations, in units of the rotations' summed spreads (places
where every rotation tied): :func:`deal_set`.
Deal sets are independent of each other (each has its own deal); the games within one
are not, which is why they, not games, are the unit.

Two bots i and j are *compared* on a deal set they shared, and on two deal sets of one
round with the same other bots, one with i and one with j (j substituted for i):
x = (S_i − S_j) / seats, in [−1, 1]. "i is not better than j" means E[x] ≤ 0 on every
comparison (at any table, j in i's place does at least as well). Against it bets a
mixture of gamblers (Waudby-Smith and Ramdas, "Estimating means of bounded random
variables by betting", JRSS B 2023): gambler k stakes the fixed fraction STAKES[k] of
its wealth on i at every comparison, W_k = Π (1 + λ_k x_t); the evidence that i is
better than j is their mean wealth K_ij, kept as its logarithm. If i is not better than
j, K_ij is a nonnegative supermartingale from 1 (a pair's comparisons rest on deal sets
of their own, so the bets multiply), and so is its value at round ends, where the
rounds before are all there is to condition on.

An order σ of the field is ruled out when a gambler betting against it has grown its
capital from 1 to 2 / (1 − c). At each round's start it spreads its capital over σ's
neighbours among the bots seated in the round (p just above q), each share fixed then
(∝ K_qp^REALLOCATION, K_qp the evidence that q is better than p), and each share grows
as its K_qp does over the round. If σ is a true order (no bot better than one above
it) each K_qp is such a supermartingale, so each share's growth has mean at most 1
given the rounds before, the capital is a supermartingale too, and by Ville's
inequality it ever reaches 2 / (1 − c) with probability at most (1 − c) / 2: however
often it is looked at (after every round) and whenever one stops. The verdict on some
of the bots certifies the order in which every order of the field not ruled out puts
them. It is wrong when a bot is not strictly better than the next: if no two bots are
equal, only when the true order was ruled out; if some are, both orders of two equal
bots are true ones, and at least half of the true orders were ruled out; by Ville's
inequality for their mean capital, either happens with probability at most 1 − c,
over the whole run and every set of bots judged in it. Fields of more than MAX_ORDERS
bots (n! orders) are judged pair by pair instead: each bot's best evidence over the
next down must reach n(n − 1) / (1 − c), a union bound over the one-sided nulls of
every pair (both true of two equal bots).
``docs/ratings.md`` ("The verdict") has the derivation and the measured calibration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations, permutations
from typing import Collection, Iterable, Mapping, NamedTuple, Sequence

import numpy as np
from numpy.typing import NDArray

from ratings.trueskill_ratings import Outcome

#: The mixture's fixed stakes (fractions of wealth bet on each comparison), evenly
#: spread up to the boldest, which a comparison lost outright (x = −1) leaves a tenth of
#: its wealth: the stake that grows the evidence fastest is about E[x] / E[x²], which
#: no pair shows in advance, and the mixture pays at most a factor 5 for not knowing it.
STAKES = (0.18, 0.36, 0.54, 0.72, 0.9)
#: The largest field judged order by order (n! orders); larger ones pair by pair.
MAX_ORDERS = 6
#: The gambler against an order moves its capital, at each round's start, to its
#: neighbours in shares ∝ (their evidence against it)^REALLOCATION: to where the order
#: looks most exposed. 1 would hold the first round's even shares (the capital is then
#: the mean evidence); moving it settles sooner (docs/ratings.md, "Why shares ∝ K⁴").
REALLOCATION = 4
#: The two kinds of comparison of a pair: on a deal set they shared, and on two deal
#: sets with the same other bots, one with each of them (one substituted for the other).
SHARED, SUBSTITUTED = 0, 1


@dataclass(frozen=True)
class DealSet:
    """One deal set: its group, and each seated bot's outcome over its rotations
    (``scores[bot]`` in [0, seats]: :func:`deal_set`)."""

    group: int
    seats: int
    scores: Mapping[str, float]
    # The round it was paired in: the deal sets of a round were all paired before any
    # was played (None: unknown, a round of its own).
    round: int | None = None


class DealSets:
    """Deal sets gathered from games in any order: a group becomes a deal set when it
    has as many games as seats times tables (every rotation of every table), each
    rated; a group with a void game is left out (its rotations no longer balance)."""

    def __init__(self) -> None:
        self._games: dict[int, list[Game]] = {}
        self._rounds: dict[int, int | None] = {}

    def add(self, group: int, seats: Sequence[str], ranks: Sequence[int],
            rated: bool = True, scores: Sequence[int] = (), round: int | None = None
            ) -> None:
        self._games.setdefault(group, []).append(
            Game(tuple(seats), tuple(ranks), rated, tuple(scores)))
        self._rounds[group] = round

    def add_outcome(self, outcome: Outcome) -> None:
        """A game of the log; one without a group (a log from before groups were kept) is no deal set's."""
        if outcome.group is not None:
            self.add(outcome.group, outcome.seats, outcome.ranks, outcome.rated,
                     outcome.scores, outcome.round)

    def complete(self) -> list[DealSet]:
        """The complete deal sets, in group order (the order the verdict reads them in)."""
        sets = []
        for group in sorted(self._games):
            made = deal_set(group, self._games[group], self._rounds[group])
            if made is not None:
                sets.append(made)
        return sets

    def take_complete(self) -> list[DealSet]:
        """The complete deal sets, in group order, no longer kept here."""
        sets = self.complete()
        for made in sets:
            del self._games[made.group], self._rounds[made.group]
        return sets


def by_round(sets: Iterable[DealSet]) -> list[list[DealSet]]:
    """Deal sets (in group order) in runs of one round each; one of unknown round alone."""
    runs: list[list[DealSet]] = []
    for dealt in sets:
        if runs and dealt.round is not None and runs[-1][-1].round == dealt.round:
            runs[-1].append(dealt)
        else:
            runs.append([dealt])
    return runs


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


def game_weight(game: Game) -> float:
    """How much a game counts in its deal set: its score spread (max − min), so a
    rotation won by a mile says more than one won by a point; 1 for a game without
    scores."""
    scores = game.scores
    return float(max(scores) - min(scores)) if len(scores) == len(game.seats) else 1.0


def deal_set(group: int, games: Sequence[Game], round: int | None = None) -> DealSet | None:
    """The deal set of a group's games, or None while one is missing or any is void.

    A bot's outcome is seats × the mean of its game outcomes weighted by the games'
    spreads (:func:`game_weight`): seats × Σ (s − min) / Σ (max − min) over the
    rotations, in [0, seats], so a pair's margin on the deal set is the sum of their
    score margins over the rotations in units of the summed spreads. When every game
    tied (no spread at all) the places count, each game alike."""
    if not games or not all(game.rated for game in games):
        return None
    seats = len(games[0].seats)
    tables = {frozenset(game.seats) for game in games}
    if len(games) != seats * len(tables):
        return None
    totals: dict[str, float] = {}
    for table in tables:
        played = [game for game in games if frozenset(game.seats) == table]
        totals |= table_outcomes(played, seats)
    return DealSet(group, seats, totals, round)


def table_outcomes(games: Sequence[Game], seats: int) -> dict[str, float]:
    """Each bot's outcome over one table's rotations of a deal: seats × the mean of its
    game outcomes weighted by :func:`game_weight` (each game alike when all tied)."""
    weights = [game_weight(game) for game in games]
    if sum(weights) == 0:
        weights = [1.0] * len(games)
    scale = seats / sum(weights)
    totals: dict[str, float] = {}
    for game, weight in zip(games, weights):
        for bot, value in zip(game.seats, game_outcomes(game)):
            totals[bot] = totals.get(bot, 0.0) + scale * weight * value
    return totals


@dataclass
class PairEvidence:
    """Two bots (a < b by name) over their comparisons: the mixture betting on a, and
    the one betting on b. Each gambler's wealth is a factor of its mixture's common
    exp(scale), so a long log's wealth never leaves a float's range."""

    a: str
    b: str
    shared: int = 0
    substituted: int = 0
    difference: float = 0.0           # Σ x over every comparison
    gamblers_a: list[float] = field(default_factory=lambda: [1.0] * len(STAKES))
    gamblers_b: list[float] = field(default_factory=lambda: [1.0] * len(STAKES))
    scale_a: float = 0.0
    scale_b: float = 0.0
    log_a: float = 0.0                # the mixtures' log wealth now
    log_b: float = 0.0
    best_a: float = 0.0               # ... and at its highest at a round's end
    best_b: float = 0.0

    def add(self, x: float, kind: int) -> None:
        """One comparison, x = (S_a − S_b) / seats in [−1, 1]."""
        if kind == SHARED:
            self.shared += 1
        else:
            self.substituted += 1
        self.difference += x
        self.gamblers_a, self.scale_a, self.log_a = bet(self.gamblers_a, self.scale_a, x)
        self.gamblers_b, self.scale_b, self.log_b = bet(self.gamblers_b, self.scale_b, -x)

    def look(self) -> None:
        """A round's end: keep the highest evidence seen at one."""
        self.best_a = max(self.best_a, self.log_a)
        self.best_b = max(self.best_b, self.log_b)

    @property
    def comparisons(self) -> int:
        return self.shared + self.substituted

    def log_evidence(self, upper: str) -> float:
        """The log of the evidence now that ``upper`` does better than the other."""
        return self.log_a if upper == self.a else self.log_b

    def log_best(self, upper: str) -> float:
        """The log of the highest the evidence that ``upper`` does better has been."""
        return self.best_a if upper == self.a else self.best_b

    def mean(self, upper: str) -> float:
        """``upper``'s mean margin over the other per comparison (x units)."""
        sign = 1.0 if upper == self.a else -1.0
        return sign * self.difference / self.comparisons if self.comparisons else 0.0


def bet(wealth: list[float], scale: float, x: float) -> tuple[list[float], float, float]:
    """Each gambler's wealth (factors of exp(``scale``)) after staking its fraction of it
    on x; the factors brought back to 1 at the largest once it leaves [1e-100, 1e100];
    and the log of the mixture's wealth, their mean."""
    wealth = [value * (1.0 + stake * x) for value, stake in zip(wealth, STAKES)]
    top = max(wealth)
    if not 1e-100 < top < 1e100:
        scale += math.log(top)
        wealth = [value / top for value in wealth]
    return wealth, scale, scale + math.log(sum(wealth) / len(wealth))


def scale(log_value: float) -> float:
    """A log evidence or capital as the number people read (inf beyond a float's range)."""
    return math.exp(log_value) if log_value < 709.0 else math.inf


class Comparisons:
    """Every pair's evidence, fed the deal sets a round at a time (rounds in order), and
    the orders of ``bots`` (the whole field) not yet ruled out at ``confidence``, looked
    at after each round.

    A deal set compares each two bots seated at it. Two deal sets of one round with the
    same other bots O, one with i and one with j, compare i and j too (j in i's place):
    the k-th of i's with O is compared with the k-th of j's. A round's deal sets were
    paired before any was played, so the matching depends on no result, and each of a
    pair's comparisons in a round rests on deal sets none of its others use: the bets
    on them multiply. Across pairs, the comparisons of a round share deal sets, so the
    orders are judged only at round ends, where every pair's evidence is a
    supermartingale of the same rounds. A comparison is never made across a round's
    end: its one half would be known at the look, and its bet no longer fair.

    The gambler against an order bets, each round, on the order's neighbours among the
    bots seated in that round (a Swiss round leaves some out); the seating was fixed
    before the round's games, so the capital stays a supermartingale under the true
    order, for the whole run. :func:`judge` reads any subset of the field from it.
    """

    def __init__(self, bots: Sequence[str], confidence: float) -> None:
        self.names = list(dict.fromkeys(bots))
        self.keep = set(self.names)
        self.index = {bot: number for number, bot in enumerate(self.names)}
        self.confidence = confidence
        self.pairs: dict[tuple[str, str], PairEvidence] = {}
        self.deal_sets = 0
        self.by_orders = len(self.names) <= MAX_ORDERS
        n = len(self.names)
        # The orders not ruled out, a row of bot indices each, and the log of the capital
        # of the gambler betting against each.
        self.orders = np.array(list(permutations(range(n))) if self.by_orders else [],
                               dtype=np.intp).reshape(-1, n)
        self.capital = np.zeros(len(self.orders))

    @property
    def open(self) -> list[tuple[str, ...]]:
        """The orders not ruled out, by name."""
        return [tuple(self.names[bot] for bot in row) for row in self.orders.tolist()]

    @property
    def log_bound(self) -> float:
        """The log of what rules out an order (order by order) or certifies a pair (pair
        by pair): 2 / (1 − c) and n(n − 1) / (1 − c), the error split between the two
        one-sided nulls of each pair, both true of two exactly equal bots."""
        n = len(self.names)
        count = 2 if self.by_orders else n * (n - 1)
        return math.log(max(1, count)) - math.log1p(-self.confidence)

    def add_round(self, sets: Sequence[DealSet]) -> None:
        """One round's deal sets: their comparisons, then the look at the orders."""
        seated = {bot for dealt in sets for bot in dealt.scores if bot in self.keep}
        start = self.log_matrix() if len(self.orders) > 1 else None
        waiting: dict[frozenset[str], dict[str, list[float]]] = {}
        for dealt in sets:
            self._compare(dealt, waiting)
        self.deal_sets += len(sets)
        for pair in self.pairs.values():
            pair.look()
        if start is not None:
            self.look(start, seated)

    def log_matrix(self) -> NDArray[np.float64]:
        """Per two bots of the field (i, j), the log of the evidence now that i does
        better than j (0 for two never compared)."""
        logs = np.zeros((len(self.names), len(self.names)))
        for pair in self.pairs.values():
            a, b = self.index[pair.a], self.index[pair.b]
            logs[a, b], logs[b, a] = pair.log_a, pair.log_b
        return logs

    def chains(self, bots: Collection[str]) -> NDArray[np.intp]:
        """Each open order's ``bots``, in its order: a row each."""
        if not len(self.orders):
            return self.orders
        # Membership by indexing a mask with the orders (np.isin's set machinery costs
        # more than the look itself on a field's few bots, at every round of a run).
        seated = np.zeros(len(self.names), dtype=bool)
        seated[[self.index[bot] for bot in bots]] = True
        return self.orders[seated[self.orders]].reshape(len(self.orders), -1)

    def look(self, start: NDArray[np.float64], seated: Collection[str]) -> None:
        """A round's end: each open order's capital grows by its bets of the round, and
        the orders whose capital reached :attr:`log_bound` are ruled out.

        ``start``: :meth:`log_matrix` at the round's start. The capital was bet on the
        order's neighbours among the ``seated`` bots in shares fixed then, each ∝ (the
        evidence against the order there)^REALLOCATION, and a share grows as that
        evidence did over the round. Under the order each evidence is a
        supermartingale, so each growth has mean at most 1 given the rounds before, and
        so has the capital's."""
        chains = self.chains(seated)
        if chains.shape[1] > 1:
            upper, lower = chains[:, :-1], chains[:, 1:]
            begin = start[lower, upper]
            shares = REALLOCATION * (begin - begin.max(axis=1, keepdims=True))
            grown = shares + self.log_matrix()[lower, upper] - begin
            self.capital += log_sum_exp(grown) - log_sum_exp(shares)
        kept = self.capital < self.log_bound
        self.orders, self.capital = self.orders[kept], self.capital[kept]

    def _compare(self, dealt: DealSet, waiting: dict[frozenset[str], dict[str, list[float]]]
                 ) -> None:
        seated = sorted(bot for bot in dealt.scores if bot in self.keep)
        scores, n = dealt.scores, dealt.seats
        for a, b in combinations(seated, 2):
            self._pair(a, b).add((scores[a] - scores[b]) / n, SHARED)
        for bot in seated:
            lists = waiting.setdefault(frozenset(dealt.scores) - {bot}, {})
            mine = lists.setdefault(bot, [])
            mine.append(scores[bot])
            for other, theirs in lists.items():
                if other != bot and len(theirs) >= len(mine):
                    x = (mine[-1] - theirs[len(mine) - 1]) / n
                    a, b = sorted((bot, other))
                    self._pair(a, b).add(x if a == bot else -x, SUBSTITUTED)

    def pair(self, one: str, other: str) -> PairEvidence | None:
        """The evidence between two bots (None: never compared)."""
        return self.pairs.get((min(one, other), max(one, other)))

    def _pair(self, a: str, b: str) -> PairEvidence:
        pair = self.pairs.get((a, b))
        if pair is None:
            pair = self.pairs[a, b] = PairEvidence(a, b)
        return pair


def log_sum_exp(rows: NDArray[np.float64]) -> NDArray[np.float64]:
    """log(Σ exp) of each row, without leaving a float's range."""
    top = rows.max(axis=1, keepdims=True)
    sums: NDArray[np.float64] = top[:, 0] + np.log(np.exp(rows - top).sum(axis=1))
    return sums


@dataclass(frozen=True)
class Verdict:
    """What the deal sets say of a field's order at a confidence."""

    order: list[str]                  # certified, best first; else the likeliest order
    certified: bool
    confidence: float
    deal_sets: int
    # What rules an order out (order by order: the capital against it) or certifies a
    # pair (pair by pair: its evidence).
    needed: float
    open_orders: int                  # orders not ruled out (0: judged pair by pair)
    # Per neighbour pair of ``order``: (upper, lower, evidence, comparisons); pair by
    # pair the evidence is its highest at a round's end, what must reach ``needed``.
    neighbours: list[tuple[str, str, float, int]]
    # Order by order, uncertified: the other order nearest to standing (the least
    # capital against it of those not ruled out), and that capital.
    rival: tuple[list[str], float] | None = None
    pair_by_pair: bool = False

    def weakest(self) -> tuple[str, str, float, int] | None:
        """The neighbour pair told apart least surely."""
        return min(self.neighbours, key=lambda item: (item[2], item[3]), default=None)

    def line(self) -> str:
        """One line: the order and what it rests on, or what holds it back."""
        rests = f"{self.deal_sets} deal set(s) at {self.confidence:g}, anytime-valid"
        if self.certified:
            return f"{' > '.join(self.order)} on {rests}"
        if not self.deal_sets:
            return f"no deal set compares the bots yet ({rests})"
        if self.rival is not None:
            rival, capital = self.rival
            return (f"{' > '.join(rival)} is not ruled out: the evidence against it is "
                    f"{capital:.3g} of the {self.needed:.4g} that rules an order out "
                    f"({self.open_orders} orders still possible; {rests})")
        if not self.pair_by_pair and not self.open_orders:
            return (f"every order is ruled out, as happens to bots of exactly equal strength "
                    f"({rests})")
        weakest = self.weakest()
        if weakest is None:
            return f"no deal set compares the bots yet ({rests})"
        upper, lower, evidence, compared = weakest
        return (f"{upper} is above {lower} with evidence {evidence:.3g} only from {compared} "
                f"comparison(s) (needs {self.needed:.4g}; {rests})")


def verdict(sets: Iterable[DealSet], bots: Sequence[str], confidence: float) -> Verdict:
    """Whether the deal sets (in group order) certify an order of ``bots`` at
    ``confidence``."""
    comparisons = Comparisons(bots, confidence)
    for batch in by_round(sets):
        comparisons.add_round(batch)
    return judge(comparisons)


def judge(comparisons: Comparisons, bots: Sequence[str] | None = None) -> Verdict:
    """The verdict of the comparisons so far on ``bots`` (default: every bot of the
    field): the one order of them that every order of the field not ruled out puts them
    in (order by order), or each bot's best evidence over the next down at the bound
    (pair by pair). Uncertified, the order shown is the likeliest
    (:func:`likeliest_order`), which names the neighbours still to be told apart."""
    names = list(dict.fromkeys(bots)) if bots is not None else comparisons.names
    needed = scale(comparisons.log_bound)
    capital = orders_of(comparisons, names) if comparisons.by_orders else {}
    if comparisons.by_orders:
        chain = list(next(iter(capital))) if len(capital) == 1 else None
    else:
        chain = certified_chain(names, comparisons.pairs, comparisons.log_bound)
    order = chain if chain is not None else likeliest_order(names, comparisons.pairs)
    others = [(log, other) for other, log in capital.items() if list(other) != order]
    rival = None
    if chain is None and others:
        log, other = min(others)
        rival = (list(other), scale(log))
    neighbours = []
    for upper, lower in zip(order, order[1:]):
        pair = comparisons.pair(upper, lower)
        log = 0.0 if pair is None else pair.log_evidence(upper) if comparisons.by_orders \
            else pair.log_best(upper)
        neighbours.append((upper, lower, scale(log), pair.comparisons if pair else 0))
    return Verdict(order, chain is not None, comparisons.confidence, comparisons.deal_sets,
                   needed, len(capital), neighbours, rival, not comparisons.by_orders)


def orders_of(comparisons: Comparisons, bots: Sequence[str]) -> dict[tuple[str, ...], float]:
    """The orders of ``bots`` (a subset of the field) not ruled out: those in which some
    open order of the field puts them, each with the least log capital against such an
    order (each must be ruled out before it is)."""
    capital: dict[tuple[str, ...], float] = {}
    for row, log in zip(comparisons.chains(bots).tolist(), comparisons.capital.tolist()):
        mine = tuple(comparisons.names[bot] for bot in row)
        capital[mine] = min(capital.get(mine, math.inf), log)
    return capital


def certified_chain(names: Sequence[str], pairs: Mapping[tuple[str, str], PairEvidence],
                    log_needed: float) -> list[str] | None:
    """The order in which each bot's best evidence over the next reached ``log_needed``
    (a log), if the pairs that reached it make one through every bot (a Hamiltonian
    path of their graph: in a graph without cycles there is at most one, its sources
    one at a time)."""
    kept = set(names)
    above: dict[str, set[str]] = {bot: set() for bot in names}
    for pair in pairs.values():
        if pair.a not in kept or pair.b not in kept:
            continue
        for upper, lower in ((pair.a, pair.b), (pair.b, pair.a)):
            if pair.log_best(upper) >= log_needed:
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
    """The bots by the sum of their mean margins over the others they were compared
    with, best first, ties by name."""
    margin = {bot: 0.0 for bot in names}
    for pair in pairs.values():
        if pair.a in margin and pair.b in margin:
            margin[pair.a] += pair.mean(pair.a)
            margin[pair.b] += pair.mean(pair.b)
    return sorted(names, key=lambda bot: (-margin[bot], bot))


class Judge:
    """The verdict carried on round by round, as a tournament is played or replayed:
    games are added as they come, and each verdict feeds the deal sets completed since
    the last one to the same comparisons while the field and the confidence stay the
    same (else every deal set so far to new ones), so a long tournament's verdicts
    after every round cost its games once, not once a round. The comparisons are of the
    whole field whichever bots a verdict judges (a Swiss round's absentees are left
    out), so the error it allows holds for the run, not for each set of bots judged."""

    def __init__(self) -> None:
        self.deals = DealSets()
        self.taken: list[DealSet] = []
        self.key: tuple[tuple[str, ...], float] | None = None
        self.comparisons: Comparisons | None = None

    def add_outcome(self, outcome: Outcome) -> None:
        self.deals.add_outcome(outcome)

    def verdict(self, bots: Sequence[str], confidence: float,
                field: Sequence[str] | None = None) -> Verdict:
        """The verdict on ``bots`` (of the bots of ``field``, default ``bots``) at a
        round's end (every game of the rounds played in)."""
        new = self.deals.take_complete()
        self.taken += new
        key = (tuple(field if field is not None else bots), confidence)
        if self.comparisons is None or key != self.key:
            self.key, self.comparisons, new = key, Comparisons(key[0], confidence), self.taken
        for batch in by_round(new):
            self.comparisons.add_round(batch)
        return judge(self.comparisons, bots)


def stop_reason(found: Verdict, games: Mapping[str, int], min_games: int = 0) -> str | None:
    """Why ``stop: settled`` does not fire, in words, or None when it does: the bots short
    of ``min_games`` rated games, else what the verdict lacks."""
    short = [bot for bot in found.order if games.get(bot, 0) < min_games]
    if short:
        fewest = min(short, key=lambda bot: (games.get(bot, 0), bot))
        return (f"{len(short)} bot(s) short of {min_games} rated games ({fewest} has "
                f"{games.get(fewest, 0)})")
    return None if found.certified else found.line()
