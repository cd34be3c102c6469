"""The sandbox of a ``command:`` bot: bubblewrap namespaces, an allowlist view, cgroup limits.

Bots are written by people who want to win, so a bot must have no way around
the referee. Each sandboxed bot runs under ``bwrap`` in its own user, PID, IPC,
UTS, cgroup and network namespaces:

* it never runs as host root: a root referee starts it as an unprivileged host
  uid of its own, drawn at random and reserved (:func:`host_ids`), so even what
  the namespaces do not cover (``/proc/sys``, files readable by root) is checked
  as a nobody; its ``uid_map`` names bwrap's namespace, not the host
  (:func:`_nested_user_namespace`);
* it sees no other process (PID namespace; everything it starts dies with it:
  the command is the namespace's PID 1, so bwrap reaps it itself and no init
  is left orphaned when bwrap leaves), has no network but its own loopback,
  and no capability (an unprivileged uid inside its user namespace, which may
  create no further one);
* it sees an allowlist of the host, read-only: the system's program folders,
  ``/etc`` less its secrets, the interpreter and installed packages, its own
  files and the entry's ``mounts:`` (:func:`view`; the referee's private paths
  left out, their names too), with private size-bounded ``/tmp``, ``/dev/shm``,
  ``/var/tmp`` and ``/run`` (its socket folder and a fresh scratch folder among
  them); ``/proc``'s knobs read-only, the machine's counters in ``/proc``
  frozen (:mod:`referee.counters`), of ``/sys`` only which CPUs there are;
* a seccomp filter allows the system calls programs make and refuses the rest,
  among them those that reach kernel state other sandboxes share (keyrings, file
  locks and watches, sockets of other families) or widen its powers
  (:mod:`referee.seccomp`);
* it listens on a unix socket in its own tmpfs, which the referee opens through
  the sandbox's root without following any link (:func:`open_socket`);
* a cgroup per run bounds memory (shared memory and tmpfs pages included),
  the number of tasks and the CPU rate of the whole sandbox, when this machine
  lets the referee create cgroups (:mod:`referee.limits`).

The threat model, and which mechanism enforces which limit, is in
``docs/protocol.md`` ("Sandbox").
"""

from __future__ import annotations

import glob
import json
import os
import select
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from referee import counters, seccomp
from referee.host_ids import HostIds

SOCKET_DIR = "/run/circus"
SOCKET = f"{SOCKET_DIR}/bot.sock"
SCRATCH = "/run/scratch"
# Private, empty, size-bounded tmpfs in every sandbox: where programs write.
MASKED = ("/tmp", "/var/tmp", "/run", "/dev/shm")
# The host's system folders a program needs, read-only (a symlink stays a symlink).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
# Secrets in /etc no bot may read, whoever its uid (patterns). Their permissions keep
# them from a bot's uid, but for an unprivileged referee's groups, which its bots keep:
# one of them a bot could read is covered with an empty file or folder.
ETC_SECRETS = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
               "/etc/ssl/private", "/etc/ssh/ssh_host_*_key")
# /proc's writable knobs, bound read-only over the sandbox's own /proc.
PROC_READ_ONLY = ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus")
# /proc files that list every user's kernel objects (keys, their counts, file locks): empty.
PROC_HIDDEN = ("/proc/keys", "/proc/key-users", "/proc/locks")
# The devices in a sandbox's /dev (and /dev/shm, a tmpfs).
DEVICES = ("null", "zero", "full", "random", "urandom")
# The only part of /sys a bot sees: which CPUs there are (for thread pools), as files
# that do not move, and an empty folder per CPU (what glibc counts); not the CPUs' idle
# and frequency statistics, which move with every other bot's load.
SYS_CPUS = Path("/sys/devices/system/cpu")
SYS_CPU_FILES = ("online", "possible", "present", "offline", "kernel_max")
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

    ``folder`` is the bot's own ``dir:`` (seen whole); without one the bot sees
    of ``workdir`` only the files its command names. ``mounts`` are further
    host paths its entry grants, read-only. ``private`` lists the referee's
    paths no bot may see (the database, the logs, the config, other bots'
    ``dir:``): the ones inside a folder the bot is granted are covered.
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
    folder: Path | None = None
    mounts: tuple[Path, ...] = ()


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
    """Start one whole sandbox (view, seccomp filter, host uid) running ``true``."""
    if bwrap() is None:
        return "bubblewrap (bwrap) is not installed (scripts/setup installs it with apt-get)"
    if "--add-seccomp-fd" not in _bwrap_usage():
        return ("this bubblewrap is too old: the sandbox needs 0.5 or later (--add-seccomp-fd, "
                "--perms); install a newer one")
    try:
        seccomp.programs()
    except OSError as error:
        return (f"no seccomp filter can be built ({error}; scripts/install-bubblewrap "
                "installs libseccomp2, `pip install pyseccomp` its binding)")
    try:
        host = host_ids()
    except OSError as error:
        return f"a root referee cannot reserve a uid for its bots ({error})"
    try:
        missing = [tool for tool in ("setpriv", "unshare") if host and shutil.which(tool) is None]
        if missing:
            return (f"a root referee runs each bot as an unprivileged uid, which needs "
                    f"{' and '.join(missing)} (util-linux): install util-linux, or run the "
                    "referee as an unprivileged user")
        return _probe_run(host.ids if host else None)
    finally:
        if host is not None:
            host.release()


