"""The whole-command benchmark on one core (bench/decisions.py), scaled down to a smoke test."""

from __future__ import annotations

import os

from bench.decisions import ROOT, run


def test_the_command_runs_pinned_against_a_tree_and_gives_its_ratio_and_goal():
    section = run(ROOT, games=2, repeats=1, core=min(os.sched_getaffinity(0)),
                  kinds=("python",))
    figures = section.figures
    assert figures["python.this.decisions_per_s"] > 0
    assert figures["python.against.referee_cpu_us"] > 0
    assert figures["python.ratio"] > 0 and figures["python.ratio_by_cpu"] > 0
    assert any(note.startswith("goal: python") for note in section.notes)
