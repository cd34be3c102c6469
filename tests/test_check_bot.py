"""check-bot passes the example bots and fails each fault-injection bot, saying why."""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result
from conftest import live_group_members, still_running

from bots.random_bot import RandomBot
from circus_referee.commands.bots import check_bot_command
from circus_referee.main import main
from referee import checkbot, reaper, sandbox
from referee.checkbot import remove_stale_folders
from referee.clients import InProcessClient
from referee.games import GAMES
from referee.limits import hierarchy, statement
from referee.settings import BotSpec, LimitsConfig, TimeConfig
from tournaments import submissions
from tournaments.config import parse_config

FAULT_BOTS = Path(__file__).resolve().parent / "fault_bots.py"
ROOT = Path(__file__).resolve().parent.parent
CLI = str(Path(sys.executable).parent / "circus-referee")
# Every bot that answers gets a bank no busy machine spends (a decision over 100 ms only
# draws on it, and warns), and a start-up no busy machine overruns: its fault is the one
# it was made to have, at any speed. The limits that are a test's subject are short, for a
# bot that hangs (HANG) or never listens (below), so they cost little time: a hang, not a
# near miss.
FAST = ["--move-ms", "100", "--bank-ms", "600000", "--startup-ms", "30000"]
HANG = ["--bank-ms", "200"]
# The fault bots' faults are their tests' subject, not the sandbox: they run unsandboxed
# (a sandboxed start costs a third more CPU), but the one that never listens, whose message
# names the unix socket a sandboxed bot is given.
UNSANDBOXED = ["--no-sandbox"]


def check(*args: str):
    return CliRunner().invoke(main, ["check-bot", *args])


@pytest.mark.parametrize("command", [
    "python -m bots.random_bot --address {address}",
    "python -m bots.flea_greedy --address {address}",
    "python -m bots.flohcati_heuristic --address {address}",
    "python -m bots.animal_circus_heuristic --address {address}",
])
def test_example_bots_pass(command):
    """The random bot, which claims every game, in check-bot's full rotation (every seat of
    every player count); the others each seat once."""
    full = "random_bot" in command
    result = check("--command", command,
                   *(("--games", "1") if full else ("--rotation", "once")))
    assert result.exit_code == 0, result.output
    assert "FAIL" not in result.output and "PASS  timing:" in result.output
    # The referee's protocol version is labelled, apart from the software's name.
    assert ", protocol 1.1.0 (circus-referee 0.1.0 speaks protocol 1.1.0)" in result.output
    assert "games at once on one connection" in result.output
    seating = "in every seat of every player count" if full else "in each seat once across"
    assert "covered: " in result.output and seating in result.output, result.output


def test_every_player_count_is_played():
    """A bot that only copes with two players fails, named, at three."""
    result = check("--command", f"{sys.executable} {FAULT_BOTS} two-players --address {{address}}",
                   "--game", "flea-circus", "--games", "1", "--at-once", "1", *FAST,
                   *UNSANDBOXED)
    assert result.exit_code == 1, result.output
    assert "FAIL  play flea-circus/standard: fault-two-players faulted in game 1 of 3 players" \
        in result.output, result.output
    # Covered: what was played to the end, the two-player games (one in each seat), not
    # every player count.
    assert ("covered: flea-circus/standard 2 game(s) of 2 (of 14 games in every seat of 2-5 "
            "players, planned)") in result.output, result.output
    assert "every player count" not in result.output


def test_rotation_once_seats_the_bot_in_each_seat_and_each_count_in_full_rotation_games():
    """The quick rotation's games are the full rotation's: every seat, every player count,
    and the last seat of each count."""
    for game in GAMES.values():
        once = checkbot.seatings(game.name, 1, "once")
        counts = range(game.min_players, game.max_players + 1)
        assert set(once) <= set(checkbot.seatings(game.name, 1, "full")), game.name
        assert sorted(number % players for players, number in once) == list(
            range(game.max_players)), once
        assert {(players, players - 1) for players in counts} <= set(once), once
        assert len(once) == game.max_players


