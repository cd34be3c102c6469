"""Stored games as HTML replay pages, for the report and the entrants' packs."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable

from referee.games import GameConfigError, GameRecord, get_game
from referee.errors import CircusError
from referee.games.base import IllegalActionError
from referee.replay import replay_frames
from referee.viewer import render_replay
from tournaments.store import StoredGame


class ReplayError(CircusError, ValueError):
    """A stored game whose record does not replay; the message is one line."""


def write_replays(games: list[StoredGame], faults: list[dict[str, Any]], folder: Path,
                  scrub: Callable[[str], str] = str,
                  unmarked: dict[int, Path] | None = None) -> None:
    """Each game's HTML replay into ``folder`` as ``game-ID.html``, replayed from its
    record, marking the ``faults`` of it given (a pack marks its own bot's only),
    ``scrub``bed of what a public copy leaves out.

    ``unmarked``: the pages, by game id, already written of games with no fault marked
    (into the other packs of one tournament: a game is in the pack of each of its seats,
    and replaying one takes far longer than copying its page); such a page is copied from
    there, and each written here is added."""
    folder.mkdir(parents=True, exist_ok=True)
    for game in games:
        marked = [f for f in faults if f["game_id"] == game.id]
        page_path = folder / f"game-{game.id}.html"
        if unmarked is not None and not marked and game.id in unmarked:
            shutil.copyfile(unmarked[game.id], page_path)
            continue
        page_path.write_text(scrub(replay_page(game, marked)), encoding="utf-8")
        if unmarked is not None and not marked:
            unmarked[game.id] = page_path


def replay_page(game: StoredGame, faults: list[dict[str, Any]]) -> str:
    """One stored game's HTML replay, replayed from its record, marking ``faults``."""
    record = GameRecord(game.game, game.variant, len(game.seats), game.seed,
                        tuple(game.actions))
    try:
        replayed = replay_frames(record, game.seats, game.times, faults, game.ranks)
    except (GameConfigError, IllegalActionError) as error:
        raise ReplayError(f"game {game.id} does not replay: {error}") from None
    return render_replay(replayed, f"game {game.id}: {game.tournament} #{game.game_index}")


def decision_points(game: StoredGame) -> list[tuple[int, int]]:
    """Each decision of a stored game, replayed from its record: the seat that made it
    and how many actions it had to choose from (a forced move has one), so two games of
    one deal can be compared decision by decision (the same deal and the same actions
    before a decision make the same decision point)."""
    try:
        state = get_game(game.game).new_state(len(game.seats), game.variant, game.seed)
        points = []
        for index in game.actions:
            actions = state.legal_actions()
            points.append((state.current_seat(), len(actions)))
            state.apply(index, actions)
    except (GameConfigError, IllegalActionError) as error:
        raise ReplayError(f"game {game.id} does not replay: {error}") from None
    return points
