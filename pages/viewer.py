"""The HTML replay of one game: a small page holding only that game, drawn by a shared viewer.

The viewer (``pages/static/viewer.js`` and ``viewer.css``) is the same for every game:
a folder of replays holds it once and each game's page links it, or a page made alone
holds it inline (:func:`render_replay`). The page (``pages/templates/replay.html``)
fetches nothing, so it opens from disk, offline. Python decides what every view of
every step shows (:mod:`referee.tables`), the script only draws it: the omniscient
table, or exactly one seat's, built from the observation that seat is sent. A page may
hold only some seats' views, or only what every seat saw (:func:`page_data`): then
nothing else of the game is in its bytes, not merely hidden by the script.

A game has hundreds of steps and a view changes little from one to the next, so
the page holds each step as the changes from the step before (:func:`changes`), and
the script rebuilds the steps once as it opens; cards are short ids, drawn from one
look per card (:func:`referee.tables.card_looks`); the whole is deflated and
base64'd into the page, and the browser inflates it (``DecompressionStream``, which
works from ``file:``). A 4-player Flohcati game of 250 decisions, with its five views
and raw observations at every step, takes about 35 KB (docs/performance.md).
"""

from __future__ import annotations

import base64
import html
import itertools
import json
import zlib
from functools import cache
from importlib import resources
from typing import Any, Callable, Iterable, Sequence

from referee.games import end_words, get_game
from referee.replay import Decision, Frame, Replay
from referee.tables import Table, card_looks, public_table, tables

#: The viewer's files, linked by every page of a folder or inlined into a page made alone.
STATIC_FILES = ("viewer.css", "viewer.js")
#: What opens the page's data in pages/templates/replay.html.
DATA_OPEN = '<script id="replay-data" type="text/plain">'


def changes(before: Any, after: Any, path: list[Any], ops: list[list[Any]]) -> None:
    """The operations that turn ``before`` into ``after`` (unequal), appended to ``ops``.

    An operation is ``[path, value]`` (set what ``path`` leads to) or ``[path, start,
    removed, inserted]`` (splice a list: a card drawn from the deck, one more on the
    discard pile). Equal parts are skipped whole, compared in C, so a step costs about
    what changed in it."""
    kind = type(after)
    if kind is dict and type(before) is dict and before.keys() == after.keys():
        pairs: Iterable[tuple[Any, Any, Any]] = (
            (key, before[key], value) for key, value in after.items())
    elif kind is list and type(before) is list and len(before) == len(after):
        pairs = zip(range(len(after)), before, after)
    elif kind is list and type(before) is list:
        ops.append([path, *_splice(before, after)])
        return
    else:
        ops.append([path, after])
        return
    for key, old, new in pairs:
        if old != new:
            inner = type(new)
            if (inner is dict or inner is list) and type(old) is inner:
                changes(old, new, [*path, key], ops)
            else:
                ops.append([[*path, key], new])


def _splice(before: list[Any], after: list[Any]) -> tuple[int, int, list[Any]]:
    """Where the two lists differ: the first index, how many go, what comes instead."""
    start, shorter = 0, min(len(before), len(after))
    while start < shorter and before[start] == after[start]:
        start += 1
    tail = 0
    while tail < shorter - start and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return start, len(before) - start - tail, after[start:len(after) - tail]


class Steps:
    """Each step's views as the changes from the step before, and the cards they show."""

    def __init__(self) -> None:
        self.shown: list[Any] = []
        self.cards: set[str] = set()

    def add(self, views: list[Any]) -> list[list[list[Any]]]:
        """The operations of each view; the first step's set each view whole."""
        if not self.shown:
            self.shown = views
            return [[[[], view]] for view in views]
        steps = []
        for before, after in zip(self.shown, views):
            ops: list[list[Any]] = []
            if before != after:
                changes(before, after, [], ops)
            steps.append(ops)
        self.shown = views
        return steps

    def collect_cards(self, table: Table) -> None:
        for zone in table["center"]:
            self.cards.update(zone["cards"])
        for seat in table["seats"]:
            for zone in seat["zones"]:
                self.cards.update(zone["cards"])


def _decision(decision: Decision | None, seats: Sequence[int] | None) -> dict[str, Any] | None:
    """A decision as the page shows it: whole if ``seats`` (None: every seat) hold its
    seat, else only who decided what kind of thing, and the faults of ``seats`` in it
    (another seat's prompt, actions, choice and time are its own)."""
    if decision is None:
        return None
    if seats is not None and decision.seat not in seats:
        return {"n": decision.number, "seat": decision.seat, "kind": decision.kind,
                "hidden": True,
                "faults": [fault for fault in decision.faults if fault["seat"] in seats]}
    return {"n": decision.number, "seat": decision.seat, "kind": decision.kind,
            "prompt": decision.prompt, "actions": [label for _code, label in decision.actions],
            "codes": [code for code, _label in decision.actions], "chosen": decision.chosen,
            "ms": decision.time_ms, "faults": decision.faults}


