"""``circus-referee submit``: a bot folder packed as a .tar.gz and sent to an arena.

Only the standard library: a bot author's install has no web framework.
"""

from __future__ import annotations

import io
import json
import tarfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tournaments.submissions import MANIFEST, SubmissionError

#: Folders a bot folder keeps that are not its code.
LEFT_OUT = {"__pycache__", ".git"}
TIMEOUT_S = 60.0


def pack(folder: Path) -> bytes:
    """The folder's files as a .tar.gz, its manifest at the top."""
    if not (folder / MANIFEST).is_file():
        raise SubmissionError(f"{folder}: no {MANIFEST} (a bot folder holds its manifest "
                              "and its code)")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder)
            if LEFT_OUT & set(relative.parts):
                continue
            if path.is_symlink() or not (path.is_file() or path.is_dir()):
                raise SubmissionError(f"{path}: not a plain file or folder (an arena takes "
                                      "no links)")
            archive.add(path, relative.as_posix(), recursive=False)
    return buffer.getvalue()


def submit(url: str, folder: Path, token: str) -> dict[str, Any]:
    """Send the folder to the arena at ``url``; its answer, or a one-line
    :class:`SubmissionError` saying why it was not stored."""
    request = urllib.request.Request(
        url.rstrip("/") + "/api/versions", data=pack(folder), method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/gzip"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
            result: dict[str, Any] = json.load(answer)
            return result
    except urllib.error.HTTPError as error:
        raise SubmissionError(f"not stored: {_reason(error)}") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise SubmissionError(f"cannot reach the arena at {url}: {reason}") from None


def _reason(error: urllib.error.HTTPError) -> str:
    try:
        return str(json.load(error)["error"])
    except (ValueError, KeyError, TypeError, OSError):
        return f"HTTP {error.code} {error.reason}"
