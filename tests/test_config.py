"""Bad configs are refused before anything starts: one line, exit status 2."""

from __future__ import annotations

import textwrap
from dataclasses import asdict

import pytest
from click.testing import CliRunner

from circus_referee.main import main
from tournaments import config as config_module
from tournaments.config import ConfigError, jsonable, load_config
from tournaments.schedule import Segment, first_segment, segment_config

GOOD = """
name: t
game: flea-circus
players: 2
bots:
  - {name: a, python: "bots.random_bot:RandomBot"}
  - {name: b, python: "bots.random_bot:RandomBot"}
"""


def run_config(tmp_path, text: str):
    path = tmp_path / "bots.yaml"
    path.write_text(textwrap.dedent(text))
    result = CliRunner().invoke(main, ["tournament", str(path), "--db", str(tmp_path / "r.db"),
                                       "--logs", str(tmp_path / "logs"), "--quiet"])
    return result


@pytest.mark.parametrize("text, message", [
    (GOOD + "colour: red\n", "unknown key 'colour'"),
    (GOOD + "roundz: 2\n", "unknown key 'roundz' (did you mean 'rounds'? allowed: "),
    (GOOD + "limits: {memory: 5}\n",
     "unknown key limits.'memory' (did you mean 'memory_mb'? allowed: "),
    (GOOD.replace("flea-circus", "chess"), "unknown game 'chess'"),
    (GOOD + "variant: turbo\n", "has no variant 'turbo'"),
    (GOOD.replace("players: 2", "players: 7"), "is for 2-5 players, not 7"),
    (GOOD.replace("players: 2", "players: 3"), "2 bot(s) listed but the table has 3 seats"),
    (GOOD.replace("name: b", "name: a"), "duplicate bot name 'a'"),
    (GOOD.replace('python: "bots.random_bot:RandomBot"}', "}", 1),
     "bot 'a' needs exactly one of command, address, python, policy (found none)"),
    (GOOD.replace('python: "bots.random_bot:RandomBot"}', 'python: x:Y, address: "h:1"}', 1),
     "bot 'a' needs exactly one of command, address, python, policy (found address and python)"),
    (GOOD.replace("players: 2", "players: two"), "'players' must be int"),
    (GOOD + "rounds: 0\n", "rounds must be from 1 to 1,000,000,000,000,000,000, not 0"),
    (GOOD + "time: {move_ms: -5}\n", "time.move_ms must be from 1 to 3,600,000, not -5"),
    (GOOD + "time: {move_ms: 1000000000000}\n", "time.move_ms must be from 1 to 3,600,000"),
    (GOOD + "limits: {message_bytes: 1000000000000}\n",
     "limits.message_bytes must be from 1 to 1,073,741,824"),
    (GOOD + "rating: {sigma: .nan}\n", "rating.sigma must be from 0.001 to 10,000, not nan"),
    (GOOD + "rating: {draw_probability: 1}\n", "rating.draw_probability must be from 0.001 to 0.99"),
    (GOOD + "max_restarts: -1\n", "max_restarts must be from 0 to 1,000"),
    (GOOD + "rounds: 1000000000\n",
     "this schedule makes 2,000,000,000 games; the limit is 100,000"),
    (GOOD + "games_per_bot: 1000000\n",
     "this schedule makes 1,000,000 games; the limit is 100,000"),
    (GOOD.replace("name: a", 'name: "a\\0b"'), "bot name 'a\\x00b' is not allowed"),
    (GOOD.replace("name: a", "name: ../x"), "bot name '../x' is not allowed"),
    (GOOD.replace("name: a", "name: /abs"), "bot name '/abs' is not allowed"),
    (GOOD.replace("name: a", "name: .hidden"), "bot name '.hidden' is not allowed"),
    (GOOD.replace("name: a", "name: a/b"), "bot name 'a/b' is not allowed"),
    (GOOD.replace("name: a", 'name: "a\\tb"'), "bot name 'a\\tb' is not allowed"),
    (GOOD.replace("name: a", 'name: ""'), "bot name '' is not allowed"),
    (GOOD.replace("name: t", "name: ../t"), "tournament name '../t' is not allowed"),
    (GOOD.replace("name: t", 'name: "t\\0"'), "tournament name 't\\x00' is not allowed"),
    (GOOD.replace("name: t", "name: .t"), "tournament name '.t' is not allowed"),
    (GOOD.replace('python: "bots.random_bot:RandomBot"}', 'command: "x\\0y"}', 1),
     "bot 'a': command holds a control character"),
    (GOOD + "time: {moves: 5}\n", "unknown key time.'moves'"),
    (GOOD.replace('python: "bots.random_bot:RandomBot"}', 'command: " "}', 1),
     "bot 'a': command is empty"),
    (GOOD.replace("bots.random_bot:RandomBot", "bots.random_bot", 1),
     "bot 'a': python: 'bots.random_bot' must look like module:Class"),
    (GOOD.replace("{name: a,", "{name: a, transprt: stdio,"),
     "unknown key bots[0].'transprt' (did you mean 'transport'?"),
    (GOOD.replace("name: b", "name: 5"), "bots[1].'name' must be str, not 5"),
    (GOOD + "faults: {timeout: explode}\n", "faults.timeout must be one of"),
    ("game: [unclosed\n", "not valid YAML"),
    ("- just a list\n", "must be a mapping"),
    (GOOD.replace("game: flea-circus\n", ""), "missing required key 'game'"),
])
def test_bad_config_is_refused_with_one_line_and_status_2(tmp_path, text, message):
    result = run_config(tmp_path, text)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output
    assert not (tmp_path / "logs").exists()


