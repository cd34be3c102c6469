"""``trueskill.TrueSkill.rate`` for free-for-all games, on plain floats, bit for bit.

The trueskill package builds a factor graph of objects for every game (variables,
factors, a dict of messages per variable, a ``Gaussian`` per message): on a long log
that is most of the leaderboard's time (docs/performance.md, section 6). For the
only case the referee has, one player per team with weight 1, this module runs
the package's ``run_schedule`` on floats: the same factors in the same order, and
every message computed by the same float operations in the same order (``a - b +
c`` stays ``a - b + c``; ``x ** 2`` stays a power; the package's own ``v``/``w``
functions and its ``cdf``/``pdf``), so the results are the package's to the last
bit, not merely close: the tests compare them with ``==`` on random logs. The
comments name the package's factors and methods each line mirrors.

Ratings go in and out as the ``(mu, sigma)`` a ``trueskill.Rating`` is built
from; like the package, the next game reads them back through the Rating's
natural parameters (pi = sigma ** -2, tau = pi * mu).
"""

from __future__ import annotations

import math
from typing import Sequence

import trueskill

from ratings.params import RatingConfig

INF = math.inf
DELTA = trueskill.DELTA


class FastTrueSkill:
    """``TrueSkill.rate`` for one-player teams, with the package's results."""

    def __init__(self, params: RatingConfig | None = None) -> None:
        self.params = params or RatingConfig()
        p = self.params
        self.env = trueskill.TrueSkill(mu=p.mu, sigma=p.sigma, beta=p.beta, tau=p.tau,
                                       draw_probability=p.draw_probability)
        # LikelihoodFactor's variance and PriorFactor's dynamic, as the package has them.
        self.variance = self.env.beta ** 2
        self.dynamic = self.env.tau
        # Every difference factor joins two one-player teams: one margin for all.
        self.margin = trueskill.calc_draw_margin(self.env.draw_probability, 2, self.env)

    def draw_margin(self) -> float:
        """The draw margin between two adjacent one-player teams."""
        return float(self.margin)

    def rate(self, ratings: Sequence[tuple[float, float]], ranks: Sequence[int]
             ) -> list[tuple[float, float]]:
        """New (mu, sigma) per player, in input order; lower rank is better.

        Raises FloatingPointError where the package does (an update out of range).
        """
        n = len(ratings)
        if n < 2 or len(ranks) != n:
            raise ValueError("need at least two players and one rank each")
        order = sorted(range(n), key=ranks.__getitem__)   # stable, as the package sorts
        m = n - 1
        if m == 1:
            two = self._rate_two(ratings, order, ranks[order[0]] == ranks[order[1]])
            if two is not None:
                return two
        tie = [ranks[order[j]] == ranks[order[j + 1]] for j in range(m)]
        r_pi, r_tau, p_pi, p_tau, t_pi, t_tau = self._down(ratings, order)
        # Messages, all N(0, 0) at first: ml = likelihood -> perf, st = team sum ->
        # team perf, dl / dr = difference j -> team perf j / j+1, dd = difference j ->
        # diff j, tr = truncation j -> diff j; d = the diff variables.
        st_pi, st_tau = t_pi[:], t_tau[:]
        zeros = [0.0] * m
        dl_pi, dl_tau, dr_pi, dr_tau = zeros[:], zeros[:], zeros[:], zeros[:]
        dd_pi, dd_tau, tr_pi, tr_tau = zeros[:], zeros[:], zeros[:], zeros[:]
        d_pi, d_tau = zeros[:], zeros[:]
        margin, sqrt, exp = self.margin, math.sqrt, math.exp

        def diff_down_trunc_up(j: int) -> float:
            # SumFactor(diff j; team perf j, team perf j+1; +1, -1).down()
            x_pi, y_pi = t_pi[j] - dl_pi[j], t_pi[j + 1] - dr_pi[j]
            if x_pi and y_pi:   # _sum2 without its branches for a 0 precision
                pi = 1. / (0 + 1 / x_pi + 1 / y_pi)
                tau = pi * (0 + 1 * ((t_tau[j] - dl_tau[j]) / x_pi)
                            + -1 * ((t_tau[j + 1] - dr_tau[j]) / y_pi))
            else:
                pi, tau = _sum2(t_pi[j], t_tau[j], dl_pi[j], dl_tau[j], 1,
                                t_pi[j + 1], t_tau[j + 1], dr_pi[j], dr_tau[j], -1)
            d_pi[j] = d_pi[j] - dd_pi[j] + pi      # Variable.update_message
            d_tau[j] = d_tau[j] - dd_tau[j] + tau
            dd_pi[j], dd_tau[j] = pi, tau
            # TruncateFactor.up()
            div_pi, div_tau = d_pi[j] - tr_pi[j], d_tau[j] - tr_tau[j]
            sqrt_pi = sqrt(div_pi)
            if tie[j]:
                v, w = _v_w_draw(div_tau / sqrt_pi, margin * sqrt_pi)
            else:   # _v_w_win written out: most of the time goes here
                x = div_tau / sqrt_pi - margin * sqrt_pi
                z = -(x - 0) / _SQRT2
                a = abs(z)
                t = 1. / (1. + a / 2.)
                r = t * exp(-a * a - 1.26551223 + t * (1.00002368 + t * (
                    0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (
                        0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
                            -0.82215223 + t * 0.17087277)))))))))
                cdf = 0.5 * (2. - r if z < 0 else r)
                v = (_PDF_SCALE * exp(-((x / 1) ** 2 / 2)) / cdf) if cdf else -x
                w = v * (v + x)
                if not 0 < w < 1:
                    raise FloatingPointError(_PRECISION)
            denom = (1. - w)
            pi, tau = div_pi / denom, (div_tau + sqrt_pi * v) / denom
            # Variable.update_value, then Variable.delta
            tr_pi[j] = pi + tr_pi[j] - d_pi[j]
            tr_tau[j] = tau + tr_tau[j] - d_tau[j]
            pi_delta = abs(d_pi[j] - pi)
            delta = 0. if pi_delta == INF else max(abs(d_tau[j] - tau), sqrt(pi_delta))
            d_pi[j], d_tau[j] = pi, tau
            return delta

        def diff_up_left(j: int) -> None:
            # SumFactor.up(0): team perf j from diff j and team perf j+1 (coefficients 1., 1.)
            x_pi, y_pi = d_pi[j] - dd_pi[j], t_pi[j + 1] - dr_pi[j]
            if x_pi and y_pi:
                pi = 1. / (0 + 1. ** 2 / x_pi + 1. ** 2 / y_pi)
                tau = pi * (0 + 1. * ((d_tau[j] - dd_tau[j]) / x_pi)
                            + 1. * ((t_tau[j + 1] - dr_tau[j]) / y_pi))
            else:
                pi, tau = _sum2(d_pi[j], d_tau[j], dd_pi[j], dd_tau[j], 1.,
                                t_pi[j + 1], t_tau[j + 1], dr_pi[j], dr_tau[j], 1.)
            t_pi[j] = t_pi[j] - dl_pi[j] + pi
            t_tau[j] = t_tau[j] - dl_tau[j] + tau
            dl_pi[j], dl_tau[j] = pi, tau

        def diff_up_right(j: int) -> None:
            # SumFactor.up(1): team perf j+1 from team perf j and diff j (coefficients 1., -1.)
            x_pi, y_pi = t_pi[j] - dl_pi[j], d_pi[j] - dd_pi[j]
            if x_pi and y_pi:
                pi = 1. / (0 + 1. ** 2 / x_pi + (-1.) ** 2 / y_pi)
                tau = pi * (0 + 1. * ((t_tau[j] - dl_tau[j]) / x_pi)
                            + -1. * ((d_tau[j] - dd_tau[j]) / y_pi))
            else:
                pi, tau = _sum2(t_pi[j], t_tau[j], dl_pi[j], dl_tau[j], 1.,
                                d_pi[j], d_tau[j], dd_pi[j], dd_tau[j], -1.)
            t_pi[j + 1] = t_pi[j + 1] - dr_pi[j] + pi
            t_tau[j + 1] = t_tau[j + 1] - dr_tau[j] + tau
            dr_pi[j], dr_tau[j] = pi, tau

        for _ in range(10):                      # TrueSkill.run_schedule
            if m == 1:
                delta = diff_down_trunc_up(0)
            else:
                delta = 0
                for j in range(m - 1):
                    delta = max(delta, diff_down_trunc_up(j))
                    diff_up_right(j)
                for j in range(m - 1, 0, -1):
                    delta = max(delta, diff_down_trunc_up(j))
                    diff_up_left(j)
            if delta <= DELTA:
                break
        diff_up_left(0)
        diff_up_right(m - 1)
        return self._up(order, r_pi, r_tau, p_pi, p_tau, t_pi, t_tau, st_pi, st_tau)

    def _rate_two(self, ratings: Sequence[tuple[float, float]], order: list[int], tie: bool
                  ) -> list[tuple[float, float]] | None:
        """:meth:`rate` for two players, the schedule written out: one difference
        factor, so the messages to the team performances stay N(0, 0) until the end.
        None when a precision is 0 (where the package takes its special branches)."""
        first, second = order
        down_a, down_b = self._down_one(*ratings[first]), self._down_one(*ratings[second])
        if down_a is None or down_b is None:
            return None
        a_pi, a_tau, b_pi, b_tau = down_a[4], down_a[5], down_b[4], down_b[5]
        # SumFactor(diff; team perf 0, team perf 1; +1, -1).down(): the same every sweep.
        down_pi = 1. / (0 + 1 / a_pi + 1 / b_pi)
        down_tau = down_pi * (0 + 1 * (a_tau / a_pi) + -1 * (b_tau / b_pi))
        v_w = _v_w_draw if tie else _v_w_win
        margin, sqrt = self.margin, math.sqrt
        d_pi = d_tau = dd_pi = dd_tau = tr_pi = tr_tau = 0.0
        for _ in range(10):
            d_pi = d_pi - dd_pi + down_pi
            d_tau = d_tau - dd_tau + down_tau
            dd_pi, dd_tau = down_pi, down_tau
            div_pi, div_tau = d_pi - tr_pi, d_tau - tr_tau      # TruncateFactor.up
            sqrt_pi = sqrt(div_pi)
            v, w = v_w(div_tau / sqrt_pi, margin * sqrt_pi)
            denom = (1. - w)
            pi, tau = div_pi / denom, (div_tau + sqrt_pi * v) / denom
            tr_pi = pi + tr_pi - d_pi
            tr_tau = tau + tr_tau - d_tau
            pi_delta = abs(d_pi - pi)
            delta = 0. if pi_delta == INF else max(abs(d_tau - tau), sqrt(pi_delta))
            d_pi, d_tau = pi, tau
            if delta <= DELTA:
                break
        # SumFactor.up(0) and up(1): each team perf from the diff and the other one.
        x_pi, x_tau = d_pi - dd_pi, d_tau - dd_tau
        if not x_pi:
            return None
        pi = 1. / (0 + 1. ** 2 / x_pi + 1. ** 2 / b_pi)
        tau = pi * (0 + 1. * (x_tau / x_pi) + 1. * (b_tau / b_pi))
        a_pi, a_tau = a_pi - 0.0 + pi, a_tau - 0.0 + tau
        y_pi, y_tau = a_pi - pi, a_tau - tau
        if not y_pi:
            return None
        pi = 1. / (0 + 1. ** 2 / y_pi + (-1.) ** 2 / x_pi)
        tau = pi * (0 + 1. * (y_tau / y_pi) + -1. * (x_tau / x_pi))
        result: list[tuple[float, float]] = [(0.0, 0.0), (0.0, 0.0)]
        result[first] = self._up_one(down_a, a_pi, a_tau)
        result[second] = self._up_one(down_b, b_pi - 0.0 + pi, b_tau - 0.0 + tau)
        return result

    def _down_one(self, mu: float, sigma: float) -> tuple[float, ...] | None:
        """One player's rating, performance and team-performance (pi, tau) on the way
        down (:meth:`_down` for one, none of them 0); None where a precision is 0."""
        pi = sigma ** -2                          # Rating(mu, sigma)
        if not pi:
            return None
        tau = pi * mu
        sigma = math.sqrt(math.sqrt(1 / pi) ** 2 + self.dynamic ** 2)   # PriorFactor.down
        r_pi = sigma ** -2
        r_tau = r_pi * (tau / pi)
        a = 1. / (1. + self.variance * r_pi)      # LikelihoodFactor.down
        p_pi, p_tau = a * r_pi, a * r_tau
        if not p_pi:
            return None
        t_pi = 1. / (0 + 1 / p_pi)                # SumFactor(team perf; perf).down
        return r_pi, r_tau, p_pi, p_tau, t_pi, t_pi * (0 + 1 * (p_tau / p_pi))

    def _up_one(self, down: tuple[float, ...], t_pi: float, t_tau: float
                ) -> tuple[float, float]:
        """One player's way back up (:meth:`_up` for one), from the final team perf."""
        r_pi, r_tau, p_pi, p_tau, st_pi, st_tau = down
        pi, tau = _sum1(t_pi, t_tau, st_pi, st_tau)  # SumFactor.up(0)
        msg_pi, msg_tau = p_pi + pi - p_pi, p_tau + tau - p_tau   # LikelihoodFactor.up
        a = 1. / (1. + self.variance * msg_pi)
        pi, tau = r_pi + a * msg_pi, r_tau + a * msg_tau
        return (float(pi and tau / pi),           # Rating(float(mu), float(sigma))
                float(math.sqrt(1 / pi) if pi else INF))

    def _down(self, ratings: Sequence[tuple[float, float]], order: list[int]
              ) -> tuple[list[float], ...]:
        """The rating, performance and team-performance layers' way down, rank order:
        each variable's (pi, tau) after its first message (all messages start at 0)."""
        variance, dynamic = self.variance, self.dynamic
        r_pi, r_tau, p_pi, p_tau, t_pi, t_tau = [], [], [], [], [], []
        for i in order:
            mu, sigma = ratings[i]
            pi = sigma ** -2                          # Rating(mu, sigma)
            tau = pi * mu
            val_sigma = math.sqrt(1 / pi) if pi else INF
            val_mu = pi and tau / pi
            sigma = math.sqrt(val_sigma ** 2 + dynamic ** 2)   # PriorFactor.down
            pi = sigma ** -2
            tau = pi * val_mu
            r_pi.append(pi)
            r_tau.append(tau)
            a = 1. / (1. + variance * pi)            # LikelihoodFactor.down
            pi, tau = a * pi, a * tau
            p_pi.append(pi)
            p_tau.append(tau)
            pi, tau = _sum1(pi, tau, 0.0, 0.0)        # SumFactor(team perf; perf).down
            t_pi.append(pi)
            t_tau.append(tau)
        return r_pi, r_tau, p_pi, p_tau, t_pi, t_tau

    def _up(self, order: list[int], r_pi: list[float], r_tau: list[float],
            p_pi: list[float], p_tau: list[float], t_pi: list[float], t_tau: list[float],
            st_pi: list[float], st_tau: list[float]) -> list[tuple[float, float]]:
        """The way back up, team perf -> perf -> rating, and the new Ratings' (mu, sigma)."""
        variance = self.variance
        result: list[tuple[float, float]] = [(0.0, 0.0)] * len(order)
        for k, i in enumerate(order):
            pi, tau = _sum1(t_pi[k], t_tau[k], st_pi[k], st_tau[k])  # SumFactor.up(0)
            perf_pi, perf_tau = p_pi[k] + pi, p_tau[k] + tau
            # LikelihoodFactor.up: the perf's value without the likelihood's message.
            msg_pi, msg_tau = perf_pi - p_pi[k], perf_tau - p_tau[k]
            a = 1. / (1. + variance * msg_pi)
            pi, tau = r_pi[k] + a * msg_pi, r_tau[k] + a * msg_tau
            mu = pi and tau / pi                      # Rating(float(mu), float(sigma))
            sigma = math.sqrt(1 / pi) if pi else INF
            result[i] = (float(mu), float(sigma))
        return result


