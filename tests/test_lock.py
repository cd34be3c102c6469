"""The locks agree with pyproject.toml, and the environment is the one they describe.

scripts/setup installs from requirements/*.lock only, so a release on the registries cannot
change what the project runs without a commit; these checks fail when pyproject.toml was
edited without scripts/lock, or when something other than the lock filled the environment.
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker, default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PINNED = re.compile(r"^([A-Za-z0-9._-]+)==(\S+)(?: ; (.*?))? \\$", re.MULTILINE)


def locked(name: str) -> dict[str, Version]:
    """The lock's pins that apply on this interpreter: package name to version."""
    pins: dict[str, Version] = {}
    for package, version, marker in PINNED.findall((ROOT / "requirements" / name).read_text()):
        if not marker or Marker(marker).evaluate():
            pins[canonicalize_name(package)] = Version(version)
    return pins


def declared(extras: list[str]) -> list[Requirement]:
    """pyproject.toml's requirements: the runtime's, the named extras', and the build backend's."""
    project = PYPROJECT["project"]
    lines = project["dependencies"] + PYPROJECT["build-system"]["requires"]
    for extra in extras:
        lines = lines + project["optional-dependencies"][extra]
    return [Requirement(line) for line in lines if not line.startswith("circus-referee")]


def applies(requirement: Requirement) -> bool:
    return requirement.marker is None or requirement.marker.evaluate(
        {**default_environment(), "extra": ""})


@pytest.mark.parametrize(("lock", "extras"), [
    ("base.lock", []),
    ("all.lock", list(PYPROJECT["project"]["optional-dependencies"])),
])
def test_every_declared_requirement_is_locked_within_its_range(lock, extras):
    pins = locked(lock)
    wrong = []
    for requirement in filter(applies, declared(extras)):
        pin = pins.get(canonicalize_name(requirement.name))
        if pin is None or pin not in requirement.specifier:
            wrong.append(f"{requirement} (locked: {pin})")
    assert not wrong, f"pyproject.toml and requirements/{lock} disagree, run scripts/lock: {wrong}"


def test_the_runtime_lock_pins_what_the_whole_lock_pins():
    whole = locked("all.lock")
    differing = {name: (version, whole.get(name)) for name, version in locked("base.lock").items()
                 if whole.get(name) != version}
    assert not differing, f"base.lock and all.lock disagree, run scripts/lock: {differing}"


def test_the_environment_holds_the_locked_versions():
    """What scripts/setup installed is the lock's, whatever newer the registries offered."""
    project = metadata.version("circus-referee")
    assert project == PYPROJECT["project"]["version"]
    differing = {}
    for name, version in locked("all.lock").items():
        try:
            installed = Version(metadata.version(name))
        except metadata.PackageNotFoundError:
            installed = None
        if installed != version:
            differing[name] = f"locked {version}, installed {installed}"
    assert not differing, f"the environment is not the lock's, run scripts/setup test: {differing}"
