"""One game wherever it runs, and the bots a cluster worker keeps for its games.

A game is a pure function of its pairing, its seed and the bots, so the same
game is built the same way on the referee's machine (:func:`new_match`, called
by the runner) and on a Dask worker (:func:`play_game`). What a worker is sent
is a :class:`GameTask`: plain, picklable data and no bot, since a bot process
started on the referee's machine cannot be handed to another machine. Each
worker process starts the bots it needs itself, sandboxed as on one machine,
and keeps them in :data:`WORKER` for the games of one *epoch* of one run: with
duplicate deals and ``renew_bots`` an epoch is a seat rotation, and a new
epoch's first game on a worker stops that worker's bots of the earlier epoch
and starts fresh ones, so no bot process plays a deal twice there either (the
runner sends an epoch's games only once every game of the previous one is in).
Bots that keep their memory (``memory: true``, ``address:``) stay for the run.

This module imports nothing of Dask: the worker runs plain functions of it.
"""

from __future__ import annotations

import os
import platform
import shutil
import tempfile
import threading
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from referee.checkbot import check_bot
from referee.clients import BotClient
from referee.games import get_game
from referee.limits import hierarchy, refusal, statement
from referee.match import FaultPolicy, Match, MatchAbandoned, MatchResult
from referee.participants import BotStartError, Participant
from referee.sandbox import unavailable_reason
from referee.settings import BotSpec, LimitsConfig, package_version
from tournaments.config import TournamentConfig, games_per_deal, rounds_needed
from tournaments.schedule import Pairing, round_by_round

# The longest health check after a timeout: a bot that is not hung answers Hello at once.
PROBE_S = 1.0


def new_match(config: TournamentConfig, pairing: Pairing, clients: list[BotClient | None],
              stop: threading.Event, probe: Callable[[str, tuple[str, int]], bool],
              suspended: frozenset[str],
              on_crash: Callable[[str, BotClient | None], str | None]) -> Match:
    """The game of ``pairing`` with these bots: the one way a game is set up.

    ``probe(name, (game_id, seat))`` checks a bot after a timeout at that seat; ``on_crash(name, client)`` is told of a
    call through ``client`` that failed as a crash, and says how the bot's process ended
    ("exited with status 3"), if it did.
    """
    return Match(get_game(config.game), config.variant, pairing.seats, pairing.seed,
                 pairing.game_id,
                 [None if name in suspended else client
                  for name, client in zip(pairing.seats, clients)],
                 [config.time_for(name) for name in pairing.seats],
                 FaultPolicy(config.faults, config.max_strikes), stop, probe=probe,
                 on_crash=lambda seat: on_crash(pairing.seats[seat], clients[seat]),
                 suspended=suspended, reveal_names=config.reveal_names)


def probe_timeout(config: TournamentConfig, name: str) -> float:
    """How long the health check after a timeout may take for ``name``."""
    return min(PROBE_S, config.time_for(name).call_ms / 1000)


def epoch_of(config: TournamentConfig, pairing: Pairing) -> int:
    """Between which renewals of the bots ``pairing`` is played (the runner's epochs):
    with duplicate deals and ``renew_bots``, its seat rotation (``Pairing.rotation``),
    counted on through the rounds of a format played round by round (Swiss, ``stop:``,
    A/B), so no two rounds share an epoch."""
    if not (config.duplicate and config.renew_bots):
        return 0
    if round_by_round(config):
        return pairing.round * _epochs_per_round(config) + pairing.rotation
    return pairing.rotation


def epoch_count(config: TournamentConfig) -> int:
    """How many epochs a run has at most (see :func:`epoch_of`)."""
    if not (config.duplicate and config.renew_bots):
        return 1
    return _epochs_per_round(config) * (rounds_needed(config) if round_by_round(config) else 1)


def _epochs_per_round(config: TournamentConfig) -> int:
    """The seat rotations of a round: an A/B test with fillers has A's, then B's (as many
    as the games of a deal)."""
    return games_per_deal(config.format, config.players, len(config.bots))


@dataclass(frozen=True)
class RunSpec:
    """What every game of one referee run shares. ``run`` is new for each run, so a
    worker never gives a resumed run the bots of an earlier one."""

    run: str
    config: TournamentConfig
    # Paths no sandboxed bot may see (the referee's database, config, bots' folders).
    private: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameTask:
    """One game for a worker: the pairing, its epoch, and the bots suspended when sent."""

    spec: RunSpec
    pairing: Pairing
    epoch: int
    suspended: frozenset[str] = frozenset()


