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
