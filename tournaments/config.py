"""Loading and checking a tournament config (``bots.yaml``).

Every problem is found before anything starts and reported as one
:class:`ConfigError` line naming the key and what is wrong with it. The
reference for every key is in docs/tournaments.md ("bots.yaml reference").
"""

from __future__ import annotations

import difflib
import math
import os
import re
import reprlib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import yaml

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

from circus_outcomes import FaultClass, Policy
from ratings.params import RatingConfig
from referee.errors import CircusError
from referee.games import GameConfigError, get_game
from referee.settings import (
    BOT_KINDS,
    DEFAULT_FAULTS,
    FAULT_CLASSES,
    FAULT_POLICIES,
    TRANSPORTS,
    BotSpec,
    LimitsConfig,
    TimeConfig,
)

FORMATS = ("round-robin", "gauntlet", "swiss", "ab")
# What `stop: {when: ...}` knows: settled, the leaderboard's order is known.
STOP_RULES = ("settled",)
#: Deals in one round of format: ab (the SPRT is checked after each round, deal by deal).
AB_DEALS_PER_ROUND = 8

# Bot and tournament names become file and folder names: letters, digits, '.', '_'
# and '-', starting with a letter or digit, so no name is empty, hidden, a path
# (`../x`, `/abs`, `a/b`) or holds a control character.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
NAME_RULE = "1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"

# The largest tournament: the schedule is built in memory, about 250 bytes a game.
MAX_GAMES = 100_000

# (lowest, highest) of every number in a config; docs/tournaments.md lists them.
BOUNDS: dict[str, tuple[float, float]] = {
    # rounds and games_per_bot are bounded by MAX_GAMES, with the count in the message.
    "rounds": (1, 10**18), "games_per_bot": (1, 10**18),
    "seed": (0, 2**63 - 1), "concurrency": (1, 256), "max_strikes": (1, 1000),
    "max_restarts": (0, 1000), "suspend_after": (0, 1_000_000),
    "time.move_ms": (1, 3_600_000), "time.bank_ms": (1, 3_600_000),
    "time.startup_ms": (1, 3_600_000), "time.call_ms": (1, 3_600_000),
    "time.grace_ms": (1, 3_600_000),
    "limits.memory_mb": (1, 1_048_576), "limits.cpu_seconds": (0, 604_800),
    "limits.message_bytes": (1, 1_073_741_824), "limits.processes": (1, 100_000),
    "limits.open_files": (16, 1_048_576), "limits.log_bytes": (1024, 2**40),
    "limits.tmp_mb": (1, 1_048_576), "limits.cpus": (0.01, 1024),
    "rating.mu": (-10_000, 10_000), "rating.sigma": (0.001, 10_000),
    "rating.beta": (0.001, 10_000), "rating.tau": (0, 10_000),
    "rating.draw_probability": (0.001, 0.99),  # 0 cannot rate a tie
    "stop.confidence": (0.5, 0.999999), "stop.min_games_per_bot": (0, 10**9),
    "sprt.elo0": (-2000, 2000), "sprt.elo1": (-2000, 2000),
    "sprt.alpha": (0.000001, 0.5), "sprt.beta": (0.000001, 0.5),
}


class ConfigError(CircusError, ValueError):
    """A config that cannot be run; the message is one line for the user."""


@dataclass(frozen=True)
class StopConfig:
    """``stop:``: end a round robin or Swiss tournament once its order is settled.

    Checked at round ends only, from the stored games of the rounds played, so a
    resumed or concurrent run stops at the same round.
    """

    when: str = "settled"
    # Every pair of neighbours on the leaderboard ordered with at least this LOS.
    confidence: float = 0.95
    # ... and every bot with at least this many rated games.
    min_games_per_bot: int = 0


