"""The documentation: a site that builds strict, naming every command, and a README whose
first bot and first tournament run as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from circus_referee.main import COMMANDS, main

ROOT = Path(__file__).resolve().parent.parent


def test_the_docs_build_strict_as_a_site(tmp_path):
    """A broken link or anchor, or a page left out of the navigation, fails the build."""
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                            "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "protocol" / "index.html").exists()


def test_every_command_is_in_the_commands_page():
    page = (ROOT / "docs" / "commands.md").read_text()
    named = set(re.findall(r"^\| `circus-referee ([a-z-]+)", page, re.M))
    assert named == set(COMMANDS), (
        f"missing from docs/commands.md: {sorted(set(COMMANDS) - named)}; "
        f"no such command: {sorted(named - set(COMMANDS))}")


def test_the_readme_s_first_tournament_runs_as_written(tmp_path):
    """The README's bot file and bots.yaml, saved as it says, play (one round, not ten)."""
    readme = (ROOT / "README.md").read_text()
    bot, = re.findall(r"saved as\n`mybot/mybot.py`:\n\n```python\n(.*?)```", readme, re.S)
    config, = re.findall(r"## A first tournament.*?```yaml\n(.*?)```", readme, re.S)
    (tmp_path / "mybot").mkdir()
    (tmp_path / "mybot" / "mybot.py").write_text(bot)
    (tmp_path / "bots.yaml").write_text(config.replace("rounds: 10", "rounds: 1"))
    db = str(tmp_path / "r.sqlite")
    for command in (["tournament", str(tmp_path / "bots.yaml"), "-q", "--logs",
                     str(tmp_path / "logs")], ["leaderboard"]):
        result = CliRunner().invoke(main, [*command, "--db", db])
        assert result.exit_code == 0, result.output
    assert "mine" in result.output and "verdict" in result.output