def test_games_with_rotation_once_is_refused_in_one_line():
    result = check("--command", "python -m bots.random_bot --address {address}",
                   "--rotation", "once", "--games", "3")
    assert result.exit_code == 2
    assert "--games counts the games of --rotation full" in result.output


@pytest.fixture(scope="module")
def flea_once(tmp_path_factory) -> tuple[Result, Path]:
    """One check of the random bot, each seat of Flea Circus once, under a memory limit of
    its own, its temporary folders in a folder of their own: the tests below read it."""
    temporary = tmp_path_factory.mktemp("flea-once")
    # The sandbox is probed (once a process) before the temporary folder moves under
    # pytest's root-only folder, which a bot's unprivileged uid cannot walk to.
    sandbox.unavailable_reason()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(temporary))
        result = check("--command", "python -m bots.random_bot --address {address}",
                       "--game", "flea-circus", "--at-once", "1", "--rotation", "once",
                       "--memory-mb", "512")
    return result, temporary


def test_rotation_once_is_played_and_said(flea_once):
    result, _ = flea_once
    assert result.exit_code == 0, result.output
    assert "PASS  play flea-circus/standard: 2-5 players, each seat once: " in result.output
    assert ("covered: flea-circus/standard in each seat once across the player counts the "
            "game allows (2-5), 5 games; against random bots") in result.output, result.output


def test_concurrent_games_are_played():
    """A bot that holds one game at a time passes games in turn but not games at once."""
    result = check("--command", f"{sys.executable} {FAULT_BOTS} one-game --address {{address}}",
                   "--game", "flea-circus", "--rotation", "once", *FAST, *UNSANDBOXED)
    assert result.exit_code == 1, result.output
    assert "PASS  play flea-circus/standard" in result.output, result.output
    assert "FAIL  concurrent flea-circus: fault-one-game faulted in game" in result.output, \
        result.output
    assert "games at once: 3 of flea-circus" not in result.output, result.output


def test_no_temporary_folder_is_left(flea_once):
    result, temporary = flea_once
    assert result.exit_code == 0, result.output
    assert not list(temporary.glob("check-bot-*"))


def test_the_log_is_kept_where_asked(tmp_path):
    result = check("--command", "python -m bots.random_bot --address {address}",
                   "--game", "flea-circus", "--rotation", "once", "--at-once", "1",
                   "--log-dir", str(tmp_path / "logs"))
    assert result.exit_code == 0, result.output
    assert "=== run 1 of candidate" in (tmp_path / "logs" / "candidate.log").read_text()


def test_a_sandboxed_check_says_first_which_limits_hold(flea_once):
    result, _ = flea_once
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == statement(LimitsConfig(memory_mb=512), hierarchy())


def test_every_option_has_help():
    assert all(param.help for param in check_bot_command.params
               if isinstance(param, click.Option)), check_bot_command.params


def test_a_bot_using_its_bank_passes_with_a_warning():
    """25 ms of sleep per decision is over 20 ms on any machine (a slower one only adds)."""
    slow = f"{sys.executable} {FAULT_BOTS} slow --sleep-ms 25 --address {{address}}"
    result = check("--command", slow, "--game", "flea-circus", "--rotation", "once",
                   "--at-once", "1", "--move-ms", "20", "--bank-ms", "600000")
    assert result.exit_code == 0, result.output
    assert "WARN  timing: " in result.output and "of --move-ms 20; p99 exceeds it" \
        in result.output
    assert result.output.rstrip().endswith("failed (1 with a warning)"), result.output


