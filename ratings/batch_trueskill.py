"""TrueSkill updates of many independent games at once, on numpy arrays.

The bootstrap of the rank ranges replays hundreds of resampled game logs; at each
step every resample rates one game. Those games are independent, so they are
rated for all resamples in one pass of array arithmetic. With one difference
factor (two players), the package's message passing ends after a single step,
whose result is the textbook two-player update (Herbrich, Minka and Graepel
2006). Larger tables run the package's schedule (:class:`ratings.fast_trueskill.
FastTrueSkill`, whose message order this mirrors) on every row at once, each row
frozen once its own stopping rule is met, as the scalar replica stops. Both give
the scalar replica's numbers up to rounding (tests: within 1e-9 for two players,
1e-6 for more, where numpy's float operations add up over the sweeps).
"""

from __future__ import annotations

import math

import numpy as np

from ratings.fast_trueskill import DELTA, FastTrueSkill
from ratings.params import RatingConfig

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_WINNER_LOSER = (1.0, -1.0)


def _erfc(x: np.ndarray) -> np.ndarray:
    """The trueskill package's erfc (its own approximation, as the scalar replica
    uses) on every entry."""
    z = np.abs(x)
    t = 1. / (1. + z / 2.)
    r = t * np.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (
        0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (
            0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
                -0.82215223 + t * 0.17087277)))))))))
    erfc: np.ndarray = np.where(x < 0, 2. - r, r)
    return erfc


