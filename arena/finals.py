"""The finals at the deadline: one tournament among each entrant's final version.

A round robin or a Swiss tournament with duplicate deals and the stop rule ``stop:
{when: settled}`` at the finals' confidence, in as many rounds as fit the game budget:
the runner plays round by round and stops when the deal sets' verdict certifies the
order, or at the budget. It is a tournament like any other in the store (resumed after a
kill by running it again; reported, exported and replayed by the usual commands); the
final standing is the verdict's order when it settled, else the leaderboard's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from arena.ladder_settings import LadderSettings, match_data
from ratings.board import judge_log
from ratings.trueskill_ratings import Row
from tournaments.config import MAX_GAMES, ConfigError
from tournaments.standings import outcome, round_history, standings
from tournaments.store import Store


@dataclass(frozen=True)
class FinalStanding:
    tournament: str
    # The final order, best first, and each version's leaderboard row.
    order: list[str]
    rows: dict[str, Row]
    settled: bool
    # How the stop rule ended, in one line.
    line: str
    games: int


def finals_data(settings: LadderSettings, name: str, bots: list[dict[str, Any]]
                ) -> dict[str, Any]:
    """The finals' tournament config, as ``parse_config`` takes it."""
    finals, players = settings.finals, settings.players
    if len(bots) < players:
        raise ConfigError(f"the finals need at least {players} versions, not {len(bots)}")
    tables = len(bots) // players if finals.format == "swiss" else math.comb(len(bots), players)
    per_round = tables * players
    if per_round > finals.max_games:
        raise ConfigError(f"a round of the finals ({finals.format}, {len(bots)} versions) "
                          f"makes {per_round:,} games, more than finals.max_games "
                          f"({finals.max_games:,}): raise it, or use format: swiss")
    rounds = min(finals.max_games, MAX_GAMES) // per_round
    data = match_data(settings, name, bots, settings.seed, rounds)
    return {**data, "format": finals.format,
            "stop": {"when": "settled", "confidence": finals.confidence}}


def final_standing(store: Store, tournament: str) -> FinalStanding:
    """The stored finals' standing."""
    record = store.resolve(tournament)
    board = standings(store, record, resamples=0)
    names = [bot["name"] for bot in record.config["bots"]]
    confidence = record.config["stop"]["confidence"]
    found = judge_log((outcome(game) for game in store.results(tournament)), names,
                      confidence)
    order = found.order if found.certified else board.bots
    return FinalStanding(tournament, order, {row.bot: row for row in board},
                         found.certified, round_history(store, record).stop_rule or "",
                         board.rated_games)
