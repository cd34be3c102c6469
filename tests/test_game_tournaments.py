"""Every game in a real tournament: the heuristic bot, a gRPC process, ranks above random.

The random bots play in the referee's process: the heuristic's process and its games are
the subject (random bots over gRPC are the other tournament tests').
"""

from __future__ import annotations

import pytest
from conftest import run_tournament, write_config

from ratings.board import leaderboard
from ratings.trueskill_ratings import Outcome

# (game, variant, players, heuristic bot module, rounds): Animal Circus's heuristic has
# the thinnest edge (first in about half of its 4-player games), so it plays more.
CASES = [
    ("flohcati", "en", 3, "bots.flohcati_heuristic", 4),
    ("flohcati", "es", 3, "bots.flohcati_heuristic", 4),
    ("animal-circus", "standard", 4, "bots.animal_circus_heuristic", 10),
]


@pytest.mark.slow
@pytest.mark.parametrize("game, variant, players, heuristic, rounds", CASES)
def test_heuristic_ranks_above_random_over_grpc(tmp_path, game, variant, players, heuristic,
                                                rounds):
    randoms = "".join(f"  - {{name: random-{n}, python: \"bots.random_bot:RandomBot\"}}\n"
                      for n in range(1, players))
    # One process of the heuristic for the tournament: the games, not fresh processes each
    # seat rotation, are the subject (the same games either way).
    text = (f"name: t\ngame: {game}\nvariant: {variant}\nplayers: {players}\nrounds: {rounds}\n"
            f"seed: 11\nsecret_deals: false\nconcurrency: 2\nrenew_bots: false\nbots:\n"
            f"  - {{name: heuristic, command: \"python -m {heuristic} --address {{address}}\"}}\n"
            + randoms)
    summary, store, _ = run_tournament(write_config(tmp_path, text), tmp_path)
    games = store.games("t")
    assert summary.played == len(games) == rounds * players
    assert all(g.status == "finished" and g.variant == variant for g in games)
    assert list(store.faults("t")) == []
    outcomes = [Outcome(g.game_index, tuple(g.seats), tuple(g.ranks)) for g in games]
    rows = leaderboard(outcomes, games[0].seats)
    assert rows[0].bot == "heuristic"
    assert all(rows[0].mean_place < row.mean_place for row in rows[1:])
