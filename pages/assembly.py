"""A stored tournament's report, assembled from the store and written: the page and every
game's replay beside it.

The command line's ``report`` and the arena's finals both write it here, so a report
published by the service is the command's, byte for byte, and made in the service's own
process.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from pages.notes import (
    change_notes,
    code_column,
    identities,
    told_by_round,
    verdicts,
    withheld_notes,
)
from pages.replays import write_replays
from pages.report import FaultRow, GameRow, ReportLinks, render_report
from referee.errors import CircusError
from referee.games import END_WORDS
from tournaments.export import unsettled_groups
from tournaments.public import Redactor, public_config
from tournaments.standings import round_history, standings, stored_collusion
from tournaments.store import Store, StoredGame, StoredTournament

#: Given how many replay pages are to be written, a context that yields what counts one
#: page done (the command line's progress bar).
Progress = Callable[[int], AbstractContextManager[Callable[[], None]]]


class ReportError(CircusError):
    """A report that cannot be written where it was asked for; the message says where."""


@dataclass(frozen=True)
class WrittenReport:
    """What was written, for the line that says so."""

    #: The page's length, in characters.
    size: int
    rated_games: int
    bots: int
    #: The folder of replay pages beside the page, and how many of them the report links.
    folder: Path
    replays: int
    #: Of those, the pages made anew (the others were there as they would be made).
    rewritten: int
    #: Why some games' replays are left out, if any are.
    withheld: list[str]


def quietly(total: int) -> AbstractContextManager[Callable[[], None]]:
    """No progress told."""
    return nullcontext(lambda: None)


def write_report(store: Store, record: StoredTournament, output: Path, *,
                 public: bool = False, replays: bool = True, resamples: int | None = None,
                 progress: Progress = quietly) -> WrittenReport:
    """Write ``record``'s report as ``output``, one self-contained HTML file, and (with
    ``replays``) each game's replay into ``OUTPUT-replays/`` beside it, but for a game
    whose deal is still to be dealt again in an unfinished tournament. A ``public`` copy
    leaves out the bots' env values, this machine's paths and addresses. ``resamples``:
    the bootstrap's, for the rank ranges (:func:`~tournaments.standings.standings`)."""
    board = standings(store, record, resamples=resamples)
    games = store.games(record.name)
    faults = [dict(row) for row in store.faults(record.name)]
    folder = output.with_name(f"{output.stem}-replays")
    unsettled = unsettled_groups(store, record)
    shown = [game for game in games if game.group_index not in unsettled] if replays else []
    links = {game.id: f"{folder.name}/game-{game.id}.html" for game in shown}
    withheld = withheld_notes(len(games) - len(shown) if replays else 0, "replays")
    history = round_history(store, record) if told_by_round(record) else None
    notes = verdicts(store, record, history) + change_notes(store, record) + withheld
    scrub = Redactor.of(record.config, record.log_dir, str(Path.home())) if public else str
    reported = replace(record, config=public_config(record.config)) if public else record
    rewritten = 0
    try:
        if replays:
            with progress(len(shown)) as done:
                rewritten = write_replays(shown, faults, folder, scrub, done=done)
        html = scrub(render_report(board, reported, games,
                                   report_links(games, faults, links, identities(store, record),
                                                code_column(store, record)),
                                   notes, history, stored_collusion(store, record)))
        output.write_text(html, encoding="utf-8")
    except OSError as error:
        raise ReportError(f"cannot write {error.filename or output}: {error.strerror}") \
            from None
    return WrittenReport(len(html), board.rated_games, len(board.rows), folder, len(shown),
                         rewritten, withheld)


def report_links(games: list[StoredGame], faults: list[dict[str, Any]],
                 links: dict[int, str], bot_identities: dict[str, str],
                 code: dict[str, str]) -> ReportLinks:
    """The games table and fault list of the report, as the plain rows it is rendered from."""
    counts: dict[int, int] = {}
    for fault in faults:
        counts[fault["game_id"]] = counts.get(fault["game_id"], 0) + 1
    rows = [GameRow(g.id, g.game_index, g.seats, g.scores, g.ranks, g.status, g.end_reason,
                    len(g.actions), g.duration_s, counts.get(g.id, 0), links.get(g.id))
            for g in games]
    fault_rows = [FaultRow(f["game_id"], f["game_index"], f["seat"], f["bot"], f["decision_id"],
                           f["class"], f["policy"], f["detail"],
                           links[f["game_id"]] + f"#step={max(f['decision_id'] - 1, 0)}&view=0"
                           if f["game_id"] in links else None)
                  for f in faults]
    return ReportLinks(rows, fault_rows, END_WORDS, bot_identities, code)
