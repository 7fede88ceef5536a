"""What a test's modifier does: the one place that reads ``dice.modifier``.

The rule texts make a test with "a modifier equal to the enemy's Vigilance"
(P-16, P-21), the anomaly's eye value (P-31) or its skull value (P-32), but
never say what the modifier does (digest Gap "Test procedure"). Two readings
are offered:

- ``successes`` (default): the pool needs that many successes, each die
  succeeding on ``dice.success_on`` or more (the Combat test counts
  successes against Toughness in the same way, P-19).
- ``face``: the modifier is the die face each die must reach ("N+" as on
  the armour, P-02), and one success passes; a modifier of 1 or less passes
  without rolling, above 6 the test cannot pass.

Every compile step turns a modifier into the ``(face, need)`` pair of a
pool test here, so the kernels, exact twins and references only ever see a
face and a number of successes.
"""

from __future__ import annotations

IMPOSSIBLE_FACE = 7
"""A die face no d6 reaches: the test cannot pass."""


def test_terms(modifier: int, success_on: int, reading: str) -> tuple[int, int]:
    """``(face, need)`` of a pool test with ``modifier`` under ``dice.modifier``.

    Parameters
    ----------
    modifier : int
        The card's modifier (Vigilance, an anomaly's eye or skull value, the
        artefact find modifier).
    success_on : int
        ``dice.success_on``: the face of a success under the ``successes`` reading.
    reading : str
        ``"successes"`` or ``"face"`` (``dice.modifier``).

    Returns
    -------
    tuple of int
        The die face a die needs and the successes needed (``need <= 0``
        passes without rolling).
    """
    if reading == "successes":
        return success_on, modifier
    if modifier <= 1:
        return success_on, 0
    return min(modifier, IMPOSSIBLE_FACE), 1
