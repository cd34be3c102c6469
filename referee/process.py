"""Starting and stopping ``command:`` bots as isolated child processes.

By default a bot runs in the sandbox of :mod:`referee.sandbox` (as an
unprivileged host uid of its own when the referee is root) and listens on a
unix socket in its own tmpfs, given to it in place of ``{address}`` and as
``CIRCUS_BOT_ADDRESS``; the referee reaches it through a link it makes once it
has found that socket without following any link (:class:`SocketLink`). With
``sandbox: false`` it runs as before: a loopback port in place of ``{port}``
(and ``{address}``) and in ``CIRCUS_BOT_PORT``.
Either way it runs in its own process group, with stdin closed, its output
copied to its own log file up to a cap, each line tagged with the run it came
from (past the cap drained at the bot's cost, not read by the referee),
resource limits set by ``prlimit``,
and a parent-death signal so that it cannot outlive the referee. A bot on the
stdio transport (``stdio``) has no socket: the referee holds its stdin and
stdout (:mod:`referee.stdio`), and its log gets its stderr.
"""

from __future__ import annotations

import atexit
import collections
import io
import mmap
import os
import queue
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from pathlib import Path
from typing import IO, Any, Callable

from referee import reaper, sandbox
from referee.limits import Cgroup
from referee.sandbox import Isolation
from referee.text import printable

PROJECT_ROOT = Path(__file__).resolve().parent.parent

#: Ports :func:`free_port` handed out lately, never handed out again while they are here.
_RECENT_PORTS: collections.deque[int] = collections.deque(maxlen=1024)
_PORTS_LOCK = threading.Lock()


def free_port() -> int:
    """A loopback port that was free a moment ago, and not one handed out lately.

    The kernel may give a released port to the next ``bind(0)`` at once, so two bots
    started together could get the same port; gRPC servers bind with
    ``SO_REUSEPORT``, so both would listen on it and the kernel would split the
    referee's connections between them (one bot's crash was seen as another's).
    """
    with _PORTS_LOCK:
        while True:
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            if port not in _RECENT_PORTS:
                _RECENT_PORTS.append(port)
                return port


def bot_environment(port: int) -> dict[str, str]:
    """The bot's environment: ours, its port, and our interpreter first on PATH.

    Putting this interpreter's directory first makes ``python -m bots.x`` in a
    config run with the same virtual environment as the referee.
    """
    env = dict(os.environ)
    env["CIRCUS_BOT_PORT"] = str(port)
    env["PATH"] = bot_path()
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


#: What every JVM a bot starts is told besides its memory: no performance-data file (it
#: needs a file lock the sandbox refuses, and the JVM then warns) and its warnings on
#: stderr, the bot's log: a JVM writes them to stdout, a stdio bot's replies.
JVM_OPTIONS = "-XX:-UsePerfData -Xlog:disable -Xlog:all=warning:stderr"


def runtime_defaults(memory_mb: int | None) -> dict[str, str]:
    """The bot's memory limit as the runtimes that size themselves from the machine read it.
    A container shows them its cgroup; the limits here (an rlimit, a cgroup the sandbox
    does not show) they do not see, and a JVM sizes its heap from the host's memory and
    does not start. So the JVM is told through ``JAVA_TOOL_OPTIONS`` (``MaxRAM``: it sizes
    its heap from the limit, half of it at 128 MB; and :data:`JVM_OPTIONS`) and Go's
    collector through ``GOMEMLIMIT`` (a tenth of the limit left for the rest). An entry's
    ``env:`` overrides both."""
    if not memory_mb:
        return {"JAVA_TOOL_OPTIONS": JVM_OPTIONS}
    return {"JAVA_TOOL_OPTIONS": f"-XX:MaxRAM={memory_mb}m {JVM_OPTIONS}",
            "GOMEMLIMIT": f"{memory_mb * 9 // 10}MiB"}


def bot_path() -> str:
    """Our PATH with this interpreter's folder first."""
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


