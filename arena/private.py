"""What an entrant's own page adds from the stored games: their versions' record against
each opponent version, and a pack of one version's games to download.

Both are made only from games one of the entrant's versions sat in, and show of those
games only what :mod:`arena.views` lets the entrant see (their own faults, their own
seats' views during the season).
"""

from __future__ import annotations

import io
import zipfile
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from pages.replays import replay_page
from pages.viewer import STATIC_FILES, page_file
from ratings.formatting import csv_text
from tournaments.packs import (
    PACK_FAULT_COLUMNS,
    PLAYED_COLUMNS,
    TIME_COLUMNS,
    played_records,
    time_records,
)
from tournaments.store import StoredGame

#: The most games a pack replays (the newest).
PACK_GAMES = 50


@dataclass(frozen=True)
class Meeting:
    """How one of the entrant's versions fared against one opponent version in the games
    both sat in: a win is a better rank, a draw the same."""

    version: str
    opponent: str
    games: int
    wins: int
    losses: int
    draws: int


def head_to_head(placings: Iterable[tuple[list[str], list[int]]], names: set[str]
                 ) -> list[Meeting]:
    """Each of ``names`` against each opponent that sat with it (not one of ``names``,
    nor a validation's copy of one), by version then opponent, from the seats and ranks
    of each game."""
    tally: dict[tuple[str, str], Counter[str]] = {}
    for seats, ranks in placings:
        for mine, my_rank in zip(seats, ranks):
            if mine not in names:
                continue
            for other, rank in zip(seats, ranks):
                if other in names or _copy_of_own(other, names):
                    continue
                outcome = "wins" if my_rank < rank else "losses" if my_rank > rank else "draws"
                tally.setdefault((mine, other), Counter())[outcome] += 1
    return [Meeting(mine, other, sum(counts.values()), counts["wins"], counts["losses"],
                    counts["draws"]) for (mine, other), counts in sorted(tally.items())]


def _copy_of_own(name: str, names: set[str]) -> bool:
    """Whether ``name`` is a validation's copy of one of ``names`` (``VERSION-copyN``)."""
    base, found, number = name.rpartition("-copy")
    return bool(found) and number.isdigit() and base in names


def version_pack(version: str, games: Sequence[StoredGame],
                 faults: Callable[[StoredGame], list[dict[str, Any]]],
                 seats: Callable[[StoredGame], Sequence[int] | None]) -> bytes:
    """A .zip of one version's games: their list, the version's faults and decision times
    in them, and each game's replay (marking ``faults(game)``, showing the views of
    ``seats(game)``) beside the viewer they share."""
    buffer = io.BytesIO()
    found = []
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in STATIC_FILES:
            archive.writestr(f"replays/{name}", page_file(f"static/{name}"))
        for game in games:
            marked = faults(game)
            found += marked
            archive.writestr(f"replays/game-{game.id}.html",
                             replay_page(game, marked, static="", seats=seats(game)))
        archive.writestr("games.csv", csv_text(played_records(games), PLAYED_COLUMNS) + "\n")
        archive.writestr("times.csv", csv_text(
            [row for row in time_records(games) if row["bot"] == version], TIME_COLUMNS) + "\n")
        archive.writestr("faults.csv", csv_text(
            [{**{column: fault.get(column, "") for column in PACK_FAULT_COLUMNS},
              "decision": fault["decision_id"]} for fault in found],
            PACK_FAULT_COLUMNS) + "\n")
        archive.writestr("README.txt", f"{version}: its {len(games)} latest ladder games "
                         "(games.csv), its faults (faults.csv) and decision times "
                         "(times.csv) in them, and each game's replay "
                         "(replays/game-ID.html: open it in a browser).\n")
    return buffer.getvalue()
