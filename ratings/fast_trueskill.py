"""A fast replica of ``trueskill.TrueSkill.rate`` for free-for-all games.

The trueskill package builds a factor graph of objects for every game, which
costs 0.1–0.6 ms per game. Replaying a rating over bootstrap resamples of a
long game log needs millions of updates, so this module runs the very same
message-passing schedule (the package's ``run_schedule``: the same factors,
the same order, the same stopping rule ``delta <= 0.0001`` and at most ten
sweeps) on plain floats, for the only case the referee has: one player per
team, weight 1. Gaussians are in natural parameters (pi = 1/σ², tau = μ·pi),
as in the package.

It is not the source of the headline ratings (those come from the package,
through :class:`ratings.trueskill_ratings.Rater`); tests check that it gives
the package's results to within 1e-6 on random games with and without ties.
"""

from __future__ import annotations

import math
from typing import Sequence

from ratings.params import RatingConfig

INF = math.inf
DELTA = 0.0001
_SQRT2 = math.sqrt(2.0)
_INV_SQRT2 = 1.0 / _SQRT2
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / _SQRT2)


def pdf(x: float) -> float:
    return _INV_SQRT_2PI * math.exp(-x * x / 2.0)


def ppf(p: float) -> float:
    """Inverse of :func:`cdf` (bisection then Newton; used once per table size)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"ppf needs 0 < p < 1, not {p}")
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if cdf(mid) < p:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2
    for _ in range(3):
        d = pdf(x)
        if d == 0:
            break
        x -= (cdf(x) - p) / d
    return x


class FastTrueSkill:
    """``rate`` for one-player teams, as the package computes it."""

    def __init__(self, params: RatingConfig | None = None) -> None:
        self.params = params or RatingConfig()
        self.beta2 = self.params.beta ** 2
        self.tau2 = self.params.tau ** 2
        self._margins: dict[int, float] = {}

    def draw_margin(self) -> float:
        """The draw margin between two adjacent one-player teams (size 2)."""
        if 2 not in self._margins:
            p = self.params.draw_probability
            self._margins[2] = ppf((p + 1) / 2.0) * math.sqrt(2) * self.params.beta if p > 0 \
                else 0.0
        return self._margins[2]

    def rate(self, ratings: Sequence[tuple[float, float]], ranks: Sequence[int]
             ) -> list[tuple[float, float]]:
        """New (mu, sigma) per player, in input order; lower rank is better.

        The body is the package's ``run_schedule`` written out on floats and
        inlined for speed; the comments name the package's factors.
        """
        n = len(ratings)
        if n < 2 or len(ranks) != n:
            raise ValueError("need at least two players and one rank each")
        order = sorted(range(n), key=ranks.__getitem__)
        eps = self.draw_margin()
        beta2, tau2 = self.beta2, self.tau2
        erfc, exp, sqrt = math.erfc, math.exp, math.sqrt
        prior_pi = []
        prior_tau = []
        tp_pi = []    # team-performance marginals, rank order
        tp_tau = []
        for i in order:
            mu, sigma = ratings[i]
            p_pi = 1.0 / (sigma * sigma + tau2)
            p_tau = mu * p_pi
            prior_pi.append(p_pi)
            prior_tau.append(p_tau)
            a = 1.0 / (1.0 + beta2 * p_pi)
            tp_pi.append(a * p_pi)
            tp_tau.append(a * p_tau)
        perf_pi = tp_pi[:]
        perf_tau = tp_tau[:]
        m = n - 1
        tie = [ranks[order[j]] == ranks[order[j + 1]] for j in range(m)]
        zeros = [0.0] * m
        l_pi, l_tau = zeros[:], zeros[:]   # diff j -> team perf j
        r_pi, r_tau = zeros[:], zeros[:]   # diff j -> team perf j+1
        s_pi, s_tau = zeros[:], zeros[:]   # sum factor j -> diff j
        t_pi, t_tau = zeros[:], zeros[:]   # truncation j -> diff j
        # The marginal of diff j is always s_j · t_j, so it is not stored.

        def down_trunc(j: int) -> float:
            # Sum factor j down: diff j = team perf j − team perf j+1 (each without
            # the messages this factor sent it).
            a_pi = tp_pi[j] - l_pi[j]
            b_pi = tp_pi[j + 1] - r_pi[j]
            a_tau = tp_tau[j] - l_tau[j]
            b_tau = tp_tau[j + 1] - r_tau[j]
            mu = (a_tau / a_pi if a_pi else 0.0) - (b_tau / b_pi if b_pi else 0.0)
            if a_pi == 0 or b_pi == 0:
                pi = tau = 0.0
            else:
                pi = 1.0 / (1.0 / a_pi + 1.0 / b_pi)
                tau = pi * mu
            s_pi[j], s_tau[j] = pi, tau
            old_pi, old_tau = pi + t_pi[j], tau + t_tau[j]
            # Truncation factor j up.
            sqrt_pi = sqrt(pi)
            t = tau / sqrt_pi
            margin = eps * sqrt_pi
            if tie[j]:
                abs_t = -t if t < 0 else t
                x1, x2 = margin - abs_t, -margin - abs_t
                denom = 0.5 * erfc(-x1 * _INV_SQRT2) - 0.5 * erfc(-x2 * _INV_SQRT2)
                p1 = _INV_SQRT_2PI * exp(-x1 * x1 / 2.0)
                p2 = _INV_SQRT_2PI * exp(-x2 * x2 / 2.0)
                if not denom:
                    raise FloatingPointError("TrueSkill update out of floating-point range")
                v_abs = (p2 - p1) / denom
                v = -v_abs if t < 0 else v_abs
                w = v_abs * v_abs + (x1 * p1 - x2 * p2) / denom
            else:
                x = t - margin
                denom = 0.5 * erfc(-x * _INV_SQRT2)
                v = _INV_SQRT_2PI * exp(-x * x / 2.0) / denom if denom else -x
                w = v * (v + x)
                if not 0 < w < 1:
                    raise FloatingPointError("TrueSkill update out of floating-point range")
            scale = 1.0 - w
            new_pi, new_tau = pi / scale, (tau + sqrt_pi * v) / scale
            t_pi[j] = new_pi - pi
            t_tau[j] = new_tau - tau
            pi_delta = abs(old_pi - new_pi)
            if pi_delta == INF:
                return 0.0
            tau_delta = abs(old_tau - new_tau)
            root = sqrt(pi_delta)
            return tau_delta if tau_delta > root else root

        def up_left(j: int) -> None:   # team perf j = diff j + team perf j+1
            a_pi, a_tau = t_pi[j], t_tau[j]
            b_pi = tp_pi[j + 1] - r_pi[j]
            b_tau = tp_tau[j + 1] - r_tau[j]
            if a_pi == 0 or b_pi == 0:
                pi = tau = 0.0
            else:
                pi = 1.0 / (1.0 / a_pi + 1.0 / b_pi)
                tau = pi * (a_tau / a_pi + b_tau / b_pi)
            tp_pi[j] += pi - l_pi[j]
            tp_tau[j] += tau - l_tau[j]
            l_pi[j], l_tau[j] = pi, tau

        def up_right(j: int) -> None:  # team perf j+1 = team perf j − diff j
            a_pi = tp_pi[j] - l_pi[j]
            a_tau = tp_tau[j] - l_tau[j]
            b_pi, b_tau = t_pi[j], t_tau[j]
            if a_pi == 0 or b_pi == 0:
                pi = tau = 0.0
            else:
                pi = 1.0 / (1.0 / a_pi + 1.0 / b_pi)
                tau = pi * (a_tau / a_pi - b_tau / b_pi)
            tp_pi[j + 1] += pi - r_pi[j]
            tp_tau[j + 1] += tau - r_tau[j]
            r_pi[j], r_tau[j] = pi, tau

        if m == 1:
            down_trunc(0)   # a second sweep would change nothing
        else:
            for _ in range(10):
                delta = 0.0
                for j in range(m - 1):
                    d = down_trunc(j)
                    if d > delta:
                        delta = d
                    up_right(j)
                for j in range(m - 1, 0, -1):
                    d = down_trunc(j)
                    if d > delta:
                        delta = d
                    up_left(j)
                if delta <= DELTA:
                    break
        up_left(0)
        up_right(m - 1)
        result: list[tuple[float, float]] = [(0.0, 0.0)] * n
        for k, i in enumerate(order):
            # The game's message to the performance, through the likelihood to the skill.
            g_pi = tp_pi[k] - perf_pi[k]
            g_tau = tp_tau[k] - perf_tau[k]
            a = 1.0 / (1.0 + beta2 * g_pi)
            pi = prior_pi[k] + a * g_pi
            tau = prior_tau[k] + a * g_tau
            result[i] = (tau / pi, sqrt(1.0 / pi))
        return result
