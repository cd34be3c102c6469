"""Big fields: Swiss rounds, early stopping, bounded schedules.

Real tournaments of in-process bots of known strength (bots/mixed.py: the
greedy move with probability p, else a random one), through the runner and the
store, with deals from the seed alone (``secret_deals: false``) so that two
stores of one config can be compared game by game.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result
from conftest import interrupted_run, run_tournament, stored_count, write_config
from invariants import assert_consistent

from bench.bigfields import simulated_repeats
from circus_referee.main import main
from ratings.stats import kendall_tau_b
from tournaments.config import ConfigError, game_count, load_config, parse_config, rounds_needed
from tournaments.runner import TournamentError
from tournaments.schedule import heads_up_pairs, pairs_of, swiss_tables
from tournaments.standings import standings
from tournaments.store import Store

CLI = str(Path(sys.executable).parent / "circus-referee")
STRENGTHS = (0, 25, 50, 75, 100)


def family(count: int) -> list[dict]:
    """``count`` in-process bots, p cycling through 0, .25, .5, .75, 1."""
    return [{"name": f"b{number:03d}-p{STRENGTHS[number % 5]}",
             "python": f"bots.mixed:Mixed{STRENGTHS[number % 5]}"} for number in range(count)]


def strength(bot: str) -> float:
    return float(bot.rsplit("-p", 1)[1])


def swiss(count: int, rounds: int, **more) -> dict:
    return {"name": "swiss", "game": "flea-circus", "players": 3, "rounds": rounds,
            "format": "swiss", "concurrency": 2, "secret_deals": False, "seed": 7,
            "bots": family(count), **more}


def rounds_of(store, name: str = "swiss") -> dict[int, list[tuple[str, ...]]]:
    """Each round's games: seats in game-index order."""
    games: dict[int, list[tuple[str, ...]]] = {}
    for game in store.games(name):
        games.setdefault(game.round, []).append(tuple(game.seats))
    return games


@pytest.mark.slow
def test_a_swiss_round_of_200_bots_seats_every_bot_once_and_orders_by_strength(tmp_path):
    config = parse_config(swiss(200, 3))
    summary, store, _ = run_tournament(config, tmp_path)
    # 200 bots at tables of 3: 66 tables and 2 byes a round, every table in 3 rotations.
    assert summary.total == summary.played == 3 * 66 * 3
    names = {bot.name for bot in config.bots}
    byes: Counter[str] = Counter()
    for number, games in rounds_of(store).items():
        assert len(games) == 66 * 3
        per_bot = Counter(bot for seats in games for bot in seats)
        sitting_out = names - set(per_bot)
        assert len(sitting_out) == 2 and set(per_bot.values()) == {3}, number
        # Each bot sits at one table, once in each seat.
        tables = {frozenset(seats) for seats in games}
        assert len(tables) == 66 and sum(len(t) for t in tables) == 198
        byes.update(sitting_out)
    assert byes == Counter(summary.byes) and max(byes.values()) == 1
    # The later rounds seat bots of similar rating together: the field's order
    # already follows the true strengths (the bench measures it over more rounds).
    board = standings(store, store.resolve("swiss"), resamples=0)
    assert kendall_tau_b(board.bots, {bot: strength(bot) for bot in board.bots}) > 0.3
    assert_consistent(store, "swiss")


def test_swiss_byes_rotate_over_the_field(tmp_path):
    config = parse_config(swiss(7, 1, players=3))
    byes: dict[str, int] = {}
    for _ in range(7):
        tables, resting = swiss_tables(config, "", {}, byes)
        assert len(tables) == 2 and len(resting) == 1
        seated = [bot for table in tables for bot in table]
        assert sorted(seated + resting) == sorted(bot.name for bot in config.bots)
        for bot in resting:
            byes[bot] = byes.get(bot, 0) + 1
    # Seven rounds, one bye each: every bot sat out exactly once.
    assert sorted(byes.values()) == [1] * 7


def test_swiss_tables_follow_the_standings_and_the_seed(tmp_path):
    config = parse_config(swiss(6, 1))
    ratings = {bot.name: float(index) for index, bot in enumerate(config.bots)}
    tables, resting = swiss_tables(config, "", ratings, {})
    best = sorted(ratings, key=lambda bot: -ratings[bot])
    assert tables == [tuple(best[:3]), tuple(best[3:])] and resting == []
    # A later round seats the same tables in its own order: who sits after whom changes.
    later, _ = swiss_tables(config, "", ratings, {}, round_number=1)
    assert later == [(best[0], best[2], best[1]), (best[3], best[5], best[4])]
    # The first round (no ratings) is seeded: the tournament's seed decides it.
    first = swiss_tables(config, "", {}, {})[0]
    assert first == swiss_tables(config, "", {}, {})[0]
    others = {tuple(swiss_tables(parse_config(swiss(6, 1, seed=seed)), "", {}, {})[0])
              for seed in range(8, 12)}
    assert len(others | {tuple(first)}) > 1


