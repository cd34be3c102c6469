"""The bot sandbox (issue 12): hostile bots in real tournaments beside honest ones.

Every attack of tests/hostile_bots.py must fail while the tournament finishes
with every game scored; the same bots unsandboxed show the attacks are real.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import uuid
from pathlib import Path

import pytest
from conftest import run_tournament, write_config

from referee import process, sandbox
from tournaments.config import ConfigError, load_config
from tournaments.runner import TournamentError
from tournaments.schedule import schedule

HOSTILE = Path(__file__).resolve().parent / "hostile_bots.py"
ATTACKS = {"proc", "referee-memory", "referee-environment", "connect", "bind", "database",
           "config", "other-dir", "write-outside", "orphan", "fork-bomb", "shared-mapping",
           "dev-shm", "network", "predict-deal"}


def hostile_config(tmp_path: Path, token: str, port: int, sandboxed: bool = True) -> Path:
    other, own, outside = tmp_path / "honest-dir", tmp_path / "hostile-dir", tmp_path / "outside"
    for folder in (other, own, outside):
        folder.mkdir(exist_ok=True)
    (other / "strategy.txt").write_text("the honest bot's secret strategy")
    targets = {"db": tmp_path / "results.sqlite", "config": tmp_path / "bots.yaml",
               "other_dir": other, "outside": outside, "runtime": process.runtime_root(),
               "tcp_port": port,
               "referee_pid": os.getpid(), "env_marker": "REFEREE_PRIVATE_VARIABLE",
               "token": token, "seed": 7, "players": 3, "variant": "standard",
               "groups": 4}  # one round of the four tables of 3 among 4 bots
    env = json.dumps({f"HOSTILE_{key.upper()}": str(value) for key, value in targets.items()})
    return write_config(tmp_path, f"""
        name: hostile
        game: flea-circus
        players: 3
        seed: 7
        concurrency: 2
        sandbox: {str(sandboxed).lower()}
        secret_deals: {str(sandboxed).lower()}
        time: {{startup_ms: 30000}}
        limits: {{memory_mb: 256, processes: 64, log_bytes: 262144, tmp_mb: 512}}
        bots:
          - name: hostile
            command: {sys.executable} {HOSTILE} attacks --address {{address}}
            dir: {own}
            env: {env}
          - name: flooder
            command: {sys.executable} {HOSTILE} flood --address {{address}}
          - name: greedy
            command: python -m bots.flea_greedy --address {{address}}
            dir: {other}
          - name: random
            command: python -m bots.random_bot --address {{address}}
        """)


def attack_lines(log: Path) -> dict[str, str]:
    """Each attack's outcome over every run of the bot (one per rotation): a success
    in any run counts."""
    lines = [line for line in log.read_text().splitlines() if line.startswith("ATTACK ")]
    outcome: dict[str, str] = {}
    for line in lines:
        name = line.split()[1].rstrip(":")
        if "SUCCEEDED" not in outcome.get(name, ""):
            outcome[name] = line
    return outcome


def orphans(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and token.encode() in (entry / "cmdline").read_bytes():
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                found.append(int(entry.name)) if state != "Z" else None
        except OSError:
            continue
    return found


@pytest.fixture
def referee_side(monkeypatch):
    """A variable only the referee has, and a TCP listener in the referee's network."""
    monkeypatch.setenv("REFEREE_PRIVATE_VARIABLE", "the organiser's token")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


