"""Monte Carlo kernels of the dice primitives against their exact twins.

Each case runs 1e6 trials at a fixed seed and requires |z| < 4.5 on every
outcome (see tests/conftest.py for why 4.5).
"""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from sim.exact import dice as exact
from sim.experiments import primitives as prob
from sim.kernels import dice as kernels
from tests.conftest import MC_TRIALS, assert_matches_exact

SEED = 12345


def _check(result):
    counts = [o.count for o in result.outcomes]
    assert_matches_exact(counts, result.trials, [o.exact for o in result.outcomes],
                         labels=[o.value for o in result.outcomes])
    return result


@pytest.mark.parametrize(("dice", "face", "need"),
                         [(0, 5, 1), (0, 5, 0), (1, 5, 1), (3, 5, 2), (4, 4, 3), (6, 6, 1),
                          (8, 2, 5), (12, 5, 4), (45, 5, 15)])
def test_pool_kernel_matches_exact(dice, face, need):
    # 45 dice exceed MAX_TABLE_DICE and roll die by die: both paths are checked.
    result = _check(prob.pool(dice, face, need, trials=MC_TRIALS, seed=SEED))
    values = [o.value for o in result.outcomes]
    assert values == [*range(dice + 1), "pass"]


@pytest.mark.parametrize(("wounds", "resist", "durability", "tokens"),
                         [(3, 3, 4, 3), (3, None, 4, 0), (1, 6, 3, 0), (5, 2, 3, 0),
                          (4, 4, 5, 1), (0, 3, 4, 0), (6, 5, 1, 0)])
def test_armor_kernel_matches_exact(wounds, resist, durability, tokens):
    result = _check(prob.armor(wounds, resist, durability, tokens, trials=MC_TRIALS,
                               seed=SEED))
    assert [o.value for o in result.outcomes][-1] == "destroyed"


def _item(name, effect, value):
    return SimpleNamespace(name=name, effect=effect, value=value)


NUTS = _item("Bag of nuts", "event_avoid", 1)
DOSIMETER = _item("Dosimeter", "event_avoid", 2)
TORSION = _item("Torsion scanner", "event_avoid", "auto")
CLOAK = _item("Camouflage cloak", "escape", 2)
SMOKE = _item("Smoke bomb", "escape", 1)


@pytest.mark.parametrize(("avoid_on", "items", "expected"),
                         [(4, [], 3 / 6), (4, [NUTS], 4 / 6), (4, [DOSIMETER], 5 / 6),
                          (4, [TORSION], 1.0), (4, [NUTS, DOSIMETER], 5 / 6),
                          (6, [NUTS, TORSION], 1.0), (2, [DOSIMETER], 1.0)])
def test_event_kernel_z09(avoid_on, items, expected):
    # Z-09 table; Z-10: items never add up (Bag of nuts + Dosimeter = Dosimeter).
    result = _check(prob.event(avoid_on, items, trials=MC_TRIALS, seed=SEED))
    assert result.outcomes[0].exact == pytest.approx(expected)


@pytest.mark.parametrize(("reputation", "items", "expected"),
                         [(5, [], 2 / 6), (5, [CLOAK], 4 / 6), (5, [SMOKE, CLOAK], 4 / 6),
                          (7, [], 0.0), (1, [], 1.0)])
def test_escape_kernel_z16(reputation, items, expected):
    # Z-16: Reputation 5 avoids on 5-6; the Camouflage cloak makes it 3-6.
    result = _check(prob.escape(reputation, items, trials=MC_TRIALS, seed=SEED))
    assert result.outcomes[0].exact == pytest.approx(expected)


@pytest.mark.parametrize("skill", [0, 1, 2, 4, 6])
@pytest.mark.parametrize("covering", [False, True])
def test_reaction_kernel_matches_exact(skill, covering):
    _check(prob.reaction(skill, covering, extra_dice=1, cap=2, trials=MC_TRIALS, seed=SEED))


def test_wrong_rule_is_detected():
    # Guard that the tolerance can fail: a pool read with the wrong success face is caught.
    result = prob.pool(4, 5, 1, trials=MC_TRIALS, seed=SEED)
    wrong = prob.pool(4, 4, 1, trials=10, seed=SEED).outcomes
    with pytest.raises(pytest.fail.Exception):
        assert_matches_exact([o.count for o in result.outcomes], MC_TRIALS,
                             [o.exact for o in wrong])


def test_pool_results_do_not_depend_on_threads():
    one = prob.pool(5, 5, 2, trials=300_000, seed=9, threads=1)
    two = prob.pool(5, 5, 2, trials=300_000, seed=9, threads=2)
    other = prob.pool(5, 5, 2, trials=300_000, seed=10, threads=2)
    assert one == two
    assert [o.count for o in one.outcomes] != [o.count for o in other.outcomes]


def test_item_with_wrong_effect_is_refused():
    with pytest.raises(prob.PrimitiveInputError, match="not event_avoid"):
        prob.event(4, [CLOAK], trials=10, seed=1)


def test_wilson_interval_covers_estimate():
    result = prob.pool(3, 5, 1, trials=MC_TRIALS, seed=SEED)
    for o in result.outcomes:
        assert o.ci_low <= o.mc <= o.ci_high
        assert np.isfinite(o.ci_low)


@pytest.mark.parametrize("face", range(0, 8))
def test_pool_tables_are_the_exact_distribution(face):
    # The kernels' 64-bit thresholds are floor(P * 2**64) of the exact twin's Fractions.
    for n in range(0, kernels.MAX_TABLE_DICE + 1, 7):
        dist = exact.binomial(n, exact.face_at_least(face))
        below = Fraction(0)
        for k in range(n + 1):
            below += dist[k]
            assert int(kernels.POOL_CDF[face, n, k]) == min(int(below * 2**64), 2**64 - 1)
        for need in range(n + 1):
            tail = sum(dist[need:], Fraction(0))
            assert int(kernels.POOL_TAIL[face, n, need]) == min(int(tail * 2**64), 2**64 - 1)
