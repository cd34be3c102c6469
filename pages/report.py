"""The tournament report: one self-contained HTML file.

Everything is inline (CSS, a small script, the data as JSON); nothing is
fetched, so the file opens offline and can be mailed or archived. The tables
and matrices are plain HTML, coloured here; the rating chart is drawn as SVG
by the page's script from the embedded data (with hover read-outs and a
legend that shows or hides each bot).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Mapping, Protocol, Sequence

from circus_outcomes import GameStatus
from ratings.board import Board, RoundHistory, RoundRecord, SeatStats, SeatTable
from ratings.collusion import CollusionCheck
from ratings.formatting import collusion_verdict, fault_text, footer, rank_range, seat_verdict
from ratings.time_use import TimedGame, TimeUse, time_use


class ReportedTournament(Protocol):
    """What the report shows of a tournament (read-only: a stored one fits)."""

    @property
    def name(self) -> str: ...
    @property
    def config(self) -> Mapping[str, Any]: ...
    @property
    def total_games(self) -> int: ...
    @property
    def created_at(self) -> str: ...
    @property
    def finished_at(self) -> str | None: ...


class ReportedGame(TimedGame, Protocol):
    """What the report's figures read of one game (read-only: a stored one fits)."""

    @property
    def status(self) -> str: ...
    @property
    def end_reason(self) -> str: ...
    @property
    def duration_s(self) -> float: ...
    @property
    def actions(self) -> Sequence[int]: ...


@dataclass(frozen=True)
class GameRow:
    """One row of the games table; ``replay`` is a link to the game's replay, if written."""

    id: int
    index: int
    seats: list[str]
    scores: list[int]
    ranks: list[int]
    status: str
    end_reason: str
    decisions: int
    duration_s: float
    faults: int
    replay: str | None = None


@dataclass(frozen=True)
class FaultRow:
    """One fault, with a link to its decision in the game's replay, if written."""

    game_id: int
    game_index: int
    seat: int
    bot: str
    decision: int
    fault_class: str
    policy: str
    detail: str
    replay: str | None = None


@dataclass(frozen=True)
class ReportLinks:
    """What the report shows beyond the board, as plain data from the caller.

    ``end_words`` turns end-reason codes into words (the games know them,
    the report does not).
    """

    games: Sequence[GameRow] = ()
    faults: Sequence[FaultRow] = ()
    end_words: Mapping[str, str] | None = None
    # Per bot: what it calls itself in Hello, e.g. "flea-greedy 1.0 (protocol 1.0.0)".
    identities: Mapping[str, str] | None = None
    # Per bot: the fingerprint of the code it played (tournaments.fingerprint.code_text).
    code: Mapping[str, str] | None = None

#: Most points drawn per bot in the chart; longer histories are thinned evenly.
MAX_CHART_POINTS = 600

PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac"]


def colour(index: int) -> str:
    if index < len(PALETTE):
        return PALETTE[index]
    return f"hsl({(index * 137.508) % 360:.0f}, 55%, 48%)"


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b))  # type: ignore[return-value]


_LOW, _MID, _HIGH = (178, 24, 43), (247, 247, 247), (33, 102, 172)


def diverging(value: float) -> tuple[str, str]:
    """Background and text colour for a share in [0, 1]: red below ½, blue above."""
    value = min(1.0, max(0.0, value))
    rgb = _mix(_MID, _LOW, (0.5 - value) * 2) if value < 0.5 \
        else _mix(_MID, _HIGH, (value - 0.5) * 2)
    strength = abs(value - 0.5) * 2
    return f"rgb({rgb[0]},{rgb[1]},{rgb[2]})", "#fff" if strength > 0.62 else "#1b1f24"


def _thin(points: list[Any], limit: int) -> list[Any]:
    if len(points) <= limit:
        return points
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


def chart_data(board: Board) -> dict[str, Any]:
    """The rating chart's data: per bot, [its games so far, mu, sigma] after each of its games.

    The x axis counts each bot's own games, not the schedule: in a schedule a
    bot sits out some games, and a line drawn by schedule index seems to stop
    early when the bot's last game came before the others'.
    """
    series = []
    prior = [0, board.params.mu, board.params.sigma]
    for index, bot in enumerate(board.bots):
        points = [[played, round(p.mu, 3), round(p.sigma, 3)]
                  for played, p in enumerate(board.history[bot], 1)]
        if not points:
            continue
        series.append({"bot": bot, "colour": colour(index),
                       "points": [prior, *_thin(points, MAX_CHART_POINTS)]})
    most = max((len(h) for h in board.history.values()), default=1)
    return {"series": series, "games": most}


def _when(stamp: str) -> str:
    """An ISO timestamp as 2026-11-29 19:40 UTC (unchanged if it does not parse)."""
    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return str(stamp)
    zone = " UTC" if moment.utcoffset() is not None and not moment.utcoffset() else ""
    return moment.strftime("%Y-%m-%d %H:%M") + zone


# -- sections -------------------------------------------------------------------------

