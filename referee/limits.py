"""Limits that hold for a sandboxed bot as a whole: its memory, tasks and CPU rate, by cgroups.

Per-process rlimits (:func:`referee.process.limited`) bound each of a bot's processes
alone: a bot of 128 processes holds 128 times ``memory_mb``, and shared memory is not
counted at all. A cgroup bounds the sandbox whole, tmpfs pages included. Where the
referee may make cgroups is found once per process (:func:`hierarchy`):

* cgroup v2, in a subtree delegated to the referee: its own cgroup, with the memory,
  pids and cpu controllers available. v2 lets a cgroup hold processes or enable
  controllers for its children, not both, so the referee first moves itself into a
  leaf of its own (:data:`REFEREE_LEAF`) and makes the bots' cgroups beside it. That
  fails while other processes share its cgroup (a login shell's session): then
  ``systemd-run --user --scope -p Delegate=yes circus-referee ...`` gives it one of
  its own;
* cgroup v1, a hierarchy per controller, where only v1 has them (a controller bound
  to v1 is absent from v2, so each controller is taken from whichever has it);
* neither: the rlimits are the only bounds, and :func:`statement` says so.

``limits: {require: true}`` in a config turns a bound that cannot hold into a refusal
(:func:`refusal`).
"""

from __future__ import annotations

import errno
import os
import signal
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from referee.settings import LimitsConfig

#: What a bot's cgroup bounds: memory (with tmpfs and shared pages), tasks, CPU rate.
CONTROLLERS = ("memory", "pids", "cpu")
#: The referee's own leaf in a delegated v2 subtree, beside its bots' cgroups.
REFEREE_LEAF = "circus-referee"
V1_ROOT = Path("/sys/fs/cgroup")
CPU_PERIOD_US = 100_000
#: What each controller bounds, for people.
WHAT = {"memory": "memory", "pids": "tasks", "cpu": "CPU rate"}
#: How an organiser gives the referee a v2 subtree of its own.
DELEGATE = ("start the referee in a cgroup of its own that it may write (systemd-run --user "
            "--scope -p Delegate=yes circus-referee ...; in a container, a writable cgroup "
            "namespace of its own)")


@dataclass(frozen=True)
class Parent:
    """A folder in which the referee makes its bots' cgroups, and what they bound there."""

    folder: Path
    version: int
    controllers: tuple[str, ...]


@dataclass(frozen=True)
class Hierarchy:
    """Where this referee's bots' cgroups go, and why a controller is missing, if one is."""

    parents: tuple[Parent, ...] = ()
    # Why each controller not held is not, one sentence each.
    problems: tuple[str, ...] = ()

    @property
    def held(self) -> tuple[str, ...]:
        """The controllers a bot's cgroups here bound, in :data:`CONTROLLERS` order."""
        found = {name for parent in self.parents for name in parent.controllers}
        return tuple(name for name in CONTROLLERS if name in found)

    @property
    def versions(self) -> str:
        """"cgroup v1", "cgroup v2" or "cgroup v1 and v2", for people."""
        numbers = sorted({str(parent.version) for parent in self.parents})
        return f"cgroup v{' and v'.join(numbers)}"


def limit_files(version: int, controller: str, memory_mb: int | None, processes: int,
                cpus: float) -> list[tuple[str, str, bool]]:
    """The files a bot's cgroup of ``controller`` is given: (name, value, required). An
    optional one (swap, where the kernel accounts it) may be absent."""
    if controller == "memory":
        if not memory_mb:
            return []
        size = str(memory_mb * 1024 * 1024)
        if version == 2:
            return [("memory.max", size, True), ("memory.swap.max", "0", False)]
        return [("memory.limit_in_bytes", size, True),
                ("memory.memsw.limit_in_bytes", size, False)]
    if controller == "pids":
        return [("pids.max", str(processes), True)]
    quota = str(max(1000, int(cpus * CPU_PERIOD_US)))
    if version == 2:
        return [("cpu.max", f"{quota} {CPU_PERIOD_US}", True)]
    return [("cpu.cfs_period_us", str(CPU_PERIOD_US), True), ("cpu.cfs_quota_us", quota, True)]


def own_cgroups(text: str) -> dict[str, str]:
    """This process's cgroup per v1 controller, and its v2 cgroup under "" (from the
    text of ``/proc/self/cgroup``)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        number, controllers, path = line.split(":", 2)
        if number == "0" and not controllers:
            found[""] = path
        for name in controllers.split(","):
            if name:
                found[name] = path
    return found


def v2_mount(mountinfo: str) -> Path | None:
    """Where the cgroup v2 hierarchy is mounted (from ``/proc/self/mountinfo``), if it is
    and its root is this cgroup namespace's."""
    for line in mountinfo.splitlines():
        fields = line.split()
        separator = fields.index("-") if "-" in fields else -1
        if separator > 0 and fields[separator + 1] == "cgroup2" and fields[3] == "/":
            return Path(fields[4])
    return None


