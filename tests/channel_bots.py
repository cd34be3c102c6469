"""Two programs that try to talk across sandboxes through shared kernel objects.

Run as ``python tests/channel_bots.py MODE``:

* ``send`` holds what the kernel shares: an exclusive ``flock`` and an
  open-file-description lock on the interpreter's own file (every sandbox sees
  that inode), an ``AF_VSOCK`` port; then moves the machine's counters for good
  (open files, forks, busy threads). It prints ``SEND <channel>: <outcome>`` for
  each object, and ``SENDING`` once it has started moving the counters.
* ``receive`` looks at each channel while the sender works, and prints
  ``RECEIVE <channel>: <outcome>``: for a lock or a port, whether it could tell
  the sender's hold (the call's result, or its error); for a counter, ``constant
  <value>`` or ``moved <values>`` over ``SAMPLES`` readings.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import socket
import struct
import sys
import threading
import time

AF_VSOCK, VMADDR_CID_ANY, PORT = 40, 0xFFFFFFFF, 50555
F_OFD_GETLK, F_OFD_SETLK = 36, 37
COUNTERS = ("loadavg", "stat", "sys/fs/file-nr", "meminfo", "uptime", "cpuinfo")
SAMPLES = 8


def outcome(action) -> str:
    """``ok <result>``, or the error's name."""
    try:
        return f"ok {action()}"
    except OSError as error:
        return errno.errorcode.get(error.errno or 0, str(error.errno))


def lock_record(kind: int) -> bytes:
    """A ``struct flock`` over the whole file (type, whence, start, length, pid)."""
    return struct.pack("hhqqi", kind, 0, 0, 0, 0)


def flock(interpreter) -> str:
    return outcome(lambda: fcntl.flock(interpreter, fcntl.LOCK_EX | fcntl.LOCK_NB))


def ofd_lock(interpreter, command: int) -> str:
    """An open-file-description lock (read: the file is opened read-only), or the holder
    F_OFD_GETLK reports for a write lock (F_UNLCK, 2, when nobody holds one)."""
    def lock():
        answer = fcntl.fcntl(interpreter, command, lock_record(fcntl.F_RDLCK if command ==
                                                               F_OFD_SETLK else fcntl.F_WRLCK))
        return struct.unpack("hhqqi", answer)[0]
    return outcome(lock)


def vsock_port() -> str:
    def bind():
        held = socket.socket(AF_VSOCK, socket.SOCK_STREAM)
        held.bind((VMADDR_CID_ANY, PORT))
        return "bound"
    return outcome(bind)


def sysinfo() -> str:
    libc = ctypes.CDLL(None, use_errno=True)
    info = ctypes.create_string_buffer(128)
    if libc.sysinfo(info) == 0:
        return f"ok procs {struct.unpack_from('H', info, 80)[0]}"
    return errno.errorcode[ctypes.get_errno()]


def move_counters() -> None:
    """Open files, fork and spin, for good."""
    held = [open(sys.executable, "rb") for _ in range(200)]
    for _ in range(2):
        threading.Thread(target=lambda: [None for _ in iter(int, 1)], daemon=True).start()
    print("SENDING", flush=True)
    while True:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        held.append(open(sys.executable, "rb"))
        if len(held) > 600:
            for file in held[200:]:
                file.close()
            del held[200:]


def send() -> None:
    interpreter = open(sys.executable, "rb")
    print(f"SEND flock: {flock(interpreter)}", flush=True)
    print(f"SEND ofd-lock: {ofd_lock(open(sys.executable, 'rb'), F_OFD_SETLK)}", flush=True)
    print(f"SEND vsock: {vsock_port()}", flush=True)
    move_counters()


def receive() -> None:
    print(f"RECEIVE flock: {flock(open(sys.executable, 'rb'))}", flush=True)
    print(f"RECEIVE ofd-lock: {ofd_lock(open(sys.executable, 'rb'), F_OFD_GETLK)}", flush=True)
    print(f"RECEIVE vsock: {vsock_port()}", flush=True)
    readings: dict[str, list[str]] = {name: [] for name in COUNTERS}
    readings["sysinfo"] = []
    for _ in range(SAMPLES):
        for name in COUNTERS:
            with open(f"/proc/{name}") as counter:
                readings[name].append(counter.read())
        readings["sysinfo"].append(sysinfo())
        time.sleep(0.05)
    for name, values in readings.items():
        seen = sorted(set(values))
        state = f"constant {seen[0]!r}" if len(seen) == 1 else f"moved {seen!r}"
        print(f"RECEIVE {name}: {state[:200]}", flush=True)


if __name__ == "__main__":
    {"send": send, "receive": receive}[sys.argv[1]]()
