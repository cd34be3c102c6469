"""The whole-command benchmark on one core (bench/decisions.py), scaled down to a smoke test."""

from __future__ import annotations

import os

from bench.decisions import compile_tree, config, run


def test_the_command_runs_pinned_and_gives_its_rate_and_cpu():
    section = run(None, games=2, repeats=1, core=min(os.sched_getaffinity(0)),
                  kinds=("python",))
    assert section.figures["python.this.decisions_per_s"] > 0
    assert section.figures["python.this.referee_cpu_us"] > 0
    assert len(section.rows) == 1 and section.rows[0][0] == "python"


def test_each_tree_plays_its_own_stdio_bot(tmp_path):
    bots = config("stdio", 2, tmp_path)["bots"]
    assert [bot["command"] for bot in bots] == [
        f"python {tmp_path / 'bots' / 'stdio' / 'random_bot.py'}"] * 2


def test_each_tree_is_compiled_before_it_is_timed(tmp_path):
    (tmp_path / "package").mkdir()
    (tmp_path / "package" / "module.py").write_text("VALUE = 1\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "skipped.py").write_text("VALUE = 2\n")
    compile_tree(tmp_path)
    assert list((tmp_path / "package" / "__pycache__").glob("module.*.pyc"))
    assert not (tmp_path / ".venv" / "__pycache__").exists()
