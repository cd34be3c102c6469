"""The finals' public report, published by the service into its data folder.

It is ``circus-referee report --public`` of the finals' tournament, written by the same
function as that command (:func:`pages.assembly.write_report`), in a process of its own:
a report of a season's games is seconds of CPU, which the service's pages would otherwise
wait on. Env values, paths and addresses are left out, every game's replay is beside it.
It is written into a new folder, then moved onto the (empty) folder served, so
``/report/`` serves a whole report or none.
"""

from __future__ import annotations

import shutil
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from pages.assembly import ReportError, write_report
from tournaments.replays import ReplayError
from tournaments.store import Store, StoreError


def publish_report(db: Path, tournament: str, folder: Path) -> None:
    """Write ``tournament``'s public report as ``folder/index.html`` (its replays in
    ``folder/index-replays/``), replacing what was there."""
    making = folder.with_name(folder.name + ".new")
    shutil.rmtree(making, ignore_errors=True)
    making.mkdir(parents=True)
    # spawn, not fork: the service's threads hold locks a forked child would inherit.
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as apart:
        apart.submit(_write_public, db, tournament, making / "index.html").result()
    if any(folder.iterdir()):
        shutil.rmtree(folder)
    making.replace(folder)   # onto the empty folder the service serves


def _write_public(db: Path, tournament: str, output: Path) -> None:
    try:
        store = Store.open_existing(db)
        try:
            write_report(store, store.resolve(tournament), output, public=True)
        finally:
            store.close()
    except (StoreError, ReplayError, ReportError) as error:
        raise StoreError(f"the report of {tournament} could not be written: {error}") from None
