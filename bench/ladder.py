"""Benchmark: a baselines ladder without the search bots' time caps, ``python -m bench.ladder L``.

``L`` names a ``tournaments/baselines-<L>.yaml`` (flea-circus, flohcati,
flohcati-es, animal-circus), or is the path of another config (a variant of a
ladder being tried). It is played as written but for time: each search
bot's ``--ms`` cap is dropped, so its iteration budget alone ends a decision
and the result does not depend on how loaded the machine is (on a busy
machine the ladder's caps bind first and the search bots play weaker), and
the referee's move time is raised to match. Bots are kept for the whole
tournament (``renew_bots: false``; they are the trusted reference bots), each
in its own process, so ``concurrency`` games use that many cores. The games go
through the real tournament runner into a SQLite store, and the leaderboard
with its likelihood of superiority is printed at the end, as
``circus-referee leaderboard --los`` shows it. docs/bots.md gives the figures.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from circus_referee.main import main as cli
from tournaments.config import parse_config
from tournaments.runner import TournamentRunner
from tournaments.store import Store

FOLDER = Path(__file__).resolve().parent.parent / "tournaments"
LADDERS = ("flea-circus", "flohcati", "flohcati-es", "animal-circus")
MOVE_MS = 60_000  # an iteration budget on a machine loaded tenfold stays well inside it


def uncapped(command: str) -> str:
    """``command`` with its ``--ms`` cap made 0 (no cap), if it has one."""
    return re.sub(r"--ms\s+\S+", "--ms 0", command)


def ladder_file(ladder: str) -> Path:
    """A ladder's config file, by name or path."""
    return FOLDER / f"baselines-{ladder}.yaml" if ladder in LADDERS else Path(ladder)


def ladder_config(ladder: str, rounds: int | None, concurrency: int,
                  players: int | None = None) -> dict[str, Any]:
    data = yaml.safe_load(ladder_file(ladder).read_text())
    for bot in data["bots"]:
        bot["command"] = uncapped(bot["command"])
    data["time"] = {"move_ms": MOVE_MS}
    data["renew_bots"] = False
    data["concurrency"] = concurrency
    if rounds:
        data["rounds"] = rounds
    if players:
        data["players"] = players
        data["name"] = f"{data['name']}-{players}p"
    return data


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ladder", help=f"one of {', '.join(LADDERS)}, or a config's path")
    parser.add_argument("--rounds", type=int, default=None, help="instead of the file's")
    parser.add_argument("--players", type=int, default=None,
                        help="seats per table instead of the file's (the tournament's name "
                             "says so: a store may hold both)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--db", type=Path, default=Path("runs/ladders.sqlite"))
    args = parser.parse_args(argv)
    args.db.parent.mkdir(parents=True, exist_ok=True)
    config = parse_config(ladder_config(args.ladder, args.rounds, args.concurrency, args.players),
                          folder=FOLDER)
    store = Store(args.db)
    try:
        TournamentRunner(config, store, args.db.parent / "logs", out=sys.stderr).run()
    finally:
        store.close()
    cli(["leaderboard", "--db", str(args.db), "--tournament", config.name, "--los"],
        standalone_mode=False)


if __name__ == "__main__":
    main()
