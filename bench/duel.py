"""Benchmark: a search bot's variant against the heuristic, in process: ``python -m bench.duel``.

A ladder (``bench.ladder``) plays real bots over gRPC and needs 80 games and
more to tell two bots apart; trying search settings that way is slow. This
plays the engine directly: each deal is played once per rotation of the
lineup (default: the search bot, the heuristic twice, random; 4 players; a
lineup may also hold ``pimc``, the game's ladder PIMC, uncapped), so every
seat sees every deal, and the lineup's order changes from deal to deal as
a tournament's does from round to round (``referee.seating.cyclic_order``:
with one order the search bot would always move just before the same bot, which
in Flohcati decides much of a game). The search bot decides as ``SearchBot`` does
(its view's sampler, the heuristic's move as the hint) from the options given
after ``--`` (``bots.search.options``). Each game's rank shares (1 first, 0
last, ties split) go to ``--out`` as JSON lines as they end; the summary gives
each bot's mean rank share and first places, and the search bot's paired
difference per deal from its ``--rival`` (the heuristic unless said), with its
standard error (deals are the independent units). Seeded throughout (the deals
and each decision's search), so a run replays exactly. docs/bots.md has the Flohcati figures.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from pathlib import Path
from typing import Any, Callable

import yaml

from bench.ladder import ladder_file, uncapped
from bots.search import (
    HEURISTICS,
    Budget,
    evaluation_named,
    ismcts,
    options,
    pimc,
    policy_named,
    random_policy,
    rank_shares,
)
from referee.games import get_game
from referee.games.determinize import sampler_for
from referee.seating import cyclic_order, rotations
from referee.seeds import derive_seed

SEARCHES: dict[str, Callable[..., tuple[int, dict[str, Any]]]] = {"ismcts": ismcts,
                                                                  "pimc": pimc}


def search_player(known: argparse.Namespace, search: str, game: str):
    """A ``(state, actions, seed)`` chooser deciding as the search bot with these options does."""
    policy, evaluate = policy_named(known.policy, game), evaluation_named(known.value, game)
    heuristic, budget = HEURISTICS[game], Budget(known.iterations, known.ms)

    def choose(state: Any, actions: list, seed: int) -> int:
        if len(actions) == 1:
            return 0
        seat = state.current_seat()
        events = [event for event in state.events if event.visible_for(seat)]
        sampler = sampler_for(game, state.observation(seat), events)
        hint = heuristic(state, actions, random.Random(seed)) if known.bias > 0 else -1
        index, _ = SEARCHES[search](sampler, [action.code for action in actions], budget,
                                    random.Random(seed), policy, known.depth, known.spread,
                                    hint, known.bias, known.sweep, evaluate=evaluate,
                                    widen=known.widen, guide=known.guide)
        return index
    return choose


def ladder_pimc(game: str, variant: str) -> list[str]:
    """The options of the game's ladder PIMC (``tournaments/baselines-*.yaml``), uncapped:
    a search variant is screened against the very bot it must beat there."""
    data = yaml.safe_load(ladder_file("flohcati-es" if variant == "es" else game).read_text())
    command = uncapped(next(bot["command"] for bot in data["bots"] if bot["name"] == "pimc"))
    words = command.split()
    return words[words.index("bots.pimc") + 1:words.index("--address")]


def players(search_options: list[str], search: str, game: str, variant: str
            ) -> dict[str, Any]:
    known = options("the search bot").parse_args(search_options)
    heuristic = HEURISTICS[game]
    ladder = options("the ladder's PIMC").parse_args(ladder_pimc(game, variant))
    return {"search": search_player(known, search, game),
            "pimc": search_player(ladder, "pimc", game),
            "heuristic": lambda state, actions, seed: heuristic(state, actions,
                                                                random.Random(seed)),
            "random": lambda state, actions, seed: random_policy(state, actions,
                                                                 random.Random(seed))}


def play(game: str, variant: str, seed: int, lineup: list[str], chooser: dict[str, Any]
         ) -> list[float]:
    """One game of ``lineup`` (a name per seat) on deal ``seed``: each seat's rank share."""
    state = get_game(game).new_state(len(lineup), variant, seed)
    decision = 0
    while not state.is_terminal():
        actions = state.legal_actions()
        name = lineup[state.current_seat()]
        state.apply(chooser[name](state, actions, derive_seed(seed, decision)), actions)
        decision += 1
    return rank_shares(state.scores())


def summary(rows: list[dict[str, Any]], rival: str = "heuristic") -> str:
    """Mean rank shares and first places by bot, and search − rival per deal with its SE."""
    shares: dict[str, list[float]] = {}
    firsts: dict[str, list[float]] = {}
    per_deal: dict[int, list[float]] = {}
    for row in rows:
        rivals = [share for name, share in zip(row["lineup"], row["shares"]) if name == rival]
        for name, share in zip(row["lineup"], row["shares"]):
            shares.setdefault(name, []).append(share)
            firsts.setdefault(name, []).append(float(share == 1.0))
            if name == "search":
                per_deal.setdefault(row["deal"], []).append(share - statistics.mean(rivals))
    lines = [f"{len(rows)} games, {len(per_deal)} deals"]
    for name, own in shares.items():
        lines.append(f"  {name:9} rank share {statistics.mean(own):.3f}, "
                     f"first {statistics.mean(firsts[name]):.3f}")
    means = [statistics.mean(diffs) for diffs in per_deal.values()]
    if len(means) > 1:
        se = statistics.stdev(means) / math.sqrt(len(means))
        lines.append(f"  search - {rival} per deal {statistics.mean(means):+.3f} ± {se:.3f} (SE)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="flohcati")
    parser.add_argument("--variant", default="en")
    parser.add_argument("--search", choices=sorted(SEARCHES), default="ismcts")
    parser.add_argument("--lineup", default="search,heuristic,heuristic,random",
                        help="a name per seat: search, heuristic, random, pimc (the ladder's)")
    parser.add_argument("--rival", default="heuristic",
                        help="the lineup's bot the search bot is compared with, deal by deal")
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--seed", default="duel")
    parser.add_argument("--out", type=Path, required=True, help="JSON lines, one per game")
    args, search_options = parser.parse_known_args(argv)
    search_options = [option for option in search_options if option != "--"]
    chooser = players(search_options, args.search, args.game, args.variant)
    lineup = args.lineup.split(",")
    if unknown := sorted(set(lineup) - set(chooser)):
        parser.error(f"--lineup: no bot named {', '.join(unknown)} (one of {', '.join(chooser)})")
    if args.rival not in lineup or "search" not in lineup:
        parser.error(f"--lineup {args.lineup} needs the search bot and the rival {args.rival!r}")
    rows = [json.loads(line) for line in args.out.read_text().splitlines()] \
        if args.out.exists() else []
    with args.out.open("a") as out:
        for deal in range(args.first_deal, args.first_deal + args.deals):
            seed = derive_seed(args.seed, args.game, args.variant, deal)
            for rotation in rotations(cyclic_order(tuple(lineup), deal)):
                seating = list(rotation)
                row = {"deal": deal, "lineup": seating, "options": search_options,
                       "shares": play(args.game, args.variant, seed, seating, chooser)}
                out.write(json.dumps(row) + "\n")
                out.flush()
                rows.append(row)
            print(summary(rows, args.rival), file=sys.stderr, flush=True)
    print(summary(rows, args.rival))


if __name__ == "__main__":
    main()
