"""An arena's config, ``arena.yaml``: its name, the service's keys and the ladder's.

The ``arena:`` section says where the service listens and keeps its files, and the
limits of the uploads; the ``ladder:`` section is the ladder's own (docs/arena.md), passed
to it as it is. check-bot gates a version for the game the ladder plays: the ladder's
``game``, ``variant`` and ``players``, at its matches' clock and sandbox (``match:``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tournaments.config import (
    ConfigError,
    TournamentConfig,
    no_unknown_keys,
    _typed,
    parse_config,
)
from tournaments.store import DEFAULT_DB

#: The service's keys, under ``arena:``, with their defaults.
ARENA_DEFAULTS: dict[str, Any] = {
    "db": str(DEFAULT_DB), "data": None, "host": "127.0.0.1", "port": 8080,
    "max_upload_mb": 5, "max_files": 500, "max_unpacked_mb": 50,
    "versions_per_day": 10, "uploads_per_hour": 20, "gate_games": 1,
    "similar_code": 0.5, "test_match_games": 4, "test_matches_per_hour": 6,
    "invite_hours": 72, "replays": "seat", "full_after_deadline": True,
    "webhook_hosts": None, "crashes_in_a_row": 3,
    "max_connections": 1000, "streams_per_address": 100,
}
#: What a replay shows during the season: to an entrant its own seats' views, to others
#: what every seat saw; or every card to everyone.
REPLAY_VIEWS = ("seat", "full")
#: The ladder's defaults of what the gate reads from its section.
LADDER_DEFAULTS: dict[str, Any] = {"name": "arena", "game": "flea-circus", "players": 2}
#: The keys of a match's tournament the gate plays by.
GATE_MATCH_KEYS = ("time", "sandbox")
#: A bot that fills the other seats of check-bot's config (check-bot plays its own
#: opponents; the config only needs a full table to hold).
FILLER = "bots.random_bot:RandomBot"
MB = 1 << 20
MAX_PORT = 65535


@dataclass(frozen=True)
class Limits:
    """What one upload and one entrant may use."""

    upload_bytes: int
    files: int
    unpacked_bytes: int
    versions_per_day: int
    uploads_per_hour: int


@dataclass(frozen=True)
class ArenaConfig:
    """An arena's settings; ``raw`` is the whole file (the ladder's section is read from it)."""

    raw: dict[str, Any]
    name: str
    db: Path
    data: Path
    host: str
    port: int
    limits: Limits
    gate_games: int
    # The organiser is shown the pairs of versions one of which holds at least this
    # share of the other's code.
    similar_code: float
    # A test match's most games, and how many an entrant may ask for in an hour.
    test_match_games: int
    test_matches_per_hour: int
    # How long an invite link lasts.
    invite_hours: int
    # "seat" or "full" (REPLAY_VIEWS); with full_after_deadline, full once the ladder's
    # deadline has passed.
    replays: str
    full_after_deadline: bool
    # The only hosts a webhook may name (None: any whose addresses are all public), and
    # how many games in a row a version crashes in before its entrant's webhook hears.
    webhook_hosts: tuple[str, ...] | None
    crashes_in_a_row: int
    # The connections the service holds at once (beyond them: HTTP 503), and the open
    # pages' event streams one address may hold of them (a school behind one address
    # shares it).
    max_connections: int
    streams_per_address: int

    @property
    def versions_dir(self) -> Path:
        """Every accepted version's files: ``ENTRANT/FINGERPRINT/``."""
        return self.data / "versions"

    @property
    def gates_dir(self) -> Path:
        """check-bot's log of every version's gate: ``VERSION/``."""
        return self.data / "gates"

    @property
    def staging_dir(self) -> Path:
        """Uploads being unpacked and checked, moved into ``versions_dir`` once accepted."""
        return self.data / "staging"

    @property
    def report_dir(self) -> Path:
        """The finals' public report and its replays, once published."""
        return self.data / "report"

    @property
    def ladder(self) -> dict[str, Any]:
        """The ``ladder:`` mapping, for the ladder."""
        section: dict[str, Any] = self.raw.get("ladder") or {}
        return section

    @property
    def ladder_prefix(self) -> str:
        """How the names of the ladder's matches (each a tournament) begin."""
        return f"{self.ladder.get('name', LADDER_DEFAULTS['name'])}-m"

    @property
    def test_match_prefix(self) -> str:
        """How the names of the entrants' test matches (each a tournament) begin: not as
        the ladder's, so the board and the ratings never take them."""
        return f"{self.ladder.get('name', LADDER_DEFAULTS['name'])}-t"

    def gate_config(self, entry: dict[str, Any]) -> TournamentConfig:
        """The tournament check-bot gates ``entry`` for: the ladder's game, variant and
        seats, its matches' clock and sandbox, the entry in the first seat and fillers in
        the others."""
        ladder = {**LADDER_DEFAULTS, **self.ladder}
        match = ladder.get("match") or {}
        keys = {"game": ladder["game"], "variant": ladder.get("variant"),
                "players": ladder["players"],
                **{key: match[key] for key in GATE_MATCH_KEYS if key in match}}
        fillers = [{"name": f"filler-{seat}", "python": FILLER}
                   for seat in range(1, int(keys["players"]))]
        return parse_config({**keys, "bots": [entry, *fillers]})