def _figures(board: Board, tournament: ReportedTournament, games: Sequence[ReportedGame],
             end_words: Mapping[str, str]) -> str:
    statuses = Counter(game.status for game in games)
    faults: Counter[str] = Counter()
    for per_bot in board.faults.values():
        faults.update(per_bot)
    played = sum(game.duration_s for game in games)
    wall = ""
    if tournament.finished_at:
        try:
            seconds = (datetime.fromisoformat(tournament.finished_at)
                       - datetime.fromisoformat(tournament.created_at)).total_seconds()
            wall = f"{seconds:,.0f} s"
        except ValueError:
            wall = ""
    decisions = sum(len(game.actions) for game in games) / len(games) if games else 0
    seat = board.seats[0] if board.seats else None
    items = [
        ("bots", len(board.rows)),
        ("games stored", f"{len(games)} of {tournament.total_games}"),
        ("rated", board.rated_games),
        ("void / forfeit", f"{statuses[GameStatus.VOID]} / {statuses[GameStatus.FORFEIT]}"),
        ("faults", sum(faults.values())),
        ("decisions per game", f"{decisions:.1f}"),
        ("game time (sum)", f"{played:,.1f} s"),
        ("wall time", wall or "—"),
        ("seat bias p", f"{seat.p_value:.3g}" if seat else "—"),
        ("resamples", board.resamples),
    ]
    cells = "".join(f'<div class="figure"><div class="value">{_esc(value)}</div>'
                    f'<div class="label">{_esc(label)}</div></div>' for label, value in items)
    reasons = Counter(game.end_reason for game in games)
    ends = "".join(f"<li>{count} × {_esc(end_words.get(reason, reason or 'not ended'))}"
                   f' <span class="pm">({_esc(reason)})</span></li>'
                   for reason, count in reasons.most_common())
    return (f'<div class="figures">{cells}</div><p class="note">How the games ended:</p>'
            f'<ul class="ends">{ends or "<li>—</li>"}</ul>')


def _interval_bar(low: float, high: float, mid: float, lo: float, hi: float, tint: str) -> str:
    """A small inline SVG of an interval on the scale [lo, hi]."""
    width, span = 140, (hi - lo) or 1.0

    def x(value: float) -> float:
        return 4 + (width - 8) * (value - lo) / span
    return (f'<svg class="bar" width="{width}" height="14" viewBox="0 0 {width} 14" '
            f'aria-hidden="true"><line x1="{x(low):.1f}" x2="{x(high):.1f}" y1="7" y2="7" '
            f'stroke="{tint}" stroke-width="4" stroke-linecap="round" opacity="0.45"/>'
            f'<circle cx="{x(mid):.1f}" cy="7" r="3.6" fill="{tint}"/></svg>')


def _nice_ticks(lo: float, hi: float, count: int = 4) -> list[float]:
    """Round values between ``lo`` and ``hi``, about ``count`` of them."""
    span = (hi - lo) or 1.0
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if span / (m * magnitude) <= count)
    first = -(-lo // step) * step
    return [round(first + i * step, 6) for i in range(int((hi - first) / step + 1e-9) + 1)]


def _interval_axis(lo: float, hi: float) -> str:
    """The scale of the interval column: ticks in mu, as wide as the bars below."""
    width, span = 140, (hi - lo) or 1.0
    marks = []
    for value in _nice_ticks(lo, hi):
        x = 4 + (width - 8) * (value - lo) / span
        marks.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="13" y2="18" stroke="#8a939e"/>'
                     f'<text x="{x:.1f}" y="10" text-anchor="middle">{value:g}</text>')
    return (f'<svg class="axis-mu" width="{width}" height="18" viewBox="0 0 {width} 18" '
            f'role="img" aria-label="mu scale from {lo:.1f} to {hi:.1f}">'
            f'<line x1="4" x2="{width - 4}" y1="17.5" y2="17.5" stroke="#8a939e"/>'
            f'{"".join(marks)}</svg>')


def _identity(identity: str | None) -> str:
    """The bot's own name and version under its entry name, when it said them."""
    return f'<small class="identity">{_esc(identity)}</small>' if identity else ""


