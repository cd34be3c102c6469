"""The bots of a tournament: started, greeted, checked, restarted and stopped.

A :class:`Participant` wraps one config entry and gives the match runner a
client for it: a gRPC channel to its one process, or for a stdio bot a pool of
``processes`` processes, one per game at once (:mod:`referee.stdio`).
Everything that can go wrong before the first game (the process won't start,
the handshake fails, the game isn't supported) is a :class:`BotStartError` with
the reason and the tail of the bot's log.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import threading
import time
from concurrent import futures
from pathlib import Path

from circus.v1 import bot_pb2
from referee.clients import (
    BotClient,
    BotFault,
    GrpcClient,
    InProcessClient,
    WireLog,
    load_python_bot,
)
from referee.errors import CircusError
from referee.limits import hierarchy, refusal
from referee.process import BotProcess, bot_path, note_in_log
from referee.sandbox import Isolation, view
from referee.settings import BotSpec, LimitsConfig
from referee.stdio import Lane, StdioClient, StdioPool
from referee.stream import chosen_client
from referee.text import printable
from referee.wire import PROTOCOL_VERSION

REFEREE_NAME = "circus-referee 0.1.0"
#: How long a bot whose call failed as a crash is given to end before the next game
#: decides whether to restart it (:meth:`Participant.settle`).
CRASH_SETTLE_S = 5.0
#: How often a starting bot's address is tried until it accepts a connection.
READY_LOOK_S = 0.01
#: What a program's last words say when a file it runs or opens is not there (a JVM's:
#: a class or a jar it cannot find on its class path; Node's: a module).
MISSING_FILE = ("No such file or directory", ": not found", "ClassNotFoundException",
                "NoClassDefFoundError", "Could not find or load main class",
                "Unable to access jarfile", "Cannot find module", "No module named")
#: Words of a bot's output that report a failure (a traceback, an exception, a panic).
TROUBLE = re.compile(r"traceback|exception|error|panic|fatal|abort|denied", re.IGNORECASE)
#: A path in a program's last words: absolute, or from its folder (``./``, ``../``).
NAMED_PATH = re.compile(r"(?<![\w.])(\.{0,2}/[^\s'\":,()]+)")
#: How far back in a failed run's log a missing file's report is looked for: Node.js, for
#: one, writes its "Cannot find module" a dozen lines above its last.
LAST_WORDS = 40
#: The granted paths a start error lists, at most.
SHOWN_PATHS = 6


class BotStartError(CircusError):
    """A bot cannot take part; the message names the bot and the reason."""


#: The endings of the files a command runs (scripts, archives, binaries), by which a word
#: of a command that names no existing file is taken for a path mistyped.
FILE_ENDINGS = {".py", ".js", ".mjs", ".cjs", ".ts", ".pl", ".rb", ".php", ".lua", ".tcl",
                ".sh", ".jar", ".class", ".exe", ".R", ".jl"}


def absent_files(command: str, folder: Path) -> list[str]:
    """The words of ``command`` that look like a file's path (with a ``/`` or a script's
    ending) and name nothing in ``folder``, the folder it runs in."""
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    looks_like_path = [word for word in words
                       if not word.startswith("-") and "{" not in word and ":" not in word
                       and ("/" in word or Path(word).suffix in FILE_ENDINGS)]
    return [word for word in looks_like_path if not (folder / word).exists()]


def sandbox_account(process: BotProcess, folder: Path, missing: list[str]) -> str:
    """What the sandbox showed a bot that ended reporting an error: the folder it ran in,
    where its program is, the path its last words say is missing (``missing``: those
    lines) and whether that exists on the host (then the sandbox hides it), and the
    paths granted beyond the system's."""
    try:
        argv = shlex.split(process.started_command)
    except ValueError:
        argv = []
    granted = view(process.isolation, argv, ())
    program = ""
    if argv:
        found = (shutil.which(argv[0], path=bot_path()) if "/" not in argv[0]
                 else str(folder / argv[0]))
        program = f", its program {argv[0]} is {found or 'not on its PATH'}"
    named = [path for line in missing for path in NAMED_PATH.findall(line)]
    said = ""
    if named:
        path = Path(os.path.normpath(folder / named[-1]))
        said = (f"; the error names {named[-1]}, which exists on the host: the sandbox hides "
                "it" if path.exists() else f"; the error names {named[-1]}, which is not on "
                "the host either")
    shown = ", ".join(str(path) for path in granted[:SHOWN_PATHS])
    more = f" and {len(granted) - SHOWN_PATHS} more" if len(granted) > SHOWN_PATHS else ""
    sees = f"only {shown}{more}" if granted else "nothing"
    return (f"in the sandbox it ran in {folder}{program}{said}; besides the system's "
            f"folders and the referee's Python it sees {sees} (its dir:, the "
            "files and class path its command names, its mounts:; docs/protocol.md, Notes "
            "per language)")


