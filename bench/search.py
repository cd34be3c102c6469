"""Benchmark: the search bots' speed, ``python -m bench.search``.

- IS-MCTS iterations per second on a 2-player Amazing Flea Circus position
  (after six random decisions of seed 3), at several playout depths, with the
  bots' default (random) playouts: the issue's goal is 5,000 a second. Each is
  given per second of wall-clock time and per second of the process's CPU
  time: on a machine whose cores other work shares, the wall-clock figure
  measures the load as much as the search, the CPU-time one what a search
  does with a core of its own;
- each game's determinizer, samples per second (the sampler built once, as a
  search does per decision);
- optionally (``--profile``) where an IS-MCTS search's time goes.

Each figure is the median of ``--repeats`` runs; the machine's load is
printed with them, since other processes share its cores.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import statistics
import time

from bots.search import DEFAULTS, Budget, ismcts
from referee.games import get_game
from referee.games.determinize import sampler_for

GOAL = 5000
DEPTH = DEFAULTS["depth"]
GAMES = [("flea-circus", "standard", 2), ("flea-circus", "standard", 4),
         ("flohcati", "en", 4), ("flohcati", "es", 4), ("animal-circus", "standard", 4)]


def position(game: str, variant: str, players: int, seed: int = 3, moves: int = 6):
    """A sampler for the deciding seat's view after ``moves`` random decisions, and its codes."""
    state = get_game(game).new_state(players, variant, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        actions = state.legal_actions()
        state.apply(rng.randrange(len(actions)), actions)
    seat = state.current_seat()
    events = [event for event in state.events if event.visible_for(seat)]
    return (sampler_for(game, state.observation(seat), events),
            [action.code for action in state.legal_actions()])


def iterations_per_s(depth: int, iterations: int, repeats: int) -> tuple[float, float]:
    """The median rates, per wall-clock second and per CPU second."""
    sampler, codes = position("flea-circus", "standard", 2)
    wall, cpu = [], []
    for repeat in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        _, info = ismcts(sampler, codes, Budget(iterations), random.Random(repeat), depth=depth)
        cpu.append(info["iterations"] / max(time.process_time() - start_cpu, 1e-9))
        wall.append(info["iterations"] / (time.perf_counter() - start))
    return statistics.median(wall), statistics.median(cpu)


def samples_per_s(game: str, variant: str, players: int, samples: int, repeats: int) -> float:
    sampler, _ = position(game, variant, players, moves=10)
    rng, rates = random.Random(0), []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(samples):
            sampler.sample(rng)
        rates.append(samples / (time.perf_counter() - start))
    return statistics.median(rates)


def profile(depth: int, iterations: int) -> str:
    sampler, codes = position("flea-circus", "standard", 2)
    profiler = cProfile.Profile()
    profiler.runcall(ismcts, sampler, codes, Budget(iterations), random.Random(0), depth=depth)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(12)
    return out.getvalue()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--depths", default=f"0,{DEPTH},6,3",
                        help="playout depths (0: to the end of the game)")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print("IS-MCTS, 2-player flea-circus position, iterations/s by playout depth "
          f"(goal {GOAL:,}):")
    for depth in [int(part) for part in args.depths.split(",") if part.isdigit()]:
        wall, cpu = iterations_per_s(depth, args.iterations, args.repeats)
        print(f"  depth {depth or 'to the end'}{' (the default)' if depth == DEPTH else ''}: "
              f"{wall:,.0f}/s wall clock ({'met' if wall >= GOAL else 'NOT met'}), "
              f"{cpu:,.0f}/s of CPU time ({'met' if cpu >= GOAL else 'NOT met'})")
    print("determinizer samples/s (after 10 random decisions):")
    for game, variant, players in GAMES:
        rate = samples_per_s(game, variant, players, args.samples, args.repeats)
        print(f"  {game} {variant} {players}p: {rate:8,.0f}/s")
    if args.profile:
        print(profile(DEPTH, args.iterations))
    print(f"load average {os.getloadavg()[0]:.2f} after")


if __name__ == "__main__":
    main()
