"""Shared fixtures: writing configs and running tournaments in a temporary folder."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pytest

from referee.store import Store
from referee.tournament import Summary, TournamentRunner
from tournaments.config import TournamentConfig, load_config


def write_config(folder: Path, text: str, name: str = "bots.yaml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def run_tournament(config: TournamentConfig | Path, folder: Path, db: str = "results.sqlite",
                   **options) -> tuple[Summary, Store, str]:
    """Run a tournament quietly; return its summary, store and captured output."""
    if isinstance(config, Path):
        config = load_config(config)
    store = Store(folder / db)
    out = io.StringIO()
    runner = TournamentRunner(config, store, folder / "logs" / config.name, out=out,
                              quiet=options.pop("quiet", True), **options)
    return runner.run(), store, out.getvalue()


@pytest.fixture
def tmp_folder(tmp_path: Path) -> Path:
    return tmp_path