@dataclass(frozen=True)
class SprtConfig:
    """``sprt:`` of ``format: ab``: H0 elo(A − B) = elo0 against H1 = elo1 (logistic Elo),
    with error rates alpha (accepting H1 under H0) and beta (H0 under H1)."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05


@dataclass(frozen=True)
class TournamentConfig:
    name: str
    game: str
    variant: str
    players: int
    bots: tuple[BotSpec, ...]
    rounds: int = 1
    games_per_bot: int | None = None
    seed: int = 1
    concurrency: int = field(default_factory=lambda: os.cpu_count() or 1)
    format: str = "round-robin"
    challenger: str | None = None
    duplicate: bool = True
    time: TimeConfig = TimeConfig()
    faults: dict[FaultClass, Policy] = field(default_factory=lambda: dict(DEFAULT_FAULTS))
    max_strikes: int = 3
    recover: bool = True
    max_restarts: int = 3
    # Consecutive faulted games after which a bot sits out the rest (0: never).
    suspend_after: int = 10
    limits: LimitsConfig = LimitsConfig()
    rating: RatingConfig = RatingConfig()
    # Run command: bots in the sandbox (referee.sandbox); a bot entry may override it.
    sandbox: bool = True
    # Derive deals from the seed and a secret kept in the store, not from the seed alone.
    secret_deals: bool = True
    # Start command: and python: bots afresh before each seat rotation of the
    # duplicate deals, so no bot remembers a deal it is dealt again.
    renew_bots: bool = True
    # Send the bots' names in StartGame.seat_names; by default they get seat labels, so
    # a bot does not learn whom it plays (two bots of one author could collude).
    reveal_names: bool = False
    # Early stopping (round-robin and swiss).
    stop: StopConfig | None = None
    # format: ab: the new bot, the old one, and the test deciding between them.
    a: str | None = None
    b: str | None = None
    sprt: SprtConfig | None = None
    # A Dask scheduler (tcp://HOST:PORT) whose workers play the games; None: this machine.
    cluster: str | None = None

    def time_for(self, bot: str) -> TimeConfig:
        """The time control of ``bot``'s seats: its own ``time:``, else the tournament's."""
        spec = next((spec for spec in self.bots if spec.name == bot), None)
        return spec.time if spec is not None and spec.time is not None else self.time

    def identity(self) -> dict[str, Any]:
        """What defines the games: the keys a resumed run must not change.

        Concurrency, how bots are reached (and sandboxed), whether they are
        started afresh between rotations and where games run (a cluster) may
        change between runs without changing which games are played.
        """
        return self._identity(asdict(self))

    def record(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The whole config and its :meth:`identity`, in JSON's shape (as the store keeps
        them), from one ``asdict``: the ladder records a small tournament every match."""
        whole = asdict(self)
        return jsonable(whole), jsonable(self._identity(dict(whole)))

    def _identity(self, data: dict[str, Any]) -> dict[str, Any]:
        """:meth:`identity` from ``data``, the config's ``asdict`` (its top level changed)."""
        data.pop("concurrency")
        data.pop("cluster")
        data.pop("sandbox")
        data.pop("renew_bots")
        data["bots"] = [bot.name for bot in self.bots]
        # A handicap changes the games; listed only when given, so older records still match.
        handicaps = {bot.name: asdict(bot.time) for bot in self.bots if bot.time is not None}
        if handicaps:
            data["bot_time"] = handicaps
        # What bots know of each other changes how they play; listed only when names are
        # revealed, so older records still match.
        if not self.reveal_names:
            data.pop("reveal_names")
        # Which bots remember decides which games share a deal.
        data["remembering"] = [bot.name for bot in self.bots if bot.remembers]
        return data


