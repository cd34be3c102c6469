"""The leaderboard and its companion tables as text: table, markdown, json or csv.

``table`` and ``markdown`` are for people (the leaderboard is followed by the
rating parameters and how the rank ranges were made); ``json`` and ``csv``
are for programs. ``docs/ratings.md`` explains every column.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Mapping, Sequence

from tabulate import tabulate

from ratings.board import PROVISIONAL_GAMES, PROVISIONAL_SIGMA, Board, SeatStats, SeatTable
from ratings.collusion import MIN_TABLES, CollusionCheck
from ratings.trueskill_ratings import Row
from ratings.verdict import Verdict

FORMATS = ("table", "json", "csv", "markdown")
_TABLEFMT = {"table": "simple", "markdown": "github"}


def _tabulate(rows: list[list[Any]], headers: Sequence[str], fmt: str, **options: Any) -> str:
    return tabulate(rows, headers=list(headers), tablefmt=_TABLEFMT[fmt], disable_numparse=True,
                    **options)


def csv_value(value: Any) -> Any:
    """A cell as spreadsheets read it: booleans TRUE/FALSE, lists joined by "; ",
    mappings as JSON, missing values empty."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (list, tuple)):
        return "; ".join(str(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return "" if value is None else value


def csv_text(dicts: Sequence[dict[str, Any]], fieldnames: Sequence[str]) -> str:
    """Rows as CSV with a header, every cell through :func:`csv_value`."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(fieldnames), lineterminator="\n")
    writer.writeheader()
    writer.writerows({key: csv_value(value) for key, value in row.items()} for row in dicts)
    return buffer.getvalue().rstrip("\n")


def rank_range(row: Row) -> str:
    return str(row.rank_low) if row.rank_low == row.rank_high else \
        f"{row.rank_low}-{row.rank_high}"


def fault_text(faults: dict[str, int]) -> str:
    if not faults:
        return "0"
    return ", ".join(f"{count} {kind}" for kind, count in sorted(faults.items()))


# -- the leaderboard ---------------------------------------------------------------

def row_dict(row: Row) -> dict[str, Any]:
    return {
        "rank": row.rank, "rank_low": row.rank_low, "rank_high": row.rank_high, "bot": row.bot,
        "mu": row.mu, "mu_low": row.mu - row.interval, "mu_high": row.mu + row.interval,
        "sigma": row.sigma, "mu_sd_bootstrap": row.boot_sd, "conservative": row.conservative,
        "conservative_low": row.boot_low, "conservative_high": row.boot_high,
        "games": row.games, "provisional": row.provisional, "wins": row.wins,
        "win_rate": row.win_rate, "mean_place": row.mean_place, "norm_score": row.norm_score,
        "ties": row.ties, "faults": dict(sorted(row.faults.items())),
    }


def verdict_data(found: Verdict) -> dict[str, Any]:
    """The deal sets' verdict as JSON-ready data."""
    return {"settled": found.certified, "order": found.order, "confidence": found.confidence,
            "deal_sets": found.deal_sets, "line": found.line(),
            "neighbours": [{"upper": upper, "lower": lower, "evidence": evidence,
                            "comparisons": compared}
                           for upper, lower, evidence, compared in found.neighbours],
            "needed": found.needed,
            "rival": None if found.rival is None else
            {"order": found.rival[0], "evidence_against": found.rival[1]}}


def leaderboard_rows(board: Board | Sequence[Row]) -> list[dict[str, Any]]:
    return [row_dict(row) for row in board]


def footer(board: Board) -> str:
    """The lines under a leaderboard: parameters, the rank-range method, the marks."""
    lines = [board.parameters(), board.method()]
    verdict = board.verdict_line()
    if verdict is not None:
        lines.append(verdict)
    if board.void_games:
        lines.append(f"{board.void_games} void game(s) are not rated")
    if any(row.provisional for row in board):
        lines.append(f"* provisional: fewer than {PROVISIONAL_GAMES} games or sigma above "
                     f"{PROVISIONAL_SIGMA * board.params.sigma:.3g}")
    return "\n".join(lines)


def format_board(board: Board | Sequence[Row], fmt: str,
                 fault_classes: Sequence[str] = (), code: Mapping[str, str] | None = None
                 ) -> str:
    """The board as table, markdown, json or csv.

    CSV has a ``faults_<class>`` column for each of ``fault_classes`` (the referee's
    classes, so every export has the same columns) and for any other class counted.
    ``code``: a last column, "code", with what code each bot played (its fingerprint).
    """
    if fmt == "json":
        return json.dumps(leaderboard_rows(board), indent=2)
    if fmt == "csv":
        dicts = []
        entries = leaderboard_rows(board)
        counted = {kind for entry in entries for kind in entry["faults"]}
        kinds = [*fault_classes, *sorted(counted - set(fault_classes))]
        for entry in entries:
            faults = entry.pop("faults")
            entry["faults"] = sum(faults.values())
            for kind in kinds:
                entry[f"faults_{kind}"] = faults.get(kind, 0)
            if code is not None:
                entry["code"] = code.get(entry["bot"], "")
            dicts.append(entry)
        names = list(dicts[0]) if dicts else ["bot"]
        return csv_text(dicts, names)
    table = [[row.rank, rank_range(row), row.bot, f"{row.mu:.2f} ± {row.interval:.2f}",
              f"{row.sigma:.2f}", f"{row.conservative:.2f}",
              f"{row.games}{'*' if row.provisional else ''}", row.wins,
              f"{100 * row.win_rate:.1f}%", f"{row.mean_place:.2f}", f"{row.norm_score:.3f}",
              row.ties, fault_text(row.faults),
              *([code.get(row.bot, "")] if code is not None else [])]
             for row in board]
    headers = ["rank", "range", "bot", "mu ± 95%", "sigma", "mu-3σ", "games", "wins",
               "win rate", "mean place", "norm. score", "ties", "faults",
               *(["code"] if code is not None else [])]
    text = _tabulate(table, headers, fmt, colalign=("right", "left", "left", "right", "right",
                                                     "right", "right", "right", "right",
                                                     "right", "right", "right", "left",
                                                     "left"))
    if isinstance(board, Board):
        notes = footer(board)
        if fmt == "markdown":   # hard line breaks; a leading * would start a list
            notes = "\n".join(f"{line}  " for line in notes.replace("* ", "\\* ").splitlines())
        text += "\n\n" + notes
    return text


# -- head to head ------------------------------------------------------------------

def h2h_rows(board: Board) -> list[dict[str, Any]]:
    return [{"a": p.a, "b": p.b, "games": p.games, "a_ahead": p.a_ahead, "b_ahead": p.b_ahead,
             "ties": p.ties, "observed": p.observed, "predicted": p.predicted}
            for p in board.h2h]


def format_h2h(board: Board, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(h2h_rows(board), indent=2)
    if fmt == "csv":
        return csv_text(h2h_rows(board), ["a", "b", "games", "a_ahead", "b_ahead", "ties",
                                      "observed", "predicted"])
    table = [[p.a, p.b, p.games, p.a_ahead, p.b_ahead, p.ties, f"{100 * p.observed:.1f}%",
              f"{100 * p.predicted:.1f}%"] for p in board.h2h]
    text = _tabulate(table, ["bot A", "bot B", "games", "A ahead", "B ahead", "ties",
                             "A's share", "predicted"], fmt,
                     colalign=("left", "left", "right", "right", "right", "right", "right",
                               "right"))
    note = ("A's share: how often A finished ahead of B, a tie counting half; predicted: "
            "P(A ahead of B) from the ratings")
    return f"{text}\n\n{note}"


# -- likelihood of superiority -----------------------------------------------------

def format_los(board: Board, fmt: str) -> str:
    bots = board.bots
    if fmt == "json":
        return json.dumps([{"bot": a, "los": {b: board.los[a, b] for b in bots if b != a}}
                           for a in bots], indent=2)
    if fmt == "csv":
        return csv_text([{"bot": a, **{b: "" if a == b else f"{board.los[a, b]:.4f}"
                                       for b in bots}} for a in bots], ["bot", *bots])
    table = [[a, *("—" if a == b else f"{board.los[a, b]:.3f}" for b in bots)] for a in bots]
    text = _tabulate(table, ["P(row > column)", *bots], fmt,
                     colalign=("left", *("right",) * len(bots)))
    return f"{text}\n\nLOS: the probability that the row bot's skill is above the column bot's"


# -- seats ---------------------------------------------------------------------------

def seat_dict(table: SeatTable) -> dict[str, Any]:
    def stats(entries: list[SeatStats]) -> list[dict[str, Any]]:
        return [{"seat": seat, "games": s.games, "wins": s.wins, "win_rate": s.win_rate,
                 "mean_place": s.mean_place} for seat, s in enumerate(entries)]
    return {"players": table.players, "games": table.games, "overall": stats(table.overall),
            "bots": {bot: stats(entries) for bot, entries in table.by_bot.items()},
            "test": {"name": "friedman", "statistic": table.statistic, "df": table.df,
                     "p_value": table.p_value}}


def seat_verdict(table: SeatTable) -> str:
    verdict = "seat bias at the 5% level" if table.p_value < 0.05 else \
        "no evidence of seat bias at the 5% level"
    return (f"Friedman test, places by seat over {table.games} games: chi² = "
            f"{table.statistic:.2f}, df = {table.df}, p = {table.p_value:.3g} ({verdict})")


def format_seats(board: Board, fmt: str) -> str:
    if fmt == "json":
        return json.dumps([seat_dict(table) for table in board.seats], indent=2)
    if fmt == "csv":
        dicts = []
        for table in board.seats:
            groups = [("(all)", table.overall), *table.by_bot.items()]
            for bot, entries in groups:
                for seat, s in enumerate(entries):
                    dicts.append({"players": table.players, "bot": bot, "seat": seat,
                                  "games": s.games, "wins": s.wins, "win_rate": s.win_rate,
                                  "mean_place": s.mean_place})
        return csv_text(dicts, ["players", "bot", "seat", "games", "wins", "win_rate",
                            "mean_place"])
    parts = []
    order = {bot: index for index, bot in enumerate(board.bots)}
    for table in board.seats:
        seats = range(table.players)
        rows = [["all bots", *(f"{s.mean_place:.2f} / {100 * s.win_rate:.0f}%"
                               for s in table.overall)]]
        for bot, entries in sorted(table.by_bot.items(), key=lambda item: order.get(item[0], 0)):
            rows.append([bot, *(f"{s.mean_place:.2f} / {100 * s.win_rate:.0f}%"
                                if s.games else "-" for s in entries)])
        parts.append(f"{table.players}-player games: mean place / win rate by seat "
                     f"(seat 0 moves first)\n\n"
                     + _tabulate(rows, ["bot", *(f"seat {seat}" for seat in seats)], fmt,
                                 colalign=("left", *("right",) * table.players))
                     + "\n\n" + seat_verdict(table))
    return "\n\n".join(parts) if parts else "no rated games"


# -- history -------------------------------------------------------------------------

def history_rows(board: Board, bot: str) -> list[dict[str, Any]]:
    return [{"game_id": point.game_id, "opponents": list(point.opponents),
             "players": point.players, "place": point.place, "mu": point.mu,
             "sigma": point.sigma, "conservative": point.conservative}
            for point in board.history.get(bot, [])]


def format_history(board: Board, bot: str, fmt: str) -> str:
    rows = history_rows(board, bot)
    if fmt == "json":
        return json.dumps(rows, indent=2)
    if fmt == "csv":
        return csv_text(rows, ["game_id", "opponents", "players", "place", "mu", "sigma",
                               "conservative"])
    table = [[number, r["game_id"], f"{r['place']}/{r['players']}", ", ".join(r["opponents"]),
              f"{r['mu']:.2f}", f"{r['sigma']:.2f}", f"{r['conservative']:.2f}"]
             for number, r in enumerate(rows, 1)]
    return (f"{bot}: rating after each of its {len(rows)} rated games "
            f"(game id: see `circus-referee replay`)\n\n"
            + _tabulate(table, ["#", "game id", "place", "opponents", "mu", "sigma", "mu-3σ"],
                        fmt, colalign=("right", "right", "right", "left", "right", "right",
                                       "right")))


# -- collusion -------------------------------------------------------------------------

COLLUSION_COLUMNS = ["a", "b", "together", "a_apart", "b_apart", "tested", "shift_a",
                     "shift_b", "statistic", "p_value", "adjusted", "flagged"]


def collusion_rows(check: CollusionCheck) -> list[dict[str, Any]]:
    return [{column: getattr(pair, column) for column in COLLUSION_COLUMNS}
            for pair in check.pairs]


def collusion_verdict(check: CollusionCheck) -> str:
    """One line: which pairs are flagged, or that none is, of how many tested, and at
    what error rate."""
    if check.untested:
        return f"collusion: not tested ({check.untested})"
    left = len(check.pairs) - check.tested
    method = (f"{check.tested} of {len(check.pairs)} pairs tested, Holm-corrected, family-wise "
              f"alpha {check.alpha:g}; results against the same opponents, together − apart")
    if left:
        method += (f"; {left} not tested, so no p-value (fewer than {MIN_TABLES} tables "
                   "together or apart for a bot, or no spread in its results)")
    if not check.flagged:
        return f"collusion: no pair flagged ({method})"
    named = ", ".join(f"{pair.a} & {pair.b} (p {pair.adjusted:.2g})" for pair in check.flagged)
    return f"collusion: FLAGGED {named} ({method})"


def format_collusion(check: CollusionCheck, fmt: str) -> str:
    if fmt == "json":
        return json.dumps({"alpha": check.alpha, "untested": check.untested,
                           "pairs_tested": check.tested,
                           "pairs_untested": len(check.pairs) - check.tested,
                           "pairs": collusion_rows(check)}, indent=2)
    if fmt == "csv":
        return csv_text(collusion_rows(check), COLLUSION_COLUMNS)
    rows = [[f"{pair.a} & {pair.b}", pair.together, f"{pair.a_apart} / {pair.b_apart}",
             *("-" if shift is None else f"{shift:+.3f}"
               for shift in (pair.shift_a, pair.shift_b)),
             "-" if pair.statistic is None else f"{pair.statistic:.2f}",
             "not tested" if pair.adjusted is None else f"{pair.adjusted:.3g}",
             "FLAGGED" if pair.flagged else ""]
            for pair in check.pairs]
    table = _tabulate(rows, ["pair", "tables together", "apart (a / b)", "shift a", "shift b",
                             "T²", "p (Holm)", ""], fmt,
                      colalign=("left", *("right",) * 6, "left")) if rows else ""
    return "\n\n".join(part for part in (table, collusion_verdict(check)) if part)
