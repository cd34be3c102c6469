"""Test matches: an entrant's unrated match of one of its versions against opponents it
chooses, played beside the ladder and never rated.

An opponent is a version that passed its gate and is not disqualified (any entrant's,
by its name) or a baseline bot the ladder's leagues use as a boss (by the boss's name).
The match is a small tournament as a ladder match is (:mod:`arena.matches`): a gauntlet
of the entrant's version against the opponents (copies of them in seats left over),
each deal in every seat rotation, as many deals as fit the arena's
``test_match_games``, at the ladder matches' clock and sandbox. Its tournament is named
``LADDER-tNNNNNN``, not as a ladder match is, so neither the board nor the ratings ever
take its games.

The queue is the store's: a request is kept before it is answered, and a match that a
stop interrupted is resumed when the service starts again (the runner plays only its
games not stored). The ladder's thread plays them, alternating: after each of the
ladder's batches, one test match; so the ladder never waits for more than one test
match, nor a test match for more than one batch. A paused ladder plays neither.
"""

from __future__ import annotations

import logging
import math
import secrets
import threading
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from arena.config import ArenaConfig
from arena.ladder import path_outside
from arena.ladder_settings import ladder_settings, match_data
from arena.matches import run_match
from arena.store import ArenaStore, Entrant, GateState, UnratedMatch, UnratedState, Version
from tournaments.config import ConfigError, parse_config
from tournaments.store import Store, StoredGame

LOG = logging.getLogger(__name__)


#: What the asker is told of a match that could not be played: its reason may quote any
#: of its bots (a start error holds the end of the bot's log), so only the service's log
#: holds it.
UNPLAYED = ("not played: a bot did not start, or the match failed; the reason, which may "
            "quote another entrant's bot, is in the service's log")


class UnratedRefused(ConfigError):
    """A test match that was not queued (its version, its opponents or its entrant's
    limits refused it), and why, in one line."""


class UnratedLimit(UnratedRefused):
    """Over the entrant's test matches an hour, or one of theirs is queued already."""


@dataclass(frozen=True)
class Result:
    """A bot's part in a test match: its games, its total score and its mean rank."""

    name: str
    games: int
    score: float
    rank: float


def playable(version: Version) -> bool:
    """Whether a version may play: it passed its gate and is not disqualified."""
    return version.state == GateState.PASSED and not version.disqualified


def results(games: Sequence[StoredGame]) -> list[Result]:
    """Each bot's games, total score and mean rank over ``games``, best mean rank first."""
    seen: dict[str, list[tuple[float, int]]] = {}
    for game in games:
        for seat, score, rank in zip(game.seats, game.scores, game.ranks):
            seen.setdefault(seat, []).append((score, rank))
    found = [Result(name, len(rows), sum(score for score, _ in rows),
                    sum(rank for _, rank in rows) / len(rows)) for name, rows in seen.items()]
    return sorted(found, key=lambda result: (result.rank, -result.score, result.name))