def test_a_swiss_table_that_already_played_is_broken_up():
    config = parse_config(swiss(6, 1))
    ratings = {bot.name: float(index) for index, bot in enumerate(config.bots)}
    first, _ = swiss_tables(config, "", ratings, {})
    again, _ = swiss_tables(config, "", ratings, {}, Counter(pairs_of(first[:1])))
    # The top table's lowest bot and the next table's highest change places: the
    # nearest swap that leaves one pair of the top table together, not three.
    assert again == [first[0][:2] + first[1][:1], first[0][2:] + first[1][1:]]


#: Mean repeated pairs per round of the earlier pairing (one swap, never
#: re-checked), on the fields of the test below: 30 bots, 6 rounds, seeds 1-5.
BEFORE = {3: 5.8, 4: 11.3, 5: 23.0}


def test_swiss_rounds_seat_pairs_together_again_far_less(tmp_path):
    """30 bots over 6 rounds of simulated results. Heads-up, a rematch is always avoidable
    here: the pairs not yet met form a graph where each bot has at least 29 - 5 = 24 > 15
    neighbours, which by Dirac's theorem has a Hamiltonian cycle, so a perfect matching.
    At 3-5 seats some repeats are forced late (at 5 seats a bot meets 4 new bots a round,
    20 of 29 by the sixth); the bound is a third of what the old pairing gave."""
    for players in range(2, 6):
        counts = [count for seed in range(1, 6)
                  for count in simulated_repeats(players, 30, 6, seed)]
        if players == 2:
            assert counts == [0] * 30
        else:
            assert sum(counts) / len(counts) <= BEFORE[players] / 3, (players, counts)


def test_heads_up_pairs_backtrack_to_avoid_a_rematch_and_repeat_one_only_when_forced():
    met = Counter(pairs_of([("a", "b"), ("c", "d"), ("a", "c")]))
    # a's nearest opponents b and c are met; a-d leaves b-c, which is new.
    assert heads_up_pairs(["a", "b", "c", "d"], met) == [["a", "d"], ["b", "c"]]
    # a-d would leave b-c, met too: every pairing repeats one, the least met nearest first.
    met.update(pairs_of([("b", "c")]))
    assert heads_up_pairs(["a", "b", "c", "d"], met) == [["a", "d"], ["b", "c"]]
    met.update(pairs_of([("a", "d"), ("b", "d")]))
    assert heads_up_pairs(["a", "b", "c", "d"], met) == [["a", "b"], ["c", "d"]]


def stored_pairings(db: Path, name: str = "swiss") -> list[tuple]:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT game_index, round, group_index, seats, seed FROM games "
                           "WHERE tournament = ? ORDER BY game_index", (name,)).fetchall()


@pytest.mark.slow
def test_a_swiss_tournament_killed_and_resumed_makes_the_same_pairings(tmp_path):
    # 23 bots: 7 tables and 2 byes a round, 21 games a round.
    data = swiss(23, 4)
    path = write_config(tmp_path, yaml.safe_dump(data))
    whole = tmp_path / "whole.sqlite"
    run_tournament(parse_config(data), tmp_path, db=whole.name)
    killed = tmp_path / "killed.sqlite"
    command = [CLI, "tournament", str(path), "--db", str(killed), "--quiet"]
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    # Killed as soon as 30 games are stored (polled every 2 ms): the 54 left cannot all be
    # played in that margin, however fast the machine.
    while stored_count(killed) < 30 and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.002)
    run.send_signal(signal.SIGKILL)
    run.wait()
    stored = stored_count(killed)
    assert 30 <= stored < 84, stored   # killed in the second round or later
    resumed = CliRunner().invoke(main, command[1:])  # in this process: only the kill needs one
    assert resumed.exit_code == 0, resumed.output
    assert f"{84 - stored} games played ({stored} already stored)" in resumed.stderr
    assert stored_pairings(killed) == stored_pairings(whole)
    assert len(stored_pairings(whole)) == 84
    assert_consistent(killed, "swiss")


@pytest.mark.parametrize("fmt", ["round-robin", "swiss"])
def test_settled_stops_a_tournament_with_fewer_games(tmp_path, fmt):
    bots = [{"name": f"p{p}", "python": f"bots.mixed:Mixed{p}"} for p in (0, 100)]
    data = {"name": "stop", "game": "flea-circus", "players": 2, "rounds": 100, "seed": 3,
            "concurrency": 2, "secret_deals": False, "bots": bots, "format": fmt,
            "stop": {"when": "settled", "confidence": 0.95, "min_games_per_bot": 10}}
    summary, store, _ = run_tournament(parse_config(data), tmp_path)
    assert summary.stopped is not None and "settled after round" in summary.stopped
    assert "p100 > p0" in summary.stopped
    played = len(store.games("stop"))
    assert 10 <= played < summary.total == 200 and summary.played == played
    assert store.resolve("stop").finished_at is not None
    assert_consistent(store, "stop", parse_config(data))
    # Resuming a stopped tournament plays nothing more and stops at the same round.
    again, _, _ = run_tournament(parse_config(data), tmp_path)
    assert (again.played, again.stopped) == (0, summary.stopped)