def jsonable(value: object) -> Any:
    """Tuples become lists, as they would after a round trip through JSON (a config's
    identity is compared with the stored one); JSON's shape, as ``json.loads`` types it."""
    if isinstance(value, dict):
        return {key: jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    return value


TOP_KEYS = {"name", "game", "variant", "players", "rounds", "games_per_bot", "seed",
            "concurrency", "format", "challenger", "duplicate", "time", "faults",
            "max_strikes", "recover", "max_restarts", "suspend_after", "limits", "rating",
            "bots", "sandbox", "secret_deals", "renew_bots", "reveal_names", "stop", "a", "b",
            "sprt", "cluster"}
COMMAND_KEYS = ("dir", "env", "mounts", "sandbox", "transport")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def load_config(path: str | Path) -> TournamentConfig:
    """Read and check a config file; raise :class:`ConfigError` on any problem."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise ConfigError(f"{path}: not valid YAML{where}") from None
    try:
        return parse_config(data, default_name=path.stem, folder=path.resolve().parent)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def parse_config(data: Any, default_name: str = "tournament",
                 folder: Path | None = None) -> TournamentConfig:
    """A config from its parsed YAML; ``folder`` is the config file's.

    A ``command:`` bot runs in ``folder`` (or its ``dir:``, relative to
    ``folder``), so a config means the same from any shell folder; without
    ``folder`` (a config built in code) it runs in the referee's.
    """
    if not isinstance(data, dict):
        raise ConfigError("the config must be a mapping of keys to values")
    no_unknown_keys(data, TOP_KEYS, "")
    game_name = _typed(data, "game", str, required=True)
    try:
        game = get_game(game_name)
        players = _typed(data, "players", int, default=game.min_players)
        variant = game.check(players, _typed(data, "variant", str))
    except GameConfigError as error:
        raise ConfigError(str(error)) from None
    sandbox = _typed(data, "sandbox", bool, default=True)
    time = _section(data, "time", TimeConfig)
    bots = _bots(data.get("bots"), sandbox, folder, time)
    if "rounds" in data and "games_per_bot" in data:
        raise ConfigError("give 'rounds' or 'games_per_bot', not both")
    if len(bots) < players:
        raise ConfigError(f"{len(bots)} bot(s) listed but the table has {players} seats")
    fmt = _choice(data, "format", FORMATS, "round-robin")
    config = TournamentConfig(
        name=_tournament_name(data, default_name),
        game=game_name, variant=variant, players=players, bots=bots,
        rounds=_number(data, "rounds", 1),
        games_per_bot=_number(data, "games_per_bot", None),
        seed=_number(data, "seed", 1),
        concurrency=_number(data, "concurrency", min(os.cpu_count() or 1, 256)),
        format=fmt,
        challenger=_typed(data, "challenger", str),
        duplicate=_typed(data, "duplicate", bool, default=True),
        time=time,
        faults=_faults(data.get("faults")),
        max_strikes=_number(data, "max_strikes", 3),
        recover=_typed(data, "recover", bool, default=True),
        max_restarts=_number(data, "max_restarts", 3),
        suspend_after=_number(data, "suspend_after", 10),
        limits=_section(data, "limits", LimitsConfig),
        rating=_section(data, "rating", RatingConfig),
        sandbox=sandbox,
        secret_deals=_typed(data, "secret_deals", bool, default=True),
        renew_bots=_typed(data, "renew_bots", bool, default=True),
        reveal_names=_typed(data, "reveal_names", bool, default=False),
        stop=_stop(data.get("stop")),
        a=_typed(data, "a", str), b=_typed(data, "b", str),
        sprt=_sprt(data, fmt),
        cluster=_cluster(data),
    )
    _check_format(config)
    _check_size(config)
    return config


def _cluster(data: dict) -> str | None:
    """``cluster:``, a Dask scheduler's address such as tcp://10.0.0.5:8786."""
    address = _typed(data, "cluster", str)
    if address is not None and (not address.strip() or any(
            ord(char) < 32 or ord(char) == 127 for char in address)):
        raise ConfigError(f"cluster {address!r} is not a scheduler address "
                          "(such as tcp://10.0.0.5:8786)")
    return address


def _tournament_name(data: dict, default_name: str) -> str:
    if data.get("name") is not None:
        return _checked_name(_typed(data, "name", str), "tournament name")
    if not NAME.fullmatch(default_name):
        raise ConfigError(f"the file name gives the tournament name {default_name!r}, which is "
                          f"not allowed ({NAME_RULE}): give `name:`")
    return default_name


def _checked_name(name: str, what: str) -> str:
    if not NAME.fullmatch(name):
        raise ConfigError(f"{what} {name!r} is not allowed: use {NAME_RULE}")
    return name


def fillers(config: TournamentConfig) -> list[str]:
    """format: ab: the bots that fill the other seats, in config order."""
    return [bot.name for bot in config.bots if bot.name not in (config.a, config.b)]


def ab_tables_per_deal(bots: int) -> int:
    """format: ab: a deal's tables: A's and B's with fillers (more than two bots), else
    the one table of A against B."""
    return 2 if bots > 2 else 1


def games_per_deal(fmt: str, players: int, bots: int) -> int:
    """The games of one group, which share a deal with ``duplicate``: each of its tables
    (A's and B's in an A/B test with fillers) in every seat rotation."""
    return players * (ab_tables_per_deal(bots) if fmt == "ab" else 1)


def tables_per_round(config: TournamentConfig) -> int:
    """The tables of one round (for format: ab, the A and the B tables of its deals)."""
    bots, seats = len(config.bots), config.players
    if config.format == "gauntlet":
        return math.comb(bots - 1, seats - 1)
    if config.format == "swiss":
        return bots // seats
    if config.format == "ab":
        return AB_DEALS_PER_ROUND * ab_tables_per_deal(bots)
    return math.comb(bots, seats)


def games_per_round(config: TournamentConfig) -> int:
    """Every table of a round is played in every seat rotation."""
    return tables_per_round(config) * config.players


def fewest_games_per_round(config: TournamentConfig) -> int:
    """The games of one round for the bot that plays fewest of them (a Swiss bye aside)."""
    bots, seats = len(config.bots), config.players
    if config.format == "gauntlet":
        # A bot other than the challenger sits at the tables holding it.
        return math.comb(bots - 2, seats - 2) * seats
    if config.format in ("swiss", "ab"):
        # A Swiss bot plays its table's rotations; A (and B) one table per deal.
        return seats * (AB_DEALS_PER_ROUND if config.format == "ab" else 1)
    return math.comb(bots - 1, seats - 1) * seats


def rounds_needed(config: TournamentConfig) -> int:
    """``rounds``, or the fewest rounds giving every bot ``games_per_bot`` games."""
    if not config.games_per_bot:
        return config.rounds
    rounds = math.ceil(config.games_per_bot / fewest_games_per_round(config))
    if config.format == "swiss" and rounds * games_per_round(config) <= MAX_GAMES:
        # Byes rotate fairly: after r rounds no bot has sat out more than ceil(r·byes/n).
        bots, byes = len(config.bots), len(config.bots) % config.players
        while (rounds - math.ceil(rounds * byes / bots)) * config.players < config.games_per_bot:
            rounds += 1
    return rounds


def game_count(config: TournamentConfig) -> int:
    """How many games the schedule makes, counted without making them (the most, with
    ``stop`` or an SPRT that may end it sooner)."""
    return rounds_needed(config) * games_per_round(config)


def _check_size(config: TournamentConfig) -> None:
    count = game_count(config)
    if count > MAX_GAMES:
        hint = ("fewer rounds or games_per_bot" if config.format in ("swiss", "ab") else
                "fewer rounds or bots, games_per_bot, or format: swiss, whose rounds grow "
                "linearly with the field")
        raise ConfigError(f"this schedule makes {count:,} games; the limit is {MAX_GAMES:,} "
                          f"({hint})")


def _check_format(config: TournamentConfig) -> None:
    names = [bot.name for bot in config.bots]
    if config.format == "gauntlet":
        if config.challenger is None:
            raise ConfigError("format: gauntlet needs `challenger: NAME`")
        if config.challenger not in names:
            raise ConfigError(f"challenger {config.challenger!r} is not one of the bots")
    elif config.challenger is not None:
        raise ConfigError("`challenger` is only for format: gauntlet")
    if config.format == "ab":
        _check_ab(config, names)
    elif config.a is not None or config.b is not None:
        raise ConfigError("`a` and `b` are only for format: ab")
    if config.stop is not None and config.format not in ("round-robin", "swiss"):
        why = " (an A/B test stops by its SPRT)" if config.format == "ab" else ""
        raise ConfigError(f"`stop` is for format: round-robin or swiss, not {config.format}{why}")


def _check_ab(config: TournamentConfig, names: list[str]) -> None:
    for key in ("a", "b"):
        value = getattr(config, key)
        if value is None:
            raise ConfigError(f"format: ab needs `{key}: NAME` (a: the new bot, b: the old)")
        if value not in names:
            raise ConfigError(f"{key} {value!r} is not one of the bots")
    if config.a == config.b:
        raise ConfigError("a and b must be two different bots")
    others = len(fillers(config))
    if others and others < config.players - 1 or not others and config.players != 2:
        raise ConfigError(f"format: ab with players: {config.players} needs at least "
                          f"{config.players - 1} filler bot(s) besides a and b (has {others}); "
                          "without fillers, players: 2 plays a against b")
    assert config.sprt is not None
    if not config.sprt.elo0 < config.sprt.elo1:
        raise ConfigError(f"sprt.elo0 must be below sprt.elo1 (got {config.sprt.elo0:g} and "
                          f"{config.sprt.elo1:g})")


def _stop(section: Any) -> StopConfig | None:
    """``stop: {when: settled, confidence: 0.95, min_games_per_bot: N}``."""
    if section is None:
        return None
    if not isinstance(section, dict):
        raise ConfigError("'stop' must be a mapping, e.g. {when: settled, confidence: 0.95}")
    no_unknown_keys(section, set(StopConfig.__dataclass_fields__), "stop.")
    when = _typed(section, "when", str, required=True, where="stop.")
    if when not in STOP_RULES:
        raise ConfigError(f"stop.when must be one of {', '.join(STOP_RULES)}, not {when!r}")
    confidence = _typed(section, "confidence", float, default=0.95, where="stop.")
    _check_bounds("stop.confidence", confidence)
    least = _typed(section, "min_games_per_bot", int, default=0, where="stop.")
    _check_bounds("stop.min_games_per_bot", least)
    return StopConfig(when, confidence, least)


def _sprt(data: dict, fmt: str) -> SprtConfig | None:
    """``sprt:``, which only ``format: ab`` takes."""
    if fmt == "ab":
        return _section(data, "sprt", SprtConfig)
    if data.get("sprt") is not None:
        raise ConfigError("`sprt` is only for format: ab")
    return None


def no_unknown_keys(data: dict, allowed: set[str], where: str) -> None:
    """Refuse a key not in ``allowed``, naming the allowed key it is likely a typo of."""
    for key in data:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            guess = f"did you mean {close[0]!r}? " if close else ""
            raise ConfigError(f"unknown key {where}{key!r} "
                              f"({guess}allowed: {', '.join(sorted(allowed))})")


#: A wrong value as an error shows it, cut short: YAML's aliases make a list of a
#: billion items in a few lines (an entrant's manifest is anyone's).
_SHORT = reprlib.Repr()
_SHORT.maxlevel = 2


def _typed(data: dict, key: str, kind: type, default: Any = None, required: bool = False,
           where: str = "") -> Any:
    if key not in data or data[key] is None:
        if required:
            raise ConfigError(f"missing required key {where}{key!r}")
        return default
    value = data[key]
    # bool is an int in Python; a `players: true` is still a mistake.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        raise ConfigError(f"{where}{key!r} must be {kind.__name__}, "
                          f"not {_SHORT.repr(value)}")
    return value


