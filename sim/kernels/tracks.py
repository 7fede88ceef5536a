"""The stalker's tracks at their limits (P-37, P-39, P-40): one statement of each threshold.

Health at 0 or below is a knock-out (P-37), Willpower at 0 or below a
concussion (P-40): either track is then *exhausted*; radiation doses above
the maximum are a deformation (P-39), which ends no fight. The fight, the
anomaly and event damage and the campaign's conditions all read these, so a
reading of a threshold is changed in one place.
"""

from __future__ import annotations

from sim.jitting.options import jit
from sim.kernels import layout as S


@jit(inline="always")
def exhausted(level):
    """Health or Willpower at 0 or below: a knock-out (P-37) or a concussion (P-40)."""
    return level <= 0


@jit(inline="always")
def onto(target, points):
    """A damage of ``points`` on its track (``TARGET_*``, P-37, P-39, P-40) as the points
    lost ``(health, radiation, willpower)``.
    """
    if target == S.TARGET_HEALTH:
        return points, 0, 0
    if target == S.TARGET_WILLPOWER:
        return 0, 0, points
    return 0, points, 0


@jit(inline="always")
def deformed(radiation, radiation_max):
    """Radiation above its maximum: a deformation (P-39), not a knock-out."""
    return radiation > radiation_max
