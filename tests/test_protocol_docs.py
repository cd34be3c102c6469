"""What docs/ and proto/ promise a bot author, checked against the code.

The examples a bot author reads first must be real (event kinds that games emit), and
the rules pages must rest on what a bot author can read: the rulebooks' own words, quoted.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from referee.games import GAMES

ROOT = Path(__file__).resolve().parent.parent


def emitted_event_kinds() -> set[str]:
    """Every event kind of a few random games of every game, variant and player count."""
    kinds: set[str] = set()
    for game in GAMES.values():
        for variant in game.variants:
            for players in range(game.min_players, game.max_players + 1):
                state = game.new_state(players, variant, players)
                choices = random.Random(players)
                while not state.is_terminal():
                    state.apply(choices.randrange(len(state.legal_actions())))
                kinds.update(event.kind for event in state.events)
    return kinds


def quoted(text: str) -> set[str]:
    return set(re.findall(r'"([a-z-]+)"', text))


def test_the_event_kinds_given_as_examples_are_emitted_by_a_game():
    proto = (ROOT / "proto" / "circus" / "v1" / "bot.proto").read_text()
    comment = re.search(r"// Machine-readable kind[^\n]*\n(?:\s*//[^\n]*\n)*\s*string kind = 2;",
                        proto).group(0)
    table_row = next(line for line in (ROOT / "docs" / "protocol.md").read_text().splitlines()
                     if line.startswith("| `kind` | string | machine-readable kind, per game"))
    examples = quoted(comment) | quoted(table_row)
    assert len(examples) >= 4, examples
    assert examples <= emitted_event_kinds(), examples - emitted_event_kinds()


RULES = sorted((ROOT / "docs" / "rules").glob("*.md"))
# The rulebooks, beside the checkout (not in the repository: the rules pages quote them).
RULEBOOKS = ROOT.parent / "shared" / "seeds"


def normalised(text: str) -> str:
    return " ".join(text.replace("’", "'").split())


def test_the_rules_pages_cite_nothing_a_bot_author_cannot_open():
    """Issue 35: no paths outside the repository, no issue numbers as sources."""
    for page in RULES:
        text = page.read_text()
        assert "shared/seeds" not in text, page.name
        assert not re.findall(r".{0,30}[Ii]ssue \d+", text), page.name
        assert "## The rulebook" in text, page.name  # the quoted passages


def test_the_rulebook_quotes_are_verbatim():
    """Every blockquoted passage of docs/rules/*.md is in a rulebook, word for word
    (``…`` marks a cut). Checked where the rulebooks are at hand, beside the checkout."""
    if not RULEBOOKS.is_dir():
        pytest.skip(f"no rulebooks at {RULEBOOKS}")
    books = normalised(" ".join(book.read_text() for book in RULEBOOKS.glob("*.txt")))
    quotes = [quote for page in RULES
              for quote in re.findall(r'^> "(.*)"$', page.read_text(), re.MULTILINE)]
    assert len(quotes) > 30
    for quote in quotes:
        for part in quote.split("…"):
            assert normalised(part.strip()) in books, part
