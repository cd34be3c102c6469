"""What a newcomer meets first: a config's mistakes, each answered by one line that names it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import write_config

from circus_referee.main import main

# A bot named by a path from the shell's folder, in a config in another folder: the
# newcomer's first mistake (a command runs in its config file's folder).
LEAGUE = """
name: league
game: flea-circus
players: 2
rounds: 1
bots:
  - {{name: mine, command: "python mybot.py{address}"{transport}}}
  - {{name: other, python: "bots.random_bot:RandomBot"}}
"""


@pytest.mark.parametrize("transport", ["grpc", "stdio"])
def test_a_command_naming_a_file_not_in_its_folder_says_which_and_where(tmp_path, transport):
    """The error names the file and the folder the command ran in, not the sandbox (which
    hides nothing here: the file is not there); run twice, it quotes only its own run's
    log lines, not the first run's."""
    (tmp_path / "mybot.py").write_text("print('never run')\n")
    league = tmp_path / "league"
    league.mkdir()
    path = write_config(league, LEAGUE.format(
        address=" --address {address}" if transport == "grpc" else "",
        transport=", transport: stdio" if transport == "stdio" else ""))
    args = ["tournament", str(path), "--db", str(tmp_path / "db.sqlite"),
            "--logs", str(tmp_path / "logs"), "--quiet"]
    quoted: list[set[str]] = []
    for _ in range(2):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, result.output
        line = result.output.strip()
        assert "\n" not in line and "Traceback" not in line, line
        assert f"its command names mybot.py, not in {league}" in line, line
        assert "the sandbox hides it" not in line, line
        quoted.append(set(re.findall(r"\[run (\d+)\]", line)))
        assert quoted[-1] and "can't open file" in line, line
    assert not quoted[0] & quoted[1], quoted


def test_the_readme_tells_the_tables_order_from_the_verdict_where_it_first_names_it():
    """A newcomer reads the sorted table as the result: the paragraph that first names the
    verdict says what each one is."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    paragraph = next(part for part in readme.split("\n\n") if "verdict" in part)
    assert "conservative" in paragraph and "settled" in paragraph


def test_a_node_command_naming_a_missing_script_says_which_and_where(tmp_path):
    """Node.js reports the missing script a dozen lines above its last words: the error still
    names the file and the folder the command ran in."""
    path = write_config(tmp_path, LEAGUE.replace("python mybot.py{address}", "node mybot.js")
                        .format(transport=", transport: stdio"))
    result = CliRunner().invoke(main, ["tournament", str(path), "--db", str(tmp_path / "db"),
                                       "--logs", str(tmp_path / "logs"), "--quiet"])
    assert result.exit_code == 2, result.output
    assert f"its command names mybot.js, not in {tmp_path}" in result.output, result.output


def test_a_run_that_skipped_a_bot_says_which_and_what_it_left_unplayed(tmp_path):
    """The closing line counts fewer games than the total: the line under it says why."""
    path = write_config(tmp_path, """
name: league
game: flea-circus
players: 2
bots:
  - {name: mine, python: "bots.nope:Bot"}
  - {name: other, python: "bots.random_bot:RandomBot"}
  - {name: third, python: "bots.random_bot:RandomBot"}
""")
    result = CliRunner().invoke(main, ["tournament", str(path), "--db", str(tmp_path / "db"),
                                       "--skip-bad-bots", "--quiet"])
    assert result.exit_code == 0, result.output
    assert ("skipped, as it did not start: mine; 4 game(s) left unplayed: the same command "
            "plays them once it starts") in result.output, result.output


def test_check_bot_dir_names_a_folder_that_is_not_there(tmp_path):
    result = CliRunner().invoke(main, ["check-bot", "--dir", str(tmp_path / "mybot")])
    assert result.exit_code == 2 and "does not exist" in result.output, result.output


def test_a_command_whose_program_is_nowhere_says_so_and_what_the_sandbox_showed(tmp_path):
    path = write_config(tmp_path, LEAGUE.format(address="", transport=", transport: stdio")
                        .replace("python mybot.py", "nosuchprogram x"))
    result = CliRunner().invoke(main, ["tournament", str(path), "--db", str(tmp_path / "db"),
                                       "--logs", str(tmp_path / "logs"), "--quiet"])
    assert result.exit_code == 2, result.output
    assert ("its program nosuchprogram is not on its PATH; besides the system's folders and "
            "the referee's Python it sees nothing (its dir:") in result.output, result.output
