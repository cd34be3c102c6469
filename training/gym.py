"""A Gymnasium view of a game: one learner seat, the other seats played by in-process bots.

The learner's seat rotates across episodes (episode k after a seeded reset sits at seat
``k % players``), so a policy meets every seat position. Opponents are any
:class:`referee.clients.InProcessBot` (``bots.random_bot.RandomBot``, the heuristic and
search bots, a frozen policy), asked through the same calls and ``DecisionRequest`` the
referee sends, under the referee's deadlines: each call runs in a
:class:`~referee.clients.InProcessClient` and each decision has ``move_ms`` and a bank
(``time_control``, a ``TimeConfig``). ``time_control=None`` calls the bots on the caller's
thread with no deadline, for opponents known to answer (the project's own bots): it saves
the thread hop of each call (docs/training.md measures it). An
opponent's fault (no reply in time, a failure, an index that is not legal) is met as the
referee's default policy meets it: a legal action seeded from the deal and decision plays
instead, and ``info["opponent_faults"]`` counts the episode's faults.

An opponent may also be a policy (:data:`training.policy.Policy`, a callable of the seat's
tensor and legal mask to an action id, as :class:`~training.policy.MLPPolicy` and
:class:`~training.policy.RandomPolicy`): it is called on the caller's thread with the tensor
written from the engine's state, so no request is built (the request costs most of an
opponent's decision: docs/performance.md), and is told no start or end of a game. Its
illegal id is a fault, met as a bot's. Any opponent with a ``decide`` method is a bot.

An action id that is not legal ends the episode as a loss (reward -1, ``info["illegal"]``),
so an unmasked learner is taught, not crashed; masked learners (MaskablePPO) read
``action_masks()`` or ``info["action_mask"]``.
"""

from __future__ import annotations

import random
import time
from typing import Any, Callable, Sequence, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from circus.v1 import bot_pb2
from circus_outcomes import FaultClass, GameStatus
from referee.clients import BotFault, InProcessBot, InProcessClient
from referee.games import get_game
from referee.games.base import Action, State
from referee.seeds import derive_seed
from referee.settings import TimeConfig
from referee.wire import decision_request, final_state_message, struct
from training.aec import OBSERVATION_HIGH, rank_rewards
from training.encoding import encoder
from training.policy import Policy

#: One other seat's player: an in-process bot, asked as the referee asks it, or a policy.
Opponent = InProcessBot | Policy


class UntimedClient(InProcessClient):
    """An :class:`InProcessClient` that calls the bot on the caller's thread: no deadline."""

    def _call(self, function: Callable[..., Any], request: Any, timeout: float) -> Any:
        try:
            return function(request)
        except Exception as error:  # the bot's own failure, whatever it is
            raise BotFault(FaultClass.ERROR, f"{type(error).__name__}: {error}") from None


