"""Code likeness between entrants' versions, for the organiser: copydetect's winnowed
fingerprints (MOSS's method), which see through renamed identifiers and moved code.

A version's code is its folder's text files but its manifest, in name order, as one
text; each new version is compared with every version of every other entrant once its
gate ends, and each pair's shares are kept: how much of each one's code the other holds.
The evidence, the two texts with the shared stretches marked, is made again when the
organiser opens it.
"""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tournaments.submissions import MANIFEST

if TYPE_CHECKING:
    # Imported where a likeness is made: half a second of CPU that most of the arena's
    # processes (its service's start, a test's) never need.
    import copydetect

#: copydetect's defaults: no shared stretch under NOISE tokens counts, every one of at
#: least GUARANTEE tokens is found.
NOISE, GUARANTEE = 25, 30
#: The most characters of a version's code compared (a bot's data files are not code).
CODE_LIMIT = 1 << 20


@dataclass(frozen=True)
class Evidence:
    """Two versions' code, each a list of (text, shared) stretches."""

    shares: tuple[float, float]
    sides: tuple[list[tuple[str, bool]], list[tuple[str, bool]]]


def version_code(folder: Path) -> tuple[str, str]:
    """A version's code as one text, and the name of its largest file (which the
    tokenizer guesses the language from)."""
    parts: list[str] = []
    largest = ("code.txt", -1)
    for path in sorted(file for file in folder.rglob("*") if file.is_file()):
        if path.relative_to(folder) == Path(MANIFEST):
            continue
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):   # a binary or data file
            continue
        parts.append(text)
        largest = max(largest, (path.name, len(text)), key=lambda named: named[1])
    return "\n".join(parts)[:CODE_LIMIT], largest[0]


class Fingerprints:
    """Each version's fingerprint, made once per process."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.made: dict[Path, copydetect.CodeFingerprint] = {}

    def of(self, folder: Path) -> copydetect.CodeFingerprint:
        import copydetect

        with self.lock:
            found = self.made.get(folder)
        if found is None:
            text, name = version_code(folder)
            found = copydetect.CodeFingerprint(name, NOISE, GUARANTEE - NOISE + 1,
                                               fp=io.StringIO(text))
            with self.lock:
                self.made[folder] = found
        return found

    def shares(self, one: Path, other: Path) -> tuple[float, float]:
        """How much of each one's code the other holds, 0 to 1."""
        import copydetect

        _tokens, shares, _slices = copydetect.compare_files(self.of(one), self.of(other))
        return float(shares[0]), float(shares[1])

    def evidence(self, one: Path, other: Path) -> Evidence:
        import copydetect

        first, second = self.of(one), self.of(other)
        _tokens, shares, slices = copydetect.compare_files(first, second)
        return Evidence((float(shares[0]), float(shares[1])),
                        (_stretches(first.raw_code, slices[0]),
                         _stretches(second.raw_code, slices[1])))


def _stretches(text: str, slices: Any) -> list[tuple[str, bool]]:
    """The text cut at the shared slices (a 2xN array of starts and ends)."""
    starts, ends = ([int(at) for at in row] for row in slices)
    stretches: list[tuple[str, bool]] = []
    done = 0
    for start, end in sorted(zip(starts, ends)):
        if start > done:
            stretches.append((text[done:start], False))
        stretches.append((text[max(start, done):end], True))
        done = max(done, end)
    stretches.append((text[done:], False))
    return [stretch for stretch in stretches if stretch[0]]
