"""A sandboxed bot's memory, tasks and CPU rate: bounded by cgroup v2 or v1, or said not to be.

This machine (and CI) runs cgroup v1 with an empty v2 hierarchy beside it, so the v2 path is
tested on a fake tree laid out like ``/sys/fs/cgroup`` (the files a kernel would show, written
by hand); v1's enforcement is tested for real in tests/test_faults.py (a bot over its memory
is stopped, and its fault says so).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import run_tournament, write_config

from circus_referee.commands import bots
from circus_referee.main import main
from referee import limits, participants, sandbox
from referee.limits import Cgroup, Hierarchy, discover, refusal, statement
from referee.participants import BotStartError, Participant
from referee.settings import BotSpec, LimitsConfig
from tournaments.config import ConfigError, parse_config
from tournaments.run import lineup
from tournaments.runner import TournamentError

PID = 4242
SCOPE = "/user.slice/user-1000.slice/referee.scope"


def mountinfo(mount: Path) -> str:
    return (f"25 1 0:23 / / rw,relatime - ext4 /dev/root rw\n"
            f"41 25 0:38 / {mount} rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw\n")


def fake_v2(tmp_path: Path, delegated: str = "cpuset cpu io memory pids") -> Path:
    """A v2 tree whose referee's cgroup ``SCOPE`` has the ``delegated`` controllers."""
    mount = tmp_path / "cgroup"
    own = mount / SCOPE.lstrip("/")
    own.mkdir(parents=True)
    (mount / "cgroup.controllers").write_text("cpuset cpu io memory hugetlb pids rdma\n")
    (own / "cgroup.controllers").write_text(f"{delegated}\n")
    (own / "cgroup.subtree_control").write_text("\n")
    (own / "cgroup.procs").write_text(f"{PID}\n")
    return mount


def test_on_v2_the_referee_moves_into_a_leaf_and_bounds_its_bots_beside_it(tmp_path):
    mount = fake_v2(tmp_path)
    where = discover(f"0::{SCOPE}\n", mountinfo(mount), PID, tmp_path / "no-v1")
    own = mount / SCOPE.lstrip("/")
    assert where.held == ("memory", "pids", "cpu") and where.problems == ()
    assert [(p.folder, p.version) for p in where.parents] == [(own, 2)]
    assert (own / limits.REFEREE_LEAF / "cgroup.procs").read_text() == str(PID)
    # Each controller is enabled by a write of its own (the fake file keeps the last).
    assert (own / "cgroup.subtree_control").read_text() == "+cpu"

    cgroup = Cgroup("bot-1", 64, 8, 0.5, where)
    folder = own / "bot-1"
    assert cgroup.held == {"memory", "pids", "cpu"} and cgroup.procs == [folder / "cgroup.procs"]
    assert {name: (folder / name).read_text() for name in ("memory.max", "pids.max", "cpu.max")} \
        == {"memory.max": str(64 * 1024 * 1024), "pids.max": "8", "cpu.max": "50000 100000"}
    assert str(folder / "cgroup.procs") in cgroup.wrap(["bot"])
    assert cgroup.oom_kills() == 0
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 7\noom 2\noom_kill 2\n")
    assert cgroup.oom_kills() == 2
    assert statement(LimitsConfig(), where) == (
        "limits of a sandboxed bot: memory 1,024 MB, 128 tasks, 1 CPU for the whole sandbox "
        "(cgroup v2)")


def test_a_referee_in_its_leaf_already_makes_its_bots_cgroups_beside_it(tmp_path):
    """A referee started by one that moved (check-bot run by the arena) moves no further."""
    mount = fake_v2(tmp_path)
    own = mount / SCOPE.lstrip("/")
    (own / "cgroup.subtree_control").write_text("cpu memory pids\n")
    (own / limits.REFEREE_LEAF).mkdir()   # what the parent enables its children have
    (own / limits.REFEREE_LEAF / "cgroup.controllers").write_text("cpu memory pids\n")
    where = discover(f"0::{SCOPE}/{limits.REFEREE_LEAF}\n", mountinfo(mount), PID,
                     tmp_path / "no-v1")
    assert [p.folder for p in where.parents] == [own] and where.held == limits.CONTROLLERS