class CircusGymEnv(gymnasium.Env[NDArray[np.float32], np.int64]):
    """One learner against ``opponents`` (one bot per other seat) at one table size."""

    metadata = {"render_modes": []}

    def __init__(self, game: str, opponents: Sequence[Opponent],
                 variant: str | None = None,
                 time_control: TimeConfig | None = TimeConfig()) -> None:
        self.game = get_game(game)
        self.players = len(opponents) + 1
        self.variant = self.game.check(self.players, variant)
        self.timed = time_control is not None
        client = InProcessClient if self.timed else UntimedClient
        # Each opponent in order: a bot's client, or the policy itself.
        self.opponents: list[InProcessClient | Policy] = [
            client(cast(InProcessBot, opponent)) if hasattr(opponent, "decide") else opponent
            for opponent in opponents]
        self.clients = [opponent for opponent in self.opponents
                        if isinstance(opponent, InProcessClient)]
        self.time = time_control or TimeConfig()
        self.encoder = encoder(game, self.variant)
        self.observation_space = spaces.Box(0.0, OBSERVATION_HIGH, (self.encoder.size,),
                                            np.float32)
        self.action_space = spaces.Discrete(len(self.encoder.codes))
        self.episode = -1
        self.learner = 0
        self.state: State | None = None
        self.game_id = ""
        self.seated: dict[int, InProcessClient] = {}  # the bots' seats
        self.policies: dict[int, Policy] = {}  # the policies' seats
        self.sent: dict[int, int] = {}
        self.bank_ms: dict[int, float] = {}
        self.faults = 0
        # The learner's pending decision: its legal actions and their ids, listed once.
        self.actions: list[Action] = []
        self.ids: list[int] = []

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
        self.game_id = f"training-{deal}"
        others = [seat for seat in range(self.players) if seat != self.learner]
        seating = list(zip(others, self.opponents))
        self.seated = {seat: opponent for seat, opponent in seating
                       if isinstance(opponent, InProcessClient)}
        self.policies = {seat: opponent for seat, opponent in seating
                         if not isinstance(opponent, InProcessClient)}
        self.sent = {seat: 0 for seat in others}
        self.bank_ms = {seat: float(self.time.bank_ms) for seat in others}
        self.faults = 0
        self._start_game()
        self._play_opponents()
        return self._observation(), self._info()

    def _start_game(self) -> None:
        names = [f"seat {seat}" for seat in range(self.players)]
        for seat, client in self.seated.items():
            request = bot_pb2.StartGameRequest(
                game_id=self.game_id, game=self.game.name, variant=self.variant,
                num_players=self.players, seat=seat, seat_names=names,
                time_control=bot_pb2.TimeControl(move_ms=self.time.move_ms,
                                                 bank_ms=self.time.bank_ms))
            try:
                client.start_game(request, timeout=self.time.call_ms / 1000)
            except BotFault:
                self.faults += 1

    def _play_opponents(self) -> None:
        """Let the bots decide until the learner decides or the game ends."""
        state = self._state()
        while not state.is_terminal() and state.current_seat() != self.learner:
            actions = state.legal_actions()
            try:
                index = self._ask(state.current_seat(), actions)
            except BotFault:
                self.faults += 1
                index = random.Random(derive_seed(state.seed, self.game_id,
                                                  len(state.history))).randrange(len(actions))
            state.apply(index, actions)
        if state.is_terminal():
            self._end_game()
        self._list_learner_actions()

    def _list_learner_actions(self) -> None:
        """List the learner's legal actions and their ids once per decision: the mask
        (``action_masks``, the info) and the way back from the chosen id (``step``) both
        read them. None once the game is over."""
        state = self._state()
        self.actions = [] if state.is_terminal() else state.legal_actions()
        self.ids = self.encoder.action_ids(self.actions, self.learner, self.players)

    def _ask(self, seat: int, actions: list[Action]) -> int:
        """The seat's choice: its policy's, or its bot's reply under the referee's deadline
        (move time, bank and grace)."""
        state = self._state()
        policy = self.policies.get(seat)
        if policy is not None:
            ids = self.encoder.action_ids(actions, seat, self.players)
            chosen = int(policy(self.encoder.observe_state(state, seat), self.encoder.mask_of(ids)))
            try:
                return self.encoder.index_of(ids, chosen)
            except ValueError as error:
                raise BotFault(FaultClass.ILLEGAL, str(error)) from None
        bank = self.bank_ms[seat]
        request = decision_request(state, self.game_id, len(state.history), self.sent[seat],
                                   bot_pb2.Clock(move_ms=self.time.move_ms, bank_ms=int(bank)),
                                   actions)
        self.sent[seat] = len(state.events)
        deadline_ms = self.time.move_ms + bank + self.time.grace_ms
        sent = time.monotonic()
        try:
            reply = self.seated[seat].decide(request, timeout=deadline_ms / 1000)
        finally:
            elapsed_ms = (time.monotonic() - sent) * 1000
            self.bank_ms[seat] = max(0.0, bank - max(0.0, elapsed_ms - self.time.move_ms))
        if self.timed and elapsed_ms > deadline_ms - self.time.grace_ms:
            raise BotFault(FaultClass.TIMEOUT, f"took {elapsed_ms:.0f} ms: time bank exhausted")
        if reply.action_index >= len(actions):
            raise BotFault(FaultClass.ILLEGAL, f"action_index {reply.action_index} out of range")
        return reply.action_index

    def _end_game(self) -> None:
        """Tell the bots the result, so those that remember a game (search bots) forget it."""
        state = self._state()
        final = state.final_state()
        for seat, client in self.seated.items():
            request = bot_pb2.EndGameRequest(
                game_id=self.game_id, scores=state.scores(), ranks=state.ranks(),
                reason=state.end_reason, final_state=struct(final),
                typed_final_state=final_state_message(state.game_name, final), seat=seat,
                status=GameStatus.FINISHED)
            try:
                client.end_game(request, timeout=self.time.call_ms / 1000)
            except BotFault:
                self.faults += 1

    def _observation(self) -> NDArray[np.float32]:
        return self.encoder.observe_state(self._state(), self.learner)

    def action_masks(self) -> NDArray[np.int8]:
        """The legal action ids of the learner now (all zero once the game is over)."""
        return self.encoder.mask_of(self.ids)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "seat": self.learner,
                "opponent_faults": self.faults}

    def step(self, action: np.int64) -> tuple[NDArray[np.float32], float, bool, bool,
                                              dict[str, Any]]:
        state = self._state()
        try:
            index = self.encoder.index_of(self.ids, int(action))
        except ValueError:
            return self._observation(), -1.0, True, False, {**self._info(), "illegal": True}
        state.apply(index, self.actions)
        self._play_opponents()
        if not state.is_terminal():
            return self._observation(), 0.0, False, False, self._info()
        reward = rank_rewards(state.ranks())[self.learner]
        return self._observation(), reward, True, False, self._info()

    def close(self) -> None:
        """Release the opponents' call threads (a hung bot's stays, as in the referee)."""
        for client in self.clients:
            client.close()
