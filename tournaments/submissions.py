"""A tournament's field from a folder of submissions, each gated by check-bot.

One folder per entrant holds its files and a manifest, ``entrant.yaml`` (name,
author, language, command, and the transport its command speaks: gRPC unless it says
stdio). Each entrant whose manifest holds is checked by
check-bot (:func:`referee.checkbot.check_bot`), sandboxed as the tournament will run
it, at the tournament's clock; the entrants that pass become the ``bots:`` of a
``bots.yaml``, each with its folder as its ``dir:``. Nothing is lost: every
entrant's verdict, its reason and check-bot's output and log are kept in a folder
of checks, one subfolder per submission.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable

import yaml
from tabulate import tabulate

from referee.checkbot import Check, Coverage, check_bot
from referee.errors import CircusError
from referee.sandbox import SYSTEM, named_files
from referee.settings import BotSpec, TimeConfig, package_version
from referee.text import printable
from tournaments.config import (
    ConfigError,
    TournamentConfig,
    _bots,
    _checked_name,
    no_unknown_keys,
    _typed,
    parse_config,
)
from tournaments.fingerprint import fingerprint
from tournaments.public import public_command
from tournaments.store import DEFAULT_DB, database_paths

MANIFEST = "entrant.yaml"
MANIFEST_KEYS = ("name", "author", "language", "command", "transport")
# The keys a written config opens with, in a reader's order (its bots close it).
LEADING_KEYS = ("name", "game", "variant", "players")
# Author and language are shown in tables and compared (one entry per author): one short
# line each, with no control character.
TEXT_LIMIT = 100


class SubmissionError(CircusError, ValueError):
    """A submission flow that cannot go on; the message is one line for the user."""


@dataclass(frozen=True)
class Entrant:
    """A submission whose manifest holds."""

    folder: Path
    name: str
    author: str
    language: str
    command: str
    # When its manifest was last written: of one author's entries, the newest is kept.
    submitted: float
    # What its command speaks, grpc or stdio (bots.yaml's ``transport:``, checked there).
    transport: str = "grpc"

    def entry(self) -> dict[str, str]:
        """Its ``bots:`` entry, its folder as its ``dir:`` (absolute: relative to the
        config's folder only where the config is written)."""
        return {"name": self.name, "command": self.command, "dir": str(self.folder),
                "transport": self.transport}


@dataclass(frozen=True)
class Verdict:
    """What became of one submission: ``refused`` None if it is in the field."""

    folder: Path
    entrant: Entrant | None
    refused: str | None
    checks: tuple[Check, ...] = ()
    # What check-bot covered, in its own words ("covered: ...").
    covered: str = ""

    @property
    def passed(self) -> bool:
        return self.refused is None

    def refuse(self, reason: str) -> Verdict:
        return replace(self, refused=reason)


def read_manifest(folder: Path) -> Entrant:
    """The entrant of one submission folder; :class:`SubmissionError` naming the folder
    and the key on any problem. The name and command follow ``bots.yaml``'s rules."""
    where = f"{folder.name}/{MANIFEST}"
    path = folder / MANIFEST
    try:
        data = yaml.safe_load(path.read_text())
        submitted = path.stat().st_mtime
    except FileNotFoundError:
        raise SubmissionError(f"{folder.name}: no {MANIFEST} (keys: "
                              f"{', '.join(MANIFEST_KEYS)})") from None
    except OSError as error:
        raise SubmissionError(f"{where}: cannot read: {error.strerror}") from None
    except (yaml.YAMLError, UnicodeDecodeError):
        raise SubmissionError(f"{where}: not valid YAML") from None
    except ValueError as error:   # a number of more digits than Python converts
        raise SubmissionError(f"{where}: not valid YAML: {error}") from None
    if not isinstance(data, dict):
        raise SubmissionError(f"{where}: must be a mapping of {', '.join(MANIFEST_KEYS)}")
    try:
        no_unknown_keys(data, set(MANIFEST_KEYS), "")
        name = _checked_name(_typed(data, "name", str, required=True), "name")
        entrant = Entrant(folder, name, _text(data, "author"), _text(data, "language"),
                          _typed(data, "command", str, required=True), submitted,
                          _typed(data, "transport", str, default="grpc"))
        # The entry as bots.yaml will hold it, checked by bots.yaml's own rules.
        _bots([entrant.entry()], True, None, TimeConfig())
        _own_files_only(entrant)
    except ConfigError as error:
        raise SubmissionError(f"{where}: {error}") from None
    return entrant


def _own_files_only(entrant: Entrant) -> None:
    """Refuse a command that names a file outside the entrant's folder and the system's.

    A sandbox shows a bot the files its command names, wherever they are (an organiser's
    bot may run a binary from anywhere); an entrant's command is not the organiser's, and
    ``python ../alice/bot.py`` or a link to the organiser's files would show it them.
    """
    own = entrant.folder.resolve()
    try:
        argv = shlex.split(entrant.command)
    except ValueError as error:
        raise ConfigError(f"command cannot be parsed: {error}") from None
    for path in named_files(argv, own):
        real = path.resolve()
        if real != own and own not in real.parents and not any(
                Path(folder) in real.parents for folder in SYSTEM):
            raise ConfigError(f"command names {path}, outside its folder: an entrant's "
                              "command may name only its own files (and the system's)")


def _text(data: dict, key: str) -> str:
    value = _typed(data, key, str, required=True).strip()
    if not value or len(value) > TEXT_LIMIT or printable(value) != value:
        raise ConfigError(f"{key!r} must be 1-{TEXT_LIMIT} printable characters, "
                          f"not {data[key]!r}")
    return value


def submission_folders(submissions: Path, leave_out: tuple[Path, ...] = ()) -> list[Path]:
    """Every folder of ``submissions`` but hidden ones and ``leave_out`` (the folder of
    checks, when it is made there), in name order."""
    try:
        found = sorted(path for path in submissions.iterdir() if path.is_dir())
    except OSError as error:
        raise SubmissionError(f"{submissions}: cannot read: {error.strerror}") from None
    skipped = {path.resolve() for path in leave_out}
    folders = [path for path in found
               if not path.name.startswith(".") and path.resolve() not in skipped]
    if not folders:
        raise SubmissionError(f"{submissions}: no submission folders (one folder per "
                              f"entrant, each with its {MANIFEST})")
    return folders


def template(base: dict[str, Any], entrants: list[Entrant],
             output: Path) -> TournamentConfig:
    """The tournament config the field would make if every entrant passed (one of each
    name, none named as a house bot), checked before any check-bot runs: a bad key of
    the base or an option is refused at once."""
    unique: dict[str, Entrant] = {}
    for entrant in entrants:
        if entrant.name not in house_names(base):
            unique.setdefault(entrant.name, entrant)
    try:
        return parse_config(with_entrants(base, list(unique.values()), output),
                            default_name=output.stem, folder=output.parent.resolve())
    except ConfigError as error:
        raise SubmissionError(str(error)) from None


def load_base(path: Path | None) -> dict[str, Any]:
    """The keys of a base config (a ``bots.yaml`` whose ``bots:``, if any, are the house's:
    baselines every entrant meets); an empty base without a file."""
    if path is None:
        return {}
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as error:
        raise SubmissionError(f"{path}: cannot read: {error.strerror}") from None
    except (yaml.YAMLError, UnicodeDecodeError):
        raise SubmissionError(f"{path}: not valid YAML") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SubmissionError(f"{path}: the config must be a mapping of keys to values")
    if not isinstance(data.get("bots", []), list):
        raise SubmissionError(f"{path}: 'bots' must be a list (the house's bots), or absent")
    return data


def house_names(base: dict[str, Any]) -> set[str]:
    """The names of the base config's own bots."""
    return {bot["name"] for bot in base.get("bots") or [] if isinstance(bot, dict)
            and isinstance(bot.get("name"), str)}


def with_entrants(base: dict[str, Any], entrants: list[Entrant],
                  output: Path) -> dict[str, Any]:
    """The base's keys, its own bots (the house's) and the entrants, each ``dir:`` relative
    to the folder of ``output``, so the config and the submissions may move together."""
    home = output.parent.resolve()
    entries = [{**entrant.entry(), "dir": os.path.relpath(entrant.folder.resolve(), home)}
               for entrant in entrants]
    # In the order a reader looks for them: what is played first, the bots last.
    first = {key: base[key] for key in LEADING_KEYS if key in base}
    rest = {key: value for key, value in base.items() if key not in (*LEADING_KEYS, "bots")}
    return {**first, **rest, "bots": [*(base.get("bots") or []), *entries]}


def check_entrant(entrant: Entrant, config: TournamentConfig, games: int, at_once: int,
                  log_dir: Path, private: tuple[Path, ...]) -> Verdict:
    """check-bot on the entrant's game, sandboxed as the config will run it and at its
    clock: every start, call and decision bounded by ``config.time``; its games dealt
    from a fresh secret, so that a bot cannot know them for a gate's (and behave only
    there) by their ids or their deals."""
    covered = Coverage()
    spec = entrant_spec(entrant, config.sandbox, config.time)
    checks = list(check_bot(spec, config.game, games, config.time,
                            log_dir=log_dir, sandbox=config.sandbox, at_once=at_once,
                            private=private, covered=covered,
                            secret=secrets.token_hex(16)))
    return Verdict(entrant.folder, entrant, gate(checks, config), tuple(checks),
                   covered.line())


def entrant_spec(entrant: Entrant, sandbox: bool, time: TimeConfig) -> BotSpec:
    """The entrant as a bots.yaml entry runs it (its command in its folder), sandboxed or
    not, at ``time``: a config's, or check-bot's."""
    return _bots([entrant.entry()], sandbox, None, time)[0]


#: Where a submission's gate is remembered, in its folder of checks beside check.txt.
GATE_FILE = "gate.json"


def gate_key(entrant: Entrant, config: TournamentConfig, games: int, at_once: int
             ) -> dict[str, Any]:
    """What a gate's verdict depends on: the entrant's code (its fingerprint: its command
    and every file of its folder), the referee's version, and how it is checked (the game,
    the clock, the sandbox, the games played). The same key gives the same verdict, so a
    weekly intake re-gates only the code that changed."""
    spec = entrant_spec(entrant, config.sandbox, config.time)
    return {"code": fingerprint(spec), "version": package_version(),
            "game": config.game, "variant": config.variant, "time": asdict(config.time),
            "sandbox": config.sandbox, "games": games, "at_once": at_once}


def remembered_gate(entrant: Entrant, key: dict[str, Any], log_dir: Path) -> Verdict | None:
    """The verdict of an earlier gate of the same key, if one is kept in ``log_dir``."""
    try:
        kept = json.loads((log_dir / GATE_FILE).read_text())
        if kept["key"] != key:
            return None
        checks = tuple(Check(name, passed, message, warning)
                       for name, passed, message, warning in kept["checks"])
        return Verdict(entrant.folder, entrant, kept["refused"], checks, kept["covered"])
    except (OSError, ValueError, KeyError, TypeError):
        return None   # none kept, or not in this shape: gate again


def remember_gate(verdict: Verdict, key: dict[str, Any], log_dir: Path) -> None:
    """Keep a gate's verdict with its key, for :func:`remembered_gate`."""
    kept = {"key": key, "refused": verdict.refused, "covered": verdict.covered,
            "checks": [[check.name, check.passed, check.message, check.warning]
                       for check in verdict.checks]}
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        (log_dir / GATE_FILE).write_text(json.dumps(kept, indent=1) + "\n")
    except OSError as error:
        raise SubmissionError(f"cannot write {error.filename}: {error.strerror}") from None


def gate(checks: list[Check], config: TournamentConfig) -> str | None:
    """Why check-bot refuses the entrant for this tournament, or None: its first failed
    check, but for the play of another variant of the game than the config's (a bot that
    fails Flohcati's `es` may still play `en`), and it must have played the config's."""
    wanted = f"play {config.game}/{config.variant}"
    others = f"play {config.game}/"
    failed = [check for check in checks if not check.passed
              and (check.name == wanted or not check.name.startswith(others))]
    if failed:
        return f"check-bot: {failed[0].name}: {failed[0].message}"
    if not any(check.name == wanted for check in checks):
        return f"check-bot: it does not claim {config.game}/{config.variant}"
    return None


def one_per_author(verdicts: list[Verdict]) -> list[Verdict]:
    """Of each author's entries that passed, the newest (by its manifest's time, then its
    folder's name) is kept; the others are refused, naming the one kept. Authors are
    compared without case or surrounding spaces."""
    kept: dict[str, Entrant] = {}
    for verdict in verdicts:
        if verdict.passed and verdict.entrant is not None:
            best = kept.get(_author(verdict.entrant))
            if best is None or _newness(verdict.entrant) > _newness(best):
                kept[_author(verdict.entrant)] = verdict.entrant
    result = []
    for verdict in verdicts:
        winner = kept.get(_author(verdict.entrant)) if verdict.entrant is not None else None
        if verdict.passed and winner is not None and winner is not verdict.entrant:
            verdict = verdict.refuse(f"one entry per author: {winner.author}'s newer entry "
                                     f"{winner.name} ({winner.folder.name}) is kept")
        result.append(verdict)
    return result


def _author(entrant: Entrant) -> str:
    return entrant.author.strip().casefold()


def _newness(entrant: Entrant) -> tuple[float, str]:
    return entrant.submitted, entrant.folder.name


def unique_names(verdicts: list[Verdict], house: set[str]) -> list[Verdict]:
    """Refuse every passed entrant whose name another passed entrant or a house bot has:
    which of them is meant is the organiser's call, not the order of the folders."""
    passed = [v.entrant.name for v in verdicts if v.passed and v.entrant is not None]
    result = []
    for verdict in verdicts:
        name = verdict.entrant.name if verdict.entrant is not None else ""
        if verdict.passed and name in house:
            verdict = verdict.refuse(f"the name {name} is a bot of the base config's")
        elif verdict.passed and passed.count(name) > 1:
            others = [v.folder.name for v in verdicts if v.passed and v.entrant is not None
                      and v.entrant.name == name and v is not verdict]
            verdict = verdict.refuse(f"the name {name} is also the entrant of "
                                     f"{', '.join(others)}")
        result.append(verdict)
    return result


class FieldRefused(SubmissionError):
    """No field can be made; ``verdicts`` (kept in the checks folder too) say what
    became of each submission."""

    def __init__(self, message: str, verdicts: list[Verdict]) -> None:
        super().__init__(message)
        self.verdicts = verdicts


@dataclass(frozen=True)
class Field:
    """The outcome of :func:`make_field`: every verdict and the config of those passed."""

    verdicts: list[Verdict]
    config: dict[str, Any]


def make_field(submissions: Path, base: dict[str, Any], output: Path, *, checks_dir: Path,
               games: int = 1, at_once: int = 3, per_author: bool = False,
               private: tuple[Path, ...] = (), recheck: bool = False,
               progress: Callable[[str], None] = lambda line: None) -> Field:
    """Read, check and choose the field; keep every verdict in ``checks_dir``.

    Each entrant is checked hidden from the others' folders, the checks, the config,
    ``private`` (the base config) and the default database (its sandbox shows its own
    folder only; these are covered even where its command names them). An entrant whose
    code and check are those of a verdict kept in ``checks_dir`` keeps it unchecked
    (:func:`gate_key`), unless ``recheck``.
    """
    folders = submission_folders(submissions, (checks_dir,))
    try:
        # Made before the first sandbox: a folder made after one is not covered in it.
        checks_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SubmissionError(f"cannot make {checks_dir}: {error.strerror}") from None
    read = [manifest_verdict(folder) for folder in folders]
    entrants = [verdict.entrant for verdict in read if verdict.entrant is not None]
    try:
        config = template(base, entrants, output)
    except SubmissionError as error:
        unchecked = [verdict.refuse(f"not checked: {error}") if verdict.passed else verdict
                     for verdict in read]
        record(unchecked, checks_dir)
        raise FieldRefused("no submission's manifest holds" if not entrants else
                           f"the config is refused before any check: {error}",
                           unchecked) from None
    shared = (checks_dir, output, *private, *database_paths(Path(DEFAULT_DB)))
    verdicts = []
    for number, verdict in enumerate(read, 1):
        entrant = verdict.entrant
        if entrant is not None:
            others = tuple(folder for folder in folders if folder != verdict.folder)
            key = gate_key(entrant, config, games, at_once)
            log_dir = checks_dir / verdict.folder.name
            kept = None if recheck else remembered_gate(entrant, key, log_dir)
            where = f"{verdict.folder.name} ({number} of {len(read)})"
            if kept is not None:
                progress(f"{where}: code unchanged since its last check, its verdict kept")
                verdict = kept
            else:
                progress(f"checking {where}")
                verdict = check_entrant(entrant, config, games, at_once, log_dir,
                                        (*others, *shared))
                remember_gate(verdict, key, log_dir)
        verdicts.append(verdict)
    if per_author:
        verdicts = one_per_author(verdicts)
    verdicts = unique_names(verdicts, house_names(base))
    record(verdicts, checks_dir)
    chosen = [v.entrant for v in verdicts if v.passed and v.entrant is not None]
    if not chosen:
        raise FieldRefused(f"none of the {len(verdicts)} entrants passed", verdicts)
    data = with_entrants(base, chosen, output)
    try:
        parse_config(data, default_name=output.stem, folder=output.parent.resolve())
    except ConfigError as error:
        raise FieldRefused(f"{len(chosen)} of {len(verdicts)} entrants passed, and the "
                           f"config they make is refused: {error}", verdicts) from None
    return Field(verdicts, data)


def manifest_verdict(folder: Path) -> Verdict:
    """A submission with its manifest read: refused already if the manifest does not hold."""
    try:
        return Verdict(folder, read_manifest(folder), None)
    except SubmissionError as error:
        return Verdict(folder, None, str(error))


COLUMNS = ("folder", "name", "author", "language", "verdict", "reason")
#: A refusal's reason in the table: its first words (check.txt keeps it whole).
REASON_WIDTH = 80


def rows(verdicts: list[Verdict], checks_dir: Path) -> list[dict[str, str]]:
    """The table of entrants: one row per submission folder; a refused one's reason in
    short, with where its log (or else its whole verdict) is on a line of its own."""
    return [{"folder": v.folder.name,
             "name": v.entrant.name if v.entrant else "",
             "author": v.entrant.author if v.entrant else "",
             "language": v.entrant.language if v.entrant else "",
             "verdict": "passed" if v.passed else "refused",
             "reason": "" if v.refused is None else
             f"{short_reason(v.refused)}\n{where_told(v, checks_dir)}"} for v in verdicts]


def short_reason(reason: str) -> str:
    """A reason on one line of at most :data:`REASON_WIDTH` characters, each path by its
    last part only: a bot's crash quotes its log, paths of this machine and all."""
    text = " ".join(public_command(reason, None).split())
    if len(text) <= REASON_WIDTH:
        return text
    return text[:REASON_WIDTH - 2].rsplit(" ", 1)[0] + " …"


def where_told(verdict: Verdict, checks_dir: Path) -> str:
    """Where the rest of a refusal is: the bot's log during its check, or (refused before
    a check) its verdict whole."""
    folder = checks_dir / verdict.folder.name
    log = folder / f"{verdict.entrant.name}.log" if verdict.entrant else None
    if log is not None and log.is_file():
        return f"log: {log}"
    return f"details: {folder / 'check.txt'}"


def table(verdicts: list[Verdict], checks_dir: Path) -> str:
    cells = [["\n".join(printable(line) for line in row[column].split("\n"))
              for column in COLUMNS] for row in rows(verdicts, checks_dir)]
    return tabulate(cells, headers=list(COLUMNS), disable_numparse=True)


def record(verdicts: list[Verdict], checks_dir: Path) -> None:
    """Each verdict into ``checks_dir/FOLDER/check.txt`` (beside the bot's log of its
    check), and the table of all of them into ``checks_dir/entrants.txt``."""
    try:
        for verdict in verdicts:
            folder = checks_dir / verdict.folder.name
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "check.txt").write_text(check_text(verdict))
        (checks_dir / "entrants.txt").write_text(table(verdicts, checks_dir) + "\n")
    except OSError as error:
        raise SubmissionError(f"cannot write {error.filename or checks_dir}: "
                              f"{error.strerror}") from None


def check_text(verdict: Verdict) -> str:
    """One submission's verdict, its reason and check-bot's lines, for its author."""
    lines = [f"submission: {verdict.folder}"]
    if verdict.entrant is not None:
        entrant = verdict.entrant
        lines += [f"entrant: {entrant.name}, by {entrant.author}, in {entrant.language}",
                  f"command: {entrant.command}"]
    lines.append("verdict: passed" if verdict.passed else f"verdict: refused: {verdict.refused}")
    if verdict.checks:
        lines += ["", "check-bot:", *(check.line() for check in verdict.checks),
                  verdict.covered]
    return "\n".join(printable(line) for line in lines) + "\n"


def config_text(data: dict[str, Any], submissions: Path, verdicts: list[Verdict]) -> str:
    """The config as YAML, under a comment saying what made it."""
    passed = sum(verdict.passed for verdict in verdicts)
    head = (f"# made by `circus-referee submissions` from {submissions}: {passed} of "
            f"{len(verdicts)} entrants passed check-bot\n")
    return head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