def test_a_controller_v2_does_not_delegate_is_named_and_require_refuses(tmp_path):
    mount = fake_v2(tmp_path, delegated="cpu")
    where = discover(f"0::{SCOPE}\n", mountinfo(mount), PID, tmp_path / "no-v1")
    assert where.held == ("cpu",)
    assert statement(LimitsConfig(), where).startswith(
        "limits of a sandboxed bot: 1 CPU for the whole sandbox (cgroup v2); memory 1,024 MB "
        "per process only (RLIMIT_DATA), 128 tasks (RLIMIT_NPROC); not held: "
        "cgroup v2 does not delegate memory to the referee's cgroup ")
    assert refusal(LimitsConfig(), where) is None   # reported, and the run goes on
    refused = refusal(LimitsConfig(require=True), where)
    assert refused is not None and "\n" not in refused
    assert refused.startswith("limits.require: the memory and tasks of a bot's whole sandbox "
                              "cannot be bounded here (cgroup v2 does not delegate memory")


def test_a_referee_that_cannot_enable_the_controllers_moves_back(tmp_path):
    """The controllers refused (here: a subtree_control no one may write), the move into
    the leaf gained nothing: the referee goes back to its cgroup, and the reason is said."""
    mount = fake_v2(tmp_path)
    own = mount / SCOPE.lstrip("/")
    (own / "cgroup.subtree_control").unlink()
    (own / "cgroup.subtree_control").mkdir()
    (own / "cgroup.procs").write_text("")
    where = discover(f"0::{SCOPE}\n", mountinfo(mount), PID, tmp_path / "no-v1")
    assert where.parents == () and len(where.problems) == 3
    assert where.problems[0].startswith(f"cgroup v2: memory cannot be enabled below {own}: ")
    assert (own / "cgroup.procs").read_text() == str(PID)


def test_where_v1_has_the_controllers_v1_bounds_the_bots(tmp_path):
    """This host's shape: every controller bound to v1, an empty v2 beside it."""
    mount = tmp_path / "cgroup" / "unified"
    mount.mkdir(parents=True)
    (mount / "cgroup.controllers").write_text("\n")
    v1 = tmp_path / "cgroup"
    own = {"memory": "/process_api/6c7d", "pids": "/", "cpu": "/"}
    for name, path in own.items():
        (v1 / name / path.lstrip("/")).mkdir(parents=True, exist_ok=True)
    text = "".join(f"{n}:{name}:{path}\n" for n, (name, path) in enumerate(own.items(), 1))
    where = discover(text + "0::/\n", mountinfo(mount), PID, v1)
    assert where.held == limits.CONTROLLERS and {p.version for p in where.parents} == {1}
    assert not (mount / limits.REFEREE_LEAF).exists()   # no v2 controller: nobody moved

    Cgroup("bot-1", 64, 8, 1.5, where)
    assert (v1 / "memory/process_api/6c7d/bot-1/memory.limit_in_bytes").read_text() == \
        str(64 * 1024 * 1024)
    assert (v1 / "pids/bot-1/pids.max").read_text() == "8"
    assert (v1 / "cpu/bot-1/cpu.cfs_quota_us").read_text() == "150000"
    assert statement(LimitsConfig(), where).endswith("for the whole sandbox (cgroup v1)")


def test_without_any_cgroup_the_rlimits_are_said_to_be_the_only_bounds(tmp_path):
    where = discover("0::/\n", "", PID, tmp_path / "no-v1")
    assert where.parents == () and len(where.problems) == 3
    assert statement(LimitsConfig(cpus=2), where).startswith(
        "limits of a sandboxed bot: memory 1,024 MB per process only (RLIMIT_DATA), 128 tasks "
        "(RLIMIT_NPROC), CPU rate unbounded; not held: no memory cgroup found (cgroup v1 as "
        "root, or a delegated cgroup v2 subtree)")
    assert Cgroup("bot-1", 64, 8, 1.0, where).held == set()


