"""An IS-MCTS bot for every game and variant: ``python -m bots.ismcts --port N``.

Single-observer information-set Monte Carlo tree search (Cowling, Powley and
Whitehouse 2012) over the rules engines, a fresh determinization of the
seat's view each iteration (``bots.search``). Options: ``--iterations``
(default 1000) and ``--ms`` (default 400, a cap well inside the default
1000 ms move time) bound each decision, whichever ends first; ``--policy``
(``random`` or ``heuristic``) plays the playouts, cut after ``--depth``
decisions (0: to the end).
"""

from __future__ import annotations

import argparse

from bots.sdk import Bot, rng_for, serve
from bots.search import Budget, SearchBot, ismcts

DEFAULTS = {"iterations": 1000, "ms": 400.0, "policy": "random", "depth": 12}


class IsmctsBot(SearchBot, Bot):
    name = "ismcts"
    search = staticmethod(ismcts)

    def __init__(self, iterations: int = DEFAULTS["iterations"], ms: float = DEFAULTS["ms"],
                 policy: str = DEFAULTS["policy"], depth: int = DEFAULTS["depth"]) -> None:
        SearchBot.__init__(self, Budget(iterations, ms), policy, depth)

    def decide(self, request) -> int:
        return self.choose(request, rng_for(request))

    def end_game(self, request) -> None:
        self.memory.forget(request.game_id)


def options(description: str, defaults: dict) -> argparse.ArgumentParser:
    """The search options every search bot takes, besides ``serve()``'s own."""
    parser = argparse.ArgumentParser(description=description, add_help=False)
    parser.add_argument("--iterations", type=int, default=defaults["iterations"],
                        help="iterations (playouts) per decision; 0: no limit")
    parser.add_argument("--ms", type=float, default=defaults["ms"],
                        help="milliseconds per decision at most; 0: no limit")
    parser.add_argument("--policy", choices=("random", "heuristic"), default=defaults["policy"])
    parser.add_argument("--depth", type=int, default=defaults["depth"],
                        help="playout decisions before scoring the position; 0: to the end")
    return parser


def main(argv: list[str] | None = None) -> None:
    known, rest = options(__doc__.splitlines()[0], DEFAULTS).parse_known_args(argv)
    serve(IsmctsBot(known.iterations, known.ms, known.policy, known.depth), rest)


if __name__ == "__main__":
    main()
