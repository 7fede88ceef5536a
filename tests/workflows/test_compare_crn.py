"""Common random numbers shrink the variance of a paired difference (measured).

Case: Strelok with an AK-74 against a Bloodsucker, Ecolog suit (baseline)
versus SEVA suit (P-02..P-05 armour, P-19 combat), the armour comparison
designers run most. Two estimators of the difference of the means:

- paired: both variants on the same trials and streams (the paired kernel);
- independent: each variant alone, on different seeds.

Measured at the time of writing (seed-fixed, so deterministic):

- within one run of 200 000 trials, Var(x_SEVA - x_Ecolog) per trial divided
  by Var(x_Ecolog) + Var(x_SEVA) (what independent runs give) is about 0.068
  for P(knocked out) and 0.073 for wounds taken: CRN needs ~14 times fewer
  trials for the same interval;
- over 150 replicates of 2 000 trials (one chunk each), the empirical
  variance of the paired difference over that of the independent difference
  is 0.076 for P(knocked out) and 0.082 for wounds taken.

The test asserts ratios below 0.2 (both measurements) and that the two
estimators agree on the mean difference within 4.5 standard errors.
"""

from __future__ import annotations

import numpy as np

from sim.experiments import combat as combat_experiment
from sim.experiments import registry
from sim.kernels import paired
from sim.kernels.combat import KNOCKED_OUT
from sim.rules import load_ruleset
from sim.workflows import compare as C

RS = load_ruleset(None)
BASE = {"stalker": "Strelok", "enemy": "Bloodsucker", "weapons": ("AK-74",)}
EXP = registry.experiment("combat")
CASES = C.cases(RS, BASE, [C.parse_variant("armor=Ecolog suit", EXP),
                           C.parse_variant("armor=SEVA suit", EXP)])
METRICS = (KNOCKED_OUT, paired.C_WOUNDS)


def _var(total, total_sq, n):
    mean = total / n
    return (total_sq / n - mean * mean) * n / (n - 1)


def test_crn_variance_ratio_within_one_run():
    n = 200_000
    both = combat_experiment.run_combat(CASES, trials=n, seed=11, exact=False).sums
    alone0 = combat_experiment.run_combat(CASES[:1], trials=n, seed=12, exact=False).sums[0]
    alone1 = combat_experiment.run_combat(CASES[1:], trials=n, seed=13, exact=False).sums[0]
    for m in METRICS:
        var_paired = _var(both[1, paired.DIFF, m], both[1, paired.DIFF_SQ, m], n)
        var_indep = (_var(alone0[paired.SUM, m], alone0[paired.SUM_SQ, m], n)
                     + _var(alone1[paired.SUM, m], alone1[paired.SUM_SQ, m], n))
        ratio = var_paired / var_indep
        assert 0.0 < ratio < 0.2, (m, ratio)
        paired_diff = both[1, paired.DIFF, m] / n
        indep_diff = (alone1[paired.SUM, m] - alone0[paired.SUM, m]) / n
        assert abs(paired_diff - indep_diff) < 4.5 * np.sqrt((var_paired + var_indep) / n)


def _per_chunk(cases, seed, n, reps):
    """Sums of each block of ``n`` trials: one kernel call, one chunk per replicate."""
    args, _, _ = combat_experiment.combat_inputs(cases, exact=False)
    out = np.zeros((reps, len(cases), paired.N_SUMS, paired.N_COMBAT_METRICS))
    paired.paired_combat_kernel(seed, n * reps, n, 0, *args, out)
    return out


def test_crn_variance_ratio_over_replicates():
    n, reps = 2_000, 150
    both = _per_chunk(CASES, 21, n, reps)
    paired_diffs = both[:, 1, paired.DIFF] / n
    alone0 = _per_chunk(CASES[:1], 22, n, reps)[:, 0, paired.SUM] / n
    alone1 = _per_chunk(CASES[1:], 23, n, reps)[:, 0, paired.SUM] / n
    indep_diffs = alone1 - alone0
    for m in METRICS:
        ratio = paired_diffs[:, m].var(ddof=1) / indep_diffs[:, m].var(ddof=1)
        assert ratio < 0.2, (m, ratio)
