"""The seccomp filter of a sandboxed bot: an allowlist of system calls, refusing the rest.

A bot may make the system calls that programs in Python, Node.js, Go, C++, Java,
Ruby and Perl make (:data:`ALLOWED`); every other call fails. Listing what is
allowed, rather than what is not, means a system call the kernel gains later
(``open_tree_attr``, ``listmount``, ``cachestat``, ...) is refused until someone
looks at it and adds it here. Refusals fail the call, never kill the bot:

* a call this list does not know fails with ``ENOSYS``, as on a kernel that has
  not got it yet, so a runtime that probes a new call (``clone3``, ``fchmodat2``)
  falls back to the old one as it would there;
* a call refused on purpose (:data:`REFUSED`) fails with ``EPERM``;
* a lock on a file (``flock``, ``fcntl``'s record, open-file-description and
  lease commands) fails with ``ENOLCK``, as on a file system without locks: locks
  live on the inode, and the files every sandbox sees (the interpreter's, ``/usr``,
  ``/dev/null``) are the same inodes in every sandbox, so a lock would be a
  channel between two bots; no system call tells the kernel's lock apart by path,
  and a bot has no use for locks on files of its own that a refusal would break
  (SQLite opens a database with ``?immutable=1`` or ``nolock=1``);
* a socket of a family other than unix, IPv4 and IPv6 fails with ``EAFNOSUPPORT``,
  as on a kernel without that family: ``AF_VSOCK``'s ports and ``AF_NETLINK``'s
  broadcasts are not confined by the bot's network namespace;
* ``sysinfo`` fails with ``EPERM``: its process count, load and free memory are
  the whole machine's, moved by every other bot, and no namespace confines them
  (glibc's ``sysconf(_SC_PHYS_PAGES)`` asks it without looking at the failure, so
  a bot reads its memory from ``/proc/meminfo``, which the sandbox shows constant).
"""

from __future__ import annotations

import errno
import os
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyseccomp

# The system calls a bot may make, by what they are for.
ALLOWED = {
    "reading and writing": (
        "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev",
        "preadv2", "pwritev2", "lseek", "sendfile", "splice", "tee", "vmsplice",
        "copy_file_range", "readahead", "fadvise64", "fsync", "fdatasync", "sync",
        "syncfs", "sync_file_range", "close", "close_range", "dup", "dup2", "dup3",
        "pipe", "pipe2", "ioctl"),
    "files and folders": (
        "open", "openat", "openat2", "creat", "stat", "fstat", "lstat", "newfstatat",
        "statx", "statfs", "fstatfs", "access", "faccessat", "faccessat2", "readlink",
        "readlinkat", "getdents", "getdents64", "getcwd", "chdir", "fchdir", "mkdir",
        "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "link",
        "linkat", "symlink", "symlinkat", "chmod", "fchmod", "fchmodat", "chown", "fchown",
        "lchown", "fchownat", "truncate", "ftruncate", "fallocate", "utime", "utimes",
        "utimensat", "futimesat", "umask", "mknod", "mknodat", "getxattr", "lgetxattr",
        "fgetxattr", "listxattr", "llistxattr", "flistxattr", "setxattr", "lsetxattr",
        "fsetxattr", "removexattr", "lremovexattr", "fremovexattr"),
    "memory": (
        "brk", "mmap", "munmap", "mprotect", "madvise", "mremap", "msync", "mincore",
        "mlock", "mlock2", "munlock", "mlockall", "munlockall", "membarrier", "memfd_create",
        "pkey_alloc", "pkey_free", "pkey_mprotect", "get_mempolicy", "set_mempolicy",
        "mbind", "remap_file_pages"),
    "processes and threads": (
        "fork", "vfork", "execve", "execveat", "exit", "exit_group", "wait4", "waitid",
        "getpid", "getppid", "gettid", "getpgid", "getpgrp", "setpgid", "getsid", "setsid",
        "set_tid_address", "set_robust_list", "get_robust_list", "rseq", "futex",
        "arch_prctl", "prctl", "seccomp", "capget", "capset", "pidfd_open",
        "pidfd_send_signal", "restart_syscall", "uname", "getcpu", "getrandom"),
    "users, groups and limits": (
        "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid", "getgroups",
        "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setfsuid",
        "setfsgid", "setgroups", "getrlimit", "setrlimit", "prlimit64", "getrusage",
        "getpriority", "setpriority", "ioprio_get", "ioprio_set"),
    "scheduling": (
        "sched_yield", "sched_getaffinity", "sched_setaffinity", "sched_getparam",
        "sched_setparam", "sched_getscheduler", "sched_setscheduler", "sched_getattr",
        "sched_setattr", "sched_get_priority_max", "sched_get_priority_min",
        "sched_rr_get_interval"),
    "time and timers": (
        "clock_gettime", "clock_getres", "clock_nanosleep", "gettimeofday", "time",
        "nanosleep", "times", "alarm", "getitimer", "setitimer", "timer_create",
        "timer_delete", "timer_getoverrun", "timer_gettime", "timer_settime",
        "timerfd_create", "timerfd_gettime", "timerfd_settime"),
    "signals": (
        "kill", "tkill", "tgkill", "rt_sigaction", "rt_sigprocmask", "rt_sigpending",
        "rt_sigqueueinfo", "rt_tgsigqueueinfo", "rt_sigreturn", "rt_sigsuspend",
        "rt_sigtimedwait", "sigaltstack", "signalfd", "signalfd4", "pause"),
    "waiting on descriptors": (
        "poll", "ppoll", "select", "pselect6", "epoll_create", "epoll_create1", "epoll_ctl",
        "epoll_wait", "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2"),
    "sockets": (
        "bind", "listen", "accept", "accept4", "connect", "getsockname", "getpeername",
        "getsockopt", "setsockopt", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg",
        "recvmmsg", "shutdown"),
    # System V and POSIX IPC: the sandbox's own IPC namespace.
    "messages, semaphores and shared memory": (
        "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop", "semctl",
        "shmget", "shmat", "shmdt", "shmctl", "mq_open", "mq_unlink", "mq_timedsend",
        "mq_timedreceive", "mq_notify", "mq_getsetattr"),
}