def _probe_run(ids: tuple[int, int] | None) -> str | None:
    """Why ``true`` fails in a sandbox as the host uid and gid ``ids``, or None."""
    with tempfile.TemporaryDirectory(prefix="circus-probe-", dir=staging_parent()) as stage:
        os.chmod(stage, 0o711)
        launch = Launch.of(["true"], Isolation(workdir=Path("/")), ids,
                           (Path(sys.base_prefix),), Path(stage))
        try:
            inner = [*as_user(ids), *launch.argv]
            result = subprocess.run(launch.command(inner) if launch.staged else inner,
                                    capture_output=True, text=True, timeout=10,
                                    pass_fds=launch.fds)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"bwrap cannot run ({error})"
        finally:
            launch.close(report=True)
    if result.returncode != 0:
        detail = (result.stderr.strip().splitlines() or ["no message"])[-1]
        where = f" as the unprivileged uid {ids[0]}" if ids else ""
        return f"bwrap cannot create namespaces{where} ({detail})"
    return None


def staging_parent() -> str:
    """Where the referee makes its folders for the sandboxes (staged files, socket links).

    The temporary folder, unless a bot's uid could not walk through it: a root referee
    drops each bot to an unprivileged uid, and its private TMPDIR (under a 0700 home,
    say) would shut that uid out of every staged path. Then ``/tmp``, which every uid
    walks; the folders made there are the referee's own, mode 0711, listing nothing.
    """
    chosen = tempfile.gettempdir()
    if os.geteuid() != 0 or _walkable_by_anyone(Path(chosen)):
        return chosen
    return "/tmp"


def _walkable_by_anyone(folder: Path) -> bool:
    """Whether every folder from the root down to ``folder`` lets any uid pass through."""
    try:
        return all(os.stat(part).st_mode & stat.S_IXOTH
                   for part in (folder.resolve(), *folder.resolve().parents))
    except OSError:
        return False


def ensure_available() -> None:
    """Raise :class:`SandboxUnavailable` (one line: why, and how to opt out) if needed."""
    reason = unavailable_reason()
    if reason is not None:
        raise SandboxUnavailable(f"the bot sandbox cannot start here: {reason}; {OPT_OUT}")


def as_user(ids: tuple[int, int] | None) -> list[str]:
    """The words that run a command as the host uid and gid ``ids`` with no other group
    (``setpriv``), or none for None."""
    if ids is None:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise OSError("setpriv (util-linux) is needed to run bots as an unprivileged uid")
    uid, gid = ids
    return [setpriv, "--reuid", str(uid), "--regid", str(gid), "--clear-groups"]


def host_ids() -> HostIds | None:
    """The unprivileged host uid and gid of a bot's next start, reserved for it, when the
    referee is root (:class:`referee.host_ids.HostIds`); None when it is not (the bot then
    runs as the referee's uid). Raises OSError when no uid can be reserved."""
    if os.geteuid() != 0:
        return None
    return HostIds.reserve()


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _system_visible(path: Path) -> bool:
    """Whether ``path`` is in the sandbox already, through a system folder."""
    return any(_under(path, Path(folder)) for folder in SYSTEM if not Path(folder).is_symlink())


