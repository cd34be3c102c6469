"""Figures and the tables they are printed in."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Iterable


@dataclass
class Section:
    """One benchmark's table, its named figures and notes."""

    key: str
    title: str
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    # Every number the benchmark produced, by a stable name (the smoke test checks them).
    figures: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    failed: bool = False

    def add(self, *cells: Any) -> None:
        self.rows.append(list(cells))

    def markdown(self) -> str:
        lines = [f"### {self.title}", ""]
        if self.rows:
            lines += table(self.columns, self.rows)
            lines.append("")
        lines += [f"- {note}" for note in self.notes]
        if self.notes:
            lines.append("")
        lines.append(f"_({self.seconds:.1f} s)_")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {"title": self.title, "columns": self.columns,
                "rows": [[cell_text(cell) for cell in row] for row in self.rows],
                "figures": self.figures, "notes": self.notes, "seconds": self.seconds}


def cell_text(value: Any) -> str:
    if isinstance(value, float):
        if value != value:  # NaN: not measured
            return "–"
        if abs(value) >= 100:
            return f"{value:,.0f}"
        if abs(value) >= 10:
            return f"{value:.1f}"
        return f"{value:.2f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def table(columns: list[str], rows: Iterable[list[Any]]) -> list[str]:
    text_rows = [[cell_text(cell) for cell in row] for row in rows]
    numeric = [all(_is_number(row[i]) for row in text_rows if i < len(row))
               for i in range(len(columns))]
    head = "| " + " | ".join(columns) + " |"
    rule = "|" + "|".join("---:" if numeric[i] else "---" for i in range(len(columns))) + "|"
    body = ["| " + " | ".join(row) + " |" for row in text_rows]
    return [head, rule, *body]


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", "").rstrip("×%x"))
        return True
    except ValueError:
        return text == "–"


def median(values: Iterable[float]) -> float:
    values = list(values)
    return statistics.median(values) if values else float("nan")


def spread(values: Iterable[float]) -> str:
    """min–max of the repeats, for the reader to judge the noise."""
    values = list(values)
    if len(values) < 2:
        return "–"
    return f"{min(values):,.0f}–{max(values):,.0f}"


def machine_markdown(info: dict[str, str]) -> str:
    return "\n".join(["### Machine", "", *table(["", ""], [[k, v] for k, v in info.items()])])
