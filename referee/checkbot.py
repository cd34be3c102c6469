"""``check-bot``: a conformance check of one bot, like a chess engine tester's compliance mode.

It starts (or connects to) the bot, checks the handshake and the games it
claims, plays a few games of each claimed game and variant in every seat of every
player count the game allows against random bots (or, a quicker check, each seat
once across the player counts), plays several games of each game
at once on the one connection (as a tournament does), and reports pass or fail
for each check with a message saying what to fix. Any fault ends that game's
check: the first problem is the one to fix. Three checks then judge the whole run as
a tournament's results would show it, and warn: the decision times against the move
time, a bot that always takes the same choice, and errors in the bot's log.

The checks are yielded one by one as each ends, so an autograder's job killed at its
timeout has printed what passed; :class:`Coverage` counts what was played to the end.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterator

from circus.v1 import bot_pb2
from circus_outcomes import Policy
from referee.clients import BotClient, InProcessClient
from referee.games import GAMES
from referee.match import FaultPolicy, Match, MatchResult
from referee.participants import REFEREE_NAME, TROUBLE, BotStartError, Participant
from referee.seeds import derive_seed, opaque_id
from referee.settings import FAULT_CLASSES, BotSpec, LimitsConfig, TimeConfig
from referee.text import printable
from referee.wire import PROTOCOL_VERSION

# Forfeit on the first fault: the rest of the game is substituted, not asked.
STRICT = FaultPolicy(dict.fromkeys(FAULT_CLASSES, Policy.FORFEIT), max_strikes=1)


#: Decision times whose p99 reaches this share of the move time get a warning: on a
#: busier machine (a tournament's, a grader's) they would spend the time bank or time out.
SLOW_SHARE = 0.8
#: The prefix of check-bot's temporary folders; the pid after it tells a stale one.
TEMPORARY_PREFIX = "check-bot-"
#: The file that marks a temporary folder kept for its log (a run that failed a check),
#: which later runs remove only once it is this old.
KEPT = "kept"
KEPT_S = 7 * 24 * 3600
#: How the candidate is seated: ``full``, every seat of every player count; ``once``, each
#: seat once across the player counts (a recheck of a bot whose full rotation passed).
ROTATIONS = ("full", "once")


@dataclass(frozen=True)
class Check:
    name: str
    passed: bool
    message: str
    # Passed, but with a risk to say (decision times near the move time).
    warning: bool = False

    @property
    def verdict(self) -> str:
        return "FAIL" if not self.passed else "WARN" if self.warning else "PASS"

    def line(self) -> str:
        """The check as one inert line: its message quotes the bot (its Hello, the
        games it claims, its error details), and check-bot prints it to a terminal."""
        return printable(f"{self.verdict}  {self.name}: {self.message}")


@dataclass
class Coverage:
    """What the checks played to the end, without a fault of the candidate: a pass is
    read as no more than this (a check that stopped at a fault covered less than planned).
    """

    # Per (game, variant): games finished per player count, in the order played.
    played: dict[tuple[str, str], dict[int, int]] = field(default_factory=dict)
    # Per (game, variant): the games planned per player count the game allows.
    planned: dict[tuple[str, str], dict[int, int]] = field(default_factory=dict)
    # Per game: games finished of those played at once.
    at_once: dict[str, int] = field(default_factory=dict)
    # The plan's seating, one of ROTATIONS: what a planned count of games covers.
    rotation: str = "full"

    def finished(self, game: str, variant: str, players: int) -> None:
        per_count = self.played.setdefault((game, variant), {})
        per_count[players] = per_count.get(players, 0) + 1

    def line(self) -> str:
        """What the run covered, in one line."""
        parts = [self._pair(pair, counts) for pair, counts in self.played.items() if counts]
        if not parts:
            return "covered: the handshake and the claimed games only"
        together = [f"{count} of {game}" for game, count in self.at_once.items() if count]
        concurrency = f"; games at once: {', '.join(together)}" if together else ""
        return f"covered: {'; '.join(parts)}{concurrency}; against random bots"

    def _pair(self, pair: tuple[str, str], counts: dict[int, int]) -> str:
        planned = self.planned[pair]
        name = "/".join(pair)
        span = f"{min(planned)}-{max(planned)}"
        full = self.rotation == "full"
        if counts == planned:
            seating = ("in every seat of every player count" if full else
                       "in each seat once across the player counts")
            return (f"{name} {seating} the game allows ({span}), "
                    f"{sum(planned.values())} games")
        done = ", ".join(f"{count} game(s) of {players}" for players, count in counts.items())
        across = " in every seat of" if full else ", each seat once across"
        return (f"{name} {done} (of {sum(planned.values())} games{across} {span} "
                "players, planned)")


def claimed_games(participant: Participant) -> tuple[list[tuple[str, str]], list[Check]]:
    """The (game, variant) pairs the bot claims, and a check of the claims."""
    assert participant.hello_response is not None
    pairs: list[tuple[str, str]] = []
    unknown: list[str] = []
    for support in participant.hello_response.games:
        game = GAMES.get(support.game)
        if game is None:
            unknown.append(support.game)
            continue
        variants = list(support.variants) or list(game.variants)
        unknown += [f"{support.game}/{v}" for v in variants if v not in game.variants]
        pairs += [(game.name, v) for v in variants if v in game.variants]
    if unknown:
        return pairs, [Check("games", False, f"claims unknown game or variant "
                                             f"{', '.join(unknown)}; see `circus-referee games`")]
    if not pairs:
        return pairs, [Check("games", False, "claims no game: list the games it plays in "
                                             "HelloResponse.games")]
    return pairs, [Check("games", True, ", ".join(f"{g}/{v}" for g, v in pairs))]


class RandomOpponent:
    """Check-bot's opponents: a uniformly random legal action, seeded by the game and decision.

    The referee's own (an :class:`~referee.clients.InProcessBot`): it knows no bot
    package, and the same check plays the same games.
    """

    def hello(self, request: bot_pb2.HelloRequest) -> bot_pb2.HelloResponse:
        return bot_pb2.HelloResponse(name="random", protocol_version=PROTOCOL_VERSION)

    def start_game(self, request: bot_pb2.StartGameRequest) -> None:
        """Nothing to prepare."""

    def decide(self, request: bot_pb2.DecisionRequest) -> int:
        chance = random.Random(derive_seed("check-bot", request.game_id, request.decision_id))
        return chance.randrange(len(request.legal_actions))

    def end_game(self, request: bot_pb2.EndGameRequest) -> None:
        """Nothing to learn."""

    start_game.does_nothing = True  # type: ignore[attr-defined]
    end_game.does_nothing = True  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Plan:
    """What a run of check-bot plays, and how strictly it judges what it saw."""

    only_game: str | None
    games: int
    time_config: TimeConfig
    at_once: int = 3
    # Every warning a failure (a gate that takes no risk).
    strict: bool = False
    # The bot's memory limit, as a tournament's ``limits.memory_mb`` sets it.
    memory_mb: int = LimitsConfig.memory_mb
    # One of ROTATIONS.
    rotation: str = "full"
    # What the games' deals and ids derive from: "" by hand, so a failure comes back the
    # same; a gate's own secret, so a bot can tell its games from a tournament's neither
    # by their ids nor by their deals.
    secret: str = ""


@dataclass
class Seen:
    """What the candidate did in the games the checks played, for the checks that judge
    the whole run: every decision's time (one that timed out too, as long as it took),
    and the index it chose at each decision that offered more than one legal action."""

    times_ms: list[float] = field(default_factory=list)
    choices: list[int] = field(default_factory=list)

    def add(self, result: MatchResult, seat: int) -> None:
        """The candidate's decisions in one game (in ``seat``); the game is replayed from
        its seed and actions to count each decision's legal actions."""
        asked = {decision for s, decision, _ in result.times if s == seat}
        faulted = {fault.decision_id for fault in result.faults if fault.seat == seat}
        self.times_ms += [ms for s, _, ms in result.times if s == seat]
        state = GAMES[result.game].new_state(len(result.seats), result.variant, result.seed)
        for decision, index in enumerate(result.actions, start=1):
            legal = state.legal_actions()
            if decision in asked and decision not in faulted and len(legal) > 1:
                self.choices.append(index)
            state.apply(index, legal)


