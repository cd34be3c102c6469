"""A root referee whose TMPDIR is private (a 0700 folder) still sandboxes its bots.

Each bot runs as an unprivileged uid, which must walk to the staged paths the referee
makes for it: made under a private TMPDIR, they were out of its reach, and the sandbox
probe failed as if bubblewrap could not run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from referee import sandbox

ROOT = Path(__file__).resolve().parent.parent
CLI = str(Path(sys.executable).parent / "circus-referee")

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="only a root referee drops bots' uids")


@as_root
def test_the_staging_folder_leaves_a_private_tmpdir_for_one_every_uid_walks(tmp_path,
                                                                           monkeypatch):
    private = tmp_path / "private"     # under pytest's own 0700 folder
    private.mkdir(mode=0o711)
    monkeypatch.setattr(sandbox.tempfile, "tempdir", str(private))
    assert sandbox.staging_parent() == "/tmp"
    walkable = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        walkable.chmod(0o711)
        monkeypatch.setattr(sandbox.tempfile, "tempdir", str(walkable))
        assert sandbox.staging_parent() == str(walkable)
    finally:
        walkable.rmdir()


@as_root
@pytest.mark.slow
def test_a_sandboxed_check_bot_passes_with_a_private_tmpdir(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    result = subprocess.run(
        [CLI, "check-bot", "--command", "python -m bots.random_bot --address {address}",
         "--game", "flea-circus", "--rotation", "once", "--at-once", "1",
         "--startup-ms", "30000"],
        cwd=ROOT, env={**os.environ, "TMPDIR": str(private)}, capture_output=True, text=True,
        timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS  play flea-circus/standard" in result.stdout
    assert list(private.iterdir()) == [], "check-bot's own temporary folder is removed"
