"""The committed Python stubs match proto/: regenerate and compare."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_committed_stubs_are_up_to_date(tmp_path):
    env_path = f"{Path(sys.executable).parent}:/usr/bin:/bin"
    subprocess.run(["bash", str(ROOT / "scripts" / "gen-proto"), str(tmp_path)], check=True,
                   env={"PATH": env_path})
    generated = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.py*"))
    assert generated, "gen-proto produced nothing"
    stale = [str(p) for p in generated
             if (tmp_path / p).read_bytes() != (ROOT / "proto" / p).read_bytes()]
    assert not stale, f"stale stubs, run scripts/gen-proto: {stale}"


def test_contract_names_are_kept():
    from circus.v1 import bot_pb2
    service = bot_pb2.DESCRIPTOR.services_by_name["Bot"]
    assert {m.name for m in service.methods} >= {"Hello", "StartGame", "Decide", "EndGame"}
    request = bot_pb2.DecisionRequest.DESCRIPTOR.fields_by_name
    assert {"game_id", "decision_id", "seat", "observation", "legal_actions"} <= set(request)
    assert "action_index" in bot_pb2.Decision.DESCRIPTOR.fields_by_name
    assert "seed" not in bot_pb2.StartGameRequest.DESCRIPTOR.fields_by_name
