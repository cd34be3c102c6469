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
import secrets
import sys
import threading
import time
from collections import Counter, deque
from contextlib import ExitStack
from concurrent import futures
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable, Iterable, Iterator, TextIO

from ratings.board import Fold, fold_key
from ratings.params import RatingConfig
from ratings.sprt import DealGame, SprtResult
from ratings.trueskill_ratings import Outcome
from ratings.verdict import DealSets, stop_reason, verdict
from referee.clients import BotClient
from referee.interrupts import signals_as_stop
from referee.match import MatchAbandoned, MatchResult
from referee.participants import BotStartError, Participant
from referee.sandbox import SandboxUnavailable, ensure_available
from referee.settings import BotSpec
from referee.text import printable
from tournaments.config import TournamentConfig, ab_tables_per_deal, game_count, jsonable
from tournaments.executor import ClusterLost, DaskExecutor, Executor, ThreadExecutor
from tournaments.fingerprint import fingerprint
from tournaments.schedule import (
    Pairing,
    Segment,
    arrange,
    first_segment,
    pairs_of,
    round_by_round,
    scheduled,
    segment_blocks,
    segment_config,
    segment_groups,
    segment_shape,
    swiss_tables,
)
from tournaments.season import describe_changes
from tournaments.standings import ab_test
from tournaments.store import GameResult, Store, StoreError, SwissRound, database_paths
from tournaments.worker import (
    GameTask,
    RunSpec,
    epoch_of,
    new_match,
    play_game,
    probe_timeout,
)


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
        self.deals = DealSets()
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
            self.deals.add_outcome(outcome)
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


