"""A PettingZoo AEC environment of a game: the agent named is the deciding seat.

The agent selected is always :meth:`State.current_seat`, also when it is not the seat
on turn (a counterattack's target choice, a give in Flohcati); the mask of its legal
action ids is in its info (``infos[agent]["action_mask"]``, PettingZoo's convention for a
Box observation), so the observation is the encoder's tensor alone. Rewards come at the end
only and are rank-based: a seat's share of the other seats it beats (a tie counts half),
mapped to [-1, 1], so a win is +1 whatever the scores. A deal's seed is derived from the
reset seed with the referee's :func:`derive_seed`, as a tournament derives its games'.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv

from referee.games import get_game
from referee.games.base import Action, State
from referee.seeds import derive_seed
from training.encoding import Encoder, encoder


def rank_rewards(ranks: list[int]) -> list[float]:
    """Each seat's share of the others it beats (ties half), as 2 * share - 1."""
    others = len(ranks) - 1
    return [2 * sum(1.0 if own < other else 0.5 if own == other else 0.0
                    for index, other in enumerate(ranks) if index != seat) / others - 1
            for seat, own in enumerate(ranks)]


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


#: Every feature is a count of cards or a fraction: none reaches this.
OBSERVATION_HIGH = 64.0


class CircusAECEnv(AECEnv[str, NDArray[np.float32], int]):
    """One game at one table size, seats ``seat_0``.. as PettingZoo agents."""

    metadata = {"name": "circus_referee_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, game: str, seats: int = 2, variant: str | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.render_mode = render_mode
        self.game = get_game(game)
        self.variant = self.game.check(seats, variant)
        self.players = seats
        self.encoder: Encoder = encoder(game, self.variant)
        self.possible_agents = [agent_name(seat) for seat in range(seats)]
        space = spaces.Box(0.0, OBSERVATION_HIGH, (self.encoder.size,), np.float32)
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(len(self.encoder.codes))
                              for agent in self.possible_agents}
        self._seeds = random.Random()
        self.state: State | None = None
        self._actions: list[Action] = []
        self._ids: list[int] = []  # the legal actions' ids, in their order
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds.seed(seed)
        deal = derive_seed("training", self.game.name, self.variant, self.players,
                           self._seeds.getrandbits(63))
        self.state = self.game.new_state(self.players, self.variant, deal)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._select()

    def _select(self) -> None:
        """Name the deciding seat and give it the mask of its legal actions (in its info)."""
        state = self._state()
        seat = state.current_seat()
        self.agent_selection = self.possible_agents[seat]
        self._actions = state.legal_actions()  # what the next step chooses from
        self._ids = self.encoder.action_ids(self._actions, seat, self.players)
        self.infos[self.agent_selection] = {"action_mask": self.encoder.mask_of(self._ids)}

    def _state(self) -> State:
        if self.state is None:
            raise RuntimeError("reset() the environment first")
        return self.state

    def observe(self, agent: str) -> NDArray[np.float32]:
        return self.encoder.observe_state(self._state(), self._seats[agent])

    def render(self) -> str | None:
        """``ansi``: the deciding seat and its pending decision, in words."""
        if self.render_mode != "ansi":
            return None
        state = self._state()
        if state.is_terminal():
            return f"game over ({state.end_reason}): scores {state.scores()}"
        return f"{self.agent_selection}: {state.prompt()}"

    def close(self) -> None:
        """Drop the game: an ``ansi`` render holds nothing else to release."""
        self.state = None

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._state()
        if action is None:
            raise ValueError("a live agent must choose an action")
        state.apply(self.encoder.index_of(self._ids, int(action)), self._actions)
        self.infos[agent] = {}
        if state.is_terminal():
            # Every reward and its sum stay 0 until this step: only the end's are set.
            self.rewards = dict(zip(self.possible_agents, rank_rewards(state.ranks())))
            self._cumulative_rewards[agent] = 0.0
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        else:
            self._select()
