"""Every interval ``zonesim compare`` reports, recomputed from the raw paired sums.

The rows of :func:`sim.workflows.compare.compare` carry 95 % intervals: Wilson for a
proportion, a normal interval from the sample variance for a mean, and for
the difference to the baseline a normal interval from the variance of the
per-trial paired differences (common random numbers). Here the raw sums
(``PairedSums``: sum x, sum x**2, sum d, sum d**2 per variant) are taken from
the same run and every half-width is recomputed with formulas written out in
this file. The event items of Z-09 make the paired width exact: on one shared
d6, Dosimeter (avoids on 2+) minus Bag of nuts (3+) is 1 exactly when the die
shows 2, so each paired difference is 0 or 1 with p = 1/6, its variance
5/36, against 8/36 + 5/36 for two independent runs.
"""

from __future__ import annotations

import math

import pytest

from sim.experiments import registry
from sim.rules import load_ruleset
from sim.workflows import compare as C
from tests.conftest import Z_TOL

RS = load_ruleset(None)
Z95 = 1.959963984540054
TRIALS = 40_000
SEED = 23
VARIANTS = ("item=Bag of nuts", "item=Dosimeter", "item=Torsion scanner")
EXACT_DIFF = {"item=Dosimeter": 1 / 6, "item=Torsion scanner": 2 / 6}
"""P(paired difference = 1) in ``avoided``: the die shows 2 (Dosimeter), or 1 or 2 (Torsion
scanner, which avoids without a roll), against the Bag of nuts' 3+ (Z-09)."""


def wilson_half(k: float, n: int) -> tuple[float, float]:
    """Wilson score interval (low, high), written out (Wilson 1927)."""
    p = k / n
    centre = (p + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
    return (0.0 if k == 0 else centre - half), (1.0 if k == n else centre + half)


def sample_var(total: float, squares: float, n: int) -> float:
    """Unbiased sample variance from a sum and a sum of squares."""
    return max(squares - total * total / n, 0.0) / (n - 1)


@pytest.fixture(scope="module")
def run():
    """The comparison's rows and, from the same seed, its raw paired sums."""
    exp = registry.experiment("event")
    base = {"stalker": "Strelok", "event": "Radiation spike"}
    variants = [C.parse_variant(s, exp) for s in VARIANTS]
    result = C.compare(registry.experiment("event"), RS, base, variants, trials=TRIALS, seed=SEED)
    sums = exp.run(C.cases(RS, base, variants), trials=TRIALS, seed=SEED, threads=None)
    return result, sums


def test_every_reported_half_width_is_recomputed_from_raw_counts(run):
    result, sums = run
    names = [m.name for m in sums.metrics]
    for row in result.rows:
        v, m = VARIANTS.index(row["variant"]), names.index(row["metric"])
        s, s2, d, d2 = (float(x) for x in sums.sums[v, :, m])
        assert row["mc"] == pytest.approx(s / TRIALS, abs=1e-15)
        if sums.metrics[m].kind == "proportion":
            low, high = wilson_half(s, TRIALS)
        else:
            half = Z95 * math.sqrt(sample_var(s, s2, TRIALS) / TRIALS)
            low, high = s / TRIALS - half, s / TRIALS + half
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-12), row
        if v == 0:
            continue
        half = Z95 * math.sqrt(sample_var(d, d2, TRIALS) / TRIALS)
        assert row["diff"] == pytest.approx(d / TRIALS, abs=1e-15)
        assert (row["diff_ci_low"], row["diff_ci_high"]) == pytest.approx(
            (d / TRIALS - half, d / TRIALS + half), abs=1e-12), row


def test_paired_interval_is_narrower_than_the_independent_one_by_the_measured_factor(run):
    result, sums = run
    m = [x.name for x in sums.metrics].index("avoided")
    b_s, b_s2 = float(sums.sums[0, 0, m]), float(sums.sums[0, 1, m])
    for row in result.rows:
        if row["metric"] != "avoided" or row["variant"] == VARIANTS[0]:
            continue
        v = VARIANTS.index(row["variant"])
        s, s2, d, d2 = (float(x) for x in sums.sums[v, :, m])
        paired = (row["diff_ci_high"] - row["diff_ci_low"]) / 2
        independent = Z95 * math.sqrt((sample_var(s, s2, TRIALS)
                                       + sample_var(b_s, b_s2, TRIALS)) / TRIALS)
        factor = math.sqrt(sample_var(d, d2, TRIALS)
                           / (sample_var(s, s2, TRIALS) + sample_var(b_s, b_s2, TRIALS)))
        assert paired == pytest.approx(independent * factor, rel=1e-9)
        if sample_var(s, s2, TRIALS) > 0:
            assert factor < 1  # Dosimeter: the shared die removes noise (exactly sqrt(5/13))
        else:
            assert factor == pytest.approx(1.0)  # Torsion scanner: constant, nothing to pair
        # Common random numbers make every paired difference 0 or 1 (never -1): d == d**2.
        assert d == d2
        p = EXACT_DIFF[row["variant"]]
        assert abs(d / TRIALS - p) < Z_TOL * math.sqrt(p * (1 - p) / TRIALS), row
        exact_half = Z95 * math.sqrt(p * (1 - p) / TRIALS)
        # The width itself: the sample variance of a 0/1 difference is p(1-p) n/(n-1).
        assert paired == pytest.approx(Z95 * math.sqrt(
            (d / TRIALS) * (1 - d / TRIALS) / (TRIALS - 1)), rel=1e-9)
        # ... so it lies within Z_TOL delta-method standard errors of the exact width.
        se_half = exact_half * abs(1 - 2 * p) / (2 * math.sqrt(p * (1 - p) * TRIALS))
        assert abs(paired - exact_half) < Z_TOL * se_half, (paired, exact_half)