class TournamentRunner:
    def __init__(self, config: TournamentConfig, store: Store, log_dir: Path,
                 out: TextIO | None = None, quiet: bool = False,
                 skip_bad_bots: bool = False, fresh: bool = False,
                 private: tuple[Path, ...] = (), config_path: Path | None = None) -> None:
        self.config = config
        # The config's file, for the commands a message suggests.
        self.config_path = config_path
        self.store = store
        self.log_dir = log_dir
        self.out = out or sys.stderr
        self.quiet = quiet
        self.skip_bad_bots = skip_bad_bots
        self.fresh = fresh
        # The most games the schedule makes (fewer if a stop rule ends it).
        self.total = game_count(config)
        # Whether the stored tournament was finished (or stopped): nothing left to play.
        self.finished = False
        # Swiss byes per bot so far; an A/B test's games so far, by deal.
        self.byes: dict[str, int] = {}
        # How often each pair of bots sat at a Swiss table so far (a pair is not
        # seated together again while avoidable).
        self.met: Counter[frozenset[str]] = Counter()
        self.deal_games: list[DealGame] = []
        # The bots left out of the rounds being played: those that did not start in this
        # run, or in the run that paired the Swiss round.
        self.absent: list[str] = []
        self.stop = threading.Event()
        self.participants: dict[str, Participant] = {}
        # Fresh bots being started for the next rotation (stopped with the rest).
        self.renewal: futures.Future | None = None
        # Whether this run started bots afresh yet (said once a run, not every rotation).
        self.renewed = False
        self.retiring: list[threading.Thread] = []
        # Paths no sandboxed bot may see: those given (the config, the logs folder), the
        # database with its folders and companions, and every bot's dir: (each bot sees
        # its own).
        self.private = (*private, *database_paths(store.path),
                        *(Path(spec.dir) for spec in config.bots if spec.dir))
        # Each bot's run of consecutive faulted games, and the bots suspended for it.
        self.streaks: dict[str, int] = {}
        self.suspended: set[str] = set()
        self.streaks_lock = threading.Lock()
        # The deal secret of this run (secret_deals), stored with the tournament's record.
        self.secret = ""
        # The schedule's segments (more than one once the field changed in a season), and
        # the one whose rounds are being played.
        self.segments = [first_segment(config)]
        self.segment = self.segments[0]
        # Each bot's name, version and protocol from its Hello, for the store.
        self.identities: dict[str, tuple[str, str, str]] = {}
        # Each bot's code fingerprint, stored with every game it plays.
        self.fingerprints = {spec.name: fingerprint(spec) for spec in config.bots}
        # On a cluster: the Dask client, and what every game of this run shares.
        self.client = None
        self.remote = RunSpec(f"{config.name}-{secrets.token_hex(6)}", config,
                              tuple(str(path) for path in self.private))

    # -- set-up ----------------------------------------------------------------
    def _stored_games(self) -> set[int]:
        """The games already stored (none with --fresh); a changed config is refused."""
        name = self.config.name
        existing = self.store.tournament(name)
        if existing is None or self.fresh:
            self.secret = self._new_secret()
            return set()
        field, other = describe_changes(existing.identity, jsonable(self.config.identity()))
        if other:
            raise TournamentError(
                f"tournament {name!r} already exists in {self.store.path} with a "
                f"different config (changed: {', '.join(field + other)}); "
                f"{', '.join(words.split()[0] for words in other)} cannot change during a "
                "tournament: use --fresh to start over or give it another name")
        if field:
            config = self.config_path or "BOTS_YAML"
            raise TournamentError(
                f"tournament {name!r} already exists in {self.store.path} with a "
                f"different field (changed: {', '.join(field)}): `circus-referee season "
                f"{config}` says what that does to its games, and with --apply does it "
                "(or use --fresh to start over)")
        self.secret = self.store.secret(name) or ""
        self.segments = self.store.segments(name) or self.segments
        # A Swiss round paired without a bot that did not start leaves its games out.
        self.total = existing.total_games
        if self.config.secret_deals and not self.secret:
            # Killed between creating the record and keeping its secret: no game was stored.
            self.secret = self._new_secret()
            self.store.set_secret(name, self.secret)
        # A finished tournament paired round by round ended where its rule stopped it (or
        # played all): nothing more to play. A fixed schedule plays whatever is missing.
        self.finished = existing.finished_at is not None and round_by_round(self.config)
        return self.store.done_indices(name)

    def _left(self, done: set[int]) -> tuple[set[str], int]:
        """The bots with games left to play, and the epoch of the first such game.

        Every bot, from epoch 0, when rounds are paired or may stop as they go (a
        resumed run's cluster workers then start their bots afresh at its first game).
        """
        if self.finished:
            return set(), 0
        if round_by_round(self.config):
            return {bot.name for bot in self.config.bots}, 0
        needed: set[str] = set()
        first: int | None = None
        for segment in self.segments:
            withdrawn = set(segment.excluded)
            for pairing in scheduled(self.config, self.secret, [segment]):   # one at a time:
                if pairing.index not in done and not withdrawn & set(pairing.seats):
                    needed.update(pairing.seats)            # a long schedule is not kept
                    if first is None:
                        first = epoch_of(self.config, pairing)
        return needed, first or 0

    def _record(self) -> str | None:
        """Create the tournament's record and keep its secret, once every bot is up.

        With --fresh the old run is first kept under a new name (returned), so
        that a new run whose bots fail to start loses nothing.
        """
        name = self.config.name
        existing = self.store.tournament(name)
        archived = self.store.archive_tournament(name) if existing and self.fresh else None
        if existing is None or archived is not None:
            self.store.create_tournament(name, jsonable(asdict(self.config)),
                                         jsonable(self.config.identity()),
                                         self.total, str(self.log_dir))
            if self.secret:
                self.store.set_secret(name, self.secret)
        return archived

    def _make_log_dir(self) -> None:
        """Make the logs folder before the first sandbox is made: a private folder that
        does not exist when a sandbox is made is not hidden in it."""
        try:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise TournamentError(f"cannot make the logs folder {self.log_dir}: "
                                  f"{error.strerror or error}") from None

    def _keep_identities(self) -> None:
        """Store each bot's name, version and protocol from its Hello, for the report."""
        for name, (bot, version, protocol) in sorted(self.identities.items()):
            self.store.set_identity(self.config.name, name, bot, version, protocol)

    def _new_secret(self) -> str:
        """A new deal secret (none without secret_deals): kept in the store, never sent
        to a bot, so nobody who knows only the config can compute a deal."""
        return secrets.token_hex(32) if self.config.secret_deals else ""

    def _start_bots(self, needed: set[str], epoch: int) -> list[str]:
        """Start every needed bot, all at once; return the names of those that failed.
        On a cluster, every worker starts them for ``epoch``, the first one to play."""
        specs = [spec for spec in self.config.bots if spec.name in needed]
        errors = (self._start_remote(specs, epoch) if self.config.cluster
                  else self._start_here(specs))
        if errors and not self.skip_bad_bots:
            self.stop_bots()
            raise TournamentError("; ".join(errors.values())
                                  + " (the tournament did not start; --skip-bad-bots plays "
                                    "without them)")
        rule = ("; it stays out of the Swiss rounds this run pairs"
                if self.config.format == "swiss" else "")
        for message in errors.values():
            print(f"skipping: {printable(message)}{rule}", file=self.out, flush=True)
        return sorted(errors)

    def _start_here(self, specs: list[BotSpec]) -> dict[str, str]:
        """Start the bots on this machine; return the start error of each that failed."""
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
                identity = participant.identity()
                if identity is not None:
                    self.identities[participant.name] = identity
            else:
                errors[participant.name] = error
        return errors

    def _start_remote(self, specs: list[BotSpec], epoch: int) -> dict[str, str]:
        """Connect to the cluster and start the first epoch's bots on every worker, so a
        bot that cannot run on some worker stops the tournament before its first game."""
        from tournaments import cluster

        try:
            self.client = cluster.connect(self.config.cluster)
            started = cluster.start_bots(self.client, self.remote, epoch,
                                         tuple(spec.name for spec in specs))
        except cluster.ClusterError as error:
            self.stop_bots()
            raise TournamentError(str(error)) from None
        self.identities.update(started.identities)
        return started.errors

    def _started(self, specs: list[BotSpec]) -> list[tuple[Participant, str | None]]:
        """A new participant per spec, all started at once, each with its start error."""
        participants = [Participant(spec, self.log_dir, self.config.limits,
                                    self.config.time_for(spec.name).startup_ms,
                                    self.config.max_restarts if self.config.recover else 0,
                                    self.config.sandbox, self.private,
                                    processes=self.config.concurrency)
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
        """Stop every bot, those started for the next rotation and those on a cluster's
        workers too (whose logs come back into the logs folder)."""
        if self.client is not None:
            self._stop_remote()
        spares = [participant for participant, _ in self.renewal.result()] \
            if self.renewal is not None else []
        self.renewal = None
        _stop_all(list(self.participants.values()) + spares)
        for stopping in self.retiring:
            stopping.join()
        self.retiring = []

    def _stop_remote(self) -> None:
        from tournaments import cluster

        client, self.client = self.client, None
        try:
            if client.status == "running":
                cluster.finish(client, self.remote.run, self.log_dir)
        finally:
            client.close()

    # -- fresh bots between the rotations of duplicate deals (issue 22) ------------
    def _renewable(self, playing: set[str]) -> list[BotSpec]:
        """The bots playing in an epoch to start afresh: all but those that keep their
        memory (``memory: true``, ``address:``) and those suspended."""
        return [spec for spec in self.config.bots
                if spec.name in playing and spec.name in self.participants
                and not spec.remembers and spec.name not in self.suspended]

    def _prepare_renewal(self, playing: set[str]) -> futures.Future:
        """Start fresh processes of the bots ``playing`` in the next epoch in the
        background, while this epoch plays.

        A process that has played no game knows nothing, so starting it early is
        safe, and the switch at the epoch's end then costs no start-up time.
        """
        pool = futures.ThreadPoolExecutor(1, thread_name_prefix="renewal")
        future = pool.submit(self._started, self._renewable(playing))
        pool.shutdown(wait=False)
        return future

    def _renew(self, rotation: int) -> None:
        """Swap in the fresh bots (all games of the last epoch are over) and stop the old."""
        assert self.renewal is not None
        fresh, self.renewal = self.renewal.result(), None
        retired = []
        for participant, error in fresh:
            if error is not None:
                print(f"restart for rotation {rotation + 1} failed: {printable(error)}",
                      file=self.out, flush=True)
            retired.append(self.participants[participant.name])
            self.participants[participant.name] = participant
        # The old processes stop in the background; the next games need not wait for them.
        stopping = threading.Thread(target=_stop_all, args=(retired,), name="retire-bots")
        stopping.start()
        self.retiring.append(stopping)
        if fresh and not self.quiet and not self.renewed:
            print(f"  bots start afresh before every seat rotation ({len(fresh)} before "
                  f"rotation {rotation + 1}), so none remembers a deal it is dealt again",
                  file=self.out, flush=True)
        self.renewed = True

    # -- playing -----------------------------------------------------------------
    def _client(self, name: str) -> BotClient | None:
        participant = self.participants[name]
        if participant.crashed() and not self.stop.is_set():
            participant.recover(self.config.game, self.config.variant)
        return None if participant.crashed() else participant.client

    def _play(self, pairing: Pairing) -> MatchResult:
        if self.stop.is_set():
            raise MatchAbandoned(str(pairing.index))
        suspended = frozenset(self.suspended)
        clients = [None if name in suspended else self._client(name) for name in pairing.seats]
        result = new_match(self.config, pairing, clients, self.stop, self._probe,
                           suspended, self._settle).play()
        self._count_faults(result)
        return result

    def _settle(self, name: str, client: BotClient | None) -> str | None:
        """After a crash: let the bot's process end, so the next game restarts it; how
        it ended."""
        return self.participants[name].settle(client)

    def _probe(self, name: str) -> bool:
        """After a timeout: whether the bot still answers (a hung one is stopped)."""
        return self.participants[name].probe(probe_timeout(self.config, name))

    def _task(self, pairing: Pairing) -> GameTask:
        """A game for a cluster worker, with the bots suspended as it is sent."""
        return GameTask(self.remote, pairing, epoch_of(self.config, pairing),
                        frozenset(self.suspended))

    def _executor(self, asked: threading.Event | None) -> Executor:
        """Where the games run; ``asked``, set by Ctrl-C or SIGTERM, is looked at while
        they do, so an interrupt is heard even if a finaliser swallowed its exception."""
        if self.client is not None:
            return DaskExecutor(self.client, self.config.concurrency, self._task, asked)
        return ThreadExecutor(self.config.concurrency, asked)

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
                         if fault["class"] != "suspended")
        return dict(sorted(counts.items()))

    # -- rounds: pairing, playing, deciding --------------------------------------------
    def _pairings(self, block: range, live: LiveStandings, skipped: list[str],
                  progress: Progress) -> Callable[[], Iterator[list[Pairing]]] | None:
        """What gives the games of the rounds in ``block``, afresh at each call, a part at
        a time (:func:`arrange`); a Swiss round is paired once (:meth:`_swiss_round`).
        None: a finished Swiss tournament has no round after its last."""
        segment = self.segment
        if self.config.format != "swiss":
            self.absent = skipped
            return partial(arrange, self.config, self.secret, block,
                           partial(segment_groups, self.config, segment), segment)
        pairing = self._swiss_round(block.start, live, skipped, progress)
        if pairing is None:
            return None
        self.absent = pairing.absent
        for name in pairing.byes:
            self.byes[name] = self.byes.get(name, 0) + 1
        self.met.update(pairs_of(pairing.tables))
        tables = pairing.tables
        return partial(arrange, self.config, self.secret, block,
                       lambda _: [[table] for table in tables], segment)

    def _swiss_round(self, number: int, live: LiveStandings, skipped: list[str],
                     progress: Progress) -> SwissRound | None:
        """A Swiss round's pairing: the one kept in the store if the round was paired
        before (a resumed round plays the tables it began with, whatever the standings
        say now), else one made from the standings after every earlier round (all folded
        into ``live``) without the bots that did not start, kept before its first game.

        Its tables' games are all the round has: the games a bot left out would have
        played are taken off the total, and its table-mates' games stand.
        """
        kept = self.store.swiss_round(self.config.name, number) or self._round_from_games(number)
        if kept is not None or self.finished:
            return kept
        assert not live.order, "a Swiss round waits for the rounds before"
        tables, byes = swiss_tables(segment_config(self.config, self.segment), self.secret,
                                    live.conservative(), self._byes_so_far(), self.met, number,
                                    skipped)
        pairing = SwissRound(tables, byes, list(skipped))
        vacant = segment_shape(self.config, self.segment)[1] - len(tables) * self.config.players
        self.store.keep_round(self.config.name, number, pairing, vacant)
        self.total -= vacant
        progress.total = self.total
        return pairing

    def _byes_so_far(self) -> dict[str, int]:
        """Each bot's byes, the rounds a late entrant missed before it entered counted
        as its byes: it is not the first to sit out for having entered late."""
        entered: dict[str, int] = {}
        for segment in self.segments:
            for bot in segment.bots:
                entered.setdefault(bot, segment.rounds.start)
        return {bot: self.byes.get(bot, 0) + entered.get(bot, 0) for bot in entered}

    def _round_from_games(self, number: int) -> SwissRound | None:
        """A round an older referee paired without keeping its pairing, rebuilt from its
        stored games (and kept from now on): each table from any one of its games, the
        seats turned back by the game's rotation; the byes, the bots at none. None if the
        round has no game stored (it is paired afresh); refused if some table has none:
        its bots cannot be known."""
        config, name, segment = self.config, self.config.name, self.segment
        per_round, games = segment_shape(config, segment)
        start = segment.first_index + (number - segment.rounds.start) * games
        tables: dict[int, tuple[str, ...]] = {}
        for game in self.store.results(name, range(start, start + games)):
            offset = game.game_index - start
            position, turn = ((offset % per_round, offset // per_round) if config.duplicate
                              else divmod(offset, config.players))
            tables[position] = tuple(game.seats[-turn:] + game.seats[:-turn])
        if not tables:
            return None
        if len(tables) < per_round:
            raise TournamentError(
                f"Swiss round {number + 1} of {name!r} was begun by an older circus-referee "
                f"that did not keep its pairing, and {per_round - len(tables)} of its tables "
                "have no game stored: finish it with that version, or start over with --fresh")
        seated = {bot for table in tables.values() for bot in table}
        pairing = SwissRound([tables[position] for position in range(per_round)],
                             [bot.name for bot in config.bots if bot.name not in seated], [])
        self.store.keep_round(name, number, pairing, 0)
        return pairing

    def _unplayed(self, part: list[Pairing], done: set[int], skipped: list[str]
                  ) -> list[Pairing]:
        """The games of a part left to play."""
        if self.finished:
            return []
        left_out = {*skipped, *self.segment.excluded}
        return [p for p in part if p.index not in done and not left_out & set(p.seats)]

    def _todo(self, parts: Iterator[list[Pairing]], live: LiveStandings, done: set[int],
              skipped: list[str]) -> Iterator[list[Pairing]]:
        """The games left to play, a part at a time in play order. As each part is
        reached, the live ratings expect its games and fold in those already stored
        (read from the store part by part: a resumed long tournament does not hold
        every stored game)."""
        for part in parts:
            todo = self._unplayed(part, done, skipped)
            live.expect([p.index for p in part if p.index in done] + [p.index for p in todo])
            if any(pairing.index in done for pairing in part):
                stored = {game.game_index: game for game in self.store.results(
                    self.config.name, range(part[0].index, part[-1].index + 1))}
                for pairing in part:
                    if pairing.index in stored:
                        game = stored[pairing.index]
                        self._fold(pairing, game, game.id, live)
            if todo:
                yield todo

    def _epoch_bots(self, parts: Iterator[list[Pairing]], done: set[int],
                    skipped: list[str]) -> Iterator[set[str]]:
        """The bots playing in each epoch with games left, in play order."""
        todo = (games for games in (self._unplayed(part, done, skipped) for part in parts)
                if games)
        for _, epoch in itertools.groupby(todo, key=lambda games: games[0].rotation):
            yield {name for games in epoch for pairing in games for name in pairing.seats}

    def _fold(self, pairing: Pairing, game: GameResult | MatchResult, game_id: int,
              live: LiveStandings) -> None:
        """A game (stored, or just played; ``game_id``: its id in the store) into the
        live ratings and the A/B test, with the seats it was played in: what the
        leaderboard folds later, whatever this run would pair."""
        rated, seats = game.status != "void", tuple(game.seats)
        live.add(Outcome(pairing.index, seats, tuple(game.ranks), rated, tuple(game.scores),
                         game_id, pairing.group, pairing.round))
        if self.config.format == "ab":
            self.deal_games.append(DealGame(pairing.group, seats, tuple(game.ranks), rated))

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

    def _code(self, seats: Iterable[str]) -> list[tuple[str, str | None]]:
        """What code plays at each seat: its fingerprint, and its name and version from
        Hello (None for a bot that has not answered one)."""
        hello = {bot: f"{name} {version}" for bot, (name, version, _) in self.identities.items()}
        return [(self.fingerprints[bot], hello.get(bot)) for bot in seats]

    def _warn_of_changed_code(self) -> None:
        """Say which bots run other code than in their stored games, or call themselves
        otherwise in Hello: a bot swapped under its name is not silently rated as one
        entrant."""
        hello = {bot: hello for bot, (_, hello) in zip(self.fingerprints,
                                                       self._code(self.fingerprints))}
        for bot, codes in self.store.codes(self.config.name).items():
            (digest, said), now = codes[-1], self.fingerprints.get(bot)
            if now is not None and now != digest:
                change = f"runs other code than in its stored games (code {now}, was {digest})"
            elif hello.get(bot) is not None and said is not None and hello[bot] != said:
                change = f"says it is {hello[bot]!r} in Hello, not {said!r} as in its stored games"
            else:
                continue
            print(f"warning: bot {bot!r} {change}; its games from now on are stored as such. "
                  f"To rate it as a new entrant: circus-referee season "
                  f"{self.config_path or 'BOTS_YAML'} --replace {bot}", file=self.out, flush=True)

    def _verdict(self, block: range, live: LiveStandings) -> str | None:
        """Why the tournament stops after ``block``, or None to go on (the bots left out
        of its rounds are not placed)."""
        if self.config.format == "ab":
            result = self._sprt()
            return None if result.verdict is None else result.line()
        rule = self.config.stop
        if rule is None:
            return None
        names = [bot.name for bot in self.config.bots if bot.name not in self.absent]
        found = verdict(live.deals.complete(), names, rule.confidence)
        if stop_reason(found, live.games, rule.min_games_per_bot) is not None:
            return None
        left = self.total - games_through(self.config, self.segment, block)
        return (f"settled after round {block.stop}: {found.line()}; {left:,} of the "
                f"{self.total:,} scheduled games were not needed")

    def _sprt(self) -> SprtResult:
        """The A/B test over the deals played so far, decided at its first crossing."""
        config = self.config
        assert config.a is not None and config.b is not None and config.sprt is not None
        per_deal = config.players * ab_tables_per_deal(len(config.bots))
        return ab_test(config.a, config.b, per_deal, asdict(config.sprt), self.deal_games)

    def _live_sprt(self) -> str:
        return self._sprt().line()


@dataclass
class Tally:
    """Faults per class, and games each suspended bot sat out, of this run."""

    faults: dict[str, int] = field(default_factory=dict)
    sat_out: dict[str, int] = field(default_factory=dict)

    def add(self, result: MatchResult) -> None:
        for fault in result.faults:
            if fault.fault_class == "suspended":
                self.sat_out[fault.bot] = self.sat_out.get(fault.bot, 0) + 1
            else:
                self.faults[fault.fault_class] = self.faults.get(fault.fault_class, 0) + 1


def games_through(config: TournamentConfig, segment: Segment, block: range) -> int:
    """The games of every round up to the end of ``block`` (of ``segment``)."""
    return segment.first_index + (block.stop - segment.rounds.start) * segment_shape(
        config, segment)[1]


def _stop_all(participants: list[Participant]) -> None:
    """Stop bots in parallel: each may take its grace period to exit."""
    if not participants:
        return
    with futures.ThreadPoolExecutor(len(participants)) as pool:
        list(pool.map(lambda participant: participant.stop(), participants))
