"""Each version's gate: check-bot in the sandbox, as ``circus-referee submissions`` gates
an entrant, run in the background one version at a time.

A version waits in the store as ``queued`` until its gate's result is committed, so a
gate cut short by a kill is run again when the service starts.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Callable

from arena.background import Background
from arena.config import ArenaConfig
from arena.store import ArenaStore, Gate, Version, now
from tournaments.store import database_paths
from tournaments.submissions import SubmissionError, check_entrant, read_manifest

LOG = logging.getLogger(__name__)
#: How much of the end of the bot's log its page shows.
LOG_TAIL = 4000
#: check-bot games at the same time on one connection, as ``submissions`` plays them.
AT_ONCE = 3


def check_version(arena: ArenaConfig, version: Version) -> Gate:
    """check-bot on the version, sandboxed at the arena's clock, hidden from every other
    entrant's files, the uploads being unpacked, the gates' logs and the database."""
    log_dir = arena.gates_dir / version.id
    log_dir.mkdir(parents=True, exist_ok=True)
    try:
        entrant = replace(read_manifest(version.folder), name=version.id)
        config = arena.gate_config(version.entry)
    except SubmissionError as error:
        return Gate(version.id, False, str(error), [], "", now())
    others = tuple(folder for folder in _entrant_folders(arena)
                   if folder.name != version.entrant)
    private = (*others, arena.staging_dir, arena.gates_dir, *database_paths(arena.db))
    verdict = check_entrant(entrant, config, arena.gate_games, AT_ONCE, log_dir, private)
    lines = [check.line() for check in verdict.checks] + [verdict.covered]
    return Gate(version.id, verdict.passed, verdict.refused or "", lines, _log_tail(log_dir),
                now())


def _entrant_folders(arena: ArenaConfig) -> list[Path]:
    folder = arena.versions_dir
    return sorted(path for path in folder.iterdir() if path.is_dir()) if folder.is_dir() else []


def _log_tail(log_dir: Path) -> str:
    """The end of the bot's logs of its gate."""
    text = "".join(path.read_text(errors="replace") for path in sorted(log_dir.glob("*.log")))
    return text[-LOG_TAIL:]


class GateQueue(Background):
    """The background thread that gates queued versions, oldest first; ``gated`` is
    called with each version once its result is stored."""

    def __init__(self, store: ArenaStore, check: Callable[[Version], Gate],
                 gated: Callable[[Version], None]) -> None:
        self.store = store
        self.check = check
        self.gated = gated
        super().__init__("arena-gates")

    def _run(self) -> None:
        while not self.stopping.is_set():
            queued = self.store.queued()
            for version in queued:
                if self.stopping.is_set():
                    return
                self.store.finish_gate(self._checked(version))
                self.gated(version)
            if not queued:
                self.wake.wait()
                self.wake.clear()

    def _checked(self, version: Version) -> Gate:
        """The version's gate; a gate that cannot run fails its version, saying why,
        and the queue goes on to the next."""
        try:
            return self.check(version)
        except Exception as error:   # noqa: BLE001 - one version must not stop the queue
            LOG.exception("the gate of %s could not run", version.id)
            return Gate(version.id, False, f"the gate could not run: {error}", [], "", now())
