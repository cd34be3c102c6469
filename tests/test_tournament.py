"""Whole tournaments: real gRPC bot processes, reproducibility, the stored record."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import click
from click.testing import CliRunner
from conftest import assert_no_process_left, run_tournament, write_config

from circus_referee.main import COMMANDS, main
from referee.games import GameRecord, replay
from tournaments.config import load_config
from tournaments.standings import standings

GRPC_CONFIG = """
name: grpc
game: flea-circus
players: 3
rounds: 2
seed: 99
concurrency: 2
bots:
  - name: greedy
    command: python -m bots.flea_greedy --address {address}
  - name: random
    command: python -m bots.random_bot --address {address}
  - name: random-b
    command: python -m bots.random_bot
"""


def test_tournament_of_grpc_bot_processes(tmp_path, started):
    summary, store, _ = run_tournament(write_config(tmp_path, GRPC_CONFIG), tmp_path)
    games = store.games("grpc")
    assert summary.played == len(games) == 6  # 1 table × 3 rotations × 2 rounds
    assert all(game.status == "finished" and game.actions for game in games)
    # Three bots, each started afresh for each of the three seat rotations.
    assert len(started) == 9
    assert_no_process_left(started)
    # Each bot sat in each seat once per round.
    assert sorted(game.seats[0] for game in games) == sorted(["greedy", "random", "random-b"] * 2)
    # The bot without {address} in its command found it in CIRCUS_BOT_ADDRESS.
    assert (tmp_path / "logs" / "grpc" / "random-b.log").read_text().count("listening") == 3
    for game in games:
        record = GameRecord(game.game, game.variant, len(game.seats), game.seed,
                            tuple(game.actions))
        assert replay(record).scores() == game.scores


IN_PROCESS = """
name: same
game: flea-circus
players: 2
rounds: 3
seed: 5
concurrency: {concurrency}
secret_deals: false   # three stores, one deal per seed: comparable across runs
bots:
  - {{name: greedy, python: "bots.flea_greedy:FleaGreedyBot"}}
  - {{name: random, python: "bots.random_bot:RandomBot"}}
  - {{name: random-b, python: "bots.random_bot:RandomBot"}}
"""


def game_rows(store, name):
    return [(g.game_index, g.seed, g.seats, g.scores, g.ranks, g.actions)
            for g in store.games(name)]


def test_same_config_gives_identical_games_and_ratings(tmp_path):
    results = []
    for run, concurrency in enumerate((1, 4, 4)):
        folder = tmp_path / str(run)
        folder.mkdir()
        config = load_config(write_config(folder, IN_PROCESS.format(concurrency=concurrency)))
        _, store, _ = run_tournament(config, folder)
        results.append((game_rows(store, "same"),
                        [(r.bot, r.mu, r.sigma) for r in standings(store, store.resolve("same"))]))
    assert results[0] == results[1] == results[2]
    assert len(results[0][0]) == 18


def test_another_seed_gives_other_games(tmp_path):
    config = load_config(write_config(tmp_path, IN_PROCESS.format(concurrency=2)))
    _, first, _ = run_tournament(config, tmp_path, db="a.sqlite")
    _, second, _ = run_tournament(replace(config, seed=6), tmp_path, db="b.sqlite")
    assert [g.seed for g in first.games("same")] != [g.seed for g in second.games("same")]


def test_cli_tournament_leaderboard_and_replay(tmp_path):
    path = write_config(tmp_path, IN_PROCESS.format(concurrency=2))
    db = str(tmp_path / "r.sqlite")
    runner = CliRunner()
    result = runner.invoke(main, ["tournament", str(path), "--db", db, "--logs",
                                  str(tmp_path / "logs")])
    assert result.exit_code == 0, result.output
    assert "games 18/18" in result.output and "greedy" in result.output
    assert "leaders after 18 games (mu-3σ): greedy" in result.output
    data = json.loads(runner.invoke(main, ["leaderboard", "--db", db, "--format", "json"]).output)
    assert data["tournament"] == "same" and data["game"] == "flea-circus"
    board = data["leaderboard"]
    assert {"bot", "mu", "sigma", "conservative", "games", "wins"} <= set(board[0])
    assert board[0]["bot"] == "greedy" and sum(row["games"] for row in board) == 36
    shown = runner.invoke(main, ["replay", "1", "--db", db])
    assert shown.exit_code == 0 and "end: earth-empty" in shown.output
    assert runner.invoke(main, ["replay", "999", "--db", db]).exit_code == 2
    assert "flea-circus" in runner.invoke(main, ["games"]).output


#: What a tournament of in-process bots imports none of: gRPC (the referee's client's and
#: the SDK's server's), the progress bars, the other commands' modules.
NOT_FOR_A_TOURNAMENT = ("grpc", "tqdm", "arena", "pages.assembly",
                        "circus_referee.commands.arena", "circus_referee.commands.boards")


def test_a_tournament_imports_only_what_it_uses(tmp_path):
    """The command group imports a command's module when it runs; gRPC and tqdm wait
    for the bot or the command that uses them."""
    config = write_config(tmp_path, IN_PROCESS.format(concurrency=1).replace("rounds: 3",
                                                                             "rounds: 1"))
    code = (f"import sys; from circus_referee.main import main\n"
            f"try: main(['tournament', {str(config)!r}, '--db', {str(tmp_path / 'db')!r}, "
            f"'--logs', {str(tmp_path / 'logs')!r}, '-q'])\n"
            f"except SystemExit as exit: assert not exit.code, exit.code\n"
            f"print(sorted(m for m in {NOT_FOR_A_TOURNAMENT!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


def test_every_command_is_named_where_the_group_finds_it():
    listed = main.list_commands(click.Context(main))
    assert listed == sorted(COMMANDS)
    assert all(main.get_command(click.Context(main), name).name == name for name in listed)
