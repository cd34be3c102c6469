"""``python -m bench``: run the benchmarks and print their table and the machine."""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from pathlib import Path

from bench import (
    arena,
    bigfields,
    cluster,
    command,
    dealsets,
    engines,
    leaderboard,
    luck,
    memory,
    renewal,
    reports,
    scaling,
    startup,
    stdio,
    tournament,
    transport,
    verdict,
    wire,
)
from bench.farm import Farm
from bench.machine import machine_info
from bench.report import Section, machine_markdown

BENCHMARKS = ("engines", "wire", "stream", "transport", "stdio", "scaling", "tournament",
              "leaderboard",
              "renewal", "startup", "command", "swiss", "stopping", "sprt", "dealsets", "verdict",
              "fields", "luck", "cluster", "memory", "reports", "arena")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Benchmarks of circus-referee (docs/performance.md). Prints a markdown "
                    "table per benchmark and the machine it ran on.")
    parser.add_argument("benchmarks", nargs="*", metavar="NAME",
                        help=f"which to run (default: all): {', '.join(BENCHMARKS)}")
    parser.add_argument("--quick", action="store_true",
                        help="everything scaled down, in about a minute (its smoke test)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply every duration and game count (default 1)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="interleaved rounds per timed figure (default 3, --quick 1)")
    parser.add_argument("--games", type=int, default=None,
                        help="games of the big tournament (default 10,000, --quick 60)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    unknown = [name for name in args.benchmarks if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {unknown[0]!r} (choose from {', '.join(BENCHMARKS)})")
    return args


def plan(args: argparse.Namespace) -> dict[str, dict]:
    """The parameters of each benchmark for this run."""
    s = args.scale
    if args.quick:
        repeats = args.repeats or 1
        return {
            # Unsandboxed bots where no figure is the sandbox's: a sandboxed start costs
            # more CPU, and the smoke run proves each section runs, not its figures.
            "farm": {"sandbox": False},
            "engines": {"seconds": 0.05 * s, "repeats": repeats},
            "wire": {"seconds": 0.1 * s, "repeats": repeats},
            # Each ceiling is checked against its echo's measured ratio: windows of 0.02 s
            # (--scale 0.2) put the ceiling over it beside other work, so 0.1 s at least.
            "stream": {"seconds": max(0.1, 0.1 * s), "repeats": repeats},
            "transport": {"seconds": 0.1 * s, "repeats": repeats},
            "stdio": {"seconds": 0.1 * s, "repeats": repeats,
                      "command_games": max(2, round(4 * s)), "sandbox": False},
            "scaling": {"games": max(4, round(4 * s)), "repeats": repeats,
                        "rss_games": max(4, round(4 * s))},
            # 4 bots, not 8: one round is 4 games, not 280 (each run and its profiled
            # twin are played in whole rounds).
            "tournament": {"games": args.games or max(1, round(60 * s)),
                           "profile_games": max(1, round(20 * s)), "bots": 4},
            "leaderboard": {"sizes": (max(10, round(25 * s)),), "repeats": repeats,
                            "stored_games": max(10, round(500 * s))},
            # The demo's first two bots at two seats: 6 bot starts, not 16.
            "renewal": {"rounds": max(1, round(1 * s)), "repeats": repeats, "bots": 2,
                        "players": 2},
            "startup": {"repeats": repeats},
            # Two-player games, one round of both seatings each: an even count.
            "command": {"games": max(2, 2 * round(8 * s)), "repeats": repeats,
                        "seconds": 0.1 * s, "sandbox": False},
            "swiss": {"bots": max(6, round(8 * s)), "rounds": 2,
                      "pairing_seeds": max(1, round(2 * s))},
            "stopping": {"seeds": max(1, round(2 * s)), "rounds": 40},
            "sprt": {"simulations": max(4, round(25 * s)), "seeds": max(1, round(1 * s))},
            "dealsets": {"simulations": max(4, round(40 * s)),
                         "comparisons": max(2, round(10 * s)), "real_rounds": 1,
                         "calibration": 20_000},
            "verdict": {"runs": max(2, round(10 * s)), "range_logs": 1, "range_rounds": 5,
                        "other_runs": 2, "real_seeds": 1, "real_rounds": 5},
            "fields": {"fields_per_kind": 1, "runs": max(2, round(4 * s))},
            "luck": {"fit_seeds": (101,), "test_seeds": (1,), "rounds": 3},
            # One cluster, of one worker: a cluster takes seconds of CPU to start, and each
            # worker more with its bots (bots that sleep 5 ms a decision, where one size
            # compares nothing; three bots, one table: the worker and this machine start
            # three, not four).
            "cluster": {"rounds": max(1, round(1 * s)), "workers": (1,), "sleep_ms": 5,
                        "bots": 3, "sandbox": False},
            # Games are played in whole rounds: the large run at least one more.
            "memory": {"small": max(1, round(5 * s)),
                       "large": max(memory.GAMES_PER_ROUND + 1, round(25 * s))},
            "reports": {"sizes": (max(4, round(20 * s)),), "bots": 8, "page_seeds": 1},
            # A few entrants, games, streams: every phase and figure, none of them meant.
            # The ladder plays on its own CPU while the board is fetched and the streams
            # are held, and through its round: short windows, a short round, and matches
            # of one deal (each phase waits for a match to end).
            "arena": {"entrants": 4, "games": max(8, round(60 * s)), "fetchers": 2,
                      "listeners": max(3, round(20 * s)), "seconds": max(0.1, 0.5 * s),
                      "rounds": 1, "round_games": max(4, round(20 * s)), "deals": 1},
        }
    repeats = args.repeats or 3
    return {
        "farm": {"sandbox": True},
        "engines": {"seconds": 1.0 * s, "repeats": repeats},
        "wire": {"seconds": 2.0 * s, "repeats": repeats},
        "stream": {"seconds": 2.0 * s, "repeats": repeats},
        "transport": {"seconds": 1.5 * s, "repeats": repeats},
        "stdio": {"seconds": 2.0 * s, "repeats": repeats,
                  "command_games": max(2, round(600 * s))},
        "scaling": {"games": max(4, round(200 * s)), "repeats": max(1, repeats - 1),
                    "rss_games": max(4, round(320 * s))},
        "tournament": {"games": args.games or max(1, round(10_000 * s)),
                       "profile_games": max(1, round(1_120 * s))},
        "leaderboard": {"sizes": (max(10, round(1_000 * s)), max(10, round(10_000 * s))),
                        "repeats": repeats, "stored_games": max(10, round(100_000 * s))},
        "renewal": {"rounds": max(1, round(10 * s)), "repeats": repeats},
        "startup": {"repeats": max(3, repeats)},
        "command": {"games": max(2, round(600 * s)), "repeats": repeats, "seconds": 2.0 * s},
        "swiss": {"bots": max(6, round(200 * s)), "rounds": 8,
                  "pairing_seeds": max(1, round(20 * s))},
        "stopping": {"seeds": max(1, round(40 * s)), "rounds": 100},
        "sprt": {"simulations": max(10, round(2_000 * s)), "seeds": max(1, round(20 * s))},
        "dealsets": {"simulations": max(10, round(2_000 * s)),
                     "comparisons": max(5, round(300 * s)),
                     "real_rounds": max(1, round(25 * s))},
        "verdict": {"runs": max(4, round(200 * s)), "range_logs": max(1, round(10 * s)),
                    "other_runs": max(2, round(50 * s)), "real_seeds": max(1, round(24 * s))},
        "fields": {"fields_per_kind": max(1, round(20 * s)), "runs": max(2, round(40 * s))},
        "luck": {"fit_seeds": tuple(range(101, 101 + max(1, round(12 * s)))),
                 "test_seeds": tuple(range(1, 1 + max(1, round(12 * s))))},
        "cluster": {"rounds": max(1, round(4 * s))},
        "memory": {"small": max(1, round(1_000 * s)), "large": max(2, round(100_000 * s))},
        "reports": {"sizes": tuple(max(4, round(games * s)) for games in (200, 1_000, 5_000))},
        "arena": {"games": max(10, round(1_000 * s)), "seconds": 15.0 * s, "rounds": repeats,
                  "round_games": max(8, round(1_000 * s))},
    }


def progress(message: str) -> None:
    print(f"… {message}", file=sys.stderr, flush=True)


def run(names: tuple[str, ...] = BENCHMARKS, params: dict[str, dict] | None = None,
        say=progress, done=None, info: dict[str, str] | None = None
        ) -> tuple[dict[str, str], list[Section]]:
    """Run the named benchmarks; return the machine and a section per benchmark.

    ``done(section)`` is called as each benchmark ends. A benchmark that fails
    gives a section saying so, and the others still run.
    """
    params = params or plan(parse_args([]))
    info = info or machine_info()
    sections: list[Section] = []
    needs_farm = {"wire", "stream", "stdio", "scaling", "command"} & set(names)
    farm = Farm(**params["farm"]) if needs_farm else None
    try:
        for name in BENCHMARKS:
            if name not in names:
                continue
            try:
                if name == "engines":
                    section = engines.run(**params["engines"], progress=say)
                elif name == "wire":
                    assert farm is not None
                    bot_pgid, echo_pgid = farm.process_groups()
                    section = wire.run(farm.addresses[0], farm.echo_address,
                                       **params["wire"], progress=say,
                                       bot_pgid=bot_pgid, echo_pgid=echo_pgid)
                elif name == "stream":
                    assert farm is not None
                    bot_pgid, echo_pgid = farm.process_groups()
                    section = wire.run_stream(farm.addresses[0], farm.echo_address,
                                              **params["stream"], progress=say,
                                              bot_pgid=bot_pgid, echo_pgid=echo_pgid)
                elif name == "transport":
                    section = transport.run(**params["transport"], progress=say)
                elif name == "stdio":
                    assert farm is not None
                    section = stdio.run(farm.addresses[0], farm.echo_address,
                                        **params["stdio"], progress=say)
                elif name == "scaling":
                    assert farm is not None
                    section = scaling.run(farm.addresses, **params["scaling"], progress=say)
                elif name == "tournament":
                    section = tournament.run(**params["tournament"], progress=say)
                elif name == "leaderboard":
                    section = leaderboard.run(**params["leaderboard"], progress=say)
                elif name == "renewal":
                    section = renewal.run(**params["renewal"], progress=say)
                elif name == "startup":
                    section = startup.run(**params["startup"], progress=say)
                elif name == "command":
                    assert farm is not None
                    section = command.run(farm.addresses[0], farm.echo_address,
                                          **params["command"], progress=say)
                elif name == "swiss":
                    section = bigfields.swiss(**params["swiss"], progress=say)
                elif name == "stopping":
                    section = bigfields.stopping(**params["stopping"], progress=say)
                elif name == "sprt":
                    section = bigfields.sprt_errors(**params["sprt"], progress=say)
                elif name == "dealsets":
                    section = dealsets.run(**params["dealsets"], progress=say)
                elif name == "verdict":
                    section = verdict.section(**params["verdict"], progress=say)
                elif name == "fields":
                    section = verdict.family(**params["fields"], progress=say)
                elif name == "luck":
                    section = luck.section(**params["luck"], progress=say)
                elif name == "memory":
                    section = memory.run(**params["memory"], progress=say)
                elif name == "reports":
                    section = reports.run(**params["reports"], progress=say)
                elif name == "arena":
                    section = arena.run(**params["arena"], progress=say)
                else:
                    section = cluster.run(**params["cluster"], progress=say)
            except Exception as error:  # report it, and go on with the next benchmark
                section = Section(name, f"{name}: FAILED", [])
                section.notes.append("".join(traceback.format_exception_only(error)).strip())
                section.failed = True
            sections.append(section)
            if done:
                done(section)
    finally:
        if farm is not None:
            farm.close()
    return info, sections


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    names = tuple(args.benchmarks) or BENCHMARKS
    started = time.perf_counter()
    info = machine_info()
    print(machine_markdown(info), flush=True)

    def done(section: Section) -> None:
        print(f"\n{section.markdown()}", flush=True)

    info, sections = run(names, plan(args), done=done, info=info)
    total = time.perf_counter() - started
    print(f"\n_{'quick run, ' if args.quick else ''}all benchmarks: {total:.1f} s_")
    if args.json:
        args.json.write_text(json.dumps(
            {"machine": info, "quick": args.quick, "seconds": total,
             "sections": {section.key: section.as_dict() for section in sections}},
            indent=2))
    if any(section.failed for section in sections):
        sys.exit(1)