#: A number's default: an int, or None where a missing key means "not given".
_Default = TypeVar("_Default", int, None)


def _number(data: dict, key: str, default: _Default) -> int | _Default:
    """An integer within its ``BOUNDS``."""
    value: int | _Default = _typed(data, key, int, default=default)
    if value is not None:
        _check_bounds(key, value)
    return value


def _check_bounds(key: str, value: float) -> None:
    low, high = BOUNDS[key]
    if not (math.isfinite(value) and low <= value <= high):
        raise ConfigError(f"{key} must be from {low:,} to {high:,}, not {value!r}")


def _choice(data: dict, key: str, choices: tuple[str, ...], default: str) -> str:
    value = _typed(data, key, str, default=default)
    if value not in choices:
        raise ConfigError(f"{key!r} must be one of {', '.join(choices)}, not {value!r}")
    return value


_Section = TypeVar("_Section", bound="DataclassInstance")


def _section(data: dict, key: str, cls: type[_Section], base: _Section | None = None,
             where: str = "") -> _Section:
    """A mapping of numbers (and flags) as ``cls``; keys not given come from ``base`` (or
    the defaults)."""
    section = data.get(key) or {}
    if not isinstance(section, dict):
        raise ConfigError(f"{where}{key!r} must be a mapping")
    specs = fields(cls)
    no_unknown_keys(section, {spec.name for spec in specs}, f"{where}{key}.")
    values: dict[str, float] = {}
    for spec in specs:
        kind = (float if spec.type in ("float", float) else
                bool if spec.type in ("bool", bool) else int)
        value = _typed(section, spec.name, kind, where=f"{where}{key}.")
        if value is not None and kind is not bool:
            try:
                _check_bounds(f"{key}.{spec.name}", value)
            except ConfigError as error:
                raise ConfigError(f"{where}{error}") from None
        if value is not None:
            values[spec.name] = value
    return replace(base, **values) if base is not None else cls(**values)


