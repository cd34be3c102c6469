"""Benchmark: the training package: ``python -m bench.training [COMMAND ...]``, the commands below.

Each command one table, each figure beside its goal (with no name: ``steps`` and ``baseline``):

* **steps** — AEC steps/s: PettingZoo's own loop (``agent_iter``, ``last``, a seeded random
  legal id from the mask, ``step``) over :class:`training.aec.CircusAECEnv`, for every game
  and variant at 2 and 4 seats; beside it, in the same interleaved rounds, the same loop with
  each tensor encoded from the wire's observation dict (the environments' way before they
  encoded from the engine's state), the engine benchmark's decisions/s
  (``bench.engines.selfplay``: observation, legal actions, apply) and RLCard UNO's
  ``env.run`` (when RLCard is installed), run right before each item (:class:`UnoBeside`).
  Goals: >= 10,000 steps/s for 2-player Flea Circus,
  >= 0.3x the engine's decisions/s and >= 1.0x UNO in every game.
* **gym** — :class:`training.gym.CircusGymEnv`, random legal ids for the learner, against the
  project's random bot in every other seat (untimed, each asked through the
  ``DecisionRequest`` the referee sends) and against random policies (no request built): its
  decisions/s, every seat's, beside RLCard UNO's in the same rounds. Goal: >= 1.0x UNO in
  every game.
* **vector** — :class:`training.vector.CircusVectorEnv` at N = 64 tables beside the single
  AEC environment, random legal ids, in steps per CPU second of this one-threaded process
  (steps/s per core). Goal: >= 2x the single environment in every game.
* **equality** — thousands of random games in which every seat's tensor from the engine's
  state is compared with the one from its observation dict (``training.equality``).
* **The numpy baseline**: :class:`training.baseline.Trainer` (its default settings) trained
  for ``--minutes`` against random play, then ``evaluate`` against the project's random bot
  over ``--deals`` duplicate deals. Goal: rank share >= 0.65 with its 95% interval above 0.5
  after <= 10 minutes on the 2-core machine.

Not part of ``python -m bench`` (its ten minutes of training would double the suite's bench
smoke test); docs/training.md has the figures.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from typing import Callable

import numpy as np
from numpy.typing import NDArray

from bench.engines import UnoSelfPlay, rlcard_available, selfplay
from bench.machine import machine_info
from bench.report import Section, machine_markdown, median
from bots.random_bot import RandomBot
from referee.games import GAMES
from training.aec import CircusAECEnv
from training.baseline import Trainer
from training.gym import CircusGymEnv, Opponent
from training.encoding import ENCODERS
from training.equality import first_difference
from training.evaluate import evaluate
from training.policy import RandomPolicy
from training.vector import CircusVectorEnv

GOAL_STEPS = 10_000
GOAL_RATIO = 0.3
GOAL_UNO = 1.0
GOAL_VECTOR = 2.0
GOAL_SHARE = 0.65
VECTOR_TABLES = 64
CPU_SECONDS = ("figures per CPU second of this one-threaded process (time.process_time), so "
               "the machine's load beside it counts less than in wall-clock steps/s")


class DictAECEnv(CircusAECEnv):
    """The AEC environment encoding each tensor from the wire's observation dict, as it did
    before it encoded from the engine's state: the "before" of the same run."""

    def observe(self, agent: str) -> NDArray[np.float32]:
        return self.encoder.observe(self._state().observation(self._seats[agent]),
                                    self.players)


def aec_run(game: str, variant: str, players: int, seconds: float, seed: int = 0,
            env_class: type[CircusAECEnv] = CircusAECEnv) -> int:
    """Agent steps of PettingZoo's loop with random legal ids in about ``seconds`` (whole
    games, one at least)."""
    env = env_class(game, seats=players, variant=variant)
    rng = random.Random(seed)
    steps, start = 0, time.perf_counter()
    env.reset(seed=seed)
    while not steps or time.perf_counter() - start < seconds:
        for agent in env.agent_iter():
            _, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = info["action_mask"].nonzero()[0]
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        env.reset()
    return steps


def _per_cpu_second(run: Callable[[], int]) -> float:
    """Steps per CPU second of this process (one thread: steps/s per core) of ``run``."""
    start = time.process_time()
    steps = run()
    return steps / (time.process_time() - start)


def _items() -> list[tuple[str, str, int]]:
    return [(name, variant, players) for name, game in GAMES.items()
            for variant in game.variants for players in (2, 4)
            if game.min_players <= players <= game.max_players]


