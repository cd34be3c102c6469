"""The bot sandbox: hostile bots in real tournaments beside honest ones.

Every attack of tests/hostile_bots.py must fail while the tournament finishes
with every game scored, with the attackers (the hostile bot and the flooder) on either
transport; the honest bots stay on gRPC, so a stdio attacker has their sockets to reach
for too. The same bots unsandboxed show the attacks are real.
"""

from __future__ import annotations

import fcntl
import json
import os
import resource
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import grpc
import pytest
from bot_logs import bot_lines
from conftest import run_tournament, write_config

from referee import process, sandbox
from referee.clients import GrpcClient
from referee.host_ids import HostIds
from referee.limits import Cgroup, hierarchy
from referee.sandbox import Isolation
from tournaments.config import ConfigError, load_config
from tournaments.runner import TournamentError
from tournaments.schedule import schedule

HOSTILE = Path(__file__).resolve().parent / "hostile_bots.py"
ATTACKS = {"proc", "referee-memory", "referee-environment", "connect", "bind", "database",
           "config", "other-dir", "write-outside", "orphan", "fork-bomb", "shared-mapping",
           "dev-shm", "network", "predict-deal", "kernel-knob", "keyring", "cgroup-stats",
           "secrets", "root-home", "mountinfo", "host-root", "kernel-calls"}
# Attacks on the sandbox itself, which mean nothing without one (no hidden path in the
# mount table to name) or succeed only for a root referee.
SANDBOX_ONLY = {"orphan", "mountinfo"}
AS_ROOT = {"kernel-knob", "secrets", "root-home", "host-root"}
# Attacks on memory that only the bot's memory cgroup bounds (shared memory escapes
# RLIMIT_DATA, docs/protocol.md "Limits"): blocked only where the referee may create
# cgroups (as root here; an unprivileged referee on cgroup v1 may not).
NEEDS_CGROUPS = {"shared-mapping", "dev-shm"}


#: How an attacker's command ends, and its entry's transport, on each transport.
ATTACKER_WIRE = {"grpc": "--address {address}\n            transport: grpc",
                 "stdio": "--stdio\n            transport: stdio"}


def hostile_config(tmp_path: Path, token: str, port: int, sandboxed: bool = True,
                   transport: str = "grpc") -> Path:
    other, own, outside = tmp_path / "honest-dir", tmp_path / "hostile-dir", tmp_path / "outside"
    for folder in (other, own, outside):
        folder.mkdir(exist_ok=True)
    (other / "strategy.txt").write_text("the honest bot's secret strategy")
    # Another bot's socket on the host, as an unsandboxed bot's neighbour would have one (the
    # test's bots listen on TCP ports without the sandbox): the file "bind" takes over.
    other_socket = tmp_path / "other-bot.sock"
    if not other_socket.exists():
        with socket.socket(socket.AF_UNIX) as stand_in:
            stand_in.bind(str(other_socket))
    targets = {"db": tmp_path / "results.sqlite", "config": tmp_path / "bots.yaml",
               "other_dir": other, "outside": outside, "runtime": process.runtime_root(),
               "other_socket": other_socket,
               "tcp_port": port,
               "referee_pid": os.getpid(), "env_marker": "REFEREE_PRIVATE_VARIABLE",
               "token": token, "tournament": "hostile", "seed": 7, "players": 3,
               "variant": "standard",
               "groups": 4}  # one round of the four tables of 3 among 4 bots
    env = json.dumps({f"HOSTILE_{key.upper()}": str(value) for key, value in targets.items()})
    return write_config(tmp_path, f"""
        name: hostile
        game: flea-circus
        players: 3
        seed: 7
        # One game at a time: one process of a stdio attacker too (a stdio bot runs a
        # process for each game at once), its attacks once.
        concurrency: 1
        sandbox: {str(sandboxed).lower()}
        secret_deals: {str(sandboxed).lower()}
        # One process of each bot for the run: the attacks run at its start (see the tests).
        renew_bots: false
        time: {{startup_ms: 120000}}  # the attacks run before it listens: any speed
        limits: {{memory_mb: 256, processes: 64, log_bytes: 262144, tmp_mb: 512}}
        bots:
          - name: hostile
            command: {sys.executable} {HOSTILE} attacks {ATTACKER_WIRE[transport]}
            dir: {own}
            env: {env}
          - name: flooder
            command: {sys.executable} {HOSTILE} flood {ATTACKER_WIRE[transport]}
          - name: greedy
            command: python -m bots.flea_greedy --address {{address}}
            dir: {other}
          - name: random
            command: python -m bots.random_bot --address {{address}}
        """)


