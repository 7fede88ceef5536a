"""Reference artefact rules (P-08..P-10), one die at a time.

The readable statement of :mod:`sim.kernels.artifact`: every use of an
artefact is an automatic use (P-09: it works, the side effect happens) or an
Intellect test rolled die by die (P-10: a pass works and avoids the side
effect; a failure follows ``artifacts.failed_activation``). Side effects are
collected per track in a :class:`Harm` and applied by the caller, not
rolled against the armour (P-09: "cannot avoid them").
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from sim.encounter.artifact import ArtifactSpec
from sim.kernels.layout import (
    ART_RESIST,
    FAIL_NOTHING,
    FAIL_SIDE_EFFECT,
    SIDE_NONE,
    TARGET_HEALTH,
    TARGET_RADIATION,
    TARGET_WILLPOWER,
)
from sim.reference.dice import pool_test


@dataclass
class Harm:
    """Side-effect points per track and the count of uses and side effects."""

    points: dict = field(default_factory=lambda: {TARGET_HEALTH: 0, TARGET_RADIATION: 0,
                                                  TARGET_WILLPOWER: 0})
    uses: int = 0
    side_effects: int = 0


def use(a: ArtifactSpec, fail_rule: int, rand: random.Random, harm: Harm) -> bool:
    """Use artefact ``a`` once; True when its effect works. Side effects go into ``harm``."""
    harm.uses += 1
    if a.auto:
        works, hurt = True, True
    elif pool_test(rand, a.pool, a.face, a.need):
        works, hurt = True, False
    else:
        works = fail_rule not in (FAIL_NOTHING, FAIL_SIDE_EFFECT)
        hurt = fail_rule != FAIL_NOTHING
    if hurt and a.side_target != SIDE_NONE and a.side_value > 0:  # "none" is no side effect
        harm.side_effects += 1
        harm.points[a.side_target] += a.side_value
    return works


def absorb(arts: Sequence[ArtifactSpec], fail_rule: int, order: int, damage: int, face: int,
           durability: int, tokens: int, rand: random.Random, harm: Harm) -> tuple[int, int]:
    """One damage through the resist artefacts and the armour: ``(through, tokens)`` (P-08).

    ``order`` 0 (``before_armor``): each resist artefact, while points remain,
    absorbs up to its value, then the armour rolls one die per point left
    (P-06: a success absorbs while tokens fit); otherwise the armour first.
    """

    def resist(points: int) -> int:
        for a in arts:
            if a.effect == ART_RESIST and points > 0 and use(a, fail_rule, rand, harm):
                points -= min(points, a.value)
        return points

    def armor(points: int) -> int:
        nonlocal tokens
        through = points
        if face > 0:
            for _ in range(points):
                if rand.randint(1, 6) >= face and tokens < durability:
                    tokens += 1
                    through -= 1
        return through

    through = armor(resist(damage)) if order == 0 else resist(armor(damage))
    return through, tokens