def warned(name: str, message: str, strict: bool) -> Check:
    """A check that passed with a risk to say; with ``strict``, a failure."""
    return Check(name, not strict, message, warning=True)


def play_one(client: BotClient | None, game_name: str, variant: str, bot: str, players: int,
             seat: int, number: int, time_config: TimeConfig, secret: str) -> MatchResult:
    """One game with the candidate in ``seat`` and random bots in the others (no client: the
    candidate was stopped under the check, and its seat forfeits)."""
    seats = tuple(bot if s == seat else f"random-{s}" for s in range(players))
    clients: list[BotClient | None] = [client if s == seat else InProcessClient(RandomOpponent())
                                       for s in range(players)]
    seed = derive_seed("check-bot", secret, game_name, variant, players, number)
    game_id = opaque_id("check-bot", secret, game_name, variant, players, number)
    return Match(GAMES[game_name], variant, seats, seed, game_id, clients, time_config,
                 STRICT).play()


def first_fault(result: MatchResult, seat: int, bot: str, where: str) -> str | None:
    """The candidate's first fault in a game, as a message, or None."""
    faults = [f for f in result.faults if f.seat == seat]
    if not faults:
        return None
    fault = faults[0]
    return (f"{bot} faulted in {where} (seat {seat}), decision {fault.decision_id}: "
            f"{fault.fault_class}: {fault.detail}")