@dataclass
class Lineup:
    """The bots one worker started for one epoch of a run (or, for ``epoch`` None, the
    bots that keep their memory for the whole run)."""

    spec: RunSpec
    epoch: int | None
    log_dir: Path
    participants: dict[str, Participant] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # One lock per bot, so the bots of a first game start at the same time.
    starting: dict[str, threading.Lock] = field(default_factory=dict)
    # Stopped: a bot whose start was under way is stopped as soon as it is up.
    closed: bool = False

    def participant(self, name: str) -> Participant | None:
        """``name``'s bot, started on first need; None if it cannot start here, or if the
        lineup was stopped (a background start of the next epoch's bots must not start
        one after its run has ended: nothing would stop it)."""
        with self.lock:
            starting = self.starting.setdefault(name, threading.Lock())
        with starting:
            if name not in self.participants and name not in self.errors and not self.closed:
                self._start(name)
            return self.participants.get(name)

    def _start(self, name: str) -> None:
        config = self.spec.config
        spec: BotSpec = next(bot for bot in config.bots if bot.name == name)
        participant = Participant(spec, self.log_dir, config.limits,
                                  config.time_for(name).startup_ms,
                                  config.max_restarts if config.recover else 0,
                                  config.sandbox, tuple(Path(p) for p in self.spec.private),
                                  processes=config.concurrency)
        try:
            participant.start(config.game, config.variant)
        except BotStartError as error:
            self.errors[name] = str(error)
            return
        with self.lock:
            if not self.closed:
                self.participants[name] = participant
                return
        participant.stop()

    def stop(self) -> None:
        with self.lock:
            self.closed = True
            stopping = list(self.participants.values())
            self.participants = {}
        if stopping:
            with futures.ThreadPoolExecutor(len(stopping)) as pool:
                list(pool.map(lambda participant: participant.stop(), stopping))


class RunBots:
    """Everything one worker process holds for one run: lineups, its game slots, its logs."""

    def __init__(self, spec: RunSpec, log_dir: Path) -> None:
        self.spec = spec
        self.log_dir = log_dir
        self.lineups: dict[int | None, Lineup] = {}
        self.lock = threading.Lock()
        self.stop = threading.Event()
        # `concurrency` is games per worker, whatever its thread count.
        self.slots = threading.BoundedSemaphore(spec.config.concurrency)
        self.remembering = {bot.name for bot in spec.config.bots if bot.remembers}
        config = spec.config
        self.epochs = epoch_count(config)
        # The latest epoch a game was played in here, and the bots played with so far.
        self.current = -1
        self.used: set[str] = set()

    def lineup(self, name: str, epoch: int) -> Lineup:
        """The lineup ``name`` plays from in ``epoch``.

        The first game of a newer epoch retires the older epochs' bots and starts
        the next epoch's in the background: a process that has played no game
        knows nothing, and the switch then costs the next epoch no start-up time.
        """
        key = None if name in self.remembering else epoch
        retired: list[Lineup] = []
        with self.lock:
            if self.stop.is_set():  # the run has ended here: whatever asks now starts nothing
                return Lineup(self.spec, key, self.log_dir, closed=True)
            self.used.add(name)
            if key is not None and key > self.current:
                self.current = key
                retired = [self.lineups.pop(old) for old in list(self.lineups)
                           if old is not None and old < key]
                if key + 1 < self.epochs:
                    self._prepare(key + 1, sorted(self.used - self.remembering))
            lineup = self.lineups.setdefault(key, Lineup(self.spec, key, self.log_dir))
        for old in retired:
            old.stop()
        return lineup

    def expect(self, names: tuple[str, ...]) -> None:
        """The bots about to be started here, so the next epoch's are started too."""
        with self.lock:
            self.used.update(names)

    def _prepare(self, epoch: int, names: list[str]) -> None:
        """Start ``epoch``'s lineup of these bots in the background (the caller holds the
        lock): the bots this worker has played with."""
        lineup = self.lineups.setdefault(epoch, Lineup(self.spec, epoch, self.log_dir))
        for name in names:
            lineup.starting.setdefault(name, threading.Lock())
        threading.Thread(target=lambda: [lineup.participant(name) for name in names],
                         name=f"prepare-epoch-{epoch}", daemon=True).start()

    def client(self, name: str, epoch: int) -> BotClient | None:
        """``name``'s client for a game of ``epoch``; a crashed bot is restarted first."""
        participant = self.lineup(name, epoch).participant(name)
        if participant is None:
            return None
        config = self.spec.config
        if participant.crashed() and not self.stop.is_set():
            participant.recover(config.game, config.variant)
        return participant.client if participant.playable() else None

    def participant(self, name: str, epoch: int) -> Participant | None:
        return self.lineup(name, epoch).participant(name)

    def play(self, task: GameTask) -> MatchResult:
        if self.stop.is_set():
            raise MatchAbandoned(str(task.pairing.index))
        config, pairing = self.spec.config, task.pairing
        clients = [None if name in task.suspended else self.client(name, task.epoch)
                   for name in pairing.seats]

        def probe(name: str, seat: tuple[str, int]) -> bool:
            participant = self.participant(name, task.epoch)
            return participant is not None and participant.probe(probe_timeout(config, name),
                                                                 seat)

        def settle(name: str, client: BotClient | None) -> str | None:
            participant = self.participant(name, task.epoch)
            return None if participant is None else participant.settle(client)

        return new_match(config, pairing, clients, self.stop, probe, task.suspended,
                         settle).play()

    def close(self) -> dict[str, bytes]:
        """Stop every bot of the run; return its logs (file name → contents) and drop them."""
        self.stop.set()
        with self.lock:
            lineups, self.lineups = list(self.lineups.values()), {}
        for lineup in lineups:
            lineup.stop()
        logs = {path.name: path.read_bytes() for path in sorted(self.log_dir.glob("*.log"))}
        shutil.rmtree(self.log_dir, ignore_errors=True)
        return logs