def test_decision_times_near_the_move_time_warn_and_with_strict_fail():
    """Slow decisions within the bank must not pass silently. 8 ms of sleep per decision
    is at least 80% of 10 ms on any machine (a slower one only adds to it)."""
    near = ["--command", f"{sys.executable} {FAULT_BOTS} slow --sleep-ms 8 --address {{address}}",
            "--game", "flea-circus", "--rotation", "once", "--at-once", "1", "--move-ms", "10",
            "--bank-ms", "600000", "--startup-ms", "30000"]
    warned = check(*near)
    assert warned.exit_code == 0, warned.output
    timing = next(line for line in warned.output.splitlines() if "timing:" in line)
    assert timing.startswith("WARN  timing: ") and "--move-ms 10" in timing, warned.output
    failed = check(*near, "--strict")
    assert failed.exit_code == 1, failed.output
    assert "FAIL  timing: " in failed.output and "PASS  play flea-circus" in failed.output


@pytest.mark.parametrize("mode, failed_check, message", [
    ("hang", "play flea-circus/standard", "timeout: DEADLINE_EXCEEDED"),
    ("exit", "play flea-circus/standard", "crash: UNAVAILABLE"),
    ("out-of-range", "play flea-circus/standard", "illegal: action_index"),
    ("stale", "play flea-circus/standard", "illegal: stale decision_id"),
    ("raise", "play flea-circus/standard", "error: UNKNOWN"),
    ("oversize", "play flea-circus/standard", "illegal: RESOURCE_EXHAUSTED"),
    ("garbage", "play flea-circus/standard", "illegal: INTERNAL"),
    ("no-port", "handshake", "did not answer on unix:"),
    ("wrong-version", "handshake", "the major versions differ"),
    ("no-game", "games", "claims no game"),
])
def test_fault_bots_fail_with_the_right_message(mode, failed_check, message):
    # The last of an option given twice counts (click's rule).
    # The no-port bot never listens: any start-up limit runs out, and a longer checks no more.
    short = {"no-port": ["--startup-ms", "1000"], "hang": HANG}.get(mode, [])
    result = check("--command", f"{sys.executable} {FAULT_BOTS} {mode} --address {{address}}",
                   "--game", "flea-circus", "--rotation", "once", *FAST, *short,
                   *([] if mode == "no-port" else UNSANDBOXED))
    assert result.exit_code == 1, result.output
    failures = [line for line in result.output.splitlines() if line.startswith("FAIL")]
    assert len(failures) == 1, result.output
    assert failures[0].startswith(f"FAIL  {failed_check}: ") and message in failures[0], \
        result.output


def test_exactly_one_of_command_address_and_dir():
    result = check("--games", "1")
    assert result.exit_code == 2 and "exactly one of --command, --address and --dir" \
        in result.output


