"""The race's "clearly worse" rule (:func:`sim.workflows.race.clearly_worse`; issue 43).

A challenger leaves a race as clearly worse only when the paired 95 % interval of its
difference to the leader (challenger minus leader) lies wholly on the worse side of 0:
below 0 when the metric is maximised, above 0 when it is minimised. An interval that
touches 0 or merely crosses it keeps the challenger. Reading the wrong end of the
interval (or ``<=`` for ``<``) drops challengers that may be as good as the leader; each
case below fails under one such fault.
"""

from __future__ import annotations

import pytest

from sim.experiments.base import Metric
from sim.workflows.race import Objective, clearly_worse

MAXIMISE = Objective(Metric("p_sarcophagus", "proportion", "higher"))
MINIMISE = Objective(Metric("knockouts", "mean", "lower"))
TINY = 1e-9


def _diff(low: float, high: float) -> dict:
    return {"diff": (low + high) / 2, "diff_ci_low": low, "diff_ci_high": high}


@pytest.mark.parametrize(("low", "high", "worse"), [
    (-0.30, -0.10, True),     # wholly below 0: clearly worse
    (-0.20, -TINY, True),     # just below 0 at its top end: still wholly below
    (-0.20, 0.0, False),      # touches 0: could be as good
    (-TINY, 0.20, False),     # dips just below 0 at its low end: not worse
    (-0.10, 0.10, False),     # straddles 0
    (0.0, 0.20, False),       # touches 0 from above: better or equal
    (0.10, 0.30, False),      # wholly above 0: better
])
def test_a_maximised_metric_drops_only_an_interval_wholly_below_zero(low, high, worse):
    assert MAXIMISE.sign == 1
    assert clearly_worse(MAXIMISE, _diff(low, high)) is worse


@pytest.mark.parametrize(("low", "high", "worse"), [
    (0.10, 0.30, True),       # wholly above 0: more of a bad thing, clearly worse
    (TINY, 0.20, True),       # just above 0 at its low end: still wholly above
    (0.0, 0.20, False),       # touches 0: could be as good
    (-0.20, TINY, False),     # crosses just above 0 at its top end: not worse
    (-0.10, 0.10, False),     # straddles 0
    (-0.20, 0.0, False),      # touches 0 from below: better or equal
    (-0.30, -0.10, False),    # wholly below 0: better
])
def test_a_minimised_metric_drops_only_an_interval_wholly_above_zero(low, high, worse):
    assert MINIMISE.sign == -1
    assert clearly_worse(MINIMISE, _diff(low, high)) is worse
