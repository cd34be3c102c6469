"""Replays that hold only some seats' views, or only what every seat saw: decoded from the
page's bytes, nothing of another seat's (its hand, its observation, its choices) and
nothing of the engine's (its state, the seed that deals every hand) is in them."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from pages.viewer import embedded_data, page_data, record_data, render_page
from referee.games import GAMES, GameRecord, get_game
from referee.replay import replay_frames
from referee.tables import BACK, tables

#: Every game, three seats, at its first variant.
SETUPS = [(game.name, next(iter(game.variants))) for game in GAMES.values()]


def played(game: str, variant: str, seed: int = 8_713_402_991_337) -> GameRecord:
    state = get_game(game).new_state(3, variant, seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply(rng.randrange(len(state.legal_actions())))
    return state.record()


def apply(view: Any, op: list[Any]) -> Any:
    """One change of the page's (pages/viewer.py's ``changes``), as the viewer applies it."""
    path = op[0]
    if not path:
        return op[1] if len(op) == 2 else view[:op[1]] + op[3] + view[op[1] + op[2]:]
    copy = list(view) if isinstance(view, list) else dict(view)
    copy[path[0]] = apply(view[path[0]], [path[1:], *op[1:]])
    return copy


def steps(data: dict[str, Any]) -> list[list[Any]]:
    """Every step's columns (``page_data``'s ``views``), rebuilt from the page's changes."""
    rebuilt, views = [], [None] * len(data["views"])
    for step in range(len(data["ends"])):
        views = [_applied(view, column[step]) for view, column in zip(views, data["views"])]
        rebuilt.append(views)
    return rebuilt


def _applied(view: Any, ops: list[list[Any]]) -> Any:
    for op in ops:
        view = apply(view, op)
    return view


def observations(apart: list[Any]) -> list[dict[str, Any]]:
    """The seats' observations a step's columns hold: the first whole, each other as what
    differs from it (pages/viewer.py's ``apart``)."""
    first = apart[0]
    return [first, *(seen[0] if isinstance(seen, list) else {**first, **seen}
                     for seen in apart[1:])]


def page_of(record: GameRecord, seats: list[int]) -> tuple[str, dict[str, Any]]:
    replayed = replay_frames(record, ["ann.v1", "bea.v1", "ann.v2"])
    page = render_page(record.game, "a game", page_data(replayed, seats), static="/static/")
    return page, json.loads(embedded_data(page))


@pytest.mark.parametrize("game, variant", SETUPS)
@pytest.mark.parametrize("seats", [[1], [0, 2]])
def test_a_seats_page_holds_its_own_views_and_nothing_of_the_others(game, variant, seats):
    record = played(game, variant)
    frames = replay_frames(record).frames
    page, data = page_of(record, seats)
    assert str(record.seed) not in embedded_data(page) and "seed" not in data["meta"]
    assert [view["seat"] for view in data["meta"]["views"]] == seats
    assert data["meta"]["shown"] == seats and not data["meta"]["omniscient"]
    shown = steps(data)
    assert len(shown) == len(frames)
    for views, frame in zip(shown, frames):
        # Only the seats' own observations: the tables the viewer draws are built from them.
        assert len(views) == len(seats) + 1
        assert observations(views[:-1]) == [frame.observations[seat] for seat in seats]
        assert frame.state not in views
        expected = tables(game, frame.state, frame.observations, frame.scores)
        for seat in seats:
            for holder in set(range(3)) - set(seats):
                held = frame.observations[seat].get("known_cards", [{"cards": []}] * 3)
                known = {card["code"] for card in held[holder]["cards"]}
                table = expected[seat + 1]
                hand = next(z for z in table["seats"][holder]["zones"] if z["title"] == "Hand")
                assert set(hand["cards"]) - {BACK} <= known, (seat, holder)
        decision = views[-1]
        if decision is not None and decision["seat"] not in seats:
            assert set(decision) == {"seat", "kind", "faults"}
            assert all(fault["seat"] in seats for fault in decision["faults"])
    events = replay_frames(record).events
    assert data["events"] == [
        [event.text, None if event.visible_to is None else sorted(event.visible_to & set(seats))]
        for event in events if event.visible_to is None or event.visible_to & set(seats)]


@pytest.mark.parametrize("game, variant", SETUPS)
def test_a_public_page_holds_what_every_seat_saw(game, variant):
    record = played(game, variant)
    frames = replay_frames(record).frames
    page, data = page_of(record, [])
    assert str(record.seed) not in embedded_data(page)
    assert [view["seat"] for view in data["meta"]["views"]] == [None]
    assert data["meta"]["shown"] == [] and data["meta"]["public"]
    face_up = 0
    for (table, decision), frame in zip(steps(data), frames):
        seat_views = tables(game, frame.state, frame.observations, frame.scores)[1:]
        drawn = [[card for z in [*t["center"], *(z for s in t["seats"] for z in s["zones"])]
                  for card in z["cards"] if card] for t in seat_views]
        for card in (card for z in [*table["center"], *(z for s in table["seats"]
                                                           for z in s["zones"])]
                     for card in z["cards"] if card):
            assert all(card in seen or f"*{card}" in seen for seen in drawn), card
            face_up += 1
        assert decision is None or set(decision) == {"seat", "kind", "faults"}
        assert decision is None or not decision["faults"]
    assert all(to is None for _text, to in data["events"]) and face_up


def test_the_whole_page_holds_the_record_every_view_and_the_seed():
    record = played("flea-circus", "standard")
    page = render_page(record.game, "a game", record_data(record, ["a", "b", "c"]), "/static/")
    data = json.loads(embedded_data(page))
    assert data["meta"]["seed"] == str(record.seed)
    assert len(data["meta"]["views"]) == 4 and data["meta"]["omniscient"]
    assert data["record"]["actions"] == list(record.actions)
