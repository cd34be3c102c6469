"""Per-bot time use from the decision times stored with every game."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Iterable, Protocol, Sequence


class TimedGame(Protocol):
    """A game's seats and its (seat, decision id, milliseconds) decision times (read-only,
    so a frozen stored game fits, its times lists as JSON gave them)."""

    @property
    def seats(self) -> Sequence[str]: ...
    @property
    def times(self) -> Sequence[Sequence[float]]: ...


@dataclass(frozen=True)
class TimeUse:
    bot: str
    decisions: int
    median_ms: float
    p99_ms: float
    max_ms: float
    total_s: float


def percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def time_use(games: Iterable[TimedGame]) -> list[TimeUse]:
    """One row per bot that answered decisions, slowest median first."""
    times: dict[str, list[float]] = {}
    for game in games:
        for seat, _decision, ms in game.times:
            times.setdefault(game.seats[int(seat)], []).append(ms)
    rows = []
    for bot, values in times.items():
        ordered = sorted(values)
        rows.append(TimeUse(bot, len(ordered), statistics.median(ordered),
                            percentile(ordered, 0.99), ordered[-1], sum(ordered) / 1000))
    return sorted(rows, key=lambda row: (-row.median_ms, row.bot))
