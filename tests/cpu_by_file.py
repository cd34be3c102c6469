"""An opt-in pytest plugin: each test file's CPU, the worker's own and its children's.

The suite is CPU-bound on two cores, so a file's cost is its CPU, not its wall time (which
waits on timeouts and on the other workers). Each test's CPU is its worker's
``time.process_time`` and the ``RUSAGE_CHILDREN`` of the bots and commands it waited for,
summed by file and printed at the end, costliest first::

    PYTHONPATH=tests .venv/bin/python -m pytest -n 0 -p cpu_by_file tests/test_go_bot.py

Under xdist each worker writes its files' figures as JSON to ``$CPU_BY_FILE_DIR``
(``out-gw0.json`` …), to be summed over a whole run.
"""

from __future__ import annotations

import json
import os
import resource
import time
from pathlib import Path
from typing import Any, Generator

import pytest

#: Per file: [own CPU s, children's CPU s, wall s, tests].
_files: dict[str, list[float]] = {}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Any) -> Generator[None, None, None]:
    own, children, wall = time.process_time(), _children_cpu(), time.monotonic()
    yield
    row = _files.setdefault(item.location[0], [0.0, 0.0, 0.0, 0])
    row[0] += time.process_time() - own
    row[1] += _children_cpu() - children
    row[2] += time.monotonic() - wall
    row[3] += 1


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = os.environ.get("CPU_BY_FILE_DIR")
    if folder:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        (Path(folder) / f"out-{worker}.json").write_text(json.dumps(_files))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for path, (own, children, wall, tests) in sorted(
            _files.items(), key=lambda item: -(item[1][0] + item[1][1])):
        terminalreporter.write_line(
            f"cpu {own + children:6.1f} s = own {own:5.1f} + children {children:5.1f}; "
            f"wall {wall:5.1f} s; {tests:.0f} tests; {path}")
