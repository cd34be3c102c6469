"""Two sandboxed bots cannot talk through what the kernel shares between them, and a bot
learns nothing of the host's uids and hidden paths.

A sender holds locks and a vsock port and moves the machine's counters; a receiver,
in a sandbox of its own started once the sender works, looks at each channel
(tests/channel_bots.py). Each channel must tell the receiver nothing: the call
fails, or what it reads stays constant while the sender works. Run once for all
the channels (two bot starts), one test each.
"""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import socket
import sys
import time
import uuid
from pathlib import Path

import pytest
from bot_logs import bot_lines

from referee import process, sandbox
from referee.host_ids import COUNT, FIRST, FOLDER, HostIds
from referee.sandbox import Isolation

CHANNELS = Path(__file__).resolve().parent / "channel_bots.py"


def started(tmp: Path, mode: str) -> process.BotProcess:
    bot = process.BotProcess(mode, f"{sys.executable} {CHANNELS} {mode}",
                             tmp / f"{mode}-{uuid.uuid4().hex}.log", isolation=Isolation())
    bot.start()
    return bot


def lines(bot: process.BotProcess, prefix: str) -> dict[str, str]:
    found = {}
    for line in bot_lines(bot.log_path.read_text()):
        if line.startswith(prefix):
            name, _, outcome = line[len(prefix):].partition(": ")
            found[name] = outcome
    return found


def host_counter(name: str) -> str:
    return Path(f"/proc/{name}").read_text()


@pytest.fixture(scope="module")
def seen(tmp_path_factory) -> dict[str, tuple[str, str]]:
    """Each channel's outcome for the sender and for the receiver ("" where one has none),
    and the host's file-nr and /proc/stat before and while the sender worked."""
    tmp = tmp_path_factory.mktemp("channels")
    before = {name: host_counter(name) for name in ("sys/fs/file-nr", "stat")}
    sender = started(tmp, "send")
    try:
        for _ in range(3000):
            if "SENDING" in bot_lines(sender.log_path.read_text()):
                break
            assert sender.alive(), sender.log_path.read_text()
            time.sleep(0.01)
        receiver = started(tmp, "receive")
        assert receiver.wait(60), receiver.log_path.read_text()
        receiver.stop()
        during = {name: host_counter(name) for name in before}
    finally:
        sender.stop()
    sent, received = lines(sender, "SEND "), lines(receiver, "RECEIVE ")
    outcomes = {name: (sent.get(name, ""), received[name]) for name in received}
    outcomes["host"] = (str(before), str(during))
    return outcomes


def test_the_sender_moved_the_host_s_counters(seen):
    """The control: outside the sandbox, the counters the receiver reads move."""
    before, during = seen["host"]
    assert before != during


@pytest.mark.parametrize("channel", ["flock", "ofd-lock"])
def test_a_lock_on_a_file_every_sandbox_sees_is_refused(seen, channel):
    """The interpreter's file is one inode in every sandbox: a lock on it would be seen by
    every other bot. Both bots are refused with ENOLCK, so nothing is held or seen."""
    assert seen[channel] == ("ENOLCK", "ENOLCK")


def test_a_lock_works_outside_the_sandbox():
    """The control: unsandboxed, the same lock is taken, and another open file sees it."""
    with open(sys.executable, "rb") as holder, open(sys.executable, "rb") as other:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(BlockingIOError):
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_a_vsock_port_cannot_be_bound(seen):
    """vsock's ports are the machine's, in no network namespace: the family is refused."""
    assert seen["vsock"] == ("EAFNOSUPPORT", "EAFNOSUPPORT")


def test_vsock_exists_outside_the_sandbox():
    """The control, where this machine has vsock: the family the sandbox refuses is real."""
    try:
        socket.socket(40, socket.SOCK_STREAM).close()
    except OSError as error:
        pytest.skip(f"no vsock here ({error})")


def test_sysinfo_is_refused(seen):
    """sysinfo counts the machine's processes, load and free memory: refused."""
    assert seen["sysinfo"] == ("", "constant 'EPERM'")


@pytest.mark.parametrize("counter", ["sys/fs/file-nr", "stat", "loadavg", "meminfo", "uptime",
                                     "cpuinfo"])
def test_a_machine_counter_stays_constant_while_the_other_bot_moves_it(seen, counter):
    """The sender opens files, forks and spins all the while: the receiver reads one value."""
    assert seen[counter][1].startswith("constant "), seen[counter]


def test_the_frozen_counters_are_the_machine_s(seen):
    """What a program sizes itself by (the memory, the CPUs) is the machine's own."""
    assert host_counter("meminfo").splitlines()[0] in seen["meminfo"][1]
    assert seen["stat"][1].startswith("constant 'cpu ")


