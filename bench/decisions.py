"""Benchmark: the whole ``tournament`` command on one core: ``python -m bench.decisions``.

A two-player Amazing Flea Circus tournament of two random bots, run as a user runs it (the
command in a child process, timed from its start to its exit: imports, the bots' start-up,
every game, the closing leaderboard), once with stdio bots (``bots/stdio/random_bot.py``,
sandboxed) and once with in-process ``python:`` bots (``bots.random_bot:RandomBot``). The
child and every process it starts are pinned to one core (``--core``): unpinned, the
wake-ups across two cores alone move a ping-pong's rate by 2.5× on a 2-core machine, and
pinned, the referee's CPU and the bots' share the core, so the rate is what their CPU
a decision allows.

``--against DIR`` runs the same command from another checkout of the project (a worktree
of main, say) in interleaved rounds, with this checkout's interpreter and each checkout's
own stdio bot (the bots' CPU shares the core: it is part of what each tree costs), both
trees compiled first: each figure is then this tree's ÷ that tree's in the same round, the
median over the rounds, which the machine's load moves less than either rate. Goals:
stdio ≥ 1.5× and in-process ≥ 2× the tree before.

    .venv/bin/python -m bench.decisions --against ../main --games 600 --repeats 3
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from bench.machine import machine_info
from bench.report import Section, machine_markdown, median
from tournaments.store import Store

ROOT = Path(__file__).resolve().parent.parent
NAME = "decisions"
GOALS = {"stdio": 1.5, "python": 2.0}
KINDS = ("stdio", "python")
#: The child: pinned to the core, the command's own entry point, then its CPU and its
#: children's (the bots') on stderr.
CHILD = """\
import os, resource, sys
os.sched_setaffinity(0, {{{core}}})
from circus_referee.main import main
try:
    main()
except SystemExit as exit:
    if exit.code:
        raise
