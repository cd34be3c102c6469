"""Each entrant's pack after a tournament: its log, faults, decision times and replays.

A pack is what an organiser hands one entrant: a folder holding only what is that
bot's own or public after the tournament — its log, its faults (the rows of
``faults --bot``), its decision times (``times``), its games (``played --bot``) with
the replay of each, and an ``index.html`` linking them; one ``index.html`` above the
packs lists every bot. A game is in the pack of each of its seats, so the replays are
one folder beside the packs (:data:`SHARED`), each game's page once, marking no fault,
linked from every pack (an entrant gets its folder and that one); a game in which the
pack's bot is at fault has its own page in the pack, marking that bot's faults only
(another bot's fault details are its own). A game whose deal is still to be dealt again
in an unfinished tournament gets no replay, as in the report.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from pages.replays import write_replays
from ratings.formatting import csv_text, fault_text, rank_range
from ratings.trueskill_ratings import Row
from referee.text import printable
from tournaments.export import unsettled_groups
from tournaments.packs import (
    PACK_FAULT_COLUMNS,
    PLAYED_COLUMNS,
    TIME_COLUMNS,
    copy_logs,
    entrant_words,
    fault_records,
    played_records,
    time_records,
)
from tournaments.standings import standings
from tournaments.store import Store, StoredGame, StoredTournament


@dataclass(frozen=True)
class Pack:
    """What one bot's pack holds, for the index above the packs."""

    bot: str
    games: int
    replays: int
    standing: Row | None
    # "by AUTHOR, in LANGUAGE" from the entrant.yaml of its dir:, if it came from one.
    entrant: str


#: The folder beside the packs holding every game's replay that a pack links.
SHARED = "replays"


def write_packs(tournament: PackedTournament, out: Path, bots: Sequence[str],
                written: Callable[[Pack], None] = lambda pack: None) -> list[Pack]:
    """A pack for each of ``bots`` in ``out/BOT/``, and ``out/index.html`` listing them;
    ``written`` hears of each pack as it is done. Every bot that has one:
    :func:`~tournaments.standings.entrants`, the field's bots and those that left it with
    stored games. Their games' replays are :func:`write_shared_replays`'."""
    packs = []
    for bot in bots:
        packs.append(tournament.write(bot, out / bot))
        written(packs[-1])
    (out / "index.html").write_text(index_page(tournament.record, packs), encoding="utf-8")
    return packs


def write_shared_replays(games: list[StoredGame], out: Path,
                         done: Callable[[], None] = lambda: None,
                         copied_from: Path | None = None) -> int:
    """The replays the packs in ``out`` link, in ``out/replays/`` (:data:`SHARED`),
    marking no fault (:meth:`PackedTournament.replayed` of the packs' bots); ``done``
    hears of each page. Returns how many were written (a page made before is kept; one of
    ``copied_from``, a report's replays, made from the same is copied)."""
    return write_replays(games, [], out / SHARED, done=done, copied_from=copied_from)


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

    def replayed(self, bots: Sequence[str]) -> list[StoredGame]:
        """The games of ``bots`` that get a replay."""
        chosen = set(bots)
        return [game for game in self.games if chosen.intersection(game.seats)
                and game.group_index not in self.unsettled]

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
        shown = self.replayed([bot])
        faults = [{column: row[column] for column in PACK_FAULT_COLUMNS}
                  for row in fault_records(store, record, bot)]
        # Its own pages: the games it is at fault in, marking its faults; a pack made
        # again (the tournament went on) keeps no replay of an earlier making.
        own_faults = [dict(row) for row in store.faults(record.name, bot)]
        at_fault = {fault["game_id"] for fault in own_faults}
        for stale in (folder / "replays").glob("game-*.html"):
            stale.unlink()
        write_replays([game for game in shown if game.id in at_fault], own_faults,
                      folder / "replays")
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
                                {game.id for game in shown}, at_fault, logs)
        (folder / "index.html").write_text(pack_page(record, contents), encoding="utf-8")
        return Pack(bot, len(own_games), len(shown), self.standings.get(bot), entrant)


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
    # The replayed games with a page of the pack's own (marking its bot's faults).
    own_pages: set[int]
    logs: list[str]


def pack_page(record: StoredTournament, pack: PackContents) -> str:
    """One pack's index: its standing, times, faults, games and log, linked."""
    def replay(game_id: int, anchor: str = "") -> str:
        if game_id not in pack.replayed:
            return "withheld"
        folder = "replays" if game_id in pack.own_pages else f"../{SHARED}"
        return _link(f"{folder}/game-{game_id}.html{anchor}", "replay")

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
