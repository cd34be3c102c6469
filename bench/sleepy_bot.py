"""A random bot that sleeps before every decision: a stand-in for a bot that thinks.

Run as ``python bench/sleepy_bot.py --sleep-ms 20 --address ADDRESS``. Its moves
are the random bot's (deterministic from each request), so only time changes.
The cluster benchmark uses it so that waiting for bots, not the machine's cores,
limits the games per second.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.random_bot import RandomBot  # noqa: E402
from bots.sdk import serve  # noqa: E402


class SleepyBot(RandomBot):
    def __init__(self, sleep_ms: int) -> None:
        self.sleep_s = sleep_ms / 1000
        self.name = "sleepy"

    def decide(self, request) -> int:
        time.sleep(self.sleep_s)
        return super().decide(request)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sleep-ms", type=int, default=20)
    args, rest = parser.parse_known_args()
    serve(SleepyBot(args.sleep_ms), rest)


if __name__ == "__main__":
    main()
