"""What a run shows and counts as its games end: the progress lines, the ratings folded in
schedule order (the live leaderboard, the stop rule's input), and the faults tallied."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, TextIO

from circus_outcomes import FaultClass
from ratings.board import Fold
from ratings.params import RatingConfig
from ratings.trueskill_ratings import Outcome
from ratings.verdict import Judge
from referee.match import MatchResult


class Progress:
    """Status lines from one thread: done/total, games per second, ETA, and the leaders.

    A progress line at most every ``every`` seconds, the current top of the
    leaderboard every ``leaders_every`` seconds, and both at the end.
    """

    def __init__(self, total: int, done: int, out: TextIO, quiet: bool,
                 every: float = 2.0, leaders_every: float = 15.0,
                 note: Callable[[], str] | None = None,
                 workers: Callable[[], int] | None = None) -> None:
        self.total, self.done, self.started_with = total, done, done
        # Played round by round: the round being played (from 1), and how many there are.
        self.round: int | None = None
        self.rounds = 0
        # More for the progress line: an A/B test's live LLR.
        self.note = note
        # On a cluster: how many workers are playing.
        self.workers = workers
        self.out, self.quiet = out, quiet
        self.every, self.leaders_every = every, leaders_every
        self.start = time.monotonic()
        self.last_line = self.last_leaders = self.start

    def line(self) -> str:
        elapsed = time.monotonic() - self.start
        played = self.done - self.started_with
        rate = played / elapsed if elapsed > 0 else 0.0
        left = self.total - self.done
        eta = f"{left / rate:,.0f}s" if rate > 0 else "?"
        where = f"  on {self.workers()} worker(s)" if self.workers is not None else ""
        round_of = f"  round {self.round} of {self.rounds}" if self.round is not None else ""
        note = f"  {self.note()}" if self.note is not None else ""
        return (f"games {self.done}/{self.total} ({100 * self.done / max(self.total, 1):.0f}%)"
                f"{round_of}  {rate:.1f} games/s  ETA {eta}{where}{note}")

    def advance(self, leaders: Callable[[], str]) -> None:
        self.done += 1
        if self.quiet:
            return
        now, finished = time.monotonic(), self.done == self.total
        if finished or now - self.last_line >= self.every or self.done == self.started_with + 1:
            self.last_line = now
            print(self.line(), file=self.out, flush=True)
        if finished or now - self.last_leaders >= self.leaders_every:
            self.last_leaders = now
            print(leaders(), file=self.out, flush=True)


class LiveStandings:
    """Ratings folded in schedule order, as soon as every earlier game is in.

    Games finish out of order under concurrency; holding each back until its
    predecessors are rated keeps the live ratings equal to the final ones.
    """

    def __init__(self, params: RatingConfig, indices: list[int] | None = None) -> None:
        # The ratings and the leaderboard's counts: kept in the store at the end, so
        # the closing leaderboard need not fold the games again.
        self.fold = Fold(params)
        self.rater = self.fold.rater
        # The games by deal set, for the stop rule's verdict.
        self.judge = Judge()
        # The games expected and not yet folded, in schedule order (those folded are
        # dropped: a long tournament's indices are not kept), and how many were folded.
        self.order: deque[int] = deque()
        self.position = 0
        self.waiting: dict[int, Outcome] = {}
        self.expect(indices or [])

    @property
    def games(self) -> dict[str, int]:
        """Rated games per bot, of those folded."""
        return {bot: counts[0] for bot, counts in self.fold.tally.counts.items()}

    def expect(self, indices: list[int]) -> None:
        """Add games to wait for: those of the next rounds, all after the ones expected."""
        self.order.extend(sorted(indices))
        self._fold()

    def add(self, outcome: Outcome) -> None:
        self.waiting[outcome.index] = outcome
        self._fold()

    def _fold(self) -> None:
        while self.order and self.order[0] in self.waiting:
            outcome = self.waiting.pop(self.order.popleft())
            self.fold.add(outcome)
            self.judge.add_outcome(outcome)
            self.position += 1

    def conservative(self) -> dict[str, float]:
        """Every rated bot's mu − 3σ, from the games folded so far."""
        return {bot: rating.mu - 3 * rating.sigma for bot, rating in self.rater.ratings.items()}

    def leaders(self, count: int = 3) -> str:
        ratings = sorted(self.rater.ratings.items(),
                         key=lambda item: (-(item[1].mu - 3 * item[1].sigma), item[0]))
        shown = ", ".join(f"{bot} {rating.mu - 3 * rating.sigma:.1f}"
                          for bot, rating in ratings[:count])
        return f"  leaders after {self.position} games (mu-3σ): {shown or 'none yet'}"


@dataclass
class Tally:
    """Faults per class, and games each suspended bot sat out, of this run."""

    faults: dict[str, int] = field(default_factory=dict)
    sat_out: dict[str, int] = field(default_factory=dict)

    def add(self, result: MatchResult) -> None:
        for fault in result.faults:
            if fault.fault_class == FaultClass.SUSPENDED:
                self.sat_out[fault.bot] = self.sat_out.get(fault.bot, 0) + 1
            else:
                self.faults[fault.fault_class] = self.faults.get(fault.fault_class, 0) + 1