def _faults(section: Any) -> dict[FaultClass, Policy]:
    """``faults:`` as a policy per class: ``all: void`` or ``timeout: forfeit``."""
    faults = dict(DEFAULT_FAULTS)
    if section is None:
        return faults
    if isinstance(section, str):
        section = {"all": section}
    if not isinstance(section, dict):
        raise ConfigError("'faults' must be a policy or a mapping of fault class to policy")
    no_unknown_keys(section, {"all", *FAULT_CLASSES}, "faults.")
    for key, policy in section.items():
        if policy not in FAULT_POLICIES:
            raise ConfigError(f"faults.{key} must be one of {', '.join(FAULT_POLICIES)}, "
                              f"not {policy!r}")
    if "all" in section:
        faults = dict.fromkeys(FAULT_CLASSES, Policy(section["all"]))
    faults.update({FaultClass(key): Policy(value) for key, value in section.items()
                   if key != "all"})
    return faults


def _bots(section: Any, sandbox: bool, folder: Path | None,
          time: TimeConfig) -> tuple[BotSpec, ...]:
    if not isinstance(section, list) or not section:
        raise ConfigError("'bots' must be a non-empty list")
    bots: list[BotSpec] = []
    seen: set[str] = set()
    for index, entry in enumerate(section):
        where = f"bots[{index}]"  # counted from 0, as YAML paths (yq, JSON Pointer) count
        if not isinstance(entry, dict):
            raise ConfigError(f"{where} must be a mapping with a name and a command, "
                              "address, python or policy")
        no_unknown_keys(entry, {"name", "memory", "debug", "time", "policy", *BOT_KINDS,
                                 *COMMAND_KEYS}, f"{where}.")
        entry = _policy_as_command(entry, where, folder)
        name = _checked_name(_typed(entry, "name", str, required=True, where=f"{where}."),
                             "bot name")
        if name in seen:
            raise ConfigError(f"duplicate bot name {name!r}")
        seen.add(name)
        ways = [kind for kind in BOT_KINDS if entry.get(kind) is not None]
        if len(ways) != 1:
            found = " and ".join(ways) if ways else "none"
            raise ConfigError(f"bot {name!r} needs exactly one of command, address, python, "
                              f"policy (found {found})")
        value = _typed(entry, ways[0], str, where=f"bot {name!r}: ")
        if any(ord(char) < 32 or ord(char) == 127 for char in value):
            raise ConfigError(f"bot {name!r}: {ways[0]} holds a control character")
        if not value.strip():
            raise ConfigError(f"bot {name!r}: {ways[0]} is empty")
        module, _, bot_class = value.partition(":")
        if ways[0] == "python" and not (module and bot_class):
            raise ConfigError(f"bot {name!r}: python: {value!r} must look like module:Class "
                              "(bots.random_bot:RandomBot)")
        memory = _typed(entry, "memory", bool, where=f"bot {name!r}: ")
        if memory is False and ways[0] == "address":
            raise ConfigError(f"bot {name!r}: memory: false is only for command: and python: "
                              "bots (the referee cannot start an address: bot afresh)")
        debug = _typed(entry, "debug", bool, default=False, where=f"bot {name!r}: ")
        # A handicap: the keys given replace the tournament's for this bot's seats.
        own_time = (_section(entry, "time", TimeConfig, time, f"bot {name!r}: ")
                    if entry.get("time") is not None else None)
        bots.append(BotSpec(name=name, **{ways[0]: value}, memory=memory, debug=debug,
                            time=own_time,
                            **_command_keys(entry, name, sandbox, folder)))
    return tuple(bots)


