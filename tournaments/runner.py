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
from referee.settings import BotSpec
from tournaments.config import TournamentConfig
from tournaments.executor import ThreadExecutor
from tournaments.schedule import Pairing, schedule
from tournaments.standings import outcome
from tournaments.store import Store, StoreError


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
    # Suspended bots and how many of their games were played by substitutes.
    suspended: dict[str, int] = field(default_factory=dict)
    # With --fresh: the name the previous run is kept under.
    archived: str | None = None


# The longest health check after a timeout: a bot that is not hung answers Hello at once.
PROBE_S = 1.0


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
        # Every game, made by _stored_games once the store gives the deal secret.
        self.pairings: list[Pairing] = []
        self.stop = threading.Event()
        self.participants: dict[str, Participant] = {}
        # Fresh bots being started for the next rotation (stopped with the rest).
        self.renewal: futures.Future | None = None
        self.retiring: list[threading.Thread] = []
        # Paths no sandboxed bot may see: the config (given), the database, its
        # folder and companions, and every bot's dir: (each bot sees its own).
        db = store.path
        self.private = (*private, db.parent, db, *(db.with_name(db.name + suffix)
                                                    for suffix in ("-wal", "-shm", "-journal")),
                        *(Path(spec.dir) for spec in config.bots if spec.dir))
        # Each bot's run of consecutive faulted games, and the bots suspended for it.
        self.streaks: dict[str, int] = {}
        self.suspended: set[str] = set()
        self.streaks_lock = threading.Lock()
        # The deal secret of this run (secret_deals), stored with the tournament's record.
        self.secret = ""

    # -- set-up ----------------------------------------------------------------
    def _stored_games(self) -> set[int]:
        """The games already stored (none with --fresh); a changed config is refused."""
        name = self.config.name
        existing = self.store.tournament(name)
        if existing is None or self.fresh:
            self.secret = self._new_secret()
            self.pairings = schedule(self.config, self.secret)
            return set()
        changed = config_changes(existing.identity, _jsonable(self.config.identity()))
        if changed:
            raise TournamentError(
                f"tournament {name!r} already exists in {self.store.path} with a "
                f"different config (changed: {', '.join(changed)}); use --fresh to "
                "start over or give it another name")
        self.secret = self.store.secret(name) or ""
        if self.config.secret_deals and not self.secret:
            # Killed between creating the record and keeping its secret: no game was stored.
            self.secret = self._new_secret()
            self.store.set_secret(name, self.secret)
        self.pairings = schedule(self.config, self.secret)
        return self.store.done_indices(name)

    def _record(self) -> str | None:
        """Create the tournament's record and keep its secret, once every bot is up.

        With --fresh the old run is first kept under a new name (returned), so
        that a new run whose bots fail to start loses nothing.
        """
        name = self.config.name
        existing = self.store.tournament(name)
        archived = self.store.archive_tournament(name) if existing and self.fresh else None
        if existing is None or archived is not None:
            self.store.create_tournament(name, _jsonable(asdict(self.config)),
                                         _jsonable(self.config.identity()),
                                         len(self.pairings), str(self.log_dir))
            if self.secret:
                self.store.set_secret(name, self.secret)
        return archived

    def _keep_identities(self) -> None:
        """Store each bot's name, version and protocol from its Hello, for the report."""
        for name, participant in self.participants.items():
            hello = participant.hello_response
            if hello is not None:
                self.store.set_identity(self.config.name, name, hello.name, hello.version,
                                        hello.protocol_version)

    def _new_secret(self) -> str:
        """A new deal secret (none without secret_deals): kept in the store, never sent
        to a bot, so nobody who knows only the config can compute a deal."""
        return secrets.token_hex(32) if self.config.secret_deals else ""

    def _start_bots(self, needed: set[str]) -> list[str]:
        """Start every needed bot, all at once; return the names of those that failed."""
        specs = [spec for spec in self.config.bots if spec.name in needed]
        if any(spec.command and (self.config.sandbox if spec.sandbox is None else spec.sandbox)
               for spec in specs):
            try:
                ensure_available()
            except SandboxUnavailable as error:
                raise TournamentError(str(error)) from None
        errors: dict[str, str] = {}
        for participant, error in self._started(specs):
            if error is None:
                self.participants[participant.name] = participant
            else:
                errors[participant.name] = error
        if errors and not self.skip_bad_bots:
            self.stop_bots()
            raise TournamentError("; ".join(errors.values())
                                  + " (the tournament did not start; --skip-bad-bots plays "
                                    "without them)")
        for message in errors.values():
            print(f"skipping: {message}", file=self.out, flush=True)
        return sorted(errors)

    def _started(self, specs: list[BotSpec]) -> list[tuple[Participant, str | None]]:
        """A new participant per spec, all started at once, each with its start error."""
        participants = [Participant(spec, self.log_dir, self.config.limits,
                                    self.config.time_for(spec.name).startup_ms,
                                    self.config.max_restarts if self.config.recover else 0,
                                    self.config.sandbox, self.private)
                        for spec in specs]
        outcomes: list[tuple[Participant, str | None]] = []
        with futures.ThreadPoolExecutor(max(1, len(participants))) as pool:
            starts = [pool.submit(p.start, self.config.game, self.config.variant)
                      for p in participants]
            for participant, start in zip(participants, starts):
                try:
                    start.result()
                    outcomes.append((participant, None))
                except BotStartError as error:
                    outcomes.append((participant, str(error)))
        return outcomes

    def stop_bots(self) -> None:
        """Stop every bot, those started for the next rotation too."""
        spares = [participant for participant, _ in self.renewal.result()] \
            if self.renewal is not None else []
        self.renewal = None
        _stop_all(list(self.participants.values()) + spares)
        for stopping in self.retiring:
            stopping.join()
        self.retiring = []

    # -- fresh bots between the rotations of duplicate deals (issue 22) ------------
    def _epochs(self, todo: list[Pairing]) -> list[list[Pairing]]:
        """The games to play between two renewals of the bots.

        With duplicate deals and ``renew_bots``, one list per seat rotation (the
        schedule plays them in that order): no bot process plays two games of one
        deal. Otherwise all games at once.
        """
        if not (self.config.duplicate and self.config.renew_bots):
            return [todo] if todo else []
        epochs: dict[int, list[Pairing]] = {}
        for pairing in todo:
            epochs.setdefault(pairing.rotation, []).append(pairing)
        return [epochs[rotation] for rotation in sorted(epochs)]

    def _renewable(self, epoch: list[Pairing]) -> list[BotSpec]:
        """The bots of an epoch to start afresh: all but those that keep their memory
        (``memory: true``, ``address:``) and those suspended."""
        playing = {name for pairing in epoch for name in pairing.seats}
        return [spec for spec in self.config.bots
                if spec.name in playing and spec.name in self.participants
                and not spec.remembers and spec.name not in self.suspended]

    def _prepare_renewal(self, epoch: list[Pairing]) -> futures.Future:
        """Start the next epoch's fresh bots in the background, while this epoch plays.

        A process that has played no game knows nothing, so starting it early is
        safe, and the switch at the epoch's end then costs no start-up time.
        """
        pool = futures.ThreadPoolExecutor(1, thread_name_prefix="renewal")
        future = pool.submit(self._started, self._renewable(epoch))
        pool.shutdown(wait=False)
        return future

    def _renew(self, rotation: int) -> None:
        """Swap in the fresh bots (all games of the last epoch are over) and stop the old."""
        assert self.renewal is not None
        fresh, self.renewal = self.renewal.result(), None
        retired = []
        for participant, error in fresh:
            if error is not None:
                print(f"restart for rotation {rotation + 1} failed: {error}", file=self.out,
                      flush=True)
            retired.append(self.participants[participant.name])
            self.participants[participant.name] = participant
        # The old processes stop in the background; the next games need not wait for them.
        stopping = threading.Thread(target=_stop_all, args=(retired,), name="retire-bots")
        stopping.start()
        self.retiring.append(stopping)
        if fresh and not self.quiet:
            print(f"  rotation {rotation + 1}: {len(fresh)} bot(s) started afresh, so none "
                  "remembers a deal it is dealt again", file=self.out, flush=True)

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
        suspended = frozenset(self.suspended)
        match = Match(self.game, self.config.variant, pairing.seats, pairing.seed,
                      f"{self.config.name}/{pairing.index}",
                      [None if name in suspended else self._client(name)
                       for name in pairing.seats],
                      [self.config.time_for(name) for name in pairing.seats], policy,
                      self.stop, probe=self._probe,
                      suspended=suspended)
        result = match.play()
        self._count_faults(result)
        return result

    def _probe(self, name: str) -> bool:
        """After a timeout: whether the bot still answers (a hung one is stopped)."""
        call_s = self.config.time_for(name).call_ms / 1000
        return self.participants[name].probe(min(PROBE_S, call_s))

    def _count_faults(self, result: MatchResult) -> None:
        """Suspend a bot once ``suspend_after`` of its games in a row had a fault.

        Counted as games finish, before their thread starts another game: a bot
        that keeps failing stops costing the tournament its timeouts and restarts.
        """
        faulted = {fault.bot for fault in result.faults
                   if fault.policy != "ignored" and fault.fault_class != "suspended"}
        with self.streaks_lock:
            self._count_streaks(set(result.seats) - self.suspended, faulted)

    def _count_streaks(self, names: set[str], faulted: set[str]) -> None:
        for name in names:
            self.streaks[name] = self.streaks.get(name, 0) + 1 if name in faulted else 0
            if 0 < self.config.suspend_after <= self.streaks[name]:
                self.suspended.add(name)
                print(f"suspended: bot {name!r} after {self.streaks[name]} faulted games in a "
                      "row; its remaining games are played by substitutes",
                      file=self.out, flush=True)

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
        done = self._stored_games()
        todo = [p for p in self.pairings if p.index not in done]
        needed = {name for pairing in todo for name in pairing.seats}
        skipped = self._start_bots(needed) if todo else []
        try:
            archived = self._record()
            self._keep_identities()
        except StoreError:
            self.stop_bots()
            raise
        todo = [p for p in todo if not set(p.seats) & set(skipped)]
        live = LiveStandings(self.config.rating, sorted(done) + [p.index for p in todo])
        for game in self.store.results(self.config.name):
            live.add(outcome(game))
        progress = Progress(len(self.pairings), len(done), self.out, self.quiet)
        faults: dict[str, int] = {}
        sat_out: dict[str, int] = {}
        previous = signal.signal(signal.SIGTERM, _raise_interrupt) \
            if threading.current_thread() is threading.main_thread() else None
        executor = ThreadExecutor(self.config.concurrency)
        epochs = self._epochs(todo)
        try:
            for number, epoch in enumerate(epochs):
                if self.renewal is not None:
                    self._renew(epoch[0].rotation)
                if number + 1 < len(epochs):
                    self.renewal = self._prepare_renewal(epochs[number + 1])
                for pairing, result in executor.results(self._play, epoch):
                    self.store.add_game(self.config.name, pairing, result)
                    live.add(Outcome(pairing.index, pairing.seats,
                                     tuple(result.ranks), result.status != "void"))
                    for fault in result.faults:
                        if fault.fault_class == "suspended":
                            sat_out[fault.bot] = sat_out.get(fault.bot, 0) + 1
                        else:
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
                       time.monotonic() - started, faults, skipped,
                       {name: sat_out.get(name, 0) for name in sorted(self.suspended)},
                       archived)


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _jsonable(value: object) -> object:
    """Tuples become lists, as they would after a round trip through JSON."""
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    return value


def _stop_all(participants: list[Participant]) -> None:
    """Stop bots in parallel: each may take its grace period to exit."""
    if not participants:
        return
    with futures.ThreadPoolExecutor(len(participants)) as pool:
        list(pool.map(lambda participant: participant.stop(), participants))
