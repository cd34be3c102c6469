"""A bot from outside: Perl, a language the project does not ship, written from the docs alone.

``tests/outsider_bots/random.pl`` was written by reading only what a bot author reads
(README.md, docs/writing-a-bot.md, docs/protocol.md, docs/rules/, the .proto files), with
Perl's core modules alone. These tests keep those docs sufficient: if the stdio framing, the
handshake or the sandbox's view of the system interpreters changes under them, the bot fails
here. Without perl on the host the test fails, saying so.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import Result
from conftest import assert_no_process_left, check_bot, run_tournament, write_config

from referee.games import GAMES
from tournaments.runner import TournamentError

ROOT = Path(__file__).resolve().parent.parent
BOT = Path(__file__).resolve().parent / "outsider_bots" / "random.pl"


@pytest.fixture
def perl() -> None:
    if shutil.which("perl") is None:
        pytest.fail("perl is not on PATH: the outsider bot needs Debian's perl (core modules)")


@pytest.fixture
def outside_perl(tmp_path, perl) -> Path:
    """A perl outside the system folders (``opt/perl``: a copy of the system's, with a module
    of its own in ``lib/``), and in ``perlbot/`` the outsider bot, using that module."""
    tree = tmp_path / "opt" / "perl"
    (tree / "bin").mkdir(parents=True)
    (tree / "lib").mkdir()
    shutil.copy(shutil.which("perl") or "", tree / "bin" / "perl")
    (tree / "lib" / "Outsider.pm").write_text("package Outsider; 1;\n")
    (tmp_path / "perlbot").mkdir()
    (tmp_path / "perlbot" / "random.pl").write_text(
        BOT.read_text().replace("use JSON::PP;\n", "use JSON::PP;\nuse Outsider;\n", 1))
    return tree


def test_the_perl_bot_passes_check_bot_over_stdio_in_every_game(perl):
    """Each seat once (check-bot's full rotation of every seat of every count has its own
    test, tests/test_check_bot.py)."""
    result = check_bot("--command", f"perl {BOT}", "--transport", "stdio", "--rotation", "once",
                       cwd=ROOT)
    assert result.exit_code == 0, result.output
    assert "PASS  handshake: perl-random 0.1" in result.output, result.output
    for game in GAMES.values():
        for variant in game.variants:
            assert f"PASS  play {game.name}/{variant}" in result.output, result.output


def test_the_perl_bot_plays_a_sandboxed_tournament_from_its_own_folder(tmp_path, started, perl):
    """Its files live in its ``dir:`` (the sandbox shows no other folder of the host)."""
    folder = tmp_path / "perlbot"
    folder.mkdir()
    shutil.copy(BOT, folder / "random.pl")
    path = write_config(tmp_path, f"""
name: outsider
game: flohcati
variant: es
players: 3
rounds: 1
seed: 3
concurrency: 2
renew_bots: false   # its folder and its games are the subject: a process per game at once
bots:
  - {{name: perl, command: "perl random.pl", dir: perlbot, transport: stdio}}
  - {{name: perl2, command: "perl random.pl", dir: perlbot, transport: stdio}}
  - {{name: python, command: "python {ROOT / 'bots' / 'stdio' / 'random_bot.py'}",
      transport: stdio}}
""")
    summary, store, _ = run_tournament(path, tmp_path)
    games = store.games("outsider")
    assert summary.played == len(games) == 3 and not list(store.faults("outsider"))
    assert all(game.status == "finished" for game in games)
    assert {identity[0] for identity in store.identities("outsider").values()} == {
        "perl-random", "stdio-random"}
    assert_no_process_left(started)


def test_an_interpreter_outside_the_system_folders_needs_its_mounts_and_env(tmp_path, outside_perl,
                                                                           monkeypatch):
    """docs/protocol.md "Interpreters in the sandbox": a perl outside /usr, named by its path,
    is shown alone (its libraries are not), and the host's PERL5LIB is not passed; its tree in
    ``mounts:`` and PERL5LIB in ``env:`` make it play."""
    tree = outside_perl

    def play(grant: str, db: str) -> None:
        path = write_config(tmp_path, f"""
name: interpreter
game: flea-circus
players: 2
rounds: 1
seed: 1
bots:
  - {{name: mine, command: "{tree / 'bin' / 'perl'} random.pl", dir: perlbot,
      transport: stdio{grant}}}
  - {{name: random, python: "bots.random_bot:RandomBot"}}   # an opponent, in process
""")
        summary, _, _ = run_tournament(path, tmp_path, db=db)
        assert summary.played == 2

    monkeypatch.setenv("PERL5LIB", str(tree / "lib"))      # the host's: not passed
    env = f"env: {{PERL5LIB: {tree / 'lib'}}}"
    for n, grant in enumerate((", mounts: [opt/perl]", f", {env}")):  # each half alone fails
        with pytest.raises(TournamentError, match="Can't locate Outsider.pm"):
            play(grant, f"refused{n}.sqlite")
    play(f", mounts: [opt/perl], {env}", "played.sqlite")


def test_check_bot_grants_mounts_and_env_as_an_entry_does(tmp_path, outside_perl):
    """``check-bot --mount --env``: the same interpreter outside /usr passes check-bot."""
    tree = outside_perl

    def check(*grant: str) -> Result:
        return check_bot("--transport", "stdio", "--command",
                         f"{tree / 'bin' / 'perl'} perlbot/random.pl", "--game", "flea-circus",
                         "--rotation", "once", "--at-once", "1", *grant, cwd=tmp_path)

    refused = check("--mount", "opt/perl")
    assert refused.exit_code == 1 and "Can't locate Outsider.pm" in refused.output, \
        refused.output
    passed = check("--mount", "opt/perl", "--env", f"PERL5LIB={tree / 'lib'}")
    assert passed.exit_code == 0, passed.output
    bad = check("--env", "1NAME=x")
    assert bad.exit_code == 2 and "--env takes NAME=VALUE" in bad.output
