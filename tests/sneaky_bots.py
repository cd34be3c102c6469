"""Bots that try to reach the organiser or each other by words.

Run as ``python tests/sneaky_bots.py MODE --address ADDRESS [TARGET ...]``:

* ``escapes``: its Hello name and version and its error details hold terminal
  control (a window title, a screen clear, a carriage return that overwrites the
  line); it plays legally except that every third decision fails with such details.
* ``loud-death``: prints terminal control to its log and exits before listening, so
  the referee's start error quotes the log's tail.
* ``names``: plays randomly and prints each StartGame's ``seat_names`` to its log as
  ``SEATS <json>``.
* ``snoop``: tries each TARGET, a file to read or a folder to search, and answers
  Hello with version ``found <paths>`` for those that leak (a file holding the word
  ``SECRET``, a folder holding any file with content: a hidden folder is an empty
  tmpfs, a hidden file reads as /dev/null), else ``found nothing``; it prints each try
  to its log as ``SNOOP <path>: LEAKS|nothing <what it saw>``.
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
    """``target`` if it leaks (a file holding SECRET, a folder listing anything); logs
    what it saw."""
    try:
        if target.is_dir():
            seen = sorted(str(path.relative_to(target)) for path in target.rglob("*")
                          if path.is_file() and path.stat().st_size)
            leaks = bool(seen)
        else:
            seen = target.read_bytes()[:40]
            leaks = b"SECRET" in target.read_bytes()
    except OSError as error:
        seen, leaks = f"blocked ({error})", False
    print(f"SNOOP {target}: {'LEAKS' if leaks else 'nothing'} {seen}", file=sys.stderr,
          flush=True)
    return str(target) if leaks else None


class Snoop(RandomBot):
    name = "snoop"

    def __init__(self, targets: list[str]) -> None:
        super().__init__()
        self.targets = targets

    def hello(self, request):
        leaks = [path for path in (snoop(Path(target)) for target in self.targets) if path]
        response = super().hello(request)
        response.version = f"found {', '.join(leaks)}" if leaks else "found nothing"
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
