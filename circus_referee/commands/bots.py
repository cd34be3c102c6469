"""``circus-referee check-bot``: a candidate bot checked against the protocol before it
plays; ``circus-referee doctor``: what this machine gives a sandboxed bot, before any
tournament."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import click

from circus_referee.common import fail, say_if_unstoppable
from referee.checkbot import ROTATIONS, SLOW_SHARE, Coverage, check_bot
from referee.games import GAMES
from referee.interrupts import signals_as_stop, until_stopped
from referee.limits import hierarchy, refusal, statement
from referee.sandbox import unavailable_reason
from referee.settings import TRANSPORTS, BotSpec, LimitsConfig, TimeConfig
from tournaments.config import ENV_NAME, ConfigError, load_config, mount_paths
from tournaments.store import DEFAULT_DB, database_paths
from tournaments.submissions import MANIFEST, entrant_spec, read_manifest


# How long an interrupted check-bot leaves its checks to end once their bot is stopped
# (a stopped bot's waits end at once; this bounds only the clean-up).
CHECK_WIND_DOWN_S = 30.0


@click.command("check-bot")
@click.option("--command", "command", default=None, help="command line that starts the bot "
              "in its sandbox ({address} is replaced by the address to listen on)")
@click.option("--address", default=None, help="a running bot: HOST:PORT or unix:/path/to/socket")
@click.option("--dir", "folder", default=None,
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help=f"a bot's folder with its {MANIFEST} (as a submission holds it): its "
                   "command and transport, the command run in that folder")
@click.option("--game", "only_game", default=None, help="check only this game")
@click.option("--games", "games", type=click.IntRange(min=1), default=2, show_default=True,
              help="games per claimed game, variant and player count, and at least one "
                   "in each seat (--rotation full)")
@click.option("--rotation", type=click.Choice(ROTATIONS), default="full", show_default=True,
              help="full: every seat of every player count (--games at each); once: each "
                   "seat once across the player counts, a quicker recheck of a bot whose "
                   "full rotation passed")
@click.option("--at-once", type=click.IntRange(min=1), default=3, show_default=True,
              help="games played at the same time on one connection, once per game "
                   "(1: no concurrency check)")
@click.option("--move-ms", type=click.IntRange(min=1), default=1000, show_default=True,
              help="time per decision, in milliseconds")
@click.option("--bank-ms", type=click.IntRange(min=0), default=10000, show_default=True,
              help="time bank per game for decisions over --move-ms, in milliseconds")
@click.option("--startup-ms", type=click.IntRange(min=1), default=10000, show_default=True,
              help="time to start and answer Hello, in milliseconds")
@click.option("--log-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="keep the bot's log here (default: a temporary folder, removed)")
@click.option("--debug-wire", is_flag=True, help="write every request and reply, as JSON, "
              "to the bot's log (with --log-dir, to read it afterwards)")
@click.option("--no-sandbox", is_flag=True, help="start the command unsandboxed (a trusted "
              "bot; {port} is then its loopback port)")
@click.option("--transport", type=click.Choice(TRANSPORTS), default="grpc", show_default=True,
              help="how the command's bot talks: gRPC on {address}, or stdio (one JSON line "
                   f"per request on its stdin, one per reply on its stdout); with --dir, its "
                   f"{MANIFEST} says")
@click.option("--db", "db_paths", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="a results database to hide from the bot, with its folder (repeatable; "
                   f"{DEFAULT_DB} is always hidden)")
@click.option("--mount", "mounts", multiple=True, metavar="PATH",
              help="a host path the sandbox shows the bot, read-only, as a bots.yaml entry's "
                   "mounts: (repeatable): say, an interpreter installed outside /usr")
@click.option("--env", "env", multiple=True, metavar="NAME=VALUE",
              help="a variable added to the bot's clean environment, as an entry's env: "
                   "(repeatable)")
@click.option("--strict", is_flag=True,
              help=f"fail (not only warn) on every warning: a p99 decision time of "
                   f"{SLOW_SHARE:.0%} of --move-ms or more, errors in the bot's log, the "
                   "same choice at every decision")
@click.option("--memory-mb", type=click.IntRange(min=16), default=LimitsConfig.memory_mb,
              show_default=True, help="the bot's memory limit, as a tournament's "
              "limits.memory_mb: check it under the limit it will play under")
def check_bot_command(command: str | None, address: str | None, folder: Path | None,
                      only_game: str | None,
                      games: int, at_once: int, move_ms: int, bank_ms: int, startup_ms: int,
                      log_dir: Path | None, debug_wire: bool, no_sandbox: bool,
                      transport: str, db_paths: tuple[Path, ...], mounts: tuple[str, ...],
                      env: tuple[str, ...], strict: bool, memory_mb: int,
                      rotation: str) -> None:
    """Check that a bot follows the protocol: handshake, games, legal and timely replies.

    The bot is a candidate nobody has vetted: it sees no results database (the default
    one and each --db, their folders and SQLite's companion files) and no logs folder.
    Each check's line is printed as it ends (an autograder killed at its timeout has
    printed what passed); SIGTERM and Ctrl-C stop the bot and remove the temporary folder.
    """
    if [command, address, folder].count(None) != 2:
        fail("give exactly one of --command, --address and --dir")
    given = click.get_current_context().get_parameter_source("games")
    if rotation == "once" and given is not click.core.ParameterSource.DEFAULT:
        fail("--games counts the games of --rotation full; --rotation once plays each seat "
             "once: give one of them")
    if only_game is not None and only_game not in GAMES:
        fail(f"unknown game {only_game!r} (games: {', '.join(sorted(GAMES))})")
    if transport == "stdio" and folder is None and (command is None or "{address}" in command
                                                    or "{port}" in command):
        fail("--transport stdio: the bot talks on its stdin and stdout, so give a --command "
             "with no {address} or {port}")
    spec = BotSpec(name="candidate", command=command, address=address, transport=transport)
    if folder is not None:
        spec = entrant_spec(read_manifest(folder), not no_sandbox, TimeConfig())
    spec = replace(spec, debug=debug_wire, env=environment(env), mounts=granted(mounts))
    time_config = TimeConfig(move_ms=move_ms, bank_ms=bank_ms, startup_ms=startup_ms)
    covered = Coverage()
    private = hidden_databases((DEFAULT_DB, *db_paths))
    verdicts: list[str] = []
    say_if_unstoppable()
    if spec.command is not None and not no_sandbox:
        click.echo(statement(LimitsConfig(memory_mb=memory_mb), hierarchy()))
    with signals_as_stop() as stop:
        checks = until_stopped(lambda: check_bot(
            spec, only_game, games, time_config, log_dir, sandbox=not no_sandbox,
            at_once=at_once, private=private, covered=covered, strict=strict, stop=stop,
            memory_mb=memory_mb, rotation=rotation), stop, wind_down_s=CHECK_WIND_DOWN_S)
        try:
            for check in checks:
                click.echo(check.line())   # flushed: each line is out as its check ends
                verdicts.append(check.verdict)
        except KeyboardInterrupt:
            fail(f"interrupted after {len(verdicts)} check(s); the bot is stopped", status=130)
    click.echo(covered.line())
    failed, warned = verdicts.count("FAIL"), verdicts.count("WARN")
    click.echo(f"{len(verdicts) - failed} passed, {failed} failed"
               + (f" ({warned} with a warning)" if warned else ""))
    sys.exit(1 if failed else 0)


def environment(pairs: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """``--env NAME=VALUE`` pairs, named as a bots.yaml entry's ``env:`` keys must be."""
    split = [pair.partition("=") for pair in pairs]
    if not all(equals and ENV_NAME.fullmatch(name) for name, equals, _ in split):
        fail("--env takes NAME=VALUE, NAME of letters, digits and _")
    return tuple((name, value) for name, _, value in split)


