"""``python -m bench.log_flood``: what a bot's log flood costs the referee (issue 32).

A bot writes 64 KiB blocks to stdout as fast as it can for ``--seconds``, with a
1 MiB log cap, sandboxed and not; a quiet bot (it sleeps as long) is the control.
The figure is the referee's own CPU (user + system, ``RUSAGE_SELF``) per wall
second while the bot runs: what the flood costs the process that plays the games.
Only :class:`BotProcess`'s start, wait and stop are used, so the same file measures
an older commit too (docs/performance.md has both).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

from referee.process import BotProcess
from referee.sandbox import Isolation, unavailable_reason

FLOOD = ("import sys, time\n"
         "block, end = b'x' * 65536, time.time() + float(sys.argv[1])\n"
         "while time.time() < end:\n"
         "    sys.stdout.buffer.write(block)\n")
QUIET = "import sys, time\ntime.sleep(float(sys.argv[1]))\n"
CAP = 1 << 20


def referee_cpu(script: Path, seconds: float, sandboxed: bool, folder: Path) -> float:
    """The referee's CPU seconds per wall second while the bot runs, in cores."""
    address = " {address}" if sandboxed else ""
    bot = BotProcess("bench", f"{sys.executable} {script} {seconds}{address}",
                     folder / f"{script.stem}-{sandboxed}.log",
                     isolation=Isolation(sandbox=sandboxed, workdir=folder, log_bytes=CAP))
    before, started = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    bot.start()
    bot.wait(seconds * 10 + 60)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    bot.stop()
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="how long each bot runs")
    args = parser.parse_args()
    sides = [False] + ([True] if unavailable_reason() is None else [])
    with tempfile.TemporaryDirectory(prefix="bench-flood-") as temporary:
        folder = Path(temporary)
        scripts = {"flood": folder / "flood.py", "quiet": folder / "quiet.py"}
        scripts["flood"].write_text(FLOOD)
        scripts["quiet"].write_text(QUIET)
        print(f"the referee's CPU while a bot runs {args.seconds:g} s (log cap {CAP} bytes)")
        for sandboxed in sides:
            for kind, script in scripts.items():
                cores = referee_cpu(script, args.seconds, sandboxed, folder)
                where = "sandboxed" if sandboxed else "sandbox: false"
                print(f"  {kind:<6} {where:<15} {cores:.3f} core")


if __name__ == "__main__":
    main()
