"""TrueSkill updates of many independent two-player games at once, on numpy arrays.

The bootstrap of the rank ranges replays hundreds of resampled game logs; at each
step every resample rates one game. Those games are independent, so two-player
games are rated for all resamples in one pass of array arithmetic. With one
difference factor, the package's message passing ends after a single step, whose
result is the textbook two-player update (Herbrich, Minka and Graepel 2006): the
same numbers as :class:`ratings.fast_trueskill.FastTrueSkill` up to rounding
(tests: within 1e-9). Larger tables iterate a schedule whose per-game stopping
rule makes arrays no faster than the scalar replica, which rates them.
"""

from __future__ import annotations

import math

import numpy as np

from ratings.fast_trueskill import FastTrueSkill
from ratings.params import RatingConfig

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_WINNER_LOSER = np.array([1.0, -1.0])


def _erfc(x: np.ndarray) -> np.ndarray:
    """The trueskill package's erfc (its own approximation, as the scalar replica
    uses) on every entry."""
    z = np.abs(x)
    t = 1. / (1. + z / 2.)
    r = t * np.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (
        0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (
            0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
                -0.82215223 + t * 0.17087277)))))))))
    return np.where(x < 0, 2. - r, r)


class BatchTrueSkill:
    """``rate`` for a batch of two-player games with one-player teams."""

    def __init__(self, params: RatingConfig | None = None) -> None:
        self.params = params or RatingConfig()
        self.beta2 = self.params.beta ** 2
        self.tau2 = self.params.tau ** 2
        self.eps = FastTrueSkill(self.params).draw_margin()

    def rate(self, mu: np.ndarray, sigma: np.ndarray, ranks: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
        """New (mu, sigma), shape (games, 2) like the inputs; lower rank is better."""
        if mu.ndim != 2 or mu.shape[1] != 2:
            raise ValueError("BatchTrueSkill rates two-player games")
        swap = ranks[:, 1] < ranks[:, 0]
        order = np.where(swap[:, None], [1, 0], [0, 1])
        rows = np.arange(mu.shape[0])[:, None]
        new_mu_o, new_sigma_o = self.rate_sorted(mu[rows, order], sigma[rows, order],
                                                 ranks[:, 0] == ranks[:, 1])
        new_mu, new_sigma = np.empty_like(mu), np.empty_like(sigma)
        new_mu[rows, order], new_sigma[rows, order] = new_mu_o, new_sigma_o
        return new_mu, new_sigma

    def rate_sorted(self, mu: np.ndarray, sigma: np.ndarray, tie: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`rate` with the better player first in every row; ``tie`` per row.
        Callers that rate the same games many times sort them once."""
        var = sigma * sigma + self.tau2
        c2 = var[:, 0] + var[:, 1] + 2 * self.beta2
        c = np.sqrt(c2)
        v, w = _truncate((mu[:, 0] - mu[:, 1]) / c, self.eps / c, tie)
        new_mu = mu + var / c[:, None] * v[:, None] * _WINNER_LOSER
        new_sigma = np.sqrt(var * (1.0 - var / c2[:, None] * w[:, None]))
        return new_mu, new_sigma


def _truncate(t: np.ndarray, margin: np.ndarray, tie: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """The truncation factor's v and w: a win (t > margin) or a draw (|t| < margin)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = t - margin
        denom = 0.5 * _erfc(-x * _INV_SQRT2)
        v = np.where(denom != 0, _INV_SQRT_2PI * np.exp(-x * x / 2.0) / denom, -x)
        w = v * (v + x)
        bad = ~tie & ~((w > 0) & (w < 1))
        if tie.any():
            abs_t = np.abs(t)
            x1, x2 = margin - abs_t, -margin - abs_t
            denom_draw = 0.5 * _erfc(-x1 * _INV_SQRT2) - 0.5 * _erfc(-x2 * _INV_SQRT2)
            p1 = _INV_SQRT_2PI * np.exp(-x1 * x1 / 2.0)
            p2 = _INV_SQRT_2PI * np.exp(-x2 * x2 / 2.0)
            v_abs = (p2 - p1) / denom_draw
            v = np.where(tie, np.where(t < 0, -v_abs, v_abs), v)
            w = np.where(tie, v_abs * v_abs + (x1 * p1 - x2 * p2) / denom_draw, w)
            bad |= tie & (denom_draw == 0)
    if bad.any():
        raise FloatingPointError("TrueSkill update out of floating-point range")
    return v, w
