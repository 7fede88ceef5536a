"""Exact twins of the skirmish rules (seed 003) against brute-force enumeration of dice."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import product

import pytest

from sim.exact import dice as exact_dice
from sim.exact import skirmish as ex
from sim.rules.skirmish_loader import load_scenario
from sim.skirmish.compile import compile_scenario


def test_beda_example_s27():
    # S-27: Beda, Skill 4, three dice at two zombies (two shots, then one), rolls 6, 5, 4:
    # totals 10 and 9 hit the first zombie; 8 misses the second ("second or further target").
    assert ex.allocate_hits([6, 5, 4], 4, [2, 1], [0, 0]) == (2, 0)
    # The dice are sorted high to low before allocation (S-26): order of the roll is irrelevant.
    dist = ex.volley_distribution(4, [2, 1], [0, 0])
    assert dist[(2, 0)] > 0


@pytest.mark.parametrize("skill", range(0, 7))
def test_hit_table_rows_s30(skill):
    # S-30: 3-7 miss; 8 misses on any row-8 condition; 9 misses in cover or at a third target;
    # 10+ always hits. Totals of 2 or less miss (assumption).
    for level, order in product(range(3), range(3)):
        want = Fraction(0)
        for d in range(1, 7):
            total = d + skill
            lvl = 2 if order >= 2 else (max(level, 1) if order == 1 else level)
            hit = total >= 10 or (total == 9 and lvl < 2) or (total == 8 and lvl == 0)
            want += Fraction(hit, 6)
        assert ex.hit_probability(skill, level, order) == want


def test_condition_levels_s31():
    assert ex.condition_level("cover") == 2
    assert ex.condition_level("partial") == 1
    assert ex.condition_level(prone=True) == 1
    assert ex.condition_level(fast=True) == 1
    assert ex.condition_level(two_weapons=True) == 1
    assert ex.condition_level("open") == 0


# S-30 miss conditions of a target of each level (sim.exact.skirmish.condition_level).
_CONDITIONS = {0: set(), 1: {"partial cover"}, 2: {"cover"}}


def _s30_hit(total, conditions, order):
    """The hit table (S-30) row by row: ``order`` 0 is the first target."""
    if total >= 10:
        return True
    if total == 9:
        return "cover" not in conditions and order < 2          # third or further target
    if total == 8:
        return not conditions and order == 0                    # any row-8 condition
    return False                                                # 3-7, and below the table


def _s26_hits(roll, skill, alloc, levels):
    """S-26 as written: arrange the dice high to low and hand them out target by target."""
    dice = sorted(roll, reverse=True)
    hits = []
    for order, (shots, level) in enumerate(zip(alloc, levels, strict=True)):
        mine, dice = dice[:shots], dice[shots:]
        hits.append(sum(_s30_hit(d + skill, _CONDITIONS[level], order) for d in mine))
    return tuple(hits)


def _brute_volley(skill, alloc, levels):
    # Every ordered roll of 6**n, allocated independently of sim.exact.skirmish.
    out = defaultdict(Fraction)
    n = sum(alloc)
    for dice in product(range(1, 7), repeat=n):
        out[_s26_hits(dice, skill, alloc, levels)] += Fraction(1, 6**n)
    return dict(out)


def test_independent_allocation_reads_the_beda_example_s27():
    # The test's own S-26 allocation gives the seed's worked result, in any roll order.
    for roll in ([6, 5, 4], [4, 6, 5], [5, 4, 6]):
        assert _s26_hits(roll, 4, [2, 1], [0, 0]) == (2, 0)


@pytest.mark.parametrize(("skill", "alloc", "levels"),
                         [(4, [2, 1], [0, 0]), (3, [3], [1]), (2, [1, 1, 1], [0, 1, 2]),
                          (5, [2, 2], [2, 0]), (0, [4], [0]), (6, [1, 3], [1, 1])])
def test_volley_distribution_matches_brute_force(skill, alloc, levels):
    # S-26: multiset enumeration agrees with all 6**n ordered rolls.
    assert ex.volley_distribution(skill, alloc, levels) == _brute_volley(skill, alloc, levels)


@pytest.mark.parametrize("skill", range(0, 7))
@pytest.mark.parametrize("covering", [False, True])
def test_group_reaction_single_member_is_reaction_distribution(skill, covering):
    # S-11, S-15: one member of a group reads the shared dice like a single test.
    joint = ex.group_reaction_distribution([skill], [covering], extra=1, cap=2)
    single = exact_dice.reaction_distribution(skill, 3 if covering else 2, 2)
    assert [joint.get((n,), Fraction(0)) for n in range(3)] == single
    assert ex.reaction_passes(skill) == exact_dice.reaction_distribution(skill)


def test_group_reaction_shares_dice_s10():
    # S-10, S-11: two Skill-6 members always pass both dice together; shared dice correlate.
    assert ex.group_reaction_distribution([6, 6]) == {(2, 2): Fraction(1)}
    joint = ex.group_reaction_distribution([3, 3])
    assert set(joint) == {(0, 0), (1, 1), (2, 2)}


def test_duel_markov_chain_is_a_distribution():
    fight = compile_scenario(load_scenario("configs/skirmish/duel.toml"))
    d = ex.duel(fight)
    assert sum(d.p_win) + d.p_draw == 1
    assert sum(d.rounds) == 1
    for g in range(2):
        assert sum(d.shot[g]) == 1 and sum(d.lost[g]) == 1


def test_duel_refuses_larger_fights():
    with pytest.raises(ValueError, match="one figure per side"):
        ex.duel(compile_scenario(load_scenario("configs/skirmish/street.toml")))
