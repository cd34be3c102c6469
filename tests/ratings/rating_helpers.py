"""Helpers of the rating tests: tournaments of in-process bots, a faulty bot, headless Chromium."""

from __future__ import annotations

import io
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Sequence

from headless import CHROMIUM_FLAGS, chromium_or_skip  # noqa: F401 (the report test's)

from bots.random_bot import RandomBot
from bots.sdk import Bot
from ratings.board import Board
from tournaments.config import parse_config
from tournaments.runner import TournamentRunner
from tournaments.standings import standings
from tournaments.store import Store

KNOWN = [("p0", "bots.mixed:Mixed0"), ("p25", "bots.mixed:Mixed25"),
         ("p50", "bots.mixed:Mixed50"), ("p75", "bots.mixed:Mixed75"),
         ("p100", "bots.mixed:Mixed100")]
#: The known-strength family from strongest to weakest.
TRUE_ORDER = ["p100", "p75", "p50", "p25", "p0"]


class SloppyBot(Bot):
    """A random bot that answers out of range at every 9th decision and raises at every 31st."""

    name = "sloppy"

    def decide(self, request) -> int:
        if request.decision_id % 31 == 0:
            raise RuntimeError("sloppy bot lost its train of thought")
        if request.decision_id % 9 == 0:
            return len(request.legal_actions) + 5
        return RandomBot().decide(request)


def tournament(folder: Path, bots: Sequence[tuple[str, str]], *, players: int = 3,
               rounds: int = 1, seed: int = 1, name: str = "t", rating: dict | None = None,
               db: str = "results.sqlite") -> Store:
    """Play a round robin of in-process bots ``(name, module:Class)`` into a fresh store."""
    data = {"name": name, "game": "flea-circus", "players": players, "rounds": rounds,
            "seed": seed, "concurrency": 1,
            # Deals from the seed alone: the statistics asserted over seeds are reproducible.
            "secret_deals": False,
            "bots": [{"name": bot, "python": target} for bot, target in bots]}
    if rating:
        data["rating"] = rating
    config = parse_config(data)
    store = Store(folder / db)
    TournamentRunner(config, store, folder / "logs" / name, out=io.StringIO(), quiet=True,
                     fresh=True).run()
    return store


def board_of(store: Store, name: str = "t", resamples: int | None = None) -> Board:
    return standings(store, store.resolve(name), resamples=resamples)


# -- headless Chromium ------------------------------------------------------------------

def chromium(binary: str, profile: Path, *args: str, timeout: float = 90) -> str:
    result = subprocess.run([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def read_png(path: Path) -> tuple[int, int, int, list[bytes]]:
    """Width, height, channels and unfiltered rows of an 8-bit truecolour PNG (Chromium's)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, idat, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    width, height, depth, colour_type, _, _, interlace = header
    assert depth == 8 and colour_type in (2, 6) and interlace == 0, header
    channels = 3 if colour_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind in (1, 3, 4):
            for x in range(stride):
                left = line[x - channels] if x >= channels else 0
                up = previous[x]
                if kind == 1:
                    line[x] = (line[x] + left) & 0xFF
                elif kind == 3:
                    line[x] = (line[x] + (left + up) // 2) & 0xFF
                else:
                    up_left = previous[x - channels] if x >= channels else 0
                    p = left + up - up_left
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                    line[x] = (line[x] + (left if pa <= pb and pa <= pc
                                          else up if pb <= pc else up_left)) & 0xFF
        rows.append(bytes(line))
        previous = rows[-1]
    return width, height, channels, rows
