"""The ladder's ratings: every rated match's games folded in match order, then game order.

Rated are the ladder and promotion matches that were played (a validation is against
copies of oneself, the finals are a tournament of their own). The fold is carried on in
memory as matches finish and rebuilt from the store after a restart: it reads a match
only once it is marked finished, and each finished match once, so no game is ever rated
twice, whatever was killed when. With ``new_rating: inherit`` a version's first game
starts from its parent's mu (its entrant's version seen before it) at that moment, with
the starting sigma.
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping

import trueskill

from arena.ladder_settings import LadderSettings
from arena.ladder_store import LadderStore, MatchKind, MatchStatus, StoredVersion
from circus_outcomes import GameStatus
from ratings.board import Fold
from ratings.trueskill_ratings import Outcome
from ratings.verdict import Judge, Verdict
from tournaments.store import Store

RATED = (MatchKind.LADDER, MatchKind.PROMOTION)


class LadderFold:
    """Ratings, counts and the deal sets' evidence of the finished rated matches."""

    def __init__(self, settings: LadderSettings) -> None:
        self.settings = settings
        self.fold = Fold(settings.rating)
        self.judge = Judge()
        # The last match folded, and the number of games and deals folded so far.
        self.last = 0
        self.index = 0
        self.groups = 0
        # Ladder matches per version (the placement series counts them).
        self.matches: Counter[str] = Counter()
        self.versions: Mapping[str, StoredVersion] = {}

    def update(self, store: Store, records: LadderStore,
               versions: Mapping[str, StoredVersion]) -> None:
        """Fold the matches finished since, in order, up to the first one unfinished."""
        self.versions = versions
        for match in records.finished(self.last):
            self.last = match.number
            if match.kind not in RATED or match.status is not MatchStatus.PLAYED:
                continue
            groups: dict[int | None, int] = {}
            for game in store.results(match.tournament):
                if game.group_index not in groups:
                    self.groups += 1
                    groups[game.group_index] = self.groups
                self._inherit(game.seats, versions)
                outcome = Outcome(self.index, tuple(game.seats), tuple(game.ranks),
                                  game.status != GameStatus.VOID, tuple(game.scores), game.id,
                                  groups[game.group_index], match.number)
                self.fold.add(outcome)
                self.judge.add_outcome(outcome)
                self.index += 1
            if match.kind is MatchKind.LADDER:
                self.matches.update(set(match.field))

    def _inherit(self, seats: list[str], versions: Mapping[str, StoredVersion]) -> None:
        """A version's first rating from its parent's mu, when the settings say so."""
        rater = self.fold.rater
        for bot in seats:
            prior = self._prior(bot, versions)
            if bot not in rater.made_from and prior is not None:
                rater.made_from[bot] = prior
                rater.ratings[bot] = trueskill.Rating(*prior)

    def _prior(self, bot: str, versions: Mapping[str, StoredVersion]
               ) -> tuple[float, float] | None:
        """An unrated version's inherited start, if it has one."""
        known, made_from = versions.get(bot), self.fold.rater.made_from
        if self.settings.new_rating != "inherit" or known is None or \
                known.parent is None or known.parent not in made_from:
            return None
        return made_from[known.parent][0], self.settings.rating.sigma

    def rating(self, bot: str) -> tuple[float, float]:
        """A bot's (mu, sigma) now; an unrated version's start."""
        if bot not in self.fold.rater.made_from:
            prior = self._prior(bot, self.versions)
            if prior is not None:
                return prior
        rating = self.fold.rater.rating(bot)
        return rating.mu, rating.sigma

    def games(self, bot: str) -> int:
        counts = self.fold.tally.counts.get(bot)
        return 0 if counts is None else int(counts[0])

    def verdict(self, bots: list[str], confidence: float) -> Verdict:
        """The deal sets' verdict on ``bots``' order (each match one round)."""
        return self.judge.verdict(bots, confidence)
