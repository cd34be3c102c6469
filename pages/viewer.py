"""The HTML replay of one game: one self-contained file, every step drawn.

The page (``pages/templates/replay.html``) holds its CSS and script inline
(``pages/static/viewer.css`` and ``viewer.js``) and the game as JSON; it fetches nothing, so it opens from disk, offline. Python
decides what every view of every step shows (:mod:`referee.tables`), the
script only draws it: the omniscient table, or exactly one seat's, built from
the observation that seat is sent.

A game has hundreds of steps and a table changes little from one to the next,
so every value is stored once in ``parts`` (see :class:`Parts`) and steps
refer to it by index: a Flohcati game of 300 decisions, with its five views
and raw observations at every step, takes a few hundred KB, not tens of MB.
"""

from __future__ import annotations

import json
import html
from importlib import resources
from typing import Any

from referee.games import end_words, get_game
from referee.replay import Decision, Replay
from referee.tables import tables


class Parts:
    """Every distinct value once, containers made of the indices of their items.

    A list is stored as ``[0, item ids...]``, a dict as ``[1, keys id, value
    ids...]`` with its keys as one tab-joined string; anything else as itself.
    Equal subtrees (a card, a hand, a seat panel that did not change) share one
    index, so a step costs only what changed in it.
    """

    def __init__(self) -> None:
        self.values: list[Any] = []
        self.index: dict[tuple[Any, ...], int] = {}

    def add(self, value: Any) -> int:
        kind = type(value)
        if kind is dict:
            key: tuple[Any, ...] = (1, self.add("\t".join(value)),
                                    *[self.add(item) for item in value.values()])
        elif kind is list or kind is tuple:
            key = (0, *[self.add(item) for item in value])
        else:
            key = (kind, value)  # (bool, True) is not (int, 1)
        found = self.index.get(key)
        if found is None:
            found = self.index[key] = len(self.values)
            self.values.append(list(key) if key[0] in (0, 1) else value)
        return found


def _decision(decision: Decision | None) -> dict[str, Any] | None:
    if decision is None:
        return None
    return {"n": decision.number, "seat": decision.seat, "kind": decision.kind,
            "prompt": decision.prompt, "actions": [label for _code, label in decision.actions],
            "codes": [code for code, _label in decision.actions], "chosen": decision.chosen,
            "ms": decision.time_ms, "faults": decision.faults}


def page_data(replay: Replay, title: str = "") -> dict[str, Any]:
    """Everything the page shows, as JSON-ready data."""
    record = replay.record
    parts = Parts()
    frames = []
    for frame in replay.frames:
        views = tables(record.game, frame.state, frame.observations, frame.scores)
        raw = [frame.state, *frame.observations]
        frames.append({
            "d": _decision(frame.decision),
            "v": [parts.add(view) for view in views],
            "o": [parts.add(shown) for shown in raw],
            "e": [frame.events.start, frame.events.stop]})
    game = get_game(record.game)
    return {
        "meta": {"title": title or f"{game.title} ({record.variant})", "game": record.game,
                 "gameTitle": game.title, "variant": record.variant,
                 "seed": str(record.seed),  # 64-bit: a JS number would round it
                 "seats": replay.seats, "scores": replay.scores, "ranks": replay.ranks,
                 "endReason": replay.end_reason,
                 "endWords": end_words(replay.end_reason)},
        "parts": parts.values,
        "frames": frames,
        "events": [[event.text, event.seat,
                    None if event.visible_to is None else sorted(event.visible_to)]
                   for event in replay.events],
    }


def _script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no ``</script>`` or ``<!--`` can appear."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")


def _page_file(path: str) -> str:
    return resources.files("pages").joinpath(path).read_text("utf-8")


def render_replay(replay: Replay, title: str = "") -> str:
    """The replay page of one game, as one HTML string."""
    data = page_data(replay, title)
    return (_page_file("templates/replay.html")
            .replace("__TITLE__", html.escape(data["meta"]["title"]))
            .replace("__STYLE__", f"<style>\n{_page_file('static/viewer.css')}</style>")
            .replace("__SCRIPT__", f"<script>\n{_page_file('static/viewer.js')}</script>")
            .replace("__DATA__", _script_json(data)))

