"""A hostile bot for the sandbox tests: it plays legally, and tries every way around the referee.

Run as ``python tests/hostile_bots.py MODE --address ADDRESS``, or with ``--stdio`` in
place of the address on the stdio transport (modes ``attacks`` and ``flood``). Mode ``attacks``
tries each attack once at start-up (and the deal prediction
at every game) and logs one line per attack: ``ATTACK name: blocked (...)`` or
``ATTACK name: SUCCEEDED (...)``. Mode ``flood`` writes far more to its log than
the cap allows. Mode ``redirect`` never listens: it puts a symlink to
``HOSTILE_DECOY`` (another program's socket) in place of its own socket. The
targets (database, config, another bot's folder, the referee's pid and a TCP
port in its network) come in ``HOSTILE_*`` variables, as a participant who
studied the organiser's machine would know them.
"""

from __future__ import annotations

import ctypes
import errno
import glob
import mmap
import os
import signal
import socket
import sqlite3
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.random_bot import RandomBot  # noqa: E402
from bots.sdk import Bot, serve  # noqa: E402
from bots.stdio.serve import serve_stdio  # noqa: E402
from referee import wire  # noqa: E402
from referee.games import get_game  # noqa: E402
from referee.seeds import derive_seed, opaque_id  # noqa: E402

TARGETS = {key[len("HOSTILE_"):].lower(): value for key, value in os.environ.items()
           if key.startswith("HOSTILE_")}


def report(name: str, succeeded: bool, detail: str) -> None:
    print(f"ATTACK {name}: {'SUCCEEDED' if succeeded else 'blocked'} ({detail})",
          file=sys.stderr, flush=True)


def attempt(name: str, action) -> None:
    """Run one attack; any exception means it was blocked."""
    try:
        detail = action()
    except Exception as error:  # the point: whatever stopped it
        report(name, False, f"{type(error).__name__}: {error}")
        return
    report(name, detail is not None, detail or "nothing found")


def other_processes() -> str | None:
    mine = {os.getpid(), os.getppid()}
    seen = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) not in mine:
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except (FileNotFoundError, ProcessLookupError):
                continue  # it ended between the listing and the read: a busy host's churn
            if b"hostile_bots" not in cmdline:
                seen.append(cmdline[:60].decode(errors="replace"))
    return f"sees {seen}" if seen else None


def referee_memory() -> str | None:
    with open(f"/proc/{TARGETS['referee_pid']}/mem", "rb") as memory:
        return f"opened the referee's memory ({memory})"


def referee_environment() -> str | None:
    marker = TARGETS["env_marker"]  # the name of a variable only the referee has
    if marker in os.environ:
        return "the referee's variable is in the bot's environment"
    for environ in glob.glob("/proc/*/environ"):
        try:
            if f"{marker}=".encode() in Path(environ).read_bytes():
                return f"found in {environ}"
        except OSError:
            continue
    return None


def near_sockets() -> list[str]:
    """The unix sockets a bot finds without a walk: this referee's bots' (in its runtime
    folder) and those bound in its network namespace."""
    paths = glob.glob(f"{TARGETS['runtime']}/*/bot.sock")
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) > 7 and fields[7].startswith("/"):
            paths.append(fields[7])
    return paths


def other_sockets() -> list[str]:
    """Every unix socket the bot can name: those near, and any under /tmp, /run."""
    paths = set(near_sockets()) | {p for pattern in ("/tmp/**/*.sock", "/run/**/*.sock",
                                                     "/var/run/**/*.sock")
                                   for p in glob.glob(pattern, recursive=True)}
    return sorted(p for p in paths if p != "/run/circus/bot.sock")


def connect_other_bot() -> str | None:
    """The referee's loopback first: where it answers (no sandbox), no walk of the host's
    /tmp (seconds on a busy host) is needed to know the attack succeeded."""
    with socket.socket() as probe:
        probe.settimeout(1)
        if probe.connect_ex(("127.0.0.1", int(TARGETS["tcp_port"]))) == 0:
            return "connected to the referee's loopback"
    for path in other_sockets():
        with socket.socket(socket.AF_UNIX) as probe:
            if probe.connect_ex(path) == 0:
                return f"connected to {path}"
    return None