# System calls a bot may not make (EPERM), and why: each reaches kernel state that
# other sandboxes share, or a power over processes or mounts no bot needs. None is in
# ALLOWED; each is named so that its refusal says EPERM, not "no such call".
REFUSED = {
    "kernel keyrings: a channel between sandboxes": ("add_key", "request_key", "keyctl"),
    "other processes' memory": ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp"),
    "kernel programs and counters": ("bpf", "perf_event_open", "userfaultfd",
                                     "io_uring_setup", "io_uring_enter", "io_uring_register"),
    "mounts": ("mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
               "fsconfig", "fsmount", "fspick", "mount_setattr", "name_to_handle_at",
               "open_by_handle_at"),
    "namespaces": ("unshare", "setns"),
    # The system files are the host's own inodes in every sandbox: a watch on one sees
    # another sandbox open or read it, a channel between two bots of one author.
    "watching files other sandboxes open": ("inotify_init", "inotify_init1",
                                            "inotify_add_watch", "fanotify_init",
                                            "fanotify_mark"),
    "the whole machine's process count, load and free memory": ("sysinfo",),
    # The machine's count of asynchronous I/O contexts is one for everybody (aio-max-nr).
    "kernel asynchronous I/O": ("io_setup", "io_destroy", "io_submit", "io_cancel",
                                "io_getevents", "io_pgetevents"),
    "the machine": ("reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module",
                    "delete_module", "swapon", "swapoff", "acct", "syslog", "quotactl",
                    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "iopl",
                    "ioperm", "vhangup", "uselib", "personality"),
}
# clone() flags that make a namespace: refused, so a bot makes none (nor a nested user
# namespace with every capability). clone3 passes its flags in memory no filter reads,
# so it is left unknown (ENOSYS), and libc falls back to clone.
CLONE_NAMESPACES = (0x00000080, 0x00020000, 0x02000000, 0x04000000, 0x08000000,
                    0x10000000, 0x20000000, 0x40000000)
# ioctls that push input into a terminal or drive the console.
TTY_IOCTLS = (0x5412, 0x541C)  # TIOCSTI, TIOCLINUX
# fcntl commands a bot may use: descriptors, status flags, signal owners, pipe sizes,
# seals and hints. The lock commands are LOCKS; any other fails as unknown.
FCNTL_ALLOWED = (0, 1, 2, 3, 4,          # F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL
                 8, 9, 10, 11, 15, 16,   # F_SETOWN, F_GETOWN, F_SETSIG, F_GETSIG, _EX
                 1030, 1031, 1032,       # F_DUPFD_CLOEXEC, F_SETPIPE_SZ, F_GETPIPE_SZ
                 1033, 1034,             # F_ADD_SEALS, F_GET_SEALS
                 1035, 1036, 1037, 1038)  # F_GET/SET_RW_HINT, F_GET/SET_FILE_RW_HINT
