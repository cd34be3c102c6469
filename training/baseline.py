"""A numpy-only baseline learner: evolution strategies on a linear (or tiny MLP) policy.

``python -m training.baseline --minutes 10 --out flea.npz`` trains a policy for heads-up
Flea Circus against uniformly random opponents in the PettingZoo environment
(:class:`training.aec.CircusAECEnv`), then exports it as a weight file the policy bot plays
(``python -m training.policy_bot --policy flea.npz``) and evaluates it with
:func:`training.evaluate.evaluate` against the project's random bot.

The method is OpenAI's evolution strategies (Salimans et al. 2017): each generation draws
``pairs`` antithetic perturbations of the weights, plays every perturbed policy on the same
deals from both seats (common random numbers: the opponents' choices too), and moves the
weights along the perturbations weighted by the centred ranks of their results, with Adam.
It needs no gradient of the policy, so the greedy policy the bot plays (the legal id of the
highest logit) is the very one trained. Everything is seeded: the same options give the same
weights on any machine (a time budget stops between generations, so only how many there
are depends on the machine).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from bots.random_bot import RandomBot
from referee.seeds import derive_seed
from training.aec import CircusAECEnv, agent_name
from training.callbacks import EvaluateCallback
from training.evaluate import evaluate
from training.policy import MLPPolicy

Vector = NDArray[np.float64]


@dataclass(frozen=True)
class Settings:
    """The learner's options; the defaults are the bench's."""

    game: str = "flea-circus"
    players: int = 2
    hidden: int = 0          # 0: a linear policy; else one tanh layer of this width
    pairs: int = 16          # antithetic pairs per generation (2 x pairs policies)
    deals: int = 16          # deals per policy per generation, each from every seat
    sigma: float = 0.05      # the perturbations' scale
    rate: float = 0.02       # Adam's step size
    seed: int = 0


class Trainer:
    """The weights, their optimiser and the environment they are tried in."""

    def __init__(self, settings: Settings = Settings()) -> None:
        self.settings = settings
        self.env = CircusAECEnv(settings.game, seats=settings.players)
        size, actions = self.env.encoder.size, len(self.env.encoder.codes)
        shapes = ([(size, actions)] if not settings.hidden
                  else [(size, settings.hidden), (settings.hidden, actions)])
        self.shapes = shapes
        rng = np.random.default_rng(derive_seed("baseline", "init", settings.seed))
        # The last layer starts at zero (every legal id even: the lowest is played); a
        # hidden layer needs spread, or no perturbation of the last one could tell inputs apart.
        parts = []
        for depth, (rows, columns) in enumerate(shapes):
            parts.append(rng.normal(0, rows ** -0.5, rows * columns) if depth < len(shapes) - 1
                         else np.zeros(rows * columns))
            parts.append(np.zeros(columns))
        self.theta = np.concatenate(parts)
        self.moment = np.zeros_like(self.theta)
        self.velocity = np.zeros_like(self.theta)
        self.generation = 0
        self.steps = 0
        self.policy = self.policy_of(self.theta)

    def policy_of(self, theta: Vector) -> MLPPolicy:
        """The policy of a flat weight vector (layers in order, each weights then bias)."""
        layers, start = [], 0
        for rows, columns in self.shapes:
            weights = theta[start:start + rows * columns].reshape(rows, columns)
            start += rows * columns
            layers.append((weights, theta[start:start + columns]))
            start += columns
        return MLPPolicy(layers)

    def play(self, policy: MLPPolicy, learner: int, deal: int) -> float:
        """One game of ``policy`` at seat ``learner``; the learner's reward (-1 to 1)."""
        env, target = self.env, agent_name(learner)
        env.reset(seed=deal)
        chance = np.random.default_rng(deal)
        while not env.terminations[target]:
            agent = env.agent_selection
            mask = env.infos[agent]["action_mask"]
            if agent == target:
                env.step(policy(env.observe(agent), mask))
            else:
                legal = np.flatnonzero(mask)
                env.step(int(legal[chance.integers(len(legal))]))
            self.steps += 1
        return float(env.rewards[target])

    def score(self, theta: Vector, deals: Sequence[int]) -> float:
        """The mean reward of the weights over ``deals``, each from every seat."""
        policy = self.policy_of(theta)
        return float(np.mean([self.play(policy, seat, deal)
                              for deal in deals for seat in range(self.settings.players)]))

    def generation_step(self) -> float:
        """One generation; the mean score of its perturbed policies."""
        settings = self.settings
        rng = np.random.default_rng(derive_seed("baseline", "noise", settings.seed,
                                                self.generation))
        deals = [derive_seed("baseline", "deal", settings.seed, self.generation, d)
                 for d in range(settings.deals)]
        noise = rng.standard_normal((settings.pairs, self.theta.size))
        scores = np.array([[self.score(self.theta + sign * settings.sigma * eps, deals)
                            for sign in (1, -1)] for eps in noise])
        ranks = scores.ravel().argsort().argsort().reshape(scores.shape)
        centred = ranks / (scores.size - 1) - 0.5
        gradient = (centred[:, 0] - centred[:, 1]) @ noise / (settings.pairs * settings.sigma)
        self.adam(gradient)
        self.generation += 1
        self.policy.layers = self.policy_of(self.theta).layers
        return float(scores.mean())

    def adam(self, gradient: Vector, beta1: float = 0.9, beta2: float = 0.999) -> None:
        """An ascent step of Adam along ``gradient``."""
        self.moment = beta1 * self.moment + (1 - beta1) * gradient
        self.velocity = beta2 * self.velocity + (1 - beta2) * gradient ** 2
        step = self.generation + 1
        corrected = self.moment / (1 - beta1 ** step)
        scale = np.sqrt(self.velocity / (1 - beta2 ** step)) + 1e-8
        self.theta = self.theta + self.settings.rate * corrected / scale

    def train(self, generations: int | None = None, seconds: float | None = None,
              callback: EvaluateCallback | None = None, report: bool = False) -> MLPPolicy:
        """Run generations until ``generations`` more, or past ``seconds``, or the
        callback says stop; ``self.policy`` follows the weights throughout."""
        start = time.monotonic()
        target = self.generation + generations if generations is not None else None
        while ((target is None or self.generation < target)
               and (seconds is None or time.monotonic() - start < seconds)):
            mean = self.generation_step()
            if report:
                print(f"generation {self.generation}: mean reward {mean:+.3f}, "
                      f"{self.steps} steps, {time.monotonic() - start:.0f} s", flush=True)
            if callback is not None:
                callback.num_timesteps = self.steps
                if not callback.on_step():
                    break
        return self.policy


