"""What code a bot entry runs: a fingerprint of its command and its files.

Every stored game keeps the fingerprint of each seat's bot (and what the bot said of
itself in Hello), so a season's record says which code played each game, and a bot
whose files changed under the same name between two runs is noticed instead of being
rated as one entrant.

A fingerprint covers the entry's way to reach the bot (its ``command:``, ``python:`` or
``address:``), its ``env:`` and ``mounts:`` paths, and the contents of its files: every
file of its ``dir:``, the files its command names (as the sandbox grants them: a script,
or a script's subfolder), a ``python -m`` module found in its working folder, and a
``python:`` bot's module file. Code elsewhere (an installed package, a mounted model, a
remote ``address:`` bot) is covered by the command line and the Hello identity only.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shlex
from pathlib import Path

from referee.participants import workdir
from referee.sandbox import named_files
from referee.settings import BotSpec

#: Hex digits shown and stored: enough that two versions of one bot never share one.
DIGITS = 12


def fingerprint(spec: BotSpec) -> str:
    """The entry's fingerprint: DIGITS hex digits of a SHA-256 over its command and files."""
    digest = hashlib.sha256()
    for part in (spec.kind, getattr(spec, spec.kind), repr(spec.env), repr(spec.mounts)):
        digest.update(part.encode() + b"\0")
    for root, path in code_paths(spec):
        for file in _files(path):
            digest.update(str(file.relative_to(root)).encode() + b"\0")
            digest.update(_file_digest(file) + b"\0")
    return digest.hexdigest()[:DIGITS]


def code_paths(spec: BotSpec) -> list[tuple[Path, Path]]:
    """The files and folders of the entry's code, each with the folder its names are
    taken relative to (so the fingerprint does not change when the league moves): its
    working folder, or the file's own folder for a file outside it."""
    if spec.python is not None:
        found = _module_file(spec.python.partition(":")[0])
        return [] if found is None else [(found.parent, found)]
    if spec.command is None:
        return []
    folder = workdir(spec) or Path.cwd()
    paths = [(folder, folder)] if spec.dir else []
    try:
        argv = shlex.split(spec.command)
    except ValueError:
        return paths
    paths += [(folder if folder in path.parents else path.parent, path)
              for path in named_files(argv, folder)]
    if "-m" in argv[:-1]:
        module = argv[argv.index("-m") + 1]
        base = folder.joinpath(*module.split("."))
        paths += [(folder, path) for path in (base.with_suffix(".py"), base) if path.exists()]
    return paths


def _module_file(module: str) -> Path | None:
    """Where a ``python:`` bot's module lives, if it can be found without running it
    (finding it imports its parent package, whose failure its start reports)."""
    try:
        found = importlib.util.find_spec(module)
    except Exception:   # noqa: BLE001 - any error of a bot's package is the bot's
        return None
    return Path(found.origin) if found is not None and found.origin else None


def _files(path: Path) -> list[Path]:
    """A file, or every file under a folder, in a stable order; not the bytecode Python
    caches beside a bot's modules when it runs unsandboxed."""
    if path.is_file():
        return [path]
    return sorted(file for file in path.rglob("*") if file.is_file()
                  and "__pycache__" not in file.relative_to(path).parts)


def _file_digest(path: Path) -> bytes:
    """A file's SHA-256 (of its contents; an unreadable file counts by its name alone)."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except OSError:
        return b"unreadable"
    return digest.digest()


def code_text(codes: list[tuple[str, str | None]]) -> str:
    """A bot's code on the leaderboard (from :meth:`Store.codes`): its latest fingerprint,
    and how many others its earlier stored games were played with."""
    digests = list(dict.fromkeys(digest for digest, _ in reversed(codes)))
    if not digests:
        return ""
    earlier = len(digests) - 1
    return digests[0] + (f" (+{earlier} earlier)" if earlier else "")
