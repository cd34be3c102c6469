"""Run ``circus-referee tournament ARGS...`` here and print this process's peak RSS as JSON.

Used by the scaling benchmark: ``python -m bench.rss_probe bots.yaml --db X --quiet``.
"""

from __future__ import annotations

import json
import resource
import sys

from cli.main import main as cli
from tournaments.store import Store


def main(argv: list[str]) -> None:
    try:
        cli.main(args=["tournament", *argv], standalone_mode=False)
    except SystemExit as stop:
        if stop.code:
            raise
    # Read before counting the games, so the count's own memory is not in the figure.
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    store = Store(argv[argv.index("--db") + 1])
    games = store.db.execute("SELECT count(*) FROM games").fetchone()[0]
    store.close()
    print(json.dumps({"maxrss_mb": peak_kb / 1024, "games": games}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
