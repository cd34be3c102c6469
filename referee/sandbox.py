"""The sandbox of a ``command:`` bot: bubblewrap namespaces, a filtered view, cgroup limits.

Bots are written by people who want to win, so a bot must have no way around
the referee. Each sandboxed bot runs under ``bwrap`` in its own user, PID, IPC,
UTS, cgroup and network namespaces:

* it sees no other process (PID namespace; everything it starts dies with it:
  the command is the namespace's PID 1, so bwrap reaps it itself and no init
  is left orphaned when bwrap leaves),
  has no network but its own loopback, and no capability (an unprivileged uid
  inside its user namespace, so it cannot undo a mount);
* it sees the host read-only, with private size-bounded ``/tmp``, ``/dev/shm``,
  ``/var/tmp`` and ``/run`` (so no host socket in them is reachable), the
  referee's private paths hidden, and a fresh scratch folder each start;
* it talks to the referee over one unix socket, in a folder of its own bound at
  ``/run/circus``;
* a cgroup per run bounds memory (shared memory and tmpfs pages included),
  the number of tasks and the CPU rate of the whole sandbox, when this machine
  lets the referee create cgroups (:class:`Cgroup`).

The threat model, and which mechanism enforces which limit, is in
``docs/protocol.md`` ("Sandbox").
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

SOCKET_DIR = "/run/circus"
SOCKET = f"{SOCKET_DIR}/bot.sock"
SCRATCH = "/run/scratch"
# Host folders replaced by private, empty, size-bounded tmpfs in every sandbox:
# they hold other processes' sockets and files, and the referee's own runtime.
MASKED = ("/tmp", "/var/tmp", "/run", "/dev/shm")
NAMESPACES = ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-net",
              "--unshare-uts", "--unshare-cgroup-try"]
# The uid and gid inside the user namespace. Not 0: uid 0 would keep every
# capability there, enough to unmount what hides the referee's private paths.
SANDBOX_ID = "65534"
OPT_OUT = ("set `sandbox: false` in the config (or give check-bot --no-sandbox) to run the "
           "bots unsandboxed")


class SandboxUnavailable(OSError):
    """Namespaces cannot be created here; the message says why and how to opt out."""


@dataclass(frozen=True)
class Isolation:
    """How one ``command:`` bot is started: sandboxed or not, what it sees, what bounds it.

    ``private`` lists the referee's paths no bot may see (the database and its
    folder, the logs folder, the config, other bots' ``dir:``); the ones that
    exist are hidden, except a folder holding the bot's own working directory.
    """

    sandbox: bool = True
    workdir: Path | None = None
    env: tuple[tuple[str, str], ...] = ()
    private: tuple[Path, ...] = ()
    processes: int = 128
    open_files: int = 1024
    log_bytes: int = 16 * 1024 * 1024
    tmp_mb: int = 64
    cpus: float = 1.0
    visible: tuple[Path, ...] = ()


_probe_lock = threading.Lock()
_probe: dict[str, str | None] = {}


def bwrap() -> str | None:
    return shutil.which("bwrap")


def unavailable_reason() -> str | None:
    """Why no sandbox can be made on this machine, or None if it can (probed once)."""
    with _probe_lock:
        if "reason" not in _probe:
            _probe["reason"] = _probe_sandbox()
        return _probe["reason"]


def _probe_sandbox() -> str | None:
    path = bwrap()
    if path is None:
        return "bubblewrap (bwrap) is not installed (scripts/setup installs it with apt-get)"
    try:
        result = subprocess.run([path, *NAMESPACES, "--uid", SANDBOX_ID, "--gid", SANDBOX_ID,
                                 "--ro-bind", "/", "/", "--proc", "/proc", "true"],
                                capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap cannot run ({error})"
    if result.returncode != 0:
        detail = (result.stderr.strip().splitlines() or ["no message"])[-1]
        return f"bwrap cannot create namespaces ({detail})"
    return None


def ensure_available() -> None:
    """Raise :class:`SandboxUnavailable` (one line: why, and how to opt out) if needed."""
    reason = unavailable_reason()
    if reason is not None:
        raise SandboxUnavailable(f"the bot sandbox cannot start here: {reason}; {OPT_OUT}")


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _seen(path: Path, visible: list[Path]) -> bool:
    """Whether ``path`` is in the sandbox's view (not under a masked folder, or re-bound)."""
    masked = any(_under(path, Path(m)) for m in MASKED)
    return not masked or any(_under(path, root) for root in visible)


