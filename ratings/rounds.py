"""A tournament round by round, for people and programs: a Swiss's tables and byes, the
standings after each round, and what the stop rule said (``leaderboard --rounds``; the
report draws the same :class:`~ratings.board.RoundHistory` as HTML)."""

from __future__ import annotations

import json
import textwrap
from collections import Counter
from typing import Any

from ratings.board import RoundHistory, RoundRecord
from ratings.formatting import csv_text

WIDTH = 100


def summary(history: RoundHistory) -> str:
    """One line on the rounds (a Swiss's): how many were played, the byes."""
    byes = Counter(bot for record in history.rounds for bot in record.byes)
    line = f"Swiss: {len(history.rounds)} of {history.planned} rounds played"
    if byes:
        line += "; byes: " + ", ".join(f"{bot} {count}" for bot, count in sorted(byes.items()))
    return line + " (--rounds: each round's tables and the standings after it)"


def rounds_data(history: RoundHistory) -> dict[str, Any]:
    """The rounds as JSON-ready data."""
    return {"planned": history.planned, "swiss": history.swiss, "stop_rule": history.stop_rule,
            "rounds": [{"round": record.number, "games": record.games,
                        "tables": [list(table) for table in record.tables],
                        "byes": record.byes, "absent": record.absent, "stop": record.stop,
                        "standings": [{"bot": row.bot, "mu": round(row.mu, 4),
                                       "sigma": round(row.sigma, 4),
                                       "conservative": round(row.conservative, 4),
                                       "games": row.games} for row in record.standings]}
                       for record in history.rounds]}


def format_rounds(history: RoundHistory, fmt: str) -> str:
    """The rounds as text (``table``), ``markdown``, ``csv`` (the standings, one row per
    round and bot) or ``json``."""
    if fmt == "json":
        return json.dumps(rounds_data(history), indent=2)
    if fmt == "csv":
        return csv_text([{"round": record.number, "rank": rank, "bot": row.bot,
                          "mu": round(row.mu, 4), "sigma": round(row.sigma, 4),
                          "conservative": round(row.conservative, 4), "games": row.games}
                         for record in history.rounds
                         for rank, row in enumerate(record.standings, 1)],
                        ["round", "rank", "bot", "mu", "sigma", "conservative", "games"])
    blocks = [_round_lines(record, fmt) for record in history.rounds] or ["no round played"]
    if history.stop_rule:
        blocks.append(history.stop_rule)
    return "\n\n".join(blocks)


def _round_lines(record: RoundRecord, fmt: str) -> str:
    head = f"round {record.number} ({record.games} games)"
    lines = []
    if record.tables:
        lines.append("tables: " + ", ".join(f"({', '.join(table)})" for table in record.tables))
    if record.byes:
        lines.append("byes: " + ", ".join(record.byes))
    if record.absent:
        lines.append("left out (did not start): " + ", ".join(record.absent))
    lines.append("standings after it (mu-3σ, games): " + ", ".join(
        f"{rank}. {row.bot} {row.conservative:.2f} ({row.games})"
        for rank, row in enumerate(record.standings, 1)))
    if record.stop:
        lines.append(f"stop rule: {record.stop}")
    if fmt == "markdown":
        return "\n".join([f"#### {head.capitalize()}", ""] + [f"- {line}" for line in lines])
    return "\n".join([head] + [textwrap.fill(line, WIDTH, initial_indent="  ",
                                             subsequent_indent="    ") for line in lines])