#: The command a ``policy:`` entry stands for: the weight file's bot (training.policy_bot).
POLICY_COMMAND = "python -m training.policy_bot --policy {file} --address {{address}}"


def _policy_as_command(entry: dict, where: str, config_folder: Path | None) -> dict:
    """A ``policy: FILE.npz`` entry as the ``command:`` entry it stands for: the weight
    file's bot, sandboxed like every command bot, its ``dir:`` the file's folder (so the
    sandbox shows the file and nothing beside it that is not in that folder)."""
    if entry.get("policy") is None:
        return entry
    given = [key for key in (*BOT_KINDS, "dir") if entry.get(key) is not None]
    if given:
        raise ConfigError(f"{where}: policy: names the bot's file and folder; drop "
                          f"{', '.join(given)}")
    policy = _typed(entry, "policy", str, where=f"{where}: ")
    path = Path(config_folder / policy if config_folder else policy)
    if "\0" in policy or path.suffix != ".npz" or not path.is_file():
        raise ConfigError(f"{where}: policy {policy!r} is not a .npz weight file"
                          + (f" (in {config_folder})" if config_folder else ""))
    if not re.fullmatch(r"[\w.+-]+", path.name):
        raise ConfigError(f"{where}: policy {policy!r}: a weight file's name takes letters, "
                          "digits and . _ + - only")
    rest = {key: value for key, value in entry.items() if key != "policy"}
    return {**rest, "command": POLICY_COMMAND.format(file=path.name),
            "dir": str(path.parent)}


