"""Benchmark: the training package (issue 38): ``python -m bench.training``.

Two figures, each beside its goal:

* **AEC steps/s**: PettingZoo's own loop (``agent_iter``, ``last``, a seeded random legal
  id from the mask, ``step``) over :class:`training.aec.CircusAECEnv`, for every game and
  variant at 2 and 4 seats, beside the engine benchmark's decisions/s
  (``bench.engines.selfplay``: observation, legal actions, apply) measured in the same
  interleaved rounds. Goals: >= 10,000
  steps/s for 2-player Flea Circus, and >= 0.3x the engine's decisions/s in every game.
* **The numpy baseline**: :class:`training.baseline.Trainer` (its default settings) trained
  for ``--minutes`` against random play, then ``evaluate`` against the project's random bot
  over ``--deals`` duplicate deals. Goal: rank share >= 0.65 with its 95% interval above 0.5
  after <= 10 minutes on the 2-core machine.

Not part of ``python -m bench`` (its ten minutes of training would double the suite's bench
smoke test); docs/training.md has the figures.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Callable

import numpy as np

from bench.engines import selfplay
from bench.machine import machine_info
from bench.report import Section, machine_markdown, median
from bots.random_bot import RandomBot
from referee.games import GAMES
from training.aec import CircusAECEnv
from training.baseline import Trainer
from training.evaluate import evaluate

GOAL_STEPS = 10_000
GOAL_RATIO = 0.3
GOAL_SHARE = 0.65


def aec_steps(game: str, variant: str, players: int, seconds: float, seed: int = 0) -> float:
    """Agent steps per second of PettingZoo's loop with random legal ids (whole games)."""
    env = CircusAECEnv(game, seats=players, variant=variant)
    rng = random.Random(seed)
    steps, start = 0, time.perf_counter()
    env.reset(seed=seed)
    while time.perf_counter() - start < seconds:
        for agent in env.agent_iter():
            _, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(info["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        env.reset()
    return steps / (time.perf_counter() - start)


def steps_section(seconds: float, repeats: int, say: Callable[[str], None]) -> Section:
    section = Section("training.aec", "The AEC environment beside the engine: random legal play",
                      ["game", "variant", "players", "AEC steps/s", "engine decisions/s",
                       "ratio"])
    items = [(name, variant, players) for name, game in GAMES.items()
             for variant in game.variants for players in (2, 4)
             if game.min_players <= players <= game.max_players]
    aec: dict[tuple[str, str, int], list[float]] = {item: [] for item in items}
    engine: dict[tuple[str, str, int], list[float]] = {item: [] for item in items}
    for round_number in range(repeats):
        say(f"training: steps round {round_number + 1}/{repeats}")
        for item in items:
            aec[item].append(aec_steps(*item, seconds, round_number))
            engine[item].append(selfplay(*item, seconds, seed=1000 * round_number).decisions_per_s)
    worst = float("inf")
    for item in items:
        rate, base = median(aec[item]), median(engine[item])
        worst = min(worst, rate / base)
        section.add(*item, rate, base, f"{rate / base:.2f}×")
        key = ".".join(map(str, item[:2])) + f".p{item[2]}"
        section.figures[f"{key}.aec_steps_per_s"] = rate
        section.figures[f"{key}.engine_decisions_per_s"] = base
    flea = section.figures["flea-circus.standard.p2.aec_steps_per_s"]
    section.notes += [
        f"median of {repeats} interleaved round(s) of ~{seconds:g} s per item",
        f"goal: >= {GOAL_STEPS:,} AEC steps/s for 2-player Flea Circus — {flea:,.0f}: "
        f"{'met' if flea >= GOAL_STEPS else 'NOT met'}",
        f"goal: >= {GOAL_RATIO}x the engine's decisions/s in every game — lowest "
        f"{worst:.2f}x: {'met' if worst >= GOAL_RATIO else 'NOT met'}"]
    return section


def baseline_section(minutes: float, deals: int, say: Callable[[str], None]) -> Section:
    section = Section("training.baseline",
                      "The numpy baseline (ES, linear) against the random bot, "
                      "heads-up Flea Circus",
                      ["training s", "generations", "agent steps", "deals", "rank share",
                       "95% interval", "TrueSkill mu", "evaluation s"])
    trainer = Trainer()
    say(f"training: the baseline for {minutes:g} min")
    started = time.perf_counter()
    policy = trainer.train(seconds=minutes * 60)
    trained = time.perf_counter() - started
    say(f"training: evaluating over {deals} deals")
    started = time.perf_counter()
    found = evaluate(policy, [RandomBot()], deals=deals)
    section.add(trained, trainer.generation, trainer.steps, deals, found.rank_share,
                f"{found.low:.3f}–{found.high:.3f}", found.mu, time.perf_counter() - started)
    section.figures |= {"train_seconds": trained, "generations": trainer.generation,
                        "rank_share": found.rank_share, "rank_share_low": found.low,
                        "rank_share_high": found.high, "mu": found.mu}
    met = found.rank_share >= GOAL_SHARE and found.low > 0.5 and minutes <= 10
    section.notes.append(
        f"goal: rank share >= {GOAL_SHARE} over 1,000 deals with its 95% interval above 0.5, "
        f"after <= 10 minutes — {found.rank_share:.3f} [{found.low:.3f}, {found.high:.3f}] "
        f"over {deals} deals after {minutes:g} min: "
        f"{'met' if met and deals >= 1000 else 'NOT met'}")
    return section


def run(minutes: float = 10.0, deals: int = 1000, seconds: float = 1.0, repeats: int = 3,
        say: Callable[[str], None] = print) -> list[Section]:
    sections = []
    for make in (lambda: steps_section(seconds, repeats, say),
                 lambda: baseline_section(minutes, deals, say)):
        started = time.perf_counter()
        section = make()
        section.seconds = time.perf_counter() - started
        sections.append(section)
    return sections


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="the baseline's training")
    parser.add_argument("--deals", type=int, default=1000, help="its evaluation's deals")
    parser.add_argument("--seconds", type=float, default=1.0, help="per steps/s measurement")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    info = machine_info()
    for section in run(args.minutes, args.deals, args.seconds, args.repeats):
        print(section.markdown(), end="\n\n", flush=True)
    print(machine_markdown(info))


if __name__ == "__main__":
    main()
