"""A perfect-information Monte Carlo bot for every game and variant: ``python -m bots.pimc --port N``.

For each legal action, the mean rank share over sampled states of playouts
after it (Long et al. 2010), every action judged on the same samples
(``bots.search``). Options as for ``bots.ismcts``: ``--iterations`` counts
playouts (default 1000), ``--ms`` caps the time (default 400), ``--policy``
and ``--depth`` shape the playouts.
"""

from __future__ import annotations

from bots.ismcts import options
from bots.sdk import Bot, rng_for, serve
from bots.search import Budget, SearchBot, pimc

DEFAULTS = {"iterations": 1000, "ms": 400.0, "policy": "random", "depth": 12}


class PimcBot(SearchBot, Bot):
    name = "pimc"
    search = staticmethod(pimc)

    def __init__(self, iterations: int = DEFAULTS["iterations"], ms: float = DEFAULTS["ms"],
                 policy: str = DEFAULTS["policy"], depth: int = DEFAULTS["depth"]) -> None:
        SearchBot.__init__(self, Budget(iterations, ms), policy, depth)

    def decide(self, request) -> int:
        return self.choose(request, rng_for(request))

    def end_game(self, request) -> None:
        self.memory.forget(request.game_id)


def main(argv: list[str] | None = None) -> None:
    known, rest = options(__doc__.splitlines()[0], DEFAULTS).parse_known_args(argv)
    serve(PimcBot(known.iterations, known.ms, known.policy, known.depth), rest)


if __name__ == "__main__":
    main()