def bind_other_bot() -> str | None:
    """Take another bot's socket over: one of this referee's bots' (in its runtime folder) or
    the test's stand-in for one (``HOSTILE_OTHER_SOCKET``), never a socket of another
    program on the machine (another test's referee), which the attack would break."""
    mine = (f"{TARGETS['runtime']}/", TARGETS["other_socket"])
    for path in near_sockets() + [TARGETS["other_socket"]]:
        if not path.startswith(mine):
            continue
        try:
            os.unlink(path)
        except FileNotFoundError:  # its bot has ended since the listing, or is not in view
            continue
        with socket.socket(socket.AF_UNIX) as squatter:
            squatter.bind(path)
            return f"took over {path}"
    return None


def open_database() -> str | None:
    with open(TARGETS["db"], "rb") as db:
        if db.read(16) != b"SQLite format 3\x00":
            return None
    with sqlite3.connect(TARGETS["db"]) as db:
        db.execute("UPDATE games SET scores = '[99, 0, 0]'")
    return "rewrote the results"


def read_config() -> str | None:
    text = Path(TARGETS["config"]).read_text()
    return f"read {len(text)} characters" if text else None


def read_other_dir() -> str | None:
    found = list(Path(TARGETS["other_dir"]).iterdir())
    return f"sees {found}" if found else None


def write_outside() -> str | None:
    written = []
    for folder in (str(Path.cwd()), TARGETS["outside"]):
        try:
            Path(folder, "hostile-was-here").write_text("x")
            written.append(folder)
        except OSError:
            continue
    Path(os.environ["HOME"], "scratch-works").write_text("x")  # the scratch folder is ours
    return f"wrote in {written}" if written else None


def orphan() -> str | None:
    """A setsid double fork whose grandchild sleeps with a token the test looks for."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(900)",
                                      TARGETS["token"]])
        os._exit(0)
    os.wait()
    return None  # whether it outlived the tournament, the test sees


def in_child(work) -> int:
    """Run ``work`` in a child; its exit status, or minus the signal that killed it."""
    pid = os.fork()
    if pid == 0:
        try:
            os._exit(work())
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def fork_bomb() -> str | None:
    def bomb() -> int:
        children = []
        for _ in range(300):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(30)
                os._exit(0)
            children.append(pid)
        for pid in children:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        return 0 if len(children) == 300 else 1
    return "forked 300 processes" if in_child(bomb) == 0 else None


def shared_mapping() -> str | None:
    def hog() -> int:
        size = 400 * 1024 * 1024
        area = mmap.mmap(-1, size, mmap.MAP_SHARED)
        for offset in range(0, size, 4096):
            area[offset] = 1
        return 0
    return "touched 400 MB of shared memory" if in_child(hog) == 0 else None


def dev_shm() -> str | None:
    def hog() -> int:
        # Ballast, so that the out-of-memory killer picks this child, not the bot.
        ballast = b"b" * (120 * 1024 * 1024)  # noqa: F841
        with open("/dev/shm/hostile", "wb") as shm:
            for _ in range(400):
                shm.write(b"x" * 1024 * 1024)
        return 0
    try:
        return "wrote 400 MB to /dev/shm" if in_child(hog) == 0 else None
    finally:
        Path("/dev/shm/hostile").unlink(missing_ok=True)


def network() -> str | None:
    names = [name for _, name in socket.if_nameindex() if name != "lo"]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 53))
            names.append("a route out")
        except OSError:
            pass
    return f"has {names}" if names else None


LIBC = ctypes.CDLL(None, use_errno=True)
# x86-64 system call numbers, and the constants the calls below take.
ADD_KEY, KEYCTL, PTRACE, BPF, PERF_EVENT_OPEN, USERFAULTFD, UNSHARE = (
    248, 250, 101, 321, 298, 323, 272)
KEYCTL_SET_TIMEOUT, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING = 15, 10, -4
PTRACE_ATTACH, CLONE_NEWUSER = 16, 0x10000000


def syscall(number: int, *args) -> tuple[int, int]:
    """A raw system call: its result, and errno when it failed."""
    ctypes.set_errno(0)
    result = LIBC.syscall(ctypes.c_long(number), *args)
    return result, ctypes.get_errno() if result < 0 else 0


def rewrite_kernel_knob() -> str | None:
    """Write kernel.core_pattern's own value back: harmless, but it proves the knob writable
    (a bot that may write it makes the kernel run its program as root on a crash)."""
    path = Path("/proc/sys/kernel/core_pattern")
    value = path.read_bytes()
    with open(path, "wb") as knob:
        knob.write(value)
    return "rewrote kernel.core_pattern"


def keyring_channel() -> str | None:
    """The user keyring outlives a sandbox: a key left by one run is read by the next."""
    name = ctypes.c_char_p(b"circus-hostile-channel")
    found, _ = syscall(KEYCTL, ctypes.c_long(KEYCTL_SEARCH), ctypes.c_long(KEY_SPEC_USER_KEYRING),
                       ctypes.c_char_p(b"user"), name, ctypes.c_long(0))
    if found >= 0:
        return "read the key an earlier sandbox left in the user keyring"
    key, error = syscall(ADD_KEY, ctypes.c_char_p(b"user"), name, ctypes.c_char_p(b"hands"),
                         ctypes.c_size_t(5), ctypes.c_long(KEY_SPEC_USER_KEYRING))
    if key < 0:
        raise OSError(error, os.strerror(error))
    syscall(KEYCTL, ctypes.c_long(KEYCTL_SET_TIMEOUT), ctypes.c_long(key), ctypes.c_long(60))
    return "added a key to the user keyring"


def cgroup_statistics() -> str | None:
    """Other sandboxes' memory use, from the host's cgroup statistics."""
    found = [path for pattern in ("/sys/fs/cgroup/memory.stat", "/sys/fs/cgroup/*/memory.stat",
                                  "/sys/fs/cgroup/memory/*/memory.stat")
             for path in glob.glob(pattern) if Path(path).read_text()]
    return f"read {len(found)} cgroups' memory.stat" if found else None


def read_secrets() -> str | None:
    read = []
    for path in ("/etc/shadow", "/etc/gshadow"):
        try:
            if Path(path).read_bytes():
                read.append(path)
        except OSError:
            continue
    return f"read {read}" if read else None


def root_home() -> str | None:
    """/root's contents, less the folders on the way to the interpreter."""
    own = {Path(prefix).parts[2] for prefix in (sys.prefix, sys.base_prefix)
           if Path(prefix).parts[1:2] == ("root",) and len(Path(prefix).parts) > 2}
    seen = [name for name in os.listdir("/root") if name not in own]
    return f"sees {seen}" if seen else None


