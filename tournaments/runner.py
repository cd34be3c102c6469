"""Running a whole tournament: bots up, games played, results stored, bots down.

The schedule says which games exist; this module plays the ones not yet in
the store (so running the same command again resumes), ``concurrency`` at a
time, and writes each as it ends. Ratings are folded in schedule order as
soon as every earlier game is in, so they never depend on finish order.
"""

from __future__ import annotations

import secrets
import signal
import sys
import threading
import time
from concurrent import futures
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, TextIO

from ratings.params import RatingConfig
from ratings.trueskill_ratings import Outcome, Rater
from referee.clients import BotClient
from referee.games import get_game
from referee.match import FaultPolicy, Match, MatchAbandoned, MatchResult
from referee.participants import BotStartError, Participant
from referee.sandbox import SandboxUnavailable, ensure_available
from tournaments.config import TournamentConfig
from tournaments.executor import ThreadExecutor
from tournaments.schedule import Pairing, schedule
from tournaments.standings import outcome
from tournaments.store import Store


class TournamentError(Exception):
    """The tournament cannot run; the message is one line for the user."""


class Interrupted(Exception):
    """Stopped by Ctrl-C or SIGTERM; finished games are stored."""


@dataclass
class Summary:
    name: str
    total: int
    played: int
    already_done: int
    wall_s: float
    faults: dict[str, int] = field(default_factory=dict)
    skipped_bots: list[str] = field(default_factory=list)


def config_changes(old: dict, new: dict) -> list[str]:
    """The keys whose values differ between two config identities."""
    return sorted(key for key in old.keys() | new.keys() if old.get(key) != new.get(key))


class Progress:
    """Status lines from one thread: done/total, games per second, ETA, and the leaders.

    A progress line at most every ``every`` seconds, the current top of the
    leaderboard every ``leaders_every`` seconds, and both at the end.
    """

    def __init__(self, total: int, done: int, out: TextIO, quiet: bool,
                 every: float = 2.0, leaders_every: float = 15.0) -> None:
        self.total, self.done, self.started_with = total, done, done
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
        return (f"games {self.done}/{self.total} ({100 * self.done / max(self.total, 1):.0f}%)"
                f"  {rate:.1f} games/s  ETA {eta}")

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

    def __init__(self, params: RatingConfig, indices: list[int]) -> None:
        self.rater = Rater(params)
        self.order = sorted(indices)
        self.position = 0
        self.waiting: dict[int, Outcome] = {}

    def add(self, outcome: Outcome) -> None:
        self.waiting[outcome.index] = outcome
        while self.position < len(self.order) and self.order[self.position] in self.waiting:
            self.rater.add(self.waiting.pop(self.order[self.position]))
            self.position += 1

    def leaders(self, count: int = 3) -> str:
        ratings = sorted(self.rater.ratings.items(),
                         key=lambda item: (-(item[1].mu - 3 * item[1].sigma), item[0]))
        shown = ", ".join(f"{bot} {rating.mu - 3 * rating.sigma:.1f}"
                          for bot, rating in ratings[:count])
        return f"  leaders after {self.position} games (mu-3σ): {shown or 'none yet'}"


