"""Stored games as HTML replay pages, for the report and the entrants' packs."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable

from pages.viewer import STATIC_FILES, page_file, render_replay
from referee.errors import CircusError
from referee.games import GameConfigError, GameRecord
from referee.games.base import IllegalActionError
from referee.replay import replay_frames
from tournaments.store import StoredGame


class ReplayError(CircusError, ValueError):
    """A stored game whose record does not replay; the message is one line."""


def write_replays(games: list[StoredGame], faults: list[dict[str, Any]], folder: Path,
                  scrub: Callable[[str], str] = str,
                  unmarked: dict[int, Path] | None = None) -> None:
    """Each game's HTML replay into ``folder`` as ``game-ID.html``, beside the viewer they
    share, replayed from its record, marking the ``faults`` of it given (a pack marks its
    own bot's only), ``scrub``bed of what a public copy leaves out.

    ``unmarked``: the pages, by game id, already written of games with no fault marked
    (into the other packs of one tournament: a game is in the pack of each of its seats,
    and replaying one takes far longer than copying its page); such a page is copied from
    there, and each written here is added."""
    folder.mkdir(parents=True, exist_ok=True)
    if games:
        write_viewer(folder)
    marked_in: dict[int, list[dict[str, Any]]] = {}
    for fault in faults:
        marked_in.setdefault(fault["game_id"], []).append(fault)
    for game in games:
        marked = marked_in.get(game.id, [])
        page_path = folder / f"game-{game.id}.html"
        if unmarked is not None and not marked and game.id in unmarked:
            shutil.copyfile(unmarked[game.id], page_path)
            continue
        page_path.write_text(replay_page(game, marked, static="", scrub=scrub),
                             encoding="utf-8")
        if unmarked is not None and not marked:
            unmarked[game.id] = page_path


def write_viewer(folder: Path) -> None:
    """The viewer's files into ``folder``, for its pages to link (unless already there)."""
    for name in STATIC_FILES:
        text = page_file(f"static/{name}")
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def replay_page(game: StoredGame, faults: list[dict[str, Any]], static: str | None = None,
                scrub: Callable[[str], str] = str) -> str:
    """One stored game's HTML replay, replayed from its record, marking ``faults``; the
    viewer's files at ``static`` (see :func:`~pages.viewer.render_replay`)."""
    record = GameRecord(game.game, game.variant, len(game.seats), game.seed,
                        tuple(game.actions))
    try:
        replayed = replay_frames(record, game.seats, game.times, faults, game.ranks)
    except (GameConfigError, IllegalActionError) as error:
        raise ReplayError(f"game {game.id} does not replay: {error}") from None
    return render_replay(replayed, f"game {game.id}: {game.tournament} #{game.game_index}",
                         static, scrub)