#: The options whose value is a Java class path, a ``:``-separated list of jars and folders.
CLASS_PATH_OPTIONS = ("-cp", "-classpath", "--class-path")


def named_files(argv: list[str], workdir: Path) -> list[Path]:
    """The files a command names (a script, a binary, ``--flag=file``), as it names them;
    for a file in a subfolder of the working folder, that subfolder (the bot's own).

    Each word, and the part of a word after ``=``, that is an existing file
    (absolute, or relative to the working folder) counts: ``python bot.py``
    grants ``bot.py`` alone, ``node mybot/bot.js`` the folder ``mybot`` (with
    its ``node_modules``). Folders named as such do not count: a bot that
    needs one has a ``dir:`` or a ``mounts:`` entry; but each existing entry of a
    Java class path (``java -cp build/classes:lib/gson.jar Main``) counts, a folder too.
    """
    found = []
    for word, before in zip(argv, ["", *argv]):
        for candidate in {word, word.partition("=")[2]} - {""}:
            path = Path(os.path.normpath(workdir / candidate))
            if path.is_file():
                own_folder = path.parent != workdir and _under(path.parent, workdir)
                found.append(path.parent if own_folder else path)
        found += class_path(word, before, workdir)
    return found


def class_path(word: str, before: str, workdir: Path) -> list[Path]:
    """The existing entries of ``word`` if it is a class path (the value of ``before``, or
    of ``word``'s own ``--class-path=``), each absolute."""
    option, equals, value = word.partition("=")
    if before in CLASS_PATH_OPTIONS:
        value = word
    elif not (equals and option in CLASS_PATH_OPTIONS):
        return []
    entries = [Path(os.path.normpath(workdir / entry)) for entry in value.split(":") if entry]
    return [entry for entry in entries if entry.exists()]


def view(isolation: Isolation, argv: list[str], extra: tuple[Path, ...]) -> list[Path]:
    """The host paths a bot is granted beyond the system folders, each read-only.

    Its own ``dir:`` and the files its command names (not the rest of the
    folder it runs in); its entry's ``mounts:``; and ``extra`` (the
    interpreter, the installed packages).
    """
    workdir = (isolation.workdir or Path.cwd()).resolve()
    own = [*([isolation.folder.resolve()] if isolation.folder else []),
           *named_files(argv, workdir)]
    granted = [*own, *(p.resolve() for p in (*isolation.mounts, *extra))]
    kept = sorted({path for path in granted if path.exists() and not _system_visible(path)},
                  key=lambda path: (len(path.parts), str(path)))
    # A path inside another granted folder is seen through it.
    return [path for path in kept if not any(_under(path, other) and other != path
                                             for other in kept)]


# Run as root in a mount namespace of its own: join the bot's cgroups (each cgroup.procs
# up to "--"), bind each granted path the bot's uid may not walk to ("$1") at a staging
# path it may ("$2", pairs up to "--"), then exec the rest. One shell, for start-up time.
STAGE_SCRIPT = ('while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; '
                'while [ "$1" != -- ]; do mount --rbind "$1" "$2" || exit 125; shift 2; done; '
                'shift; exec "$@"')


def reachable_by_others(path: Path) -> bool:
    """Whether a uid of no group and owning nothing may walk to ``path`` and read it."""
    for folder in path.parents:
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return False
    mode = os.stat(path).st_mode
    return bool(mode & stat.S_IROTH and (not stat.S_ISDIR(mode) or mode & stat.S_IXOTH))


