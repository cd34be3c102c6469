"""What an entrant's pack holds, as rows: its faults, decision times, games and log.

The same rows answer ``faults``, ``times`` and ``played``; the pack's pages that show
them are :mod:`pages.packs`.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Iterable

from ratings.time_use import TimedGame, time_use
from referee.process import referee_said
from referee.stream import FELL_BACK
from tournaments.store import Store, StoredGame, StoredTournament
from tournaments.submissions import SubmissionError, read_manifest

FAULT_COLUMNS = ["game_id", "game_index", "seat", "bot", "decision", "class", "policy",
                 "detail", "log"]
# A pack's faults: its own log is beside them, and the organiser's path to it is not theirs.
PACK_FAULT_COLUMNS = [column for column in FAULT_COLUMNS if column != "log"]
TIME_COLUMNS = ["bot", "decisions", "median_ms", "p99_ms", "max_ms", "total_ms"]
PLAYED_COLUMNS = ["id", "index", "round", "seats", "scores", "ranks", "status", "end_reason",
                "decisions", "duration_s"]


def bot_log(log_dir: Path, bot: str) -> str:
    """Where a bot's log is: in the logs folder, or after a cluster run one per worker,
    under ``workers/`` (docs/cluster.md)."""
    here = log_dir / f"{bot}.log"
    if not here.exists() and (log_dir / "workers").is_dir():
        return str(log_dir / "workers" / "*" / f"{bot}.log")
    return str(here)


def bot_logs(log_dir: Path, bot: str) -> list[Path]:
    """A bot's log files: the one in the logs folder, and after a cluster run one per
    worker, under ``workers/``."""
    return [path for path in (log_dir / f"{bot}.log",) if path.exists()] + \
        sorted(log_dir.glob(f"workers/*/{bot}.log"))


#: How ``times`` and the report name the transport of a gRPC bot that announced the Play
#: stream but answered it UNIMPLEMENTED (its log's note says so).
UNARY_FALLBACK = "grpc (unary: Play stream unimplemented)"


def reached(log_dir: Path, bot: str, transport: str) -> str:
    """How the referee reached a bot: its configured transport, or for a gRPC bot that fell
    back from the Play stream to unary calls, :data:`UNARY_FALLBACK`."""
    if transport == "grpc" and any(referee_said(log, FELL_BACK)
                                   for log in bot_logs(log_dir, bot)):
        return UNARY_FALLBACK
    return transport


def fault_records(store: Store, record: StoredTournament, bot: str | None = None
               ) -> list[dict[str, Any]]:
    """The faults of a tournament (of ``bot`` only, if given), with each bot's log."""
    log_dir = Path(record.log_dir or ".")
    return [{"game_id": f["game_id"], "game_index": f["game_index"], "seat": f["seat"],
             "bot": f["bot"], "decision": f["decision_id"], "class": f["class"],
             "policy": f["policy"], "detail": f["detail"], "log": bot_log(log_dir, f["bot"])}
            for f in store.faults(record.name, bot)]


def time_records(games: Iterable[TimedGame]) -> list[dict[str, Any]]:
    """Each bot's decision times, in milliseconds to 0.1 ms, slowest median first."""
    return [{"bot": r.bot, "decisions": r.decisions, "median_ms": round(r.median_ms, 1),
             "p99_ms": round(r.p99_ms, 1), "max_ms": round(r.max_ms, 1),
             "total_ms": round(r.total_s * 1000, 1)}
            for r in time_use(games)]


def played_records(games: Iterable[StoredGame], bot: str | None = None
                   ) -> list[dict[str, Any]]:
    """The stored games (those ``bot`` played, if given): ids, seats, results."""
    return [{"id": game.id, "index": game.game_index, "round": game.shown_round,
             "seats": list(game.seats), "scores": list(game.scores),
             "ranks": list(game.ranks), "status": game.status,
             "end_reason": game.end_reason, "decisions": len(game.actions),
             "duration_s": round(game.duration_s, 3)}
            for game in games if bot is None or bot in game.seats]


def folder_bytes(folder: Path) -> int:
    """The size of every file under ``folder``."""
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def entrant_words(folder: str | None) -> str:
    """Who entered a bot and in what, from the manifest in its ``dir:``; "" for a bot that
    came from no submission (or whose manifest is gone or changed since)."""
    if folder is None:
        return ""
    try:
        entrant = read_manifest(Path(folder))
    except SubmissionError:
        return ""
    return f"by {entrant.author}, in {entrant.language}"


def copy_logs(log_dir: Path, bot: str, folder: Path) -> list[str]:
    """The bot's log into its pack (after a cluster run, each worker's as
    ``workers/HOST-PORT/BOT.log``); the paths copied, relative to the pack."""
    name = f"{bot}.log"
    sources = [(log_dir / name, Path(name))]
    sources += [(path, path.relative_to(log_dir))
                for path in sorted(log_dir.glob(f"workers/*/{name}"))]
    copied = []
    for source, target in sources:
        if source.is_file():
            (folder / target).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, folder / target)
            copied.append(target.as_posix())
    return copied