def _sum1(val_pi: float, val_tau: float, msg_pi: float, msg_tau: float
          ) -> tuple[float, float]:
    """SumFactor.update over one term with coefficient 1: the message's (pi, tau)."""
    div_pi, div_tau = val_pi - msg_pi, val_tau - msg_tau
    mu = 0 + 1 * (div_pi and div_tau / div_pi)
    try:
        pi_inv = 0 + 1 / float(div_pi)
    except ZeroDivisionError:
        pi_inv = INF
    pi = 1. / pi_inv
    return pi, pi * mu


def _sum2(a_pi: float, a_tau: float, am_pi: float, am_tau: float, a_coeff: float,
          b_pi: float, b_tau: float, bm_pi: float, bm_tau: float, b_coeff: float
          ) -> tuple[float, float]:
    """SumFactor.update over two terms (value, message to it, coefficient each)."""
    x_pi, y_pi = a_pi - am_pi, b_pi - bm_pi
    if x_pi and y_pi:   # the usual case, without the package's branches for a 0 precision
        pi = 1. / (0 + a_coeff ** 2 / x_pi + b_coeff ** 2 / y_pi)
        return pi, pi * (0 + a_coeff * ((a_tau - am_tau) / x_pi)
                         + b_coeff * ((b_tau - bm_tau) / y_pi))
    pi_inv: float = 0
    mu: float = 0
    for val_pi, val_tau, msg_pi, msg_tau, coeff in ((a_pi, a_tau, am_pi, am_tau, a_coeff),
                                                    (b_pi, b_tau, bm_pi, bm_tau, b_coeff)):
        div_pi, div_tau = val_pi - msg_pi, val_tau - msg_tau
        mu += coeff * (div_pi and div_tau / div_pi)
        if pi_inv == INF:
            continue
        try:
            pi_inv += coeff ** 2 / float(div_pi)
        except ZeroDivisionError:
            pi_inv = INF
    pi = 1. / pi_inv
    return pi, pi * mu