def games_per_count(games: int, players: int) -> int:
    """The games played at one player count: ``games``, and at least one in each seat."""
    return max(games, players)


def seatings(game_name: str, games: int, rotation: str) -> list[tuple[int, int]]:
    """The (player count, game number) of each game the candidate plays of one game and
    variant, in order; it sits in seat ``number % players``.

    ``full``: every seat of every player count, ``games`` at each. ``once``: seat ``s`` at
    the smallest count that has it (both seats of the smallest, then the last seat of each
    larger one): every seat and every count once, the last seat of each count, where bots
    that assume two players or moving first break. Its games are the full rotation's of
    the same number, so a failure names the same game.
    """
    game = GAMES[game_name]
    if rotation == "once":
        return [(max(game.min_players, seat + 1), seat) for seat in range(game.max_players)]
    return [(players, number) for players in range(game.min_players, game.max_players + 1)
            for number in range(games_per_count(games, players))]


def play_checks(participant: Participant, bot: str, game_name: str, variant: str, plan: Plan,
                seen: Seen, covered: Coverage) -> Check:
    """Play the games of :func:`seatings`: every player count the game allows, the bot in
    each seat in turn.

    Bots often assume two players, or that they move first; a five-player game in the
    last seat is where they break.
    """
    planned = seatings(game_name, plan.games, plan.rotation)
    covered.planned[game_name, variant] = dict(Counter(players for players, _ in planned))
    counts = list(covered.planned[game_name, variant])
    for players, number in planned:
        seat = number % players
        result = play_one(participant.client, game_name, variant, bot, players, seat,
                          number, plan.time_config, plan.secret)
        seen.add(result, seat)
        problem = first_fault(result, seat, bot, f"game {number + 1} of {players} players")
        if problem:
            return Check(f"play {game_name}/{variant}", False, problem)
        covered.finished(game_name, variant, players)
    seating = "every seat" if plan.rotation == "full" else "each seat once"
    return Check(f"play {game_name}/{variant}", True,
                 f"{counts[0]}-{counts[-1]} players, {seating}: every reply of {bot} legal "
                 "and in time")


def concurrency_check(participant: Participant, bot: str, game_name: str, variant: str,
                      plan: Plan, seen: Seen, covered: Coverage) -> Check:
    """Play ``at_once`` games at the same time on the one connection, as a tournament does.

    A bot that keeps one game's state in globals passes one game at a time
    and fails here.
    """
    players, at_once = GAMES[game_name].min_players, plan.at_once
    pool = ThreadPoolExecutor(max_workers=at_once, thread_name_prefix="check-bot")
    try:
        runs = [pool.submit(play_one, participant.client, game_name, variant, bot, players,
                            number % players, 1000 + number, plan.time_config, plan.secret)
                for number in range(at_once)]
        results = [run.result() for run in runs]
    finally:
        # Interrupted (SIGTERM, Ctrl-C): no waiting here for games the bot may hold; they
        # end when the bot is stopped.
        pool.shutdown(wait=False, cancel_futures=True)
    for number, result in enumerate(results):
        seen.add(result, number % players)
    problems = [first_fault(result, number % players, bot,
                            f"game {number + 1} of {at_once} played at once")
                for number, result in enumerate(results)]
    covered.at_once[game_name] = problems.count(None)
    problem = next((problem for problem in problems if problem), None)
    if problem:
        return Check(f"concurrent {game_name}", False, problem)
    where = f"on {at_once} processes" if participant.lanes else "on one connection"
    return Check(f"concurrent {game_name}", True,
                 f"{at_once} games at once {where}, every reply legal and in time")