def _leaderboard(board: Board, identities: Mapping[str, str], code: Mapping[str, str]) -> str:
    rows = list(board)
    lo = min((r.mu - r.interval for r in rows), default=0.0)
    hi = max((r.mu + r.interval for r in rows), default=1.0)
    body = []
    for index, row in enumerate(rows):
        tint = colour(index)
        bar = _interval_bar(row.mu - row.interval, row.mu + row.interval, row.mu, lo, hi, tint)
        provisional = '<span class="prov" title="provisional">*</span>' if row.provisional else ""
        body.append(
            f'<tr><td class="num">{row.rank}</td><td class="num range">{rank_range(row)}</td>'
            f'<td><span class="swatch" style="background:{tint}"></span>{_esc(row.bot)}'
            f'{_identity(identities.get(row.bot))}'
            f'{_identity(code.get(row.bot) and f"code {code[row.bot]}")}</td>'
            f'<td class="num">{row.mu:.2f} <span class="pm">± {row.interval:.2f}</span></td>'
            f'<td>{bar}</td><td class="num">{row.sigma:.2f}</td>'
            f'<td class="num strong">{row.conservative:.2f}</td>'
            f'<td class="num">{row.games}{provisional}</td><td class="num">{row.wins}</td>'
            f'<td class="num">{100 * row.win_rate:.1f}%</td>'
            f'<td class="num">{row.mean_place:.2f}</td>'
            f'<td class="num">{row.norm_score:.3f}</td><td class="num">{row.ties}</td>'
            f'<td>{_esc(fault_text(row.faults))}</td></tr>')
    head = ("<tr><th>rank</th><th>range</th><th>bot</th><th>mu ± 95%</th>"
            f'<th class="interval">mu ± 95% on one scale<br>{_interval_axis(lo, hi)}</th>'

            "<th>sigma</th><th>mu − 3σ</th><th>games</th><th>wins</th><th>win rate</th>"
            "<th>mean place</th><th>norm. score</th><th>ties</th><th>faults</th></tr>")
    notes = footer(board).splitlines()
    return (f'<table class="board"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table>'
            + "".join(f'<p class="note">{_esc(n)}</p>' for n in notes))


#: A matrix cell: its value (the colour), its text and its tooltip; None for a pair that never met.
_Cell = tuple[float, str, str] | None


