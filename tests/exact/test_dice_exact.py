"""Exact twins of the dice primitives against brute-force enumeration of all dice."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from sim.exact import dice as exact


def _all_rolls(n):
    return itertools.product(range(1, 7), repeat=n)


@pytest.mark.parametrize("n", range(0, 6))
@pytest.mark.parametrize("face", range(2, 7))
def test_pool_distribution_matches_enumeration(n, face):
    counts = [0] * (n + 1)
    for roll in _all_rolls(n):
        counts[sum(d >= face for d in roll)] += 1
    assert exact.pool_distribution(n, face) == [Fraction(c, 6**n) for c in counts]
    for need in range(-1, n + 2):
        passed = sum(counts[max(need, 0):]) if need > 0 else 6**n
        assert exact.pool_pass(n, face, need) == Fraction(passed, 6**n)


@pytest.mark.parametrize("wounds", range(0, 5))
@pytest.mark.parametrize("resist", [None, 2, 3, 5, 6])
@pytest.mark.parametrize(("durability", "tokens"), [(1, 0), (3, 0), (4, 3), (5, 2)])
def test_armor_distribution_matches_enumeration(wounds, resist, durability, tokens):
    through = [0] * (wounds + 1)
    destroyed = 0
    for roll in _all_rolls(wounds):
        # P-02..P-06 literally: each success places a token until the armour breaks.
        t, taken = tokens, 0
        for die in roll:
            if resist is not None and t < durability and die >= resist:
                t += 1
            else:
                taken += 1
        through[taken] += 1
        destroyed += resist is not None and t == durability
    p_through, p_destroyed = exact.armor_distribution(wounds, resist, durability, tokens)
    assert p_through == [Fraction(c, 6**wounds) for c in through]
    assert p_destroyed == Fraction(destroyed, 6**wounds)


def test_ecolog_burner_example_p06():
    # P-06: 3 thermal wounds, Ecolog 3+, durability 4 with 3 tokens; rolls 2, 3, 6 give
    # 2 wounds through and the armour is destroyed. Exact: 2 through unless no die >= 3.
    through, destroyed = exact.armor_distribution(3, 3, 4, 3)
    assert through == [0, 0, Fraction(26, 27), Fraction(1, 27)]
    assert destroyed == Fraction(26, 27)


@pytest.mark.parametrize("skill", range(0, 8))
@pytest.mark.parametrize(("n_dice", "cap"), [(2, 2), (3, 2)])
def test_reaction_distribution_matches_enumeration(skill, n_dice, cap):
    counts = [0] * (cap + 1)
    for roll in _all_rolls(n_dice):
        counts[min(sum(d <= skill for d in roll), cap)] += 1
    assert exact.reaction_distribution(skill, n_dice, cap) == [
        Fraction(c, 6**n_dice) for c in counts
    ]


def test_reaction_skill_4_example_s11():
    # S-11: Skill 4 passes 2, 1, 0 dice with 4/9, 4/9, 1/9.
    assert exact.reaction_distribution(4) == [Fraction(1, 9), Fraction(4, 9), Fraction(4, 9)]


@pytest.mark.parametrize("target", range(-1, 9))
def test_threshold_matches_enumeration(target):
    assert exact.threshold_pass(target) == Fraction(sum(d >= target for d in range(1, 7)), 6)
    assert exact.threshold_pass(target, automatic=True) == 1


def test_event_table_z09():
    # Z-09: avoid on 4+: none 3/6, Bag of nuts (+1) 4/6, Dosimeter (+2) 5/6, Torsion 6/6.
    assert exact.event_avoid(4) == Fraction(3, 6)
    assert exact.event_avoid(4, shift=1) == Fraction(4, 6)
    assert exact.event_avoid(4, shift=2) == Fraction(5, 6)
    assert exact.event_avoid(4, automatic=True) == 1


def test_escape_example_z16():
    # Z-16: Reputation 5 avoids on 5-6; with the Camouflage cloak (2) on 3-6.
    assert exact.escape(5) == Fraction(2, 6)
    assert exact.escape(5, rating=2) == Fraction(4, 6)
    assert exact.escape(5, rating=1) == Fraction(3, 6)
    assert exact.escape(5, rating=3) == Fraction(5, 6)
