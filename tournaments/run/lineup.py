"""The bots' lifecycle in a run: started here or on a cluster's workers, renewed between
the rotations of duplicate deals, recovered after a crash, suspended after a run of
faulted games, and stopped."""

from __future__ import annotations

import threading
from concurrent import futures
from typing import Callable, TypeVar

from circus_outcomes import FaultClass, Policy
from referee.clients import BotClient
from referee.limits import hierarchy, refusal, statement
from referee.match import MatchResult
from referee.participants import BotStartError, Participant
from referee.sandbox import SandboxUnavailable, ensure_available
from referee.settings import BotSpec
from referee.text import printable
from tournaments.run.errors import TournamentError
from tournaments.run.state import RunState
from tournaments.worker import probe_timeout

Done = TypeVar("Done")


class Lineup(RunState):
    """The bots of a run, from their start to their stop."""

    def _start_bots(self, needed: set[str], epoch: int) -> list[str]:
        """Start every needed bot, all at once; return the names of those that failed.
        On a cluster, every worker starts them for ``epoch``, the first one to play."""
        specs = [spec for spec in self.config.bots if spec.name in needed]
        errors = (self._start_remote(self.config.cluster, specs, epoch) if self.config.cluster
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
            self._tell_limits()
        errors: dict[str, str] = {}
        for participant, failure in self._started(specs):
            if failure is None:
                self.participants[participant.name] = participant
                identity = participant.identity()
                if identity is not None:
                    self.identities[participant.name] = identity
            else:
                errors[participant.name] = failure
        return errors

    def _tell_limits(self) -> None:
        """Say which of a sandboxed bot's limits hold here, or refuse with
        ``limits.require`` when one cannot."""
        where = hierarchy()
        refused = refusal(self.config.limits, where)
        if refused is not None:
            raise TournamentError(refused)
        if not self.quiet:
            print(statement(self.config.limits, where), file=self.out, flush=True)

    def _start_remote(self, address: str, specs: list[BotSpec], epoch: int) -> dict[str, str]:
        """Connect to the cluster at ``address`` and start the first epoch's bots on every worker, so a
        bot that cannot run on some worker stops the tournament before its first game."""
        from tournaments import cluster

        try:
            self.client = cluster.connect(address)
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
        game, variant = self.config.game, self.config.variant
        return list(zip(participants, _each(lambda p: _start(p, game, variant), participants)))

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
        assert client is not None, "stopped only when connected"
        try:
            if client.status == "running":
                cluster.finish(client, self.remote.run, self.log_dir)
        finally:
            client.close()

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
        if self.threads is not None:
            return self.threads.renewal.submit(self._started, self._renewable(playing))
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
        _stop_all([participant for participant in retired if _in_process(participant)])
        processes = [participant for participant in retired if not _in_process(participant)]
        if processes:
            stopping = threading.Thread(target=_stop_all, args=(processes,),
                                        name="retire-bots")
            stopping.start()
            self.retiring.append(stopping)
        if fresh and not self.quiet and not self.renewed:
            print(f"  bots start afresh before every seat rotation ({len(fresh)} before "
                  f"rotation {rotation + 1}), so none remembers a deal it is dealt again",
                  file=self.out, flush=True)
        self.renewed = True

    def _client(self, name: str) -> BotClient | None:
        participant = self.participants[name]
        if participant.crashed() and not self.stop.is_set():
            participant.recover(self.config.game, self.config.variant)
        return participant.client if participant.playable() else None

    def _settle(self, name: str, client: BotClient | None) -> str | None:
        """After a crash: let the bot's process end, so the next game restarts it; how
        it ended."""
        return self.participants[name].settle(client)

    def _probe(self, name: str, seat: tuple[str, int]) -> bool:
        """After a timeout at ``seat`` (game id, seat): whether the bot still answers (a
        hung one is stopped)."""
        return self.participants[name].probe(probe_timeout(self.config, name), seat)

    def _count_faults(self, result: MatchResult) -> None:
        """Suspend a bot once ``suspend_after`` of its games in a row had a fault.

        Counted as games finish, before their thread starts another game: a bot
        that keeps failing stops costing the tournament its timeouts and restarts.
        """
        faulted = {fault.bot for fault in result.faults
                   if fault.policy != Policy.IGNORED
                   and fault.fault_class != FaultClass.SUSPENDED}
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


def _stop_all(participants: list[Participant]) -> None:
    """Stop bots, those that run a process in parallel: each may take its grace period
    to exit."""
    _each(Participant.stop, participants)


def _start(participant: Participant, game: str, variant: str | None) -> str | None:
    """Start a bot; its start error, if it failed."""
    try:
        participant.start(game, variant)
    except BotStartError as error:
        return str(error)
    return None


def _in_process(participant: Participant) -> bool:
    """Whether the bot runs in this process (a ``python:`` entry): its start and stop are
    a call, with no process to wait for."""
    return participant.spec.python is not None


def _each(work: Callable[[Participant], Done], participants: list[Participant]
          ) -> list[Done]:
    """``work`` done on each participant, the results in order: for those that run a
    process, on threads at once (each waits for its process); for the others on this
    thread, one after another (a thread's start would cost more than their work, and a
    ladder's match starts and stops its bots four times)."""
    apart = [participant for participant in participants if not _in_process(participant)]
    if not apart:
        return [work(participant) for participant in participants]
    with futures.ThreadPoolExecutor(len(apart)) as pool:
        running = {id(participant): pool.submit(work, participant) for participant in apart}
        here = {id(participant): work(participant) for participant in participants
                if _in_process(participant)}
        return [running[id(participant)].result() if id(participant) in running
                else here[id(participant)] for participant in participants]