own, bots = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
print("cpu", own.ru_utime + own.ru_stime, bots.ru_utime + bots.ru_stime, file=sys.stderr)
"""


def bot_entry(kind: str, tree: Path) -> dict:
    """A bot's entry in bots.yaml: the tree's own stdio random bot, or its in-process one."""
    if kind == "stdio":
        return {"command": f"python {tree / 'bots' / 'stdio' / 'random_bot.py'}",
                "transport": "stdio"}
    return {"python": "bots.random_bot:RandomBot"}


def config(kind: str, games: int, tree: Path) -> dict:
    return {"name": NAME, "game": "flea-circus", "players": 2, "rounds": max(1, games // 2),
            "seed": 59,
            "bots": [{"name": f"random-{letter}", **bot_entry(kind, tree)} for letter in "ab"]}


def compile_tree(tree: Path) -> None:
    """Write the bytecode of every module of ``tree`` (not its .venv): with
    PYTHONDONTWRITEBYTECODE set, a fresh checkout has none, and each of its runs would
    compile its modules again (a tenth of a second of start-up the other tree skips)."""
    compileall.compile_dir(str(tree), quiet=1, rx=re.compile(r"[/\\]\.(venv|git)([/\\]|$)"))


def whole_run(tree: Path, kind: str, games: int, core: int, workdir: Path
              ) -> tuple[int, float, float, float]:
    """Decisions stored, and the command's seconds, its own CPU and its bots' CPU."""
    folder = Path(tempfile.mkdtemp(dir=workdir))
    (folder / "bots.yaml").write_text(yaml.safe_dump(config(kind, games, tree)))
    db = folder / "circus.sqlite"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(tree / "proto")])}
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD.format(core=core), "tournament",
                           str(folder / "bots.yaml"), "--db", str(db), "--logs",
                           str(folder / "logs"), "--quiet"],
                          cwd=tree, env=env, capture_output=True, text=True, timeout=3600)
    seconds = time.perf_counter() - began
    found = re.search(r"^cpu (\S+) (\S+)$", done.stderr, re.MULTILINE)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"the tournament command failed in {tree}: "
                           f"{done.stderr.strip()[-500:]}")
    store = Store(db)
    try:
        decisions = sum(len(game.actions) for game in store.games(NAME))
    finally:
        store.close()
    return decisions, seconds, float(found.group(1)), float(found.group(2))


def run(against: Path | None, games: int, repeats: int, core: int,
        kinds: tuple[str, ...] = KINDS) -> Section:
    started = time.perf_counter()
    trees = [("this", ROOT)] + ([("against", against.resolve())] if against else [])
    section = Section(
        NAME, f"The whole command on one core: {games}-game tournaments of two random bots",
        ["bots", "tree", "decisions/s", "referee CPU µs a decision", "bots' CPU µs a decision",
         "÷ against", "÷ against by CPU", "repeats (decisions/s)"])
    loads = [os.getloadavg()[0]]
    rates: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], list[tuple[float, float]]] = {}
    if against is not None:   # the two trees' start-ups alike
        for _, tree in trees:
            compile_tree(tree)
    with tempfile.TemporaryDirectory(prefix="circus-bench-decisions-") as workdir:
        for _ in range(repeats):
            for kind in kinds:
                for label, tree in trees:
                    decisions, seconds, own, bots = whole_run(tree, kind, games, core,
                                                              Path(workdir))
                    rates.setdefault((kind, label), []).append(decisions / seconds)
                    cpu.setdefault((kind, label), []).append((own / decisions * 1e6,
                                                              bots / decisions * 1e6))
                    loads.append(os.getloadavg()[0])
    for kind in kinds:
        for label, tree in trees:
            key = (kind, label)
            compared = against is not None and label == "this"
            ratio = (median(mine / theirs for mine, theirs
                            in zip(rates[kind, "this"], rates[kind, "against"]))
                     if compared else float("nan"))
            # On a core of their own, the rates' ratio is that of the CPU a decision, the
            # referee's and the bots' (the load moves it far less than it moves the rates).
            by_cpu = (median(sum(theirs) / sum(mine) for mine, theirs
                             in zip(cpu[kind, "this"], cpu[kind, "against"]))
                      if compared else float("nan"))
            section.add(kind, str(tree), median(rates[key]), median(c[0] for c in cpu[key]),
                        median(c[1] for c in cpu[key]), ratio, by_cpu,
                        f"{min(rates[key]):,.0f}–{max(rates[key]):,.0f}")
            section.figures[f"{kind}.{label}.decisions_per_s"] = median(rates[key])
            section.figures[f"{kind}.{label}.referee_cpu_us"] = median(c[0] for c in cpu[key])
            if compared:
                section.figures[f"{kind}.ratio"] = ratio
                section.figures[f"{kind}.ratio_by_cpu"] = by_cpu
                section.notes.append(f"goal: {kind} ≥ {GOALS[kind]}× the tree "
                                     f"against — {ratio:.2f}× "
                                     f"({'met' if ratio >= GOALS[kind] else 'NOT met'}); by "
                                     f"CPU {by_cpu:.2f}× "
                                     f"({'met' if by_cpu >= GOALS[kind] else 'NOT met'})")
    section.notes.append(
        f"pinned to core {core} (the command and its bots); median of {repeats} interleaved "
        f"round(s); ÷ against: the median of each round's ratio of decisions/s; by CPU: of "
        f"the CPU a decision, the referee's and the bots' (the rates' ratio on a core of "
        f"their own); CPU from the child's rusage, its own and its children's; load average "
        f"{min(loads):.1f}–{max(loads):.1f} during the runs")
    section.seconds = time.perf_counter() - started
    return section


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, default=None,
                        help="another checkout of the project, run in the same rounds")
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--core", type=int, default=min(os.sched_getaffinity(0)),
                        help="the core to pin everything to (default: the first allowed)")
    args = parser.parse_args(argv)
    info = machine_info()
    print(run(args.against, args.games, args.repeats, args.core).markdown(), end="\n\n")
    print(machine_markdown(info))


if __name__ == "__main__":
    main()
