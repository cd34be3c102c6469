"""What the arena's tests share: a config, archives made in memory, a stand-in ladder and
gate, and a cheap token hasher (argon2's own cheapest profile: the service's costs
tens of milliseconds per token on purpose)."""

from __future__ import annotations

import io
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any, Callable

import yaml
from argon2 import PasswordHasher
from argon2.profiles import CHEAPEST

from arena.config import ArenaConfig, arena_config
from arena.ladder import LadderStatus, Standing
from arena.playing import LadderHook
from arena.service import Arena
from arena.store import ArenaStore, Gate, Version, now
from ratings.collusion import CollusionCheck, collusion
from ratings.verdict import Verdict, verdict

ROOT = Path(__file__).resolve().parent.parent
STDIO_BOT = (ROOT / "bots" / "stdio" / "random_bot.py").read_text()
MANIFEST = "name: {name}\nauthor: A. Uthor\nlanguage: python\ncommand: {command}\n" \
           "transport: stdio\n"
# A clock no busy machine spends.
CONFIG = """\
name: spring term
ladder:
  name: spring
  game: flea-circus
  players: 2
  match: {time: {move_ms: 5000, bank_ms: 30000, startup_ms: 30000}}
arena: {db: results.sqlite, uploads_per_hour: 5, max_unpacked_mb: 1, max_files: 20}
"""
FAST_HASHER = PasswordHasher.from_parameters(CHEAPEST)


def bot_files(name: str = "bot", command: str = "python bot.py",
              extra: str = "") -> dict[str, bytes]:
    """A stdio bot's folder, as its files; ``extra`` makes its code differ."""
    return {"entrant.yaml": MANIFEST.format(name=name, command=command).encode(),
            "bot.py": (STDIO_BOT + extra).encode()}


def zip_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def tar_of(files: dict[str, bytes], special: tuple[tarfile.TarInfo, ...] = ()) -> bytes:
    """A .tar.gz of ``files`` and ``special`` members (links, devices) as they are."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
        for info in special:
            archive.addfile(info)
    return buffer.getvalue()


def make_config(folder: Path, text: str = CONFIG) -> ArenaConfig:
    return arena_config(yaml.safe_load(text), folder, "arena")


class StandInLadder:
    """The ladder's contract, played by nobody: its standings are the entries it was
    last given (``given`` is shared by the playing thread's and the pages' ladders)."""

    def __init__(self, given: list[tuple[str, str, dict[str, Any]]], flags: set[str]) -> None:
        self.given = given
        self.flags = flags

    def play_next(self, entries: list[tuple[str, str, dict[str, Any]]]) -> str | None:
        if "paused" in self.flags:
            return None
        changed = entries != self.given
        self.given[:] = entries
        return "a match" if changed else None

    def standings(self) -> list[Standing]:
        return [Standing(version, entrant, 25.0, 2.5, 0, False, None, None)
                for version, entrant, _bot in self.given]

    def status(self) -> LadderStatus:
        return LadderStatus(paused="paused" in self.flags, frozen=False, deadline=None,
                            past_deadline=False, games_last_hour=0, capped_until=None,
                            matches=0)

    def promotions(self, versions: list[str]) -> dict[str, list[Any]]:
        return {}

    def similar(self) -> list[Any]:
        return []

    def collusion(self) -> CollusionCheck:
        return collusion([])

    def verdict(self, versions: list[str]) -> Verdict:
        return verdict([], versions, 0.95)

    def grades_csv(self) -> str:
        return "version,entrant,league,passed\n" + "".join(
            f"{version},{entrant},first,yes\n" for version, entrant, _bot in self.given)

    def pause(self) -> None:
        self.flags.add("paused")

    def resume(self) -> None:
        self.flags.discard("paused")

    def close(self) -> None:
        pass


def stand_in_ladder() -> LadderHook:
    given: list[tuple[str, str, dict[str, Any]]] = []
    flags: set[str] = set()
    return LadderHook(lambda: StandInLadder(given, flags), lambda *entry: entry)


def stand_in_gate(version: Version) -> Gate:
    """Passes a version unless its command says ``fail``."""
    failed = "fail" in version.entry["command"]
    return Gate(version.id, not failed, "check-bot: play flea-circus/standard: it failed"
                if failed else "", ["PASS  hello: stand-in"], "a line of its log", now())


def make_arena(folder: Path, text: str = CONFIG,
               check: Callable[[Version], Gate] = stand_in_gate,
               ladder: LadderHook | None = None) -> Arena:
    config = make_config(folder, text)
    return Arena(config, ArenaStore(config.db, FAST_HASHER), check,
                 ladder or stand_in_ladder())


def wait_for(condition: Callable[[], Any], timeout: float = 60.0) -> Any:
    """``condition()`` once it is true; a timeout bounds a failure, never passes."""
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)
    return result
