"""Playing the ladder's matches: each a tournament run by the runner, then marked over.

A match's tournament is run (or resumed: the runner plays only its games not stored)
on the store, several at once each on a connection of its own; then the match is marked
played, with its validation's verdict if it is one, or failed when it could not be
played. Marking happens once, after every game is stored: a match is rated from then.
"""

from __future__ import annotations

import io
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.ladder_store import LadderStore, MatchKind, MatchStatus, StoredMatch
from tournaments.config import ConfigError, parse_config
from tournaments.executor import KeptThreads
from tournaments.runner import TournamentError, TournamentRunner
from tournaments.store import Store

#: Runs of a match with games stored that may fail before it is given up.
MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class LadderMatch:
    """A match played: its number (the order it is rated in), its tournament's name in
    the store, its seats' versions, how many games it stored, and what it decided."""

    number: int
    kind: MatchKind
    tournament: str
    field: tuple[str, ...]
    games: int
    status: MatchStatus
    note: str


class MatchThreads:
    """The threads of one match at a time (:class:`tournaments.executor.KeptThreads`),
    kept from match to match; made again when a match asks for another concurrency."""

    def __init__(self) -> None:
        self.kept: KeptThreads | None = None
        self.size = 0

    def of(self, concurrency: int) -> KeptThreads:
        if self.kept is None or self.size != concurrency:
            self.close()
            self.kept = KeptThreads.made(concurrency)
            self.size = concurrency
        return self.kept

    def close(self) -> None:
        if self.kept is not None:
            self.kept.close()
            self.kept = None


class MatchPlayer:
    """Plays stored matches on ``store`` (``logs``: the bots' logs, a folder a match)."""

    def __init__(self, store: Store, records: LadderStore, logs: Path) -> None:
        self.store = store
        self.records = records
        self.logs = logs
        # The threads of each match of a batch, by its place in the batch.
        self.kept: list[MatchThreads] = []

    def close(self) -> None:
        for kept in self.kept:
            kept.close()

    def play(self, matches: list[StoredMatch]) -> list[LadderMatch]:
        """Play (or resume) the matches' tournaments at once, each on its own connection
        to the store, and mark each finished; the first error is raised once every other
        match is marked."""
        if len(matches) == 1:
            return [self.settle(matches[0], self.run(matches[0], self.store))]
        with futures.ThreadPoolExecutor(len(matches)) as pool:
            runs = [pool.submit(self._run_apart, match, place)
                    for place, match in enumerate(matches)]
        settled: list[LadderMatch] = []
        raised: list[BaseException] = []
        for match, run in zip(matches, runs):
            try:
                settled.append(self.settle(match, run.result()))
            except BaseException as error:   # an interrupt too: the others still count
                raised.append(error)
        if raised:
            raise raised[0]
        return settled

    def _run_apart(self, match: StoredMatch, place: int
                   ) -> ConfigError | TournamentError | None:
        """Run a match on a connection of its own (a connection holds one transaction
        at a time, and each game is stored in one)."""
        store = Store(self.store.path)
        try:
            return self.run(match, store, place)
        finally:
            store.close()

    def run(self, match: StoredMatch, store: Store, place: int = 0
            ) -> ConfigError | TournamentError | None:
        """Run a match's tournament (resumed: the runner plays only its games not stored)
        on the threads kept for its ``place`` in its batch; the reason it could not, if
        so."""
        while len(self.kept) <= place:
            self.kept.append(MatchThreads())
        return run_match(match.config, match.tournament, store, self.logs, self.kept[place])

    def settle(self, match: StoredMatch, error: ConfigError | TournamentError | None
                ) -> LadderMatch:
        """Mark a match played, or failed. One that failed with games stored is left to be
        resumed at the next call (the cluster or the store may be back), until it failed
        MAX_ATTEMPTS times; then, as a match that could not start, it is over unrated
        (its games stay stored)."""
        if error is None:
            return self._finish(match, MatchStatus.PLAYED, "")
        if self.store.done_indices(match.tournament) and \
                self.records.failed_attempt(match.number) < MAX_ATTEMPTS:
            raise error
        return self._finish(match, MatchStatus.FAILED, str(error))

    def _finish(self, match: StoredMatch, status: MatchStatus, note: str) -> LadderMatch:
        games = len(self.store.done_indices(match.tournament))
        validated = None
        if match.kind is MatchKind.VALIDATION:
            validated = (match.field[0], self._validation(match, note))
            note = validated[1]
        if self.records.finish_match(match.number, status, games, note, validated):
            return LadderMatch(match.number, match.kind, match.tournament, match.field, games,
                               status, note)
        finished = self.records.match(match.number)   # as marked before
        assert finished is not None
        return ladder_match(finished)

    def _validation(self, match: StoredMatch, failure: str) -> str:
        """"passed" when every game against its copies ended without a fault."""
        if failure:
            return f"failed: {failure}"
        faults = list(self.store.faults(match.tournament))
        if faults:
            first = faults[0]
            return (f"failed: {len(faults)} fault(s), the first {first['class']} in game "
                    f"{first['game_id']}: {first['detail']}")
        return "passed"


def run_match(config: dict[str, Any], tournament: str, store: Store, logs: Path,
              kept: MatchThreads | None = None) -> ConfigError | TournamentError | None:
    """Run a match's tournament from its config (resumed: the runner plays only its games
    not stored), its bots' logs in ``logs/TOURNAMENT``, its games on ``kept`` threads if
    given; the reason it could not, if so."""
    try:
        parsed = parse_config(config)
        # No bot sees the logs (every entrant's) nor the store: the runner hides them.
        TournamentRunner(parsed, store, logs / tournament, out=io.StringIO(), quiet=True,
                         private=(logs,),
                         threads=None if kept is None else kept.of(parsed.concurrency)).run()
    except (ConfigError, TournamentError) as error:
        return error
    return None


def ladder_match(match: StoredMatch) -> LadderMatch:
    """A finished match as the service sees it."""
    assert match.status is not None
    return LadderMatch(match.number, match.kind, match.tournament, match.field, match.games,
                       match.status, match.note)