def _matrix(board: Board, cell: Callable[[str, str], _Cell], caption: str) -> str:
    bots = board.bots
    head = "".join(f'<th class="col"><span>{_esc(b)}</span></th>' for b in bots)
    rows = []
    for a in bots:
        cells = []
        for b in bots:
            if a == b:
                cells.append('<td class="diag"></td>')
                continue
            content = cell(a, b)
            if content is None:
                cells.append('<td class="empty">·</td>')
                continue
            value, text, title = content
            background, ink = diverging(value)
            cells.append(f'<td style="background:{background};color:{ink}" '
                         f'title="{_esc(title)}">{text}</td>')
        rows.append(f'<tr><th class="rowhead">{_esc(a)}</th>{"".join(cells)}</tr>')
    return (f'<table class="matrix"><caption>{_esc(caption)}</caption><thead><tr><th></th>{head}'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table>')


def _h2h(board: Board) -> str:
    def cell(a: str, b: str) -> _Cell:
        pair = board.pair(a, b)
        if pair is None or not pair.games:
            return None
        title = (f"{a} vs {b}: {pair.games} games, {a} ahead {pair.a_ahead}, {b} ahead "
                 f"{pair.b_ahead}, ties {pair.ties}; predicted {100 * pair.predicted:.1f}%")
        return (pair.observed, f'{100 * pair.observed:.0f}%<small>pred '
                               f'{100 * pair.predicted:.0f}%</small>', title)
    counts = sorted({pair.games for pair in board.h2h})
    shared = "no games" if not counts else f"{counts[0]} games per pair" if len(counts) == 1 \
        else f"{counts[0]}–{counts[-1]} games per pair (hover a cell for its count)"
    return _matrix(board, cell, "How often the row bot finished ahead of the column bot "
                                f"(a tie counts half; {shared}); small: what the ratings "
                                "predict")


def _los(board: Board) -> str:
    def cell(a: str, b: str) -> _Cell:
        value = board.los[a, b]
        return value, f"{value:.2f}", f"P(skill of {a} > skill of {b}) = {value:.4f}"
    return _matrix(board, cell, "Likelihood of superiority: P(row bot's skill > column bot's)")


def _seat_table(table: SeatTable, order: Sequence[str]) -> str:
    head = "".join(f"<th>seat {seat}</th>" for seat in range(table.players))

    def cells(entries: Sequence[SeatStats]) -> str:
        return "".join(f'<td class="num">{s.mean_place:.2f} <span class="pm">/ '
                       f'{100 * s.win_rate:.0f}%</span></td>' if s.games else '<td>—</td>'
                       for s in entries)
    rank = {bot: i for i, bot in enumerate(order)}
    rows = [f'<tr class="overall"><th>all bots</th>{cells(table.overall)}</tr>']
    for bot, entries in sorted(table.by_bot.items(), key=lambda item: rank.get(item[0], 0)):
        rows.append(f"<tr><th>{_esc(bot)}</th>{cells(entries)}</tr>")
    return (f'<table class="seats"><caption>{table.players}-player games: mean place / win rate '
            f'by seat (seat 0 moves first)</caption><thead><tr><th></th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table><p class="note">{_esc(seat_verdict(table))}'
            f'</p>')


def _faults(board: Board) -> str:
    kinds = sorted({kind for per_bot in board.faults.values() for kind in per_bot})
    if not kinds:
        return '<p class="note">No faults: every bot answered every decision in time, legally.</p>'
    head = "".join(f"<th>{_esc(k)}</th>" for k in kinds)
    rows = "".join(
        f'<tr><th>{_esc(bot)}</th>'
        + "".join(f'<td class="num">{board.faults.get(bot, {}).get(k, 0)}</td>' for k in kinds)
        + f'<td class="num strong">{sum(board.faults.get(bot, {}).values())}</td></tr>'
        for bot in board.bots)
    return (f'<table class="faults"><thead><tr><th>bot</th>{head}<th>total</th></tr></thead>'
            f'<tbody>{rows}</tbody></table>')


def _collusion(check: CollusionCheck | None) -> str:
    """The flagged pairs, when there are any; else the one line saying how many pairs
    were tested and that none was flagged."""
    if check is None:
        return ""
    if not check.flagged:
        return f'<p class="note">{_esc(collusion_verdict(check))}</p>'
    rows = "".join(
        f'<tr><th>{_esc(pair.a)} &amp; {_esc(pair.b)}</th><td class="num">{pair.together}</td>'
        f'<td class="num">{pair.a_apart} / {pair.b_apart}</td>'
        f'<td class="num">{pair.shift_a:+.3f}</td><td class="num">{pair.shift_b:+.3f}</td>'
        f'<td class="num strong">{pair.adjusted:.2g}</td></tr>'
        for pair in check.flagged)
    verdict = _esc(collusion_verdict(check))
    return (f'<h2 id="collusion">Collusion</h2>\n<p class="verdict">{verdict}'
            '</p>\n<table class="collusion"><thead><tr><th>pair</th><th>tables together</th>'
            '<th>apart (a / b)</th><th>shift a</th><th>shift b</th><th>p (Holm)</th></tr>'
            f'</thead><tbody>{rows}</tbody></table>\n<p class="note">A shift is the bot\'s '
            'mean result against the others at tables with the other, beyond its usual '
            'result against them, minus the same at tables without it (docs/ratings.md, "Collusion").</p>')


def _times(games: Sequence[ReportedGame]) -> str:
    """Each bot's decision times: median and p99 as numbers and as bars on one scale."""
    rows: list[TimeUse] = time_use(games)
    if not rows:
        return '<p class="note">No decision times stored.</p>'
    top = max(row.p99_ms for row in rows) or 1.0
    width = 260

    def bar(row: TimeUse) -> str:
        median, p99 = (width - 4) * row.median_ms / top, (width - 4) * row.p99_ms / top
        return (f'<svg class="bar" width="{width}" height="14" viewBox="0 0 {width} 14" '
                f'aria-hidden="true"><rect x="2" y="5" width="{max(p99, 1):.1f}" height="4" '
                f'fill="#9ecae1"/><rect x="2" y="2" width="{max(median, 1):.1f}" height="10" '
                f'fill="#2166ac"/></svg>')
    body = "".join(
        f'<tr><td>{_esc(r.bot)}</td><td class="num">{r.decisions}</td>'
        f'<td class="num">{r.median_ms:.2f}</td><td class="num">{r.p99_ms:.2f}</td>'
        f'<td class="num">{r.max_ms:.1f}</td><td class="num">{r.total_s:.2f}</td>'
        f"<td>{bar(r)}</td></tr>" for r in rows)
    return (f'<table class="times"><thead><tr><th>bot</th><th>decisions</th><th>median ms</th>'
            f'<th>p99 ms</th><th>max ms</th><th>total s</th><th>median (dark) and p99 (light), '
            f'0–{top:.1f} ms</th></tr></thead><tbody>{body}</tbody></table>')


def _link(href: str | None, text: str) -> str:
    return f'<a href="{_esc(href)}">{_esc(text)}</a>' if href else _esc(text)


def _games_table(rows: Sequence[GameRow], end_words: Mapping[str, str]) -> str:
    """Every game: sortable by a click on a header, filtered by bot; a link to its replay."""
    if not rows:
        return '<p class="note">No games stored.</p>'
    bots = sorted({bot for row in rows for bot in row.seats})
    options = "".join(f'<option value="{_esc(b)}">{_esc(b)}</option>' for b in bots)
    body = []
    for row in rows:
        seats = ", ".join(
            f'<span class="{"win" if rank == 1 else ""}">{_esc(bot)} {score}'
            f'<sup>{rank}</sup></span>' for bot, score, rank in zip(row.seats, row.scores, row.ranks))
        words = end_words.get(row.end_reason, row.end_reason)
        body.append(
            f'<tr data-bots="{_esc(chr(9).join(row.seats))}"><td class="num" data-sort="{row.index}">'
            f'{row.index}</td><td class="num" data-sort="{row.id}">{row.id}</td><td>{seats}</td>'
            f'<td>{_esc(row.status)}</td><td title="{_esc(row.end_reason)}">{_esc(words)}</td>'
            f'<td class="num" data-sort="{row.decisions}">{row.decisions}</td>'
            f'<td class="num" data-sort="{row.duration_s:.6f}">{row.duration_s:.2f}</td>'
            f'<td class="num" data-sort="{row.faults}">{row.faults or ""}</td>'
            f'<td>{_link(row.replay, "replay") if row.replay else "—"}</td></tr>')
    head = "".join(f'<th data-col="{i}" title="sort">{name}</th>' for i, name in enumerate(
        ("#", "game id", "seats: bot score<sup>rank</sup>", "status", "ended", "decisions",
         "seconds", "faults", "replay")))
    return (f'<p class="filter"><label>bot <select id="game-filter"><option value="">every bot'
            f'</option>{options}</select></label> <span class="note" id="game-count"></span> '
            f'<span class="note">Click a column to sort.</span></p>'
            f'<div class="scroll"><table class="games" id="games-table"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def _fault_list(rows: Sequence[FaultRow]) -> str:
    if not rows:
        return ""
    items = "".join(
        f"<li>{_link(row.replay, f'game {row.game_id} (#{row.game_index})')}, decision "
        f"{row.decision}: <b>{_esc(row.bot)}</b> (seat {row.seat}) {_esc(row.fault_class)}, "
        f"{_esc(row.policy)} — {_esc(row.detail)}</li>" for row in rows)
    return f'<h3>Every fault</h3><ol class="fault-list">{items}</ol>'


def _rounds(history: RoundHistory | None) -> str:
    """The rounds: a Swiss's tables and byes, the standings after each round, what the stop
    rule said; the last round open, the others a click away."""
    if history is None:
        return ""
    heading = "Swiss rounds" if history.swiss else "Rounds"
    rule = history.stop_rule or ("No stop rule: every scheduled round is played "
                                 f"({history.planned}).")
    body = "".join(_round(record, record is history.rounds[-1]) for record in history.rounds)
    return (f'<h2 id="rounds">{heading}</h2><p class="note">{len(history.rounds)} of '
            f'{history.planned} rounds played. {_esc(rule)}</p>'
            + (body or '<p class="note">No round played yet.</p>'))


def _round(record: RoundRecord, last: bool) -> str:
    extra = "".join(f" · {label}: {_esc(', '.join(bots))}" for label, bots in
                    (("byes", record.byes), ("left out", record.absent)) if bots)
    tables = "".join(f"<li>{_esc(', '.join(table))}</li>" for table in record.tables)
    rows = "".join(f'<tr><td class="num">{rank}</td><td>{_esc(row.bot)}</td>'
                   f'<td class="num">{row.conservative:.2f}</td>'
                   f'<td class="num">{row.mu:.2f} <span class="pm">σ {row.sigma:.2f}</span>'
                   f'</td><td class="num">{row.games}</td></tr>'
                   for rank, row in enumerate(record.standings, 1))
    standings = (f'<table class="standings"><caption>standings after round {record.number}'
                 f'</caption><thead><tr><th>#</th><th>bot</th><th>mu − 3σ</th><th>mu</th>'
                 f'<th>games</th></tr></thead><tbody>{rows}</tbody></table>')
    paired = (f'<div><p class="note">tables, in seating order</p><ol class="tables">{tables}'
              f'</ol></div>' if tables else "")
    stop = f'<p class="note">stop rule: {_esc(record.stop)}</p>' if record.stop else ""
    return (f'<details class="round"{" open" if last else ""}><summary>Round {record.number}'
            f' · {record.games} games{extra}</summary><div class="round-body">{paired}'
            f'<div>{standings}</div></div>{stop}</details>')


def _config_value(value: Any) -> str:
    if isinstance(value, dict):
        return _config_list(value)
    if isinstance(value, list):
        return "<ol>" + "".join(f"<li>{_config_value(item)}</li>" for item in value) + "</ol>"
    return _esc(value)


def _config_list(config: Mapping[str, Any]) -> str:
    """The configuration as nested lists of its set keys (unset ones are defaults)."""
    items = "".join(f"<dt>{_esc(key)}</dt><dd>{_config_value(value)}</dd>"
                    for key, value in config.items() if value not in (None, {}, []))
    return f'<dl class="config">{items}</dl>'


# -- the page -------------------------------------------------------------------------

CSS = """
:root { --ink:#1b1f24; --muted:#5b6470; --line:#d9dee4; --panel:#f6f8fa; --accent:#2166ac; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans",
       sans-serif; color: var(--ink); background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 32px 60px; }
header h1 { font-size: 26px; margin: 0 0 4px; letter-spacing: -0.01em; }
header .sub { color: var(--muted); margin: 0 0 18px; }
header .verdict { font-weight: 600; margin: -10px 0 14px; white-space: pre-line; }
h2 { font-size: 18px; margin: 34px 0 10px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
.note { color: var(--muted); font-size: 12.5px; margin: 6px 0; }
.figures { display: grid; grid-template-columns: repeat(5, 1fr); gap: 10px; }
.figure { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
.figure .value { font-size: 19px; font-weight: 650; font-variant-numeric: tabular-nums; }
.figure .label { color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 5px 9px; text-align: left; }
thead th { font-size: 12px; color: var(--muted); font-weight: 600; border-bottom: 2px solid var(--line); }
tbody tr { border-bottom: 1px solid #eef1f4; }
td.num, th.num { text-align: right; }
td.strong { font-weight: 650; }
.board { width: 100%; }
.board tbody tr:hover { background: #f3f7fb; }
.pm { color: var(--muted); font-size: 12px; }
.identity { display: block; color: var(--muted); font-size: 11px; margin-left: 16px; }
.range { color: var(--muted); }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 7px; }
.prov { color: #b2182b; font-weight: 700; margin-left: 1px; }
svg.bar { vertical-align: middle; }
.matrices { display: flex; flex-wrap: wrap; gap: 24px 48px; align-items: flex-start; }
.matrices > div { flex: 0 1 auto; max-width: 100%; overflow-x: auto; }
.matrix caption, .seats caption { caption-side: top; text-align: left; color: var(--muted);
       font-size: 12.5px; padding-bottom: 8px; max-width: 520px; }
.matrix td { min-width: 66px; height: 44px; padding: 4px 6px; text-align: center;
       border: 2px solid #fff; font-weight: 600; font-size: 13px; border-radius: 6px; }
.matrix td small { display: block; font-weight: 400; font-size: 10px; opacity: 0.85;
       white-space: nowrap; }
.matrix td.diag { background: repeating-linear-gradient(45deg, #f3f4f6, #f3f4f6 4px, #e9ebee 4px, #e9ebee 8px); }
.matrix td.empty { color: var(--muted); background: #fafafa; }
.matrix th.col { font-size: 12px; text-align: center; color: var(--ink); white-space: nowrap; }
.matrix th.rowhead { font-size: 12.5px; text-align: right; white-space: nowrap; }
.chart-box { border: 1px solid var(--line); border-radius: 10px; padding: 10px 12px 6px; position: relative; }
#chart { width: 100%; height: 420px; display: block; }
#chart .axis text { fill: var(--muted); font-size: 11px; }
#chart .grid line { stroke: #edf0f3; }
#chart .band { opacity: 0.16; }
#chart .mu-line { fill: none; stroke-width: 2; stroke-linejoin: round; }
#chart .hidden { display: none; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 14px; margin: 6px 2px 2px; }
.legend button { border: 1px solid var(--line); background: #fff; border-radius: 14px; padding: 3px 10px;
       font: inherit; font-size: 12.5px; cursor: pointer; }
.legend button.off { opacity: 0.4; text-decoration: line-through; }
.tip { position: absolute; pointer-events: none; background: rgba(27,31,36,0.92); color: #fff;
       font-size: 12px; padding: 6px 8px; border-radius: 6px; white-space: nowrap; display: none; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px;
      font-size: 12px; overflow: auto; max-height: 380px; }
.two { display: grid; grid-template-columns: 1fr 1fr; gap: 24px; align-items: start; }
.ends { margin: 2px 0 0; padding-left: 20px; color: var(--muted); font-size: 12.5px; }
th.interval { white-space: nowrap; }
svg.axis-mu text { font-size: 9.5px; fill: var(--muted); }
.scroll { max-height: 520px; overflow: auto; border: 1px solid var(--line); border-radius: 8px; }
.games { width: 100%; font-size: 13px; }
.games thead th { position: sticky; top: 0; background: #fff; cursor: pointer; user-select: none; }
.games thead th.asc::after { content: " \\25B2"; }
.games thead th.desc::after { content: " \\25BC"; }
.games .win { font-weight: 650; }
.games sup { color: var(--muted); font-size: 9px; margin-left: 1px; }
.filter { margin: 4px 0 8px; }
.fault-list { font-size: 12.5px; padding-left: 22px; max-height: 300px; overflow: auto; }
dl.config { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0;
      font-size: 13px; }
dl.config dt { color: var(--muted); }
dl.config dd { margin: 0; }
dl.config dl.config { font-size: 12.5px; }
dl.config ol { margin: 0; padding-left: 18px; }
details.round { border: 1px solid var(--line); border-radius: 8px; padding: 6px 12px;
      margin: 6px 0; }
details.round summary { cursor: pointer; font-weight: 600; }
.round-body { display: flex; flex-wrap: wrap; gap: 8px 40px; align-items: flex-start; }
ol.tables { font-size: 12.5px; margin: 0; padding-left: 22px; columns: 2; column-gap: 28px; }
.standings { font-size: 12.5px; }
.standings caption { caption-side: top; text-align: left; color: var(--muted); }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
@media (max-width: 900px) { .two { grid-template-columns: 1fr; }
       .figures { grid-template-columns: repeat(2, 1fr); } }
"""

SCRIPT = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("chart-data").textContent);
  var svg = document.getElementById("chart");
  var NS = "http://www.w3.org/2000/svg";
  var W = 1100, H = 420, left = 52, right = 16, top = 14, bottom = 36;
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  function el(name, attrs, parent) {
    var node = document.createElementNS(NS, name);
    for (var key in attrs) node.setAttribute(key, attrs[key]);
    (parent || svg).appendChild(node);
    return node;
  }
  var xMax = Math.max(1, data.games);
  // The y range fits the bands after the first tenth of the games (the opening
  // bands, near the wide prior, run off the plot and are clipped), and all the lines.
  var lo = Infinity, hi = -Infinity;
  data.series.forEach(function (s) {
    s.points.forEach(function (p) {
      lo = Math.min(lo, p[1]); hi = Math.max(hi, p[1]);
      if (p[0] >= xMax / 10) { lo = Math.min(lo, p[1] - p[2]); hi = Math.max(hi, p[1] + p[2]); }
    });
  });
  if (!isFinite(lo)) { lo = 0; hi = 1; }
  var pad = (hi - lo) * 0.05 || 1; lo -= pad; hi += pad;
  function x(v) { return left + (W - left - right) * v / xMax; }
  function y(v) { return top + (H - top - bottom) * (hi - v) / (hi - lo); }
  function ticks(a, b, n) {
    var step = Math.pow(10, Math.floor(Math.log10((b - a) / n)));
    [1, 2, 5, 10].some(function (m) { if ((b - a) / (step * m) <= n) { step *= m; return true; } });
    var out = [];
    for (var v = Math.ceil(a / step) * step; v <= b + 1e-9; v += step) out.push(Math.round(v * 1e6) / 1e6);
    return out;
  }
  var grid = el("g", {"class": "grid"}), axis = el("g", {"class": "axis"});
  ticks(lo, hi, 8).forEach(function (v) {
    el("line", {x1: left, x2: W - right, y1: y(v), y2: y(v)}, grid);
    el("text", {x: left - 8, y: y(v) + 4, "text-anchor": "end"}, axis).textContent = v;
  });
  ticks(0, xMax, 10).forEach(function (v) {
    el("line", {x1: x(v), x2: x(v), y1: top, y2: H - bottom}, grid);
    el("text", {x: x(v), y: H - bottom + 16, "text-anchor": "middle"}, axis).textContent = v;
  });
  el("text", {x: (left + W - right) / 2, y: H - 4, "text-anchor": "middle"}, axis).textContent =
    "games played by the bot";
  el("text", {x: 12, y: (top + H - bottom) / 2, "text-anchor": "middle",
              transform: "rotate(-90 12 " + (top + H - bottom) / 2 + ")"}, axis).textContent = "mu ± sigma";
  var clip = el("clipPath", {id: "plot-area"}, el("defs", {}));
  el("rect", {x: left, y: top, width: W - left - right, height: H - top - bottom}, clip);
  var plot = el("g", {"clip-path": "url(#plot-area)"});
  var groups = {};
  data.series.forEach(function (s) {
    var g = el("g", {"class": "series", "data-bot": s.bot}, plot);
    var upper = s.points.map(function (p) { return x(p[0]).toFixed(1) + "," + y(p[1] + p[2]).toFixed(1); });
    var lower = s.points.slice().reverse().map(function (p) { return x(p[0]).toFixed(1) + "," + y(p[1] - p[2]).toFixed(1); });
    el("path", {"class": "band", d: "M" + upper.join("L") + "L" + lower.join("L") + "Z", fill: s.colour}, g);
    el("path", {"class": "mu-line", stroke: s.colour,
                d: "M" + s.points.map(function (p) { return x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1); }).join("L")}, g);
    groups[s.bot] = g;
  });
  var legend = document.getElementById("legend");
  data.series.forEach(function (s) {
    var b = document.createElement("button");
    b.type = "button";
    b.innerHTML = '<span class="swatch" style="background:' + s.colour + '"></span>';
    b.appendChild(document.createTextNode(s.bot));
    b.addEventListener("click", function () {
      b.classList.toggle("off");
      groups[s.bot].classList.toggle("hidden");
    });
    legend.appendChild(b);
  });
  var cursor = el("line", {y1: top, y2: H - bottom, stroke: "#8a939e", "stroke-dasharray": "3 3", visibility: "hidden"});
  var tip = document.getElementById("tip");
  svg.addEventListener("mousemove", function (event) {
    var box = svg.getBoundingClientRect();
    var game = (event.clientX - box.left) * W / box.width;
    game = (game - left) / (W - left - right) * xMax;
    if (game < 0 || game > xMax) { tip.style.display = "none"; cursor.setAttribute("visibility", "hidden"); return; }
    var lines = ["<b>after game " + Math.round(game) + "</b>"];
    data.series.forEach(function (s) {
      if (groups[s.bot].classList.contains("hidden")) return;
      var last = s.points[0];
      s.points.forEach(function (p) { if (p[0] <= game) last = p; });
      lines.push('<span style="color:' + s.colour + '">\u25A0</span> ' + s.bot + ": " +
                 last[1].toFixed(2) + " \u00B1 " + last[2].toFixed(2));
    });
    tip.innerHTML = lines.join("<br>");
    tip.style.display = "block";
    var parent = svg.parentNode.getBoundingClientRect();
    var px = event.clientX - parent.left, py = event.clientY - parent.top;
    tip.style.left = (px + 180 > parent.width ? px - 190 : px + 14) + "px";
    tip.style.top = Math.max(4, py - 20) + "px";
    cursor.setAttribute("x1", x(game)); cursor.setAttribute("x2", x(game));
    cursor.setAttribute("visibility", "visible");
  });
  svg.addEventListener("mouseleave", function () { tip.style.display = "none"; cursor.setAttribute("visibility", "hidden"); });
  var rect = svg.getBoundingClientRect();
  document.documentElement.setAttribute("data-chart-box", [rect.left + window.scrollX,
    rect.top + window.scrollY, rect.width, rect.height].map(Math.round).join(","));
  document.documentElement.setAttribute("data-chart", "drawn");
  document.documentElement.setAttribute("data-chart-series", String(data.series.length));
})();
"""

TABLE_SCRIPT = r"""
(function () {
  "use strict";
  var table = document.getElementById("games-table");
  if (!table) return;
  var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
  var filter = document.getElementById("game-filter"), count = document.getElementById("game-count");
  function key(row, col) {
    var cell = row.cells[col];
    var sort = cell.getAttribute("data-sort");
    return sort === null ? cell.textContent : Number(sort);
  }
  function show() {
    var bot = filter.value, shown = 0;
    rows.forEach(function (row) {
      var on = !bot || row.getAttribute("data-bots").split("\t").indexOf(bot) >= 0;
      row.style.display = on ? "" : "none";
      shown += on ? 1 : 0;
    });
    count.textContent = shown + " of " + rows.length + " games";
  }
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
    th.addEventListener("click", function () {
      var col = Number(th.getAttribute("data-col")), up = !th.classList.contains("asc");
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (other) {
        other.classList.remove("asc", "desc");
      });
      th.classList.add(up ? "asc" : "desc");
      rows.sort(function (a, b) {
        var x = key(a, col), y = key(b, col);
        return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1);
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
  filter.addEventListener("change", show);
  show();
  document.documentElement.setAttribute("data-games", String(rows.length));
})();
"""

#: The Content-Security-Policy sources of the report's two inline scripts, so that a server
#: may serve it with no other inline script allowed: a bot's name or a game's text that got
#: past the escaping still runs nothing.
SCRIPT_SOURCES = tuple(
    f"'sha256-{base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()}'"
    for script in (SCRIPT, TABLE_SCRIPT))


def render_report(board: Board, tournament: ReportedTournament,
                  games: Sequence[ReportedGame], links: ReportLinks | None = None,
                  notes: Sequence[str] = (), history: RoundHistory | None = None,
                  collusion: CollusionCheck | None = None) -> str:
    """The whole report as one HTML document; ``links`` adds the games table and fault list,
    ``notes`` lines under the title (an A/B test's result, an early stop), ``history`` the
    rounds (a Swiss's pairings, the standings after each round, the stop rule),
    ``collusion`` a section on the pairs it flags (a line when it flags none)."""
    links = links or ReportLinks()
    end_words = links.end_words or {}
    config = tournament.config
    title = f"{tournament.name}: {config.get('game', '?')} tournament report"
    subtitle = (f"{config.get('game')} ({config.get('variant')}), {config.get('players')} players, "
                f"{len(board.rows)} bots, {len(games)} of {tournament.total_games} games · "
                f"started {_when(tournament.created_at)}"
                + (f", finished {_when(tournament.finished_at)}" if tournament.finished_at else
                   " (not finished)"))
    data = json.dumps(chart_data(board), separators=(",", ":")).replace("</", "<\\/")
    seats = "".join(_seat_table(table, board.bots) for table in board.seats) or \
        '<p class="note">No rated games.</p>'
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_esc(title)}</title>
<style>{CSS}</style>
</head>
<body>
<main>
<header>
<h1>{_esc(tournament.name)} <span style="color:var(--muted);font-weight:400">· leaderboard report</span></h1>
<p class="sub">{_esc(subtitle)}</p>
{"".join(f'<p class="verdict">{_esc(note)}</p>' for note in notes)}
</header>
{_figures(board, tournament, games, end_words)}

<h2 id="leaderboard">Leaderboard</h2>
{_leaderboard(board, links.identities or {}, links.code or {})}

<h2 id="ratings">Ratings over the tournament</h2>
<div class="chart-box">
<svg id="chart" role="img" aria-label="mu and sigma of every bot after each game"></svg>
<noscript><p class="note">The chart is drawn by the page's script; enable JavaScript to see it.</p></noscript>
<div class="legend" id="legend"></div>
<div class="tip" id="tip"></div>
</div>
<p class="note">Each line is a bot's mu after each of its own games (so every line runs to the bot's last game); the band is mu ± sigma. Click a name to hide or show it.</p>

{_rounds(history)}

<h2 id="games">Games</h2>
{_games_table(links.games, end_words)}

<h2 id="times">Decision times</h2>
{_times(games)}

<h2 id="matrices">Head to head and likelihood of superiority</h2>
<div class="matrices">
<div>{_h2h(board)}</div>
<div>{_los(board)}</div>
</div>
{_collusion(collusion)}

<h2 id="seats">Seats</h2>
{seats}

<div class="two">
<div>
<h2 id="faults">Faults</h2>
{_faults(board)}
{_fault_list(links.faults)}
</div>
<div>
<h2 id="config">Configuration</h2>
{_config_list(config)}
</div>
</div>

<footer>circus-referee · every column is explained in docs/ratings.md · this file needs no network.</footer>
</main>
<script type="application/json" id="chart-data">{data}</script>
<script>{SCRIPT}</script>
<script>{TABLE_SCRIPT}</script>
</body>
</html>
"""
