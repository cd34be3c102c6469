"""Policies, and a policy as a bot: the same tensor and ids over the wire as in training.

A policy is any callable ``(observation, mask) -> action id`` over an encoder's tensor and
legal mask (:mod:`training.encoding`). :class:`PolicyBot` wraps one as a bot of the SDK, so
it plays in process (``evaluate``, the Gymnasium view's opponents) and, served, over gRPC
(``python -m training.policy_bot``) from the very ``DecisionRequest`` the referee sends.

A weight file is a plain numpy ``.npz``: ``w0``, ``b0``, ``w1``, ``b1``, ... the layers of a
small MLP, tanh between layers, the last layer's outputs one logit per action id (a linear
policy is one layer). numpy is all it needs, so a bot of it starts in well under a second in
its sandbox; ONNX is left out (docs/training.md says why).
"""

from __future__ import annotations

import random
from functools import partial
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from bots.sdk import Bot
from referee.games import GAMES
from circus.v1 import bot_pb2
from training.encoding import encode_request, encoder, request_action

Policy = Callable[[NDArray[np.float32], NDArray[np.int8]], int]
Layers = Sequence[tuple[NDArray[np.floating[Any]], NDArray[np.floating[Any]]]]


def masked_argmax(logits: NDArray[np.floating[Any]], mask: NDArray[np.int8]) -> int:
    """The legal id of the highest logit (ties: the lowest id)."""
    return int(np.argmax(np.where(mask > 0, logits, -np.inf)))


def forward(layers: Layers, observation: NDArray[np.float32]) -> NDArray[np.floating[Any]]:
    """The logits of an MLP: tanh after every layer but the last."""
    values: NDArray[np.floating[Any]] = observation
    for depth, (weights, bias) in enumerate(layers):
        values = values @ weights + bias
        if depth < len(layers) - 1:
            values = np.tanh(values)
    return values


class MLPPolicy:
    """A greedy policy of an MLP's logits: the legal id it scores highest."""

    def __init__(self, layers: Layers) -> None:
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]

    def __call__(self, observation: NDArray[np.float32], mask: NDArray[np.int8]) -> int:
        return masked_argmax(forward(self.layers, observation), mask)

    @property
    def shape(self) -> tuple[int, int]:
        """The tensor size it reads and the number of action ids it scores."""
        return self.layers[0][0].shape[0], self.layers[-1][0].shape[1]

    def games(self) -> list[str]:
        """The games whose encoder has its shape: those a bot of it can play."""
        return [game for game in GAMES if any(
            (code.size, len(code.codes)) == self.shape
            for code in map(partial(encoder, game), GAMES[game].variants))]

    def save(self, path: Path) -> None:
        """Write the layers as ``w0, b0, w1, b1, ...`` to an ``.npz`` file."""
        arrays = {f"{kind}{depth}": array for depth, (w, b) in enumerate(self.layers)
                  for kind, array in (("w", w), ("b", b))}
        np.savez(path, allow_pickle=False, **arrays)

    @classmethod
    def load(cls, path: Path) -> MLPPolicy:
        """The policy of a weight file written by :meth:`save` (or by hand, same names)."""
        with np.load(path) as data:
            depth = sum(1 for name in data.files if name.startswith("w"))
            if depth == 0 or set(data.files) != {f"{k}{i}" for i in range(depth) for k in "wb"}:
                raise ValueError(f"{path}: expected arrays w0, b0, w1, b1, ..., "
                                 f"found {sorted(data.files)}")
            return cls([(data[f"w{i}"], data[f"b{i}"]) for i in range(depth)])


class RandomPolicy:
    """A uniformly random legal id: the random bot's play as a policy, an opponent of the
    Gymnasium view with no request to build. Seeded, it draws the same ids in the same order."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def __call__(self, observation: NDArray[np.float32], mask: NDArray[np.int8]) -> int:
        legal = mask.nonzero()[0]
        return int(legal[int(self.rng.random() * len(legal))])


class PolicyBot(Bot):
    """A policy as a bot: each request encoded with ``encode_request``, the policy's id
    mapped back to the legal action with that id (an illegal id raises: a fault).

    It claims every game (each has an encoder), or ``games``."""

    def __init__(self, policy: Policy, name: str = "policy", games: Sequence[str] = ()) -> None:
        self.policy = policy
        self.name = name
        self.games = {game: () for game in games or GAMES}

    def decide(self, request: bot_pb2.DecisionRequest) -> int:
        observation, mask = encode_request(request)
        return request_action(request, int(self.policy(observation, mask)))
