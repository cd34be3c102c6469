"""The machine a benchmark ran on: CPU, cores, Python and library versions, load."""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def protobuf_backend() -> str:
    try:
        from google.protobuf.internal import api_implementation
        return api_implementation.Type()
    except Exception:  # an old or odd protobuf: the version is still shown
        return "?"


def machine_info() -> dict[str, str]:
    """What to print beside every figure."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 1
    try:
        load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        load = "?"
    return {
        "cpu": cpu_model(),
        "cores": f"{os.cpu_count()} ({usable} usable)",
        "os": platform.platform(terse=True),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "grpcio": version("grpcio"),
        "protobuf": f"{version('protobuf')} ({protobuf_backend()})",
        "trueskill": version("trueskill"),
        "rlcard": version("rlcard"),
        "numpy": version("numpy"),
        "load average at start": load,
        "executable": sys.executable,
    }