# The package's backends.erfc, cdf and pdf (trueskill's default, backend None) and its
# TrueSkill.v_win / w_win / v_draw / w_draw, with the same expressions, inlined.
_SQRT2 = 1 * math.sqrt(2)
_PRECISION = 'Cannot calculate correctly, set backend to "mpmath"'
_PDF_SCALE = 1 / math.sqrt(2 * math.pi) * abs(1)


def _erfc(x: float) -> float:
    z = abs(x)
    t = 1. / (1. + z / 2.)
    r = t * math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (
        0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (
            0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
                -0.82215223 + t * 0.17087277
            )))
        )))
    )))
    return 2. - r if x < 0 else r


def _cdf(x: float) -> float:
    return 0.5 * _erfc(-(x - 0) / _SQRT2)


def _pdf(x: float) -> float:
    return _PDF_SCALE * math.exp(-((x / 1) ** 2 / 2))


def _v_w_win(diff: float, draw_margin: float) -> tuple[float, float]:
    """TrueSkill.v_win and w_win of the same arguments."""
    x = diff - draw_margin
    denom = _cdf(x)
    v = (_pdf(x) / denom) if denom else -x
    w = v * (v + x)
    if 0 < w < 1:
        return v, w
    raise FloatingPointError(_PRECISION)


def _v_w_draw(diff: float, draw_margin: float) -> tuple[float, float]:
    """TrueSkill.v_draw and w_draw of the same arguments."""
    abs_diff = abs(diff)
    a, b = draw_margin - abs_diff, -draw_margin - abs_diff
    denom = _cdf(a) - _cdf(b)
    if not denom:
        raise FloatingPointError(_PRECISION)
    pdf_a, pdf_b = _pdf(a), _pdf(b)
    v_abs = (pdf_b - pdf_a) / denom
    v = v_abs * (-1 if diff < 0 else +1)
    return v, (v_abs ** 2) + (a * pdf_a - b * pdf_b) / denom