def test_min_games_per_bot_holds_the_stop_back(tmp_path):
    bots = [{"name": f"p{p}", "python": f"bots.mixed:Mixed{p}"} for p in (0, 100)]
    data = {"name": "stop", "game": "flea-circus", "players": 2, "rounds": 12, "seed": 3,
            "concurrency": 2, "secret_deals": False, "bots": bots,
            "stop": {"when": "settled", "confidence": 0.5, "min_games_per_bot": 20}}
    summary, store, _ = run_tournament(parse_config(data), tmp_path)
    # Two games a round: the tenth round gives each bot its 20th game.
    assert len(store.games("stop")) == 20 and "after round 10" in summary.stopped


GOOD = {"name": "t", "game": "flea-circus", "players": 3, "bots": family(6)}


@pytest.mark.parametrize("more, message", [
    ({"bots": family(40), "players": 4, "rounds": 2},
     "this schedule makes 731,120 games; the limit is 100,000 (fewer rounds or bots, "
     "games_per_bot, or format: swiss"),
    ({"bots": family(200), "players": 4, "format": "swiss", "rounds": 600},
     "this schedule makes 120,000 games; the limit is 100,000 (fewer rounds or games_per_bot)"),
    ({"stop": {"when": "bored"}}, "stop.when must be one of settled, not 'bored'"),
    ({"stop": {"when": "settled", "confidence": 1.5}}, "stop.confidence must be from 0.5"),
    ({"stop": {"when": "settled", "patience": 3}}, "unknown key stop.'patience'"),
    ({"stop": "soon"}, "'stop' must be a mapping"),
    ({"stop": {"when": "settled"}, "format": "gauntlet", "challenger": "b000-p0"},
     "`stop` is for format: round-robin or swiss, not gauntlet"),
])
def test_bad_big_field_configs_are_refused_in_one_line(more, message):
    with pytest.raises(ConfigError) as error:
        parse_config(GOOD | more)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_games_per_bot_in_swiss_counts_the_byes():
    config = parse_config(GOOD | {"bots": family(7), "format": "swiss", "games_per_bot": 12})
    # 7 bots at tables of 3: one bye a round; 3 games a round otherwise. Five rounds
    # leave some bot with a bye (12 games); four would leave one with 9.
    assert config.rounds == 1 and config.games_per_bot == 12
    assert rounds_needed(config) == 5 and game_count(config) == 5 * 2 * 3


# Issue 40: a Swiss of four bots, one of which cannot start until its file is added.
SEASON = """
name: season
game: flea-circus
players: 2
rounds: 4
format: swiss
seed: 5
secret_deals: false
concurrency: 2
bots:
  - {name: a, python: "bots.mixed:Mixed100"}
  - {name: b, python: "bots.mixed:Mixed50"}
  - {name: c, python: "bots.mixed:Mixed0"}
  - {name: broken, command: "python bot.py --address {address}", sandbox: false}
"""
BOT_PY = "import runpy\nrunpy.run_module('bots.random_bot', run_name='__main__')\n"


