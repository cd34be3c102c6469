"""What each page shows, as plain data: the routes render it, tests read it.

Who may see what is decided here, once: the board, a passed version's page and the
ladder's replays are public (a replay shows no fault details: they quote a bot's
errors); a version's code, gate, log, faults and pack are its entrant's and the
organiser's; a test match is its asker's and the organiser's, whoever played in it. A
version or a game of another entrant's is, to an entrant, as if it did not exist. During
the season a replay holds only its own seats' views to an entrant, only what every seat
saw to everyone else, every card to the organiser.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from arena import private, unrated
from arena.service import Arena
from arena.store import Entrant, GateState, UnratedMatch, Version
from pages.replays import replay_page
from ratings.formatting import collusion_verdict
from ratings.trueskill_ratings import Z95
from tournaments.packs import bot_logs
from tournaments.store import StoredGame

#: Where the service serves the replay viewer's files (pages/static): every replay links them.
STATIC = "/static/"

#: Games on the board, a version's page and an entrant's.
RECENT = 20
#: The end of a version's log in a match that its entrant is shown.
LOG_TAIL = 20000


def standings(arena: Arena) -> tuple[list[str], list[dict[str, Any]]]:
    """The ladder's standings as a table: its columns and rows, each place numbered,
    ratings to two decimals, and beside a rating its 95% interval."""
    rows = [{"place": place, **_shown(dataclasses.asdict(row))}
            for place, row in enumerate(arena.ladder.standings(), 1)]
    columns = list(rows[0]) if rows else []
    return columns, rows


def _cell(value: Any) -> Any:
    """A standing's value as the table shows it: a rating to two decimals, yes or no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    return "" if value is None else value


def _shown(row: dict[str, Any]) -> dict[str, Any]:
    mu, sigma = row.get("mu"), row.get("sigma")
    shown = {key: _cell(value) for key, value in row.items()}
    if not (isinstance(mu, float) and isinstance(sigma, float)):
        return shown
    interval = f"{mu - Z95 * sigma:.1f} .. {mu + Z95 * sigma:.1f}"
    keys = list(shown)
    at = keys.index("sigma") + 1
    return {key: shown[key] for key in keys[:at]} | {"95% interval": interval} | \
        {key: shown[key] for key in keys[at:]}


def game_row(game: StoredGame, versions: dict[str, Version]) -> dict[str, Any]:
    return {"id": game.id, "finished": game.finished_at, "status": game.status,
            "seats": [{"name": seat, "public": _public(versions.get(seat)),
                       "score": score, "rank": rank}
                      for seat, score, rank in zip(game.seats, game.scores, game.ranks)]}


def _public(version: Version | None) -> bool:
    return version is not None and version.state == GateState.PASSED


def board(arena: Arena) -> dict[str, Any]:
    columns, rows = standings(arena)
    versions = {version.id: version for version in arena.store.versions()}
    return {"columns": columns, "rows": rows, "playing": arena.ladder.running,
            "verdict": arena.ladder.verdict([row["version"] for row in rows if row["games"]]),
            "report": (arena.config.report_dir / "index.html").exists(),
            "deadline": arena.ladder.deadline(),
            "pages": {name for name, version in versions.items() if _public(version)},
            "games": [game_row(game, versions)
                      for game in arena.games.latest(RECENT)]}


def bot_page(arena: Arena, version_id: str) -> dict[str, Any] | None:
    """A version's public page, if it passed its gate."""
    version = arena.store.version(version_id)
    if not _public(version):
        return None
    assert version is not None
    columns, rows = standings(arena)
    versions = {found.id: found for found in arena.store.versions()}
    games = arena.games.latest(RECENT, {version.id})
    return {"version": version, "columns": columns,
            "rows": [row for row in rows if version.id in map(str, row.values())],
            "promotions": arena.ladder.promotions(version.id),
            "games": [game_row(game, versions) for game in games]}


def public_replay(arena: Arena, game_id: int, viewer: Entrant | None) -> str | None:
    """A ladder game's replay, with no fault details: during the season only what every
    seat saw, unless the organiser looks."""
    game = arena.games.game(game_id)
    if game is None:
        return None
    full = full_replays(arena) or _organiser(viewer)
    return replay_page(game, [], static=STATIC, seats=None if full else ())