def _views(frame: Frame, shown: list[Table], seats: Sequence[int] | None) -> list[Any]:
    """One step's tables, then what each was built from (the engine's state, a seat's
    observation; nothing for what every seat saw), then the decision."""
    if seats is None:
        return [*shown, frame.state, *frame.observations, _decision(frame.decision, seats)]
    if not seats:
        return [public_table(shown[1:]), None, _decision(frame.decision, seats)]
    return [*(shown[seat + 1] for seat in seats),
            *(frame.observations[seat] for seat in seats), _decision(frame.decision, seats)]


def _perspectives(replay: Replay, seats: Sequence[int] | None) -> list[dict[str, Any]]:
    """The page's views, as its menu names them, and the seat each is of."""
    own = [{"label": f"as seat {seat} saw it ({replay.seats[seat]})", "seat": seat}
           for seat in (range(len(replay.seats)) if seats is None else seats)]
    if seats is None:
        return [{"label": "omniscient: every card", "seat": None}, *own]
    return own or [{"label": "public: what every seat saw", "seat": None}]


def page_data(replay: Replay, title: str = "", seats: Sequence[int] | None = None) -> str:
    """Everything the page shows, as one JSON text (read by the viewer's ``showReplay``):
    each step's views, as changes from the step before (the legal actions of one decision
    are much like the last one's), and the events.

    ``seats`` None: the omniscient table and each seat's, the engine's state and each
    seat's observation, every event and decision, and the seed. Given, only those seats'
    tables and observations, the events they were shown, their own decisions whole (of
    the others' only who decided), no seed (it deals every hand): nothing of another seat's
    reaches the page. Empty, only what every seat saw: a table of what all drew alike,
    the public events, no decision's choices."""
    record = replay.record
    steps = Steps()
    frames = []
    shown_to = set(range(len(replay.seats)) if seats is None else seats)
    keep = [seats is None or event.visible_to is None or bool(event.visible_to & shown_to)
            for event in replay.events]
    # How many kept events come before each event (the frames' ranges of them).
    before = list(itertools.accumulate(keep, initial=0))
    for frame in replay.frames:
        views = _views(frame, tables(record.game, frame.state, frame.observations,
                                     frame.scores), seats)
        for table in views[:len(views) // 2]:
            steps.collect_cards(table)
        frames.append({"c": steps.add(views),
                       "e": [before[frame.events.start], before[frame.events.stop]]})
    game = get_game(record.game)
    meta = {"title": page_title(replay, title), "game": record.game,
            "gameTitle": game.title, "variant": record.variant,
            "views": _perspectives(replay, seats),
            "seats": replay.seats, "scores": replay.scores, "ranks": replay.ranks,
            "endReason": replay.end_reason, "endWords": end_words(replay.end_reason)}
    if seats is None:
        meta["seed"] = str(record.seed)  # 64-bit: a JS number would round it
    events = [[event.text, event.seat,
               None if event.visible_to is None else sorted(event.visible_to & shown_to)]
              for event, kept in zip(replay.events, keep) if kept]
    return json.dumps({"meta": meta, "cards": card_looks(record.game, steps.cards),
                       "frames": frames, "events": events},
                      separators=(",", ":"), ensure_ascii=False)


def page_title(replay: Replay, title: str = "") -> str:
    """``title``, or the game's name and variant."""
    return title or f"{get_game(replay.record.game).title} ({replay.record.variant})"


def packed(data: str) -> str:
    """The page's data deflated and base64'd: a twentieth of its JSON, and no ``<`` in it."""
    return base64.b64encode(zlib.compress(data.encode("utf-8"), 9)).decode("ascii")


def embedded_data(page: str) -> str:
    """The JSON a replay page holds, inflated as the browser does (for tests and tools)."""
    start = page.index(DATA_OPEN) + len(DATA_OPEN)
    return zlib.decompress(base64.b64decode(page[start:page.index("<", start)])).decode()


@cache
def page_file(path: str) -> str:
    """A file of the package: the page's template, one of the viewer's :data:`STATIC_FILES`."""
    return resources.files("pages").joinpath(path).read_text("utf-8")


def render_replay(replay: Replay, title: str = "", static: str | None = None,
                  scrub: Callable[[str], str] = str, seats: Sequence[int] | None = None) -> str:
    """The replay page of one game, as one HTML string.

    ``static``: where the viewer's files are, relative to the page (``""``: beside it);
    None puts them inline, for a page that travels alone. ``scrub``: what a public copy
    leaves out of the game's text, before it is packed out of a reader's sight.
    ``seats``: whose views it shows (see :func:`page_data`)."""
    data = scrub(page_data(replay, title, seats))
    if static is None:
        style = f"<style>\n{page_file('static/viewer.css')}</style>"
        script = f"<script>\n{page_file('static/viewer.js')}</script>"
    else:
        style = f'<link rel="stylesheet" href="{html.escape(static)}viewer.css">'
        script = f'<script src="{html.escape(static)}viewer.js"></script>'
    return (page_file("templates/replay.html")
            .replace("__TITLE__", scrub(html.escape(page_title(replay, title))))
            .replace("__STYLE__", style).replace("__SCRIPT__", script)
            .replace("__DATA__", packed(data)))
