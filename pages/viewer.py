"""The HTML replay of one game: a small page holding only that game, drawn by a shared viewer.

The viewer (``pages/static/``: the games' rules, ``steps.js``, ``viewer.js`` and
``viewer.css``) is the same for every game: a folder of replays holds it once and each
game's page links it, or a page made alone holds it inline (:func:`render_page`). The page
(``pages/templates/replay.html``) fetches nothing, so it opens from disk, offline.

A page that may show every card holds only the game's record (:func:`record_data`): the
seed, the chosen actions, their times and faults, about a kilobyte. The browser replays it
with the games' rules in JavaScript (``static/rules*.js``, ports of the engines tested
equal to them move for move), so making a page costs no replay here: a report of a
season's thousands of games is written in seconds.

A page of only some seats' views (:func:`page_data`) cannot hold the seed, which deals
every hand: it holds what the engine made of the game instead, each step's views, and no
more. The browser draws every table from them (``steps.js``, the port of
:mod:`referee.tables`, tested equal to it): exactly one seat's from the observation that
seat was sent, or the table of what every seat saw, ready drawn. A game has hundreds of
steps and a view changes little from one to the next, so such a page holds each step as
the changes from the step before (:func:`changes`), and the seats' observations as what
each differs from the first's (:func:`apart`).

Either data is deflated and base64'd into the page, and the browser inflates it
(``DecompressionStream``, which works from ``file:``).
"""

from __future__ import annotations

import base64
import html
import json
import zlib
from functools import cache
from importlib import resources
from itertools import accumulate
from typing import Any, Callable, Iterable, Sequence

from referee.games import GAMES, GameRecord, end_words, get_game
from referee.replay import Decision, Frame, Replay, Replaying, faults_by_decision
from referee.tables import public_table, tables


#: The viewer's own scripts, run after the games' rules.
VIEWER_SCRIPTS = ("steps.js", "viewer.js")


def scripts(game: str) -> tuple[str, ...]:
    """The scripts a page of ``game`` runs, in order: the rules, then the viewer."""
    return "rules.js", f"rules-{game}.js", *VIEWER_SCRIPTS


#: The viewer's files, linked by every page of a folder or inlined into a page made alone.
STATIC_FILES = ("viewer.css", "rules.js", *(f"rules-{game}.js" for game in sorted(GAMES)),
                *VIEWER_SCRIPTS)
#: What opens the page's data in pages/templates/replay.html.
DATA_OPEN = '<script id="replay-data" type="text/plain">'


def changes(before: Any, after: Any, path: list[Any], ops: list[list[Any]]) -> None:
    """The operations that turn ``before`` into ``after``, appended to ``ops`` (none if
    they are equal).

    An operation is ``[path, value]`` (set what ``path`` leads to) or ``[path, start,
    removed, inserted]`` (splice a list: a card drawn from the deck, one more on the
    discard pile). Equal parts are skipped whole, compared in C, so a step costs about
    what changed in it."""
    kind = type(after)
    if kind is dict and type(before) is dict and before.keys() == after.keys():
        for key, new in after.items():
            old = before[key]
            if old is not new and old != new:
                _changed(old, new, [*path, key], ops)
    elif kind is list and type(before) is list and len(before) == len(after):
        for key, (old, new) in enumerate(zip(before, after)):
            if old is not new and old != new:
                _changed(old, new, [*path, key], ops)
    elif kind is list and type(before) is list:
        ops.append([path, *_splice(before, after)])
    elif before != after:
        ops.append([path, after])


def _changed(old: Any, new: Any, path: list[Any], ops: list[list[Any]]) -> None:
    """The operations of one part that changed: its own changes if it is a dict or list
    as before, else set whole."""
    inner = type(new)
    if (inner is dict or inner is list) and type(old) is inner:
        changes(old, new, path, ops)
    else:
        ops.append([path, new])