def bwrap_argv(argv: list[str], socket_dir: Path, isolation: Isolation,
               runtime_root: Path) -> list[str]:
    """The ``bwrap`` command line that runs ``argv`` in the bot's sandbox."""
    workdir = (isolation.workdir or Path.cwd()).resolve()
    visible = sorted({workdir, *(p.resolve() for p in isolation.visible)})
    size = str(isolation.tmp_mb * 1024 * 1024)
    args = [bwrap() or "bwrap", *NAMESPACES, "--die-with-parent", "--as-pid-1",
            "--uid", SANDBOX_ID, "--gid", SANDBOX_ID,
            "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for folder in MASKED:
        args += ["--size", size, "--tmpfs", folder]
    # Folders a bot needs (its working folder, the interpreter) that a mask covered.
    for root in visible:
        if not _seen(root, []) and root.is_dir():
            args += ["--ro-bind", str(root), str(root)]
    for path in _hidden(isolation.private, workdir, visible, runtime_root):
        args += (["--tmpfs", str(path)] if path.is_dir()
                 else ["--ro-bind", "/dev/null", str(path)])
    args += ["--bind", str(socket_dir), SOCKET_DIR, "--dir", SCRATCH,
             "--chdir", str(workdir), "--", *argv]
    return args


def _hidden(private: tuple[Path, ...], workdir: Path, visible: list[Path],
            runtime_root: Path) -> list[Path]:
    """The private paths to cover: those that exist, are in view, and hold no visible root."""
    hidden = []
    for path in sorted({p.resolve() for p in private} | {runtime_root.resolve()}):
        if not path.exists() or not _seen(path, visible):
            continue
        if any(_under(root, path) for root in [workdir, *visible]):
            continue
        hidden.append(path)
    return hidden


def environment(address: str, isolation: Isolation, path: str) -> dict[str, str]:
    """A clean environment: PATH, HOME, LANG, the entry's ``env:``, then CIRCUS_*.

    Nothing else is inherited from the referee: its environment may hold
    secrets, and it tells a bot where the referee keeps its files.
    """
    env = {"PATH": path, "HOME": SCRATCH, "LANG": os.environ.get("LANG", "C.UTF-8")}
    env.update(dict(isolation.env))
    env.update(CIRCUS_BOT_ADDRESS=address, CIRCUS_BOT_SCRATCH=SCRATCH)
    return env


def _own_cgroup(controller: str) -> Path | None:
    """This process's cgroup folder of a v1 controller, if it is mounted."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            folder = Path("/sys/fs/cgroup") / controller / path.lstrip("/")
            return folder if folder.is_dir() else None
    return None


class Cgroup:
    """A bot run's cgroups (v1 memory, pids, cpu): limits that hold for the whole sandbox.

    A memory cgroup charges shared mappings and tmpfs pages (``/dev/shm``,
    ``/tmp``) to the bot that touched them, and counts every child; ``pids.max``
    bounds tasks even when the bot's uid is root, which RLIMIT_NPROC does not.
    :attr:`enabled` is False when the cgroups cannot be created (then the
    rlimits of :mod:`referee.process` are the only bounds).
    """

    def __init__(self, name: str, memory_mb: int | None, processes: int, cpus: float) -> None:
        self.folders: list[Path] = []
        settings = {
            "memory": [("memory.limit_in_bytes", memory_mb and memory_mb * 1024 * 1024),
                       ("memory.memsw.limit_in_bytes", memory_mb and memory_mb * 1024 * 1024)],
            "pids": [("pids.max", processes)],
            "cpu": [("cpu.cfs_period_us", 100_000), ("cpu.cfs_quota_us", int(cpus * 100_000))],
        }
        try:
            for controller, values in settings.items():
                parent = _own_cgroup(controller)
                if parent is None:
                    raise OSError(f"no {controller} cgroup")
                folder = parent / name
                folder.mkdir()
                self.folders.append(folder)
                for key, value in values:
                    if value and (folder / key).exists():
                        (folder / key).write_text(str(value))
        except OSError:
            self.remove()

    @property
    def enabled(self) -> bool:
        return bool(self.folders)

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` started inside these cgroups (a shell joins them, then execs)."""
        if not self.enabled:
            return argv
        join = 'for f; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; ' \
               'shift; exec "$@"'
        return ["/bin/sh", "-c", join, "sh", *(str(f / "cgroup.procs") for f in self.folders),
                "--", *argv]

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