def jvm_hint(fault: BotFault) -> str:
    """For a stdio bot whose first line was ``#``: the JVM's fatal error report, which it
    writes to stdout (typically, started under ``memory_mb``, it sized its heap from the
    host's memory and could not have it)."""
    if "the reply is not JSON" not in fault.detail or "b'#" not in fault.detail:
        return ""
    return ("; a first line of '#' is how a JVM's fatal error report starts, on stdout: one "
            "that cannot get the heap it sizes from the host's memory needs -Xmx under the "
            "bot's memory_mb (java -Xmx64m -XX:+UseSerialGC at 128 MB; docs/protocol.md, Java)")


def major(version: str) -> str:
    return version.split(".", 1)[0]


def workdir(spec: BotSpec) -> Path | None:
    """Where ``spec``'s command runs: its ``dir``, else its ``cwd``, else the referee's."""
    folder = spec.dir or spec.cwd
    return Path(folder) if folder else None


def real_path(path: Path) -> Path:
    """``path`` with its symlinks resolved, or as it is if they loop."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def with_real_paths(paths: tuple[Path, ...]) -> tuple[Path, ...]:
    """Each path as given and with symlinks resolved: what a path names is hidden from
    bots by its real place, wherever a link to it is."""
    return tuple(dict.fromkeys(form for path in paths for form in (path, real_path(path))))


def isolation(spec: BotSpec, limits: LimitsConfig, sandbox: bool,
              private: tuple[Path, ...]) -> Isolation:
    """How ``spec``'s process is isolated: the entry's choice, else the tournament's."""
    return Isolation(sandbox=sandbox if spec.sandbox is None else spec.sandbox,
                     workdir=workdir(spec), env=spec.env,
                     folder=Path(spec.dir) if spec.dir else None,
                     mounts=tuple(Path(path) for path in spec.mounts),
                     private=private, processes=limits.processes,
                     open_files=limits.open_files, log_bytes=limits.log_bytes,
                     tmp_mb=limits.tmp_mb, cpus=limits.cpus)


