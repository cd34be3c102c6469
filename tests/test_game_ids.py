"""A game's id tells its bots nothing: not the tournament, not the game's index, not the deal.

With ``<tournament>/<index>`` a bot that knew the config's list of bots could work out its
table from the index, and two runs with fresh secrets seated each index alike. The id is
now derived from the deal secret: unpredictable, the same on a resume, and a bot's
per-game random stream (``bots.sdk.rng_for``) still works from it.
"""

from __future__ import annotations

import re

from conftest import run_tournament, write_config

from bots.random_bot import RandomBot
from bots.sdk import rng_for
from proto.circus.v1 import bot_pb2
from tournaments.config import load_config
from tournaments.schedule import schedule

#: The ids the in-process bots of a test tournament were sent, in StartGame.
SEEN: list[str] = []


class IdRecorder(RandomBot):
    """A random bot that notes every game id it is sent."""

    def start_game(self, request: bot_pb2.StartGameRequest) -> None:
        SEEN.append(request.game_id)


def config_text(name: str = "ids") -> str:
    return f"""
        name: {name}
        game: flea-circus
        players: 2
        seed: 5
        bots:
          - {{name: a, python: "test_game_ids:IdRecorder"}}
          - {{name: b, python: "test_game_ids:IdRecorder"}}
          - {{name: c, python: "test_game_ids:IdRecorder"}}
        """


def test_an_id_shows_neither_the_tournament_nor_the_index_nor_the_seed(tmp_path):
    config = load_config(write_config(tmp_path, config_text()))
    pairings = schedule(config, "a secret")
    ids = [pairing.game_id for pairing in pairings]
    assert len(set(ids)) == len(ids) == 6
    assert all(re.fullmatch(r"[0-9a-f]{16}", game_id) for game_id in ids), ids
    assert not {int(game_id, 16) for game_id in ids} & {p.seed for p in pairings}


def test_fresh_secrets_seat_an_index_alike_under_unrelated_ids(tmp_path):
    """What the index told a bot (its table) no id tells: the same seats, other ids."""
    config = load_config(write_config(tmp_path, config_text()))
    first, second = schedule(config, "one secret"), schedule(config, "another")
    assert [p.seats for p in first] == [p.seats for p in second]
    assert not {p.game_id for p in first} & {p.game_id for p in second}
    assert [p.game_id for p in first] == [p.game_id for p in schedule(config, "one secret")]


def test_without_a_secret_two_tournaments_of_one_seed_share_no_id(tmp_path):
    """An ``address:`` bot may play two public tournaments at once: per-game state
    keyed by the id must not mix them."""
    ids = [{p.game_id for p in schedule(load_config(write_config(
        tmp_path, config_text(name), f"{name}.yaml")))} for name in ("first", "second")]
    assert not ids[0] & ids[1]


def test_bots_are_sent_the_scheduled_ids(tmp_path):
    SEEN.clear()
    summary, store, _ = run_tournament(write_config(tmp_path, config_text()), tmp_path)
    secret = store.secret("ids")
    assert secret and summary.played == 6
    expected = {p.game_id for p in schedule(load_config(tmp_path / "bots.yaml"), secret)}
    assert set(SEEN) == expected and len(SEEN) == 12   # two seats a game


def test_rng_for_gives_each_game_of_an_opaque_id_its_own_stream():
    def draws(game_id: str) -> list[float]:
        request = bot_pb2.DecisionRequest(game_id=game_id, decision_id=3)
        return [rng_for(request).random() for _ in range(2)]

    assert draws("0123456789abcdef") == draws("0123456789abcdef")
    assert draws("0123456789abcdef") != draws("fedcba9876543210")