def load_arena_config(path: Path) -> ArenaConfig:
    """Read and check ``arena.yaml``; :class:`ConfigError` naming the key on any problem.
    Relative paths are taken from the file's folder."""
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    except (yaml.YAMLError, UnicodeDecodeError):
        raise ConfigError(f"{path}: not valid YAML") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a mapping of keys to values")
    try:
        return arena_config(data, path.parent.resolve(), path.stem)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def arena_config(data: dict[str, Any], folder: Path, default_name: str) -> ArenaConfig:
    """An arena's settings from its parsed YAML; relative paths from ``folder``."""
    no_unknown_keys(data, {"name", "arena", "ladder"}, "")
    _typed(data, "ladder", dict)
    section = _typed(data, "arena", dict, default={})
    no_unknown_keys(section, set(ARENA_DEFAULTS), "arena.")
    values = {**ARENA_DEFAULTS, **{key: value for key, value in section.items()
                                   if value is not None}}
    numbers = {key: _positive(values, key) for key, default in ARENA_DEFAULTS.items()
               if isinstance(default, int) and not isinstance(default, bool)}
    if numbers["port"] > MAX_PORT:
        raise ConfigError(f"'arena.port' must be at most {MAX_PORT}, not {numbers['port']}")
    db = folder / _typed(values, "db", str, where="arena.")
    data_dir = values["data"]
    arena = ArenaConfig(
        raw=data, name=_typed(data, "name", str, default=default_name),
        db=db, data=folder / _typed(values, "data", str, where="arena.") if data_dir
        else db.parent / "arena",
        host=_typed(values, "host", str, where="arena."), port=numbers["port"],
        limits=Limits(numbers["max_upload_mb"] * MB, numbers["max_files"],
                      numbers["max_unpacked_mb"] * MB, numbers["versions_per_day"],
                      numbers["uploads_per_hour"]),
        gate_games=numbers["gate_games"], similar_code=_share(values, "similar_code"),
        test_match_games=numbers["test_match_games"],
        test_matches_per_hour=numbers["test_matches_per_hour"],
        invite_hours=numbers["invite_hours"],
        replays=_choice(values, "replays", REPLAY_VIEWS),
        full_after_deadline=_typed(values, "full_after_deadline", bool, where="arena."),
        webhook_hosts=_hosts(values), crashes_in_a_row=numbers["crashes_in_a_row"],
        max_connections=numbers["max_connections"],
        streams_per_address=numbers["streams_per_address"])
    # The gate's keys hold as a tournament's would (a gate of a placeholder entry).
    arena.gate_config({"name": "placeholder", "python": FILLER})
    return arena


def _hosts(values: dict[str, Any]) -> tuple[str, ...] | None:
    hosts = _typed(values, "webhook_hosts", list, where="arena.")
    if hosts is None:
        return None
    if not all(isinstance(host, str) and host for host in hosts):
        raise ConfigError(f"'arena.webhook_hosts' must be a list of host names, not {hosts!r}")
    return tuple(hosts)


def _choice(values: dict[str, Any], key: str, choices: tuple[str, ...]) -> str:
    value = _typed(values, key, str, where="arena.")
    if value not in choices:
        raise ConfigError(f"'arena.{key}' must be one of {', '.join(choices)}, not {value!r}")
    return str(value)


def _positive(values: dict[str, Any], key: str) -> int:
    value = _typed(values, key, int, where="arena.")
    if value < 1:
        raise ConfigError(f"'arena.{key}' must be at least 1, not {value}")
    return int(value)


def _share(values: dict[str, Any], key: str) -> float:
    value = float(_typed(values, key, float, where="arena."))
    if not 0 < value <= 1:
        raise ConfigError(f"'arena.{key}' must be a share over 0 and at most 1, not {value}")
    return value
