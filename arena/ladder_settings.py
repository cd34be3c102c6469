"""The ladder's settings: the ``ladder:`` section of the arena's YAML, checked once.

Every problem is one :class:`~tournaments.config.ConfigError` line naming the key. The
keys and their defaults are in docs/arena-ladder.md; a match's own tournament keys
(``time``, ``limits``, ``faults``, ``sandbox``, ``concurrency``, ``cluster``, ...) go
under ``match:`` and are checked by the tournament config itself, with the bosses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ratings.board import PROVISIONAL_SIGMA
from ratings.params import RatingConfig
from tournaments.config import NAME, NAME_RULE, ConfigError, no_unknown_keys, parse_config

#: How a new version's rating starts: afresh, or at its entrant's previous version's mu
#: with the starting sigma (so it is placed quickly, from where its author was).
NEW_RATINGS = ("fresh", "inherit")
FINALS_FORMATS = ("round-robin", "swiss")


@dataclass(frozen=True)
class League:
    """A league and its boss: a version is promoted out of it when the duplicate-deal
    verdict says, at ``confidence``, that it beats the boss; the test gives up after
    ``max_deal_sets`` deal sets without a verdict."""

    name: str
    boss: dict[str, Any]
    confidence: float = 0.95
    max_deal_sets: int = 100

    @property
    def boss_name(self) -> str:
        return str(self.boss["name"])


@dataclass(frozen=True)
class Finals:
    """The finals among each entrant's final version: a tournament of ``format`` with
    duplicate deals that stops when the verdict settles at ``confidence`` or after about
    ``max_games`` games (whole rounds)."""

    format: str = "round-robin"
    confidence: float = 0.95
    max_games: int = 2000


@dataclass(frozen=True)
class LadderSettings:
    name: str = "arena"
    game: str = "flea-circus"
    variant: str | None = None
    players: int = 2
    seed: int = 1
    # Deals per ladder match: each played in every seat rotation. A match starts its bots
    # afresh, so more deals spread that cost over more games.
    deals: int = 4
    # Matches played at once (a batch, all chosen from the results before it).
    parallel: int = 1
    # Matches a new version plays first, against opponents chosen around its rating.
    placement_matches: int = 4
    # A version's rating has settled below this sigma; unsettled ones are chosen
    # ``unsettled_weight`` times as often.
    settled_sigma: float = PROVISIONAL_SIGMA * RatingConfig().sigma
    unsettled_weight: float = 4.0
    new_rating: str = "fresh"
    # The most games started in an hour (None: no cap).
    games_per_hour: int | None = None
    # While a promotion test is open, every n-th match is one.
    promotion_every: int = 2
    rating: RatingConfig = RatingConfig()
    # Keys of each match's tournament config (time, limits, faults, sandbox, ...).
    match: dict[str, Any] = field(default_factory=dict)
    leagues: tuple[League, ...] = ()
    # The league of a version that beat every boss.
    top_league: str = "top"
    # Two versions are flagged when they chose the same action at >= ``similar_share``
    # of at least ``similar_points`` identical decision points.
    similar_share: float = 0.9
    similar_points: int = 30
    finals: Finals = Finals()
    # After it no new match starts (finals may then be run); None: no deadline.
    deadline: datetime | None = None
    logs: Path | None = None

    def logs_dir(self, db_path: Path) -> Path:
        """Where the matches' bots write their logs, a folder per match: ``logs``, else
        beside the store."""
        return self.logs or db_path.parent / "logs"


#: Keys of ``match:`` the ladder sets itself.
OWN_MATCH_KEYS = {"name", "game", "variant", "players", "bots", "rounds", "games_per_bot",
                  "seed", "format", "challenger", "duplicate", "rating", "stop", "a", "b",
                  "sprt"}
TOP_KEYS = {"name", "game", "variant", "players", "seed", "deals", "parallel",
            "placement_matches", "settled_sigma", "unsettled_weight", "new_rating",
            "games_per_hour", "promotion_every", "rating", "match", "leagues", "top_league",
            "similarity", "finals", "deadline", "logs"}


def ladder_settings(data: dict[str, Any] | None) -> LadderSettings:
    """The settings from the ``ladder:`` mapping (None: every default)."""
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise ConfigError("ladder: must be a mapping")
    no_unknown_keys(data, TOP_KEYS, "ladder.")
    match = _get(data, "match", dict, {})
    own = sorted(OWN_MATCH_KEYS & set(match))
    if own:
        raise ConfigError(f"ladder.match: {', '.join(own)} are set by the ladder itself")
    rating = _get(data, "rating", dict, {})
    no_unknown_keys(rating, set(RatingConfig.__dataclass_fields__), "ladder.rating.")
    name = _get(data, "name", str, "arena")
    if not NAME.fullmatch(name):
        raise ConfigError(f"ladder.name {name!r} is not allowed: use {NAME_RULE}")
    similarity = _get(data, "similarity", dict, {})
    no_unknown_keys(similarity, {"share", "points"}, "ladder.similarity.")
    settings = LadderSettings(
        name=name, game=_get(data, "game", str, "flea-circus"),
        variant=_get(data, "variant", str, None),
        players=_count(data, "players", 2, least=2), seed=_count(data, "seed", 1, least=0),
        deals=_count(data, "deals", 4), parallel=_count(data, "parallel", 1),
        placement_matches=_count(data, "placement_matches", 4, least=0),
        settled_sigma=_positive(data, "settled_sigma", LadderSettings.settled_sigma),
        unsettled_weight=_positive(data, "unsettled_weight", 4.0),
        new_rating=_choice(data, "new_rating", NEW_RATINGS),
        games_per_hour=None if data.get("games_per_hour") is None
        else _count(data, "games_per_hour", 1),
        promotion_every=_count(data, "promotion_every", 2),
        rating=RatingConfig(**{key: _get(rating, key, float, 0.0, "ladder.rating.")
                               for key in rating if rating[key] is not None}),
        match=match, leagues=_leagues(data.get("leagues")),
        top_league=_get(data, "top_league", str, "top"),
        similar_share=_fraction(similarity, "share", 0.9, "ladder.similarity."),
        similar_points=_count(similarity, "points", 30, where="ladder.similarity."),
        finals=_finals(data.get("finals")), deadline=deadline_of(data.get("deadline")),
        logs=None if data.get("logs") is None else Path(_get(data, "logs", str, "")))
    _check_with_tournament_config(settings)
    return settings


def _check_with_tournament_config(settings: LadderSettings) -> None:
    """Let the tournament config judge what it owns: the game, the seats, the rating,
    the match keys and the bosses' entries, as one match would take them."""
    bosses = [league.boss for league in settings.leagues]
    names = [boss.get("name") for boss in bosses]
    if len(set(names)) != len(names):
        raise ConfigError("ladder.leagues: two bosses have one name")
    leagues = [league.name for league in settings.leagues]
    if len(set(leagues)) != len(leagues) or settings.top_league in leagues:
        raise ConfigError("ladder.leagues: two leagues (or a league and top_league) have one "
                          "name")
    fillers = [{"name": f"check-{seat}", "python": "bots.random_bot:RandomBot"}
               for seat in range(settings.players)]
    try:
        parse_config(match_data(settings, "check", bosses + fillers, 1, 1))
    except ConfigError as error:
        raise ConfigError(f"ladder: {error}") from None