def _key(item: tuple[str, str, int]) -> str:
    return ".".join(map(str, item[:2])) + f".p{item[2]}"


class UnoBeside:
    """RLCard UNO run right before each item it is compared with, when RLCard is installed.

    On a shared machine the load moves within a round: UNO (numpy) slows more than the
    pure-Python games, so a ratio to a UNO figure taken a minute earlier measures the load.
    Each item's ratio is taken to the UNO run just before it, the median over the rounds.
    """

    def __init__(self, seconds: float) -> None:
        self.why_not = rlcard_available()
        self.uno = UnoSelfPlay() if self.why_not is None else None
        self.seconds = seconds
        self.rates: list[float] = []
        self.last = float("nan")

    def run(self) -> None:
        """Measure UNO now: the figure the next items are divided by."""
        if self.uno is not None:
            uno = self.uno
            self.last = _per_cpu_second(lambda: uno.run(self.seconds).decisions)
            self.rates.append(self.last)

    def add_row(self, section: Section, *blanks: object) -> None:
        """UNO's own row (its median), or the reason it was not run."""
        if self.uno is not None:
            section.add("RLCard UNO", "–", self.uno.players, median(self.rates), *blanks)
            section.figures["uno.decisions_per_s"] = median(self.rates)
        elif self.why_not is not None:
            section.notes.append(self.why_not)


def _times(ratios: list[float]) -> str:
    """The median ratio as ``1.23×``, or a dash without UNO (its ratios are NaN)."""
    return "–" if math.isnan(median(ratios)) else f"{median(ratios):.2f}×"


def steps_section(seconds: float, repeats: int, say: Callable[[str], None]) -> Section:
    section = Section("training.aec", "The AEC environment beside the engine and RLCard UNO: "
                      "random legal play, per CPU second (per core)",
                      ["game", "variant", "players", "AEC steps/s", "from the dict (before)",
                       "after ÷ before", "engine decisions/s", "÷ engine", "× UNO"])
    uno = UnoBeside(seconds)
    items = _items()
    aec: dict[tuple[str, str, int], list[float]] = {item: [] for item in items}
    before: dict[tuple[str, str, int], list[float]] = {item: [] for item in items}
    engine: dict[tuple[str, str, int], list[float]] = {item: [] for item in items}
    to_uno: dict[tuple[str, str, int], list[float]] = {item: [] for item in items}
    for round_number in range(repeats):
        say(f"training: steps round {round_number + 1}/{repeats}")
        for item in items:
            uno.run()
            aec[item].append(_per_cpu_second(lambda: aec_run(*item, seconds, round_number)))
            to_uno[item].append(aec[item][-1] / uno.last)
            before[item].append(_per_cpu_second(
                lambda: aec_run(*item, seconds, round_number, DictAECEnv)))
            engine[item].append(_per_cpu_second(
                lambda: selfplay(*item, seconds, seed=1000 * round_number).decisions))
    uno.add_row(section, float("nan"), "–", float("nan"), "–", "1.00×")
    worst, worst_uno = float("inf"), float("inf")
    for item in items:
        rate, old, base = median(aec[item]), median(before[item]), median(engine[item])
        worst, worst_uno = min(worst, rate / base), min(worst_uno, median(to_uno[item]))
        section.add(*item, rate, old, f"{rate / old:.2f}×", base, f"{rate / base:.2f}×",
                    _times(to_uno[item]))
        section.figures[f"{_key(item)}.aec_steps_per_s"] = rate
        section.figures[f"{_key(item)}.dict_aec_steps_per_s"] = old
        section.figures[f"{_key(item)}.engine_decisions_per_s"] = base
    flea = section.figures["flea-circus.standard.p2.aec_steps_per_s"]
    section.notes += [
        f"median of {repeats} interleaved round(s) of ~{seconds:g} s per item; {CPU_SECONDS}; "
        "× UNO: the median of each round's ratio to the UNO run just before the item",
        f"goal: >= {GOAL_STEPS:,} AEC steps/s for 2-player Flea Circus — {flea:,.0f}: "
        f"{'met' if flea >= GOAL_STEPS else 'NOT met'}",
        f"goal: >= {GOAL_RATIO}x the engine's decisions/s in every game — lowest "
        f"{worst:.2f}x: {'met' if worst >= GOAL_RATIO else 'NOT met'}"]
    if uno.uno is not None:
        section.notes.append(
            f"goal: >= {GOAL_UNO}x RLCard UNO's decisions/s in every game — lowest "
            f"{worst_uno:.2f}x: {'met' if worst_uno >= GOAL_UNO else 'NOT met'}")
    return section


