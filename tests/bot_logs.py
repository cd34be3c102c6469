"""Reading a bot's log: the referee's lines (``=== run …``, ``wire …``) as they are,
and the bot's own output, each line of which starts with its run's tag (``[run N] ``)."""

from __future__ import annotations

import re

TAG = re.compile(r"\[run (\d+)\] ")


def tagged_lines(text: str) -> list[tuple[int, str]]:
    """(run, line) of each line of the bot's own output, over every run, untagged."""
    return [(int(tag.group(1)), line[tag.end():]) for line in text.splitlines()
            if (tag := TAG.match(line))]


def bot_lines(text: str) -> list[str]:
    """The bot's own output lines, over every run, without their tags."""
    return [line for _, line in tagged_lines(text)]
