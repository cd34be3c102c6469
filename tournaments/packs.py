"""Each entrant's pack after a tournament: its log, faults, decision times and replays.

A pack is what an organiser hands one entrant: a folder holding only what is that
bot's own or public after the tournament — its log, its faults (the rows of
``faults --bot``), its decision times (``times``), its games (``played --bot``) with
the replay of each, and an ``index.html`` linking them; one ``index.html`` above the
packs lists every bot. A replay marks the pack's bot's faults only (another bot's
fault details are its own), and a game whose deal is still to be dealt again in an
unfinished tournament gets no replay, as in the report.
"""

from __future__ import annotations

import html
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ratings.trueskill_ratings import Row
from ratings.formatting import csv_text, fault_text, rank_range
from ratings.time_use import TimedGame, time_use
from referee.process import referee_said
from referee.stream import FELL_BACK
from referee.text import printable
from tournaments.export import unsettled_groups
from tournaments.replays import write_replays
from tournaments.standings import standings
from tournaments.store import Store, StoredGame, StoredTournament
from tournaments.submissions import SubmissionError, read_manifest

FAULT_COLUMNS = ["game_id", "game_index", "seat", "bot", "decision", "class", "policy",
                 "detail", "log"]
# A pack's faults: its own log is beside them, and the organiser's path to it is not theirs.
PACK_FAULT_COLUMNS = [column for column in FAULT_COLUMNS if column != "log"]
TIME_COLUMNS = ["bot", "decisions", "median_ms", "p99_ms", "max_ms", "total_ms"]
PLAYED_COLUMNS = ["id", "index", "round", "seats", "scores", "ranks", "status", "end_reason",
                "decisions", "duration_s"]


def bot_log(log_dir: Path, bot: str) -> str:
    """Where a bot's log is: in the logs folder, or after a cluster run one per worker,
    under ``workers/`` (docs/cluster.md)."""
    here = log_dir / f"{bot}.log"
    if not here.exists() and (log_dir / "workers").is_dir():
        return str(log_dir / "workers" / "*" / f"{bot}.log")
    return str(here)


#: How ``times`` and the report name the transport of a gRPC bot that announced the Play
#: stream but answered it UNIMPLEMENTED (its log's note says so).
UNARY_FALLBACK = "grpc (unary: Play stream unimplemented)"


def reached(log_dir: Path, bot: str, transport: str) -> str:
    """How the referee reached a bot: its configured transport, or for a gRPC bot that fell
    back from the Play stream to unary calls, :data:`UNARY_FALLBACK`."""
    logs = [log_dir / f"{bot}.log", *log_dir.glob(f"workers/*/{bot}.log")]
    if transport == "grpc" and any(referee_said(log, FELL_BACK) for log in logs):
        return UNARY_FALLBACK
    return transport


def fault_records(store: Store, record: StoredTournament, bot: str | None = None
               ) -> list[dict[str, Any]]:
    """The faults of a tournament (of ``bot`` only, if given), with each bot's log."""
    log_dir = Path(record.log_dir or ".")
    return [{"game_id": f["game_id"], "game_index": f["game_index"], "seat": f["seat"],
             "bot": f["bot"], "decision": f["decision_id"], "class": f["class"],
             "policy": f["policy"], "detail": f["detail"], "log": bot_log(log_dir, f["bot"])}
            for f in store.faults(record.name, bot)]


def time_records(games: Iterable[TimedGame]) -> list[dict[str, Any]]:
    """Each bot's decision times, in milliseconds to 0.1 ms, slowest median first."""
    return [{"bot": r.bot, "decisions": r.decisions, "median_ms": round(r.median_ms, 1),
             "p99_ms": round(r.p99_ms, 1), "max_ms": round(r.max_ms, 1),
             "total_ms": round(r.total_s * 1000, 1)}
            for r in time_use(games)]


def played_records(games: Iterable[StoredGame], bot: str | None = None
                   ) -> list[dict[str, Any]]:
    """The stored games (those ``bot`` played, if given): ids, seats, results."""
    return [{"id": game.id, "index": game.game_index, "round": game.shown_round,
             "seats": list(game.seats), "scores": list(game.scores),
             "ranks": list(game.ranks), "status": game.status,
             "end_reason": game.end_reason, "decisions": len(game.actions),
             "duration_s": round(game.duration_s, 3)}
            for game in games if bot is None or bot in game.seats]


@dataclass(frozen=True)
class Pack:
    """What one bot's pack holds, for the index above the packs."""

    bot: str
    games: int
    replays: int
    standing: Row | None
    # "by AUTHOR, in LANGUAGE" from the entrant.yaml of its dir:, if it came from one.
    entrant: str


