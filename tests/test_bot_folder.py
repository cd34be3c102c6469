"""Where a command: bot runs, and the command its log says was run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import run_tournament, write_config

from circus_referee.main import main
from referee import sandbox
from referee.process import BotProcess
from referee.sandbox import Isolation
from tournaments.config import ConfigError, load_config

# A bot started by a path relative to its folder: it runs only in that folder.
SCRIPT = "import runpy\nrunpy.run_module('bots.random_bot', run_name='__main__')\n"
CONFIG = """
name: folders
game: flea-circus
players: 2
rounds: 1
seed: 4
concurrency: 1
sandbox: {sandbox}
bots:
  - name: here
    command: python bot.py --address {{address}}
  - name: there
    command: python bot.py --address {{address}}
    dir: entries/there
"""


@pytest.mark.parametrize("sandbox", ["true", "false"])
def test_commands_run_in_the_config_folder_from_any_shell_folder(tmp_path, monkeypatch,
                                                                 sandbox):
    config_folder, elsewhere = tmp_path / "league", tmp_path / "elsewhere"
    (config_folder / "entries" / "there").mkdir(parents=True)
    elsewhere.mkdir()
    (config_folder / "bot.py").write_text(SCRIPT)
    (config_folder / "entries" / "there" / "bot.py").write_text(SCRIPT)
    write_config(config_folder, CONFIG.format(sandbox=sandbox))
    monkeypatch.chdir(elsewhere)
    config = load_config("../league/bots.yaml")
    assert [bot.dir for bot in config.bots] == [None, str(config_folder / "entries" / "there")]
    summary, _, _ = run_tournament(config, tmp_path)
    assert summary.played == 2 and summary.faults == {}


def test_a_missing_relative_dir_is_named_with_the_config_folder(tmp_path):
    path = write_config(tmp_path, CONFIG.format(sandbox="true").replace("entries/there",
                                                                         "entries/none"))
    with pytest.raises(ConfigError, match=r"dir 'entries/none' is not a folder \(in "):
        load_config(path)


@pytest.mark.parametrize("sandboxed, shown", [
    (True, r"--address unix:/run/circus/bot\.sock "),
    (False, r"--port \d+ --address 127\.0\.0\.1:\d+ "),
])
def test_the_log_header_shows_the_real_address(tmp_path, sandboxed, shown):
    command = ("python -m bots.random_bot --address {address}" if sandboxed
               else "python -m bots.random_bot --port {port} --address {address}")
    bot = BotProcess("header", command, tmp_path / "header.log",
                     isolation=Isolation(sandbox=sandboxed))
    bot.start()
    bot.stop()
    header = (tmp_path / "header.log").read_text().splitlines()[0]
    assert re.search(f"=== run 1 of header: python -m bots.random_bot {shown}", header), header
    assert "{" not in header, header


@pytest.mark.skipif(sandbox.unavailable_reason() is not None, reason="no sandbox here")
@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_file_the_sandbox_hides_is_named_as_the_likely_cause(tmp_path, sandboxed):
    """Issue 35: a bot that runs a file beside it, outside its dir:, fails with "not found"
    although the file exists; the start error says the sandbox may hide it."""
    (tmp_path / "helper").write_text("#!/bin/sh\necho helper ran; exit 3\n")
    (tmp_path / "wrap.sh").write_text('#!/bin/sh\nexec "$(dirname "$0")/helper"\n')
    for name in ("helper", "wrap.sh"):
        (tmp_path / name).chmod(0o755)
    result = CliRunner().invoke(main, ["check-bot", "--command", f"{tmp_path}/wrap.sh",
                                       "--games", "1", *([] if sandboxed else ["--no-sandbox"])])
    assert result.exit_code == 1, result.output
    hint = f"the error names {tmp_path}/helper, which exists on the host: the sandbox hides it"
    if sandboxed:
        assert "helper: not found" in result.output and hint in result.output, result.output
        # What the sandbox showed it: its folder, its program, what it was granted.
        assert f"in the sandbox it ran in {Path.cwd()}, its program {tmp_path}/wrap.sh is " \
            f"{tmp_path}/wrap.sh;" in result.output, result.output
        assert f"it sees only {tmp_path}/wrap.sh (its dir:" in result.output, result.output
    else:  # the control: unsandboxed, the helper runs, and no hint misleads
        assert "helper ran" in result.output and hint not in result.output, result.output
