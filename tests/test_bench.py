"""Smoke test of the benchmarks: ``python -m bench --quick --scale 0.2`` runs and gives
every figure.

Nothing here looks at how fast anything was (no test asserts a time): only that each
benchmark ran and reported each of its figures, and the machine it ran on.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import QUIET_DASK

from bench.cli import main, parse_args, plan
from bench.tournament import games_per_round
from referee.games import GAMES

ROOT = Path(__file__).resolve().parent.parent
# The smoke run: `--quick` scaled down five times more. What it proves is that every
# benchmark runs and reports each figure, not the figures: a fifth of the quick run's
# durations and game counts (down to each benchmark's floor) leaves every table and goal
# line, where the rest was CPU spent on figures no test reads (9 s of the quick run's 32).
SMOKE = ["--quick", "--scale", "0.2"]
PLAN = plan(parse_args(SMOKE))
# The smoke run takes about half a minute on an idle 2-core machine: many times that on a
# slower or busy one must still pass (the suite's default limit is 300 s a test).
pytestmark = pytest.mark.timeout(1200)


def rlcard_installed() -> bool:
    try:
        import rlcard  # noqa: F401
    except Exception:
        return False
    return True


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    # Its Dask cluster without the workers' profiler and the frequent ticks (CPU no figure
    # of a smoke run needs), as the cluster tests run theirs.
    completed = subprocess.run([sys.executable, "-m", "bench", *SMOKE, "--json", str(out)],
                               cwd=ROOT, capture_output=True, text=True, timeout=1100,
                               env={**os.environ, **QUIET_DASK})
    failed = [line for line in completed.stdout.splitlines() if "FAILED" in line or
              line.startswith("- ") and "Error" in line]
    assert completed.returncode == 0, "\n".join(failed) or completed.stderr[-2000:]
    return completed.stdout, json.loads(out.read_text())


def figures(report, key):
    return report["sections"][key]["figures"]


def assert_numbers(values: dict, names: list[str]) -> None:
    missing = [name for name in names if name not in values]
    assert not missing, f"missing figures: {missing}"
    for name in names:
        assert isinstance(values[name], (int, float)) and math.isfinite(values[name]), name
        assert values[name] >= 0, name


@pytest.mark.slow
def test_the_machine_and_every_table_are_printed(quick):
    text, report = quick
    for key in ("cpu", "cores", "python", "grpcio", "protobuf"):
        assert report["machine"][key]
    for title in ("### Machine", "### 1. Rules engines", "### 2. Over the wire",
                  "### 3. Concurrency scaling", "### 4. A big in-process tournament",
                  "### 5. The leaderboard of a long log",
                  "### 6. Duplicate deals without memory",
                  "### 7. Bot start-up", "### 8. The whole command",
                  "### 9. A tournament on a Dask cluster",
                  "### 10. The referee's memory over a long in-process tournament"):
        assert title in text
    assert set(report["sections"]) == {"engines", "wire", "stream", "transport", "stdio",
                                       "scaling", "tournament", "leaderboard", "renewal",
                                       "startup", "command", "swiss", "stopping", "sprt",
                                       "dealsets", "verdict", "fields", "luck", "cluster",
                                       "memory",
                                       "reports", "arena"}


@pytest.mark.slow
def test_engines_every_game_and_variant_and_uno(quick):
    values = figures(quick[1], "engines")
    names = []
    for name, game in GAMES.items():
        for variant in game.variants:
            for players in (2, 4):
                key = f"{name}.{variant}.p{players}"
                names += [f"{key}.decisions_per_s", f"{key}.games_per_s",
                          f"{key}.engine_decisions_per_s"]
                if rlcard_installed():
                    names.append(f"{key}.ratio_to_uno")
    if rlcard_installed():
        names += ["uno.decisions_per_s", "uno.games_per_s", "worst_ratio_to_uno"]
    else:
        assert any("RLCard" in note for note in quick[1]["sections"]["engines"]["notes"])
    assert_numbers(values, names)
    assert all(values[name] > 0 for name in names if name.endswith("_per_s"))


@pytest.mark.slow
def test_wire_referee_and_echo_at_concurrency_1_and_4(quick):
    values = figures(quick[1], "wire")
    names = [f"{game}.c{concurrency}.{figure}" for game in GAMES for concurrency in (1, 4)
             for figure in ("echo_calls_per_s", "referee_decisions_per_s",
                            "referee_calls_per_s", "ratio", "call_ratio", "request_bytes")]
    assert_numbers(values, names + ["worst_ratio"])
    assert all(values[name] > 0 for name in names)
    # Both ends' CPU a call: this process's always counts; the servers' are read from /proc.
    cpu = [f"{game}.c{concurrency}.{end}_cpu_us" for game in GAMES for concurrency in (1, 4)
           for end in ("referee", "bot", "echo_client", "echo_server")]
    assert_numbers(values, cpu)
    assert all(values[name] > 0 for name in cpu if "referee" in name or "client" in name)
    assert sum(values[name] for name in cpu if "bot" in name or "server" in name) > 0
    bounds = [f"{game}.c{concurrency}.{name}" for game in GAMES for concurrency in (1, 4)
              for name in ("cpu_ratio", "free_referee_bound")]
    assert_numbers(values, bounds)
    # The profiled run's shares of the referee's CPU, by part, add up to the whole.
    shares = {name: value for name, value in values.items() if name.startswith("profile.")}
    assert {"profile.gRPC client.percent", "profile.engine.percent"} <= set(shares)
    assert sum(shares.values()) == pytest.approx(100)


@pytest.mark.slow
def test_stream_against_unary_calls_and_the_echo(quick):
    values = figures(quick[1], "stream")
    ways = ("echo", "stream_echo", "aio_stream_echo", "inline", "calls", "stream")
    names = [f"{way}.c{concurrency}.{figure}" for way in ways
             for concurrency in (1, 4)
             for figure in ("per_s", "ratio", "referee_cpu_us", "bot_cpu_us",
                            "referee_switches", "bot_switches")]
    assert_numbers(values, names + ["worst_ratio"])
    assert all(values[name] > 0 for name in names if name.endswith(("per_s", "referee_cpu_us")))
    assert values["echo.c1.ratio"] == 1.0
    # The ceiling adds the loop's time to a stream echo's: below that echo's own ratio.
    assert 0 < values["ceiling.c1.sync"] < values["stream_echo.c1.ratio"]
    assert 0 < values["ceiling.c1.aio"] < values["aio_stream_echo.c1.ratio"]
    shares = {name: value for name, value in values.items()
              if name.startswith("profile.stream.")}
    assert "profile.stream.bot calls (client, threads).percent" in shares
    assert sum(shares.values()) == pytest.approx(100)


def test_context_switches_count_a_threads_hand_overs():
    from bench.wire import switches
    before = switches([os.getpid()])
    for _ in range(20):
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
    assert switches([os.getpid()]) - before >= 20


def test_own_switches_keep_the_counts_of_threads_that_ended():
    # /proc's per-thread counts leave with their thread: a fresh-clone run once measured
    # -3.9 switches a call for the referee's side of the echo.
    from bench.wire import own_switches
    before = own_switches()
    for _ in range(20):
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
    assert own_switches() - before >= 20


def test_group_cpu_counts_a_process_group_s_work():
    from bench.wire import group_cpu
    busy = subprocess.Popen([sys.executable, "-c", "import time\nend = time.process_time() + 0.3\n"
                             "while time.process_time() < end: pass\ninput()"],
                            stdin=subprocess.PIPE, start_new_session=True)
    try:
        before = group_cpu(busy.pid)
        deadline = time.monotonic() + 30
        while group_cpu(busy.pid) - before < 0.2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert group_cpu(busy.pid) - before >= 0.2
        assert group_cpu(None) == 0.0
    finally:
        busy.kill()
        busy.wait()


@pytest.mark.slow
def test_stdio_referee_against_the_echo_and_the_pipe_ping_pong(quick):
    values = figures(quick[1], "stdio")
    names = [f"c{concurrency}.{figure}" for concurrency in (1, 4)
             for figure in ("decisions_per_s", "echo_calls_per_s", "pingpong_per_s",
                            "echo_ratio", "pingpong_ratio")]
    assert_numbers(values, [*names, "command_ratio"])
    assert all(values[name] > 0 for name in names)
    notes = " ".join(quick[1]["sections"]["stdio"]["notes"])
    assert "× echo (" in notes and "ping-pong (" in notes and "goal ≥ 2.0×" in notes


def test_transport_every_way_against_the_echo_baseline(quick):
    from bench.transport import WAYS
    values = figures(quick[1], "transport")
    names = [f"{label}.c{concurrency}.ratio" for label, *_ in WAYS for concurrency in (1, 4)]
    assert_numbers(values, names)
    assert values[f"{WAYS[0][0]}.c1.ratio"] == 1.0  # the baseline against itself
    assert all(values[name] > 0 for name in names)


@pytest.mark.slow
def test_scaling_throughput_cpu_and_memory(quick):
    values = figures(quick[1], "scaling")
    names = [f"c{concurrency}.{figure}" for concurrency in (1, 2, 4, 8)
             for figure in ("games_per_s", "decisions_per_s", "cpu_us_per_decision")]
    assert_numbers(values, names + ["rss_c1_mb", "rss_c16_mb"])
    assert values["rss_c1_mb"] > 10 and values["rss_c16_mb"] > 10  # a Python process, measured


@pytest.mark.slow
def test_big_tournament_and_where_its_time_goes(quick):
    values = figures(quick[1], "tournament")
    shares = [f"profile.{part}.percent" for part in
              ("engine", "bots", "wire (protobuf)", "ratings", "storage")]
    parts = [f"parts.{part}" for part in
             ("engine_ms", "request_ms", "bots_ms", "ratings_ms", "storage_ms", "game_ms")]
    assert_numbers(values, ["games", "seconds", "games_per_s", "decisions_per_s",
                            "profile.cpu_seconds", *shares, *parts])
    per_round = games_per_round(PLAN["tournament"]["bots"])   # whole rounds are played
    assert values["games"] == math.ceil(PLAN["tournament"]["games"] / per_round) * per_round
    assert 99 <= sum(v for k, v in values.items() if k.endswith(".percent")) <= 101


def test_an_unknown_benchmark_is_refused(capsys):
    # In this process: `python -m bench` itself is the smoke run's (the quick fixture).
    with pytest.raises(SystemExit) as exited:
        main(["nonsense"])
    assert exited.value.code == 2 and "unknown benchmark" in capsys.readouterr().err


@pytest.mark.slow
def test_leaderboard_headline_and_bootstrap_times(quick):
    values = figures(quick[1], "leaderboard")
    size = next(name for name in values if name.startswith("bootstrap_s_")).split("_")[2]
    assert_numbers(values, [f"{part}_s_{size}_{players}p" for part in ("bootstrap", "headline")
                            for players in (2, 4)])
    assert_numbers(values, ["stored_games", "stored_leaderboard_s", "stored_leaderboard_cpu_s",
                            "unkept_leaderboard_s", "unkept_leaderboard_cpu_s", "kept_board_s"])
    notes = quick[1]["sections"]["leaderboard"]["notes"]
    assert any("goal: the bootstrap" in note for note in notes)
    assert any("goal: the leaderboard of a" in note for note in notes)


@pytest.mark.slow
def test_memory_of_a_small_and_a_large_in_process_tournament(quick):
    values = figures(quick[1], "memory")
    assert_numbers(values, ["small_games", "large_games", "small_rss_mb", "large_rss_mb",
                            "small_seconds", "large_seconds"])
    assert values["large_games"] > values["small_games"]
    assert values["small_rss_mb"] > 10 and values["large_rss_mb"] > 10   # a Python process
    notes = quick[1]["sections"]["memory"]["notes"]
    assert any("goal: peak RSS of" in note for note in notes)


@pytest.mark.slow
def test_reports_and_packs_of_a_season_and_a_page_of_every_game(quick):
    values = figures(quick[1], "reports")
    games = plan(parse_args(SMOKE))["reports"]["sizes"][0]
    assert_numbers(values, [f"{key}.{games}.{unit}"
                            for key in ("report", "again", "packs", "copied")
                            for unit in ("cpu_s", "mb")]
                   + [f"page.{games}.median_kb", "alone.flohcati.4p.kb"])
    notes = quick[1]["sections"]["reports"]["notes"]
    assert any("goal: a 4-player Flohcati replay page" in note for note in notes)


@pytest.mark.slow
def test_renewal_cost_of_fresh_bots_per_rotation(quick):
    values = figures(quick[1], "renewal")
    assert_numbers(values, ["protected_games_per_s", "unprotected_games_per_s"])
    assert "cost" in values


@pytest.mark.slow
def test_startup_of_four_bots_side_by_side_with_grpc_s_backoff(quick):
    values = figures(quick[1], "startup")
    assert_numbers(values, ["start_s", "grpc_default_start_s", "import_cpu_s", "bots"])
    assert values["bots"] == 4
    assert any("goal: 4 Python bots" in note for note in quick[1]["sections"]["startup"]["notes"])


@pytest.mark.slow
def test_whole_command_against_the_echo(quick):
    values = figures(quick[1], "command")
    assert_numbers(values, ["games", "seconds", "decisions", "decisions_per_s",
                            "echo_calls_per_s", "ratio", "tournament_s"])
    assert values["games"] == PLAN["command"]["games"]
    assert values["decisions"] > values["games"]


@pytest.mark.slow
def test_big_fields_swiss_order_early_stopping_and_sprt_errors(quick):
    swiss = figures(quick[1], "swiss")
    assert_numbers(swiss, ["tau_round_1", "tau_round_2", "tau_last", "seconds_per_round",
                           *(f"repeats_{seats}" for seats in range(2, 6)),
                           *(f"worst_repeats_{seats}" for seats in range(2, 6))])
    assert swiss["repeats_2"] == 0   # 30 bots, 10 rounds: a rematch is always avoidable
    stopping = figures(quick[1], "stopping")
    assert_numbers(stopping, ["runs", "stopped", "true_order_rate", "median_share",
                              "half_or_less_rate"])
    assert stopping["runs"] == PLAN["stopping"]["seeds"] and stopping["median_share"] <= 1
    sprt = figures(quick[1], "sprt")
    assert_numbers(sprt, ["simulated_error_alpha", "simulated_error_beta", "identical_error",
                          "stronger_error", "identical_median_deals", "stronger_median_deals"])
    dealsets = figures(quick[1], "dealsets")
    assert_numbers(dealsets, ["dealsets_alpha_error", "dealsets_beta_error",
                              "share_same_bounds", "share_same_strengths",
                              "share_same_strengths_small", "trinomial_elo_of_dealset_50",
                              "real_identical_share", "real_stronger_share"])


@pytest.mark.slow
def test_the_verdict_before_and_after_with_its_goals(quick):
    values = figures(quick[1], "verdict")
    assert_numbers(values, [f"{when}_{name}" for when in ("before", "after")
                            for name in ("settled", "true", "median_games")])
    assert values["after_settled"] <= 1 and values["after_median_games"] <= 720
    assert_numbers(values, [f"ranges_{when}_{name}" for when in ("before", "after")
                            for name in ("correct", "width")])
    notes = quick[1]["sections"]["verdict"]["notes"]
    assert sum(1 for note in notes if note.startswith("goal (the issue's field): ")) == 3
    assert_numbers(values, [f"real_{name}" for name in ("settled", "true", "median_games")])


@pytest.mark.slow
def test_the_verdict_over_a_family_of_fields_close_and_wide(quick):
    values = figures(quick[1], "fields")
    assert_numbers(values, [f"{kind}_r{reallocation}_{name}" for kind in ("close", "wide")
                            for reallocation in (4, 1)
                            for name in ("settled_median", "wrong", "games_share_median")])
    assert all(values[name] <= 1 for name in values)


@pytest.mark.slow
def test_the_luck_experiment_gives_its_verdict(quick):
    values = figures(quick[1], "luck")
    # A share of variance removed: below 0 where the correction adds noise (a quick run's
    # fit on 36 games may), so finite and at most 1, not assert_numbers' >= 0.
    for name in ("removed_set_mean", "removed_game_p75_p50", "removed_set_p25_p0"):
        assert math.isfinite(values[name]) and values[name] <= 1, name
    notes = quick[1]["sections"]["luck"]["notes"]
    assert any(note.startswith("verdict: the correction removes ") for note in notes)


@pytest.mark.slow
def test_cluster_games_per_second_by_workers(quick):
    values = figures(quick[1], "cluster")
    workers = [f"workers_{count}_{figure}" for count in PLAN["cluster"]["workers"]
               for figure in ("games_per_s", "whole_run_games_per_s")]
    assert_numbers(values, ["local_games_per_s", *workers])
    assert any("goal: games/s grows" in note
               for note in quick[1]["sections"]["cluster"]["notes"])


@pytest.mark.slow
def test_the_arena_under_load_every_phase_and_the_ladder_against_the_tournament(quick):
    values = figures(quick[1], "arena")
    size = PLAN["arena"]
    assert values["entrants"] == size["entrants"] and values["stored_games"] >= size["games"]
    latencies = [f"{phase}.{page}.{figure}" for phase in ("idle", "board", "streams")
                 for page in ("page", "board") for figure in ("p50_ms", "p95_ms", "p99_ms")]
    assert_numbers(values, [*latencies, "idle_cpu_ms_per_request", "round_1.ratio", "ratio"])
    assert all(values[f"{phase}.failed"] == 0 for phase in ("idle", "board", "streams"))
    # Every stream held, and each heard every match that ended while all were open.
    assert values["streams.held"] == size["listeners"] and values["streams.missed"] == 0
    notes = quick[1]["sections"]["arena"]["notes"]
    assert any(note.startswith("goal: the ladder's games/s") for note in notes)