def _percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def timing_check(times_ms: list[float], move_ms: int, strict: bool = False) -> Check:
    """The decision times against the move time (a decision that timed out counted, as
    long as it took); a warning (with ``strict``, a failure) when their p99 comes within
    :data:`SLOW_SHARE` of the move time or passes it: such a bot lives on its time bank,
    and a busier machine than this one times it out."""
    if not times_ms:
        return Check("timing", False, "no decision was answered")
    ordered = sorted(times_ms)
    p99 = _percentile(ordered, 0.99)
    figures = (f"{len(ordered)} decisions: median {statistics.median(ordered):.1f} ms, "
               f"p90 {_percentile(ordered, 0.9):.1f} ms, p99 {p99:.1f} ms, "
               f"max {ordered[-1]:.1f} ms, of --move-ms {move_ms}")
    if p99 < SLOW_SHARE * move_ms:
        return Check("timing", True, figures)
    risk = ("p99 exceeds it: decisions draw on the time bank" if p99 > move_ms else
            f"p99 is {100 * p99 / move_ms:.0f}% of it: a busier machine may time it out")
    return warned("timing", f"{figures}; {risk}", strict)


#: Below this many decisions with a choice, choosing the same index every time proves
#: nothing (a random bot does it at two or three).
DEGENERATE_FROM = 10


def choices_check(choices: list[int], strict: bool = False) -> Check:
    """Whether the bot chose: one that takes the same index at every decision (choice 0,
    say, the fallback of a handler that fails) plays every game, legally, and no better
    than that index. A warning (with ``strict``, a failure)."""
    distinct = set(choices)
    if len(choices) < DEGENERATE_FROM or len(distinct) > 1:
        return Check("choices", True, f"{len(choices)} decisions with more than one legal "
                                      f"action, {len(distinct)} different indices chosen")
    return warned("choices", f"degenerate: {len(choices)} of {len(choices)} decisions were "
                             f"choice {choices[0]} (decisions with one legal action not "
                             "counted): does its decide handler fail and fall back?", strict)


#: The bot's own last lines a log check quotes.
LAST_LINES = 3


def log_check(log: Path, since: int, kept: bool, strict: bool = False) -> Check:
    """What the bot wrote to its log during the run (its stderr; over gRPC its stdout
    too) from byte ``since``, as a tournament's log will hold it: how many lines and the
    last few. A warning (with ``strict``, a failure) when a line reports a failure: a bot
    that writes a traceback at every decision and answers anyway passes every other check.
    ``kept``: the log stays after the run, and the line says where."""
    try:
        with open(log, "rb") as file:
            file.seek(since)
            text = file.read().decode(errors="replace")
    except OSError:
        text = ""
    own = [line.split("] ", 1)[1] for line in text.splitlines() if line.startswith("[run ")]
    where = f"; the log is kept: {log}" if kept else ""
    if not own:
        return Check("log", True, f"nothing written to its log{where}")
    last = " | ".join(line.strip()[:120] for line in own[-LAST_LINES:])
    troubled = sum(bool(TROUBLE.search(line)) for line in own)
    written = f"{len(own)} line(s) written to its log"
    if not troubled:
        return Check("log", True, f"{written}, the last: {last}{where}")
    return warned("log", f"{troubled} of the {written} report an error, as a tournament's "
                         f"log will show; the last: {last}{where}", strict)


#: What a reply-reading fault of a stdio bot says when a line on its stdout was not the
#: reply: a stray line (a debug print), after which every reply may be read one late.
STRAY_LINE = ("the reply is not JSON", "the reply is not a JSON object", "in the reply (expected",
              "answered with the case")