def at_least(minimum: float, kind: type[int] | type[float]) -> Callable[[str], float]:
    """An option's type that refuses a value below ``minimum`` in argparse's one error line,
    before any training starts (a negative width is numpy's traceback; 0 or 1 evaluation
    deals, evaluate's, after the whole budget is spent)."""
    def parse(text: str) -> float:
        value = kind(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {text}")
        return value
    parse.__name__ = kind.__name__   # argparse names the type in its "invalid int value"
    return parse


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.baseline",
                                     description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--minutes", type=at_least(0.01, float), default=10.0,
                        help="training time budget")
    parser.add_argument("--generations", type=at_least(1, int), default=None,
                        help="or a number of them")
    parser.add_argument("--hidden", type=at_least(0, int), default=0,
                        help="an MLP's hidden width (0: linear)")
    parser.add_argument("--seed", type=at_least(0, int), default=0)
    parser.add_argument("--out", type=Path, default=Path("policy.npz"), help="the weight file")
    parser.add_argument("--deals", type=at_least(2, int), default=1000,
                        help="evaluation deals at the end")
    parser.add_argument("--logdir", type=Path, default=None,
                        help="TensorBoard event files: an evaluation every --eval-every "
                             "generations")
    parser.add_argument("--eval-every", type=at_least(1, int), default=20)
    args = parser.parse_args(argv)
    trainer = Trainer(Settings(hidden=args.hidden, seed=args.seed))
    callback = None
    if args.logdir is not None:
        callback = EvaluateCallback(trainer.policy, [RandomBot()], args.logdir,
                                    eval_freq=args.eval_every)
    policy = trainer.train(args.generations, None if args.generations else args.minutes * 60,
                           callback, report=True)
    policy.save(args.out)
    print(f"wrote {args.out}")
    print(evaluate(policy, [RandomBot()], deals=args.deals).line())


if __name__ == "__main__":
    main()
