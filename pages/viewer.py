"""The HTML replay of one game: a small page holding only that game, drawn by a shared viewer.

The viewer (``pages/static/viewer.js`` and ``viewer.css``) is the same for every game:
a folder of replays holds it once and each game's page links it, or a page made alone
holds it inline (:func:`render_replay`). The page (``pages/templates/replay.html``)
fetches nothing, so it opens from disk, offline. Python decides what every view of
every step shows (:mod:`referee.tables`), the script only draws it: the omniscient
table, or exactly one seat's, built from the observation that seat is sent.

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
import json
import zlib
from functools import cache
from importlib import resources
from typing import Any, Callable, Iterable

from referee.games import end_words, get_game
from referee.replay import Decision, Replay
from referee.tables import Table, card_looks, tables

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


def _decision(decision: Decision | None) -> dict[str, Any] | None:
    if decision is None:
        return None
    return {"n": decision.number, "seat": decision.seat, "kind": decision.kind,
            "prompt": decision.prompt, "actions": [label for _code, label in decision.actions],
            "codes": [code for code, _label in decision.actions], "chosen": decision.chosen,
            "ms": decision.time_ms, "faults": decision.faults}


def page_data(replay: Replay, title: str = "") -> str:
    """Everything the page shows, as one JSON text (read by the viewer's ``showReplay``):
    each step's views are the omniscient table, each seat's, the engine's state, each
    seat's observation and the decision, in that order, as changes from the step before
    (the legal actions of one decision are much like the last one's)."""
    record = replay.record
    steps = Steps()
    frames = []
    for frame in replay.frames:
        shown = tables(record.game, frame.state, frame.observations, frame.scores)
        for table in shown:
            steps.collect_cards(table)
        frames.append({"c": steps.add([*shown, frame.state, *frame.observations,
                                       _decision(frame.decision)]),
                       "e": [frame.events.start, frame.events.stop]})
    game = get_game(record.game)
    meta = {"title": page_title(replay, title), "game": record.game,
            "gameTitle": game.title, "variant": record.variant,
            "seed": str(record.seed),  # 64-bit: a JS number would round it
            "seats": replay.seats, "scores": replay.scores, "ranks": replay.ranks,
            "endReason": replay.end_reason, "endWords": end_words(replay.end_reason)}
    events = [[event.text, event.seat,
               None if event.visible_to is None else sorted(event.visible_to)]
              for event in replay.events]
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
                  scrub: Callable[[str], str] = str) -> str:
    """The replay page of one game, as one HTML string.

    ``static``: where the viewer's files are, relative to the page (``""``: beside it);
    None puts them inline, for a page that travels alone. ``scrub``: what a public copy
    leaves out of the game's text, before it is packed out of a reader's sight."""
    data = scrub(page_data(replay, title))
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
