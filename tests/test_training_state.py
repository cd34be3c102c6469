"""The tensors written from the engine's state are the bytes the observation dict gives.

The environments encode straight from each game's State; the wire encodes from the
``DecisionRequest``'s observation (its dict). A policy trained on one plays on the other, so
every seat's tensor at a fifth of the decisions of random games (and at their ends) is
compared, byte for byte, in every game and variant at 2-5 seats: 256 games here; ``python -m
bench.training equality`` compares at every decision of thousands.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from referee.games import GAMES  # noqa: E402
from training.encoding import ENCODERS, Runs, encoder  # noqa: E402
from training.equality import first_difference  # noqa: E402

TABLES = sorted((game, variant, players) for game, variant in ENCODERS
                for players in range(GAMES[game].min_players, GAMES[game].max_players + 1))


@pytest.mark.parametrize(("game", "variant", "players"), TABLES)
def test_every_seat_s_tensor_from_the_state_is_the_dict_s(game: str, variant: str,
                                                          players: int) -> None:
    assert first_difference(game, variant, players, games=16, seed=59,
                            share=0.2) is None


def test_a_state_changed_by_hand_is_encoded_as_it_is_now() -> None:
    """Nothing is remembered between calls: a position laid out by hand is read afresh."""
    state = GAMES["flea-circus"].new_state(3, "standard", 7)
    code = encoder("flea-circus")
    before = code.observe_state(state, 0)
    state.hands[0] = ["general"]  # type: ignore[attr-defined]
    after = code.observe_state(state, 0)
    assert after.tobytes() == code.observe(state.observation(0), 3).tobytes()
    assert after.tobytes() != before.tobytes()


def test_runs_are_copied_by_content_and_the_oldest_dropped_when_full() -> None:
    """A run is written once per content, copied into each tensor, and the memo stays bounded."""
    written: list[tuple[int, ...]] = []

    def write(key: tuple[int, ...], run: memoryview[float]) -> None:
        assert key not in runs.runs  # kept once written: another thread never finds it blank
        written.append(key)
        for index in key:
            run[index] += 1

    runs = Runs(4, write, limit=2)
    tensor = np.zeros(6, dtype=np.float32)
    view = cast("memoryview[float]", tensor.data)
    runs.put(view, 1, (0, 3, 3))
    runs.put(view, 1, (0, 3, 3))
    assert tensor.tolist() == [0, 1, 0, 0, 2, 0] and written == [(0, 3, 3)]
    tensor[2] = 7  # a tensor's own writes never reach the run it was copied from
    runs.put(view, 1, (0, 3, 3))
    assert tensor.tolist() == [0, 1, 0, 0, 2, 0]
    runs.put(view, 0, (1,))
    runs.put(view, 0, (2,))  # a third content: the memo is full, the oldest run dropped
    assert list(runs.runs) == [(1,), (2,)] and written == [(0, 3, 3), (1,), (2,)]
