"""In-process bots for the ladder's tests: a near copy of the greedy bot, one that
breaks the rules, and a greedy bot that can be held mid-game for a kill."""

from __future__ import annotations

import itertools
import os
import threading
from pathlib import Path

from bots.flea_greedy import FleaGreedyBot

#: With these set, the held bot stops answering after so many decisions (counted across
#: its instances in the process) and says so by making the file named.
HOLD_AFTER, HELD_FILE = "LADDER_HOLD_AFTER", "LADDER_HELD_FILE"
_decisions = itertools.count(1)


class CopiedGreedy(FleaGreedyBot):
    """Another entrant's greedy bot under a new name: a near copy."""

    name = "copied"


class Sloppy(FleaGreedyBot):
    """Answers with an action that does not exist now and then."""

    def decide(self, request) -> int:
        if request.decision_id % 5 == 0:
            return len(request.legal_actions) + 3
        return super().decide(request)


class HeldGreedy(FleaGreedyBot):
    """The greedy bot, held forever after ``LADDER_HOLD_AFTER`` decisions."""

    def decide(self, request) -> int:
        after = os.environ.get(HOLD_AFTER)
        if after is not None and next(_decisions) > int(after):
            Path(os.environ[HELD_FILE]).touch()
            threading.Event().wait()
        return super().decide(request)


class FirstLegal(FleaGreedyBot):
    """Always the first legal action: a weak boss that plays the same on the same deal."""

    def decide(self, request) -> int:
        return 0