class UnratedMatches:
    """The entrants' test matches: asked for, queued in the store, played one at a time.
    ``finished`` is called after each one is played."""

    def __init__(self, config: ArenaConfig, store: ArenaStore,
                 finished: Callable[[], None]) -> None:
        self.config = config
        self.store = store
        self.finished = finished
        self.settings = ladder_settings(config.ladder)
        # One request is checked and queued at a time: the limits hold for two at once.
        self.lock = threading.Lock()

    def baselines(self) -> dict[str, dict[str, Any]]:
        """The bots.yaml entries of the leagues' bosses, by their names."""
        return {league.boss_name: league.boss for league in self.settings.leagues}

    def opponents(self) -> list[str]:
        """What an entrant may choose to play: every version that may play, the
        baselines after."""
        return [version.id for version in self.store.versions() if playable(version)] + \
            list(self.baselines())

    def request(self, entrant: Entrant, version: str, opponents: Sequence[str]
                ) -> UnratedMatch:
        """Queue a test match of the entrant's ``version`` against ``opponents``; an
        :class:`UnratedRefused` saying why not."""
        mine = self.store.version(version)
        if mine is None or mine.entrant != entrant.name:
            raise UnratedRefused(f"{version!r} is not a version of yours")
        if mine.disqualified:
            raise UnratedRefused(f"{mine.id} is disqualified")
        if not playable(mine):
            raise UnratedRefused(f"{mine.id} has not passed its gate (it is {mine.state})")
        # Too many opponents are refused before any is looked up.
        deals = self._deals(max(len(opponents) + 1, self.settings.players))
        bots = self._bots(mine, opponents)
        with self.lock:
            if any(match.state == UnratedState.QUEUED
                   for match in self.store.unrated_matches(entrant.name)):
                raise UnratedLimit("a test match of yours is queued already: ask again once "
                                   "it is played")
            if self.store.unrated_since(entrant.name, 1) >= self.config.test_matches_per_hour:
                raise UnratedLimit(f"more than {self.config.test_matches_per_hour} test "
                                   "matches in an hour: try again later")
            return self.store.add_unrated(
                entrant.name, mine.id, list(opponents), self.config.test_match_prefix,
                lambda name: self._config(name, mine.id, bots, deals))

    def _bots(self, mine: Version, opponents: Sequence[str]) -> list[dict[str, Any]]:
        """The match's bots: the entrant's version first, each opponent, then copies of
        the opponents in the seats left."""
        if not opponents:
            raise UnratedRefused("choose at least one opponent")
        if len(set(opponents)) != len(opponents) or mine.id in opponents:
            raise UnratedRefused("name each opponent once, and not the version you test")
        bots = [self._entry(mine), *(self._opponent(name) for name in opponents)]
        for seat in range(len(bots), self.settings.players):
            copied = bots[1 + (seat - 1) % len(opponents)]
            bots.append({**copied, "name": f"{copied['name']}-copy{seat + 1}"})
        return bots

    def _opponent(self, name: str) -> dict[str, Any]:
        baselines = self.baselines()
        if name in baselines:
            return {**baselines[name], "name": name}
        version = self.store.version(name)
        if version is None or not playable(version):
            raise UnratedRefused(
                f"no opponent {name!r}: choose a version that passed its gate"
                + (f", or a baseline: {', '.join(baselines)}" if baselines else ""))
        return self._entry(version)

    @staticmethod
    def _entry(version: Version) -> dict[str, Any]:
        entry = {**version.entry, "name": version.id}
        outside = path_outside(entry)
        if outside is not None:
            raise UnratedRefused(f"{version.id} may not play: its command names a path "
                                 "outside its folder")
        return entry

    def _deals(self, bots: int) -> int:
        """As many deals as fit the arena's games a test match, each deal played at every
        table of the gauntlet in every seat rotation."""
        players = self.settings.players
        per_deal = players * math.comb(bots - 1, players - 1)
        deals = self.config.test_match_games // per_deal
        if deals < 1:
            raise UnratedRefused(f"{bots - 1} opponents make {per_deal} games a deal, over "
                                 f"the arena's {self.config.test_match_games} a test match: "
                                 "choose fewer")
        return deals

    def _config(self, name: str, challenger: str, bots: list[dict[str, Any]],
                deals: int) -> dict[str, Any]:
        """The match's tournament config, its deals from a fresh secret seed (none of the
        ladder's deals)."""
        data = {**match_data(self.settings, name, bots, secrets.randbits(62), deals),
                "format": "gauntlet", "challenger": challenger}
        try:
            parse_config(data)
        except ConfigError as error:
            raise UnratedRefused(f"this match cannot be played: {error}") from None
        return data

    def play_next(self) -> bool:
        """Play (or resume) the oldest queued test match and keep how it ended; whether
        there was one."""
        queue = self.store.unrated_queue()
        if not queue:
            return False
        match = queue[0]
        try:
            error: Exception | None = self._run(match)
        except Exception as failure:   # noqa: BLE001 - the ladder's thread goes on
            LOG.exception("the test match %s failed", match.tournament)
            error = failure
        else:
            if error is not None:
                LOG.warning("the test match %s was not played: %s", match.tournament, error)
        self.store.finish_unrated(match.number,
                                  UnratedState.PLAYED if error is None else UnratedState.FAILED,
                                  "" if error is None else UNPLAYED)
        self.finished()
        return True

    def _run(self, match: UnratedMatch) -> Exception | None:
        store = Store(self.config.db)
        try:
            return run_match(match.config, match.tournament, store,
                             self.settings.logs_dir(self.config.db))
        finally:
            store.close()