@dataclass
class Launch:
    """One sandbox's command line: its staging of paths, its ``bwrap``, and bwrap's fds.

    A bot of a root referee runs as an unprivileged uid (``ids``), and so does
    bwrap, which binds the granted paths by their names: a granted path that uid
    may not walk to (the interpreter under ``/root``, pytest's
    ``/tmp/pytest-of-root``) is first bound, in a mount namespace of the
    referee's that dies with the bot, at a path in ``stage`` (``staged``). No
    permission is widened: the bot reads only what the other-users bits allow.
    ``info`` is the read end of bwrap's report of the child's pid.
    """

    argv: list[str]
    fds: list[int] = field(default_factory=list)
    ids: tuple[int, int] | None = None
    info: int | None = None
    staged: list[tuple[Path, Path]] = field(default_factory=list)

    @classmethod
    def of(cls, argv: list[str], isolation: Isolation, ids: tuple[int, int] | None,
           extra: tuple[Path, ...] = (), stage: Path | None = None) -> Launch:
        launch = cls([], ids=ids)
        try:
            launch.argv = launch._bwrap(argv, isolation, extra, stage)
        except BaseException:
            launch.close(report=True)
            raise
        return launch

    def command(self, inner: list[str], joins: Sequence[Path] = ()) -> list[str]:
        """``inner`` (bwrap, wrapped as the caller needs) after the staging, which also
        joins the cgroups whose ``cgroup.procs`` files ``joins`` lists; only when staged."""
        assert self.staged
        pairs = [str(path) for pair in self.staged for path in pair]
        return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
                STAGE_SCRIPT, "sh", *map(str, joins), "--", *pairs, "--", *inner]

    def close(self, report: bool = False) -> None:
        """Close the descriptors handed to bwrap (ours; the child has its copies), and
        with ``report`` the read end of bwrap's report too (when no bwrap started)."""
        for fd in self.fds:
            os.close(fd)
        self.fds = []
        if report and self.info is not None:
            os.close(self.info)
            self.info = None

    def _source(self, path: Path, stage: Path | None) -> Path:
        """Where bwrap finds ``path`` (a named file may be a link): the file or folder
        itself, or a staging path its uid may walk to."""
        path = path.resolve()
        if self.ids is None or stage is None or reachable_by_others(path):
            return path
        staged = stage / str(len(self.staged))
        if path.is_dir():
            staged.mkdir(mode=0o711)
        else:
            staged.touch(mode=0o644)
        self.staged.append((path, staged))
        return staged

    def _shown(self, path: Path, hidden: list[Path], stage: Path | None) -> list[str]:
        """bwrap arguments showing the granted ``path`` read-only without the ``hidden``
        paths in it, and with no mount named after one: ``path`` whole when none is in it,
        else an empty folder in which each other entry is shown (a folder on the way to
        a hidden path in turn), so its mount table lists only what the bot sees."""
        inside = [hide for hide in hidden if _under(hide, path)]
        if not inside:
            return ["--ro-bind", str(self._source(path, stage)), str(path)]
        if path in inside:
            return []
        args = ["--tmpfs", str(path)]
        for entry in sorted(os.scandir(path), key=lambda entry: entry.name):
            if entry.is_symlink():
                args += ["--symlink", os.readlink(entry.path), entry.path]
            else:
                args += self._shown(Path(entry.path), inside, stage)
        return [*args, "--remount-ro", str(path)]

    def _frozen_counters(self) -> list[str]:
        """bwrap arguments showing the machine's counters in /proc frozen (read-only
        copies in the sandbox's own files: its mount table names no host path for them)."""
        args = []
        for name, data in counters.snapshot().items():
            args += ["--perms", "0444", "--ro-bind-data", self._file_with(data), f"/proc/{name}"]
        return args

    def _file_with(self, data: bytes) -> str:
        """A descriptor bwrap reads ``data`` from, of any size (a pipe holds 64 KiB, and
        bwrap reads only once it runs)."""
        fd = os.memfd_create("circus-data", os.MFD_CLOEXEC)
        self.fds.append(fd)
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
        return str(fd)

    def _pipe_with(self, data: bytes) -> str:
        read, write = os.pipe()
        self.fds.append(read)
        with os.fdopen(write, "wb") as out:
            out.write(data)
        return str(read)

    def _bwrap(self, argv: list[str], isolation: Isolation, extra: tuple[Path, ...],
               stage: Path | None) -> list[str]:
        workdir = (isolation.workdir or Path.cwd()).resolve()
        info, report = os.pipe()
        self.info = info
        self.fds.append(report)
        args = [bwrap() or "bwrap", *NAMESPACES, *_nested_user_namespace(),
                "--die-with-parent", "--as-pid-1", "--uid", SANDBOX_ID, "--gid", SANDBOX_ID,
                "--info-fd", str(report)]
        args += _system_args()
        args += self._frozen_counters()
        size = str(isolation.tmp_mb * 1024 * 1024)
        for folder in MASKED:
            args += ["--size", size, "--tmpfs", folder]
        args += ["--dir", SOCKET_DIR, "--dir", SCRATCH]
        granted = view(isolation, argv, extra)
        # A working folder not granted whole (the config's folder of a bot without dir:)
        # is an empty read-only one, in which the files the command names appear.
        bare = workdir != Path("/") and not any(_under(workdir, path) for path in granted)
        if bare:
            args += ["--size", str(1024 * 1024), "--tmpfs", str(workdir)]
        own = isolation.folder.resolve() if isolation.folder else None
        hidden = _hidden(isolation.private, granted, own)
        for path in granted:
            args += self._shown(path, hidden, stage)
        if bare:
            args += _links_into_view(workdir, granted)
        # The folders bwrap made (/, /dev, the granted paths' parents) become read-only.
        args += ["--remount-ro", str(workdir)] if bare else []
        args += ["--remount-ro", "/dev", "--remount-ro", "/"]
        for program in seccomp.programs():
            args += ["--add-seccomp-fd", self._pipe_with(program)]
        return [*args, "--chdir", str(workdir), "--", *argv]

    def child_pid(self, timeout: float = 10.0) -> int | None:
        """The sandboxed command's host pid, as bwrap reports it (None if it failed or
        said nothing within ``timeout`` seconds)."""
        if self.info is None:
            return None
        chunks = []
        deadline = time.monotonic() + timeout
        with os.fdopen(self.info, "rb", buffering=0) as report:
            self.info = None
            # poll, not select: a referee with many bots has descriptors past select's 1024.
            readable = select.poll()
            readable.register(report, select.POLLIN)
            while readable.poll(max(0.0, deadline - time.monotonic()) * 1000):
                chunk = report.read(4096)
                if not chunk:
                    break
                chunks.append(chunk)
        try:
            return int(json.loads(b"".join(chunks))["child-pid"])
        except (ValueError, KeyError, TypeError):
            return None