class TournamentRunner:
    def __init__(self, config: TournamentConfig, store: Store, log_dir: Path,
                 out: TextIO | None = None, quiet: bool = False,
                 skip_bad_bots: bool = False, fresh: bool = False,
                 private: tuple[Path, ...] = ()) -> None:
        self.config = config
        self.store = store
        self.log_dir = log_dir
        self.out = out or sys.stderr
        self.quiet = quiet
        self.skip_bad_bots = skip_bad_bots
        self.fresh = fresh
        self.game = get_game(config.game)
        # Seats and count of every game; the seeds are final once the store gives the secret.
        self.pairings = schedule(config)
        self.stop = threading.Event()
        self.participants: dict[str, Participant] = {}
        # Paths no sandboxed bot may see: the config (given), the database, its
        # folder and companions, and every bot's dir: (each bot sees its own).
        db = store.path
        self.private = (*private, db.parent, db, *(db.with_name(db.name + suffix)
                                                    for suffix in ("-wal", "-shm", "-journal")),
                        *(Path(spec.dir) for spec in config.bots if spec.dir))

    # -- set-up ----------------------------------------------------------------
    def _prepare_store(self) -> set[int]:
        """Create, resume or (with --fresh) restart the tournament's record."""
        name, identity = self.config.name, self.config.identity()
        existing = self.store.tournament(name)
        if existing is not None and self.fresh:
            self.store.delete_tournament(name)
            existing = None
        if existing is not None:
            changed = config_changes(existing.identity, _jsonable(identity))
            if changed:
                raise TournamentError(
                    f"tournament {name!r} already exists in {self.store.path} with a "
                    f"different config (changed: {', '.join(changed)}); use --fresh to "
                    "start over or give it another name")
            self.pairings = schedule(self.config, self._secret())
            return self.store.done_indices(name)
        self.store.create_tournament(name, _jsonable(asdict(self.config)), _jsonable(identity),
                                     len(self.pairings), str(self.log_dir))
        self.pairings = schedule(self.config, self._secret())
        return set()

    def _secret(self) -> str:
        """The tournament's deal secret: made once, kept in the store, never given to a bot."""
        if not self.config.secret_deals:
            return ""
        secret = self.store.secret(self.config.name)
        if secret is None:
            secret = secrets.token_hex(32)
            self.store.set_secret(self.config.name, secret)
        return secret

    def _start_bots(self, needed: set[str]) -> list[str]:
        """Start every needed bot, all at once; return the names of those that failed."""
        specs = [spec for spec in self.config.bots if spec.name in needed]
        if any(spec.command and (self.config.sandbox if spec.sandbox is None else spec.sandbox)
               for spec in specs):
            try:
                ensure_available()
            except SandboxUnavailable as error:
                raise TournamentError(str(error)) from None
        participants = [Participant(spec, self.log_dir, self.config.limits,
                                    self.config.time.startup_ms,
                                    self.config.max_restarts if self.config.recover else 0,
                                    self.config.sandbox, self.private)
                        for spec in specs]
        errors: dict[str, str] = {}
        with futures.ThreadPoolExecutor(max(1, len(participants))) as pool:
            starts = [pool.submit(p.start, self.config.game, self.config.variant)
                      for p in participants]
            for participant, start in zip(participants, starts):
                try:
                    start.result()
                    self.participants[participant.name] = participant
                except BotStartError as error:
                    errors[participant.name] = str(error)
        if errors and not self.skip_bad_bots:
            self.stop_bots()
            raise TournamentError("; ".join(errors.values())
                                  + " (the tournament did not start; --skip-bad-bots plays "
                                    "without them)")
        for message in errors.values():
            print(f"skipping: {message}", file=self.out, flush=True)
        return sorted(errors)

    def stop_bots(self) -> None:
        for participant in self.participants.values():
            participant.stop()

    # -- playing -----------------------------------------------------------------
    def _client(self, name: str) -> BotClient | None:
        participant = self.participants[name]
        if participant.crashed() and not self.stop.is_set():
            participant.recover(self.config.game, self.config.variant)
        return None if participant.crashed() else participant.client

    def _play(self, pairing: Pairing) -> MatchResult:
        if self.stop.is_set():
            raise MatchAbandoned(str(pairing.index))
        policy = FaultPolicy(self.config.faults, self.config.max_strikes)
        match = Match(self.game, self.config.variant, pairing.seats, pairing.seed,
                      f"{self.config.name}/{pairing.index}",
                      [self._client(name) for name in pairing.seats],
                      self.config.time, policy, self.stop)
        return match.play()

    def run(self) -> Summary:
        started = time.monotonic()
        done = self._prepare_store()
        todo = [p for p in self.pairings if p.index not in done]
        needed = {name for pairing in todo for name in pairing.seats}
        skipped = self._start_bots(needed) if todo else []
        todo = [p for p in todo if not set(p.seats) & set(skipped)]
        live = LiveStandings(self.config.rating, sorted(done) + [p.index for p in todo])
        for game in self.store.games(self.config.name):
            live.add(outcome(game))
        progress = Progress(len(self.pairings), len(done), self.out, self.quiet)
        faults: dict[str, int] = {}
        previous = signal.signal(signal.SIGTERM, _raise_interrupt) \
            if threading.current_thread() is threading.main_thread() else None
        executor = ThreadExecutor(self.config.concurrency)
        try:
            for pairing, result in executor.results(self._play, todo):
                self.store.add_game(self.config.name, pairing, result)
                live.add(Outcome(pairing.index, pairing.seats,
                                 tuple(result.ranks), result.status != "void"))
                for fault in result.faults:
                    faults[fault.fault_class] = faults.get(fault.fault_class, 0) + 1
                progress.advance(live.leaders)
        except KeyboardInterrupt:
            raise Interrupted(
                f"interrupted: {progress.done} of {len(self.pairings)} games are stored in "
                f"{self.store.path}; run the same command again to resume") from None
        finally:
            # Bots go first, so games blocked on a bot's reply end at once.
            self.stop.set()
            self.stop_bots()
            executor.close()
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)
        if progress.done == len(self.pairings):
            self.store.finish_tournament(self.config.name)
        return Summary(self.config.name, len(self.pairings), len(todo), len(done),
                       time.monotonic() - started, faults, skipped)


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _jsonable(value: object) -> object:
    """Tuples become lists, as they would after a round trip through JSON."""
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    return value
