"""Running a whole tournament: bots up, games played, results stored, bots down.

The schedule says which games exist; this module plays the ones not yet in
the store (so running the same command again resumes), ``concurrency`` at a
time, and writes each as it ends. Ratings are folded in schedule order as
soon as every earlier game is in, so they never depend on finish order.

Rounds are played together, or one after another when a round is paired from
the standings (Swiss) or a rule may stop the tournament at a round's end
(``stop``, an A/B test's SPRT): the pairing and the decision then depend only on
the stored games of the rounds before, so a resume makes the same ones.

With ``cluster`` the games are tasks of a Dask cluster whose workers start
and keep the bots (``tournaments.worker``); this process still decides,
stores and rates everything.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Iterable

from circus_outcomes import FaultClass
from ratings.board import fold_key
from ratings.sprt import SprtResult
from referee.interrupts import signals_as_stop
from referee.match import MatchAbandoned, MatchResult
from tournaments.executor import ClusterLost, DaskExecutor, Executor, ThreadExecutor
from tournaments.run.errors import Interrupted, TournamentError
from tournaments.run.lineup import Lineup
from tournaments.run.live import LiveStandings, Progress, Tally
from tournaments.run.rounds import Rounds
from tournaments.run.setup import SetUp
from tournaments.run.verdicts import Verdicts
from tournaments.schedule import Pairing, round_by_round, segment_blocks
from tournaments.store import StoreError
from tournaments.worker import GameTask, epoch_of, new_match, play_game

#: What callers import from here: the runner, its summary, and how a run ends early.
__all__ = ["Interrupted", "Summary", "TournamentError", "TournamentRunner"]


@dataclass
class Summary:
    name: str
    total: int
    played: int
    already_done: int
    wall_s: float
    # Faults per class of this run; of the whole tournament, every run's.
    faults: dict[str, int] = field(default_factory=dict)
    skipped_bots: list[str] = field(default_factory=list)
    # Suspended bots and how many of their games were played by substitutes.
    suspended: dict[str, int] = field(default_factory=dict)
    # With --fresh: the name the previous run is kept under.
    archived: str | None = None
    # Why the tournament ended before its last scheduled game (stop:, the SPRT).
    stopped: str | None = None
    # Swiss byes per bot.
    byes: dict[str, int] = field(default_factory=dict)
    # format: ab: the test's result.
    sprt: SprtResult | None = None
    all_faults: dict[str, int] = field(default_factory=dict)


class TournamentRunner(SetUp, Lineup, Rounds, Verdicts):
    """A tournament's run: its parts (set-up, the bots, the rounds, the verdicts) combined
    over one :class:`~tournaments.run.state.RunState`, and the games played."""

    def _play(self, pairing: Pairing) -> MatchResult:
        if self.stop.is_set():
            raise MatchAbandoned(str(pairing.index))
        suspended = frozenset(self.suspended)
        clients = [None if name in suspended else self._client(name) for name in pairing.seats]
        result = new_match(self.config, pairing, clients, self.stop, self._probe,
                           suspended, self._settle).play()
        self._count_faults(result)
        return result

    def _task(self, pairing: Pairing) -> GameTask:
        """A game for a cluster worker, with the bots suspended as it is sent."""
        return GameTask(self.remote, pairing, epoch_of(self.config, pairing),
                        frozenset(self.suspended))

    def _executor(self, asked: threading.Event | None) -> Executor:
        """Where the games run; ``asked``, set by Ctrl-C or SIGTERM, is looked at while
        they do, so an interrupt is heard even if a finaliser swallowed its exception."""
        if self.client is not None:
            return DaskExecutor(self.client, self.config.concurrency, self._task, asked)
        return ThreadExecutor(self.config.concurrency, asked,
                              None if self.threads is None else self.threads.games)

    def run(self) -> Summary:
        """Run the tournament under its lock in the store (one referee at a time)."""
        try:
            self.store.lock(self.config.name)
        except StoreError as error:
            raise TournamentError(str(error)) from None
        try:
            return self._run()
        except StoreError as error:
            raise TournamentError(f"{error}: the games stored so far are kept; run the same "
                                  "command again to resume") from None
        finally:
            self.store.unlock(self.config.name)

    def _run(self) -> Summary:
        started = time.monotonic()
        self._make_log_dir()
        done = self._stored_games()
        if done and not self.quiet:
            left = "nothing is left to play" if self.finished else \
                f"{self.total - len(done):,} left to play"
            print(f"resuming: {len(done):,} of {self.total:,} games stored; {left}",
                  file=self.out, flush=True)
        needed, first_epoch = self._left(done)
        skipped = self._start_bots(needed, first_epoch) if needed else []
        self._warn_of_changed_code()
        try:
            archived = self._record()
            self._keep_identities()
        except StoreError:
            self.stop_bots()
            raise
        live = LiveStandings(self.config.rating)
        signals = ExitStack()
        asked = signals.enter_context(signals_as_stop(raising=True)) \
            if threading.current_thread() is threading.main_thread() else None
        executor = self._executor(asked)
        progress = Progress(self.total, len(done), self.out, self.quiet,
                            note=self._live_sprt if self.config.format == "ab" else None,
                            workers=executor.worker_count
                            if isinstance(executor, DaskExecutor) else None)
        tally = Tally()
        stopped = None
        every = [(segment, block) for segment in self.segments
                 for block in segment_blocks(self.config, segment)]
        try:
            for self.segment, block in every:
                if round_by_round(self.config):
                    progress.round, progress.rounds = block.start + 1, every[-1][1].stop
                if not self._play_block(block, live, done, skipped, executor, progress, tally):
                    break
                stopped = self._verdict(block, live)
                if stopped is not None:
                    break
            if not live.waiting:   # every stored game folded: the closing board's snapshot
                self.store.keep_snapshot(self.config.name, fold_key(self.config.rating),
                                         live.fold.to_json())
        except KeyboardInterrupt:
            raise Interrupted(
                f"interrupted: {progress.done} of {self.total} games are stored in "
                f"{self.store.path}; run the same command again to resume") from None
        except ClusterLost as error:
            raise TournamentError(
                f"the cluster at {self.config.cluster} was lost ({error}): {progress.done} of "
                f"{self.total} games are stored in {self.store.path}; run the same "
                "command again to resume (on a cluster or on this machine)") from None
        finally:
            # Bots go first, so games blocked on a bot's reply end at once; on a cluster
            # the games not yet started are dropped first, so none starts with no bots.
            self.stop.set()
            if self.client is not None:
                executor.close()
            self.stop_bots()
            executor.close()
            signals.close()
        if stopped is not None and not self.quiet:
            print(progress.line(), file=self.out, flush=True)
        if progress.done == self.total or stopped is not None:
            self.store.finish_tournament(self.config.name)
        played = progress.done - progress.started_with   # the games stored by this run
        return Summary(self.config.name, self.total, played, len(done),
                       time.monotonic() - started, tally.faults, skipped,
                       {name: tally.sat_out.get(name, 0) for name in sorted(self.suspended)},
                       archived, stopped, dict(sorted(self.byes.items())),
                       self._sprt() if self.config.format == "ab" else None,
                       self._all_faults())

    def _all_faults(self) -> dict[str, int]:
        """Faults per class of every run of the tournament, as stored (a bot sitting
        out while suspended is not a fault of its own)."""
        counts = Counter(fault["class"] for fault in self.store.faults(self.config.name)
                         if fault["class"] != FaultClass.SUSPENDED)
        return dict(sorted(counts.items()))

    def _play_block(self, block: range, live: LiveStandings, done: set[int],
                    skipped: list[str], executor: Executor, progress: Progress,
                    tally: Tally) -> bool:
        """Play a block's games left, storing each as it ends; False if the block is past
        the end of a finished tournament.

        With duplicate deals and ``renew_bots``, epoch by epoch, the next epoch's fresh
        bots starting while this one plays (which bots: from a second pass over the
        schedule); otherwise as one stream. The games are made a part at a time as they
        are reached, so the schedule is never held whole, however long the tournament.
        On a cluster the workers renew their own bots.
        """
        parts = self._pairings(block, live, skipped, progress)
        if parts is None:
            return False
        todo = self._todo(parts(), live, done, skipped)
        if not (self.config.duplicate and self.config.renew_bots):
            self._play_games(itertools.chain.from_iterable(todo), executor, live, progress,
                             tally)
            return True
        ahead = self._epoch_bots(parts(), done, skipped)
        next(ahead, None)   # the first epoch's bots are those started
        for rotation, epoch in itertools.groupby(todo, key=lambda games: games[0].rotation):
            upcoming = next(ahead, None)
            if self.renewal is not None:
                self._renew(rotation)
            if upcoming is not None and self.client is None:
                self.renewal = self._prepare_renewal(upcoming)
            self._play_games(itertools.chain.from_iterable(epoch), executor, live, progress,
                             tally)
        return True

    def _play_games(self, games: Iterable[Pairing], executor: Executor, live: LiveStandings,
                    progress: Progress, tally: Tally) -> None:
        """Play games, storing each as it ends (on a cluster, faults are counted here)."""
        remote = self.client is not None
        for pairing, result in executor.results(play_game if remote else self._play, games):
            if remote:
                self._count_faults(result)
            game_id = self.store.add_game(self.config.name, pairing, result,
                                          self._code(pairing.seats))
            self._fold(pairing, result, game_id, live)
            tally.add(result)
            progress.advance(live.leaders)
