"""Evaluation from a training loop, logged as TensorBoard event files (``tensorboardX``).

:class:`EvaluateCallback` has the shape Stable-Baselines3 users know from ``BaseCallback``:
``on_step()`` counts a call (``n_calls``) and runs ``_on_step()``, which every ``eval_freq``
calls runs :func:`training.evaluate.evaluate` on the live policy and writes its rank share,
interval and TrueSkill rating at step ``num_timesteps``; a False return stops training.
It imports no SB3: SB3's ``learn(callback=...)`` wraps a plain callable of
``(locals, globals)``, which this is too (it reads the model's ``num_timesteps`` from
``locals["self"]``), and the numpy baseline calls ``on_step()`` once per generation.
W&B's ``sync_tensorboard`` reads the same files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from tensorboardX import SummaryWriter

from referee.clients import InProcessBot
from training.evaluate import Evaluation, evaluate
from training.policy import Policy


class EvaluateCallback:
    """Every ``eval_freq`` calls, ``evaluate(policy, against, deals)``, logged to ``log_dir``.

    ``policy`` is read at each evaluation, so a policy object the trainer updates in
    place (the baseline's, or ``lambda o, m: model.predict(o, action_masks=m)[0]``) is
    evaluated as it is then. ``stop_above``: stop training once the rank share's lower
    bound passes it (None: never). ``evaluations`` keeps each result with its step.
    """

    def __init__(self, policy: Policy, against: Sequence[InProcessBot], log_dir: Path,
                 eval_freq: int = 10_000, deals: int = 100, game: str = "flea-circus",
                 stop_above: float | None = None, seed: int = 0) -> None:
        self.policy = policy
        self.against = list(against)
        self.eval_freq = eval_freq
        self.deals = deals
        self.game = game
        self.stop_above = stop_above
        self.seed = seed
        self.writer = SummaryWriter(str(log_dir))
        self.n_calls = 0
        self.num_timesteps = 0
        self.evaluations: list[tuple[int, Evaluation]] = []

    def on_step(self) -> bool:
        self.n_calls += 1
        return self._on_step()

    def _on_step(self) -> bool:
        if self.n_calls % self.eval_freq:
            return True
        found = evaluate(self.policy, self.against, self.deals, self.game, seed=self.seed)
        self.evaluations.append((self.num_timesteps, found))
        for tag, value in (("rank_share", found.rank_share), ("rank_share_low", found.low),
                           ("rank_share_high", found.high), ("trueskill_mu", found.mu),
                           ("trueskill_sigma", found.sigma), ("faults", found.faults)):
            self.writer.add_scalar(f"eval/{tag}", value, self.num_timesteps)
        self.writer.flush()
        return self.stop_above is None or found.low <= self.stop_above

    def __call__(self, locals_: dict[str, Any], globals_: dict[str, Any]) -> bool:
        """SB3's plain-callable callback: the model's step count, then :meth:`on_step`."""
        self.num_timesteps = int(getattr(locals_.get("self"), "num_timesteps", self.n_calls + 1))
        return self.on_step()

    def close(self) -> None:
        self.writer.close()