def test_missing_file_is_refused(tmp_path):
    result = CliRunner().invoke(main, ["tournament", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 2 and "cannot read" in result.output


def test_good_config_gets_defaults(tmp_path):
    path = tmp_path / "bots.yaml"
    path.write_text(GOOD)
    config = load_config(path)
    assert (config.variant, config.rounds, config.seed, config.duplicate) == \
        ("standard", 1, 1, True)
    assert config.faults["crash"] == "forfeit" and config.faults["timeout"] == "substitute"


@pytest.mark.parametrize("text", [
    GOOD, GOOD + "reveal_names: true\n",
    GOOD.replace('RandomBot"}', 'RandomBot", time: {move_ms: 5}}', 1)])
def test_a_config_s_record_is_its_whole_and_its_identity_from_one_asdict(tmp_path,
                                                                       monkeypatch, text):
    """What the store keeps of a tournament: the whole config and the keys that define
    its games, as ``identity`` says them, made from one ``asdict`` of the config (a
    ladder records a small tournament every match)."""
    path = tmp_path / "bots.yaml"
    path.write_text(text)
    config = load_config(path)
    whole, identity = jsonable(asdict(config)), jsonable(config.identity())
    made = []

    def counted(data):
        made.append(data)
        return asdict(data)

    monkeypatch.setattr(config_module, "asdict", counted)
    assert config.record() == (whole, identity)
    assert [data for data in made if data is config] == [config]


def test_a_field_that_never_changed_is_scheduled_from_the_config_itself(tmp_path):
    path = tmp_path / "bots.yaml"
    path.write_text(GOOD)
    config = load_config(path)
    assert segment_config(config, first_segment(config)) is config
    changed = segment_config(config, Segment(bots=("a", "gone")))
    assert [bot.name for bot in changed.bots] == ["a", "gone"]
    assert changed.bots[0] is config.bots[0] and changed.bots[1].python == "withdrawn"


def test_fault_policy_for_all_classes_then_one(tmp_path):
    path = tmp_path / "bots.yaml"
    path.write_text(GOOD + "faults: {all: void, crash: forfeit}\n")
    faults = load_config(path).faults
    assert faults == {"timeout": "void", "illegal": "void", "error": "void", "crash": "forfeit"}


def test_rounds_and_games_per_bot_together_are_refused(tmp_path):
    path = tmp_path / "bots.yaml"
    path.write_text(GOOD + "rounds: 2\ngames_per_bot: 4\n")
    with pytest.raises(ConfigError, match="not both"):
        load_config(path)


def test_a_policy_entry_stands_for_the_weight_files_bot_in_its_folder(tmp_path):
    (tmp_path / "weights").mkdir()
    (tmp_path / "weights" / "flea.npz").write_bytes(b"")
    path = tmp_path / "bots.yaml"
    path.write_text(GOOD.replace('python: "bots.random_bot:RandomBot"}',
                                 "policy: weights/flea.npz}", 1))
    bot = load_config(path).bots[0]
    assert bot.command == "python -m training.policy_bot --policy flea.npz --address {address}"
    assert bot.dir == str(tmp_path / "weights")


@pytest.mark.parametrize("entry, message", [
    ("policy: nope.npz", "policy 'nope.npz' is not a .npz weight file"),
    ("policy: w.txt", "policy 'w.txt' is not a .npz weight file"),
    ("policy: w.npz, command: x", "policy: names the bot's file and folder; drop command"),
    ("policy: w.npz, dir: .", "policy: names the bot's file and folder; drop dir"),
])
def test_a_bad_policy_entry_is_refused(tmp_path, entry, message):
    (tmp_path / "w.npz").write_bytes(b"")
    (tmp_path / "w.txt").write_bytes(b"")
    result = run_config(tmp_path, GOOD.replace('python: "bots.random_bot:RandomBot"}',
                                               entry + "}", 1))
    assert result.exit_code == 2 and message in result.output, result.output