@pytest.mark.slow
def test_every_attack_fails_and_every_game_is_scored(tmp_path, referee_side):
    token = f"hostile-orphan-{uuid.uuid4().hex}"
    config = hostile_config(tmp_path, token, referee_side)
    summary, store, _ = run_tournament(config, tmp_path, private=(config,))
    games = store.games("hostile")
    assert summary.played == len(games) == 12
    assert all(game.status in ("finished", "forfeit") and game.scores for game in games)
    honest = [dict(f) for f in store.faults("hostile") if f["bot"] in ("greedy", "random")]
    assert honest == []  # nobody answered in their place, nothing slowed them down

    logs = tmp_path / "logs" / "hostile"
    attacks = attack_lines(logs / "hostile.log")
    assert set(attacks) == ATTACKS, attacks
    assert not [line for line in attacks.values() if "SUCCEEDED" in line], attacks
    assert orphans(token) == []  # the setsid double fork died with its sandbox
    assert store.games("hostile")[0].scores != [99, 0, 0]
    assert not list(tmp_path.glob("*/hostile-was-here"))
    assert not Path("/dev/shm/hostile").exists()
    flood = (logs / "flooder.log").read_bytes()
    assert len(flood) < 262144 + 4096 and b"=== log truncated at 262144 bytes" in flood


@pytest.mark.slow
def test_unsandboxed_the_same_attacks_succeed(tmp_path, referee_side):
    """The control: without the sandbox (and the secret) the attacks are real."""
    token = f"hostile-orphan-{uuid.uuid4().hex}"
    config = hostile_config(tmp_path, token, referee_side, sandboxed=False)
    try:
        run_tournament(config, tmp_path, private=(config,))
        attacks = attack_lines(tmp_path / "logs" / "hostile" / "hostile.log")
        for name in ATTACKS - {"orphan"}:
            assert "SUCCEEDED" in attacks[name], attacks[name]
        assert len(list(tmp_path.glob("*/hostile-was-here"))) == 2
        assert orphans(token)
    finally:
        for pid in orphans(token):
            os.kill(pid, 9)


def test_deals_need_the_stored_secret(tmp_path):
    text = """
        name: secret
        game: flea-circus
        players: 2
        rounds: 2
        seed: 3
        bots:
          - {name: a, python: "bots.flea_greedy:FleaGreedyBot"}
          - {name: b, python: "bots.random_bot:RandomBot"}
        """
    config = load_config(write_config(tmp_path, text))
    _, first, _ = run_tournament(config, tmp_path, db="one.sqlite")
    _, second, _ = run_tournament(config, tmp_path, db="two.sqlite")
    before = [(game.seed, game.actions) for game in first.games("secret")]
    seeds = [seed for seed, _ in before]
    assert seeds != [game.seed for game in second.games("secret")]  # another store, another secret
    assert not set(seeds) & {p.seed for p in schedule(config)}  # not from the config alone
    # Same config, same store: a resume replays the very same games.
    with first.db:
        first.db.execute("DELETE FROM games WHERE game_index >= 2")
    _, resumed, _ = run_tournament(config, tmp_path, db="one.sqlite")
    assert [(g.seed, g.actions) for g in resumed.games("secret")] == before
    assert len(before) == 4
    public = load_config(write_config(tmp_path, text.rstrip(" ") + "        secret_deals: false\n",
                                      "p.yaml"))
    _, plain, _ = run_tournament(public, tmp_path, db="three.sqlite")
    assert [g.seed for g in plain.games("secret")] == [p.seed for p in schedule(public)]


def test_a_sandboxed_bot_may_not_use_port(tmp_path):
    with pytest.raises(ConfigError, match=r"\{port\} needs `sandbox: false`"):
        load_config(write_config(tmp_path, """
            game: flea-circus
            bots:
              - {name: a, command: "python -m bots.random_bot --port {port}"}
              - {name: b, command: "python -m bots.random_bot --address {address}"}
            """))


def test_without_namespaces_the_tournament_stops_before_the_first_game(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "bwrap", lambda: None)
    monkeypatch.setattr(sandbox, "_probe", {})
    config = write_config(tmp_path, """
        game: flea-circus
        bots:
          - {name: a, command: "python -m bots.random_bot --address {address}"}
          - {name: b, command: "python -m bots.random_bot --address {address}"}
        """)
    with pytest.raises(TournamentError) as stopped:
        run_tournament(config, tmp_path)
    assert "bubblewrap" in str(stopped.value) and "sandbox: false" in str(stopped.value)
    assert "\n" not in str(stopped.value)
