"""A watchman that kills every bot process group when the referee dies, however it dies.

``setpriv --pdeathsig`` kills a bot's first process with the referee, but not
what that process started: a bot run through a shell wrapper (``sh run.sh``)
leaves its real process behind. So one small helper process per referee reads
the process groups to watch from a pipe; the pipe's end of file comes when
the referee exits or is killed (even by SIGKILL), and the helper then kills
every group still on its list.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import IO

# The helper: "+PGID" to watch a group, "-PGID" to forget it; at end of file, kill
# what is left. It ignores Ctrl-C (the terminal's signal is for the referee) and
# runs in a session of its own.
HELPER = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
groups = set()
for line in sys.stdin:
    (groups.add if line[0] == "+" else groups.discard)(int(line[1:]))
for group in groups:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
"""

_pipe: IO[str] | None = None
_lock = threading.Lock()


def _tell(line: str) -> None:
    global _pipe
    with _lock:
        if _pipe is None:
            helper = subprocess.Popen([sys.executable, "-c", HELPER], stdin=subprocess.PIPE,
                                      stdout=subprocess.DEVNULL, start_new_session=True,
                                      text=True)
            _pipe = helper.stdin
        assert _pipe is not None  # made with stdin=PIPE
        try:
            _pipe.write(line + "\n")
            _pipe.flush()
        except OSError:  # the helper is gone: setpriv still covers each bot's first process
            pass


def watch(pgid: int) -> None:
    """Kill this process group if the referee dies before :func:`forget`."""
    _tell(f"+{pgid}")


def forget(pgid: int) -> None:
    """The group was stopped: never kill it later (its id may be reused)."""
    _tell(f"-{pgid}")
