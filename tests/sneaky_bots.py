"""Bots that try to reach the organiser or each other by words, for the issue 32 tests.

Run as ``python tests/sneaky_bots.py MODE --address ADDRESS [TARGET ...]``:

* ``escapes``: its Hello name and version and its error details hold terminal
  control (a window title, a screen clear, a carriage return that overwrites the
  line); it plays legally except that every third decision fails with such details.
* ``loud-death``: prints terminal control to its log and exits before listening, so
  the referee's start error quotes the log's tail.
* ``names``: plays randomly and prints each StartGame's ``seat_names`` to its log as
  ``SEATS <json>``.
* ``snoop``: tries to read each TARGET (a file, or a folder's files) and answers
  Hello with version ``found <path>`` for the first that holds the word ``SECRET``,
  else ``found nothing``; it prints each try to its log as ``SNOOP <path>: <what>``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.random_bot import RandomBot  # noqa: E402
from bots.sdk import serve  # noqa: E402

TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"
OVERWRITE = "\rPASS  everything: fine"


class EscapingBot(RandomBot):
    name = f"sneaky{TITLE}"
    version = f"1.0{CLEAR}{OVERWRITE}"

    def decide(self, request):
        if request.decision_id % 3 == 0:
            raise RuntimeError(f"details{TITLE}{CLEAR}{OVERWRITE}")
        return super().decide(request)


class NameRecorder(RandomBot):
    name = "names"

    def start_game(self, request):
        print(f"SEATS {json.dumps(list(request.seat_names))}", file=sys.stderr, flush=True)


def snoop(target: Path) -> str | None:
    """Whether ``target`` (or a file in it) holds the word SECRET; logs what it saw."""
    try:
        files = sorted(target.iterdir()) if target.is_dir() else [target]
        for path in files:
            if b"SECRET" in path.read_bytes():
                print(f"SNOOP {target}: read {path}", file=sys.stderr, flush=True)
                return str(path)
        print(f"SNOOP {target}: nothing in {[p.name for p in files]}", file=sys.stderr,
              flush=True)
    except OSError as error:
        print(f"SNOOP {target}: blocked ({error})", file=sys.stderr, flush=True)
    return None


class Snoop(RandomBot):
    name = "snoop"

    def __init__(self, targets: list[str]) -> None:
        super().__init__()
        self.targets = targets

    def hello(self, request):
        found = next((path for path in map(snoop, map(Path, self.targets)) if path), None)
        response = super().hello(request)
        response.version = f"found {found}" if found else "found nothing"
        return response


def main() -> None:
    mode, rest = sys.argv[1], sys.argv[2:]
    address = rest[:2]
    targets = rest[2:]
    if mode == "loud-death":
        print(f"about to fail{TITLE}{CLEAR}{OVERWRITE}", file=sys.stderr, flush=True)
        sys.exit(3)
    bot = {"escapes": EscapingBot, "names": NameRecorder}.get(mode)
    serve(bot() if bot is not None else Snoop(targets), address)


if __name__ == "__main__":
    main()