def match_data(settings: LadderSettings, name: str, bots: list[dict[str, Any]], seed: int,
               deals: int) -> dict[str, Any]:
    """A match's tournament config, as ``parse_config`` takes it (and the store keeps it):
    a round robin of ``deals`` rounds, each deal in every seat rotation."""
    rating = {key: getattr(settings.rating, key) for key in RatingConfig.__dataclass_fields__}
    return {**settings.match, "name": name, "game": settings.game,
            **({"variant": settings.variant} if settings.variant else {}),
            "players": settings.players, "rounds": deals, "seed": seed, "duplicate": True,
            "rating": rating, "bots": bots}


def _leagues(section: Any) -> tuple[League, ...]:
    if section is None:
        return ()
    if not isinstance(section, list):
        raise ConfigError("ladder.leagues must be a list of {name, boss, confidence}")
    leagues = []
    for number, entry in enumerate(section, 1):
        where = f"ladder.leagues[{number}]."
        if not isinstance(entry, dict):
            raise ConfigError(f"{where[:-1]} must be a mapping with a name and a boss")
        no_unknown_keys(entry, {"name", "boss", "confidence", "max_deal_sets"}, where)
        boss = _get(entry, "boss", dict, None, where)
        if boss is None:
            raise ConfigError(f"{where}boss is missing: a bots.yaml entry (name, command...)")
        leagues.append(League(_get(entry, "name", str, f"league-{number}", where), boss,
                              _share(entry, "confidence", 0.95, where),
                              _count(entry, "max_deal_sets", 100, where=where)))
    return tuple(leagues)