def v2_parent(mount: Path, own: str, pid: int) -> tuple[Parent | None, dict[str, str]]:
    """The delegated v2 folder the bots' cgroups go in (the referee moved into its leaf
    there first), and the problems that keep a controller out.

    A referee already in a :data:`REFEREE_LEAF` (moved by itself, or started by a referee
    that was) makes its bots' cgroups beside it.
    """
    folder = mount / own.lstrip("/")
    try:
        available = set((folder / "cgroup.controllers").read_text().split())
    except OSError:
        return None, {}
    wanted = [name for name in CONTROLLERS if name in available]
    problems = {name: f"cgroup v2 does not delegate {name} to the referee's cgroup {folder}"
                for name in CONTROLLERS if name not in available}
    if not wanted:
        return None, problems
    moved = folder.name != REFEREE_LEAF
    if not moved:
        folder = folder.parent
    else:
        try:
            _move(folder / REFEREE_LEAF, pid)
        except OSError as error:
            problem = (f"cgroup v2: the referee cannot move into a leaf of its cgroup {folder} "
                       f"({error.strerror or error}); {DELEGATE}")
            return None, problems | dict.fromkeys(wanted, problem)
    held = []
    for name in wanted:
        try:
            with open(folder / "cgroup.subtree_control", "w") as control:
                control.write(f"+{name}")
            held.append(name)
        except OSError as error:
            busy = " (it holds other processes)" if error.errno == errno.EBUSY else ""
            problems[name] = (f"cgroup v2: {name} cannot be enabled below {folder}{busy}: "
                              f"{error.strerror or error}; {DELEGATE}")
    if moved and not held:
        _move_back(folder, pid)
    return (Parent(folder, 2, tuple(held)) if held else None), problems


def _move(leaf: Path, pid: int) -> None:
    leaf.mkdir(exist_ok=True)
    (leaf / "cgroup.procs").write_text(str(pid))


def _move_back(folder: Path, pid: int) -> None:
    """Undo :func:`_move` where the move gained nothing: the referee back in its cgroup,
    its leaf removed (a cgroup with no process in it)."""
    try:
        (folder / "cgroup.procs").write_text(str(pid))
        (folder / REFEREE_LEAF).rmdir()
    except OSError:
        pass


def v1_parents(own: Mapping[str, str], root: Path, missing: list[str]) -> list[Parent]:
    """The referee's own v1 cgroup of each controller in ``missing`` mounted under
    ``root``."""
    parents = []
    for name in missing:
        if name in own:
            folder = root / name / own[name].lstrip("/")
            if folder.is_dir() and os.access(folder, os.W_OK):
                parents.append(Parent(folder, 1, (name,)))
    return parents


def discover(cgroup_text: str, mountinfo: str, pid: int, v1_root: Path = V1_ROOT) -> Hierarchy:
    """Where bots' cgroups go, for a process of ``pid`` whose ``/proc/self/cgroup`` and
    ``/proc/self/mountinfo`` read as given: v2 for every controller v2 has, v1 for the rest."""
    own = own_cgroups(cgroup_text)
    parents: list[Parent] = []
    problems: dict[str, str] = {}
    mount = v2_mount(mountinfo)
    if mount is not None and "" in own:
        parent, problems = v2_parent(mount, own[""], pid)
        parents += [parent] if parent else []
    missing = [name for name in CONTROLLERS
               if not any(name in parent.controllers for parent in parents)]
    parents += v1_parents(own, v1_root, missing)
    found = Hierarchy(tuple(parents))
    return Hierarchy(found.parents, tuple(_why_not(name, own, problems, v1_root)
                                          for name in CONTROLLERS if name not in found.held))


def _why_not(name: str, own: Mapping[str, str], problems: Mapping[str, str],
             v1_root: Path) -> str:
    """Why no bot's cgroup of controller ``name`` can be made: v2's failure, else v1's
    hierarchy the referee may not write, else v2's not delegating it, else nothing found."""
    if name in problems and not problems[name].startswith("cgroup v2 does not delegate"):
        return problems[name]
    if name in own and (v1_root / name).is_dir():
        return (f"cgroup v1: the referee may not write its {name} cgroup "
                f"{v1_root / name / own[name].lstrip('/')} (as root it may)")
    return problems.get(name, f"no {name} cgroup found (cgroup v1 as root, or a delegated "
                              "cgroup v2 subtree)")


_found: list[Hierarchy] = []
_found_lock = threading.Lock()


