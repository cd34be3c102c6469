"""Stored games as HTML replay pages, for the report and the entrants' packs."""

from __future__ import annotations

import gc
import hashlib
import json
import shutil
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from pages import viewer
from pages.viewer import STATIC_FILES, page_data, page_file, record_data, render_page
from referee.games import GameConfigError, GameRecord
from referee.games.base import IllegalActionError
from referee.replay import Replaying
from tournaments.replays import ReplayError
from tournaments.store import StoredGame


def write_replays(games: list[StoredGame], faults: list[dict[str, Any]], folder: Path,
                  scrub: Callable[[str], str] = str, done: Callable[[], None] = lambda: None,
                  copied_from: Path | None = None) -> int:
    """Each game's HTML replay into ``folder`` as ``game-ID.html``, beside the viewer they
    share, holding its record (the browser replays it), marking the ``faults`` of it
    given (a pack marks its own bot's only), ``scrub``bed of what a public copy leaves
    out; ``done`` hears of each page as it is there. Returns how many pages were written:
    a page already there as it would be written again (:data:`MADE_FROM`) is kept, so a
    report of a season made again after one more week writes that week's pages. A page of
    another folder of replays, ``copied_from``, made from the same (the same game, faults
    marked and public or not, by the same code) is copied rather than made again."""
    folder.mkdir(parents=True, exist_ok=True)
    if games:
        write_viewer(folder)
    marked_in: dict[int, list[dict[str, Any]]] = {}
    for fault in faults:
        marked_in.setdefault(fault["game_id"], []).append(fault)
    made = PageSources(folder)
    elsewhere = PageSources(copied_from) if copied_from is not None else None
    written = 0
    for game in games:
        marked = marked_in.get(game.id, [])
        page_path = folder / f"game-{game.id}.html"
        source = page_source(game, marked, scrub is not str)
        if not made.holds(page_path, source):
            if elsewhere is None or not elsewhere.copied(page_path, source):
                page = replay_page(game, marked, static="", scrub=scrub)
                page_path.write_text(page, encoding="utf-8")
            written += 1
        made.note(page_path, source)
        done()
    if games:
        made.save()
    return written


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Python's collector of reference cycles paused: a replay makes some hundred thousand
    dicts and lists that live until its page is written, and the collector, set off by
    their count, walks them again and again (two thirds of a replay's time). They hold no
    cycles: they are freed as the page is written, collector or not."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


#: Where a folder of replays notes what each of its pages was made from.
MADE_FROM = "pages.json"


class PageSources:
    """What each page of a folder was made from (a digest), kept in :data:`MADE_FROM`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / MADE_FROM
        try:
            self.sources: dict[str, str] = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.sources = {}

    def holds(self, page: Path, source: str) -> bool:
        return self.sources.get(page.name) == source and page.is_file()

    def copied(self, page: Path, source: str) -> bool:
        """Whether this folder's page of ``page``'s name, made from ``source``, was copied
        to ``page`` (it was, if there is one)."""
        twin = self.folder / page.name
        if not self.holds(twin, source):
            return False
        shutil.copyfile(twin, page)
        return True

    def note(self, page: Path, source: str) -> None:
        self.sources[page.name] = source

    def save(self) -> None:
        self.path.write_text(json.dumps(self.sources, indent=0, sort_keys=True) + "\n",
                             encoding="utf-8")


def page_source(game: StoredGame, faults: list[dict[str, Any]], public: bool) -> str:
    """A digest of everything a game's page is made from: the game as stored, the faults
    it marks, whether it is a public copy, and the code that draws it."""
    made_of = repr((viewer_code(), game.id, game.tournament, game.game_index, game.game,
                    game.variant, game.seed, list(game.actions), list(game.seats),
                    game.times, game.ranks, sorted(map(repr, faults)), public))
    return hashlib.sha256(made_of.encode("utf-8")).hexdigest()[:32]


@cache
def viewer_code() -> str:
    """The code that turns a replay into a page: a change to it makes every page anew."""
    sources = [Path(viewer.__file__ or "").read_bytes()]
    sources += [page_file(f"static/{name}").encode("utf-8") for name in STATIC_FILES]
    return hashlib.sha256(b"\0".join(sources)).hexdigest()


def write_viewer(folder: Path) -> None:
    """The viewer's files into ``folder``, for its pages to link (unless already there)."""
    for name in STATIC_FILES:
        text = page_file(f"static/{name}")
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def replay_page(game: StoredGame, faults: list[dict[str, Any]], static: str | None = None,
                scrub: Callable[[str], str] = str, seats: Sequence[int] | None = None) -> str:
    """One stored game's HTML replay, marking ``faults``; the viewer's files at ``static``
    (see :func:`~pages.viewer.render_page`). Every card's (``seats`` None): the page holds
    the record, which the browser replays. Else only the views of ``seats``, replayed
    here (:func:`~pages.viewer.page_data`)."""
    record = GameRecord(game.game, game.variant, len(game.seats), game.seed,
                        tuple(game.actions))
    title = f"game {game.id}: {game.tournament} #{game.game_index}"
    if seats is None:
        data = record_data(record, game.seats, title, game.times, faults, game.ranks)
    else:
        try:
            # Each frame made as the page takes it, and let go.
            with no_cycle_collection():
                data = page_data(Replaying(record, game.seats, game.times, faults, game.ranks),
                                 seats, title)
        except (GameConfigError, IllegalActionError) as error:
            raise ReplayError(f"game {game.id} does not replay: {error}") from None
    return render_page(game.game, title, data, static, scrub)