def granted(mounts: tuple[str, ...]) -> tuple[str, ...]:
    """``--mount`` paths, checked as a bots.yaml entry's ``mounts:`` (relative ones from
    the shell's folder, where check-bot runs the command)."""
    try:
        return mount_paths(list(mounts), "check-bot ", Path.cwd())
    except ConfigError as error:
        fail(str(error))


def hidden_databases(databases: tuple[Path, ...]) -> tuple[Path, ...]:
    """What hides these databases from a checked bot (:func:`database_paths`); a missing
    folder is made first, so a database another program makes there during the check
    is hidden too (a folder made after the sandbox would not be)."""
    for database in databases:
        try:
            real = database.resolve()
        except (OSError, RuntimeError):
            fail(f"--db {database}: its symlinks loop; give the database's real path")
        try:
            real.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass   # the folder stays unmade, and unhidden
    return tuple(path for database in databases for path in database_paths(database))


@click.command("doctor")
@click.argument("config_path", metavar="[BOTS_YAML]", required=False,
                type=click.Path(path_type=Path))
def doctor(config_path: Path | None) -> None:
    """Say whether bots can be sandboxed here, and which of their limits hold, and how.

    Starts no bot and stores nothing. With BOTS_YAML, the limits are its `limits:`.
    Exits 1 when no sandbox can be made here, or when the config's `limits.require`
    would refuse to run.
    """
    limits = load_config(config_path).limits if config_path is not None else LimitsConfig()
    reason = unavailable_reason()
    click.echo("sandbox: ready" if reason is None else f"sandbox: unavailable: {reason}")
    where = hierarchy()
    for parent in where.parents:
        click.echo(f"cgroup v{parent.version}: {', '.join(parent.controllers)} "
                   f"in {parent.folder}")
    for problem in where.problems:
        click.echo(f"not held: {problem}")
    click.echo(statement(limits, where, why=False))
    refused = refusal(limits, where)
    if refused is not None:
        click.echo(refused)
    sys.exit(1 if reason is not None or refused is not None else 0)