@pytest.mark.parametrize("value", [1, "maybe"])
def test_limits_require_is_a_flag(value):
    data = {"game": "flea-circus", "limits": {"require": value},
            "bots": [{"name": n, "python": "bots.random_bot:RandomBot"} for n in "ab"]}
    with pytest.raises(ConfigError, match=f"limits.'require' must be bool, not {value!r}"):
        parse_config(data)
    assert parse_config({**data, "limits": {"require": True}}).limits.require


needs_sandbox = pytest.mark.skipif(sandbox.unavailable_reason() is not None,
                                   reason="no sandbox here")


def sandboxed_config(tmp_path: Path, require: bool) -> Path:
    return write_config(tmp_path, f"""
        game: flea-circus
        limits: {{require: {str(require).lower()}}}
        time: {{startup_ms: 60000}}
        bots:
          - {{name: a, command: "{sys.executable} -m bots.random_bot --address {{address}}"}}
          - {{name: b, python: "bots.random_bot:RandomBot"}}
        """)


@needs_sandbox
def test_limits_require_refuses_where_a_limit_cannot_hold(tmp_path, monkeypatch):
    monkeypatch.setattr(lineup, "hierarchy", lambda: Hierarchy((), ("no memory cgroup",)))
    with pytest.raises(TournamentError, match=r"^limits.require: the memory, tasks and CPU "
                                              r"rate of a bot's whole sandbox cannot be bounded "
                                              r"here \(no memory cgroup\)"):
        run_tournament(sandboxed_config(tmp_path, require=True), tmp_path)


def test_a_bot_whose_limits_cannot_hold_here_is_not_started(tmp_path, monkeypatch):
    """A cluster's worker starts its bots as participants: each checks its own machine."""
    monkeypatch.setattr(participants, "hierarchy", lambda: Hierarchy((), ("no memory cgroup",)))
    spec = BotSpec("a", command="python -m bots.random_bot --address {address}")
    bot = Participant(spec, tmp_path, LimitsConfig(require=True), startup_ms=1000)
    with pytest.raises(BotStartError, match=r"^bot 'a': cannot start here: limits.require: "):
        bot.start("flea-circus")
    assert bot.process is not None and bot.process.process is None   # nothing was started


@needs_sandbox
def test_a_tournament_says_first_which_limits_hold(tmp_path):
    summary, _, out = run_tournament(sandboxed_config(tmp_path, require=False), tmp_path,
                                     quiet=False)
    assert summary.played == 2
    assert out.splitlines()[0] == statement(LimitsConfig(), limits.hierarchy())


def test_doctor_says_what_holds_and_whether_the_config_would_run(tmp_path, monkeypatch):
    monkeypatch.setattr(bots, "hierarchy", lambda: Hierarchy((), ("no memory cgroup",)))
    monkeypatch.setattr(bots, "unavailable_reason", lambda: None)
    result = CliRunner().invoke(main, ["doctor", str(sandboxed_config(tmp_path, require=True))])
    assert result.exit_code == 1, result.output
    assert result.output.splitlines() == [
        "sandbox: ready", "not held: no memory cgroup",
        "limits of a sandboxed bot: memory 1,024 MB per process only (RLIMIT_DATA), 128 tasks "
        "(RLIMIT_NPROC), CPU rate unbounded",
        "limits.require: the memory, tasks and CPU rate of a bot's whole sandbox cannot be "
        "bounded here (no memory cgroup); without limits.require the tournament runs with the "
        "per-process rlimits alone"]
    held = Hierarchy((limits.Parent(tmp_path, 1, limits.CONTROLLERS),))
    monkeypatch.setattr(bots, "hierarchy", lambda: held)
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 0 and result.output.splitlines()[-1].endswith("(cgroup v1)")