class Participant:
    """One bot of the lineup and the client to reach it."""

    def __init__(self, spec: BotSpec, log_dir: Path, limits: LimitsConfig,
                 startup_ms: int, max_restarts: int = 0, sandbox: bool = True,
                 private: tuple[Path, ...] = (), processes: int = 1) -> None:
        self.spec = spec
        self.name = spec.name
        self.limits = limits
        self.startup_s = startup_ms / 1000
        self.max_restarts = max_restarts
        self.restarts = 0
        self.hello_response: bot_pb2.HelloResponse | None = None
        self.client: BotClient | None = None
        self.process: BotProcess | None = None
        self.lock = threading.Lock()
        # The client of the process a restart replaced, and how that process ended: a
        # call of a game still in flight with it fails on the closed channel.
        self.replaced: tuple[BotClient | None, str] | None = None
        self.wire_log = log_dir / f"{spec.name}.log"
        # A stdio bot's processes, each playing one game at a time (empty for the others).
        self.lanes: list[Lane] = []
        if spec.command is not None:
            processes = max(1, processes) if spec.transport == "stdio" else 1
            made = [BotProcess(spec.name if processes == 1 else f"{spec.name}#{number + 1}",
                               spec.command, log_dir / f"{spec.name}.log",
                               limits.memory_mb, limits.cpu_seconds,
                               isolation(spec, limits, sandbox,
                                         with_real_paths((*private, log_dir))),
                               stdio=spec.transport == "stdio")
                    for number in range(processes)]
            if spec.transport == "stdio":
                self.lanes = [Lane(process) for process in made]
            else:
                self.process = made[0]

    def identity(self) -> tuple[str, str, str] | None:
        """What the bot said of itself in Hello (name, version, protocol version), inert
        for the store, reports and terminals; None before a Hello."""
        hello = self.hello_response
        if hello is None:
            return None
        return (printable(hello.name), printable(hello.version),
                printable(hello.protocol_version))

    @property
    def log_path(self) -> Path | None:
        process = self.process or (self.lanes[0].process if self.lanes else None)
        return process.log_path if process else None

    def start(self, game: str | None, variant: str | None = None) -> None:
        """Start (if a command), connect, greet and check the bot supports the game.

        With no game, only the handshake is checked (``check-bot`` looks at
        the claimed games itself).
        """
        self._check_limits()
        try:
            client, self.hello_response = self._start_lanes() if self.lanes else self._greet()
        except BotStartError:
            self.stop()
            raise
        self.client = chosen_client(client, self.hello_response, self._note)
        if game is not None:
            self._check_support(game, variant or "")

    def _note(self, text: str) -> None:
        """A line of the referee's in the bot's log."""
        if self.process is not None:
            self.process.note(text)
        else:
            note_in_log(self.wire_log, self.limits.log_bytes, text)

    def _check_limits(self) -> None:
        """With ``limits.require``, refuse to start a sandboxed bot whose limits cannot
        hold for its whole sandbox here (a cluster's worker checks its own machine)."""
        sandboxed = [process for process in (self.process, *(lane.process for lane in self.lanes))
                     if process is not None and process.isolation.sandbox]
        refused = refusal(self.limits, hierarchy()) if sandboxed else None
        if refused is not None:
            raise BotStartError(f"bot {self.name!r}: cannot start here: {refused}")

    def _greet(self) -> tuple[BotClient, bot_pb2.HelloResponse]:
        """Connect and greet a bot of one process (or none); its client is kept before the
        Hello, for :meth:`stop` to close if the Hello fails."""
        client = self.client = self._connect()
        if self.spec.debug:
            client = self.client = WireLog(client, self.wire_log)
        return client, self._hello(client, self.process)

    def _connect(self) -> BotClient:
        spec = self.spec
        if spec.python is not None:
            try:
                return InProcessClient(load_python_bot(spec.python))
            except Exception as error:  # any import or constructor failure
                raise BotStartError(f"bot {self.name!r}: cannot load {spec.python!r}: "
                                    f"{type(error).__name__}: {error}") from None
        if self.process is not None:
            try:
                address = self.process.start()
            except OSError as error:
                raise BotStartError(f"bot {self.name!r}: cannot start "
                                    f"{spec.command!r}: {error}") from None
        else:
            assert spec.address is not None, "a bot not started by the referee has an address"
            address = spec.address
        client = GrpcClient(address, self.limits.message_bytes)
        self._wait_ready(client)
        return client

    def _start_lanes(self) -> tuple[BotClient, bot_pb2.HelloResponse]:
        """Start every process of a stdio bot at once, each greeted; the pool is the client."""
        with futures.ThreadPoolExecutor(len(self.lanes), thread_name_prefix="stdio-start") \
                as pool:
            greetings = list(pool.map(self._start_lane, self.lanes))
        return StdioPool(self.lanes, self._lanes_state, self.spec.debug), greetings[0]

    def _start_lane(self, lane: Lane) -> bot_pb2.HelloResponse:
        try:
            lane.process.start()
        except OSError as error:
            raise BotStartError(f"bot {self.name!r}: cannot start "
                                f"{self.spec.command!r}: {error}") from None
        channel = StdioClient(lane.process, self.limits.message_bytes, CRASH_SETTLE_S)
        client: BotClient = WireLog(channel, self.wire_log) if self.spec.debug else channel
        try:
            hello = self._hello(client, lane.process)
        except BotStartError:
            client.close()
            raise
        lane.connect(client)
        return hello

    def _lanes_state(self) -> str:
        """How a stdio bot's processes stand, for a fault that finds none to play."""
        running = sum(lane.client is not None and lane.process.alive() for lane in self.lanes)
        return (f"{running} of its {len(self.lanes)} processes run, after {self.restarts} "
                f"of {self.max_restarts} restarts")

    def _wait_ready(self, client: GrpcClient) -> None:
        """Wait for the bot to accept connections on its address (its socket or port),
        within startup_ms.

        Asked of the socket itself, not of gRPC: a channel's readiness future polls on a
        thread of grpc's that outlives the wait, and a channel closed under that thread
        prints its traceback (grpc/grpc#18995) on the referee's terminal.
        """
        deadline = time.monotonic() + self.startup_s
        endpoint = socket_endpoint(client.address)
        while time.monotonic() < deadline:
            if self.process is not None and not self.process.alive():
                raise BotStartError(self._failure(
                    f"{self.process.exit_description()} before answering"
                    f"{self._hidden_hint(self.process)}"))
            if endpoint is None or accepts_connections(*endpoint):
                return
            time.sleep(READY_LOOK_S)
        raise BotStartError(self._failure(
            f"did not answer on {client.address} within startup_ms={int(self.startup_s * 1000)}"))

    def _hello(self, client: BotClient, process: BotProcess | None) -> bot_pb2.HelloResponse:
        """The handshake of ``client``, whose process (if the referee started one) a
        failure's message quotes."""
        request = bot_pb2.HelloRequest(protocol_version=PROTOCOL_VERSION, referee=REFEREE_NAME)
        try:
            response = client.hello(request, timeout=self.startup_s)
        except BotFault as fault:
            hint = self._hidden_hint(process) if process and not process.alive() else ""
            hint += jvm_hint(fault)
            raise BotStartError(self._failure(f"Hello failed ({fault}){hint}", process)) \
                from None
        if not isinstance(response, bot_pb2.HelloResponse):
            raise BotStartError(self._failure("Hello returned no HelloResponse"))
        if not response.protocol_version:
            raise BotStartError(self._failure(
                f"its Hello reply has no protocol_version: give the version it was written "
                f"against ({PROTOCOL_VERSION}, the referee's)"))
        if major(response.protocol_version) != major(PROTOCOL_VERSION):
            raise BotStartError(self._failure(
                f"speaks protocol {response.protocol_version}, the referee "
                f"speaks {PROTOCOL_VERSION}: the major versions differ"))
        return response

    def supports(self, game: str, variant: str) -> bool:
        assert self.hello_response is not None
        return any(support.game == game and (not support.variants or variant in support.variants)
                   for support in self.hello_response.games)

    def _check_support(self, game: str, variant: str) -> None:
        if not self.supports(game, variant):
            assert self.hello_response is not None   # supports() asserts it
            claimed = ", ".join(f"{s.game}{list(s.variants) or ''}"
                                for s in self.hello_response.games) or "no game"
            self.stop()
            raise BotStartError(self._failure(
                f"does not play {game} (variant {variant}); it claims {claimed}"))

    def _hidden_hint(self, process: BotProcess) -> str:
        """For a bot that ended reporting an error: the file its command names that is not
        there (a path written from the shell's folder, not the config's), else, in a
        sandbox, what the sandbox showed it (a binary beside its data in /tmp, say)."""
        lines = process.log_tail(LAST_WORDS).split(" | ")
        missing = [line for line in lines if any(words in line for words in MISSING_FILE)]
        folder = (process.isolation.workdir or Path.cwd()).resolve()
        absent = absent_files(process.command, folder) if missing else []
        if absent:
            return (f"; its command names {', '.join(absent)}, not in {folder} (a command "
                    "runs in its dir:, else in its config file's folder)")
        if not process.isolation.sandbox or not (missing or any(map(TROUBLE.search, lines))):
            return ""
        return f"; {sandbox_account(process, folder, missing)}"

    def _failure(self, reason: str, process: BotProcess | None = None) -> str:
        """The start error's one line; the reason and the log's tail (of ``process``, else
        of the bot's first) hold the bot's own words (its claimed games, protocol version,
        output), so the line is made inert."""
        process = process or self.process or (self.lanes[0].process if self.lanes else None)
        tail = process.log_tail() if process else ""
        where = f" [log {self.log_path}: {tail}]" if tail else ""
        return printable(f"bot {self.name!r}: {reason}{where}")

    def recover(self, game: str, variant: str) -> bool:
        """Restart a crashed ``command:`` bot, within ``max_restarts``.

        Returns True if the bot is (again) able to play.
        """
        with self.lock:
            if self.lanes:
                return self._recover_lanes()
            if self.process is None or self.process.alive():
                return self.client is not None
            self.replaced = (self.client, self.process.exit_description())
            # Whatever the crashed bot started dies with it, restarted or not.
            self.process.stop()
            if self.restarts >= self.max_restarts:
                return False
            self.restarts += 1
            if self.client is not None:
                self.client.close()
            try:
                self.start(game, variant)
            except BotStartError:
                self.client = None
                return False
            return True

    def _recover_lanes(self) -> bool:
        """Restart each process of a stdio bot that ended, within ``max_restarts`` (one
        restart each); one that cannot be is dropped, and the others play on."""
        for lane in self.lanes:
            if lane.client is None or lane.process.alive():
                continue
            lane.disconnect()
            lane.process.stop()
            if self.restarts >= self.max_restarts:
                continue
            self.restarts += 1
            try:
                self._start_lane(lane)
            except BotStartError:
                lane.process.stop()
        return any(lane.client is not None for lane in self.lanes)

    def probe(self, timeout: float, seat: tuple[str, int]) -> bool:
        """Whether the bot still answers a Hello within ``timeout`` seconds.

        Called after a timeout at ``seat`` (game id, seat): a bot that is only slow
        answers at once, a hung one does not. A hung ``command:`` bot is stopped, so
        it counts as crashed and the next game restarts it (within ``max_restarts``).
        A stdio bot's process that plays that seat is the one asked, never one of
        another game.
        """
        with self.lock:
            if self.client is None:
                return False
            request = bot_pb2.HelloRequest(protocol_version=PROTOCOL_VERSION,
                                           referee=REFEREE_NAME)
            if isinstance(self.client, StdioPool):
                return self._probe_lane(self.client.lane_of(seat), request, timeout)
            try:
                self.client.hello(request, timeout=timeout)
                return True
            except BotFault:
                if self.process is not None:
                    self.process.stop(grace=0.1)
                return False

    def _probe_lane(self, lane: Lane | None, request: bot_pb2.HelloRequest,
                    timeout: float) -> bool:
        """The health check of the stdio process of the seat that timed out (none: the
        process is gone already)."""
        if lane is None or lane.client is None:
            return False
        try:
            lane.client.hello(request, timeout=timeout)
            return True
        except BotFault:
            lane.process.stop(grace=0.1)
            return False

    def settle(self, client: BotClient | None = None) -> str | None:
        """A call to the bot through ``client`` failed as a crash: give its process a
        moment to end, and say how it ended ("exited with status 3", "killed by
        SIGABRT"; None if it still runs or is not a process of ours), which tells the
        organiser more than the channel's error.

        A bot that dies drops its connections before its process is reaped, and a
        game started in that gap would find it alive and send its first call to the
        dead bot (another crash, another forfeit). Waiting here makes the next game's
        :meth:`crashed` true, so it restarts the bot instead. A stdio process's crash
        fault already says how it ended (:class:`~referee.stdio.StdioClient` waits).
        """
        if self.process is None:
            return None
        if self._replaced(client) is None:
            self.process.wait(CRASH_SETTLE_S)
        with self.lock:   # not restarted meanwhile, or the restart says how it ended
            ended = self._replaced(client)
            if ended is not None:
                return ended
            return None if self.process.alive() else self.process.exit_description()

    def _replaced(self, client: BotClient | None) -> str | None:
        """How the process ``client`` reached ended, if a restart has since replaced it."""
        if self.replaced is None or client is None or client is not self.replaced[0]:
            return None
        return self.replaced[1]

    def crashed(self) -> bool:
        """Whether the bot must be restarted before its next game: its process ended (for
        a stdio bot: one of them, or every one is gone)."""
        if self.lanes:
            playing = [lane for lane in self.lanes if lane.client is not None]
            return not playing or any(not lane.process.alive() for lane in playing)
        return self.process is not None and not self.process.alive()

    def playable(self) -> bool:
        """Whether a game may be given the bot's client (after :meth:`recover`): its process
        runs; for a stdio bot, one of them does (the pool gives each game a free one, so
        another process's crash in a game meanwhile does not cost this game its seat)."""
        if self.lanes:
            return any(lane.client is not None and lane.process.alive() for lane in self.lanes)
        return not self.crashed()

    def stop(self) -> None:
        if self.client is not None:
            self.client.close()
        if self.process is not None:
            self.process.stop()
        for lane in self.lanes:
            if lane.client is not None:
                lane.client.close()
        if self.lanes:
            with futures.ThreadPoolExecutor(len(self.lanes)) as pool:
                list(pool.map(lambda lane: lane.process.stop(), self.lanes))


def socket_endpoint(address: str) -> tuple[int, str | tuple[str, int]] | None:
    """The socket family and address a gRPC target names (``unix:PATH``, ``HOST:PORT``),
    or None for a target only gRPC's resolver understands (then no probe: Hello tells)."""
    if address.startswith("unix:"):
        return socket.AF_UNIX, address.removeprefix("unix:").removeprefix("//")
    host, _, port = address.removeprefix("dns:///").rpartition(":")
    plain_host = host.startswith("[") or not (":" in host or "," in host)
    if not host or not port.isdigit() or not plain_host:
        return None
    if host.startswith("["):
        return socket.AF_INET6, (host.strip("[]"), int(port))
    return socket.AF_INET, (host, int(port))


def accepts_connections(family: int, where: str | tuple[str, int]) -> bool:
    """Whether a server listens there: one connection opened and closed at once."""
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.settimeout(1.0)
            probe.connect(where)
    except OSError:
        return False
    return True