def full_replays(arena: Arena) -> bool:
    """Whether every replay shows every card to everyone now: the organiser says so all
    season, or the season is over (the deadline passed, or the finals froze the ladder)."""
    config = arena.config
    return config.replays == "full" or (config.full_after_deadline and arena.ladder.closed())


def _organiser(viewer: Entrant | None) -> bool:
    return viewer is not None and viewer.role == "organiser"


# -- an entrant's own pages ---------------------------------------------------------


def own_version(arena: Arena, entrant: Entrant, version_id: str) -> Version | None:
    version = arena.store.version(version_id)
    if version is None or (version.entrant != entrant.name and entrant.role != "organiser"):
        return None
    return version


def my_versions(arena: Arena, entrant: Entrant) -> list[dict[str, Any]]:
    return [{"version": version, "gate": arena.store.gate(version.id)}
            for version in arena.store.versions(entrant.name)]


def own_games(arena: Arena, names: set[str]) -> list[StoredGame]:
    return arena.games.latest(RECENT, names) if names else []


def version_page(arena: Arena, entrant: Entrant, version_id: str) -> dict[str, Any] | None:
    """A version's private page: its gate and its games."""
    version = own_version(arena, entrant, version_id)
    if version is None:
        return None
    versions = {found.id: found for found in arena.store.versions()}
    return {"version": version, "gate": arena.store.gate(version.id),
            "games": [{**game_row(game, versions),
                       "faults": arena.games.faults(game, {version.id})}
                      for game in own_games(arena, {version.id})]}


def my_games(arena: Arena, entrant: Entrant) -> list[dict[str, Any]]:
    """The entrant's latest games, each with their own versions' faults in it (a crash's
    or a fault's reason; another's are its own)."""
    names = {version.id for version in arena.store.versions(entrant.name)}
    versions = {found.id: found for found in arena.store.versions()}
    return [{**game_row(game, versions), "mine": sorted(names & set(game.seats)),
             "faults": arena.games.faults(game, names)}
            for game in own_games(arena, names)]


def head_to_head(arena: Arena, entrant: Entrant) -> list[private.Meeting]:
    """The entrant's versions against each opponent version, over their stored games."""
    names = {version.id for version in arena.store.versions(entrant.name)}
    return private.head_to_head(arena.games.placings(names) if names else [], names)


def replay_seats(arena: Arena, game: StoredGame, names: set[str]) -> list[int] | None:
    """The seats whose views the entrant of versions ``names`` is shown of ``game``: the
    seats they sat in during the season, every view (None) once replays are full."""
    if full_replays(arena):
        return None
    return [seat for seat, name in enumerate(game.seats) if name in names]


def version_pack(arena: Arena, entrant: Entrant, version_id: str) -> bytes | None:
    """A .zip of one of the entrant's versions' latest games: their list, its faults, and
    each replay as the entrant may see it (their own seats' views during the season)."""
    version = own_version(arena, entrant, version_id)
    if version is None:
        return None
    names = {version.id}
    return private.version_pack(
        version.id, arena.games.latest(private.PACK_GAMES, names),
        lambda game: arena.games.faults(game, names),
        lambda game: None if _organiser(entrant) else replay_seats(arena, game, names))


def own_game(arena: Arena, entrant: Entrant, game_id: int
             ) -> tuple[StoredGame, set[str]] | None:
    """A game the entrant may see as its own, and the versions in it whose faults and
    logs it is shown: a ladder game one of its versions played; a test match's game
    only to the entrant who asked for it (and the organiser), whoever else played."""
    game = arena.games.game(game_id)
    owner = entrant.name
    if game is None:
        game = arena.games.unrated_game(game_id)
        match = arena.store.unrated_match(game.tournament) if game is not None else None
        if match is None or (match.entrant != entrant.name and entrant.role != "organiser"):
            return None
        owner = match.entrant
    assert game is not None
    names = {version.id for version in arena.store.versions(owner)} & set(game.seats)
    return (game, names) if names else None


def own_replay(arena: Arena, entrant: Entrant, game_id: int) -> str | None:
    """A game of the entrant's versions, marking their own faults only: during the season
    only their own seats' views (each seat one of their versions sat in); the organiser
    sees every card."""
    found = own_game(arena, entrant, game_id)
    if found is None:
        return None
    game, names = found
    return replay_page(game, arena.games.faults(game, names), static=STATIC,
                       seats=None if _organiser(entrant) else replay_seats(arena, game, names))


