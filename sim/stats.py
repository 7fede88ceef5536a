"""Estimators and confidence intervals for Monte Carlo counts.

Every number the tool prints comes with its uncertainty: proportions get a
Wilson score interval (well behaved near 0 and 1, where designers' numbers
often sit), means get a normal interval from the sample variance, and tests
compare estimates with exact values through z-scores built from the standard
error of the exact probability.
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson(successes, trials, z: float = Z95):
    """Wilson score interval for a binomial proportion.

    Parameters
    ----------
    successes : int or array_like of int
        Number of trials with the outcome.
    trials : int
        Number of trials, ``>= 1``.
    z : float
        Normal quantile; the default gives a 95 % interval.

    Returns
    -------
    tuple of (float or ndarray, float or ndarray)
        ``(low, high)``, with the same shape as ``successes``.
    """
    k = np.asarray(successes, dtype=np.float64)
    n = float(trials)
    p = k / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denom
    half = z * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
    # The interval of an outcome never seen starts at exactly 0 (and of one
    # always seen ends at 1); the formula gives that up to rounding.
    low = np.where(k <= 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where(k >= n, 1.0, np.clip(centre + half, 0.0, 1.0))
    if np.ndim(successes) == 0:
        return float(low), float(high)
    return low, high


def z_scores(counts, trials: int, exact):
    """z-scores of observed counts against exact probabilities.

    The standard error is the one of the exact probability,
    ``sqrt(p (1 - p) / n)``; outcomes with exact probability 0 or 1 must be
    matched exactly, so any deviation gives an infinite z-score.

    Parameters
    ----------
    counts : array_like of int
        Observed count of each outcome.
    trials : int
        Number of trials.
    exact : array_like of float
        Exact probability of each outcome.

    Returns
    -------
    ndarray of float
    """
    k = np.asarray(counts, dtype=np.float64)
    # Exact values from floating-point chains can stray past 0 or 1 by rounding.
    p = np.clip(np.asarray(exact, dtype=np.float64), 0.0, 1.0)
    se = np.sqrt(p * (1.0 - p) / trials)
    diff = k / trials - p
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, diff / np.where(se > 0, se, 1.0), np.where(diff == 0, 0.0, np.inf))
    return z


def mean_interval(total: float, total_sq: float, trials: int, z: float = Z95):
    """Mean and normal-approximation interval from a sum and a sum of squares.

    Kernels accumulate ``sum(x)`` and ``sum(x**2)`` so that a mean comes with
    its interval without keeping per-trial values.

    Returns
    -------
    tuple of float
        ``(mean, low, high)``.
    """
    mean = total / trials
    var = max(total_sq / trials - mean * mean, 0.0) * trials / max(trials - 1, 1)
    half = z * math.sqrt(var / trials)
    return mean, mean - half, mean + half


def mean_z_score(total: float, total_sq: float, trials: int, exact_mean: float) -> float:
    """z-score of a sample mean against an exact expectation (sample standard error)."""
    mean = total / trials
    var = max(total_sq / trials - mean * mean, 0.0) * trials / max(trials - 1, 1)
    se = math.sqrt(var / trials)
    if se == 0.0:
        return 0.0 if mean == exact_mean else math.inf
    return (mean - exact_mean) / se


def quantile_interval(values, q: float, z: float = Z95):
    """A quantile of a sample with its distribution-free (order-statistic) interval.

    The estimate is the smallest value by which a fraction ``q`` of the sample lies (as
    ``zonesim campaign``'s ``days.median``); the interval is the pair of order statistics
    whose ranks are ``n q -+ z sqrt(n q (1 - q))`` (the normal approximation of the
    binomial count below the quantile), clipped to the sample.

    Returns
    -------
    tuple of float
        ``(estimate, low, high)``; NaN for an empty sample.
    """
    x = np.sort(np.asarray(values))
    n = len(x)
    if n == 0:
        return math.nan, math.nan, math.nan
    spread = z * math.sqrt(n * q * (1 - q))
    rank = min(max(math.ceil(q * n) - 1, 0), n - 1)
    low = min(max(math.floor(n * q - spread) - 1, 0), n - 1)
    high = min(max(math.ceil(n * q + spread) - 1, 0), n - 1)
    return float(x[rank]), float(x[low]), float(x[high])


def histogram_quantile(histogram, q: float, z: float = Z95):
    """A quantile of whole numbers counted in a histogram, with its order-statistic interval.

    ``histogram[d]`` is the number of games that ended on day ``d``. The
    estimate is the smallest day by which a fraction ``q`` of the games ended
    (``zonesim campaign``'s ``days.median``); the interval is the pair of
    order statistics whose ranks (from 1) are ``floor(n q - h)`` and
    ``ceil(n q + h) + 1`` with ``h = z sqrt(n q (1 - q))``, clipped to ``1..n``:
    the normal approximation of the binomial count of games at or below the
    quantile, distribution-free and one rank wide on the high side because the
    days are whole numbers (about 95 % coverage).

    Returns
    -------
    tuple of float or None
        ``(estimate, low, high)``; None for an empty histogram.
    """
    counts = np.asarray(histogram, dtype=np.int64)
    n = int(counts.sum())
    if n == 0:
        return None
    cum = np.cumsum(counts)
    half = z * math.sqrt(n * q * (1.0 - q))
    low_rank = max(1, math.floor(n * q - half))
    high_rank = min(n, math.ceil(n * q + half) + 1)
    return (float(np.searchsorted(cum, q * n)), float(np.searchsorted(cum, low_rank)),
            float(np.searchsorted(cum, high_rank)))


ALPHA = 0.05
"""One minus the coverage of every interval: 95 %."""


class ConfidenceSequence:
    """An anytime-valid 95 % interval for the mean of values in ``[lo, hi]``, updated as
    they come.

    A fixed-sample interval covers the mean at a number of trials chosen in advance; one
    watched while trials accumulate, and stopped when it "looks decided", misses it far
    more often than 5 % of the time. A confidence sequence covers the mean at every
    trial count at once, with probability at least 95 %, so it may be read at any time
    and stopped at will. This one is the predictable plug-in empirical-Bernstein
    confidence sequence of Waudby-Smith and Ramdas ("Estimating means of bounded random
    variables by betting", JRSS B 86, 2024, Theorem 2 and its eq. (13)-(15)): exact (not
    asymptotic) for independent values with one mean between known bounds, and as
    narrow as the variance allows (a paired difference that most games leave at 0 gets
    a narrow interval quickly). The running intersection is kept, so the interval never
    widens.

    On ``y = (x - lo) / (hi - lo)`` in [0, 1], with ``mu_t`` and ``var_t`` the
    regularised running mean and variance (``(1/2 + sum y) / (t + 1)`` and
    ``(1/4 + sum (y_i - mu_i)^2) / (t + 1)``): bets
    ``lambda_t = min(sqrt(2 log(2/alpha) / (var_{t-1} t log(1 + t))), 1/2)``,
    ``v_t = 4 (y_t - mu_{t-1})^2`` and ``psi(l) = (-log(1 - l) - l) / 4``; the interval is
    ``sum(lambda y) / sum(lambda) -+ (log(2/alpha) + sum(v psi(lambda))) / sum(lambda)``.

    Every running sum is one sequential accumulation carried from update to update
    (``numpy.cumsum`` of the carried total and the new values), so the interval after
    ``n`` values is bit-identical however they were cut into updates.
    """

    CAP = 0.5
    """The largest bet ``lambda`` (the paper's ``c``)."""

    def __init__(self, lo: float, hi: float, alpha: float = ALPHA) -> None:
        if not hi > lo:
            raise ValueError(f"bounds {lo}..{hi}: the high bound must exceed the low one")
        self.lo, self.hi, self.alpha = float(lo), float(hi), alpha
        self.n = 0
        self.total = 0.0  # sum of x (the plain mean is reported as the estimate)
        self._y = 0.0  # sum of y
        self._dev = 0.0  # sum of (y_i - mu_i)^2
        self._lam = 0.0
        self._lam_y = 0.0
        self._pen = 0.0  # sum of v_i psi(lambda_i)
        self._low, self._high = float(lo), float(hi)

    def update(self, values) -> None:
        """Take the next values, in order (a 1-d array of numbers in ``[lo, hi]``)."""
        x = np.asarray(values, dtype=np.float64).ravel()
        if x.size == 0:
            return
        if x.min() < self.lo or x.max() > self.hi:
            raise ValueError(f"a value outside {self.lo:g}..{self.hi:g}")
        y = (x - self.lo) / (self.hi - self.lo)
        t = self.n + np.arange(1, x.size + 1, dtype=np.float64)
        ys = np.cumsum(np.concatenate(([self._y], y)))
        mu = (0.5 + ys) / (np.concatenate(([self.n], t)) + 1.0)  # mu_{t-1} .. mu_t
        dev = np.cumsum(np.concatenate(([self._dev], (y - mu[1:]) ** 2)))
        var = (0.25 + dev) / (np.concatenate(([self.n], t)) + 1.0)  # var_{t-1} .. var_t
        log2a = math.log(2.0 / self.alpha)
        lam = np.minimum(np.sqrt(2.0 * log2a / (var[:-1] * t * np.log1p(t))), self.CAP)
        v = 4.0 * (y - mu[:-1]) ** 2
        psi = (-np.log1p(-lam) - lam) / 4.0
        lams = np.cumsum(np.concatenate(([self._lam], lam)))[1:]
        lam_ys = np.cumsum(np.concatenate(([self._lam_y], lam * y)))[1:]
        pens = np.cumsum(np.concatenate(([self._pen], v * psi)))[1:]
        centre = lam_ys / lams
        half = (log2a + pens) / lams
        scale = self.hi - self.lo
        # the running intersection over every t (not only at the ends of updates)
        self._low = max(self._low, self.lo + scale * float(np.clip(centre - half, 0, 1).max()))
        self._high = min(self._high, self.lo + scale * float(np.clip(centre + half, 0, 1).min()))
        self._lam, self._lam_y, self._pen = float(lams[-1]), float(lam_ys[-1]), float(pens[-1])
        self._y, self._dev = float(ys[-1]), float(dev[-1])
        self.total = float(np.cumsum(np.concatenate(([self.total], x)))[-1])
        self.n += x.size

    def interval(self) -> tuple[float, float, float]:
        """``(mean, low, high)`` of the values so far (NaN mean before the first)."""
        mean = self.total / self.n if self.n else math.nan
        return mean, self._low, self._high