_usage: list[str] = []


def _bwrap_usage() -> str:
    """bwrap's list of its options (read once), to know which this version has."""
    if not _usage:
        try:
            _usage.append(subprocess.run([bwrap() or "bwrap", "--help"], capture_output=True,
                                         text=True, timeout=10).stdout)
        except (OSError, subprocess.TimeoutExpired):
            _usage.append("")
    return _usage[0]


def _nested_user_namespace() -> list[str]:
    """``--disable-userns`` where this bwrap has it (0.8 and later), or nothing.

    bwrap then makes the bot's user namespace inside one of its own, in which
    it sets the limit of further user namespaces to none: the bot's
    ``/proc/self/uid_map`` names its uid in that namespace, not its host uid,
    and no nested namespace can be made even by a call the filter let through.
    """
    return ["--disable-userns"] if "--disable-userns" in _bwrap_usage() else []


_system: list[list[str]] = []


def _system_args() -> list[str]:
    """The system folders, /etc's secrets covered, /proc and /dev, /sys's CPUs (built once)."""
    if not _system:
        args: list[str] = []
        for folder in SYSTEM:
            path = Path(folder)
            if path.is_symlink():
                args += ["--symlink", os.readlink(path), folder]
            elif path.is_dir():
                args += ["--ro-bind", folder, folder]
        args += _covered(_open_to_bots(ETC_SECRETS))
        args += ["--proc", "/proc", *_dev_args()]
        args += [arg for knob in PROC_READ_ONLY if Path(knob).exists()
                 for arg in ("--ro-bind", knob, knob)]
        args += _covered(PROC_HIDDEN)
        args += _cpu_args()
        _system.append(args)
    return list(_system[0])


def _cpu_args() -> list[str]:
    """The CPUs' static files of /sys, and a folder per CPU (see :data:`SYS_CPUS`)."""
    if not SYS_CPUS.is_dir():
        return []
    args: list[str] = []
    for name in SYS_CPU_FILES:
        if (SYS_CPUS / name).is_file():
            args += ["--ro-bind", str(SYS_CPUS / name), str(SYS_CPUS / name)]
    for cpu in sorted(SYS_CPUS.glob("cpu[0-9]*")):
        args += ["--dir", str(cpu)]
    return args


def _dev_args() -> list[str]:
    """A /dev of the plain devices and no terminal (bwrap's ``--dev`` would add
    pseudo-terminals, whose count, ``kernel.pty.nr``, is the machine's)."""
    args = ["--size", str(1024 * 1024), "--tmpfs", "/dev"]
    for device in DEVICES:
        args += ["--dev-bind", f"/dev/{device}", f"/dev/{device}"]
    for number, name in enumerate(("stdin", "stdout", "stderr")):
        args += ["--symlink", f"/proc/self/fd/{number}", f"/dev/{name}"]
    return [*args, "--symlink", "/proc/self/fd", "/dev/fd"]


