"""TrueSkill ratings from game outcomes, and the leaderboard built on them.

Ratings are computed in schedule order (game index), never in finish order,
so the same games always give the same ratings whatever the concurrency.
The TrueSkill environment is the project's own object, made from the
tournament's ``rating:`` parameters, never the package's global one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import trueskill

from tournaments.config import RatingConfig


@dataclass(frozen=True)
class Outcome:
    """What the ratings need of one game."""

    index: int
    seats: tuple[str, ...]
    ranks: tuple[int, ...]
    rated: bool = True


def environment(params: RatingConfig) -> trueskill.TrueSkill:
    return trueskill.TrueSkill(mu=params.mu, sigma=params.sigma, beta=params.beta,
                               tau=params.tau, draw_probability=params.draw_probability)


@dataclass
class Rater:
    """Folds outcomes, in order, into a rating per bot."""

    params: RatingConfig = field(default_factory=RatingConfig)

    def __post_init__(self) -> None:
        self.env = environment(self.params)
        self.ratings: dict[str, trueskill.Rating] = {}

    def rating(self, bot: str) -> trueskill.Rating:
        return self.ratings.get(bot) or self.env.create_rating()

    def add(self, outcome: Outcome) -> None:
        """Update the seated bots' ratings from one game (ties: equal ranks)."""
        if not outcome.rated:
            return
        groups = [(self.rating(bot),) for bot in outcome.seats]
        updated = self.env.rate(groups, ranks=list(outcome.ranks))
        for bot, (rating,) in zip(outcome.seats, updated):
            self.ratings[bot] = rating


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


def leaderboard(outcomes: Iterable[Outcome], bots: Iterable[str],
                params: RatingConfig | None = None) -> list[Row]:
    """One row per bot, best first by conservative rating (mu − 3·sigma).

    A shared first place counts as a win. Unrated (void) games count for
    neither games nor wins.
    """
    rater = Rater(params or RatingConfig())
    games: dict[str, int] = dict.fromkeys(bots, 0)
    wins = dict.fromkeys(games, 0)
    places: dict[str, list[int]] = {bot: [] for bot in games}
    for outcome in sorted(outcomes, key=lambda o: o.index):
        rater.add(outcome)
        if not outcome.rated:
            continue
        for bot, rank in zip(outcome.seats, outcome.ranks):
            games[bot] = games.get(bot, 0) + 1
            wins[bot] = wins.get(bot, 0) + (rank == 1)
            places.setdefault(bot, []).append(rank)
    unsorted = []
    for bot in games:
        rating = rater.rating(bot)
        played = games[bot]
        unsorted.append((bot, rating.mu, rating.sigma, rating.mu - 3 * rating.sigma, played,
                         wins[bot], wins[bot] / played if played else 0.0,
                         sum(places[bot]) / played if played else 0.0))
    unsorted.sort(key=lambda row: (-row[3], row[0]))
    return [Row(rank, *values) for rank, values in enumerate(unsorted, 1)]