def write_packs(store: Store, record: StoredTournament, out: Path, bots: Sequence[str],
                written: Callable[[Pack], None] = lambda pack: None) -> list[Pack]:
    """A pack for each of ``bots`` in ``out/BOT/``, and ``out/index.html`` listing them;
    ``written`` hears of each pack as it is done (a tournament's packs take minutes).
    Every bot that has one: :func:`~tournaments.standings.entrants`, the field's bots and
    those that left it with stored games."""
    tournament = PackedTournament.of(store, record)
    packs = []
    for bot in bots:
        packs.append(tournament.write(bot, out / bot))
        written(packs[-1])
    (out / "index.html").write_text(index_page(record, packs), encoding="utf-8")
    return packs


def folder_bytes(folder: Path) -> int:
    """The size of every file under ``folder``."""
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


@dataclass(frozen=True)
class PackedTournament:
    """What every pack of one tournament is made from, read from the store once."""

    store: Store
    record: StoredTournament
    games: list[StoredGame]
    # The groups whose deals are still to be dealt: their games get no replay.
    unsettled: set[int]
    standings: dict[str, Row]
    # Each bot's entry of the stored config, by name.
    entries: dict[str, dict[str, Any]]
    # The replay pages written so far that mark no fault, by game id: the next pack of
    # one of the game's seats copies its page instead of replaying the game again.
    unmarked: dict[int, Path] = field(default_factory=dict)

    @classmethod
    def of(cls, store: Store, record: StoredTournament) -> PackedTournament:
        return cls(store, record, store.games(record.name), unsettled_groups(store, record),
                   {row.bot: row for row in standings(store, record, resamples=0)},
                   {bot["name"]: bot for bot in record.config.get("bots", [])})

    def write(self, bot: str, folder: Path) -> Pack:
        """One bot's pack in ``folder``."""
        store, record = self.store, self.record
        folder.mkdir(parents=True, exist_ok=True)
        own_games = [game for game in self.games if bot in game.seats]
        shown = [game for game in own_games if game.group_index not in self.unsettled]
        faults = [{column: row[column] for column in PACK_FAULT_COLUMNS}
                  for row in fault_records(store, record, bot)]
        # A pack made again (the tournament went on) keeps no replay of an earlier making.
        for stale in (folder / "replays").glob("game-*.html"):
            stale.unlink()
        write_replays(shown, [dict(row) for row in store.faults(record.name, bot)],
                      folder / "replays", unmarked=self.unmarked)
        logs = copy_logs(Path(record.log_dir), bot, folder) if record.log_dir else []
        times = [row for row in time_records(own_games) if row["bot"] == bot]
        played = played_records(own_games)
        for name, records, fields in (("faults.csv", faults, PACK_FAULT_COLUMNS),
                                      ("times.csv", times, TIME_COLUMNS),
                                      ("games.csv", played, PLAYED_COLUMNS)):
            (folder / name).write_text(csv_text(records, fields) + "\n", encoding="utf-8")
        # A bot that left the field (withdrawn, or an earlier BOT@vN) has no entry now.
        entrant = entrant_words(self.entries.get(bot, {}).get("dir"))
        contents = PackContents(bot, entrant, self.standings.get(bot), times, faults, played,
                                {game.id for game in shown}, logs)
        (folder / "index.html").write_text(pack_page(record, contents), encoding="utf-8")
        return Pack(bot, len(own_games), len(shown), self.standings.get(bot), entrant)


def entrant_words(folder: str | None) -> str:
    """Who entered a bot and in what, from the manifest in its ``dir:``; "" for a bot that
    came from no submission (or whose manifest is gone or changed since)."""
    if folder is None:
        return ""
    try:
        entrant = read_manifest(Path(folder))
    except SubmissionError:
        return ""
    return f"by {entrant.author}, in {entrant.language}"


def copy_logs(log_dir: Path, bot: str, folder: Path) -> list[str]:
    """The bot's log into its pack (after a cluster run, each worker's as
    ``workers/HOST-PORT/BOT.log``); the paths copied, relative to the pack."""
    name = f"{bot}.log"
    sources = [(log_dir / name, Path(name))]
    sources += [(path, path.relative_to(log_dir))
                for path in sorted(log_dir.glob(f"workers/*/{name}"))]
    copied = []
    for source, target in sources:
        if source.is_file():
            (folder / target).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, folder / target)
            copied.append(target.as_posix())
    return copied


# -- the pages ---------------------------------------------------------------------

