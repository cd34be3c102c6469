"""TrueSkill ratings from game outcomes, folded in schedule order.

Ratings are computed in schedule order (game index), never in finish order,
so the same games always give the same ratings whatever the concurrency.
The TrueSkill environment is the project's own object, made from the
tournament's ``rating:`` parameters, never the package's global one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import trueskill

from ratings.fast_trueskill import FastTrueSkill
from ratings.params import RatingConfig

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Outcome:
    """What the ratings need of one game."""

    index: int
    seats: tuple[str, ...]
    ranks: tuple[int, ...]
    rated: bool = True
    scores: tuple[int, ...] = ()
    game_id: int | None = None
    # The schedule's group (its deal set: one deal at one table in every rotation);
    # None: a game of its own (the bootstrap and the verdict then take it alone).
    group: int | None = None
    # The round the game was paired in (the verdict compares deal sets of one round).
    round: int | None = None


def environment(params: RatingConfig) -> trueskill.TrueSkill:
    return trueskill.TrueSkill(mu=params.mu, sigma=params.sigma, beta=params.beta,
                               tau=params.tau, draw_probability=params.draw_probability)


@dataclass
class Rater:
    """Folds outcomes, in order, into a rating per bot.

    The updates are the trueskill package's ``TrueSkill.rate``, computed by its
    float-for-float replica (:class:`ratings.fast_trueskill.FastTrueSkill`, 10–25×
    faster, the same bits: tested against the package on random logs).
    """

    params: RatingConfig = field(default_factory=RatingConfig)

    def __post_init__(self) -> None:
        self.env = environment(self.params)
        self.engine = FastTrueSkill(self.params)
        self.ratings: dict[str, trueskill.Rating] = {}
        # The (mu, sigma) each bot's Rating was made from: the next update's input.
        self.made_from: dict[str, tuple[float, float]] = {}

    def rating(self, bot: str) -> trueskill.Rating:
        return self.ratings.get(bot) or self.env.create_rating()

    def add(self, outcome: Outcome) -> None:
        """Update the seated bots' ratings from one game (ties: equal ranks).

        The players go to the package in a canonical order, (rank, name), not in
        seat order: with ties the package's result depends slightly on the order
        of the tied players, and a rating must not depend on where bots sat.
        """
        if not outcome.rated:
            return
        seats, ranks = canonical(outcome.seats, outcome.ranks)
        prior = (self.env.mu, self.env.sigma)
        updated = self.engine.rate([self.made_from.get(bot, prior) for bot in seats], ranks)
        for bot, made_from in zip(seats, updated):
            self.made_from[bot] = made_from
            self.ratings[bot] = trueskill.Rating(*made_from)


def canonical(seats: tuple[str, ...], ranks: tuple[int, ...]
              ) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Seats and ranks sorted by (rank, bot name): the order ratings are computed in.

    Keys compared directly: a long log's leaderboard calls this once per game."""
    if len(seats) == 2:
        if (ranks[1], seats[1]) < (ranks[0], seats[0]):
            return (seats[1], seats[0]), (ranks[1], ranks[0])
        return tuple(seats), tuple(ranks)
    keyed = sorted(zip(ranks, seats, range(len(seats))))
    return tuple(seat for _, seat, _ in keyed), tuple(rank for rank, _, _ in keyed)


@dataclass(frozen=True)
class Row:
    rank: int
    bot: str
    mu: float
    sigma: float
    conservative: float
    games: int
    wins: int
    win_rate: float
    mean_place: float
    # Filled in by ratings.board.build_board (the full leaderboard):
    rank_low: int = 0
    rank_high: int = 0
    provisional: bool = False
    norm_score: float = 0.0
    ties: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    boot_low: float = 0.0
    boot_high: float = 0.0
    boot_sd: float = 0.0

    @property
    def interval(self) -> float:
        """Half-width of the 95% interval of mu: 1.96 × the larger of sigma and the
        bootstrap's standard deviation of mu (0 without resampling)."""
        return Z95 * max(self.sigma, self.boot_sd)
