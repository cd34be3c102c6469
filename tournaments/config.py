"""Loading and checking a tournament config (``bots.yaml``).

Every problem is found before anything starts and reported as one
:class:`ConfigError` line naming the key and what is wrong with it. The
reference for every key is in the README ("bots.yaml reference").
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ratings.params import RatingConfig
from referee.games import GameConfigError, get_game
from referee.settings import (
    BOT_KINDS,
    DEFAULT_FAULTS,
    FAULT_CLASSES,
    FAULT_POLICIES,
    BotSpec,
    LimitsConfig,
    TimeConfig,
)

FORMATS = ("round-robin", "gauntlet")


class ConfigError(ValueError):
    """A config that cannot be run; the message is one line for the user."""


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
    faults: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_FAULTS))
    max_strikes: int = 3
    recover: bool = True
    max_restarts: int = 3
    limits: LimitsConfig = LimitsConfig()
    rating: RatingConfig = RatingConfig()
    # Run command: bots in the sandbox (referee.sandbox); a bot entry may override it.
    sandbox: bool = True
    # Derive deals from the seed and a secret kept in the store, not from the seed alone.
    secret_deals: bool = True

    def identity(self) -> dict[str, Any]:
        """What defines the games: the keys a resumed run must not change.

        Concurrency and how bots are reached (and sandboxed) may change between
        runs without changing which games are played.
        """
        data = asdict(self)
        data.pop("concurrency")
        data.pop("sandbox")
        data["bots"] = [bot.name for bot in self.bots]
        return data


TOP_KEYS = {"name", "game", "variant", "players", "rounds", "games_per_bot", "seed",
            "concurrency", "format", "challenger", "duplicate", "time", "faults",
            "max_strikes", "recover", "max_restarts", "limits", "rating", "bots",
            "sandbox", "secret_deals"}
COMMAND_KEYS = ("dir", "env", "sandbox")


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
        return parse_config(data, default_name=path.stem)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def parse_config(data: Any, default_name: str = "tournament") -> TournamentConfig:
    if not isinstance(data, dict):
        raise ConfigError("the config must be a mapping of keys to values")
    _no_unknown_keys(data, TOP_KEYS, "")
    game_name = _typed(data, "game", str, required=True)
    try:
        game = get_game(game_name)
        players = _typed(data, "players", int, default=game.min_players)
        variant = game.check(players, _typed(data, "variant", str))
    except GameConfigError as error:
        raise ConfigError(str(error)) from None
    sandbox = _typed(data, "sandbox", bool, default=True)
    bots = _bots(data.get("bots"), sandbox)
    if "rounds" in data and "games_per_bot" in data:
        raise ConfigError("give 'rounds' or 'games_per_bot', not both")
    if len(bots) < players:
        raise ConfigError(f"{len(bots)} bot(s) listed but the table has {players} seats")
    config = TournamentConfig(
        name=_typed(data, "name", str, default=default_name),
        game=game_name, variant=variant, players=players, bots=bots,
        rounds=_positive(data, "rounds", 1),
        games_per_bot=_positive(data, "games_per_bot", None),
        seed=_typed(data, "seed", int, default=1),
        concurrency=_positive(data, "concurrency", os.cpu_count() or 1),
        format=_choice(data, "format", FORMATS, "round-robin"),
        challenger=_typed(data, "challenger", str),
        duplicate=_typed(data, "duplicate", bool, default=True),
        time=_section(data, "time", TimeConfig),
        faults=_faults(data.get("faults")),
        max_strikes=_positive(data, "max_strikes", 3),
        recover=_typed(data, "recover", bool, default=True),
        max_restarts=_typed(data, "max_restarts", int, default=3),
        limits=_section(data, "limits", LimitsConfig),
        rating=_section(data, "rating", RatingConfig),
        sandbox=sandbox,
        secret_deals=_typed(data, "secret_deals", bool, default=True),
    )
    _check_format(config)
    return config


def _check_format(config: TournamentConfig) -> None:
    names = [bot.name for bot in config.bots]
    if config.format == "gauntlet":
        if config.challenger is None:
            raise ConfigError("format: gauntlet needs `challenger: NAME`")
        if config.challenger not in names:
            raise ConfigError(f"challenger {config.challenger!r} is not one of the bots")
    elif config.challenger is not None:
        raise ConfigError("`challenger` is only for format: gauntlet")


def _no_unknown_keys(data: dict, allowed: set[str], where: str) -> None:
    for key in data:
        if key not in allowed:
            raise ConfigError(f"unknown key {where}{key!r} "
                              f"(allowed: {', '.join(sorted(allowed))})")


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
        raise ConfigError(f"{where}{key!r} must be {kind.__name__}, not {value!r}")
    return value


def _positive(data: dict, key: str, default: int | None, where: str = "") -> int | None:
    value = _typed(data, key, int, default=default, where=where)
    if value is not None and value < 1:
        raise ConfigError(f"{where}{key!r} must be at least 1, not {value}")
    return value


def _choice(data: dict, key: str, choices: tuple[str, ...], default: str) -> str:
    value = _typed(data, key, str, default=default)
    if value not in choices:
        raise ConfigError(f"{key!r} must be one of {', '.join(choices)}, not {value!r}")
    return value


def _section(data: dict, key: str, cls: type) -> Any:
    section = data.get(key) or {}
    if not isinstance(section, dict):
        raise ConfigError(f"{key!r} must be a mapping")
    fields = cls.__dataclass_fields__
    _no_unknown_keys(section, set(fields), f"{key}.")
    values = {}
    for name, spec in fields.items():
        kind = float if spec.type in ("float", float) else int
        value = _typed(section, name, kind, where=f"{key}.")
        if value is not None:
            if value < 0 or (kind is int and value == 0 and name != "cpu_seconds"):
                raise ConfigError(f"{key}.{name} must be positive, not {value}")
            values[name] = value
    return cls(**values)


def _faults(section: Any) -> dict[str, str]:
    """``faults:`` as a policy per class: ``all: void`` or ``timeout: forfeit``."""
    faults = dict(DEFAULT_FAULTS)
    if section is None:
        return faults
    if isinstance(section, str):
        section = {"all": section}
    if not isinstance(section, dict):
        raise ConfigError("'faults' must be a policy or a mapping of fault class to policy")
    _no_unknown_keys(section, {"all", *FAULT_CLASSES}, "faults.")
    for key, policy in section.items():
        if policy not in FAULT_POLICIES:
            raise ConfigError(f"faults.{key} must be one of {', '.join(FAULT_POLICIES)}, "
                              f"not {policy!r}")
    if "all" in section:
        faults = dict.fromkeys(FAULT_CLASSES, section["all"])
    faults.update({key: value for key, value in section.items() if key != "all"})
    return faults


def _bots(section: Any, sandbox: bool) -> tuple[BotSpec, ...]:
    if not isinstance(section, list) or not section:
        raise ConfigError("'bots' must be a non-empty list")
    bots: list[BotSpec] = []
    seen: set[str] = set()
    for number, entry in enumerate(section, 1):
        where = f"bots[{number}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where} must be a mapping with a name and a command, "
                              "address or python")
        _no_unknown_keys(entry, {"name", *BOT_KINDS, *COMMAND_KEYS}, f"{where}.")
        name = _typed(entry, "name", str, required=True, where=f"{where}.")
        if name in seen:
            raise ConfigError(f"duplicate bot name {name!r}")
        seen.add(name)
        ways = [kind for kind in BOT_KINDS if entry.get(kind) is not None]
        if len(ways) != 1:
            found = " and ".join(ways) if ways else "none"
            raise ConfigError(f"bot {name!r} needs exactly one of command, address, python "
                              f"(found {found})")
        value = _typed(entry, ways[0], str, where=f"bot {name!r}: ")
        bots.append(BotSpec(name=name, **{ways[0]: value}, **_command_keys(entry, name, sandbox)))
    return tuple(bots)


def _command_keys(entry: dict, name: str, sandbox: bool) -> dict[str, Any]:
    """A bot entry's ``dir``, ``env`` and ``sandbox``, which only ``command:`` bots take."""
    where = f"bot {name!r}: "
    given = [key for key in COMMAND_KEYS if entry.get(key) is not None]
    if entry.get("command") is None:
        if given:
            raise ConfigError(f"{where}{', '.join(given)} only for command: bots")
        return {}
    folder = _typed(entry, "dir", str, where=where)
    if folder is not None and not Path(folder).is_dir():
        raise ConfigError(f"{where}dir {folder!r} is not a folder")
    env = entry.get("env") or {}
    if not isinstance(env, dict) or not all(
            isinstance(key, str) and isinstance(value, (str, int, float)) for key, value in env.items()):
        raise ConfigError(f"{where}env must be a mapping of names to strings")
    own = _typed(entry, "sandbox", bool, where=where)
    if (sandbox if own is None else own) and "{port}" in entry["command"]:
        raise ConfigError(f"{where}{{port}} needs `sandbox: false`; a sandboxed bot listens on "
                          "{address}")
    return {"dir": folder, "env": tuple((key, str(value)) for key, value in env.items()),
            "sandbox": own}