def _command_keys(entry: dict, name: str, sandbox: bool,
                  config_folder: Path | None) -> dict[str, Any]:
    """A bot entry's ``dir``, ``env``, ``mounts`` and ``sandbox``, which only ``command:``
    bots take, and its working directory without ``dir``: the config's folder."""
    where = f"bot {name!r}: "
    given = [key for key in COMMAND_KEYS if entry.get(key) is not None]
    if entry.get("command") is None:
        if given:
            raise ConfigError(f"{where}{', '.join(given)} only for command: bots")
        return {}
    folder = _typed(entry, "dir", str, where=where)
    if folder is not None and "\0" not in folder and config_folder is not None:
        folder = str(config_folder / folder)
    if folder is not None and ("\0" in folder or not Path(folder).is_dir()):
        raise ConfigError(f"{where}dir {entry['dir']!r} is not a folder"
                          + (f" (in {config_folder})" if config_folder else ""))
    env = entry.get("env") or {}
    if not isinstance(env, dict) or not all(
            isinstance(key, str) and ENV_NAME.fullmatch(key)
            and isinstance(value, (str, int, float)) and "\0" not in str(value)
            for key, value in env.items()):
        raise ConfigError(f"{where}env must map variable names (letters, digits, _) to strings")
    own = _typed(entry, "sandbox", bool, where=where)
    transport = _transport(entry, where)
    if (sandbox if own is None else own) and "{port}" in entry["command"]:
        raise ConfigError(f"{where}{{port}} needs `sandbox: false`; a sandboxed bot listens on "
                          "{address}")
    return {"dir": folder, "env": tuple((key, str(value)) for key, value in env.items()),
            "mounts": mount_paths(entry.get("mounts"), where, config_folder),
            "sandbox": own, "cwd": str(config_folder) if config_folder else None,
            "transport": transport}


def _transport(entry: dict, where: str) -> str:
    """A ``command:`` entry's ``transport``: gRPC (the default) or stdio, whose command
    takes no address (it reads its stdin)."""
    transport = _typed(entry, "transport", str, default="grpc", where=where)
    if transport not in TRANSPORTS:
        raise ConfigError(f"{where}transport must be one of {', '.join(TRANSPORTS)}, "
                          f"not {transport!r}")
    if transport == "stdio" and ("{address}" in entry["command"] or "{port}" in entry["command"]):
        raise ConfigError(f"{where}a stdio bot talks on its stdin and stdout: its command "
                          "takes no {address} or {port}")
    return transport


def mount_paths(section: Any, where: str, config_folder: Path | None) -> tuple[str, ...]:
    """A bot entry's ``mounts:``: existing host paths (relative ones from the config's
    folder) its sandbox shows read-only, besides its own files."""
    if section is None:
        return ()
    if not isinstance(section, list) or not all(isinstance(item, str) and item and
                                                "\0" not in item for item in section):
        raise ConfigError(f"{where}mounts must be a list of paths")
    paths = []
    for item in section:
        path = Path(config_folder / item if config_folder else item).resolve()
        if not path.exists():
            raise ConfigError(f"{where}mounts: {item!r} does not exist"
                              + (f" (in {config_folder})" if config_folder else ""))
        if path == Path("/"):
            raise ConfigError(f"{where}mounts: {item!r} would show the whole host; name the "
                              "folders the bot needs")
        paths.append(str(path))
    return tuple(paths)