def hierarchy() -> Hierarchy:
    """This referee's :class:`Hierarchy`, found once (the v2 path moves the referee)."""
    with _found_lock:
        if not _found:
            try:
                cgroups, mounts = (Path(f"/proc/self/{name}").read_text()
                                   for name in ("cgroup", "mountinfo"))
            except OSError:
                cgroups = mounts = ""
            _found.append(discover(cgroups, mounts, os.getpid()))
        return _found[0]


def statement(limits: LimitsConfig, where: Hierarchy, why: bool = True) -> str:
    """One line for the organiser: which of a sandboxed bot's limits hold, and by what
    (and, with ``why``, why the first that does not is not held)."""
    whole = {"memory": f"memory {limits.memory_mb:,} MB", "pids": f"{limits.processes:,} tasks",
             "cpu": f"{limits.cpus:g} CPU"}
    floor = {"memory": f"memory {limits.memory_mb:,} MB per process only (RLIMIT_DATA)",
             "pids": f"{limits.processes:,} tasks (RLIMIT_NPROC)", "cpu": "CPU rate unbounded"}
    held = [whole[name] for name in where.held]
    parts = [f"{', '.join(held)} for the whole sandbox ({where.versions})"] if held else []
    rest = [floor[name] for name in CONTROLLERS if name not in where.held]
    parts += [", ".join(rest)] if rest else []
    line = f"limits of a sandboxed bot: {'; '.join(parts)}"
    return line + (f"; not held: {where.problems[0]}" if why and where.problems else "")


def refusal(limits: LimitsConfig, where: Hierarchy) -> str | None:
    """Why a config of ``limits.require`` may not run here (one line), or None."""
    unbounded = [WHAT[name] for name in CONTROLLERS if name not in where.held]
    if not limits.require or not unbounded:
        return None
    listed = ", ".join(unbounded[:-1]) + " and " * (len(unbounded) > 1) + unbounded[-1]
    return (f"limits.require: the {listed} of a bot's whole sandbox cannot "
            f"be bounded here ({where.problems[0]}); without limits.require the tournament "
            "runs with the per-process rlimits alone")


class Cgroup:
    """A bot run's cgroups: limits that hold for the whole sandbox.

    A memory cgroup charges shared mappings and tmpfs pages (``/dev/shm``,
    ``/tmp``) to the bot that touched them, and counts every child; ``pids.max``
    bounds tasks even when the bot's uid is root, which RLIMIT_NPROC does not.
    :attr:`held` names the controllers that bound this run (none where no cgroup
    can be made: then the rlimits of :mod:`referee.process` are the only bounds).
    """

    def __init__(self, name: str, memory_mb: int | None, processes: int, cpus: float,
                 where: Hierarchy | None = None) -> None:
        self.folders: list[Path] = []
        self.held: set[str] = set()
        for parent in (where or hierarchy()).parents:
            folder = parent.folder / name
            try:
                folder.mkdir()
            except OSError:
                continue
            self.folders.append(folder)
            self.held |= {controller for controller in parent.controllers
                          if _limited(folder, limit_files(parent.version, controller,
                                                          memory_mb, processes, cpus))}

    @property
    def enabled(self) -> bool:
        return bool(self.folders)

    @property
    def procs(self) -> list[Path]:
        """The ``cgroup.procs`` file of each of these cgroups (a pid written there joins)."""
        return [folder / "cgroup.procs" for folder in self.folders]

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` started inside these cgroups (a shell joins them, then execs)."""
        if not self.enabled:
            return argv
        join = 'for f; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; ' \
               'shift; exec "$@"'
        return ["/bin/sh", "-c", join, "sh", *map(str, self.procs), "--", *argv]

    def oom_kills(self) -> int:
        """How many of the run's processes the kernel killed for its memory limit."""
        for folder in self.folders:
            for name in ("memory.events", "memory.oom_control"):
                try:
                    lines = (folder / name).read_text().splitlines()
                except OSError:
                    continue
                for line in lines:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill" and value.strip().isdigit():
                        return int(value)
        return 0

    def remove(self, wait: float = 2.0) -> None:
        """Kill whatever is still in the cgroups, then remove them."""
        deadline = time.monotonic() + wait
        for folder in self.folders:
            while True:
                try:
                    pids = (folder / "cgroup.procs").read_text().split()
                    for pid in pids:
                        try:
                            os.kill(int(pid), signal.SIGKILL)
                        except ProcessLookupError:
                            pass
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.01)
        self.folders = []
        self.held = set()


def _limited(folder: Path, files: list[tuple[str, str, bool]]) -> bool:
    """Write ``files`` into the cgroup ``folder``; whether every required one took."""
    for name, value, required in files:
        path = folder / name
        if not required and not path.exists():
            continue
        try:
            path.write_text(value)
        except OSError:
            if required:
                return False
    return bool(files)
