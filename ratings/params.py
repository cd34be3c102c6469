"""The TrueSkill parameters of a rating run."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RatingConfig:
    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 25.0 / 300
    draw_probability: float = 0.10