def noting_knock_ons(checks: Iterator[Check]) -> Iterator[Check]:
    """The checks, a failure after one caused by a stray line marked as maybe its knock-on:
    the first problem is the one to fix."""
    stray: Check | None = None
    for check in checks:
        if not check.passed and stray is not None:
            check = replace(check, message=f"{check.message} (perhaps a knock-on of the stray "
                                           f"line that failed {stray.name!r}: fix that first)")
        elif not check.passed and any(words in check.message for words in STRAY_LINE):
            stray = check
        yield check


def check_bot(spec: BotSpec, only_game: str | None, games: int, time_config: TimeConfig,
              log_dir: Path | None = None, sandbox: bool = True, at_once: int = 3,
              private: tuple[Path, ...] = (), covered: Coverage | None = None,
              strict: bool = False, stop: threading.Event | None = None,
              memory_mb: int = LimitsConfig.memory_mb, rotation: str = "full",
              secret: str = "") -> Iterator[Check]:
    """Run every check, yielding each as it ends; stop early only when a later check
    cannot run. ``covered`` is filled in as games end.

    A ``command:`` bot is checked in the same sandbox a tournament gives it, with
    ``private`` (the organiser's databases) and its logs folder hidden, under
    ``memory_mb``. Without ``log_dir`` its log goes to a temporary folder, removed at the
    end unless a check failed (the log check says where it is kept), and removed when
    the run is interrupted (a SIGKILL leaves it: the next run removes it). Once ``stop``
    is set (from another thread: a Ctrl-C), the bot is stopped at once and no check
    follows.
    """
    plan = Plan(only_game, games, time_config, at_once, strict, memory_mb, rotation, secret)
    covered = covered if covered is not None else Coverage()
    covered.rotation = rotation
    stop = stop if stop is not None else threading.Event()
    if log_dir is not None:
        yield from _check_bot(spec, plan, log_dir, sandbox, private, covered, stop, True)
        return
    remove_stale_folders()
    temporary = Path(tempfile.mkdtemp(prefix=f"{TEMPORARY_PREFIX}{os.getpid()}-"))
    failed = False
    try:
        for check in _check_bot(spec, plan, temporary, sandbox, private, covered, stop,
                                False):
            failed = failed or not check.passed
            yield check
    finally:
        if failed and not stop.is_set():
            (temporary / KEPT).touch()
        else:
            shutil.rmtree(temporary, ignore_errors=True)


