"""docs/writing-a-bot.md, executed: the tutorial's steps must work as written.

The tutorial marks what a reader types or saves:

* ``<!-- file: PATH -->`` before a fenced block: save the block as PATH;
* ``<!-- run -->`` before a fenced block: run its commands (bash);
* ``<!-- output -->`` before a fenced block: what the run before it prints (a table), compared
  in shape (columns, rows, fields per row) and ranks (the bot in each place).

The test lays the marked files and runs the marked commands in order, in a
folder that stands for a fresh clone (the repository's own files linked in,
nothing else), then checks what the tutorial promises: both bots pass
check-bot, and the tournament it shows is played without a fault and ends
with a leaderboard listing them. A step that is one ``.venv/bin/circus-referee``
command runs in the test's process, from the clone (the bots are the steps' subject,
not the referee's interpreter starting: half a second of CPU each); the others in bash.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from circus_referee.main import main
from tournaments.store import Store

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "writing-a-bot.md"
MARKER = re.compile(
    r"^<!--\s*(file:\s*(?P<path>\S+)|(?P<run>run)|(?P<output>output))\s*-->\s*$")
FENCE = re.compile(r"^(```+)\s*(\w*)\s*$")
COMMAND = ".venv/bin/circus-referee "
# What the tutorial creates itself: never linked in from the repository.
NOT_LINKED = {".git", "runs", "mystdiobot", "mybot", "mybot-js", "mybots.yaml", "node_modules"}


@dataclass
class Step:
    kind: str      # "file", "run" or "output"
    target: str    # the path for "file", "" for "run"
    text: str
    line: int


def tutorial_steps(text: str) -> list[Step]:
    """The marked blocks, in order. A marker not followed by a fenced block is an error."""
    lines = text.splitlines()
    steps: list[Step] = []
    index = 0
    while index < len(lines):
        match = MARKER.match(lines[index].strip())
        index += 1
        if not match:
            continue
        marker_line = index
        while index < len(lines) and not lines[index].strip():
            index += 1
        fence = FENCE.match(lines[index]) if index < len(lines) else None
        assert fence, f"writing-a-bot.md:{marker_line}: marker not followed by a fenced block"
        end = index + 1
        while end < len(lines) and lines[end].strip() != fence.group(1):
            end += 1
        assert end < len(lines), f"writing-a-bot.md:{marker_line}: unclosed fenced block"
        body = "\n".join(lines[index + 1:end]) + "\n"
        if match.group("run") or match.group("output"):
            steps.append(Step("run" if match.group("run") else "output", "", body, marker_line))
        else:
            steps.append(Step("file", match.group("path"), body, marker_line))
        index = end + 1
    return steps


def fresh_clone(folder: Path) -> Path:
    """A folder that looks like a clone with scripts/setup done: the repository's files, linked."""
    clone = folder / "circus-referee"
    clone.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in NOT_LINKED:
            (clone / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return clone


def table_shape(text: str) -> tuple[list[str], list[str], list[tuple[str, str, int]]]:
    """A printed table's column names, the lines around it with every digit as ``#``,
    and each row's (rank, bot, number of fields).

    The table starts at the line naming a ``rank`` column, the next line is its rule, and
    it ends at a blank line; columns are separated by two spaces or more.
    """
    lines = [line.strip() for line in text.strip().splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith("rank "))
    end = next((i for i in range(start, len(lines)) if not lines[i]), len(lines))
    header = re.split(r"\s{2,}", lines[start])
    rank, bot = header.index("rank"), header.index("bot")
    rows = [re.split(r"\s{2,}", line) for line in lines[start + 2:end]]
    around = [re.sub(r"\d", "#", line) for line in lines[:start] + lines[end:]]
    return header, around, [(row[rank], row[bot], len(row)) for row in rows]


def test_the_tutorial_marks_its_steps():
    steps = tutorial_steps(TUTORIAL.read_text())
    files = [step.target for step in steps if step.kind == "file"]
    runs = [step.text for step in steps if step.kind == "run"]
    assert files == ["mystdiobot/bot.py", "mybot/mybot.py", "mybot-js/bot.js", "mybots.yaml"]
    assert len(steps[0].text.splitlines()) <= 20   # "your first bot in 20 lines"
    assert any("check-bot" in run and "mystdiobot/bot.py" in run and "--transport stdio" in run
               for run in runs)
    assert any("check-bot" in run and "mybot/mybot.py" in run for run in runs)
    assert any("check-bot" in run and "mybot-js/bot.js" in run for run in runs)
    assert any("tournament mybots.yaml" in run for run in runs)
    assert any("leaderboard" in run for run in runs)
    kinds = [step.kind for step in steps]
    board = kinds.index("output")
    assert kinds[board - 1] == "run" and "leaderboard" in steps[board - 1].text
    header, _, rows = table_shape(steps[board].text)
    assert "mu-3σ" in header and [rank for rank, _, _ in rows] == ["1", "2", "3", "4"]


def test_the_readme_builds_the_tutorials_first_bot_the_same_way():
    """The README's first bot is the tutorial's file, started by the tutorial's command."""
    readme = (ROOT / "README.md").read_text()
    tutorial = TUTORIAL.read_text()
    commands = set(re.findall(r"python \S*mybot\S* --address \{address\}", readme))
    assert commands == {"python mybot/mybot.py --address {address}"}, commands
    assert all(command in tutorial for command in commands)
    assert "python -m mybot" not in readme


def each_seat_once(commands: str) -> str:
    """The tutorial's commands, its check-bots with ``--rotation once``: its bots in each
    seat once across the player counts (check-bot's full rotation, every seat of every
    count, is tests/test_check_bot.py's; the tutorial's three full checks were 56 games a
    bot and a third of this test's time)."""
    return commands.replace("circus-referee check-bot ",
                            "circus-referee check-bot --rotation once ")


def run_step(commands: str, clone: Path, env: dict[str, str]) -> tuple[int, str]:
    """A run step's exit status and what it printed: one ``circus-referee`` command in
    this process from ``clone``, anything else by bash there."""
    line = commands.strip()
    if line.startswith(COMMAND) and "\n" not in line:
        assert os.access(clone / COMMAND.strip(), os.X_OK), f"no {COMMAND.strip()} to run"
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(clone)
            result = CliRunner().invoke(main, shlex.split(line.removeprefix(COMMAND)))
        return result.exit_code, result.output
    completed = subprocess.run(["bash", "-euo", "pipefail", "-c", commands], cwd=clone,
                               env=env, capture_output=True, text=True, timeout=180)
    return completed.returncode, completed.stdout + completed.stderr


def test_the_tutorial_works_as_written(tmp_path):
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("the tutorial's Node.js part needs node and npm on PATH")
    clone = fresh_clone(tmp_path)
    env = dict(os.environ)
    # The packages the tutorial installs are the ones bots/js uses: take them from npm's
    # cache when it has them (scripts/test filled it), and keep npm quiet.
    env.update(npm_config_prefer_offline="true", npm_config_audit="false",
               npm_config_fund="false", npm_config_update_notifier="false")
    outputs: list[tuple[str, str]] = []  # (commands, what they printed)
    samples: list[tuple[Step, str]] = []  # (a printed sample, what its run printed)
    for step in tutorial_steps(TUTORIAL.read_text()):
        if step.kind == "output":
            samples.append((step, outputs[-1][1]))
            continue
        if step.kind == "file":
            path = clone / step.target
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(step.text)
            continue
        status, output = run_step(each_seat_once(step.text), clone, env)
        assert status == 0, (
            f"writing-a-bot.md:{step.line}: the step failed (status {status}):\n"
            f"{step.text}\n{output}")
        outputs.append((step.text, output))

    checks = [output for commands, output in outputs if "check-bot" in commands]
    assert len(checks) == 3  # the stdio bot, the Python and the Node.js gRPC bots
    for output in checks:
        assert "FAIL" not in output and re.search(r"^[1-9]\d* passed, 0 failed$", output, re.M)
        assert "PASS  handshake" in output and "PASS  play flea-circus/standard" in output

    store = Store(clone / "runs" / "circus.sqlite")
    games = store.games("my-first-tournament")
    assert len(games) == 24 and all(game.status == "finished" for game in games)
    assert not [dict(fault) for fault in store.faults("my-first-tournament")]
    board = next(output for commands, output in outputs if "leaderboard" in commands)
    assert "mybot" in board and "myjsbot" in board and "greedy" in board
    # The deals come from the seed alone (secret_deals: false): the sample is what prints.
    assert samples
    for sample, printed in samples:
        assert table_shape(printed) == table_shape(sample.text), (
            f"writing-a-bot.md:{sample.line}: the sample differs from what the run prints:\n"
            f"{printed}")