def _open_to_bots(patterns: tuple[str, ...]) -> tuple[str, ...]:
    """The paths matching ``patterns`` that a bot's uid could read or enter: a root
    referee's bots have their own uid and no group, an unprivileged referee's its uid
    and groups. Only these are covered: a mount names its path in the bot's
    ``/proc/self/mountinfo``, so what its permissions hide already is left as it is."""
    found = sorted(path for pattern in patterns for path in glob.glob(pattern))
    if os.geteuid() == 0:
        return tuple(path for path in found
                     if os.stat(path).st_mode & (stat.S_IROTH | stat.S_IXOTH))
    return tuple(path for path in found if os.access(path, os.R_OK) or os.access(path, os.X_OK))


def _covered(paths: tuple[str, ...]) -> list[str]:
    """bwrap arguments covering each existing path: an empty folder, or /dev/null."""
    args: list[str] = []
    for path in map(Path, paths):
        if path.is_dir() and not path.is_symlink():
            args += ["--tmpfs", str(path)]
        elif path.exists():
            args += ["--ro-bind", "/dev/null", str(path)]
    return args


def _links_into_view(folder: Path, granted: list[Path]) -> list[str]:
    """bwrap arguments for the symlinks in ``folder`` that lead into the view (a granted
    path, a folder on the way to one, a system folder): a folder of links to a project
    (``proto -> /src/project/proto``) works as the project does. Other entries stay unseen."""
    args: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return args
    for entry in entries:
        if not entry.is_symlink():
            continue
        target = Path(entry.path).resolve()
        if _system_visible(target) or any(_under(target, path) or _under(path, target)
                                          for path in granted):
            args += ["--symlink", os.readlink(entry.path), entry.path]
    return args


def _hidden(private: tuple[Path, ...], granted: list[Path], own: Path | None) -> list[Path]:
    """The private paths to leave out: those that exist in the view (inside a granted path, or
    granted themselves: a command may name the config or the database), and hold no other
    granted path. ``own``, the bot's own ``dir:``, is never left out for it."""
    hidden = []
    for path in sorted({p.resolve() for p in private} - {own}):
        if not path.exists() or not any(_under(path, root) for root in granted):
            continue
        if any(_under(root, path) and root != path for root in granted):
            continue
        hidden.append(path)
    return hidden


def open_socket(child: int, owner: int) -> int | None:
    """An ``O_PATH`` descriptor of the bot's socket, reached through its sandbox's root.

    Each step is opened without following a link, so a bot that puts a symlink
    in place of its socket (or of ``/run/circus``) leads the referee nowhere;
    the socket must be a socket of the bot's uid ``owner``. None while there is
    none yet (or bwrap has not yet moved into the sandbox's root).
    """
    try:
        folder = os.open(f"/proc/{child}/root", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if os.path.samestat(os.fstat(folder), os.stat("/")):
            return None
        for part in (*Path(SOCKET_DIR).parts[1:], Path(SOCKET).name):
            flags = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC
            step = os.open(part, flags | (0 if part == Path(SOCKET).name else os.O_DIRECTORY),
                           dir_fd=folder)
            os.close(folder)
            folder = step
        found = os.fstat(folder)
        if stat.S_ISSOCK(found.st_mode) and found.st_uid == owner:
            sock, folder = folder, -1
            return sock
        return None
    except OSError:
        return None
    finally:
        if folder >= 0:
            os.close(folder)


def environment(address: str | None, isolation: Isolation, path: str) -> dict[str, str]:
    """A clean environment: PATH, HOME, LANG, the entry's ``env:``, then CIRCUS_* (a
    stdio bot, of no ``address``, has no CIRCUS_BOT_ADDRESS).

    Nothing else is inherited from the referee: its environment may hold
    secrets, and it tells a bot where the referee keeps its files.
    """
    env = {"PATH": path, "HOME": SCRATCH, "LANG": os.environ.get("LANG", "C.UTF-8")}
    env.update(dict(isolation.env))
    if address is not None:
        env["CIRCUS_BOT_ADDRESS"] = address
    env["CIRCUS_BOT_SCRATCH"] = SCRATCH
    return env