class WorkerBots:
    """The runs a worker process holds bots for (one per tournament at a time)."""

    def __init__(self) -> None:
        self.runs: dict[str, RunBots] = {}
        self.lock = threading.Lock()
        # Runs whose referee has ended them here: a game of theirs still on its way
        # starts no bot.
        self.ended: set[str] = set()

    def run(self, spec: RunSpec) -> RunBots:
        """The run's bots here; a newer run of the same tournament ends an older one's
        (its referee is gone: the store lets one referee run a tournament at a time)."""
        with self.lock:
            if spec.run in self.ended:
                raise MatchAbandoned(f"the run {spec.run} has ended")
            bots = self.runs.get(spec.config.name)
            if bots is not None and bots.spec.run == spec.run:
                return bots
            if bots is not None:
                self.ended.add(bots.spec.run)
            stale, bots = bots, RunBots(spec, log_root() / spec.run)
            self.runs[spec.config.name] = bots
        if stale is not None:
            stale.close()
        return bots

    def close(self, run: str) -> dict[str, bytes]:
        with self.lock:
            self.ended.add(run)
            name = next((name for name, bots in self.runs.items() if bots.spec.run == run), None)
            bots = self.runs.pop(name) if name is not None else None
        return bots.close() if bots is not None else {}


def log_root() -> Path:
    """Where a worker keeps its bots' logs until the referee collects them."""
    return Path(tempfile.gettempdir()) / f"circus-worker-{os.getpid()}"


WORKER = WorkerBots()


# -- what the referee runs on workers ----------------------------------------------------
def play_game(task: GameTask) -> MatchResult:
    """A Dask task: one game, with this worker's bots, within its ``concurrency`` slots."""
    bots = WORKER.run(task.spec)
    with bots.slots:
        return bots.play(task)


def start_lineup(spec: RunSpec, epoch: int, names: tuple[str, ...]
                 ) -> dict[str, tuple[str | None, tuple[str, str, str] | None]]:
    """Start the first epoch's bots here, all at once, before the first game.

    Returns, per bot, its start error (None if it started) and its Hello
    identity (name, version, protocol), for the referee's checks and store.
    """
    bots = WORKER.run(spec)
    bots.expect(names)
    with futures.ThreadPoolExecutor(max(1, len(names))) as pool:
        started = dict(zip(names, pool.map(lambda name: bots.participant(name, epoch), names)))
    report: dict[str, tuple[str | None, tuple[str, str, str] | None]] = {}
    for name, participant in started.items():
        error = bots.lineup(name, epoch).errors.get(name)
        report[name] = (error, participant.identity() if participant is not None else None)
    return report


def finish_run(run: str) -> dict[str, bytes]:
    """Stop the run's bots here and hand back their logs (file name → contents)."""
    return WORKER.close(run)


@dataclass(frozen=True)
class WorkerReport:
    """What ``cluster-check`` learns of one worker."""

    version: str
    python: str
    # Why bots cannot be sandboxed here (None: they can).
    sandbox: str | None
    # Per bot: None if a check-bot game at every player count passed, else its first failure.
    bots: dict[str, str | None]
    # Which of a sandboxed bot's limits hold here (referee.limits.statement), and why the
    # config's limits.require would refuse to start its bots here (None: it would not).
    limits: str = ""
    refused: str | None = None


def check_here(config: TournamentConfig | None) -> WorkerReport:
    """This worker's versions and sandbox, and (with a config) a check-bot of each bot."""
    bots = {} if config is None else _bot_checks(config)
    limits, where = config.limits if config is not None else LimitsConfig(), hierarchy()
    return WorkerReport(package_version(), platform.python_version(), unavailable_reason(),
                        bots, statement(limits, where), refusal(limits, where))


def _bot_checks(config: TournamentConfig) -> dict[str, str | None]:
    """Each bot's first failed check-bot line here (None: every check passed)."""
    bots: dict[str, str | None] = {}
    for spec in config.bots:
        sandbox = config.sandbox if spec.sandbox is None else spec.sandbox
        checks = check_bot(spec, config.game, 1, config.time_for(spec.name), sandbox=sandbox,
                           at_once=1)
        bots[spec.name] = next((check.line() for check in checks if not check.passed), None)
    return bots