def mountinfo_names() -> str | None:
    """Hidden paths named in the bot's own mount table (were they mounted over to hide):
    the referee's private paths, and /etc's secrets."""
    table = Path("/proc/self/mountinfo").read_text()
    named = [path for path in (*(TARGETS[key] for key in ("db", "config", "other_dir",
                                                           "runtime", "outside")),
                               "/etc/shadow", "/etc/gshadow", "/etc/ssl/private")
             if path in table]
    return f"names {named}" if named else None


def host_root() -> str | None:
    """Whether this uid is root outside the user namespace (uid_map: inside outside count;
    where bwrap nests the bot's namespace in one of its own, the outer one's uid)."""
    uid = os.getuid()
    for line in Path("/proc/self/uid_map").read_text().splitlines():
        inside, outside, count = map(int, line.split())
        if inside <= uid < inside + count and outside + uid - inside == 0:
            return "runs as root on the host"
    return None


def kernel_calls() -> str | None:
    """System calls that reach shared kernel state or other processes; the sandbox must
    refuse each with EPERM (a refusal, not a kill: the bot plays on)."""
    outcomes = {"ptrace": traced_child(), "unshare-user": in_child(
        lambda: 0 if syscall(UNSHARE, ctypes.c_long(CLONE_NEWUSER))[0] == 0 else 1)}
    attr = ctypes.create_string_buffer(72)
    ctypes.memmove(attr, (ctypes.c_uint32 * 4)(2, 4, 4, 1), 16)  # an array map of one int
    outcomes["bpf"] = closed(*syscall(BPF, ctypes.c_long(0), attr, ctypes.c_long(72)))
    perf = ctypes.create_string_buffer(112)
    ctypes.memmove(perf, (ctypes.c_uint32 * 2)(1, 112), 8)  # a software CPU clock
    ctypes.memmove(ctypes.byref(perf, 40), (ctypes.c_uint64 * 1)(1 | 32 | 64), 8)
    outcomes["perf_event_open"] = closed(*syscall(
        PERF_EVENT_OPEN, perf, ctypes.c_long(0), ctypes.c_long(-1), ctypes.c_long(-1),
        ctypes.c_long(0)))
    outcomes["userfaultfd"] = closed(*syscall(USERFAULTFD, ctypes.c_long(0)))
    done = [name for name, outcome in outcomes.items() if outcome == 0]
    if done:
        return f"made {done}"
    raise PermissionError(", ".join(f"{name} {errno.errorcode.get(error, error)}"
                                    for name, error in outcomes.items()))


