"""The machine's counters as a sandboxed bot sees them: frozen when the referee starts.

``/proc/loadavg``, ``/proc/stat``, ``/proc/sys/fs/file-nr`` and their kind count
the whole machine, whatever namespace reads them: one bot forking, opening files
or spinning moves what another bot reads, a channel between two bots of one
author. Each sandbox is shown instead, as LXCFS shows a container, a copy of
these files taken once by the referee (:func:`snapshot`): what a program reads
there to size itself (``MemTotal``, the CPUs of ``/proc/stat`` and
``/proc/cpuinfo``, ``btime``) is the machine's, and nothing in them moves while
the referee runs. The ``sysinfo`` system call, which counts the same, is
refused (:mod:`referee.seccomp`).
"""

from __future__ import annotations

import stat
import threading
from pathlib import Path

# The files under /proc shown frozen: load, processes, CPU time and speed, memory,
# interrupts, disk and pressure statistics, and the kernel's counts of cgroups (one more
# for each bot start), files, inodes, directory entries and ptys.
FROZEN = ("loadavg", "stat", "meminfo", "uptime", "cpuinfo", "vmstat", "zoneinfo",
          "buddyinfo", "diskstats", "interrupts", "softirqs", "schedstat", "cgroups",
          "pressure/cpu", "pressure/memory", "pressure/io",
          "sys/fs/file-nr", "sys/fs/inode-nr", "sys/fs/inode-state", "sys/fs/dentry-state",
          "sys/fs/aio-nr", "sys/kernel/pty/nr", "sys/kernel/random/entropy_avail")

_lock = threading.Lock()
_snapshot: list[dict[str, bytes]] = []


def snapshot() -> dict[str, bytes]:
    """Each frozen file's path under /proc and its contents, read once per referee.

    A file this kernel has not is left out, and so is one that not every user may
    read: a bot reads the sandbox's own, as its uid may (not at all, for a root-only
    file), rather than a root referee's copy of it.
    """
    with _lock:
        if not _snapshot:
            _snapshot.append(_read(Path("/proc")))
        return _snapshot[0]


def _read(proc: Path) -> dict[str, bytes]:
    found = {}
    for name in FROZEN:
        try:
            if (proc / name).stat().st_mode & stat.S_IROTH:
                found[name] = (proc / name).read_bytes()
        except OSError:
            continue
    return found
