"""What a stored tournament's report and the command line's boards say of it in words:
how it ended (an A/B test, an early stop, a Swiss's rounds), its changes of the field,
what is withheld, and who the bots were (their identities, transports and code).

One definition each, for the report (:mod:`pages.assembly`), the leaderboard, the
tournament's closing summary and the stored records' tables alike.
"""

from __future__ import annotations

from pathlib import Path

from ratings import rounds
from ratings.board import RoundHistory
from ratings.sprt import SprtResult
from tournaments.fingerprint import code_text
from tournaments.packs import reached
from tournaments.standings import stored_ab_test
from tournaments.store import Store, StoredTournament


def remembering(record: StoredTournament) -> list[str]:
    """The bots that keep memory across games (``memory: true`` or ``address:``)."""
    return [bot["name"] for bot in record.config.get("bots", [])
            if bot.get("memory") or (bot.get("memory") is None and bot.get("address"))]


def memory_note(record: StoredTournament) -> str:
    return (f"memory across games: {', '.join(remembering(record))} (their games were dealt "
            "deals of their own, not shared with other seat rotations)")


def ab_line(record: StoredTournament, test: SprtResult) -> str:
    """An A/B test's result, for the summary and the leaderboard."""
    bounds = record.config["sprt"]
    return (f"A/B test: a={record.config['a']} against b={record.config['b']}, "
            f"elo0={bounds['elo0']:g} elo1={bounds['elo1']:g} alpha={bounds['alpha']:g} "
            f"beta={bounds['beta']:g}\n{test.line()}")


def stopped_note(store: Store, record: StoredTournament) -> str | None:
    """Whether a finished tournament stopped before its last scheduled game."""
    played = len(store.done_indices(record.name))
    if record.finished_at is None or played >= record.total_games:
        return None
    return (f"stopped early after {played:,} of {record.total_games:,} scheduled games "
            f"({record.total_games - played:,} not needed)")


def verdicts(store: Store, record: StoredTournament,
             history: RoundHistory | None = None) -> list[str]:
    """What ended the tournament, for the leaderboard and the report: an A/B test's
    result, an early stop; with ``history``, a Swiss's rounds and how the stop rule
    ended (or that it did not fire, and why)."""
    test = stored_ab_test(store, record)
    notes = [ab_line(record, test)] if test is not None else []
    stopped = stopped_note(store, record)
    notes += [stopped] if stopped is not None else []
    if history is not None and history.swiss:
        notes.append(rounds.summary(history))
    if history is not None and history.stop_rule is not None:
        notes.append(history.stop_rule)
    return notes


def told_by_round(record: StoredTournament) -> bool:
    """Whether the leaderboard and the report say how the rounds went: a Swiss's are
    paired from the standings, a stop rule is checked at each round's end."""
    return record.config.get("format") == "swiss" or bool(record.config.get("stop"))


def change_notes(store: Store, record: StoredTournament) -> list[str]:
    """The changes of the field applied to a tournament, for its leaderboard and report."""
    changes = store.changes(record.name)
    if not changes:
        return []
    return ["changes of the field:\n" + "\n".join(
        f"  {number}. {at}\n" + "\n".join(f"     {line}" for line in lines)
        for number, (at, lines) in enumerate(changes, 1))]


def withheld_notes(count: int, what: str) -> list[str]:
    """Why ``count`` games' ``what`` (replays, seeds) are left out, if any are."""
    if not count:
        return []
    return [f"{what} of {count} game(s) withheld: the tournament is not finished and their "
            "deals are still to be dealt in other seat rotations (make it again once the "
            "tournament is finished)"]


def code_column(store: Store, record: StoredTournament) -> dict[str, str]:
    """Each bot's code fingerprint as the leaderboard shows it."""
    return {bot: code_text(digests) for bot, digests in store.codes(record.name).items()}


def transports(record: StoredTournament) -> dict[str, str]:
    """How the referee reached each bot (grpc, stdio or in-process), from the stored config
    (one stored before the stdio transport had gRPC and in-process bots only), and the bots'
    logs (a gRPC bot that fell back from its Play stream to unary calls)."""
    log_dir = Path(record.log_dir or ".")
    return {bot["name"]: reached(log_dir, bot["name"], "in-process" if bot.get("python")
                                 else bot.get("transport") or "grpc")
            for bot in record.config.get("bots") or []}


def identities(store: Store, record: StoredTournament) -> dict[str, str]:
    """Each bot's own name and version from its Hello, and its transport, as the report
    shows them."""
    ways = transports(record)
    return {bot: f"{name} {version} (protocol {protocol}, {ways.get(bot, 'grpc')})"
            for bot, (name, version, protocol) in store.identities(record.name).items()}