def season(folder: Path, *more: str) -> Result:
    """The command in this process (its start-up is no subject here), from ``folder``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        return CliRunner().invoke(main, [
            "tournament", str(folder / "bots.yaml"), "--db", str(folder / "season.sqlite"),
            "--logs", str(folder / "logs"), "--skip-bad-bots", "--quiet", *more])


def games_per_bot(store: Store, name: str = "season") -> Counter[str]:
    return Counter(bot for game in store.games(name) for bot in game.seats)


def test_a_bot_skipped_in_a_swiss_stays_out_of_the_rounds_paired_without_it(tmp_path):
    write_config(tmp_path, SEASON)
    first = season(tmp_path)
    assert first.exit_code == 0, first.output
    assert "skipping: bot 'broken'" in first.stderr
    assert "it stays out of the Swiss rounds this run pairs" in first.stderr
    # Three bots a round: one table (its two rotations) and a bye. The games broken's
    # table would have had are not scheduled; its table-mates' games stand.
    assert "8 games played (0 already stored) of 8 " in first.stderr
    store = Store(tmp_path / "season.sqlite")
    assert_consistent(store, "season")
    before = games_per_bot(store)
    assert sorted(before.values()) == [4, 6, 6] and "broken" not in before
    (tmp_path / "bot.py").write_text(BOT_PY)
    second = season(tmp_path)
    assert second.exit_code == 0, second.output
    # Every round was paired without it: nothing is left to play, and nothing changed.
    assert "0 games played (8 already stored) of 8 " in second.stderr
    assert_consistent(store, "season")
    assert games_per_bot(store) == before
    board = {row.bot: row.games for row in standings(store, store.resolve("season"))}
    assert board == {**before, "broken": 0}
    # Starting over takes it in; the first run is kept, pairings and all.
    fresh = season(tmp_path, "--fresh")
    assert "16 games played (0 already stored) of 16 " in fresh.stderr, fresh.stderr
    assert games_per_bot(store) == {"a": 8, "b": 8, "c": 8, "broken": 8}
    for name in ("season", "season.old-1"):
        assert_consistent(store, name)
    assert games_per_bot(store, "season.old-1") == before


def test_a_skipped_bot_joins_the_swiss_rounds_paired_after_it_starts(tmp_path):
    path = write_config(tmp_path, SEASON)
    config = load_config(path)
    # Interrupted in its second round, paired (like the first) without broken.
    interrupted_run(config, tmp_path, 3, db="season.sqlite", skip_bad_bots=True)
    (tmp_path / "bot.py").write_text(BOT_PY)
    summary, store, _ = run_tournament(config, tmp_path, db="season.sqlite",
                                       skip_bad_bots=True)
    # Rounds 1 and 2 keep their one table; rounds 3 and 4 seat all four at two tables.
    assert (summary.already_done, summary.played, summary.total) == (3, 9, 12)
    assert_consistent(store, "season")
    tables = {number: {frozenset(seats) for seats in games}
              for number, games in rounds_of(store, "season").items()}
    assert [len(tables[number]) for number in range(4)] == [1, 1, 2, 2]
    assert games_per_bot(store)["broken"] == 4


def test_progress_says_the_round_the_resume_and_the_fresh_bots_once(tmp_path):
    config = parse_config(swiss(6, 3))
    interrupted_run(config, tmp_path, 4)
    _, _, out = run_tournament(config, tmp_path, quiet=False)
    lines = out.splitlines()
    # Two tables a round (6 games): the fourth game was in the first round.
    assert lines[0] == "resuming: 4 of 18 games stored; 14 left to play"
    progress = [line for line in lines if line.startswith("games ")]
    assert progress[0].startswith("games 5/18 (28%)  round 1 of 3  ")
    assert progress[-1].startswith("games 18/18 (100%)  round 3 of 3  ")
    # Fresh bots before every rotation of every round: said once.
    fresh = [line for line in lines if "start afresh" in line]
    assert fresh == ["  bots start afresh before every seat rotation (6 before rotation 2), "
                     "so none remembers a deal it is dealt again"]


@pytest.mark.parametrize("duplicate", [True, False])
def test_a_swiss_begun_before_pairings_were_kept_resumes_from_its_stored_tables(tmp_path,
                                                                              duplicate):
    """A store of an older referee keeps no pairing: a round with a game of every table
    is rebuilt from its games (the rotation of each turned back); one with a table
    missing is refused, in one line."""
    data = swiss(7, 3, duplicate=duplicate)
    run_tournament(parse_config(data), tmp_path, db="whole.sqlite")
    # Two tables a round, 6 games: round 2 is games 6-11, its first table's 6, 8 and 10
    # with duplicate deals (epoch by epoch), else 6, 7 and 8. One game of each table is
    # kept, neither in its first rotation; the gap store keeps the first table's only.
    kept = (8, 11) if duplicate else (7, 11)
    for name, keep in (("old.sqlite", kept), ("gap.sqlite", kept[:1])):
        Store(tmp_path / "whole.sqlite").db.execute("VACUUM INTO ?", (str(tmp_path / name),))
        with sqlite3.connect(tmp_path / name) as db:
            db.execute("DELETE FROM swiss_rounds")
            db.execute(f"DELETE FROM games WHERE game_index >= 6 AND game_index NOT IN "
                       f"({', '.join(map(str, keep))})")
            db.execute("UPDATE tournaments SET finished_at = NULL")
    summary, store, _ = run_tournament(parse_config(data), tmp_path, db="old.sqlite")
    assert summary.already_done == 8 and summary.played == 10
    assert stored_pairings(tmp_path / "old.sqlite") == stored_pairings(tmp_path / "whole.sqlite")
    assert_consistent(store, "swiss")
    with pytest.raises(TournamentError, match=r"Swiss round 2 of 'swiss' was begun by an older "
                       r"circus-referee that did not keep its pairing, and 1 of its tables have "
                       r"no game stored: finish it with that version, or start over with --fresh"):
        run_tournament(parse_config(data), tmp_path, db="gap.sqlite")