class BatchTrueSkill:
    """``rate`` for a batch of games with one-player teams."""

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
        new_mu, new_sigma = np.empty_like(mu), np.empty_like(sigma)
        # Column by column: a (games, 1) factor against (games, 2) runs numpy's inner loop
        # once a game, on two entries, several times slower than once a column.
        for column, sign in enumerate(_WINNER_LOSER):
            var_c = var[:, column]
            new_mu[:, column] = mu[:, column] + var_c / c * v * sign
            new_sigma[:, column] = np.sqrt(var_c * (1.0 - var_c / c2 * w))
        return new_mu, new_sigma

    def rate_table_sorted(self, mu: np.ndarray, sigma: np.ndarray, tie: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
        """New (mu, sigma) of tables of three or more, shape (games, players), each row
        in rank order; ``tie[:, j]``: players j and j + 1 tie. The package's schedule:
        sweeps along the chain of difference factors until each row's largest change is
        at most ``DELTA`` (at most 10 sweeps); a row that has stopped is left as it is."""
        if mu.ndim != 2 or mu.shape[1] < 3:
            raise ValueError("rate_table_sorted rates tables of three or more")
        chain = _Chain(mu, sigma, self.tau2, self.beta2, self.eps, tie)
        last = chain.size - 2                        # the last difference factor
        running = np.ones(mu.shape[0], dtype=bool)
        for _ in range(10):
            delta = np.zeros(mu.shape[0])
            for j in range(last):
                delta = np.maximum(delta, chain.down_and_truncate(j, running))
                chain.up_right(j, running)
            for j in range(last, 0, -1):
                delta = np.maximum(delta, chain.down_and_truncate(j, running))
                chain.up_left(j, running)
            running &= delta > DELTA
            if not running.any():
                break
        every = np.ones(mu.shape[0], dtype=bool)
        chain.up_left(0, every)
        chain.up_right(last, every)
        return chain.ratings(self.beta2)


class _Chain:
    """The messages of a batch of free-for-all factor graphs (one-player teams, rank
    order): :meth:`FastTrueSkill.rate`'s variables as columns, one row per game.
    Names as there: t = team performances, d = differences; dl / dr = difference j's
    messages to team performance j / j + 1, dd its message to difference j, tr the
    truncation's; st the sum factor's message down to each team performance."""

    def __init__(self, mu: np.ndarray, sigma: np.ndarray, tau2: float, beta2: float,
                 margin: float, tie: np.ndarray) -> None:
        pi = sigma ** -2.0                          # Rating(mu, sigma), then PriorFactor.down
        self.r_pi = (np.sqrt(np.sqrt(1 / pi) ** 2 + tau2)) ** -2.0
        self.r_tau = self.r_pi * ((pi * mu) / pi)
        a = 1. / (1. + beta2 * self.r_pi)           # LikelihoodFactor.down
        self.p_pi, self.p_tau = a * self.r_pi, a * self.r_tau
        self.t_pi = 1. / (0 + 1 / self.p_pi)        # SumFactor(team perf; perf).down
        self.t_tau = self.t_pi * (0 + 1 * (self.p_tau / self.p_pi))
        self.st_pi, self.st_tau = self.t_pi.copy(), self.t_tau.copy()
        self.size = mu.shape[1]
        links = (mu.shape[0], self.size - 1)
        self.dl_pi, self.dl_tau, self.dr_pi, self.dr_tau = (np.zeros(links) for _ in range(4))
        self.dd_pi, self.dd_tau, self.tr_pi, self.tr_tau = (np.zeros(links) for _ in range(4))
        self.d_pi, self.d_tau = np.zeros(links), np.zeros(links)
        self.margin, self.tie = margin, tie

    def down_and_truncate(self, j: int, rows: np.ndarray) -> np.ndarray:
        """Difference j's message down, then the truncation's up; each row's change."""
        pi, tau = _sum2(self.t_pi[:, j] - self.dl_pi[:, j], self.t_tau[:, j] - self.dl_tau[:, j],
                        self.t_pi[:, j + 1] - self.dr_pi[:, j],
                        self.t_tau[:, j + 1] - self.dr_tau[:, j], -1.)
        d_pi = self.d_pi[:, j] - self.dd_pi[:, j] + pi
        d_tau = self.d_tau[:, j] - self.dd_tau[:, j] + tau
        _set(self.dd_pi, j, rows, pi)
        _set(self.dd_tau, j, rows, tau)
        div_pi, div_tau = d_pi - self.tr_pi[:, j], d_tau - self.tr_tau[:, j]
        sqrt_pi = np.sqrt(div_pi)
        v, w = _truncate(div_tau / sqrt_pi, self.margin * sqrt_pi, self.tie[:, j])
        denom = 1. - w
        pi, tau = div_pi / denom, (div_tau + sqrt_pi * v) / denom
        _set(self.tr_pi, j, rows, pi + self.tr_pi[:, j] - d_pi)
        _set(self.tr_tau, j, rows, tau + self.tr_tau[:, j] - d_tau)
        pi_delta = np.abs(d_pi - pi)
        delta = np.where(pi_delta == np.inf, 0.,
                         np.maximum(np.abs(d_tau - tau), np.sqrt(pi_delta)))
        _set(self.d_pi, j, rows, pi)
        _set(self.d_tau, j, rows, tau)
        return np.where(rows, delta, 0.)

    def up_left(self, j: int, rows: np.ndarray) -> None:
        """Team performance j from difference j and team performance j + 1."""
        pi, tau = _sum2(self.d_pi[:, j] - self.dd_pi[:, j], self.d_tau[:, j] - self.dd_tau[:, j],
                        self.t_pi[:, j + 1] - self.dr_pi[:, j],
                        self.t_tau[:, j + 1] - self.dr_tau[:, j], 1.)
        _set(self.t_pi, j, rows, self.t_pi[:, j] - self.dl_pi[:, j] + pi)
        _set(self.t_tau, j, rows, self.t_tau[:, j] - self.dl_tau[:, j] + tau)
        _set(self.dl_pi, j, rows, pi)
        _set(self.dl_tau, j, rows, tau)

    def up_right(self, j: int, rows: np.ndarray) -> None:
        """Team performance j + 1 from team performance j and difference j."""
        pi, tau = _sum2(self.t_pi[:, j] - self.dl_pi[:, j], self.t_tau[:, j] - self.dl_tau[:, j],
                        self.d_pi[:, j] - self.dd_pi[:, j], self.d_tau[:, j] - self.dd_tau[:, j],
                        -1.)
        _set(self.t_pi, j + 1, rows, self.t_pi[:, j + 1] - self.dr_pi[:, j] + pi)
        _set(self.t_tau, j + 1, rows, self.t_tau[:, j + 1] - self.dr_tau[:, j] + tau)
        _set(self.dr_pi, j, rows, pi)
        _set(self.dr_tau, j, rows, tau)

    def ratings(self, beta2: float) -> tuple[np.ndarray, np.ndarray]:
        """The way back up, team perf -> perf -> rating: the new (mu, sigma)."""
        div_pi, div_tau = self.t_pi - self.st_pi, self.t_tau - self.st_tau
        with np.errstate(divide="ignore", invalid="ignore"):
            pi = 1. / (0 + 1 / div_pi)              # SumFactor.up(0), one term
            tau = np.where(div_pi == 0, 0., pi * (0 + 1 * (div_tau / div_pi)))
            msg_pi = (self.p_pi + pi) - self.p_pi   # LikelihoodFactor.up
            msg_tau = (self.p_tau + tau) - self.p_tau
            a = 1. / (1. + beta2 * msg_pi)
            pi, tau = self.r_pi + a * msg_pi, self.r_tau + a * msg_tau
            return np.where(pi == 0, 0., tau / pi), np.sqrt(1 / pi)


def _sum2(x_pi: np.ndarray, x_tau: np.ndarray, y_pi: np.ndarray, y_tau: np.ndarray,
          y_coeff: float) -> tuple[np.ndarray, np.ndarray]:
    """A sum factor's message from two terms (coefficients 1 and ``y_coeff``), given
    each term's value without the factor's message to it; as the package, (0, 0) where
    a term's precision is 0 (its variance infinite: so is the sum's)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        pi = 1. / (0 + 1. ** 2 / x_pi + y_coeff ** 2 / y_pi)
        tau = pi * (0 + 1. * (x_tau / x_pi) + y_coeff * (y_tau / y_pi))
    zero = (x_pi == 0) | (y_pi == 0)
    return np.where(zero, 0., pi), np.where(zero, 0., tau)


def _set(array: np.ndarray, column: int, rows: np.ndarray, value: np.ndarray) -> None:
    """``array[:, column] = value`` in ``rows`` only (a row that has stopped keeps its own)."""
    array[:, column] = np.where(rows, value, array[:, column])


def _truncate(t: np.ndarray, margin: np.ndarray, tie: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """The truncation factor's v and w: a win (t > margin) or a draw (|t| < margin).

    The win's bound and the draw's two go through the normal's tail and density as the
    rows of one array: each entry is computed by the same operations as alone, and a
    batch pays numpy's per-call cost once for the three, not three times (the bootstrap
    calls this once a wave, hundreds of times a leaderboard)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        abs_t = np.abs(t)
        bounds = np.empty((3, len(t)))
        np.subtract(t, margin, out=bounds[0])
        np.subtract(margin, abs_t, out=bounds[1])
        np.subtract(-margin, abs_t, out=bounds[2])
        tails = 0.5 * _erfc(-bounds * _INV_SQRT2)
        densities = _INV_SQRT_2PI * np.exp(-bounds * bounds / 2.0)
        (x, x1, x2), (denom, tail1, tail2), (p, p1, p2) = bounds, tails, densities
        v = np.where(denom != 0, p / denom, -x)
        w = v * (v + x)
        bad = ~tie & ~((w > 0) & (w < 1))
        denom_draw = tail1 - tail2
        v_abs = (p2 - p1) / denom_draw
        v = np.where(tie, np.where(t < 0, -v_abs, v_abs), v)
        w = np.where(tie, v_abs * v_abs + (x1 * p1 - x2 * p2) / denom_draw, w)
        bad |= tie & (denom_draw == 0)
    if bad.any():
        raise FloatingPointError("TrueSkill update out of floating-point range")
    return v, w