def test_a_system_call_newer_than_the_filter_is_refused(tmp_path):
    """The filter is an allowlist: open_tree_attr (Linux 6.15), which it does not name,
    fails with ENOSYS, as on a kernel without it; a call refused by name fails EPERM."""
    own = tmp_path / "bot"
    own.mkdir()
    (own / "calls.py").write_text(
        "import ctypes\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "for name, number in (('open_tree_attr', 467), ('keyctl', 250)):\n"
        "    result = libc.syscall(number, -100, b'/', 0, 0, 0)\n"
        "    print(name, result, ctypes.get_errno())\n")
    bot = process.BotProcess("calls", f"{sys.executable} calls.py", tmp_path / "calls.log",
                             isolation=Isolation(workdir=own, folder=own))
    bot.start()
    assert bot.wait(60)
    bot.stop()
    printed = [line.split() for line in bot_lines(bot.log_path.read_text())]
    assert printed == [["open_tree_attr", "-1", str(errno.ENOSYS)],
                       ["keyctl", "-1", str(errno.EPERM)]], printed


def run_printing(folder: Path, script: str) -> tuple[str, tuple[int, int] | None]:
    """What ``script`` (a shell script in the bot's own folder) printed in a sandbox, and
    the host uid and gid it ran as (None under an unprivileged referee)."""
    folder.mkdir()
    (folder / "script.sh").write_text(script)
    bot = process.BotProcess("printer", "sh script.sh", folder.parent / f"{folder.name}.log",
                             isolation=Isolation(workdir=folder, folder=folder))
    bot.start()
    ids = bot.ids
    assert bot.wait(60)
    bot.stop()
    return "".join(f"{line}\n" for line in bot_lines(bot.log_path.read_text())), ids


@pytest.mark.skipif(os.geteuid() != 0, reason="a root referee's bots get uids of their own")
def test_each_start_runs_as_a_random_uid_its_uid_map_does_not_name(tmp_path):
    seen = [run_printing(tmp_path / name, "cat /proc/self/uid_map\n") for name in "ab"]
    (first, first_ids), (second, second_ids) = seen
    assert first_ids and second_ids and first_ids[0] != second_ids[0]
    for uid_map, (uid, _) in seen:
        assert FIRST <= uid < FIRST + COUNT and str(uid) not in uid_map, uid_map
        assert not (FOLDER / str(uid)).exists()  # released once the start ended


def test_a_held_uid_is_not_drawn_again_until_released(tmp_path, monkeypatch):
    draws = iter([5, 5, 6, 5])
    monkeypatch.setattr(secrets, "randbelow", lambda _: next(draws))
    folder = tmp_path / "uids"
    first = HostIds.reserve(folder)
    second = HostIds.reserve(folder)  # draws 5, held: draws again
    assert (first.number, second.number) == (FIRST + 5, FIRST + 6)
    first.release()
    assert HostIds.reserve(folder).number == FIRST + 5


def test_a_folder_of_reservations_others_may_write_is_refused(tmp_path):
    folder = tmp_path / "uids"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    with pytest.raises(OSError, match="only uid"):
        HostIds.reserve(folder)


def test_the_mount_table_names_no_path_it_hides(tmp_path):
    """A private path inside the bot's own folder is left out of it, not covered by a
    mount: the bot's mount table does not name it, and the folder does not list it."""
    own = tmp_path / "entry"
    own.mkdir()
    (own / "circus.sqlite").write_text("the deal secret")
    (own / "bot.txt").write_text("the bot's own file")
    bot = process.BotProcess(
        "lister", "sh -c 'ls; cat circus.sqlite; cat /proc/self/mountinfo'",
        tmp_path / "lister.log",
        isolation=Isolation(workdir=own, folder=own, private=(own / "circus.sqlite",)))
    bot.start()
    assert bot.wait(60)
    bot.stop()
    listed, refused, *table = bot_lines(bot.log_path.read_text())
    assert listed == "bot.txt" and refused.endswith("circus.sqlite: No such file or directory")
    assert table and not [line for line in table if "circus.sqlite" in line]
    assert not [line for line in table if "/etc/shadow" in line or "/etc/ssh" in line]


def test_a_bubblewrap_without_add_seccomp_fd_is_named_too_old(monkeypatch):
    monkeypatch.setattr(sandbox, "_usage", ["usage: bwrap [OPTIONS...] [--] COMMAND\n"])
    monkeypatch.setattr(sandbox, "_probe", {})
    reason = sandbox.unavailable_reason()
    assert reason is not None and "0.5 or later" in reason and "\n" not in reason
