"""The host uid of a root referee's bot: drawn at random, held by one start at a time.

A root referee runs each bot start as an unprivileged uid and gid of its own,
so that no two bots share what the kernel counts per user (processes, and with
them RLIMIT_NPROC; inotify instances, message queues, keys). The number is
drawn at random from a range no user has (it tells a bot nothing: not the
referee's pid, not how many bots started before it), and reserved with a lock
file in a folder only root writes: another referee on the same machine, or a
start of this one, drawing the same number draws again. A referee that dies
drops its locks with its descriptors, and its numbers are free again.
"""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

# The range the numbers are drawn from: no user has a uid there.
FIRST = 0x70000000
COUNT = 0x0FFFFFFF
# Where the reservations are: a folder of root's, in /run where it exists.
FOLDER = Path("/run/circus-bot-uids")


@dataclass
class HostIds:
    """One start's uid and gid (the same number), reserved until :meth:`release`."""

    number: int
    lock: int
    path: Path

    @property
    def ids(self) -> tuple[int, int]:
        return self.number, self.number

    @classmethod
    def reserve(cls, folder: Path = FOLDER) -> HostIds:
        """A number no other start holds now (raises OSError if none is found)."""
        _make_folder(folder)
        for _ in range(64):
            number = FIRST + secrets.randbelow(COUNT)
            path = folder / str(number)
            lock = os.open(path, os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                # Locked the file still at the path, not one a releasing start unlinked.
                if os.path.samestat(os.fstat(lock), os.stat(path, follow_symlinks=False)):
                    return cls(number, lock, path)
            except OSError as error:
                if error.errno not in (errno.EWOULDBLOCK, errno.ENOENT):
                    os.close(lock)
                    raise
            os.close(lock)
        raise OSError(f"no free bot uid found in {folder}")

    def release(self) -> None:
        """Free the number (once the start's processes are gone)."""
        if self.lock < 0:
            return
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        os.close(self.lock)
        self.lock = -1


def _make_folder(folder: Path) -> None:
    """Make the folder of reservations, or check that only this referee's user (root)
    may write in it."""
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    found = os.lstat(folder)
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.geteuid() or found.st_mode & 0o022:
        raise OSError(f"{folder} is not a folder only uid {os.geteuid()} may write")
