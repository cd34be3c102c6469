"""A perfect-information Monte Carlo bot for every game and variant.

Run as ``python -m bots.pimc --address ADDRESS`` (or ``--port N`` unsandboxed).

For each legal action, the mean rank share over sampled states of playouts
after it (Long et al. 2010), every action judged on the same samples
(``bots.search``). Options as for ``bots.ismcts``: ``--iterations`` counts
playouts (default 1000), ``--ms`` caps the time (default 400), ``--policy``
and ``--depth`` shape the playouts.
"""

from __future__ import annotations

from bots.search import SearchBot, pimc, run


class PimcBot(SearchBot):
    name = "pimc"
    search = staticmethod(pimc)


if __name__ == "__main__":
    run(PimcBot, __doc__.splitlines()[0])