def own_game_log(arena: Arena, entrant: Entrant, game_id: int) -> str | None:
    """What the entrant's versions wrote to their logs in a game's match (each bot's log
    is its match's: the games of one match share it), the end of each."""
    found = own_game(arena, entrant, game_id)
    match = arena.games.match(found[0]) if found is not None else None
    if found is None or match is None:
        return None
    names = found[1]
    parts = []
    log_dir = Path(match.log_dir or ".")
    for name in sorted(names):
        # One log, or after a match on a cluster one per worker that played it.
        for path in bot_logs(log_dir, name) or [log_dir / f"{name}.log"]:
            where = "" if path.parent == log_dir else f" (worker {path.parent.name})"
            try:
                text = path.read_text(errors="replace")[-LOG_TAIL:]
            except OSError:
                text = "(no log)"
            parts.append(f"== {name} in {match.name}{where}\n{text}")
    return "\n".join(parts)


def my_unrated(arena: Arena, entrant: Entrant) -> dict[str, Any]:
    """The entrant's test matches, each with its results and games, and what it may
    choose for a new one: its versions that may play, and the opponents."""
    versions = {found.id: found for found in arena.store.versions()}
    matches = []
    for match in arena.store.unrated_matches(entrant.name):
        games = arena.games.games_of(match.tournament)
        matches.append({"match": match, "results": unrated.results(games),
                        "games": [game_row(game, versions) for game in games]})
    return {"test_matches": matches,
            "playable": [version.id for version in arena.store.versions(entrant.name)
                         if unrated.playable(version)],
            "opponents": arena.unrated.opponents()}


def unrated_json(match: dict[str, Any]) -> dict[str, Any]:
    """A test match of :func:`my_unrated` as the API answers it."""
    found: UnratedMatch = match["match"]
    return {"match": found.tournament, "version": found.version, "opponents": found.opponents,
            "state": found.state, "note": found.note, "requested": found.requested_at,
            "results": [dataclasses.asdict(result) for result in match["results"]],
            "games": [game["id"] for game in match["games"]]}


# -- the organiser's page ---------------------------------------------------------


def organiser_page(arena: Arena) -> dict[str, Any]:
    versions = arena.store.versions()
    return {"entrants": [{"entrant": entrant,
                          "versions": sum(v.entrant == entrant.name for v in versions)}
                         for entrant in arena.store.entrants()],
            "versions": versions, "queue": arena.store.queued(),
            "test_queue": arena.store.unrated_queue(),
            "alike": arena.store.alike(arena.config.similar_code),
            "alike_play": arena.ladder.similar(),
            "collusion": _collusion(arena),
            "invites": arena.store.invites(),
            "failure": arena.ladder.failure,
            "playing": arena.ladder.running, "listeners": arena.events.listeners(),
            "status": _status(arena)}


def _status(arena: Arena) -> dict[str, Any]:
    """The ladder's status as the organiser reads it: the cap's moment as a time of day,
    not unix seconds (empty: no ladder)."""
    status = arena.ladder.status()
    if status is None:
        return {}
    capped = status.capped_until
    return {**dataclasses.asdict(status), "capped_until": None if capped is None else
            datetime.fromtimestamp(capped, timezone.utc).isoformat(timespec="seconds")}


def _collusion(arena: Arena) -> dict[str, Any] | None:
    """The ladder's collusion check for the organiser: its verdict line and every pair
    tested, flagged ones first."""
    check = arena.ladder.collusion()
    if check is None:
        return None
    pairs = sorted((pair for pair in check.pairs if pair.tested),
                   key=lambda pair: (not pair.flagged, pair.adjusted, pair.a, pair.b))
    return {"verdict": collusion_verdict(check), "pairs": pairs}


def likeness_page(arena: Arena, version_id: str, other_id: str) -> dict[str, Any] | None:
    """Two versions' code side by side, what they share marked."""
    version, other = arena.store.version(version_id), arena.store.version(other_id)
    if version is None or other is None:
        return None
    return {"version": version, "other": other,
            "evidence": arena.fingerprints.evidence(version.folder, other.folder)}