def test_a_running_bot_is_checked_on_a_unix_socket(tmp_path):
    """Issue 35: ``--address unix:/path`` works as well as HOST:PORT (the README says so)."""
    socket_path = tmp_path / "bot.sock"
    bot = subprocess.Popen([sys.executable, "-m", "bots.random_bot", "--address",
                            f"unix:{socket_path}"], stdin=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        result = check("--address", f"unix:{socket_path}", "--game", "flea-circus",
                       "--rotation", "once", "--at-once", "1", "--startup-ms", "30000")
    finally:
        bot.terminate()
        bot.wait(timeout=30)
    assert result.exit_code == 0, result.output
    assert "PASS  play flea-circus/standard" in result.output, result.output


# -- an autograder's check-bot: streamed, and clean when stopped --------------------------

def held_check(folder: Path) -> tuple[subprocess.Popen, Path, dict[str, str]]:
    """check-bot of a bot that answers no decision while ``folder/hold`` exists (at most a
    minute), its temporary folders in ``folder/tmp``: it is stopped at its first game."""
    hold, temporary = folder / "hold", folder / "tmp"
    hold.touch()
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary), "PYTHONFAULTHANDLER": "1"}
    bot = f"{sys.executable} {FAULT_BOTS} slow --hold {hold} --address {{address}}"
    run = subprocess.Popen([CLI, "check-bot", "--command", bot, "--no-sandbox", "--game",
                            "flea-circus", "--rotation", "once", "--at-once", "1", "--move-ms",
                            "120000", "--startup-ms", "30000"], cwd=ROOT, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    return run, hold, env


def lines_until(run: subprocess.Popen, prefix: str, timeout: float = 120) -> list[str]:
    """The process's stdout, read line by line as it comes (unbuffered: a line read ahead
    into a buffer would wait unseen), up to the line starting ``prefix``."""
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(run.stdout, selectors.EVENT_READ)
        while not (lines and lines[-1].startswith(prefix)):
            assert selector.select(timeout=max(0.0, deadline - time.monotonic())), lines
            line = run.stdout.readline().decode()
            assert line, (lines, run.stderr.read() if run.poll() is not None else "")
            lines.append(line)
    return lines


def bot_groups(pid: int) -> set[int]:
    """The process groups of ``pid``'s children (a bot runs in a group of its own), but
    the reaper's: that watchman outlives the referee by design, and leaves at the end of
    file of its pipe, some moment after the referee's exit."""
    groups = set()
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(") ", 1)[1].split()
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and reaper.HELPER.encode() not in command:
            groups.add(int(fields[2]))
    return groups


def test_each_check_is_printed_as_it_ends(tmp_path):
    """An autograder killed at its timeout has printed what passed: the handshake's line
    is out while the first game is still held."""
    run, hold, _ = held_check(tmp_path)
    try:
        lines = lines_until(run, "PASS  games: ")
        assert lines[0].startswith("PASS  handshake: fault-slow"), lines
        assert run.poll() is None, "the bot holds its first decision: no check could end"
        hold.unlink()
        rest, errors = (text.decode() for text in run.communicate(timeout=300))
    finally:
        run.kill()
        run.wait()
    assert run.returncode == 0, errors
    assert "PASS  play flea-circus/standard" in rest and "covered: flea-circus" in rest


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_check_bot_stopped_by_a_signal_stops_its_bot_and_leaves_no_folder(tmp_path, stop):
    run, hold, _ = held_check(tmp_path)
    try:
        lines_until(run, "PASS  games: ")
        assert list((tmp_path / "tmp").glob("check-bot-*")), "the bot's log is there"
        bots = bot_groups(run.pid)
        assert live_group_members(bots)
        run.send_signal(stop)
        try:
            errors = run.communicate(timeout=120)[1].decode()
        except subprocess.TimeoutExpired:
            run.send_signal(signal.SIGABRT)   # PYTHONFAULTHANDLER: every thread's stack
            pytest.fail("check-bot did not stop:\n" + run.communicate(timeout=30)[1].decode())
    finally:
        run.kill()
        run.wait()
    assert run.returncode == 130, errors
    assert "interrupted after 2 check(s); the bot is stopped" in errors
    assert list((tmp_path / "tmp").iterdir()) == []
    assert still_running(lambda: live_group_members(bots)) == []


def test_the_folder_a_killed_check_bot_left_is_removed_by_the_next(tmp_path, monkeypatch):
    """A SIGKILL runs no clean-up: the log's folder stays (the docs say so), and the next
    check-bot (here in process: a command's start costs CPU) removes it, by its dead pid; a
    running check-bot's folder is kept."""
    run, hold, _ = held_check(tmp_path)
    try:
        lines_until(run, "PASS  games: ")
    finally:
        run.kill()
        run.wait()
    hold.unlink()
    left = list((tmp_path / "tmp").glob("check-bot-*"))
    assert [folder.name.split("-")[2] for folder in left] == [str(run.pid)]
    running = tmp_path / "tmp" / f"check-bot-{os.getpid()}-running"
    running.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    again = check("--command", "python -m bots.random_bot --address {address}", "--no-sandbox",
                  "--game", "flea-circus", "--rotation", "once", "--at-once", "1")
    assert again.exit_code == 0, again.output
    assert list((tmp_path / "tmp").iterdir()) == [running]


def test_stale_folders_are_told_by_a_pid_no_longer_running(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ended = subprocess.Popen(["true"])
    ended.wait()
    stale, alive = tmp_path / f"check-bot-{ended.pid}-abc", tmp_path / f"check-bot-{os.getpid()}-x"
    other = tmp_path / "check-bot-notapid-y"
    for folder in (stale, alive, other):
        folder.mkdir()
    (stale / "candidate.log").write_text("the log of a killed run")
    remove_stale_folders()
    assert sorted(tmp_path.iterdir()) == sorted([alive, other])


# -- what a tournament will show: the log, the choices, every seat, the time ---------------

STDIO_FAULTS = Path(__file__).resolve().parent / "stdio_fault_bots.py"


def stdio_check(mode: str, *args: str):
    return check("--command", f"{sys.executable} {STDIO_FAULTS} {mode}", "--transport", "stdio",
                 "--game", "flea-circus", "--rotation", "once", "--at-once", "1", *args)


def line_of(output: str, name: str) -> str:
    return next(line for line in output.splitlines() if line[6:].startswith(f"{name}:"))


def test_a_bot_that_fails_at_every_decision_and_falls_back_is_warned_of():
    """A decide handler that throws, writes its traceback and answers choice 0 passes every
    check of play; check-bot names its log and its one choice."""
    result = stdio_check("fallback")
    assert result.exit_code == 0, result.output
    log = line_of(result.output, "log")
    assert log.startswith("WARN  log: ") and "report an error" in log, result.output
    assert "KeyError: 'no such field'" in log, log
    choices = line_of(result.output, "choices")
    assert choices.startswith("WARN  choices: degenerate: "), result.output
    counted = choices.split("degenerate: ")[1].split(" decisions")[0]
    total, of = counted.split(" of ")
    assert total == of and int(total) >= 10 and "were choice 0" in choices, choices


def test_strict_fails_on_a_warning():
    assert not checkbot.choices_check([0] * 40, strict=True).passed
    assert checkbot.choices_check([0] * 40).passed
    assert checkbot.choices_check([0] * 40).message.startswith(
        "degenerate: 40 of 40 decisions were choice 0")
    assert checkbot.choices_check([0, 1] * 20, strict=True).verdict == "PASS"
    assert checkbot.choices_check([2] * 9).verdict == "PASS"   # too few to tell


@pytest.fixture(scope="module")
def last_seat(tmp_path_factory) -> tuple[Result, Path]:
    """One check of a bot that crashes in the last seat, its temporary folders in a folder
    of their own: the two tests below read it."""
    temporary = tmp_path_factory.mktemp("last-seat")
    sandbox.unavailable_reason()   # probed before the temporary folder moves (see above)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(temporary))
        return stdio_check("last-seat"), temporary


def test_a_bot_that_crashes_in_the_last_seat_fails(last_seat):
    result, _ = last_seat
    assert result.exit_code == 1, result.output
    failed = line_of(result.output, "play flea-circus/standard")
    assert failed.startswith("FAIL") and "game 2 of 2 players (seat 1)" in failed, result.output


def test_the_log_of_a_failed_check_is_kept_and_named(last_seat, monkeypatch):
    result, temporary = last_seat
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    assert result.exit_code == 1, result.output
    kept = Path(line_of(result.output, "log").split("the log is kept: ")[1])
    assert kept.is_relative_to(temporary) and "=== run 1 of candidate" in kept.read_text()
    remove_stale_folders()   # a later run leaves it, for a week
    assert kept.exists()
    os.utime(kept.parent / checkbot.KEPT, (0, time.time() - checkbot.KEPT_S - 60))
    remove_stale_folders()
    assert not kept.parent.exists()


def test_a_stdio_bot_checked_as_grpc_is_told_of_transport_stdio():
    result = check("--command", f"{sys.executable} {STDIO_FAULTS} chatter", "--games", "1")
    assert result.exit_code == 1, result.output
    handshake = line_of(result.output, "handshake")
    assert handshake.startswith("FAIL") and "before answering" in handshake
    assert handshake.endswith("check it with --transport stdio"), handshake


def test_a_stdio_bot_that_prints_a_banner_is_told_where_it_belongs():
    result = stdio_check("banner")
    assert result.exit_code == 1, result.output
    handshake = line_of(result.output, "handshake")
    assert handshake.startswith("FAIL  handshake: Hello failed (illegal: the reply is not JSON")
    assert "b'my bot, version 1'" in handshake, handshake
    assert handshake.endswith("write anything else to stderr"), handshake


def test_a_reply_with_no_decision_id_is_told_so():
    result = stdio_check("no-decision-id")
    assert result.exit_code == 1, result.output
    failed = line_of(result.output, "play flea-circus/standard")
    assert failed.endswith("illegal: stale decision_id 0 (expected 1); a 0 is a reply with no "
                           "decision_id: echo the request's"), failed


def test_a_hello_reply_with_no_protocol_version_is_told_so():
    result = stdio_check("no-version")
    assert result.exit_code == 1, result.output
    handshake = line_of(result.output, "handshake")
    assert "its Hello reply has no protocol_version: give the version it was written against " \
           "(1.1.0, the referee's)" in handshake, handshake


def test_a_grpc_bot_checked_as_stdio_is_told_to_drop_transport_stdio():
    result = check("--command", "python -m bots.random_bot", "--transport", "stdio",
                   "--game", "flea-circus", "--rotation", "once", "--at-once", "1")
    assert result.exit_code == 1, result.output
    handshake = line_of(result.output, "handshake")
    assert handshake.endswith("check it without --transport stdio"), handshake


def test_memory_mb_is_the_bots_limit():
    result = stdio_check("hog --sleep-ms 200", "--memory-mb", "100")
    assert result.exit_code == 1, result.output
    assert "FAIL  play flea-circus/standard: " in result.output, result.output
    assert "MemoryError" in line_of(result.output, "log"), result.output


def test_a_failure_after_a_stray_line_is_named_a_knock_on():
    stray = checkbot.Check("play flea-circus/standard", False,
                           "... illegal: the reply is not JSON (Expecting value): b'debug'")
    later = checkbot.Check("play flohcati/en", False, "... illegal: request_id '9' in the reply "
                                                      "(expected 12)")
    noted = list(checkbot.noting_knock_ons(iter([stray, checkbot.Check("games", True, ""),
                                                 later])))
    assert noted[0] == stray and noted[1].passed
    assert noted[2].message.endswith("(perhaps a knock-on of the stray line that failed "
                                     "'play flea-circus/standard': fix that first)")


class SlowAtOnce(RandomBot):
    """Fast in the games played in turn (check-bot's first), slower than any deadline in
    the games played at once (the ones after them)."""

    IN_TURN = len(checkbot.seatings("flea-circus", 1, "full"))

    def __init__(self) -> None:
        super().__init__()
        self.game_ids: set[str] = set()

    def decide(self, request):
        self.game_ids.add(request.game_id)
        if len(self.game_ids) > self.IN_TURN:
            time.sleep(1.0)
        return super().decide(request)


def test_a_decision_that_timed_out_is_in_the_decision_times():
    spec = BotSpec(name="slow", python="test_check_bot:SlowAtOnce")
    checks = {check.name: check for check in checkbot.check_bot(
        spec, "flea-circus", 1, TimeConfig(move_ms=300, bank_ms=0, grace_ms=0), at_once=2)}
    assert not checks["concurrent flea-circus"].passed, checks
    most = float(checks["timing"].message.split("max ")[1].split(" ms")[0])
    assert most >= 300, checks["timing"]


# -- a bot's folder, as a submission holds it ------------------------------------------------

MANIFEST = """name: tester
author: A. Student
language: Python
command: python bot.py
transport: stdio
"""


def bot_folder(tmp_path: Path, script: str) -> Path:
    folder = tmp_path / "tester"
    folder.mkdir()
    (folder / "entrant.yaml").write_text(MANIFEST)
    (folder / "bot.py").write_text(script)
    return folder


def test_a_bot_folder_is_checked_by_its_manifest(tmp_path):
    folder = bot_folder(tmp_path, (ROOT / "bots" / "stdio" / "random_bot.py").read_text())
    result = check("--dir", str(folder), "--game", "flea-circus", "--rotation", "once",
                   "--at-once", "1")
    assert result.exit_code == 0, result.output
    assert "PASS  handshake: stdio-random 1.0" in result.output, result.output


def test_a_bot_folder_without_a_manifest_is_refused_in_one_line(tmp_path):
    result = check("--dir", str(tmp_path), "--games", "1")
    assert result.exit_code == 2 and "no entrant.yaml (keys: name, author" in result.output


def test_a_bot_that_fails_in_the_sandbox_is_told_what_the_sandbox_showed_it(tmp_path):
    """It opens a file beside its folder: there on the host, hidden in the sandbox."""
    (tmp_path / "weights.txt").write_text("1 2 3\n")
    folder = bot_folder(tmp_path, "open('../weights.txt').read()\n")
    result = check("--dir", str(folder), "--games", "1", "--at-once", "1")
    assert result.exit_code == 1, result.output
    handshake = line_of(result.output, "handshake")
    assert "exited with status 1" in handshake, handshake
    python = Path(sys.executable).parent / "python"
    assert (f"in the sandbox it ran in {folder}, its program python is {python}; the error "
            "names ../weights.txt, which exists on the host: the sandbox hides it; besides "
            f"the system's folders and the referee's Python it sees only {folder} ") \
        in handshake, handshake


def test_a_log_that_fails_under_strict_is_kept_and_named(tmp_path, monkeypatch):
    sandbox.unavailable_reason()   # probed before the temporary folder moves (see above)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = stdio_check("fallback", "--strict")
    assert result.exit_code == 1, result.output
    log = line_of(result.output, "log")
    assert log.startswith("FAIL  log: ") and "the log is kept: " in log, result.output
    assert Path(log.split("the log is kept: ")[1]).exists()


class Recorder(RandomBot):
    """The random bot, keeping the game ids it is asked about."""

    def __init__(self) -> None:
        super().__init__()
        self.game_ids: set[str] = set()

    def decide(self, request):
        self.game_ids.add(request.game_id)
        return super().decide(request)


def checked_game(secret: str) -> tuple[set[str], int]:
    """The ids a bot is shown and the deal's seed in one check-bot game."""
    bot = Recorder()
    result = checkbot.play_one(InProcessClient(bot), "flea-circus", "standard", "me", 2, 0, 0,
                               TimeConfig(), secret)
    return bot.game_ids, result.seed


def test_a_check_bot_games_id_and_deal_tell_a_bot_nothing_without_the_secret():
    (first_id,), first_seed = checked_game("a gate's secret")
    assert re.fullmatch(r"[0-9a-f]{16}", first_id)
    assert checked_game("a gate's secret") == ({first_id}, first_seed)
    other_ids, other_seed = checked_game("another gate's secret")
    assert other_ids != {first_id} and other_seed != first_seed


def test_each_gate_deals_from_a_fresh_secret(monkeypatch, tmp_path):
    given: list[str] = []

    def recording(*args, secret: str = "", **kwargs):
        given.append(secret)
        return iter(())

    monkeypatch.setattr(submissions, "check_bot", recording)
    entrant = submissions.Entrant(tmp_path, "ann", "Ann", "python", "python bot.py", 0.0)
    house = {"python": "bots.random_bot:RandomBot"}
    config = parse_config({"game": "flea-circus", "seed": 1,
                           "bots": [{"name": "r", **house}, {"name": "s", **house}]})
    for _ in range(2):
        submissions.check_entrant(entrant, config, 1, 1, tmp_path, ())
    assert len(set(given)) == 2 and all(len(secret) >= 32 for secret in given)
