"""What every stored tournament must satisfy, whatever path it took: checked
after skip, resume, kill, stop and cluster runs.

* The leaderboard equals a fold of the stored games: the board the commands show (from
  the rating snapshot the runner keeps, when it is still valid) has the ratings and
  counts of a fresh fold of every stored game, and each bot's games are its stored ones.
* Every game sits at a table of its round's pairing: a fixed schedule's games are the
  schedule's, game for game (seats, round, group, deal seed); a Swiss round's games
  are at the tables kept for it, and no bot sits at two tables of one round or plays
  in a round it sat out or was left out of.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ratings.board import Board, build_board
from tournaments.config import TournamentConfig
from tournaments.schedule import scheduled
from tournaments.standings import outcome, rating_config, standings
from tournaments.store import Store, StoredGame


def assert_consistent(store: Store | Path, name: str,
                      config: TournamentConfig | None = None) -> None:
    """Both invariants; ``config`` (the one run) lets a fixed schedule be compared game
    by game."""
    if not isinstance(store, Store):
        store = Store(store)
    assert_board_is_a_fold(store, name)
    assert_games_at_their_tables(store, name, config)


def rows(board: Board) -> list[tuple]:
    return [(row.bot, row.mu, row.sigma, row.games, row.wins) for row in board]


def assert_board_is_a_fold(store: Store, name: str) -> None:
    record = store.resolve(name)
    bots = [bot["name"] for bot in record.config["bots"]]
    shown = standings(store, record, resamples=0)
    refolded = build_board(map(outcome, store.results(name)), bots, rating_config(record),
                           resamples=0)
    assert rows(shown) == rows(refolded), "the leaderboard is not a fold of the stored games"
    played = Counter(bot for game in store.results(name) if game.status != "void"
                     for bot in game.seats)
    assert {row.bot: row.games for row in shown} == {bot: played[bot] for bot in shown.bots}


def assert_games_at_their_tables(store: Store, name: str,
                                 config: TournamentConfig | None) -> None:
    record = store.resolve(name)
    games = store.games(name)
    assert len(games) <= record.total_games
    if record.config["format"] == "swiss":
        assert_swiss_rounds(store, name, games)
    elif config is not None:
        expected = {pairing.index: pairing for pairing in scheduled(
            config, store.secret(name) or "", store.segments(name) or None)}
        for game in games:
            pairing = expected[game.game_index]
            assert ((tuple(game.seats), game.round, game.group_index, game.seed)
                    == (pairing.seats, pairing.round, pairing.group, pairing.seed)), game.id


def assert_swiss_rounds(store: Store, name: str, games: list[StoredGame]) -> None:
    by_round: dict[int, list[StoredGame]] = {}
    for game in games:
        by_round.setdefault(game.round, []).append(game)
    for number, played in by_round.items():
        pairing = store.swiss_round(name, number)
        assert pairing is not None, f"round {number} has games but no pairing"
        tables = {frozenset(table): table for table in pairing.tables}
        seated = Counter(bot for table in pairing.tables for bot in table)
        assert max(seated.values(), default=1) == 1, f"a bot at two tables of round {number}"
        assert not set(seated) & {*pairing.byes, *pairing.absent}
        groups: dict[int, set[frozenset[str]]] = {}
        for game in played:
            assert frozenset(game.seats) in tables, (number, game.seats)
            groups.setdefault(game.group_index, set()).add(frozenset(game.seats))
        assert all(len(group) == 1 for group in groups.values()), number
        at = Counter(bot for group in groups.values() for table in group for bot in table)
        assert max(at.values()) == 1, f"a bot at two tables of round {number}"
