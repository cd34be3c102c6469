"""Benchmark 1: the rules engines in process, next to RLCard's UNO.

Random self-play: at every decision the deciding seat's observation is built (as RLCard
builds its state for the agent), the legal actions are listed, a seeded RNG picks one and
it is applied. The "engine only" figure skips the observation (what a random bot needs).
RLCard's UNO runs ``env.run`` with its ``RandomAgent``s. Items are measured in interleaved
rounds and the median round is reported, so machine noise hits all of them alike.
"""

from __future__ import annotations

import inspect
import random
import time
from dataclasses import dataclass

from bench.report import Section, median, spread
from referee.games import GAMES

GOAL_RATIO = 1.5


@dataclass
class Run:
    decisions: int
    games: int
    seconds: float

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds if self.seconds else float("nan")

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds else float("nan")


def _applies_known_actions(state) -> bool:
    """Whether ``state.apply`` takes the action list just computed (saves listing it twice)."""
    try:
        return "actions" in inspect.signature(state.apply).parameters
    except (TypeError, ValueError):
        return False


def selfplay(game_name: str, variant: str, players: int, seconds: float,
             observe: bool = True, seed: int = 0) -> Run:
    """Random self-play for about ``seconds``: whole games only, each with its own seed."""
    game = GAMES[game_name]
    rng = random.Random(seed)
    decisions = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = game.new_state(players, variant, seed + games)
        known = _applies_known_actions(state)
        while not state.is_terminal():
            if observe:
                state.observation(state.current_seat())
            actions = state.legal_actions()
            index = rng.randrange(len(actions))
            if known:
                state.apply(index, actions)
            else:
                state.apply(index)
            decisions += 1
        games += 1
        if time.perf_counter() >= deadline:
            break
    return Run(decisions, games, time.perf_counter() - start)


def rlcard_available() -> str | None:
    """None if RLCard can run UNO here, else why not."""
    try:
        import rlcard  # noqa: F401
        from rlcard.agents import RandomAgent  # noqa: F401
    except Exception as error:  # ImportError, or a numpy mismatch inside it
        return f"RLCard is not installed ({type(error).__name__}: {error}); " \
               "install the bench extra: .venv/bin/pip install -e '.[bench]'"
    return None


class UnoSelfPlay:
    """RLCard's UNO, two players, its RandomAgent in every seat."""

    def __init__(self, seed: int = 0) -> None:
        import numpy as np
        import rlcard
        from rlcard.agents import RandomAgent
        np.random.seed(seed)  # RandomAgent draws from numpy's global RNG
        self.env = rlcard.make("uno", config={"seed": seed})
        self.env.set_agents([RandomAgent(num_actions=self.env.num_actions)
                             for _ in range(self.env.num_players)])
        self.players = self.env.num_players

    def run(self, seconds: float) -> Run:
        decisions = games = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            # is_training=True: the agents' plain step(), the cheapest way RLCard plays.
            trajectories, _ = self.env.run(is_training=True)
            # Each player's trajectory is state, action, state, ..., final state.
            decisions += sum(len(trajectory) // 2 for trajectory in trajectories)
            games += 1
            if time.perf_counter() >= deadline:
                break
        return Run(decisions, games, time.perf_counter() - start)


def items(players: tuple[int, ...]) -> list[tuple[str, str, int]]:
    return [(name, variant, count) for name, game in GAMES.items()
            for variant in game.variants for count in players
            if game.min_players <= count <= game.max_players]


def run(seconds: float = 1.0, repeats: int = 3, players: tuple[int, ...] = (2, 4),
        progress=None) -> Section:
    started = time.perf_counter()
    section = Section(
        "engines", "1. Rules engines in process: random self-play",
        ["game", "variant", "players", "decisions/s", "games/s", "decisions/game",
         "engine only dec/s", "× UNO", "repeats (dec/s)"])
    why_not = rlcard_available()
    uno = UnoSelfPlay() if why_not is None else None
    ours = items(players)
    runs: dict[tuple, list[Run]] = {item: [] for item in ours}
    bare: dict[tuple, list[Run]] = {item: [] for item in ours}
    uno_runs: list[Run] = []
    for round_number in range(repeats):
        if progress:
            progress(f"engines: round {round_number + 1}/{repeats}")
        if uno is not None:
            uno_runs.append(uno.run(seconds))
        for item in ours:
            runs[item].append(selfplay(*item, seconds, observe=True, seed=1000 * round_number))
            bare[item].append(selfplay(*item, seconds, observe=False, seed=1000 * round_number))
    uno_rate = median(r.decisions_per_s for r in uno_runs)
    if uno is not None:
        section.add("RLCard UNO", "–", uno.players, uno_rate,
                    median(r.games_per_s for r in uno_runs),
                    sum(r.decisions for r in uno_runs) / sum(r.games for r in uno_runs),
                    float("nan"), 1.0, spread(r.decisions_per_s for r in uno_runs))
        section.figures["uno.decisions_per_s"] = uno_rate
        section.figures["uno.games_per_s"] = median(r.games_per_s for r in uno_runs)
    elif why_not is not None:
        section.notes.append(why_not)
    worst = None
    for item in ours:
        name, variant, count = item
        rate = median(r.decisions_per_s for r in runs[item])
        engine_rate = median(r.decisions_per_s for r in bare[item])
        ratio = rate / uno_rate if uno is not None else float("nan")
        per_game = sum(r.decisions for r in runs[item]) / sum(r.games for r in runs[item])
        section.add(name, variant, count, rate, median(r.games_per_s for r in runs[item]),
                    per_game, engine_rate, f"{ratio:.2f}×" if uno is not None else "–",
                    spread(r.decisions_per_s for r in runs[item]))
        key = f"{name}.{variant}.p{count}"
        section.figures[f"{key}.decisions_per_s"] = rate
        section.figures[f"{key}.games_per_s"] = median(r.games_per_s for r in runs[item])
        section.figures[f"{key}.engine_decisions_per_s"] = engine_rate
        if uno is not None:
            section.figures[f"{key}.ratio_to_uno"] = ratio
            worst = ratio if worst is None else min(worst, ratio)
    section.notes.append(
        "decisions/s: observation of the deciding seat + legal actions + apply, a seeded "
        "random choice each time (RLCard's env.run likewise builds the state for the agent); "
        "engine only: the same without the observation")
    section.notes.append(f"median of {repeats} interleaved round(s) of ~{seconds:g} s per item")
    if worst is not None:
        section.figures["worst_ratio_to_uno"] = worst
        verdict = "met" if worst >= GOAL_RATIO else "NOT met"
        section.notes.append(f"goal: every game ≥ {GOAL_RATIO}× RLCard UNO's decisions/s — "
                             f"lowest {worst:.2f}×: {verdict}")
    section.seconds = time.perf_counter() - started
    return section
