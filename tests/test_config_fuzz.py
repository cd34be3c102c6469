"""Fuzzing configs from the schema: every config either runs a short tournament
with in-process bots or is refused with exit status 2 and one line, never a traceback.

A config is drawn valid (small, so it runs in moments), then zero to two of its keys are
set to a drawn value that may be anything: a bad name, a number past its bounds, the
wrong type, or nothing at all.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from circus_referee.main import main

TIMES = ("move_ms", "bank_ms", "startup_ms", "call_ms", "grace_ms")


@st.composite
def valid_configs(draw) -> dict:
    names = draw(st.lists(st.sampled_from(["a", "b-1", "c.x", "D_4"]), min_size=2,
                          max_size=3, unique=True))
    config = {
        "name": draw(st.sampled_from(["t", "fuzz-1"])),
        "game": draw(st.sampled_from(["flea-circus", "flohcati", "animal-circus"])),
        "players": draw(st.integers(2, min(3, len(names)))),
        "rounds": 1,
        "seed": draw(st.integers(0, 2**63 - 1)),
        "concurrency": draw(st.integers(1, 4)),
        "duplicate": draw(st.booleans()),
        "time": {"move_ms": draw(st.integers(50, 1000)), "bank_ms": draw(st.integers(1, 2000)),
                 "startup_ms": 5000, "call_ms": draw(st.integers(500, 2000)),
                 "grace_ms": draw(st.integers(1, 500))},
        "faults": draw(st.sampled_from(["substitute", "forfeit", "void"])),
        "max_strikes": draw(st.integers(1, 5)),
        "max_restarts": draw(st.integers(0, 3)),
        "suspend_after": draw(st.integers(0, 5)),
        "limits": {"memory_mb": draw(st.integers(100, 2000)),
                   "message_bytes": draw(st.integers(1 << 16, 1 << 22))},
        "rating": {"mu": draw(st.floats(-100, 100)), "sigma": draw(st.floats(0.5, 20)),
                   "draw_probability": draw(st.floats(0.001, 0.5))},
        "bots": [{"name": name, "python": "bots.random_bot:RandomBot"} for name in names],
    }
    fmt = draw(st.sampled_from(["round-robin", "gauntlet", "swiss", "ab"]))
    if fmt == "gauntlet":
        config |= {"format": "gauntlet", "challenger": names[0]}
    elif fmt == "swiss":
        config |= {"format": "swiss"}
    elif fmt == "ab":
        config |= {"format": "ab", "a": names[0], "b": names[1], "players": 2,
                   "sprt": {"elo0": 0, "elo1": draw(st.sampled_from([200, 400]))}}
    if fmt in ("round-robin", "swiss") and draw(st.booleans()):
        config["stop"] = {"when": "settled", "confidence": draw(st.floats(0.5, 0.99))}
    return config


ANYTHING = st.one_of(
    st.integers(-(2**70), 2**70), st.sampled_from([0, -1, 10**9, 10**12, 10**30, 2**63]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6), st.booleans(),
    st.none(), st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3),
                                                                     st.integers(), max_size=2),
    st.sampled_from(["../x", "/abs", ".hidden", "a/b", "a\x00b", "t\tab", "", "a" * 65, "ünï",
                     "os:getcwd", "nowhere:Bot", "bots.random_bot", "chess", "gauntlet",
                     "turbo", "explode", "swiss", "ab", "settled"]))
PATHS = st.sampled_from(
    ["name", "game", "variant", "players", "rounds", "games_per_bot", "seed", "concurrency",
     "format", "challenger", "duplicate", "faults", "max_strikes", "recover", "max_restarts",
     "suspend_after", "limits", "rating", "bots", "colour", "time", *(f"time.{t}" for t in TIMES),
     "limits.memory_mb", "limits.cpu_seconds", "limits.message_bytes", "rating.mu",
     "rating.sigma", "rating.beta", "rating.tau", "rating.draw_probability", "faults.crash",
     "bots.0", "bots.0.name", "bots.1.name", "bots.0.python", "bots.1.address", "bots.0.x",
     "stop", "stop.when", "stop.confidence", "stop.min_games_per_bot", "a", "b", "sprt",
     "sprt.elo0", "sprt.alpha"])


def _child(node: object, part: str) -> object:
    """The node under ``part``, or None where the mutations made ``node`` another shape
    (a list where a mapping was, say)."""
    if isinstance(node, list):
        return node[int(part)] if part.isdigit() and int(part) < len(node) else None
    return node.get(part) if isinstance(node, dict) else None


def mutate(config: dict, path: str, value: object) -> None:
    """Set the key at a dotted path (list positions by number), if its parent exists."""
    *parents, last = path.split(".")
    node = config
    for part in parents:
        node = _child(node, part)
        if node is None or isinstance(node, str):
            return
    if isinstance(node, list):
        if last.isdigit() and int(last) < len(node):
            node[int(last)] = value
    elif isinstance(node, dict):
        node[last] = value


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(valid_configs(), st.lists(st.tuples(PATHS, ANYTHING), max_size=2))
def test_every_config_runs_or_is_refused_in_one_line(config, mutations):
    for path, value in mutations:
        mutate(config, path, value)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bots.yaml"
        path.write_text(yaml.safe_dump(config, allow_unicode=True))
        result = CliRunner().invoke(main, ["tournament", str(path), "--db",
                                           f"{folder}/r.db", "--logs", f"{folder}/logs",
                                           "--quiet"])
    assert isinstance(result.exception, SystemExit) or result.exception is None, \
        (config, result.output, result.exc_info)
    event(f"exit {result.exit_code}")
    if result.exit_code == 0:
        assert "games played" in result.output
    else:
        lines = result.output.strip().splitlines()
        assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), \
            (config, result.output)
