"""The anytime-valid interval of zonesim studio (issue 49): sim.stats.ConfidenceSequence.

A confidence sequence must cover the mean at every number of values at once: the share of
sequences whose interval ever misses the mean stays within 5 %. The running intersection
makes "ever missed" visible at the end (a low bound above the mean at any t stays above
it), so each sequence is judged by its last interval. The same harness flags the
fixed-sample normal interval watched after every chunk (it misses far more often), so the
test can fail.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim import stats

SEQUENCES = 400
LENGTH = 3000
CHUNK = 50


def _paired(rng, n):
    """Differences of two paired games: most 0, a few -1 or +1 (mean 0.01)."""
    return rng.choice([-1.0, 0.0, 1.0], p=[0.02, 0.95, 0.03], size=n)


CASES = {
    "share p=0.3": (0.0, 1.0, 0.3, lambda rng, n: (rng.random(n) < 0.3).astype(float)),
    "paired difference": (-1.0, 1.0, 0.01, _paired),
    "days 0..120": (0.0, 120.0, 120 * 0.25, lambda rng, n: 120 * rng.beta(1, 3, n)),
}


def _ever_missed_cs(values, lo, hi, mean):
    cs = stats.ConfidenceSequence(lo, hi)
    for i in range(0, len(values), CHUNK):
        cs.update(values[i:i + CHUNK])
    _, low, high = cs.interval()
    return not low <= mean <= high


def _ever_missed_fixed(values, mean):
    """The fixed-sample normal interval, looked at after every chunk."""
    for n in range(CHUNK, len(values) + 1, CHUNK):
        x = values[:n]
        _, low, high = stats.mean_interval(x.sum(), (x * x).sum(), n)
        if not low <= mean <= high:
            return True
    return False


@pytest.mark.parametrize("case", sorted(CASES))
def test_covers_the_mean_at_every_count_at_once(case):
    lo, hi, mean, draw = CASES[case]
    rng = np.random.default_rng(49)
    missed = sum(_ever_missed_cs(draw(rng, LENGTH), lo, hi, mean) for _ in range(SEQUENCES))
    assert missed / SEQUENCES <= 0.05, f"{case}: missed in {missed} of {SEQUENCES}"


def test_the_harness_catches_a_fixed_sample_interval_watched_as_it_grows():
    """The guard: peeking at a 95 % fixed-n interval after every chunk is not 95 %."""
    lo, hi, mean, draw = CASES["share p=0.3"]
    rng = np.random.default_rng(49)
    missed = sum(_ever_missed_fixed(draw(rng, LENGTH), mean) for _ in range(SEQUENCES))
    assert missed / SEQUENCES > 0.15


def test_narrows_as_values_come_and_never_widens():
    rng = np.random.default_rng(1)
    cs = stats.ConfidenceSequence(-1, 1)
    widths = []
    for _ in range(40):
        cs.update(_paired(rng, 500))
        _, low, high = cs.interval()
        widths.append(high - low)
    assert all(b <= a for a, b in zip(widths, widths[1:], strict=False))
    assert widths[-1] < 0.015  # 20,000 paired games, 5 % of them differing


def test_same_values_give_the_same_interval_however_they_are_cut():
    values = _paired(np.random.default_rng(7), 10_000)
    out = []
    for cut in (10_000, 1000, 333, 1):
        cs = stats.ConfidenceSequence(-1, 1)
        for i in range(0, len(values), cut):
            cs.update(values[i:i + cut])
        out.append(cs.interval())
    assert out[1:] == out[:-1]


def test_refuses_values_outside_its_bounds():
    cs = stats.ConfidenceSequence(0, 1)
    with pytest.raises(ValueError, match="outside"):
        cs.update([0.5, 2.0])
    with pytest.raises(ValueError, match="must exceed"):
        stats.ConfidenceSequence(1, 1)
