"""What a published report shows of a tournament: its config without what is private.

A stored config holds what the organiser's machine needs to run the bots: each bot's
``env:`` values (an API token), absolute paths (its command's files, ``dir:``,
``mounts:``, the logs folder) and addresses (``address:``, ``cluster:``). A public copy
(``report --public``) shows the names of the env variables, never their values; each bot
by its name, never its folder (an entrant's folder may be named for a student: a
command's files relative to the bot's own folder, a mount by its last part); other paths
relative to the config's folder (one outside it by its last part only); and no address. Free text a bot wrote (a fault's detail quotes its error) may hold the same
things, so the finished pages are scrubbed of them too (:class:`Redactor`).
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Iterable, Mapping

#: What stands in for a value left out.
HIDDEN = "•••"
#: Env values shorter than this are not scrubbed from free text (a "1" is no secret, and
#: replacing every "1" would garble the page); they are never shown as config either.
SHORTEST_SECRET = 4
# An absolute path in a command line: from a "/" not inside a word, to a space or quote.
_ABSOLUTE = re.compile(r"(?<![\w.~-])/[^\s'\"]*")
# Keys of a bot entry shown as they are (the rest are rewritten or left out).
_BOT_KEYS_KEPT = ("name", "sandbox", "memory", "debug", "time")


def private_parts(config: Mapping[str, Any]) -> list[str]:
    """What of ``config`` a report would show that a public one leaves out, in words
    (empty: nothing)."""
    bots = config.get("bots", [])
    found = []
    if any(bot.get("env") for bot in bots):
        found.append("the bots' env: values")
    if any(bot.get("command") or bot.get("dir") or bot.get("mounts") for bot in bots):
        found.append("paths on this machine")
    if config.get("cluster") or any(bot.get("address") for bot in bots):
        found.append("addresses")
    return found


def public_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` as a public report shows it."""
    shown = {key: value for key, value in config.items() if key not in ("bots", "cluster")}
    if config.get("cluster"):
        shown["cluster"] = HIDDEN
    shown["bots"] = [public_bot(bot) for bot in config.get("bots", [])]
    return shown


def public_bot(bot: Mapping[str, Any]) -> dict[str, Any]:
    """One bot entry without env values, its folder, absolute paths or its address."""
    folder = bot.get("dir") or bot.get("cwd")
    shown = {key: bot[key] for key in _BOT_KEYS_KEPT if bot.get(key) is not None}
    if bot.get("command"):
        shown["command"] = public_command(bot["command"], folder)
    if bot.get("python"):
        shown["python"] = public_command(bot["python"], folder)
    if bot.get("address"):
        shown["address"] = HIDDEN
    if bot.get("mounts"):
        shown["mounts"] = [PurePosixPath(mount).name for mount in bot["mounts"]]
    if bot.get("env"):
        shown["env"] = {name: HIDDEN for name, _ in bot["env"]}
    return shown


def public_command(command: str, folder: str | None) -> str:
    """A command line with each absolute path in it made :func:`relative`."""
    return _ABSOLUTE.sub(lambda match: relative(match.group(0), folder), command)


def relative(path: str, folder: str | None) -> str:
    """``path`` relative to the config's ``folder``, or by its last part only (after
    "…/") when it lies outside."""
    given = PurePosixPath(path)
    if not given.is_absolute():
        return path
    if folder is not None and given.is_relative_to(folder):
        return given.relative_to(folder).as_posix()
    return f"…/{given.name}" if given.name else "…"


@dataclass(frozen=True)
class Redactor:
    """Scrubs a finished page (HTML, its embedded JSON) of a tournament's secrets (env
    values) and of its folders (a bot's own folder left out, the others as paths relative
    to the config's folder)."""

    secrets: tuple[str, ...]
    # Folder prefixes and what replaces each, longest first.
    folders: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, config: Mapping[str, Any], log_dir: str | None,
           home: str | None = None) -> Redactor:
        bots = config.get("bots", [])
        values = {str(value) for bot in bots for _, value in bot.get("env", [])}
        secrets = {form for value in values if len(value) >= SHORTEST_SECRET
                   for form in _written(value)}
        config_folders = {bot["cwd"] for bot in bots if bot.get("cwd")}
        # A bot's own folder goes, its files named within it, as the config shows them.
        folders = {folder: "" for folder in config_folders | {
            bot["dir"] for bot in bots if str(bot.get("dir", "")).startswith("/")}}
        for path in _paths(bots, log_dir):
            folders.setdefault(path, public_command(path, next(iter(config_folders), None))
                               + "/")
        if home:
            folders.setdefault(home, "~/")
        return cls(tuple(sorted(secrets, key=len, reverse=True)),
                   tuple(sorted(((f"{folder.rstrip('/')}/", shown)
                                 for folder, shown in folders.items()),
                                key=lambda pair: len(pair[0]), reverse=True)))

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, HIDDEN)
        for folder, shown in self.folders:
            text = text.replace(folder, shown)
        return text


def _written(value: str) -> set[str]:
    """The forms a value takes in a page: as it is, HTML-escaped, inside a JSON string."""
    return {value, html.escape(value, quote=True), json.dumps(value)[1:-1],
            json.dumps(html.escape(value, quote=True))[1:-1]}


def _paths(bots: Iterable[Mapping[str, Any]], log_dir: str | None) -> list[str]:
    """The folders of this machine a tournament's text may name: each bot's ``dir:`` and
    mounts, and the logs folder."""
    paths = [log_dir] if log_dir else []
    for bot in bots:
        paths += [bot["dir"]] if bot.get("dir") else []
        paths += list(bot.get("mounts") or [])
    return [path for path in paths if path.startswith("/")]