def remove_stale_folders() -> None:
    """Remove this user's temporary folders of check-bot runs that were killed (a SIGKILL
    runs no clean-up), told by the pid in their names: a process no longer running. A
    folder kept for its log stays for :data:`KEPT_S`."""
    for folder in Path(tempfile.gettempdir()).glob(f"{TEMPORARY_PREFIX}*-*"):
        pid = folder.name.removeprefix(TEMPORARY_PREFIX).split("-", 1)[0]
        kept = folder / KEPT
        try:
            ours = folder.is_dir() and folder.stat().st_uid == os.getuid()
            expired = kept.exists() and kept.stat().st_mtime < time.time() - KEPT_S
            left = not kept.exists() and pid.isdigit() and not _running(int(pid))
        except OSError:
            continue
        if ours and (expired or left):
            shutil.rmtree(folder, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass   # running, as another user
    return True


def _check_bot(spec: BotSpec, plan: Plan, log_dir: Path, sandbox: bool,
               private: tuple[Path, ...], covered: Coverage, stop: threading.Event,
               log_stays: bool) -> Iterator[Check]:
    participant = Participant(spec, log_dir, LimitsConfig(memory_mb=plan.memory_mb),
                              plan.time_config.startup_ms, sandbox=sandbox, private=private,
                              processes=plan.at_once)
    log = participant.wire_log
    since = log.stat().st_size if log.exists() else 0
    ended = threading.Event()
    stopper = threading.Thread(target=_stop_when_asked, args=(participant, stop, ended),
                               name="check-bot-stop", daemon=True)
    stopper.start()
    failed = False
    try:
        for check in noting_knock_ons(_checks(participant, spec, plan, covered, stop)):
            failed = failed or not check.passed
            yield check
    finally:
        ended.set()
        stopper.join()
        participant.stop()
    if spec.command is not None and not stop.is_set():
        check = log_check(log, since, kept=log_stays or failed, strict=plan.strict)
        # Failed itself (--strict): the run failed, so its log is kept after all.
        yield check if check.passed or log_stays or failed else log_check(
            log, since, kept=True, strict=plan.strict)


def _stop_when_asked(participant: Participant, stop: threading.Event,
                     ended: threading.Event) -> None:
    """Stop the bot the moment ``stop`` is set, until the checks have ended: every wait
    on the bot (a decision it holds, its start) then ends at once."""
    while not ended.is_set():
        if stop.wait(0.05):
            participant.stop()
            return


def start_hint(spec: BotSpec, error: BotStartError) -> str:
    """For a gRPC command with no address in it that ended before answering: the likely
    reason, a bot that talks on stdin and stdout (it read the end of its empty stdin). For a
    stdio bot that asks for an address: a gRPC bot; whose hello reply is not JSON: a line it
    printed first, a banner say."""
    command = spec.command or ""
    if spec.transport == "stdio" and "--address" in str(error):
        return ("; its output asks for an --address: if the bot is a gRPC server, check it "
                "without --transport stdio")
    if spec.transport == "stdio" and "the reply is not JSON" in str(error):
        return ("; a stdio bot's first line on stdout is read as its hello reply: write "
                "anything else to stderr")
    if (spec.transport == "grpc" and spec.command is not None and "before answering" in str(error)
            and "{address}" not in command and "{port}" not in command):
        return ("; its command has no {address}: if the bot talks on its stdin and stdout, "
                "check it with --transport stdio")
    return ""


def _checks(participant: Participant, spec: BotSpec, plan: Plan, covered: Coverage,
            stop: threading.Event) -> Iterator[Check]:
    try:
        participant.start(None)
    except BotStartError as error:
        if not stop.is_set():
            # One bot is checked, and before its Hello it has only check-bot's name for it.
            reason = str(error).removeprefix(f"bot {spec.name!r}: ")
            yield Check("handshake", False, f"{reason}{start_hint(spec, error)}")
        return
    for check in _checks_of_a_started_bot(participant, spec, plan, covered):
        if stop.is_set():
            return   # the bot was stopped under this check: its verdict means nothing
        yield check


def _checks_of_a_started_bot(participant: Participant, spec: BotSpec, plan: Plan,
                             covered: Coverage) -> Iterator[Check]:
    hello = participant.hello_response
    assert hello is not None, "a started bot has answered Hello"
    bot = hello.name or spec.name
    # Both versions labelled: HelloRequest.referee names the software, not the protocol.
    yield Check("handshake", True, f"{hello.name} {hello.version}, protocol "
                                   f"{hello.protocol_version} ({REFEREE_NAME} speaks "
                                   f"protocol {PROTOCOL_VERSION})")
    pairs, game_checks = claimed_games(participant)
    yield from game_checks
    if plan.only_game is not None:
        pairs = [(g, v) for g, v in pairs if g == plan.only_game]
        if not pairs and game_checks[0].passed:
            yield Check(f"play {plan.only_game}", False,
                        f"{bot} does not claim {plan.only_game!r}")
    seen = Seen()
    failed: set[str] = set()
    for game_name, variant in pairs:
        check = play_checks(participant, bot, game_name, variant, plan, seen, covered)
        if not check.passed:
            failed.add(game_name)
        yield check
    # Games at once only where games in turn passed: the first problem is the one to fix.
    for game_name, variant in first_variants(pairs):
        if plan.at_once > 1 and game_name not in failed:
            yield concurrency_check(participant, bot, game_name, variant, plan, seen,
                                    covered)
    if pairs:
        yield timing_check(seen.times_ms, plan.time_config.move_ms, plan.strict)
        yield choices_check(seen.choices, plan.strict)


def first_variants(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """One (game, variant) per game: concurrency is a property of the bot, not the variant."""
    firsts: dict[str, str] = {}
    for game, variant in pairs:
        firsts.setdefault(game, variant)
    return list(firsts.items())
