"""Bots of known strength for Amazing Flea Circus: greedy with probability p, else random.

At each decision a :class:`MixedBot` plays the greedy heuristic's move
(:class:`bots.flea_greedy.FleaGreedyBot`) with probability ``p`` and a
uniformly random legal move otherwise. Both the coin and the random move are
drawn from :func:`bots.sdk.rng_for`, so the bots stay deterministic given the
request and a tournament of them replays exactly.

``Mixed0``, ``Mixed25``, ``Mixed50``, ``Mixed75`` and ``Mixed100`` are the
family p = 0, 0.25, 0.5, 0.75, 1 that the rating tests use, in-process::

    bots:
      - {name: p50, python: "bots.mixed:Mixed50"}

or as a process: ``python -m bots.mixed --p 0.5 --address {address}``.
"""

from __future__ import annotations

import argparse

from bots.flea_greedy import FleaGreedyBot
from bots.sdk import Bot, rng_for, serve


class MixedBot(Bot):
    """Plays the greedy move with probability ``p``, a random legal move otherwise."""

    p: float = 0.5
    games = {"flea-circus": ()}

    def __init__(self, p: float | None = None) -> None:
        if p is not None:
            self.p = p
        if not 0.0 <= self.p <= 1.0:
            raise ValueError(f"p must be within [0, 1], not {self.p}")
        self.name = f"mixed-{self.p:g}"
        self.greedy = FleaGreedyBot()

    def decide(self, request) -> int:
        rng = rng_for(request)
        if rng.random() < self.p:
            return self.greedy.decide(request)
        return rng.randrange(len(request.legal_actions))


class Mixed0(MixedBot):
    p = 0.0


class Mixed25(MixedBot):
    p = 0.25


class Mixed50(MixedBot):
    p = 0.5


class Mixed75(MixedBot):
    p = 0.75


class Mixed100(MixedBot):
    p = 1.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=float, default=0.5, help="probability of the greedy move")
    known, rest = parser.parse_known_args(argv)
    serve(MixedBot(known.p), rest)


if __name__ == "__main__":
    main()
