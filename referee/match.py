"""Playing one game: a rules engine, its seated bots, their clocks and faults.

The runner asks the deciding seat for each decision, charges the time it
took, checks the reply, and applies the fault policy when a bot fails
(docs/protocol.md, "Time control" and "Faults"). A substituted action is
chosen by a RNG derived from the game's seed and the decision id, so a game
with faults still replays exactly from its record.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from typing import Callable, Mapping, NamedTuple

from circus.v1 import bot_pb2
from circus_outcomes import FaultClass, GameStatus, Policy
from referee.clients import (BotClient, BotFault, DecisionView, GameEnd, GameStart,
                             InProcessClient, PlainRequest, ViewDecider, run_elsewhere)
from referee.games.base import Game, State, ranks_from_scores
from referee.seeds import derive_seed
from referee.settings import TimeConfig


class MatchAbandoned(Exception):
    """The tournament is stopping; this game is not to be recorded.

    Control flow, not a :class:`~referee.errors.CircusError`: it is raised in a game's
    thread (or a worker's task) only once the run's stop is set, when the runner has
    stopped reading results (a Ctrl-C, an error, a stop rule), so it ends the game and
    no user meets it."""


@dataclass(frozen=True)
class Fault:
    seat: int
    bot: str
    decision_id: int
    fault_class: FaultClass
    detail: str
    policy: Policy
    time: str


@dataclass
class MatchResult:
    seats: tuple[str, ...]
    seed: int
    game: str
    variant: str
    scores: list[int]
    ranks: list[int]
    status: GameStatus
    end_reason: str
    actions: list[int]
    # (seat, decision_id, milliseconds) for every decision a bot answered.
    times: list[tuple[int, int, float]]
    faults: list[Fault]
    started_at: str
    finished_at: str
    duration_s: float


@dataclass
class FaultPolicy:
    """What the referee does for each fault class (see referee.settings)."""

    by_class: Mapping[FaultClass, Policy]
    max_strikes: int = 3


@dataclass
class SeatState:
    """One seat's bot, clock and standing within a game."""

    name: str
    client: BotClient | None
    # The seat's own time control: a bot may have a handicap.
    time: TimeConfig
    bank_ms: float
    strikes: int = 0
    forfeited: bool = False
    # After a crash the bot has lost its game; its later decisions are substituted.
    gone: bool = False
    next_event: int = 0
    faults: list[Fault] = field(default_factory=list)

    @property
    def playing(self) -> bool:
        return self.client is not None and not self.forfeited and not self.gone


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def final_ranks(scores: list[int], forfeited: list[bool]) -> list[int]:
    """Ranks by score, with forfeiting seats sharing the last place."""
    staying = [score for score, out in zip(scores, forfeited) if not out]
    staying_ranks = iter(ranks_from_scores(staying))
    last = len(staying) + 1
    return [last if out else next(staying_ranks) for out in forfeited]


def seat_labels(players: int) -> list[str]:
    """What ``StartGame.seat_names`` carries unless names are revealed: "seat 0", "seat 1"…

    A bot that learns whom it plays can recognise a partner of the same author and
    help it; by default it learns only how many play and where it sits.
    """
    return [f"seat {seat}" for seat in range(players)]


class Match:
    """One game between seated bots. Create it, then call :meth:`play`.

    ``time_config`` is every seat's time control, or a list of one per seat. The bots
    are told the seats' names (``seats``) only with ``reveal_names``, else
    :func:`seat_labels`; the result always has the names.
    """

    def __init__(self, game: Game, variant: str, seats: tuple[str, ...], seed: int, game_id: str,
                 clients: list[BotClient | None], time_config: TimeConfig | list[TimeConfig],
                 policy: FaultPolicy, stop: threading.Event | None = None,
                 on_crash: Callable[[int], str | None] | None = None,
                 probe: Callable[[str, tuple[str, int]], bool] | None = None,
                 suspended: frozenset[str] = frozenset(), reveal_names: bool = False) -> None:
        self.game = game
        self.variant = variant
        self.seat_names = seats
        self.seed = seed
        self.game_id = game_id
        self.policy = policy
        self.stop = stop or threading.Event()
        # Told of a call that failed as a crash; says what became of the bot's process.
        self.on_crash = on_crash
        # After a timeout of a bot at a game's seat (game id, seat): does the process that
        # plays it still answer at all? (False: it was stopped.)
        self.probe = probe
        self.suspended = suspended
        self.reveal_names = reveal_names
        self.state: State = game.new_state(len(seats), variant, seed)
        times = (time_config if isinstance(time_config, list)
                 else [time_config] * len(seats))
        self.seats = [SeatState(name, client, time, time.bank_ms)
                      for name, client, time in zip(seats, clients, times)]
        self.void = False
        self.times: list[tuple[int, int, float]] = []
        self.decision_id = 0
        # The pending decision's legal actions, listed once for the request, a
        # substitute and apply; and the game's events, each converted and encoded once.
        self.actions: list = []
        self.event_cache: list[bytes] = []
        self.event_texts: list[bytes] = []
        # With an in-process bot seated: the decisions' thread, watched from play's.
        self.watch: _Watch | None = None

    # -- the game ------------------------------------------------------------
    def play(self) -> MatchResult:
        started, clock_start = now(), time.monotonic()
        self._start_game()
        if any(isinstance(seat.client, InProcessClient) for seat in self.seats):
            self.watch = _Watch(self)
            self.watch.decisions()
        else:
            self._decisions()
        scores = self.state.scores()
        forfeited = [seat.forfeited for seat in self.seats]
        status = GameStatus.VOID if self.void else GameStatus.FORFEIT if any(forfeited) \
            else GameStatus.FINISHED
        ranks = final_ranks(scores, forfeited)
        self._end_game(scores, ranks, status)
        return MatchResult(
            seats=self.seat_names, seed=self.seed, game=self.game.name, variant=self.variant,
            scores=scores, ranks=ranks, status=status, end_reason=self.state.end_reason,
            actions=list(self.state.history), times=self.times,
            faults=[fault for seat in self.seats for fault in seat.faults],
            started_at=started, finished_at=now(),
            duration_s=time.monotonic() - clock_start)

    def _decisions(self) -> None:
        while not self.state.is_terminal():
            if self.stop.is_set():
                raise MatchAbandoned(self.game_id)
            self.decision_id += 1
            self.actions = self.state.legal_actions()
            self.state.apply(self._decide(), self.actions)

    def _start_game(self) -> None:
        names = list(self.seat_names) if self.reveal_names else seat_labels(len(self.seats))
        for index, seat in enumerate(self.seats):
            if seat.name in self.suspended:
                self._sit_out(index, seat)
                continue
            client = seat.client
            if client is None:
                self._fault(index, BotFault(FaultClass.CRASH, "the bot is not running"))
                continue
            start = GameStart(self.game_id, self.game.name, self.variant, index, names,
                              seat.time.move_ms, seat.time.bank_ms)
            timeout = seat.time.call_ms / 1000
            try:
                if isinstance(client, ViewDecider):
                    client.start_game_view(start, timeout)
                else:
                    client.start_game(start.message(), timeout)
            except BotFault as fault:
                self._fault(index, BotFault(fault.fault_class, f"StartGame: {fault.detail}"))

    def _sit_out(self, index: int, seat: SeatState) -> None:
        """A suspended bot's seat: every decision substituted, and the game marked so."""
        seat.gone = True
        seat.faults.append(Fault(index, seat.name, 0, FaultClass.SUSPENDED,
                                 "the bot is suspended: every decision substituted",
                                 Policy.SUBSTITUTE, now()))

    def _end_game(self, scores: list[int], ranks: list[int], status: GameStatus) -> None:
        end = GameEnd(self.game_id, self.state.game_name, scores, ranks, self.state.end_reason,
                      self.state.final_state(), status.value)
        for index, seat in enumerate(self.seats):
            client = seat.client
            if client is None or seat.gone:
                continue
            timeout = seat.time.call_ms / 1000
            try:
                if isinstance(client, ViewDecider):
                    client.end_game_view(end, index, timeout)
                else:
                    client.end_game(end.message(index), timeout)
            except BotFault as fault:
                # The result stands; the fault is recorded so the bot's author hears of it.
                seat.faults.append(Fault(index, seat.name, self.decision_id, fault.fault_class,
                                         f"EndGame: {fault.detail}", Policy.IGNORED, now()))

    # -- one decision --------------------------------------------------------
    def _decide(self) -> int:
        index = self.state.current_seat()
        seat = self.seats[index]
        if seat.playing:
            try:
                return self._ask(index, seat)
            except BotFault as fault:
                self._fault(index, fault)
        return self._substitute()

    def _ask(self, index: int, seat: SeatState) -> int:
        view = DecisionView(self.state, self.game_id, self.decision_id, seat.next_event,
                            seat.time.move_ms, int(seat.bank_ms), self.actions,
                            self.event_cache, self.event_texts)
        seat.next_event = len(self.state.events)
        deadline_ms = seat.time.move_ms + seat.bank_ms + seat.time.grace_ms
        client = seat.client
        assert client is not None  # a seat still playing has its bot's client
        # The request is made before the clock starts, whichever way the client takes it.
        if self.watch is not None and isinstance(client, InProcessClient) \
                and not client.running_late:
            call = partial(self.watch.decide_here, client, client.prepare(view), index, seat)
        elif isinstance(client, ViewDecider):
            call = partial(client.decide_prepared, view, client.prepare(view))
        else:
            call = partial(client.decide, view.message())
        sent = time.monotonic()
        try:
            reply = call(timeout=deadline_ms / 1000)
        except _Overtaken:
            raise
        except BaseException:
            self._charge(index, seat, sent)
            raise
        elapsed_ms = self._charge(index, seat, sent)
        if elapsed_ms > deadline_ms - seat.time.grace_ms:
            raise BotFault(FaultClass.TIMEOUT, f"took {elapsed_ms:.0f} ms: time bank exhausted")
        return self._check(reply, len(self.actions))

    def _charge(self, index: int, seat: SeatState, sent: float) -> float:
        """The decision's time since ``sent``, in ms, recorded and taken from the seat's
        bank: whether or not a reply came (a bot that hangs spends its bank)."""
        elapsed_ms = (time.monotonic() - sent) * 1000
        self.times.append((index, self.decision_id, round(elapsed_ms, 3)))
        seat.bank_ms = max(0.0, seat.bank_ms - max(0.0, elapsed_ms - seat.time.move_ms))
        return elapsed_ms

    def _timed_out(self, pending: _Pending) -> None:
        """A decision whose in-process bot is past its deadline (see :class:`_Watch`): as
        a client's call that timed out, charged and faulted, then substituted and applied."""
        self._charge(pending.seat_index, pending.seat, pending.sent)
        self._fault(pending.seat_index, BotFault(FaultClass.TIMEOUT,
                                                 f"no answer within {pending.timeout:.3f}s"))
        self.state.apply(self._substitute(), self.actions)

    def _check(self, reply: bot_pb2.Decision, action_count: int) -> int:
        if not isinstance(reply, bot_pb2.Decision):
            raise BotFault(FaultClass.ILLEGAL, "the reply is not a Decision")
        if reply.decision_id != self.decision_id:
            # Ids count from 1, and proto3 leaves a 0 out: a 0 is most likely a reply with none.
            none = ("; a 0 is a reply with no decision_id: echo the request's"
                    if reply.decision_id == 0 else "")
            raise BotFault(FaultClass.ILLEGAL, f"stale decision_id {reply.decision_id} "
                                               f"(expected {self.decision_id}){none}")
        if not 0 <= reply.action_index < action_count:
            raise BotFault(FaultClass.ILLEGAL, f"action_index {reply.action_index} out of range "
                                               f"0..{action_count - 1}")
        return reply.action_index

    def _substitute(self) -> int:
        rng = random.Random(derive_seed(self.seed, self.game_id, self.decision_id))
        return rng.randrange(len(self.actions))

    def _fault(self, index: int, fault: BotFault) -> None:
        """Record a fault and apply the policy for its class."""
        seat = self.seats[index]
        policy = self.policy.by_class.get(fault.fault_class, Policy.SUBSTITUTE)
        if fault.fault_class == FaultClass.TIMEOUT and self.probe is not None \
                and not self.probe(seat.name, (self.game_id, index)):
            seat.gone = True
            fault = BotFault(FaultClass.TIMEOUT, f"{fault.detail}; no answer to a health check "
                                                 "either: the bot was stopped")
        if fault.fault_class == FaultClass.CRASH:
            seat.gone = True
            ended = self.on_crash(index) if self.on_crash is not None else None
            if ended:   # what happened to the bot, before what the channel saw of it
                fault = BotFault(FaultClass.CRASH, f"its process ended: {ended} ({fault.detail})")
        if policy == Policy.SUBSTITUTE:
            seat.strikes += 1
            if seat.strikes >= self.policy.max_strikes:
                policy = Policy.FORFEIT
        if policy == Policy.FORFEIT:
            seat.forfeited = True
        elif policy == Policy.VOID:
            self.void = True
        seat.faults.append(Fault(index, seat.name, self.decision_id, fault.fault_class,
                                 fault.detail, policy, now()))


#: The shortest a watching thread sleeps with no decision pending (a time control of 0 ms
#: would otherwise have it spin).
NAP_S = 0.001


class _Overtaken(Exception):
    """The decisions' thread came back from a bot after its deadline: the game went on
    without it (:class:`_Watch`), and this thread leaves it alone."""


class _Pending(NamedTuple):
    """An in-process bot's decision being made: its seat, when it started, and when it is
    due (``timeout`` seconds later)."""

    seat_index: int
    seat: SeatState
    client: InProcessClient
    sent: float
    timeout: float
    deadline: float


class _Watch:
    """A game's decisions made on a worker thread, with its in-process bots called there,
    and watched from the thread that plays the game.

    Handing each call to a bot's own thread, as :meth:`InProcessClient.decide` does, costs
    two thread switches a decision; here a decision costs none. The deadline holds all the
    same: this thread sleeps until the pending call's deadline, and if the call is still
    running then, it takes the decision over (timed out, substituted, applied) and starts
    another worker on the next; the hung thread, if its bot ever returns, finds the game no
    longer its own and leaves it (:class:`_Overtaken`); until it does, that bot's calls are
    handed to its own workers (:attr:`InProcessClient.running_late`). A decision's start
    wakes nobody: with none pending, this thread sleeps as long as the shortest a deadline
    can be.
    """

    def __init__(self, match: Match) -> None:
        self.match = match
        self.changed = threading.Condition()
        # The thread whose decisions count (None once taken over, until the next starts).
        self.owner: int | None = None
        self.pending: _Pending | None = None
        self.done = False
        self.error: BaseException | None = None
        self.nap_s = max(NAP_S, min((seat.time.move_ms + seat.time.grace_ms) / 1000
                                    for seat in match.seats))

    def decisions(self) -> None:
        """Make the game's decisions elsewhere, and return (or raise) when they end; if
        this thread is interrupted, the decisions' thread stops at its next bot call."""
        run_elsewhere(self._run)
        with self.changed:
            try:
                while not self.done:
                    self._watch()
            except BaseException:
                self.owner = None
                raise
        if self.error is not None:
            raise self.error

    def _watch(self) -> None:
        """Wait for a change, or take over the pending decision if it is past due."""
        pending, now_s = self.pending, time.monotonic()
        if pending is None or now_s < pending.deadline:
            self.changed.wait(self.nap_s if pending is None else pending.deadline - now_s)
            return
        self.pending, self.owner = None, None
        with pending.client.lock:
            pending.client.running_late += 1
        self.match._timed_out(pending)
        run_elsewhere(self._run)

    def _run(self) -> None:
        with self.changed:
            self.owner = threading.get_ident()
        try:
            self.match._decisions()
        except _Overtaken:
            return
        except BaseException as error:   # the game's to raise, on its own thread
            self._end(error)
        else:
            self._end(None)

    def _end(self, error: BaseException | None) -> None:
        with self.changed:
            self.done, self.error = True, error
            self.changed.notify()

    def decide_here(self, client: InProcessClient, prepared: object, index: int,
                    seat: SeatState, timeout: float) -> bot_pb2.Decision:
        """``client``'s decision on this thread, watched: the caller's clock started just
        before (``timeout`` from now)."""
        assert isinstance(prepared, (bot_pb2.DecisionRequest, PlainRequest)), "prepare made it"
        sent = time.monotonic()
        mine = _Pending(index, seat, client, sent, timeout, sent + timeout)
        with self.changed:
            self.pending = mine
        try:
            return client.decide_here(prepared)
        finally:
            with self.changed:
                overtaken = self.owner != threading.get_ident()
                # Taken over at its deadline (not only let go by an interrupted watcher).
                late = overtaken and self.pending is not mine
                if not overtaken:
                    self.pending = None
            if late:
                with client.lock:
                    client.running_late -= 1
            if overtaken:
                raise _Overtaken(self.match.game_id)
