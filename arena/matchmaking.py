"""Who plays the next ladder match: pure, from the ratings and a seeded random draw.

A version still in its placement series is chosen first (the one with fewest matches);
otherwise a version is drawn with weight sigma² (how much a match would teach), times
``unsettled_weight`` while its sigma is above the settled bound, so new and uncertain
versions play more often. Its opponents are drawn one by one with weight TrueSkill's
match quality against it (the chance of a draw between them: high when their ratings
are close and both are sure), other entrants' versions before its own entrant's. The
draw comes from a ``random.Random`` the ladder seeds from its seed and the match's
number, so the same stored results always give the same match.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Sequence

from ratings.params import RatingConfig


@dataclass(frozen=True)
class Candidate:
    """A version the ladder may seat: its rating and its rated matches so far."""

    version: str
    entrant: str
    mu: float
    sigma: float
    matches: int


def pick_field(candidates: Sequence[Candidate], players: int, rng: random.Random,
               rating: RatingConfig, placement_matches: int, settled_sigma: float,
               unsettled_weight: float) -> list[str] | None:
    """The versions of the next match, the chosen one first; None when fewer candidates
    than seats."""
    if len(candidates) < players:
        return None
    ordered = sorted(candidates, key=lambda candidate: candidate.version)
    placing = [c for c in ordered if c.matches < placement_matches]
    if placing:
        focus = min(placing, key=lambda candidate: candidate.matches)
    else:
        weights = [c.sigma ** 2 * (unsettled_weight if c.sigma > settled_sigma else 1.0)
                   for c in ordered]
        focus = rng.choices(ordered, weights)[0]
    others = [c for c in ordered if c.entrant != focus.entrant]
    own = [c for c in ordered if c.entrant == focus.entrant and c is not focus]
    field = [focus.version]
    for pool in (others, own):
        while pool and len(field) < players:
            weights = [quality(focus, c, rating.beta) for c in pool]
            chosen = rng.choices(pool, weights)[0]
            pool.remove(chosen)
            field.append(chosen.version)
    return field


def quality(one: Candidate, other: Candidate, beta: float) -> float:
    """TrueSkill's match quality of two players, ``trueskill.quality_1vs1``, in its
    closed form: the package's builds and inverts matrices, a third of a millisecond a
    pair, which at a hundred versions was a quarter of the ladder's time between games."""
    spread = 2 * beta ** 2 + one.sigma ** 2 + other.sigma ** 2
    return math.sqrt(2 * beta ** 2 / spread) * math.exp(-(one.mu - other.mu) ** 2 / (2 * spread))
