"""Random games that check the two ways of writing a tensor give the same bytes.

:meth:`Encoder.observe_state` (from the engine's state, what the environments use) and
:meth:`Encoder.observe` of :meth:`State.observation` (the wire's dict, what
``encode_request`` uses) must agree at every seat of every position, or a policy trained in
process would play a different game over the wire. The suite plays a few hundred games
(tests/test_training_state.py); ``python -m bench.training equality`` plays thousands.
"""

from __future__ import annotations

import random

from referee.games import get_game
from training.encoding import encoder


def first_difference(game: str, variant: str, players: int, games: int, seed: int,
                     share: float = 1.0) -> str | None:
    """Where the two tensors first differ in ``games`` seeded random games, or None.

    Every seat is compared at a random ``share`` of the decisions (and at each game's end):
    the dict's way costs most of the time, and positions repeat little from game to game.
    """
    rules, code = get_game(game), encoder(game, variant)
    rng = random.Random(f"{game}/{variant}/{players}/{seed}")
    for number in range(games):
        state = rules.new_state(players, variant, rng.getrandbits(63))
        while True:
            if state.is_terminal() or rng.random() < share:
                for seat in range(players):
                    if code.observe_state(state, seat).tobytes() != \
                            code.observe(state.observation(seat), players).tobytes():
                        return (f"{game} {variant} {players}p game {number}, decision "
                                f"{len(state.history)}, seat {seat}")
            if state.is_terminal():
                break
            actions = state.legal_actions()
            state.apply(rng.randrange(len(actions)), actions)
    return None