def _finals(section: Any) -> Finals:
    section = {} if section is None else section
    if not isinstance(section, dict):
        raise ConfigError("ladder.finals must be a mapping")
    no_unknown_keys(section, {"format", "confidence", "max_games"}, "ladder.finals.")
    return Finals(_choice(section, "format", FINALS_FORMATS, "ladder.finals."),
                  _share(section, "confidence", 0.95, "ladder.finals."),
                  _count(section, "max_games", 2000, where="ladder.finals."))


def deadline_of(value: Any) -> datetime | None:
    """A deadline as the settings (or the organiser's page) give it: ISO 8601 with its
    time zone; None or empty: none."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        found = value
    else:
        try:
            found = datetime.fromisoformat(str(value).strip())
        except ValueError:
            raise ConfigError(f"ladder.deadline {value!r} is not a date and time such as "
                              "2027-01-31T23:59:00+00:00") from None
    if found.tzinfo is None:
        raise ConfigError("ladder.deadline needs its time zone (such as +00:00)")
    return found


def _get(data: dict[str, Any], key: str, kind: type, default: Any, where: str = "ladder.") -> Any:
    value = data.get(key)
    if value is None:
        return default
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(f"{where}{key} must be {kind.__name__}, not {value!r}")
    return value


def _count(data: dict[str, Any], key: str, default: int, least: int = 1,
           where: str = "ladder.") -> int:
    value: int = _get(data, key, int, default, where)
    if value < least:
        raise ConfigError(f"{where}{key} must be at least {least}, not {value}")
    return value


def _positive(data: dict[str, Any], key: str, default: float) -> float:
    value: float = _get(data, key, float, default)
    if not (math.isfinite(value) and value > 0):
        raise ConfigError(f"ladder.{key} must be a positive number, not {value!r}")
    return value


def _share(data: dict[str, Any], key: str, default: float, where: str) -> float:
    value: float = _get(data, key, float, default, where)
    if not 0.5 <= value < 1:
        raise ConfigError(f"{where}{key} must be from 0.5 to below 1, not {value!r}")
    return value


def _fraction(data: dict[str, Any], key: str, default: float, where: str) -> float:
    value: float = _get(data, key, float, default, where)
    if not 0 < value <= 1:
        raise ConfigError(f"{where}{key} must be above 0 and at most 1, not {value!r}")
    return value


def _choice(data: dict[str, Any], key: str, choices: tuple[str, ...],
            where: str = "ladder.") -> str:
    value: str = _get(data, key, str, choices[0], where)
    if value not in choices:
        raise ConfigError(f"{where}{key} must be one of {', '.join(choices)}, not {value!r}")
    return value