def gym_run(game: str, variant: str, players: int, seconds: float, seed: int = 0,
            policies: bool = False) -> int:
    """Decisions of every seat in whole episodes of the Gymnasium view in about ``seconds``
    (one at least): random legal ids for the learner; in every other seat the random bot,
    untimed, or with ``policies`` a seeded :class:`~training.policy.RandomPolicy`."""
    opponents: list[Opponent] = [RandomPolicy(seed + seat) if policies else RandomBot()
                                 for seat in range(players - 1)]
    env = CircusGymEnv(game, opponents, variant=variant, time_control=None)
    rng = random.Random(seed)
    decisions, start = 0, time.perf_counter()
    _, info = env.reset(seed=seed)
    while not decisions or time.perf_counter() - start < seconds:
        legal = info["action_mask"].nonzero()[0]
        _, _, terminated, _, info = env.step(np.int64(legal[rng.randrange(len(legal))]))
        if terminated:
            decisions += len(env.state.history) if env.state is not None else 0
            _, info = env.reset()
    return decisions


def gym_section(seconds: float, repeats: int, say: Callable[[str], None]) -> Section:
    section = Section("training.gym", "The Gymnasium view against random opponents beside "
                      "RLCard UNO: decisions of every seat, per CPU second (per core)",
                      ["game", "variant", "players", "random bots dec/s", "× UNO",
                       "random policies dec/s", "× UNO"])
    uno = UnoBeside(seconds)
    items = _items()
    bots: dict[tuple[str, str, int], list[float]] = {item: [] for item in items}
    policies: dict[tuple[str, str, int], list[float]] = {item: [] for item in items}
    bots_to_uno: dict[tuple[str, str, int], list[float]] = {item: [] for item in items}
    policies_to_uno: dict[tuple[str, str, int], list[float]] = {item: [] for item in items}
    for round_number in range(repeats):
        say(f"training: gym round {round_number + 1}/{repeats}")
        for item in items:
            uno.run()
            bots[item].append(_per_cpu_second(lambda: gym_run(*item, seconds, round_number)))
            policies[item].append(_per_cpu_second(
                lambda: gym_run(*item, seconds, round_number, policies=True)))
            bots_to_uno[item].append(bots[item][-1] / uno.last)
            policies_to_uno[item].append(policies[item][-1] / uno.last)
    uno.add_row(section, "1.00×", float("nan"), "1.00×")
    worst_bots = worst_policies = float("inf")
    for item in items:
        worst_bots = min(worst_bots, median(bots_to_uno[item]))
        worst_policies = min(worst_policies, median(policies_to_uno[item]))
        section.add(*item, median(bots[item]), _times(bots_to_uno[item]),
                    median(policies[item]), _times(policies_to_uno[item]))
        section.figures[f"{_key(item)}.gym_bots_decisions_per_s"] = median(bots[item])
        section.figures[f"{_key(item)}.gym_policies_decisions_per_s"] = median(policies[item])
    section.notes.append(
        f"median of {repeats} interleaved round(s) of ~{seconds:g} s per item; {CPU_SECONDS}; "
        "× UNO: the median of each round's ratio to the UNO run just before the item")
    if uno.uno is not None:
        for kind, worst in (("random bots", worst_bots), ("random policies", worst_policies)):
            section.notes.append(
                f"goal: >= {GOAL_UNO}x RLCard UNO's decisions/s in every game, against "
                f"{kind} — lowest {worst:.2f}x: {'met' if worst >= GOAL_UNO else 'NOT met'}")
    return section


def vector_steps(game: str, variant: str, players: int, seconds: float, seed: int = 0,
                 tables: int = VECTOR_TABLES) -> int:
    """Sub-environment steps of the vector env in about ``seconds`` (one batch at least),
    random legal ids."""
    envs = CircusVectorEnv(game, tables, seats=players, variant=variant)
    rng = np.random.default_rng(seed)
    _, infos = envs.reset(seed=seed)
    steps, start = 0, time.perf_counter()
    while not steps or time.perf_counter() - start < seconds:
        # Each row's legal ids, one after the other: a uniform pick among each row's own.
        rows, ids = np.nonzero(infos["action_mask"])
        counts = np.bincount(rows, minlength=tables)
        picks = np.cumsum(counts) - counts + (rng.random(tables) * counts).astype(np.int64)
        _, _, _, _, infos = envs.step(ids[picks])
        steps += tables
    return steps