def closed(result: int, error: int) -> int:
    """0 for a call that gave a descriptor (closed at once), else its errno."""
    if result >= 0:
        os.close(result)
        return 0
    return error


def traced_child() -> int:
    """0 if this process may attach to its own child with ptrace, else the errno."""
    pid = os.fork()
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    try:
        result, error = syscall(PTRACE, ctypes.c_long(PTRACE_ATTACH), ctypes.c_long(pid),
                                ctypes.c_long(0), ctypes.c_long(0))
        return 0 if result == 0 else error
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


ATTACKS = {"proc": other_processes, "referee-memory": referee_memory,
           "referee-environment": referee_environment, "connect": connect_other_bot,
           "bind": bind_other_bot, "database": open_database, "config": read_config,
           "other-dir": read_other_dir, "write-outside": write_outside, "orphan": orphan,
           "fork-bomb": fork_bomb, "shared-mapping": shared_mapping, "dev-shm": dev_shm,
           "network": network, "kernel-knob": rewrite_kernel_knob, "keyring": keyring_channel,
           "cgroup-stats": cgroup_statistics, "secrets": read_secrets, "root-home": root_home,
           "mountinfo": mountinfo_names, "host-root": host_root, "kernel-calls": kernel_calls}


class DealPredictor(RandomBot):
    """Plays at random and recomputes its first hand of each game from the config's seed.

    It tries only the deal of the game's own group: the schedule plays groups rotation
    by rotation, so game ``index`` belongs to group ``index % groups``, and it finds the
    index by computing the id of every index as the referee would, which only the
    referee can with a secret. (Trying every group's deal would find a hand like its own
    by chance in about 3% of games: a 5-card hand of this deck has little variety.)
    """

    name = "hostile"

    def __init__(self) -> None:
        self.first: set[str] = set()
        self.tried = self.predicted = 0
        self.indices = {opaque_id(int(TARGETS["seed"]), "game-id", TARGETS["tournament"],
                                  index): index for index in range(1000)}

    def decide(self, request):
        if request.decision_id == 1 and request.game_id not in self.first:
            self.first.add(request.game_id)
            players, groups = int(TARGETS["players"]), int(TARGETS["groups"])
            self.tried += 1
            index = self.indices.get(request.game_id)
            if index is not None:
                game = request.observation.WhichOneof("game").replace("_", "-")
                self.predicted += wire.observation_message(game, get_game(game).new_state(
                    players, TARGETS["variant"],
                    derive_seed(int(TARGETS["seed"]), "group", index % groups)
                ).observation(request.seat)) == request.observation
        return super().decide(request)

    def end_game(self, request):
        report("predict-deal", self.predicted > 0,
               f"{self.predicted} of {self.tried} first hands predicted")


def play(bot: Bot) -> None:
    """Serve ``bot`` on the transport the command line names: stdio, or gRPC's address."""
    if sys.argv[1:] == ["--stdio"]:
        serve_stdio(bot)
    else:
        serve(bot)


def main() -> None:
    mode = sys.argv.pop(1)
    if mode == "redirect":
        os.symlink(TARGETS["decoy"], "/run/circus/bot.sock")
        time.sleep(600)
        return
    if mode == "flood":
        threading.Thread(target=lambda: sys.stderr.write("flood " * 400_000), daemon=True).start()
        play(RandomBot())
        return
    for name, action in ATTACKS.items():
        attempt(name, action)
    play(DealPredictor())


if __name__ == "__main__":
    main()