# fcntl commands that lock a file or watch a folder, shared through its inode by every
# sandbox that sees it: F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK,
# F_OFD_SETLKW, F_SETLEASE, F_GETLEASE, F_NOTIFY.
LOCKS = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)
# The socket families a bot may open: unix (its socket to the referee), IPv4 and IPv6
# (on its own loopback: a gRPC runtime may open them to probe what the host has).
SOCKET_FAMILIES = (1, 2, 10)  # AF_UNIX, AF_INET, AF_INET6
# Every family number above the last known one is refused too.
LAST_FAMILY = 64


_programs: list[tuple[bytes, bytes]] = []


def programs() -> tuple[bytes, bytes]:
    """The compiled filters (BPF), built once by libseccomp: the allowlist, then the
    ioctls refused. The kernel runs both and keeps the stricter answer: within one
    filter, an ioctl allowed whatever its request would be allowed whatever the refusal."""
    if not _programs:
        try:
            import pyseccomp
        except (ImportError, OSError, AttributeError) as error:  # no binding, or no library
            raise OSError(f"pyseccomp cannot load libseccomp: {error}") from None
        _programs.append((_compiled(_allowlist(pyseccomp)), _compiled(_ioctls(pyseccomp))))
    return _programs[0]


def _allowlist(seccomp: ModuleType) -> pyseccomp.SyscallFilter:
    rules = seccomp.SyscallFilter(seccomp.ERRNO(errno.ENOSYS))
    refuse = seccomp.ERRNO(errno.EPERM)
    # A system call of another ABI (i386 on x86-64) is refused, not a way around the list.
    rules.set_attr(seccomp.Attr.ACT_BADARCH, refuse)
    for action, table in ((seccomp.ALLOW, ALLOWED), (refuse, REFUSED)):
        for call in (call for calls in table.values() for call in calls):
            try:
                rules.add_rule(action, call)
            except (OSError, ValueError, RuntimeError):
                continue  # not a system call of this architecture
    _add_argument_rules(rules, seccomp)
    return rules


def _ioctls(seccomp: ModuleType) -> pyseccomp.SyscallFilter:
    """Every call allowed (the allowlist decides), but the terminal ioctls, by request
    (the kernel reads only its low 32 bits)."""
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    rules.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.ERRNO(errno.EPERM))
    for request in TTY_IOCTLS:
        rules.add_rule(seccomp.ERRNO(errno.EPERM), "ioctl",
                       seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
    return rules


def _compiled(rules: pyseccomp.SyscallFilter) -> bytes:
    read, write = os.pipe()
    try:
        with os.fdopen(write, "wb") as out:
            rules.export_bpf(out)
        chunks = []
        while chunk := os.read(read, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(read)


def _add_argument_rules(rules: pyseccomp.SyscallFilter, seccomp: ModuleType) -> None:
    """The calls allowed or refused by their arguments: clone, fcntl, flock, socket."""
    refuse = seccomp.ERRNO(errno.EPERM)
    namespaces = 0
    for flag in CLONE_NAMESPACES:
        namespaces |= flag
        rules.add_rule(refuse, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(seccomp.ALLOW, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, namespaces, 0))
    for command in FCNTL_ALLOWED:
        rules.add_rule(seccomp.ALLOW, "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    no_locks = seccomp.ERRNO(errno.ENOLCK)
    for command in LOCKS:
        rules.add_rule(no_locks, "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    rules.add_rule(no_locks, "flock")
    no_family = seccomp.ERRNO(errno.EAFNOSUPPORT)
    for family in range(LAST_FAMILY):
        action = seccomp.ALLOW if family in SOCKET_FAMILIES else no_family
        rules.add_rule(action, "socket", seccomp.Arg(0, seccomp.EQ, family))
    rules.add_rule(no_family, "socket", seccomp.Arg(0, seccomp.GE, LAST_FAMILY))
    rules.add_rule(seccomp.ALLOW, "socketpair", seccomp.Arg(0, seccomp.EQ, SOCKET_FAMILIES[0]))
