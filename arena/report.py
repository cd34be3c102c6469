"""The finals' public report, published by the service into its data folder.

It is ``circus-referee report --public`` of the finals' tournament, run as that command
(the report is the command line's, and the arena stands below it): env values, paths
and addresses left out, every game's replay beside it. It is written into a new folder,
then moved onto the (empty) folder served, so ``/report/`` serves a whole report or
none.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tournaments.store import StoreError

#: The command line, as this interpreter runs it.
COMMAND = (sys.executable, "-m", "circus_referee")


def publish_report(db: Path, tournament: str, folder: Path) -> None:
    """Write ``tournament``'s public report as ``folder/index.html`` (its replays in
    ``folder/index-replays/``), replacing what was there."""
    making = folder.with_name(folder.name + ".new")
    shutil.rmtree(making, ignore_errors=True)
    making.mkdir(parents=True)
    done = subprocess.run([*COMMAND, "report", "--db", str(db), "--tournament", tournament,
                           "--public", "-o", str(making / "index.html")],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise StoreError(f"the report of {tournament} could not be written: "
                         f"{done.stderr.strip() or done.stdout.strip()}")
    if any(folder.iterdir()):
        shutil.rmtree(folder)
    making.replace(folder)   # onto the empty folder the service serves
