"""An IS-MCTS bot for every game and variant: ``python -m bots.ismcts --address ADDRESS``.

Single-observer information-set Monte Carlo tree search (Cowling, Powley and
Whitehouse 2012) over the rules engines, a fresh determinization of the
seat's view each iteration (``bots.search``). Options: ``--iterations``
(default 1000) and ``--ms`` (default 400, a cap well inside the default
1000 ms move time) bound each decision, whichever ends first; ``--policy``
(``random`` or ``heuristic``) plays the playouts, cut after ``--depth``
decisions (0: to the end) and scored by soft ranks with ``--spread`` of the
points or (``--value heuristic``) of the game's heuristic valuation;
``--bias`` leans the root towards the game's hand-written bot's move
(progressive bias). docs/bots.md has the ladders' settings and figures.
"""

from __future__ import annotations

from bots.search import SearchBot, ismcts, run


class IsmctsBot(SearchBot):
    name = "ismcts"
    search = staticmethod(ismcts)


if __name__ == "__main__":
    run(IsmctsBot, __doc__.splitlines()[0])