class _Spawner:
    """Starts child processes from one long-lived thread.

    Children are started under ``setpriv --pdeathsig KILL``, so a bot dies
    with the referee even when the referee is killed with SIGKILL and cannot
    clean up. The kernel sends that signal when the *thread* that forked the
    child ends, so every child is forked from this one thread, which lives as
    long as the process.
    """

    def __init__(self) -> None:
        self.requests: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=self._serve, name="bot-spawner", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            args, kwargs, reply = self.requests.get()
            try:
                reply.put((subprocess.Popen(*args, **kwargs), None))
            except OSError as error:
                reply.put((None, error))

    def popen(self, *args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        reply: queue.Queue = queue.Queue(maxsize=1)
        self.requests.put((args, kwargs, reply))
        process, error = reply.get()
        if error is not None:
            raise error
        return process


_spawner: _Spawner | None = None
_spawner_lock = threading.Lock()


def spawn(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = _Spawner()
    return _spawner.popen(*args, **kwargs)


#: Run by the child once its death signal is set: if the referee (``$0``) is no longer
#: its parent, the referee died between the fork and the signal being set, and no signal
#: will come, so the child ends instead of running on as an orphan.
ORPHAN_GUARD = 'test "$PPID" = "$0" || exit 1; exec "$@"'


def dies_with_referee(argv: list[str], ids: tuple[int, int] | None = None) -> list[str]:
    """``argv`` under ``setpriv --pdeathsig KILL``, guarded against the referee dying
    before the signal is set (``ORPHAN_GUARD``); as the host uid and gid ``ids`` if given.

    A change of uid clears the death signal, so the same ``setpriv`` changes the
    uid first and sets the signal after.
    """
    user = sandbox.as_user(ids)
    setpriv = user[0] if user else shutil.which("setpriv")
    if setpriv is None:
        return argv
    return [setpriv, *user[1:], "--pdeathsig", "KILL", "--", "/bin/sh", "-c", ORPHAN_GUARD,
            str(os.getpid()), *argv]


def limited(argv: list[str], memory_mb: int | None, cpu_seconds: int | None,
            open_files: int | None = None, processes: int | None = None) -> list[str]:
    """Wrap ``argv`` in ``prlimit`` for memory, CPU-time, open-file and process limits.

    Memory is limited by the data segment (RLIMIT_DATA: heap and private
    writable mappings), not the address space: runtimes such as V8 and glibc's
    per-thread arenas reserve gigabytes of address space they never use.
    RLIMIT_NPROC (``processes``) binds only a non-root uid: a cgroup's
    ``pids.max`` is the bound that holds for root too.
    """
    limits = []
    if memory_mb:
        limits.append(f"--data={memory_mb * 1024 * 1024}")
    if cpu_seconds:
        limits.append(f"--cpu={cpu_seconds}")
    if open_files:
        limits.append(f"--nofile={open_files}")
    if processes:
        limits.append(f"--nproc={processes}")
    prlimit = shutil.which("prlimit")
    if not limits or prlimit is None:
        return argv
    return [prlimit, *limits, "--", *argv]


_runtime: list[Path] = []
_runtime_lock = threading.Lock()


def runtime_root() -> Path:
    """This referee's folder for the links to the bots' sockets (mode 0711); no sandbox sees it."""
    with _runtime_lock:
        if not _runtime:
            _runtime.append(Path(tempfile.mkdtemp(prefix="circus-referee-",
                                                  dir=sandbox.staging_parent())))
            _runtime[0].chmod(0o711)  # a bot's uid walks to its staged paths, lists nothing
            atexit.register(shutil.rmtree, _runtime[0], True)
        return _runtime[0]


#: A line of a bot's output longer than this is cut here: the rest starts a new line.
LONGEST_LINE = 65536
#: How long :meth:`BotProcess.stop` waits for the stopped run's last output to reach its
#: log. The copy ends at the output's end of file, at once when the run's processes are
#: gone; only one that escaped the bot's process group, holding the output open, makes
#: stop wait this long.
LAST_WORDS_S = 5.0
#: A run's header in its bot's log: ``=== run N of NAME: COMMAND (WHERE, TIME)``.
RUN_HEADER = re.compile(rb"=== run (\d+) of ")

#: Held while a run's number is read from its log and its header written: two
#: processes of one bot (a renewal, a restart) starting at once get two numbers.
_run_headers_lock = threading.Lock()
#: Held while a bot's output is appended to its log: the processes of a stdio bot write
#: one log at once, and its cap is theirs together, measured by the log's size.
_log_writes_lock = threading.Lock()


def last_run_in(log_path: Path) -> int:
    """The number of the last run a log has a header of, 0 for none (or no log).

    The log is the count: renewals and restarts start processes of one bot, each a
    :class:`BotProcess` of its own, and a resumed tournament appends to the same log,
    so no two runs in a log share a number. Searched from the end, where the last
    header is near. Only the referee writes a line that starts with ``===``: every
    line of a bot's own output starts with its run's tag.
    """
    try:
        with open(log_path, "rb") as log:
            if os.fstat(log.fileno()).st_size == 0:
                return 0
            with mmap.mmap(log.fileno(), 0, access=mmap.ACCESS_READ) as text:
                header = RUN_HEADER.match(text, text.rfind(b"\n=== run ") + 1)
                return int(header.group(1)) if header else 0
    except OSError:
        return 0


class TaggedLines:
    """A bot's output cut into whole lines, each starting with its run's tag.

    A renewed bot's next process starts while the last still plays, and both write
    into one log: each writes whole lines only, one write each, so no line of one
    is cut by the other's, and the tag (``[run N] ``) says which process wrote it.
    """

    def __init__(self, tag: bytes) -> None:
        self.tag = tag
        self.partial = b""

    def lines(self, chunk: bytes) -> bytes:
        """The lines ``chunk`` completes, tagged; the rest waits for the next chunk."""
        data = self.partial + chunk
        end = data.rfind(b"\n") + 1
        if len(data) - end >= LONGEST_LINE:
            data += b"\n"
            end = len(data)
        self.partial = data[end:]
        return self._tagged(data[:end])

    def rest(self) -> bytes:
        """The output's last line if it did not end with a newline, tagged and ended."""
        rest, self.partial = self.partial, b""
        return self._tagged(rest + b"\n") if rest else b""

    def _tagged(self, lines: bytes) -> bytes:
        if not lines:
            return b""
        return self.tag + lines[:-1].replace(b"\n", b"\n" + self.tag) + b"\n"


def copy_log(source: io.BufferedIOBase, log: IO[bytes], cap: int, name: str,
             drain: Callable[[io.BufferedIOBase], None], tag: bytes = b"") -> None:
    """Copy a bot's output into its log, each line tagged (:class:`TaggedLines`), until
    the log holds ``cap`` bytes, then hand the pipe to ``drain`` and read no more.

    Past the cap one marker line says the log was truncated; the rest of the
    output is the drain's to read and discard (:meth:`BotProcess._drain`), so a
    flood costs the referee no CPU, and the bot is never blocked on a full pipe nor
    sees a write fail.
    """
    lines = TaggedLines(tag)
    with source, log:
        while (room := _room(log, cap)) > 0 and (chunk := source.read1(min(65536, room))):
            _append(log, lines.lines(chunk), cap)
        if room > 0:
            _append(log, lines.rest(), cap)
        elif source.read1(65536):
            log.write(f"\n=== log truncated at {cap} bytes: further output of {name} "
                      "is discarded ===\n".encode())
            log.flush()
            drain(source)


def _room(log: IO[bytes], cap: int) -> int:
    """How many bytes the log holds less than ``cap``, whoever wrote them."""
    return cap - os.fstat(log.fileno()).st_size


def _append(log: IO[bytes], data: bytes, cap: int) -> None:
    """Write what of ``data`` fits in the log under ``cap``, in one write."""
    with _log_writes_lock:
        data = data[:max(0, _room(log, cap))]   # past the cap by another's marker: none
        if data:
            log.write(data)
            log.flush()


#: The installed packages a bot on the Python SDK imports (``bots``, the ``circus`` stubs,
#: ``referee`` for the pure engines, ``training`` for the encoders a trained policy plays
#: through), when the project is installed in place.
SDK_PACKAGES = (PROJECT_ROOT / "bots", PROJECT_ROOT / "referee", PROJECT_ROOT / "proto" / "circus",
                PROJECT_ROOT / "training")


def interpreter_view() -> tuple[Path, ...]:
    """What every sandbox is granted to run Python bots: this interpreter, its virtual
    environment and the SDK's packages (not the rest of the project's folder)."""
    return (Path(sys.prefix), Path(sys.base_prefix), *SDK_PACKAGES)


class SocketLink:
    """The referee's way to a sandboxed bot's socket: a link it owns, to a descriptor.

    Once bwrap reports the bot's pid, a thread looks for the socket through the
    sandbox's root (:func:`sandbox.open_socket`, following no link) and, when it
    is there, makes ``link`` (in the referee's private folder) point at
    ``/proc/self/fd/N``: gRPC then reaches that very socket, wherever the bot
    moves names in its tmpfs, and no other.
    """

    def __init__(self, link: Path, owner: int, launch: sandbox.Launch,
                 process: subprocess.Popen[bytes]) -> None:
        self.link = link
        self.owner = owner
        self.launch = launch
        self.process = process
        self.fd: int | None = None
        self.child: int | None = None
        self.closed = False
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._watch, name=f"socket-{link.parent.name}",
                                       daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        self.child = child = self.launch.child_pid()
        pause = 0.001
        while child is not None and self.process.poll() is None and not self.closed:
            fd = sandbox.open_socket(child, self.owner)
            if fd is not None:
                self._publish(fd)
                return
            time.sleep(pause)
            pause = min(pause * 2, 0.005)

    def _publish(self, fd: int) -> None:
        with self.lock:
            if not self.closed:
                try:
                    self.link.symlink_to(f"/proc/self/fd/{fd}")
                    self.fd = fd
                    return
                except OSError:
                    pass
        os.close(fd)

    def close(self) -> None:
        """Remove the link, then close the descriptor (a stale channel finds nothing)."""
        with self.lock:
            self.closed = True
            self.link.unlink(missing_ok=True)
            if self.fd is not None:
                os.close(self.fd)
                self.fd = None


def group_members(pgid: int) -> list[int]:
    """The live processes of a process group, from /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[2]) == pgid:
                members.append(int(entry.name))
    return members


def note_in_log(log_path: Path, cap: int, text: str) -> None:
    """One line of the referee's in a bot's log (``=== referee…``: only the referee starts a
    line with ``===``), under the log's cap as the bot's own output is."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        _append(log, printable(f"=== referee: {text}").encode() + b"\n", cap)


def referee_said(log_path: Path, words: str) -> bool:
    """Whether a line of the referee's in a bot's log (:func:`note_in_log`) holds ``words``.
    Every line of the bot's own output starts with its run's tag, so a bot cannot write
    one."""
    needle, start = words.encode(), b"=== referee: "
    try:
        with open(log_path, "rb") as log:
            if os.fstat(log.fileno()).st_size == 0:
                return False
            with mmap.mmap(log.fileno(), 0, access=mmap.ACCESS_READ) as text:
                found = text.find(needle)
                while found >= 0:
                    line = text.rfind(b"\n", 0, found) + 1
                    if text[line:line + len(start)] == start:
                        return True
                    found = text.find(needle, found + 1)
    except OSError:
        pass
    return False


#: Where the bot's pipes cross bwrap (its descriptors ``{a}`` and ``{b}``), moved back onto
#: the bot's stdin and stdout inside the sandbox (:meth:`StdioPipes.across`).
_INSIDE = 'exec <&{a} >&{b} {a}<&- {b}>&-; exec "$@"'
_UNMOVED = "(the stdio pipes' descriptors, chosen once the sandbox's own are known)"


class StdioPipes:
    """The two pipes of a stdio bot's run: its ends (``bot_in``, ``bot_out``, its stdin and
    stdout), closed here once it has them, and the referee's (``requests``, ``replies``),
    which the referee's client of the bot takes over and closes
    (:class:`referee.stdio.StdioClient`)."""

    def __init__(self) -> None:
        self.bot_in, to_bot = os.pipe()
        from_bot, self.bot_out = os.pipe()
        self.requests = os.fdopen(to_bot, "wb", buffering=0)
        self.replies = os.fdopen(from_bot, "rb", buffering=0)

    @staticmethod
    def inside(argv: list[str]) -> list[str]:
        """``argv`` behind the shell that, inside the sandbox, takes the pipes back onto its
        stdin and stdout (:meth:`across` says from which descriptors)."""
        return ["/bin/sh", "-c", _UNMOVED, "sh", *argv]

    @staticmethod
    def across(launch: sandbox.Launch) -> list[str]:
        """The sandbox's command with the pipes carried across bwrap on two descriptors of
        3-9 (a POSIX shell's) that bwrap's own do not use.

        bwrap keeps its stdin and stdout open for the sandbox's life, so a bot
        closing its stdout would leave the referee with no end of file; the other
        descriptors it hands on and closes. Outside, a shell moves the pipes off the
        stdin and stdout bwrap is given (which become /dev/null); inside,
        :meth:`inside`'s shell moves them back.
        """
        a, b = [number for number in range(3, 10) if number not in launch.fds][:2]
        argv = [_INSIDE.format(a=a, b=b) if word == _UNMOVED else word for word in launch.argv]
        return ["/bin/sh", "-c", f'exec {a}<&0 {b}>&1 </dev/null >/dev/null; exec "$@"', "sh",
                *argv]

    def handed_over(self) -> None:
        """The bot has its ends: the referee keeps none (or it would never read an end
        of file)."""
        for fd in (self.bot_in, self.bot_out):
            os.close(fd)

    def close(self) -> None:
        self.handed_over()
        self.requests.close()
        self.replies.close()


class BotProcess:
    """One run of a bot's command; :meth:`start` may be called again after a crash."""

    def __init__(self, name: str, command: str, log_path: Path,
                 memory_mb: int | None = None, cpu_seconds: int | None = None,
                 isolation: Isolation | None = None, stdio: bool = False) -> None:
        self.name = name
        # On stdio, the referee talks on the process's stdin and stdout; stderr is its log.
        self.stdio = stdio
        self.command = command
        self.log_path = log_path
        self.memory_mb = memory_mb
        self.cpu_seconds = cpu_seconds
        self.isolation = isolation or Isolation()
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.started_command = command
        self.run = 0  # this run's number in the log (:func:`last_run_in`)
        self.socket_dir: Path | None = None
        self.cgroup: Cgroup | None = None
        self.pump: threading.Thread | None = None
        # What reads the bot's output past the log's cap (:meth:`_drain`), one per run.
        self.drains: list[subprocess.Popen[bytes]] = []
        self.launch: sandbox.Launch | None = None
        self.ids: tuple[int, int] | None = None
        # A root referee's reservation of this run's host uid (:attr:`ids`).
        self.host_ids: sandbox.HostIds | None = None
        self.socket_link: SocketLink | None = None
        # A stdio bot's pipes, new at each start.
        self.pipes: StdioPipes | None = None

    def start(self) -> str:
        """Start the command and return the address the referee reaches it on (for a stdio
        bot, "stdio": the referee's ends of its pipes are :attr:`pipes`)."""
        self._clean_up()
        self.pipes = StdioPipes() if self.stdio else None
        # Before the sandbox is made: a private folder that does not exist yet is not
        # hidden, and the logs folder holds the other bots' logs.
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            if self.isolation.sandbox:
                sandbox.ensure_available()
                argv, env, address = self._sandboxed()
            else:
                argv, env, address = self._unsandboxed()
        except BaseException:
            if self.pipes is not None:
                self.pipes.close()
            raise
        log = open(self.log_path, "ab")
        where = ("stdio" if self.stdio else f"socket {self.socket_dir / 'bot.sock'}"
                 if self.socket_dir else f"port {self.port}")
        with _run_headers_lock:
            self.run = last_run_in(self.log_path) + 1
            log.write(printable(f"=== run {self.run} of {self.name}: {self.started_command} "
                                f"({where}, {time.strftime('%Y-%m-%d %H:%M:%S')})").encode()
                      + b"\n")
            log.flush()
        stdin, stdout, stderr, fds = self._streams()
        try:
            self.process = spawn(argv, stdin=stdin, stdout=stdout, stderr=stderr,
                                 env=env, pass_fds=fds,
                                 cwd=None if self.launch else self.isolation.workdir,
                                 start_new_session=True)
        except OSError:
            log.close()
            if self.pipes is not None:
                self.pipes.close()
            if self.launch is not None:
                self.launch.close(report=True)
            self._clean_up()
            raise
        reaper.watch(self.process.pid)
        if self.pipes is not None:
            self.pipes.handed_over()
        if self.launch is not None and not self.stdio:
            self.launch.close()
            assert self.socket_dir is not None
            owner = self.ids[0] if self.ids else os.geteuid()
            self.socket_link = SocketLink(self.socket_dir / "bot.sock", owner, self.launch,
                                          self.process)
        elif self.launch is not None:
            self.launch.close()   # bwrap's report of its child's pid waits in its pipe, unread
        output = self.process.stderr if self.stdio else self.process.stdout
        self.pump = threading.Thread(target=copy_log, name=f"log-{self.name}", daemon=True,
                                     args=(output, log, self.isolation.log_bytes,
                                           self.name, partial(self._drain, self.cgroup),
                                           f"[run {self.run}] ".encode()))
        self.pump.start()
        return address

    def _streams(self) -> tuple[Any, Any, Any, list[int]]:
        """The bot's stdin, stdout and stderr, and the further descriptors it is handed.

        A gRPC bot's output (both streams) goes to its log. A stdio bot's stderr does;
        its stdin and stdout are :attr:`pipes` (across a sandbox's bwrap, see
        :meth:`StdioPipes.across`).
        """
        fds = self.launch.fds if self.launch else []
        if self.pipes is None:
            return subprocess.DEVNULL, subprocess.PIPE, subprocess.STDOUT, fds
        return self.pipes.bot_in, self.pipes.bot_out, subprocess.PIPE, fds

    def _drain(self, cgroup: Cgroup | None, source: io.BufferedIOBase) -> None:
        """Past the log's cap, a ``cat`` reads the bot's output into /dev/null instead of
        the referee: in the run's cgroups, so the bot's own CPU share pays for its flood,
        in a session of its own (a Ctrl-C for the referee is not for it), and dying with
        the referee. It ends when the bot's last process does.
        """
        argv = cgroup.wrap(["cat"]) if cgroup is not None else ["cat"]
        try:
            self.drains.append(spawn(dies_with_referee(argv), stdin=source,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True))
        except OSError:
            pass   # the pipe closes with nobody reading: the bot's writes fail (EPIPE)

    def _argv(self, address: str) -> list[str]:
        """The command's words, with the address in; the log header shows this command."""
        command = self.command.replace("{address}", address).replace("{port}", str(self.port))
        self.started_command = command
        try:
            return shlex.split(command)
        except ValueError as error:
            raise OSError(f"cannot parse command {self.command!r}: {error}") from None

    def _sandboxed(self) -> tuple[list[str], dict[str, str], str]:
        """The command in its sandbox and cgroups, its environment, and our address of it.

        The address is a link in the referee's own folder, made once the bot's
        socket is found (:class:`SocketLink`); until then, connecting finds nothing.
        """
        if "{port}" in self.command:
            raise OSError("{port} needs `sandbox: false`; a sandboxed bot listens on {address}")
        iso = self.isolation
        self.socket_dir = Path(tempfile.mkdtemp(dir=runtime_root()))
        stage = self.socket_dir / "view"
        stage.mkdir()
        for folder in (self.socket_dir, stage):  # the bot's uid walks through, lists nothing
            folder.chmod(0o711)
        argv = self._argv(f"unix:{sandbox.SOCKET}")
        if self.pipes is not None:
            argv = self.pipes.inside(argv)
        self.cgroup = Cgroup(f"circus-{os.getpid()}-{self.socket_dir.name}",
                             self.memory_mb, iso.processes, iso.cpus)
        self.host_ids = sandbox.host_ids()
        self.ids = self.host_ids.ids if self.host_ids else None
        # Without a pids cgroup, RLIMIT_NPROC bounds the tasks: set inside the sandbox, where
        # the kernel (5.14+) counts the tasks of the bot's user namespace only. Set outside,
        # it would count every process of the host uid, for an unprivileged referee its own
        # threads and every other bot's: the bots would fail to start each other's threads.
        own_tasks = limited(argv, None, None, processes=None if "pids" in self.cgroup.held
                            else iso.processes)
        self.launch = sandbox.Launch.of(own_tasks, iso, self.ids, interpreter_view(), stage)
        bwrap = self.pipes.across(self.launch) if self.pipes else self.launch.argv
        inner = limited(dies_with_referee(bwrap, self.ids), self.memory_mb,
                        self.cpu_seconds, iso.open_files)
        # With paths to stage, the staging shell joins the cgroups too (one shell less).
        argv = (self.launch.command(inner, self.cgroup.procs) if self.launch.staged
                else self.cgroup.wrap(inner))
        env = {**runtime_defaults(self.memory_mb),
               **sandbox.environment(None if self.stdio else f"unix:{sandbox.SOCKET}", iso,
                                     bot_path())}
        return argv, env, "stdio" if self.stdio else f"unix:{self.socket_dir / 'bot.sock'}"

    def _unsandboxed(self) -> tuple[list[str], dict[str, str], str]:
        self.port = free_port()
        address = f"127.0.0.1:{self.port}"
        argv = self._argv(address)
        env = {**runtime_defaults(self.memory_mb), **bot_environment(self.port)}
        env.update(dict(self.isolation.env), CIRCUS_BOT_ADDRESS=address)
        return (dies_with_referee(limited(argv, self.memory_mb, self.cpu_seconds,
                                          self.isolation.open_files)), env, address)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def wait(self, timeout: float) -> bool:
        """Whether the bot's process has ended, waiting at most ``timeout`` seconds for it."""
        if self.process is None:
            return True
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def exit_status(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def exit_description(self, run: subprocess.Popen[bytes] | None = None) -> str:
        """How the bot ended, for reports: "exited with status 3" or "killed by SIGSEGV",
        and whether the kernel killed a process of it for its memory cgroup's limit;
        ``run``: an earlier run's process (the bot may have been started again since).

        A sandboxed bot's death by a signal reaches us as bwrap's exit status 128 + N.
        """
        status = run.poll() if run is not None else self.exit_status()
        if status is not None and self.isolation.sandbox and status > 128:
            status = 128 - status
        if status is None or status >= 0:
            ended = f"exited with status {status}"
        else:
            try:
                ended = f"killed by {signal.Signals(-status).name}"
            except ValueError:
                ended = f"killed by signal {-status}"
        killed = self.cgroup.oom_kills() if self.cgroup is not None else 0
        if killed:
            return (f"{ended}: out of memory ({killed} process(es) killed at the sandbox's "
                    f"limits.memory_mb of {self.memory_mb})")
        return ended

    def stop(self, grace: float = 1.0) -> None:
        """Stop the bot's whole process group: SIGTERM, then SIGKILL."""
        if self.process is None:
            return
        for signum, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            try:
                self._signal(signum)
            except ProcessLookupError:
                break
            try:
                self.process.wait(timeout=wait)
                # The leader is gone; make sure nothing it started survives it.
                os.killpg(self.process.pid, signal.SIGKILL)
            except subprocess.TimeoutExpired:
                continue
            except ProcessLookupError:
                pass
            break
        # Whoever reads the log next (a report, the referee's exit) finds the run's last words.
        self._copied(LAST_WORDS_S)
        reaper.forget(self.process.pid)
        self._clean_up()

    def _signal(self, signum: int) -> None:
        """Signal the bot's process group; in a sandbox, bwrap last.

        bwrap's death would orphan the bot (and kill it at once): its
        processes get the signal first, and bwrap reaps them and leaves.
        """
        assert self.process is not None
        leader = self.process.pid
        if not self.isolation.sandbox:
            os.killpg(leader, signum)
            return
        os.killpg(leader, 0)  # ProcessLookupError when nothing is left
        for pid in [pid for pid in group_members(leader) if pid != leader] or [leader]:
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                pass

    def _clean_up(self) -> None:
        """Remove what the last run left: its drain, socket link, cgroups, socket folder and
        host uid."""
        for drain in self.drains:
            drain.kill()
            drain.wait()
        self.drains = []
        if self.socket_link is not None:
            self.socket_link.close()
            self.socket_link = None
        if self.launch is not None:
            self.launch.close(report=self.stdio)
            self.launch = None
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self.socket_dir is not None:
            shutil.rmtree(self.socket_dir, ignore_errors=True)
            self.socket_dir = None
        if self.host_ids is not None:
            self.host_ids.release()
            self.host_ids = None

    def _copied(self, timeout: float) -> None:
        """Wait, at most ``timeout`` seconds, until the run's output is copied into its log
        (the copying thread ends at the output's end of file)."""
        if self.pump is not None:
            self.pump.join(timeout)

    def note(self, text: str) -> None:
        """A line of the referee's about this run in the bot's log (:func:`note_in_log`)."""
        note_in_log(self.log_path, self.isolation.log_bytes,
                    f"run {self.run} of {self.name}: {text}")

    def log_tail(self, lines: int = 5) -> str:
        """The last lines of this run in the bot's log, for error messages: one inert line
        (the log is the bot's own output). For a run that has ended, once its last words
        are copied (a second at most). Only this run's header and tagged lines: the log
        also holds earlier runs (restarts, other lanes, earlier invocations), whose words
        would blame this run for another's failure."""
        if not self.alive():
            self._copied(1.0)
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        own = text.strip().splitlines()
        if self.run:
            own = [line for line in own if line.startswith(
                (f"[run {self.run}] ", f"=== run {self.run} of "))]
        return printable(" | ".join(own[-lines:]))
