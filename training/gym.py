"""A Gymnasium view of a game: one learner seat, the other seats played by in-process bots.

The learner's seat rotates across episodes (episode k after a seeded reset sits at seat
``k % players``), so a policy meets every seat position. Opponents are any :class:`referee.clients.InProcessBot`
(``bots.random_bot.RandomBot``, the heuristic and search bots, a frozen policy), asked
through the same ``DecisionRequest`` the referee sends; a reply that is not a legal index
raises. An action id that is not legal ends the episode as a loss (reward -1,
``info["illegal"]``), so an unmasked learner is taught, not crashed; masked learners
(MaskablePPO) read ``action_masks()`` or ``info["action_mask"]``.
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from circus.v1 import bot_pb2
from referee.clients import InProcessBot
from referee.games import get_game
from referee.games.base import State
from referee.seeds import derive_seed
from referee.wire import decision_request
from training.aec import OBSERVATION_HIGH, rank_rewards
from training.encoding import encoder


class CircusGymEnv(gymnasium.Env[NDArray[np.float32], np.int64]):
    """One learner against ``opponents`` (one bot per other seat) at one table size."""

    metadata = {"render_modes": []}

    def __init__(self, game: str, opponents: Sequence[InProcessBot],
                 variant: str | None = None) -> None:
        self.game = get_game(game)
        self.players = len(opponents) + 1
        self.variant = self.game.check(self.players, variant)
        self.opponents = list(opponents)
        self.encoder = encoder(game, self.variant)
        self.observation_space = spaces.Box(0.0, OBSERVATION_HIGH, (self.encoder.size,),
                                            np.float32)
        self.action_space = spaces.Discrete(len(self.encoder.codes))
        self.episode = -1
        self.learner = 0
        self.state: State | None = None
        self.bots: dict[int, InProcessBot] = {}
        self.sent: dict[int, int] = {}

    def _state(self) -> State:
        if self.state is None:
            raise RuntimeError("reset() the environment first")
        return self.state

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[NDArray[np.float32], dict[str, Any]]:
        super().reset(seed=seed)
        # A seeded reset restarts the rotation too, so the same seed gives the same episodes.
        self.episode = 0 if seed is not None else self.episode + 1
        self.learner = self.episode % self.players
        deal = derive_seed("training", self.game.name, self.variant, self.players,
                           int(self.np_random.integers(2 ** 63 - 1)))
        self.state = self.game.new_state(self.players, self.variant, deal)
        others = [seat for seat in range(self.players) if seat != self.learner]
        self.bots = dict(zip(others, self.opponents))
        self.sent = {seat: 0 for seat in others}
        names = [f"seat_{seat}" for seat in range(self.players)]
        for seat, bot in self.bots.items():
            bot.start_game(bot_pb2.StartGameRequest(
                game_id=f"training-{deal}", game=self.game.name, variant=self.variant,
                num_players=self.players, seat=seat, seat_names=names))
        self._play_opponents()
        return self._observation(), self._info()

    def _play_opponents(self) -> None:
        """Let the bots decide until the learner decides or the game ends."""
        state = self._state()
        while not state.is_terminal() and state.current_seat() != self.learner:
            seat = state.current_seat()
            actions = state.legal_actions()
            request = decision_request(state, f"training-{state.seed}", len(state.history),
                                       self.sent[seat], bot_pb2.Clock(), actions)
            self.sent[seat] = len(state.events)
            index = self.bots[seat].decide(request)
            if not isinstance(index, int) or not 0 <= index < len(actions):
                raise ValueError(f"the bot at seat {seat} replied {index!r}, not an index "
                                 f"below {len(actions)}")
            state.apply(index, actions)

    def _observation(self) -> NDArray[np.float32]:
        state = self._state()
        return self.encoder.observe(state.observation(self.learner), self.players)

    def action_masks(self) -> NDArray[np.int8]:
        """The legal action ids of the learner now (all zero once the game is over)."""
        state = self._state()
        if state.is_terminal():
            return np.zeros(len(self.encoder.codes), dtype=np.int8)
        return self.encoder.mask(state.legal_actions(), self.learner, self.players)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "seat": self.learner}

    def step(self, action: np.int64) -> tuple[NDArray[np.float32], float, bool, bool,
                                              dict[str, Any]]:
        state = self._state()
        actions = state.legal_actions()
        try:
            index = self.encoder.action_index(actions, int(action), self.learner, self.players)
        except ValueError:
            return self._observation(), -1.0, True, False, {**self._info(), "illegal": True}
        state.apply(index, actions)
        self._play_opponents()
        if not state.is_terminal():
            return self._observation(), 0.0, False, False, self._info()
        reward = rank_rewards(state.ranks())[self.learner]
        return self._observation(), reward, True, False, self._info()
