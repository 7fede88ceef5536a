"""Dice of the plain-Python references, rolled one at a time."""

from __future__ import annotations

import random


def pool_test(rand: random.Random, dice: int, success_on: int, need: int) -> bool:
    """A pool test (P-16, P-19, P-31, P-32): ``need`` successes among ``dice`` d6.

    A die succeeds on ``success_on`` or more; ``need <= 0`` passes without rolling.
    """
    if need <= 0:
        return True
    return sum(rand.randint(1, 6) >= success_on for _ in range(dice)) >= need
