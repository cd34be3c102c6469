"""A Gymnasium ``VectorEnv`` of one game: N tables in self-play, stepped as one batch.

Every step acts for the deciding seat of each table, as :class:`~training.aec.CircusAECEnv`
steps its selected agent: row ``i`` of the observations is that seat's tensor, of
``infos["action_mask"]`` its legal mask and of ``infos["seat"]`` its seat. The encoders
write straight into the rows of one batch array (zeroed once a step), so a step costs the
engines and the encoders and little else; the copies handed out are the caller's to keep.

A table's reward at a step is the acting seat's: 0, or its rank reward
(:func:`~training.aec.rank_rewards`) at the step that ends the game, when every seat's
reward is in ``infos["final_rewards"]`` (with the mask ``infos["_final_rewards"]``). An
ended table starts its next deal in the same step (``AutoresetMode.SAME_STEP``): the row
shows the new deal's first decision, and ``infos["final_obs"]`` the acting seat's tensor of
the ended one, as Gymnasium's own vector environments give it.

Seeds: ``reset(seed=s)`` seeds table ``i`` with ``s + i`` (a list seeds each table), and
table ``i`` then deals exactly the games of a ``CircusAECEnv`` reset with that seed and
then reset unseeded after each game.
"""

from __future__ import annotations

import random
from typing import Any, Sequence, cast

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numpy.typing import NDArray

from referee.games import get_game
from referee.games.base import Action, State
from referee.seeds import derive_seed
from training.aec import OBSERVATION_HIGH, rank_rewards
from training.encoding import Encoder, encoder

Observations = NDArray[np.float32]
Step = tuple[Observations, NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_],
             dict[str, Any]]


class CircusVectorEnv(VectorEnv[Observations, NDArray[np.int64], NDArray[Any]]):
    """``num_envs`` tables of one game at one table size, each seat playing in turn."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, game: str, num_envs: int, seats: int = 2,
                 variant: str | None = None) -> None:
        self.game = get_game(game)
        self.variant = self.game.check(seats, variant)
        self.players = seats
        self.num_envs = num_envs
        self.encoder: Encoder = encoder(game, self.variant)
        self.single_observation_space = spaces.Box(0.0, OBSERVATION_HIGH, (self.encoder.size,),
                                                   np.float32)
        self.single_action_space = spaces.Discrete(len(self.encoder.codes))
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observations = np.zeros((num_envs, self.encoder.size), dtype=np.float32)
        self.masks = np.zeros((num_envs, len(self.encoder.codes)), dtype=np.int8)
        self.seats = np.zeros(num_envs, dtype=np.int64)
        # Each row, written through a memoryview as the encoders write a tensor (an item
        # set through one costs a fraction of a numpy item's).
        self._rows = [cast("memoryview[float]", row.data) for row in self.observations]
        self._mask_rows = [row.data for row in self.masks]
        self._seeds = [random.Random() for _ in range(num_envs)]
        self.states: list[State] = []
        self._actions: list[list[Action]] = []  # each table's legal actions, in their order
        self._ids: list[list[int]] = []  # and their ids

    def reset(self, *, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Observations, dict[str, Any]]:
        super().reset(seed=seed if isinstance(seed, int) else None)
        if seed is not None:
            seeds = [seed + table for table in range(self.num_envs)] \
                if isinstance(seed, int) else list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"{len(seeds)} seeds for {self.num_envs} tables")
            for rng, table_seed in zip(self._seeds, seeds):
                rng.seed(table_seed)
        self.states = [self._deal(table) for table in range(self.num_envs)]
        self._actions = [[] for _ in range(self.num_envs)]
        self._ids = [[] for _ in range(self.num_envs)]
        self._write_all()
        return self.observations.copy(), self._infos()

    def _deal(self, table: int) -> State:
        """The table's next deal, its seed drawn as ``CircusAECEnv.reset`` draws it."""
        deal = derive_seed("training", self.game.name, self.variant, self.players,
                           self._seeds[table].getrandbits(63))
        return self.game.new_state(self.players, self.variant, deal)

    def _clear(self) -> None:
        self.observations.fill(0)
        self.masks.fill(0)

    def _write_all(self) -> None:
        """Every table's deciding seat, legal ids, mask and tensor, into the batch arrays."""
        self._clear()
        for table, state in enumerate(self.states):
            self._write(table, state)

    def _write(self, table: int, state: State) -> None:
        """The table's deciding seat, its legal ids, mask and tensor, into the zeroed row."""
        seat = state.current_seat()
        actions = state.legal_actions()
        ids = self.encoder.action_ids(actions, seat, self.players)
        self._actions[table], self._ids[table] = actions, ids
        self.seats[table] = seat
        mask = self._mask_rows[table]
        for action_id in ids:
            mask[action_id] = 1
        self.encoder.fill_state(state, seat, self._rows[table])

    def _infos(self) -> dict[str, Any]:
        return {"action_mask": self.masks.copy(), "seat": self.seats.copy()}

    def step(self, actions: NDArray[np.int64]) -> Step:
        """Apply each table's action id (every one checked legal before any is applied)."""
        if not self.states:
            raise RuntimeError("reset() the environment first")
        chosen = [self.encoder.index_of(ids, action)
                  for ids, action in zip(self._ids, np.asarray(actions).tolist(), strict=True)]
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminations = np.zeros(self.num_envs, dtype=np.bool_)
        ended: dict[str, Any] = {}
        self._clear()
        # One pass, each table's state applied to and written at once: 64 tables' objects
        # outgrow the cache, and a second pass would fetch each of them again.
        for table, (state, index) in enumerate(zip(self.states, chosen)):
            state.apply(index, self._actions[table])
            if state.is_terminal():
                seat = int(self.seats[table])
                final = rank_rewards(state.ranks())
                rewards[table], terminations[table] = final[seat], True
                ended = self._add_info(ended, {
                    "final_obs": self.encoder.observe_state(state, seat),
                    "final_info": {"seat": seat},
                    "final_rewards": np.array(final, dtype=np.float64)}, table)
                state = self.states[table] = self._deal(table)
            self._write(table, state)
        return (self.observations.copy(), rewards, terminations,
                np.zeros(self.num_envs, dtype=np.bool_), {**self._infos(), **ended})
