"""cProfile across threads, and the profile summed by where the time goes.

cProfile watches one thread; the tournament plays games on pool threads and calls
in-process bots on others. :class:`ThreadProfiler` gives every thread started inside it
(and the calling thread) a profiler of its own, timed by that thread's CPU clock so a
thread waiting on another costs nothing, and merges them at the end.
"""

from __future__ import annotations

import cProfile
import pstats
import threading
import time
from typing import Any

from referee.clients import end_idle_workers

# (what a path contains, category), first match wins.
CATEGORIES = [
    ("/referee/games/", "engine"),
    ("/bots/", "bots"),
    ("/referee/wire.py", "wire (protobuf)"),
    ("google/protobuf", "wire (protobuf)"),
    ("/circus/v1/", "wire (protobuf)"),
    ("/ratings/", "ratings"),
    ("/trueskill/", "ratings"),
    ("/tournaments/store.py", "storage"),
    ("/sqlite3/", "storage"),
    ("/json/", "storage"),
    ("/referee/match.py", "match loop"),
    ("/referee/clients.py", "bot calls (client, threads)"),
    ("/referee/stream.py", "bot calls (client, threads)"),
    ("concurrent/futures", "bot calls (client, threads)"),
    ("/threading.py", "bot calls (client, threads)"),
    ("/queue.py", "bot calls (client, threads)"),
    ("/tournaments/", "tournament loop"),
    ("/grpc/", "gRPC client"),
    ("/random.py", "bots"),
    ("/hashlib", "bots"),
]
BUILTIN_HINTS = [("sqlite3", "storage"), ("_upb", "wire (protobuf)"), ("cygrpc", "gRPC client"),
                 ("google", "wire (protobuf)"), ("_hashlib", "bots"), ("json", "storage"),
                 ("_thread.lock", "bot calls (client, threads)")]


class ThreadProfiler:
    def __init__(self) -> None:
        self.profiles: list[cProfile.Profile] = []
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()
        self.main = cProfile.Profile(time.thread_time)
        self.original_run: Any = None
        self._stats: pstats.Stats | None = None

    def __enter__(self) -> "ThreadProfiler":
        end_idle_workers()   # an earlier section's idle worker would run games unprofiled
        original = self.original_run = threading.Thread.run
        owner = self

        def profiled_run(thread: threading.Thread) -> None:
            profile = cProfile.Profile(time.thread_time)
            with owner.lock:
                owner.profiles.append(profile)
                owner.threads.append(thread)
            profile.enable()
            try:
                original(thread)
            finally:
                profile.disable()

        threading.Thread.run = profiled_run  # type: ignore[method-assign,assignment]
        self.main.enable()
        return self

    def __exit__(self, *exc) -> None:
        self.main.disable()
        threading.Thread.run = self.original_run  # type: ignore[method-assign]
        for thread in self.threads:  # pool threads wind down after their pool's shutdown
            thread.join(timeout=5)
        stats = pstats.Stats(self.main)
        for profile in self.profiles:
            try:
                stats.add(profile)
            except TypeError:  # a thread that never ran anything: no stats
                pass
        self._stats = stats

    @property
    def stats(self) -> pstats.Stats:
        """The profile of every thread, once the ``with`` block has ended."""
        if self._stats is None:
            raise RuntimeError("the profile is made when the profiler's with block ends")
        return self._stats


def category(function: tuple[str, int, str]) -> str | None:
    filename, _, name = function
    for needle, label in CATEGORIES:
        if needle in filename:
            return label
    if filename == "~":
        for needle, label in BUILTIN_HINTS:
            if needle in name:
                return label
        return None  # attributed to its callers
    return "other"


def breakdown(stats: pstats.Stats) -> tuple[dict[str, float], float]:
    """CPU seconds by category, and the total. Builtins count for their callers."""
    totals: dict[str, float] = {}
    grand = 0.0
    for function, (_, _, own, _, callers) in stats.stats.items():  # type: ignore[attr-defined]
        grand += own
        label = category(function)
        if label is not None:
            totals[label] = totals.get(label, 0.0) + own
            continue
        shares = {caller: values[2] for caller, values in callers.items()}
        shared = sum(shares.values())
        if not shared:
            totals["other"] = totals.get("other", 0.0) + own
            continue
        for caller, part in shares.items():
            label = category(caller) or "other"
            totals[label] = totals.get(label, 0.0) + own * part / shared
    return totals, grand


def top_functions(stats: pstats.Stats, count: int = 10) -> list[tuple[str, float, int]]:
    """The functions with the most own time: (where, seconds, calls)."""
    rows = sorted(stats.stats.items(),  # type: ignore[attr-defined]
                  key=lambda item: -item[1][2])[:count]
    result = []
    for (filename, line, name), (_, calls, own, _, _) in rows:
        where = name if filename == "~" else f"{_short(filename)}:{line}({name})"
        result.append((where, own, calls))
    return result


def _short(filename: str) -> str:
    for marker in ("/site-packages/", "/referee/", "/bots/", "/ratings/", "/lib/python"):
        if marker in filename:
            head, _, tail = filename.partition(marker)
            return marker.strip("/") + "/" + tail if marker != "/site-packages/" else tail
    return filename