STYLE = ("body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}"
         "table{border-collapse:collapse;margin:.5em 0 1.5em}"
         "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}"
         "th{background:#f3f3f3}")


def _text(value: Any) -> str:
    """A cell as inert HTML: a bot's words (a fault's detail) escaped twice over."""
    if isinstance(value, list):
        value = ", ".join(map(str, value))
    return html.escape(printable("" if value is None else value))


def _link(href: str, text: Any) -> str:
    return f'<a href="{html.escape(href)}">{_text(text)}</a>'


def _table(headers: Sequence[str], cells: list[list[str]], empty: str) -> str:
    """A table of cells already HTML (see :func:`_text`)."""
    if not cells:
        return f"<p>{_text(empty)}</p>"
    head = "".join(f"<th>{_text(header.replace('_', ' '))}</th>" for header in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>"
                   for row in cells)
    return f"<table><tr>{head}</tr>{body}</table>"


def _page(title: str, parts: list[str]) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{_text(title)}</title><style>{STYLE}</style></head>"
            f"<body><h1>{_text(title)}</h1>{''.join(parts)}</body></html>\n")


def _heading(record: StoredTournament) -> str:
    config = record.config
    state = "finished" if record.finished_at else "not finished"
    return (f"<p>{_text(record.name)}: {_text(config.get('game'))} "
            f"({_text(config.get('variant'))}), {record.total_games} games scheduled, "
            f"{state}</p>")


def _standing_cells(row: Row | None) -> list[str]:
    if row is None:
        return ["", "", "", "", ""]
    return [_text(rank_range(row)), f"{row.mu:.2f}", f"{row.conservative:.2f}",
            str(row.games), _text(fault_text(row.faults))]


STANDING_HEADERS = ["rank", "mu", "mu-3σ", "rated games", "faults"]


@dataclass(frozen=True)
class PackContents:
    """One pack's index page: the rows it shows, and which games have a replay."""

    bot: str
    entrant: str
    standing: Row | None
    times: list[dict[str, Any]]
    faults: list[dict[str, Any]]
    played: list[dict[str, Any]]
    replayed: set[int]
    logs: list[str]


def pack_page(record: StoredTournament, pack: PackContents) -> str:
    """One pack's index: its standing, times, faults, games and log, linked."""
    def replay(game_id: int, anchor: str = "") -> str:
        if game_id not in pack.replayed:
            return "withheld"
        return _link(f"replays/game-{game_id}.html{anchor}", "replay")

    # A fault's replay opens at its decision, as its seat saw it.
    fault_cells = [[_text(value) for value in f.values()]
                   + [replay(f["game_id"], f"#step={max(f['decision'] - 1, 0)}"
                                           f"&view={f['seat'] + 1}")] for f in pack.faults]
    game_cells = [[_text(g[column]) for column in PLAYED_COLUMNS] + [replay(g["id"])]
                  for g in pack.played]
    parts = [
        _heading(record),
        f"<p>{_text(pack.bot)} {_text(pack.entrant)}</p>" if pack.entrant else "",
        "<h2>Standing</h2>",
        _table(STANDING_HEADERS, [_standing_cells(pack.standing)], "not rated"),
        "<h2>Decision times (ms)</h2>",
        _table(TIME_COLUMNS, [[_text(t[column]) for column in TIME_COLUMNS]
                              for t in pack.times], "no decision stored"),
        "<h2>Faults</h2>",
        _table([*PACK_FAULT_COLUMNS, "replay"], fault_cells, "no faults"),
        "<h2>Games</h2>",
        _table([*PLAYED_COLUMNS, "replay"], game_cells, "no games stored"),
        "<h2>Log</h2>",
        "<p>" + (", ".join(_link(log, log) for log in pack.logs) or "no log was kept")
        + "</p>",
        "<p>The same as CSV: " + ", ".join(_link(name, name) for name in
                                            ("games.csv", "faults.csv", "times.csv")) + "</p>",
    ]
    return _page(f"{pack.bot} in {record.name}", parts)


def index_page(record: StoredTournament, packs: list[Pack]) -> str:
    """The list of packs: each bot's standing and what its pack holds."""
    cells = [[_link(f"{pack.bot}/index.html", pack.bot), _text(pack.entrant),
              *_standing_cells(pack.standing), str(pack.games), str(pack.replays)]
             for pack in packs]
    headers = ["bot", "entrant", *STANDING_HEADERS, "games", "replays"]
    return _page(f"Packs of {record.name}", [_heading(record), _table(headers, cells,
                                                                      "no bots")])
