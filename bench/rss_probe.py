"""Run ``circus-referee tournament ARGS...`` here and print this process's peak RSS as JSON.

Used by the scaling and memory benchmarks through :func:`measure`, which runs
``python -m bench.rss_probe bots.yaml --db X --quiet`` in a child process of its own.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from circus_referee.main import main as cli
from tournaments.store import Store

ROOT = Path(__file__).resolve().parent.parent


def measure(name: str, config: dict[str, Any], workdir: Path, timeout_s: float
            ) -> dict[str, Any]:
    """Write ``config`` to ``workdir``, run the tournament in a child process and return
    its ``{"maxrss_mb", "games"}``; a failed run raises with the end of its stderr."""
    path = workdir / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    completed = subprocess.run(
        [sys.executable, "-m", "bench.rss_probe", str(path), "--db",
         str(workdir / f"{name}.sqlite"), "--logs", str(workdir / "logs"), "--quiet"],
        capture_output=True, text=True, env=env, timeout=timeout_s, check=False)
    lines = [line for line in completed.stdout.splitlines() if line.startswith("{")]
    if completed.returncode != 0 or not lines:
        raise RuntimeError(f"the RSS probe failed ({completed.returncode}): "
                           f"{completed.stderr.strip()[-500:]}")
    return json.loads(lines[-1])


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