def _splice(before: list[Any], after: list[Any]) -> tuple[int, int, list[Any]]:
    """Where the two lists differ: the first index, how many go, what comes instead.
    A list grown or shrunk at one end (a card laid on a pile, drawn from the deck) is
    found by comparing slices, in C."""
    shorter = min(len(before), len(after))
    if before[:shorter] == after[:shorter]:
        start = shorter
    elif before[0] != after[0] and before[len(before) - shorter:] == after[len(after) - shorter:]:
        return 0, len(before) - shorter, after[:len(after) - shorter]
    else:
        start = 0
        while before[start] == after[start]:
            start += 1
    tail = 0
    while tail < shorter - start and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return start, len(before) - start - tail, after[start:len(after) - tail]


class Steps:
    """Each step's views as the changes from the step before."""

    def __init__(self) -> None:
        self.shown: list[Any] = []

    def add(self, views: list[Any]) -> list[list[list[Any]]]:
        """The operations of each view; the first step's set each view whole."""
        if not self.shown:
            self.shown = views
            return [[[[], view]] for view in views]
        steps = []
        for before, after in zip(self.shown, views):
            ops: list[list[Any]] = []
            changes(before, after, [], ops)
            steps.append(ops)
        self.shown = views
        return steps


def apart(observations: list[dict[str, Any]]) -> list[Any]:
    """The first observation whole, each other as what differs from it: the seats of one
    position are sent the same public part (the viewer adds it back). An observation
    whose keys differ from the first's goes whole, as ``[observation]``."""
    first = observations[0]
    return [first, *({key: value for key, value in seen.items()
                      if value is not first[key] and first[key] != value}
                     if seen.keys() == first.keys() else [seen]
                     for seen in observations[1:])]


def _decision(decision: Decision | None, shown: Sequence[int]) -> dict[str, Any] | None:
    """What the page shows of a decision (its number is its step's): whole if one of the
    ``shown`` seats made it; else only who decided what kind of thing, and the faults of
    the ``shown`` seats in it (another seat's prompt, actions, choice and time are its own)."""
    if decision is None:
        return None
    if decision.seat not in shown:
        return {"seat": decision.seat, "kind": decision.kind,
                "faults": [fault for fault in decision.faults if fault["seat"] in shown]}
    ms = decision.time_ms
    return {"seat": decision.seat, "kind": decision.kind, "prompt": decision.prompt,
            "actions": [label for _code, label in decision.actions],
            "codes": [code for code, _label in decision.actions], "chosen": decision.chosen,
            # The viewer shows at most two decimals.
            "ms": None if ms is None else round(ms, 2), "faults": decision.faults}


def _columns(game: str, frame: Frame, shown: list[int]) -> list[Any]:
    """What one step shows, a column each: the ``shown`` seats' observations
    (:func:`apart`), then the decision. With no seat shown, the table of what every seat
    saw, ready drawn, stands for them: no observation is what every seat was sent."""
    decision = _decision(frame.decision, shown)
    if not shown:
        seat_tables = tables(game, frame.state, frame.observations, frame.scores)[1:]
        return [public_table(seat_tables), decision]
    return [*apart([frame.observations[seat] for seat in shown]), decision]


def _seat_views(names: Sequence[str], shown: Sequence[int]) -> list[dict[str, Any]]:
    """The menu's view of each of the ``shown`` seats, named by its bot."""
    return [{"label": f"as seat {seat} saw it ({names[seat]})", "seat": seat} for seat in shown]


def _title(record: GameRecord, title: str) -> str:
    """``title``, or the game's name and variant."""
    return title or f"{get_game(record.game).title} ({record.variant})"