def vector_section(seconds: float, repeats: int, say: Callable[[str], None]) -> Section:
    section = Section("training.vector",
                      f"The vector environment, N = {VECTOR_TABLES}, beside the single AEC "
                      "environment: steps per CPU second (per core)",
                      ["game", "variant", "players", "single AEC steps/s/core",
                       f"vector N={VECTOR_TABLES} steps/s/core", "×"])
    items = _items()
    single: dict[tuple[str, str, int], list[float]] = {item: [] for item in items}
    vector: dict[tuple[str, str, int], list[float]] = {item: [] for item in items}
    for round_number in range(repeats):
        say(f"training: vector round {round_number + 1}/{repeats}")
        for item in items:
            single[item].append(_per_cpu_second(
                lambda: aec_run(*item, seconds, round_number)))
            vector[item].append(_per_cpu_second(
                lambda: vector_steps(*item, seconds, round_number)))
    worst = float("inf")
    for item in items:
        one, many = median(single[item]), median(vector[item])
        worst = min(worst, many / one)
        section.add(*item, one, many, f"{many / one:.2f}×")
        section.figures[f"{_key(item)}.single_steps_per_cpu_s"] = one
        section.figures[f"{_key(item)}.vector_steps_per_cpu_s"] = many
    section.notes += [
        f"median of {repeats} interleaved round(s) of ~{seconds:g} s per item; {CPU_SECONDS}",
        f"goal: >= {GOAL_VECTOR}x the single environment's steps/s per core in every game — "
        f"lowest {worst:.2f}x: {'met' if worst >= GOAL_VECTOR else 'NOT met'}"]
    return section


def equality_section(games: int, say: Callable[[str], None]) -> Section:
    section = Section("training.equality", "Tensors from the engine's state against tensors "
                      "from the observation dict, every seat at every decision",
                      ["game", "variant", "players", "games", "first difference"])
    total = 0
    for (game, variant), _ in sorted(ENCODERS.items()):
        rules = GAMES[game]
        for players in range(rules.min_players, rules.max_players + 1):
            say(f"training: equality {game} {variant} {players}p")
            found = first_difference(game, variant, players, games, seed=0)
            section.add(game, variant, players, games, found or "none")
            section.figures[f"{game}.{variant}.p{players}.differ"] = float(found is not None)
            total += games
    section.figures["games"] = total
    section.notes.append(f"{total:,} random games in all")
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


COMMANDS = ("steps", "gym", "vector", "equality", "baseline")


def run(commands: tuple[str, ...] = ("steps", "baseline"), minutes: float = 10.0,
        deals: int = 1000, seconds: float = 1.0, repeats: int = 3, games: int = 125,
        say: Callable[[str], None] = print) -> list[Section]:
    makers: dict[str, Callable[[], Section]] = {
        "steps": lambda: steps_section(seconds, repeats, say),
        "gym": lambda: gym_section(seconds, repeats, say),
        "vector": lambda: vector_section(seconds, repeats, say),
        "equality": lambda: equality_section(games, say),
        "baseline": lambda: baseline_section(minutes, deals, say)}
    sections = []
    for command in commands:
        started = time.perf_counter()
        section = makers[command]()
        section.seconds = time.perf_counter() - started
        sections.append(section)
    return sections


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commands", nargs="*", metavar="COMMAND",
                        help=f"any of {', '.join(COMMANDS)} (default: steps and baseline)")
    parser.add_argument("--minutes", type=float, default=10.0, help="the baseline's training")
    parser.add_argument("--deals", type=int, default=1000, help="its evaluation's deals")
    parser.add_argument("--seconds", type=float, default=1.0, help="per steps/s measurement")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games", type=int, default=125,
                        help="equality's random games per game, variant and table size")
    args = parser.parse_args(argv)
    unknown = [command for command in args.commands if command not in COMMANDS]
    if unknown:
        parser.error(f"no command {', '.join(unknown)}: choose from {', '.join(COMMANDS)}")
    info = machine_info()
    commands = tuple(args.commands) or ("steps", "baseline")
    for section in run(commands, args.minutes, args.deals, args.seconds, args.repeats,
                       args.games):
        print(section.markdown(), end="\n\n", flush=True)
    print(machine_markdown(info))


if __name__ == "__main__":
    main()