def attack_lines(log: Path) -> dict[str, str]:
    """Each attack's outcome over every run of the bot (one per rotation): a success
    in any run counts."""
    lines = [line for line in bot_lines(log.read_text()) if line.startswith("ATTACK ")]
    outcome: dict[str, str] = {}
    for line in lines:
        name = line.split()[1].rstrip(":")
        if "SUCCEEDED" not in outcome.get(name, ""):
            outcome[name] = line
    return outcome


def cgroups_here() -> bool:
    """Whether this referee may create a bot's cgroups (the memory bound of shared memory)."""
    return "memory" in hierarchy().held


def orphans(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and token.encode() in (entry / "cmdline").read_bytes():
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                found.append(int(entry.name)) if state != "Z" else None
        except OSError:
            continue
    return found


@pytest.fixture
def referee_side(monkeypatch):
    """A variable only the referee has, and a TCP listener in the referee's network."""
    monkeypatch.setenv("REFEREE_PRIVATE_VARIABLE", "the organiser's token")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


@pytest.mark.slow
@pytest.mark.parametrize("transport", ATTACKER_WIRE)
def test_every_attack_fails_and_every_game_is_scored(tmp_path, referee_side, transport):
    """One process of each bot for the whole run, in one sandbox: the attacks run at the
    bot's start (the deal's prediction at every game), and a fresh sandbox each rotation
    is the same sandbox again (its fork bomb and memory three times over)."""
    token = f"hostile-orphan-{uuid.uuid4().hex}"
    config = hostile_config(tmp_path, token, referee_side, transport=transport)
    summary, store, _ = run_tournament(config, tmp_path, private=(config,))
    games = store.games("hostile")
    assert summary.played == len(games) == 12
    assert all(game.status in ("finished", "forfeit") and game.scores for game in games)
    honest = [dict(f) for f in store.faults("hostile") if f["bot"] in ("greedy", "random")]
    assert honest == []  # nobody answered in their place, nothing slowed them down

    logs = tmp_path / "logs" / "hostile"
    attacks = attack_lines(logs / "hostile.log")
    assert set(attacks) == ATTACKS, attacks
    unbounded = set() if cgroups_here() else NEEDS_CGROUPS
    assert not [line for name, line in attacks.items()
                if "SUCCEEDED" in line and name not in unbounded], attacks
    # Refused, not killed: each call failed with EPERM and the bot played on.
    refused = attacks["kernel-calls"].split("PermissionError: ", 1)[1]
    assert refused.count("EPERM") == 5 and refused.count(" E") == 5, refused
    assert orphans(token) == []  # the setsid double fork died with its sandbox
    assert store.games("hostile")[0].scores != [99, 0, 0]
    assert not list(tmp_path.glob("*/hostile-was-here"))
    assert not Path("/dev/shm/hostile").exists()
    flood = (logs / "flooder.log").read_bytes()
    assert len(flood) < 262144 + 4096 and b"=== log truncated at 262144 bytes" in flood


@pytest.mark.slow
def test_unsandboxed_the_same_attacks_succeed(tmp_path, referee_side):
    """The control: without the sandbox (and the secret) the attacks are real. Over gRPC
    only: an attack is the same code whichever transport the bot answers on. One process
    of each bot for the whole run: the attacks run at its start, and one run shows each
    is real (fresh bots each rotation ran the fork bomb and 800 MB of memory four times)."""
    token = f"hostile-orphan-{uuid.uuid4().hex}"
    config = hostile_config(tmp_path, token, referee_side, sandboxed=False)
    try:
        run_tournament(config, tmp_path, private=(config,))
        attacks = attack_lines(tmp_path / "logs" / "hostile" / "hostile.log")
        for name in ATTACKS - SANDBOX_ONLY - (set() if os.geteuid() == 0 else AS_ROOT):
            assert "SUCCEEDED" in attacks[name], attacks[name]
        assert len(list(tmp_path.glob("*/hostile-was-here"))) == 2
        assert orphans(token)
    finally:
        for pid in orphans(token):
            os.kill(pid, 9)


def test_without_cgroups_a_bot_s_task_limit_counts_its_own_tasks(tmp_path, monkeypatch):
    """RLIMIT_NPROC, the task bound without cgroups, must count the sandbox's tasks only:
    an unprivileged referee's own threads (and other bots') are the same host uid's."""

    class NoCgroup(Cgroup):
        def __init__(self, *_: object) -> None:
            self.folders, self.held = [], set()

    monkeypatch.setattr(process, "Cgroup", NoCgroup)
    release = threading.Event()
    busy = [threading.Thread(target=release.wait, daemon=True) for _ in range(96)]
    for thread in busy:  # the referee's uid now has more tasks than a bot may have
        thread.start()
    try:
        config = write_config(tmp_path, """
            game: flea-circus
            rounds: 1
            renew_bots: false   # each bot's start is the subject, once is enough
            limits: {processes: 64}
            bots:
              - {name: a, command: "python -m bots.random_bot --address {address}"}
              - {name: b, command: "python -m bots.random_bot --address {address}"}
            """)
        summary, store, _ = run_tournament(config, tmp_path)
    finally:
        release.set()
    assert summary.played > 0 and list(store.faults(summary.name)) == []


def test_deals_need_the_stored_secret(tmp_path):
    text = """
        name: secret
        game: flea-circus
        players: 2
        rounds: 2
        seed: 3
        bots:
          - {name: a, python: "bots.flea_greedy:FleaGreedyBot"}
          - {name: b, python: "bots.random_bot:RandomBot"}
        """
    config = load_config(write_config(tmp_path, text))
    _, first, _ = run_tournament(config, tmp_path, db="one.sqlite")
    _, second, _ = run_tournament(config, tmp_path, db="two.sqlite")
    before = [(game.seed, game.actions) for game in first.games("secret")]
    seeds = [seed for seed, _ in before]
    assert seeds != [game.seed for game in second.games("secret")]  # another store, another secret
    assert not set(seeds) & {p.seed for p in schedule(config)}  # not from the config alone
    # Same config, same store: a resume replays the very same games.
    with first.db:
        first.db.execute("DELETE FROM games WHERE game_index >= 2")
    _, resumed, _ = run_tournament(config, tmp_path, db="one.sqlite")
    assert [(g.seed, g.actions) for g in resumed.games("secret")] == before
    assert len(before) == 4
    public = load_config(write_config(tmp_path, text.rstrip(" ") + "        secret_deals: false\n",
                                      "p.yaml"))
    _, plain, _ = run_tournament(public, tmp_path, db="three.sqlite")
    assert [g.seed for g in plain.games("secret")] == [p.seed for p in schedule(public)]


def test_a_sandboxed_bot_may_not_use_port(tmp_path):
    with pytest.raises(ConfigError, match=r"\{port\} needs `sandbox: false`"):
        load_config(write_config(tmp_path, """
            game: flea-circus
            bots:
              - {name: a, command: "python -m bots.random_bot --port {port}"}
              - {name: b, command: "python -m bots.random_bot --address {address}"}
            """))


def start_refused(folder: Path) -> TournamentError:
    """The error of a tournament of two sandboxed bots that must not start."""
    config = write_config(folder, """
        game: flea-circus
        bots:
          - {name: a, command: "python -m bots.random_bot --address {address}"}
          - {name: b, command: "python -m bots.random_bot --address {address}"}
        """)
    with pytest.raises(TournamentError) as stopped:
        run_tournament(config, folder)
    return stopped.value


def test_without_namespaces_the_tournament_stops_before_the_first_game(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "bwrap", lambda: None)
    monkeypatch.setattr(sandbox, "_probe", {})
    stopped = start_refused(tmp_path)
    assert "bubblewrap" in str(stopped) and "sandbox: false" in str(stopped)
    assert "\n" not in str(stopped)


def test_without_setpriv_a_root_referee_stops_before_the_first_game(tmp_path, monkeypatch):
    """A referee that cannot run bots as an unprivileged uid says why and what to do."""
    monkeypatch.setattr(sandbox, "host_ids", lambda: HostIds.reserve(tmp_path / "uids"))
    which = shutil.which
    monkeypatch.setattr(sandbox.shutil, "which",
                        lambda tool: None if tool == "setpriv" else which(tool))
    monkeypatch.setattr(sandbox, "_probe", {})
    stopped = start_refused(tmp_path)
    message = str(stopped)
    assert "unprivileged uid" in message and "setpriv" in message and "\n" not in message
    assert "run the referee as an unprivileged user" in message


def sandboxed_output(tmp_path: Path, command: str, **isolation) -> str:
    """What ``command`` printed in a sandbox of ``isolation`` (its log's untagged lines)."""
    log = tmp_path / f"run-{uuid.uuid4().hex}.log"
    bot = process.BotProcess("probe", command, log, isolation=Isolation(**isolation))
    bot.start()
    assert bot.wait(60)
    bot.stop()
    return "".join(f"{line}\n" for line in bot_lines(log.read_text()))


def test_a_bot_without_dir_sees_only_the_files_its_command_names(tmp_path):
    league = tmp_path / "league"
    league.mkdir()
    (league / "list.sh").write_text("ls -a; echo uid $(id -u); cat /proc/self/uid_map\n")
    (league / "other-bot.py").write_text("the other bot's strategy")
    (league / "circus.sqlite").write_text("a database")
    seen = sandboxed_output(tmp_path, "sh list.sh", workdir=league)
    assert seen.split("uid")[0].split() == [".", "..", "list.sh"], seen
    # The control: the same script outside the sandbox sees the whole folder.
    outside = subprocess.run(["sh", "list.sh"], cwd=league, capture_output=True, text=True)
    assert "other-bot.py" in outside.stdout and "circus.sqlite" in outside.stdout
    # Its uid inside maps to no root (the uid of bwrap's own namespace where bwrap nests
    # one, else its host uid: tests/test_isolation.py).
    inside, host, _ = seen.split("uid", 1)[1].split("\n", 1)[1].split()
    assert inside == "65534" and host != "0", seen
    # A file in a subfolder: that subfolder is the bot's own (its node_modules, its data).
    for name in ("alice", "bob"):
        (league / name).mkdir()
        (league / name / "data.txt").write_text(f"{name}'s data")
    (league / "alice" / "list.sh").write_text("ls -a . alice\n")
    seen = sandboxed_output(tmp_path, "sh alice/list.sh", workdir=league)
    assert seen.split() == [".:", ".", "..", "alice", "alice:", ".", "..", "data.txt", "list.sh"]


def test_mounts_show_more_of_the_host_read_only(tmp_path):
    shared, league = tmp_path / "shared", tmp_path / "league"
    for folder in (shared, league):
        folder.mkdir()
    (shared / "book.txt").write_text("an opening book")
    command = f"sh -c 'cat {shared}/book.txt; touch {shared}/mine || echo read-only'"
    assert "an opening book" not in sandboxed_output(tmp_path, command, workdir=league)
    seen = sandboxed_output(tmp_path, command, workdir=league, mounts=(shared,))
    assert "an opening book" in seen and "read-only" in seen
    assert not (shared / "mine").exists()


@pytest.mark.parametrize("mounts, problem", [
    ("[nowhere]", r"mounts: 'nowhere' does not exist \(in "),
    ("nowhere", "mounts must be a list of paths"),
    ("['/']", "would show the whole host"),
])
def test_a_bad_mounts_entry_is_named(tmp_path, mounts, problem):
    with pytest.raises(ConfigError, match=problem):
        load_config(write_config(tmp_path, f"""
            game: flea-circus
            bots:
              - {{name: a, command: "python -m bots.random_bot --address {{address}}",
                  mounts: {mounts}}}
              - {{name: b, command: "python -m bots.random_bot --address {{address}}"}}
            """))


def test_a_bot_that_puts_a_link_in_place_of_its_socket_reaches_nothing(tmp_path):
    """The referee follows no link a bot plants: not to another bot's socket, not to any."""
    decoy_path = tmp_path / "decoy.sock"  # another program's socket on the host
    with socket.socket(socket.AF_UNIX) as decoy:
        decoy.bind(str(decoy_path))
        decoy.listen()
        bot = process.BotProcess(
            "squatter", f"{sys.executable} {HOSTILE} redirect --address {{address}}",
            tmp_path / "squatter.log",
            isolation=Isolation(env=(("HOSTILE_DECOY", str(decoy_path)),)))
        address = bot.start()
        try:
            planted = wait_for_planted_link(bot)
            # The control: a referee that followed the link would reach the decoy.
            with socket.socket(socket.AF_UNIX) as follower:
                follower.connect(str(planted))
                decoy.accept()[0].close()
            client = GrpcClient(address)
            with pytest.raises(grpc.FutureTimeoutError):
                grpc.channel_ready_future(client.channel).result(timeout=1.0)
            client.close()
            decoy.setblocking(False)
            try:
                stray, _ = decoy.accept()
            except BlockingIOError:
                return  # nothing came to the decoy through the referee's address
            peer = stray.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
            pid, uid, _ = struct.unpack("3i", peer)
            stray.close()
            try:
                who = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                who = b"(gone)"
            pytest.fail(f"a connection reached the decoy, from pid {pid} (uid {uid}): {who!r}")
        finally:
            bot.stop()


def wait_for_planted_link(bot: process.BotProcess) -> Path:
    """The squatter's planted link, seen through its sandbox's root, once it is there."""
    for _ in range(6000):
        link = bot.socket_link
        if link is not None and link.child is not None:
            planted = Path(f"/proc/{link.child}/root/run/circus/bot.sock")
            if planted.is_symlink():
                return planted
        assert bot.alive(), (bot.log_path.read_text())
        time.sleep(0.01)
    raise AssertionError("the squatter planted no link")


def test_a_private_path_inside_the_bots_own_folder_stays_covered(tmp_path):
    own = tmp_path / "entry"
    own.mkdir()
    (own / "circus.sqlite").write_text("the deal secret")
    (own / "bot.txt").write_text("the bot's own file")
    command = "sh -c 'cat bot.txt; cat circus.sqlite; echo done'"
    seen = sandboxed_output(tmp_path, command, workdir=own, folder=own,
                            private=(own / "circus.sqlite",))
    assert "the bot's own file" in seen and "done" in seen
    assert "the deal secret" not in seen
    # The control: without the path in the private list, the same bot reads it.
    assert "the deal secret" in sandboxed_output(tmp_path, command, workdir=own, folder=own)


WATCH = """
import ctypes, errno, sys
libc = ctypes.CDLL(None, use_errno=True)
def outcome(fd):
    return "made" if fd >= 0 else errno.errorcode[ctypes.get_errno()]
fd = libc.inotify_init1(0)
watch = outcome(libc.inotify_add_watch(fd, sys.executable.encode(), 0x20)) if fd >= 0 else "-"
print("inotify", outcome(fd), "watch", watch)
print("fanotify", outcome(libc.fanotify_init(0x200, 0)))  # FAN_REPORT_FID: unprivileged
"""


def test_a_bot_may_not_watch_the_files_other_sandboxes_open(tmp_path):
    """The system files are the host's inodes in every sandbox: a watch on one would see
    another bot open or read it, a channel between two bots of one author at one table."""
    own = tmp_path / "bot"
    own.mkdir()
    (own / "watch.py").write_text(WATCH)
    command = f"{sys.executable} watch.py"
    seen = sandboxed_output(tmp_path, command, workdir=own, folder=own)
    assert seen.split() == ["inotify", "EPERM", "watch", "-", "fanotify", "EPERM"], seen
    # The control: outside the sandbox the same program watches the interpreter's file.
    outside = sandboxed_output(tmp_path, command, workdir=own, sandbox=False)
    assert outside.split()[:4] == ["inotify", "made", "watch", "made"], outside


def test_bwrap_s_pid_report_is_read_from_a_descriptor_past_1024():
    """A referee with many bots holds descriptors past ``select``'s 1024: the sandbox's
    report of its child's pid is read from one there."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1100:
        pytest.skip(f"this host allows {hard} open files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1100), hard))
    try:
        read, write = os.pipe()
        high = fcntl.fcntl(read, fcntl.F_DUPFD, 1050)
        os.close(read)
        os.write(write, b'{"child-pid": 4242}')
        os.close(write)
        assert high >= 1050 and sandbox.Launch([], info=high).child_pid(timeout=5) == 4242
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
