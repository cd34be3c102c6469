"""Exporting stored games: one self-contained record per game, enough to replay it.

While a tournament is unfinished, a game whose deal is still to be dealt again (with
``duplicate``, another seat rotation of its group is not played yet) is exported
without its seed: the seed, or a replay, gives the cards of games to come, and an
export or report may be written where a bot can read it.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any, Collection, Iterator, TextIO

from referee.games import GameRecord
from tournaments.config import games_per_deal
from tournaments.store import Store, StoredTournament

FIELDS = ("tournament", "game_id", "game_index", "group", "round", "seed", "game", "variant",
          "seats", "code", "scores", "ranks", "status", "end_reason", "faults", "duration_s",
          "started_at", "finished_at", "actions", "times")


def unsettled_groups(store: Store, record: StoredTournament) -> set[int]:
    """The groups of an unfinished tournament with duplicate deals whose games are not
    all played: their deals are still to come."""
    config = record.config
    if record.finished_at is not None or not config.get("duplicate", True):
        return set()
    size = games_per_deal(config["format"], config["players"], len(config["bots"]))
    return {group for group, count in store.group_counts(record.name).items() if count < size}


def game_records(store: Store, tournament: str, withheld: Collection[int] = frozenset()
                 ) -> Iterator[dict[str, Any]]:
    """The tournament's games in schedule order, each with its faults; the games of the
    ``withheld`` groups (:func:`unsettled_groups`) with their seed None."""
    faults: dict[int, list[dict[str, Any]]] = {}
    for fault in store.faults(tournament):
        faults.setdefault(fault["game_id"], []).append(
            {key: fault[key] for key in ("seat", "bot", "decision_id", "class", "detail",
                                         "policy", "time")})
    for game in store.games(tournament):
        yield {
            "tournament": game.tournament, "game_id": game.id, "game_index": game.game_index,
            "group": game.group_index, "round": game.shown_round,
            "seed": None if game.group_index in withheld else game.seed,
            "game": game.game, "variant": game.variant, "seats": game.seats,
            "code": game.code, "scores": game.scores, "ranks": game.ranks, "status": game.status,
            "end_reason": game.end_reason, "faults": faults.get(game.id, []),
            "duration_s": round(game.duration_s, 6), "started_at": game.started_at,
            "finished_at": game.finished_at, "actions": game.actions,
            "times": game.times,
        }


def replay_record(record: dict[str, Any]) -> GameRecord:
    """The replayable part of an exported record (JSONL, or CSV with JSON cells)."""
    def value(key: str) -> Any:
        item = record[key]
        return json.loads(item) if isinstance(item, str) and key in ("seats", "actions") else item
    return GameRecord(record["game"], record["variant"], len(value("seats")), int(record["seed"]),
                      tuple(value("actions")))


def write_jsonl(records: Iterator[dict[str, Any]], out: TextIO) -> int:
    count = 0
    for count, record in enumerate(records, 1):
        out.write(json.dumps(record) + "\n")
    return count


def write_csv(records: Iterator[dict[str, Any]], out: TextIO) -> int:
    """CSV with one row per game; list and object cells hold JSON."""
    writer = csv.DictWriter(out, fieldnames=FIELDS)
    writer.writeheader()
    count = 0
    for count, record in enumerate(records, 1):
        writer.writerow({key: json.dumps(value) if isinstance(value, (list, dict)) else value
                         for key, value in record.items()})
    return count


_JSON_CELLS = ("seats", "code", "scores", "ranks", "faults", "actions", "times")


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of an export file: JSONL, or CSV (by its ``.csv`` suffix).

    Raises ``ValueError`` naming the line for a record that is not valid JSON.
    """
    with path.open(encoding="utf-8", newline="") as handle:
        if path.suffix.lower() == ".csv":
            return [{key: json.loads(value) if key in _JSON_CELLS and value else value
                     for key, value in row.items()} for row in csv.DictReader(handle)]
        records = []
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as error:
                    raise ValueError(f"{path}, line {number}: not JSON ({error.msg})") from None
        return records
