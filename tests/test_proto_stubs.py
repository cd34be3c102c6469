"""The committed Python stubs match proto/: regenerate and compare.

The stubs are compared as code, not as stamps: the lines that only name the generator's
version (grpcio-tools' and protoc's) are set aside, so a newer generator fails the check only
where it changes what the stubs do. Those stamps are still a promise to the installer, since
the generated code refuses a runtime older than its generator: pyproject.toml's floors must
cover them.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
STUBS = ROOT / "proto" / "circus" / "v1"

# What only says which generator wrote a stub: grpcio-tools' version, protoc's comment, and
# the arguments of protobuf's runtime check (its major, minor and patch, one per line).
STAMPS = re.compile(
    r"^GRPC_GENERATED_VERSION = '[^']*'$"
    r"|^# Protobuf Python Version: .*$"
    r"|(?<=ValidateProtobufRuntimeVersion\(\n    _runtime_version\.Domain\.PUBLIC,\n)"
    r"    \d+,\n    \d+,\n    \d+,$",
    re.MULTILINE)


def without_stamps(code: str) -> str:
    return STAMPS.sub("<generator version>", code)


def test_committed_stubs_are_up_to_date(tmp_path):
    env_path = f"{Path(sys.executable).parent}:/usr/bin:/bin"
    subprocess.run(["bash", str(ROOT / "scripts" / "gen-proto"), str(tmp_path)], check=True,
                   env={"PATH": env_path})
    generated = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.py*"))
    assert generated, "gen-proto produced nothing"
    stale = [str(p) for p in generated
             if without_stamps((tmp_path / p).read_text())
             != without_stamps((ROOT / "proto" / p).read_text())]
    assert not stale, f"stale stubs, run scripts/gen-proto: {stale}"


def test_the_stamps_are_what_the_comparison_sets_aside():
    code = (STUBS / "bot_pb2.py").read_text() + (STUBS / "bot_pb2_grpc.py").read_text()
    stripped = without_stamps(code)
    assert stripped.count("<generator version>") == 3
    assert "GRPC_GENERATED_VERSION = '" not in stripped
    assert without_stamps(code.replace("DecisionRequest", "DecisionRequests")) != stripped


def floor(package: str) -> Version:
    """The lowest version of ``package`` that pyproject.toml's dependencies admit."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for line in project["dependencies"]:
        requirement = Requirement(line)
        if requirement.name == package:
            return min(Version(spec.version) for spec in requirement.specifier
                       if spec.operator in (">=", "=="))
    raise AssertionError(f"{package} is not a dependency")


def test_the_runtime_floors_cover_the_generators_of_the_stubs():
    grpc_stamp = re.search(r"GRPC_GENERATED_VERSION = '([^']*)'",
                           (STUBS / "bot_pb2_grpc.py").read_text())
    assert grpc_stamp and floor("grpcio") >= Version(grpc_stamp[1])
    protoc_stamp = re.search(r"# Protobuf Python Version: (\S+)", (STUBS / "bot_pb2.py").read_text())
    assert protoc_stamp and floor("protobuf") >= Version(protoc_stamp[1])


def test_contract_names_are_kept():
    from circus.v1 import bot_pb2
    service = bot_pb2.DESCRIPTOR.services_by_name["Bot"]
    assert {m.name for m in service.methods} >= {"Hello", "StartGame", "Decide", "EndGame"}
    request = bot_pb2.DecisionRequest.DESCRIPTOR.fields_by_name
    assert {"game_id", "decision_id", "seat", "observation", "legal_actions"} <= set(request)
    assert "action_index" in bot_pb2.Decision.DESCRIPTOR.fields_by_name
    assert "seed" not in bot_pb2.StartGameRequest.DESCRIPTOR.fields_by_name
