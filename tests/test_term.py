"""docs/term.md, run as written: its config and its commands over two weeks of a term, two
entrants and a house bot, then a new version of one and a late entrant."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from circus_referee.main import main

DOC = Path(__file__).resolve().parent.parent / "docs" / "term.md"
BOT = """\
from bots.sdk import Bot, rng_for, serve


class Entry(Bot):
    name = {name!r}

    def decide(self, request):
        return rng_for(request).randrange(len(request.legal_actions))


if __name__ == "__main__":
    serve(Entry())
"""
MANIFEST = "name: {name}\nauthor: {author}\nlanguage: python\n" \
           "command: python bot.py --address {{address}}\n"


def blocks(kind: str) -> list[str]:
    """The doc's fenced blocks of one kind, in order."""
    return re.findall(rf"```{kind}\n(.*?)```", DOC.read_text(), re.S)


def hand_in(subs: Path, name: str, version: int = 1) -> None:
    """An entrant's folder as a student hands it in (again, for a new version)."""
    folder = subs / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(BOT.format(name=name) + f"# version {version}\n")
    (folder / "entrant.yaml").write_text(MANIFEST.format(name=name, author=name.title()))


def run_week(commands: str) -> dict[str, str]:
    """Each command of a block in order, by the words after the program's name; what each
    printed (stdout and stderr), by its command line."""
    printed = {}
    for line in commands.splitlines():
        words = shlex.split(line, comments=True)
        assert words[0] == "circus-referee", line
        result = CliRunner().invoke(main, words[1:])
        assert result.exit_code == 0, f"{line}\n{result.output}"
        printed[line] = result.output
    return printed


@pytest.mark.slow
def test_a_term_runs_week_by_week_as_its_page_says(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (base_text,), (week_one, every_week) = blocks("yaml"), blocks("sh")
    Path("league").mkdir()
    Path("league/base.yaml").write_text(base_text)
    for name in ("alice", "bob"):
        hand_in(Path("subs"), name)

    run_week(week_one)
    assert sorted(path.name for path in Path("packs/week-1").iterdir()) == [
        "alice", "bob", "house", "index.html", "replays"]
    page = Path("public/week-1.html").read_text()
    assert "subs/" not in page and str(tmp_path) not in page

    hand_in(Path("subs"), "alice", version=2)
    hand_in(Path("subs"), "carol")
    Path("league/base.yaml").write_text(base_text.replace("rounds: 1 ", "rounds: 2 "))
    printed = list(run_week(every_week).values())
    intake, dry_run = printed[0], printed[1]
    assert "bob (2 of 3): code unchanged since its last check" in intake
    assert "checking alice (1 of 3)" in intake and "checking carol (3 of 3)" in intake
    assert "add carol" in dry_run and "code of alice changed" in dry_run
    assert "rounds 1 → 2" in dry_run
    assert sorted(path.name for path in Path("packs/week-2").iterdir()) == [
        "alice", "alice@v1", "bob", "carol", "house", "index.html", "replays"]
    report = Path("public/week-2.html").read_text()
    assert "alice@v1" in report and "carol" in report and "subs/" not in report
