"""What one game needs to know about its bots: how to reach them, their clock and limits.

These are the referee's own settings; a tournament config (``tournaments.config``)
reads them from ``bots.yaml`` and checks them, and check-bot builds them from its
options. Keeping them here lets a single game run without any tournament around it.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version

from circus_outcomes import FaultClass, Policy

#: The fault classes and policies a config's ``faults:`` names (a suspension and an
#: ignored EndGame fault are the referee's own).
FAULT_CLASSES = (FaultClass.TIMEOUT, FaultClass.CRASH, FaultClass.ILLEGAL, FaultClass.ERROR)
FAULT_POLICIES = (Policy.SUBSTITUTE, Policy.FORFEIT, Policy.VOID)
DEFAULT_FAULTS = {FaultClass.TIMEOUT: Policy.SUBSTITUTE, FaultClass.ILLEGAL: Policy.SUBSTITUTE,
                  FaultClass.ERROR: Policy.SUBSTITUTE, FaultClass.CRASH: Policy.FORFEIT}
BOT_KINDS = ("command", "address", "python")
#: How the referee talks to a ``command:`` bot: gRPC calls on its socket, or JSON lines on
#: its stdin and stdout (referee.stdio).
TRANSPORTS = ("grpc", "stdio")


@dataclass(frozen=True)
class BotSpec:
    """One bot entry: a name and exactly one way to reach it.

    ``dir`` (its folder and working directory), ``cwd`` (its working
    directory without ``dir``: the config file's folder; None: the referee's),
    ``env`` (extra environment), ``mounts`` (further host paths its sandbox
    shows, read-only), ``sandbox`` (None: the tournament's choice) and
    ``transport`` (one of :data:`TRANSPORTS`) are for ``command:`` bots;
    ``memory``, ``debug`` (log every request and reply) and ``time`` (a
    handicap: its seats' time control, None: the tournament's) for any.
    """

    name: str
    command: str | None = None
    address: str | None = None
    python: str | None = None
    dir: str | None = None
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    mounts: tuple[str, ...] = ()
    sandbox: bool | None = None
    # Keeps what it learns across games (None: only an address: bot, which the
    # referee cannot start afresh); such a bot's games get deals of their own.
    memory: bool | None = None
    debug: bool = False
    time: TimeConfig | None = None
    transport: str = "grpc"

    @property
    def kind(self) -> str:
        return next(kind for kind in BOT_KINDS if getattr(self, kind) is not None)

    @property
    def remembers(self) -> bool:
        """Whether the bot may carry memory from one game into the next."""
        return self.memory if self.memory is not None else self.kind == "address"


@dataclass(frozen=True)
class TimeConfig:
    move_ms: int = 1000
    bank_ms: int = 10000
    startup_ms: int = 10000
    # Deadline of StartGame and EndGame.
    call_ms: int = 5000
    # Added to every gRPC deadline, for transport and scheduling noise.
    grace_ms: int = 200


@dataclass(frozen=True)
class LimitsConfig:
    memory_mb: int = 1024
    cpu_seconds: int | None = None
    # Largest message accepted or sent, in bytes.
    message_bytes: int = 4 * 1024 * 1024
    # Tasks (processes and threads) in a bot's sandbox.
    processes: int = 128
    open_files: int = 1024
    # A bot's log file is cut here, with a marker line.
    log_bytes: int = 16 * 1024 * 1024
    # Size of each private tmpfs of the sandbox (/tmp, /dev/shm, /var/tmp, /run).
    tmp_mb: int = 64
    # CPU rate of the whole sandbox, in cores.
    cpus: float = 1.0
    # Refuse to run where the memory, tasks and CPU rate cannot be bounded for a
    # sandboxed bot as a whole (referee.limits); otherwise say so and run.
    require: bool = False


def package_version() -> str:
    """The version of circus-referee installed here ("not installed" when run from a copy
    of the source alone)."""
    try:
        return version("circus-referee")
    except PackageNotFoundError:
        return "not installed"
