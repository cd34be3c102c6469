"""Serving an arena with uvicorn, and what the command line needs beside it."""

from __future__ import annotations

from pathlib import Path

import uvicorn

from arena.app import make_app
from arena.config import ArenaConfig, load_arena_config
from arena.service import Arena
from arena.store import ArenaStore

#: How long a stopping service waits for open pages (their event streams never end).
GRACE_S = 2


def serve(config: ArenaConfig, host: str | None = None, port: int | None = None) -> None:
    """Serve until stopped (Ctrl-C or SIGTERM); the gates and the ladder stop with it."""
    uvicorn.run(make_app(Arena(config)), host=host or config.host, port=port or config.port,
                limit_concurrency=config.max_connections,
                timeout_graceful_shutdown=GRACE_S, log_level="warning")


def add_entrant(config_path: Path, name: str, organiser: bool, per_day: int | None) -> str:
    """Add an entrant (or an organiser) to the arena's store; its token."""
    config = load_arena_config(config_path)
    store = ArenaStore(config.db)
    try:
        return store.add_entrant(name, "organiser" if organiser else "entrant", per_day)
    finally:
        store.close()