def record_data(record: GameRecord, seats: Sequence[str], title: str = "",
                times: Iterable[Sequence[float]] = (), faults: Iterable[dict[str, Any]] = (),
                ranks: Sequence[int] | None = None) -> str:
    """A page of every card's data: the game's record, which the browser replays with the
    games' rules (``static/rules.js``), as one JSON text read by the viewer's ``showReplay``.

    ``seats`` are the seats' names; ``times`` the stored ``(seat, decision id, ms)``,
    ``faults`` the stored fault rows to mark, ``ranks`` the stored ranks (a forfeit
    changes them), else the browser ranks by score."""
    game = get_game(record.game)
    ms_by_decision = {int(decision): float(ms) for _seat, decision, ms in times}
    meta = {"title": _title(record, title), "game": record.game,
            "gameTitle": game.title, "variant": record.variant, "seats": list(seats),
            "ranks": None if ranks is None else list(ranks),
            "endWords": {reason: end_words(reason) for reason in game.end_reasons},
            "views": [{"label": "omniscient: every card", "seat": None},
                      *_seat_views(seats, range(record.players))],
            "shown": list(range(record.players)), "omniscient": True, "public": False,
            "seed": str(record.seed)}  # 64-bit: a JS number would round it
    # The viewer shows at most two decimals of a time.
    ms = [None if number not in ms_by_decision else round(ms_by_decision[number], 2)
          for number in range(1, len(record.actions) + 1)]
    marked = faults_by_decision(faults, len(record.actions))
    return json.dumps({"meta": meta, "record": {
        "actions": list(record.actions), "ms": ms,
        "faults": {str(number): found for number, found in sorted(marked.items())}}},
        separators=(",", ":"), ensure_ascii=False)


def page_data(replay: Replay | Replaying, seats: Sequence[int], title: str = "") -> str:
    """A page of some seats' views: everything it shows, as one JSON text (read by the
    viewer's ``showReplay``).

    ``views``: for each thing a step shows, the changes of it at every step (kept apart,
    each compresses better beside its like; see :func:`_columns`). The viewer draws each
    table from them (``static/steps.js``); ``meta``'s ``views`` are the ones it offers.
    Only the ``seats``' observations, the events they were shown, their own decisions
    whole (of the others' only who decided), no state and no seed (it deals every hand):
    nothing of another seat's reaches the page. No seat, only what every seat saw
    (:func:`referee.tables.public_table`), the public events, no decision's choices."""
    record = replay.record
    shown = sorted(set(seats))
    steps = Steps()
    per_step, stops = [], []
    for frame in replay.frames:     # once: a Replaying's are let go as they are used
        per_step.append(steps.add(_columns(record.game, frame, shown)))
        stops.append(frame.events.stop)
    visible = [event.visible_to is None or not event.visible_to.isdisjoint(shown)
               for event in replay.events]
    seen_before = list(accumulate(visible, initial=0))
    game = get_game(record.game)
    meta = {"title": _title(record, title), "game": record.game,
            "gameTitle": game.title, "variant": record.variant,
            "seats": replay.seats, "scores": replay.scores, "ranks": replay.ranks,
            "endReason": replay.end_reason, "endWords": end_words(replay.end_reason),
            "views": _seat_views(replay.seats, shown)
                     or [{"label": "public: what every seat saw", "seat": None}],
            "shown": shown, "omniscient": False, "public": not shown}
    events = [[event.text,
               None if event.visible_to is None else sorted(event.visible_to.intersection(shown))]
              for event, seen in zip(replay.events, visible) if seen]
    return json.dumps({"meta": meta, "views": [list(column) for column in zip(*per_step)],
                       "ends": [seen_before[stop] for stop in stops],
                       "events": events},
                      separators=(",", ":"), ensure_ascii=False)


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


def render_page(game: str, title: str, data: str, static: str | None = None,
                scrub: Callable[[str], str] = str) -> str:
    """The replay page of one game of ``game``, titled ``title``, holding ``data``
    (:func:`record_data` or :func:`page_data`), as one HTML string.

    ``static``: where the viewer's files are, relative to the page (``""``: beside it);
    None puts them inline, for a page that travels alone. ``scrub``: what a public copy
    leaves out of the game's text, before it is packed out of a reader's sight."""
    if static is None:
        style = f"<style>\n{page_file('static/viewer.css')}</style>"
        script = "".join(f"<script>\n{page_file(f'static/{name}')}</script>"
                         for name in scripts(game))
    else:
        style = f'<link rel="stylesheet" href="{html.escape(static)}viewer.css">'
        script = "".join(f'<script src="{html.escape(static)}{name}"></script>'
                         for name in scripts(game))
    return (page_file("templates/replay.html")
            .replace("__TITLE__", scrub(html.escape(title)))
            .replace("__STYLE__", style).replace("__SCRIPT__", script)
            .replace("__DATA__", packed(scrub(data))))
