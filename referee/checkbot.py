"""``check-bot``: a conformance check of one bot, like a chess engine tester's compliance mode.

It starts (or connects to) the bot, checks the handshake and the games it
claims, plays a few games of each claimed game and variant against the random
bot, and reports pass or fail for each check with a message saying what to
fix. Any fault ends that game's check: the first problem is the one to fix.
"""

from __future__ import annotations

import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bots.random_bot import RandomBot
from referee.clients import InProcessClient
from referee.games import GAMES
from referee.match import FaultPolicy, Match
from referee.participants import BotStartError, Participant
from referee.seeds import derive_seed
from referee.settings import FAULT_CLASSES, BotSpec, LimitsConfig, TimeConfig
from referee.wire import PROTOCOL_VERSION

CANDIDATE = "candidate"
# Forfeit on the first fault: the rest of the game is substituted, not asked.
STRICT = FaultPolicy(dict.fromkeys(FAULT_CLASSES, "forfeit"), max_strikes=1)


@dataclass(frozen=True)
class Check:
    name: str
    passed: bool
    message: str

    def line(self) -> str:
        return f"{'PASS' if self.passed else 'FAIL'}  {self.name}: {self.message}"


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


def play_checks(participant: Participant, game_name: str, variant: str, games: int,
                time_config: TimeConfig, times_ms: list[float]) -> Check:
    """Play ``games`` games in turn in every seat; fail on the candidate's first fault."""
    game = GAMES[game_name]
    players = game.min_players
    for number in range(games):
        seat = number % players
        seats = tuple(CANDIDATE if s == seat else f"random-{s}" for s in range(players))
        clients = [participant.client if s == seat else InProcessClient(RandomBot())
                   for s in range(players)]
        seed = derive_seed("check-bot", game_name, variant, number)
        match = Match(game, variant, seats, seed, f"check-bot/{game_name}/{variant}/{number}",
                      clients, time_config, STRICT)
        result = match.play()
        times_ms += [ms for s, _, ms in result.times if s == seat]
        faults = [f for f in result.faults if f.seat == seat]
        if faults:
            fault = faults[0]
            return Check(f"play {game_name}/{variant}", False,
                         f"game {number + 1} (seat {seat}), decision {fault.decision_id}: "
                         f"{fault.fault_class}: {fault.detail}")
    return Check(f"play {game_name}/{variant}", True,
                 f"{games} game(s), every reply legal and in time")


def timing_check(times_ms: list[float]) -> Check:
    if not times_ms:
        return Check("timing", False, "no decision was answered")
    ordered = sorted(times_ms)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return Check("timing", True, f"{len(ordered)} decisions: median "
                                 f"{statistics.median(ordered):.1f} ms, p99 {p99:.1f} ms, "
                                 f"max {ordered[-1]:.1f} ms")


def check_bot(spec: BotSpec, only_game: str | None, games: int, time_config: TimeConfig,
              log_dir: Path | None = None, sandbox: bool = True) -> list[Check]:
    """Run every check; stop early only when a later check cannot run.

    A ``command:`` bot is checked in the same sandbox a tournament gives it.
    """
    log_dir = log_dir or Path(tempfile.mkdtemp(prefix="check-bot-"))
    participant = Participant(spec, log_dir, LimitsConfig(), time_config.startup_ms,
                              sandbox=sandbox)
    try:
        participant.start(None)
    except BotStartError as error:
        return [Check("handshake", False, str(error))]
    try:
        hello = participant.hello_response
        checks = [Check("handshake", True, f"{hello.name} {hello.version}, protocol "
                                           f"{hello.protocol_version} (referee {PROTOCOL_VERSION})")]
        pairs, game_checks = claimed_games(participant)
        checks += game_checks
        if only_game is not None:
            pairs = [(g, v) for g, v in pairs if g == only_game]
            if not pairs and game_checks[0].passed:
                checks.append(Check(f"play {only_game}", False,
                                    f"the bot does not claim {only_game!r}"))
        times_ms: list[float] = []
        for game_name, variant in pairs:
            checks.append(play_checks(participant, game_name, variant, games, time_config,
                                      times_ms))
        if pairs:
            checks.append(timing_check(times_ms))
        return checks
    finally:
        participant.stop()
