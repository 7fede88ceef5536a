"""Skirmish checks from outside the kernel: exact small fights and hand-worked volleys.

The firefight kernel and the plain-Python reference share streams, constants and the
compiled fight, so their bit-for-bit agreement cannot catch a rule both get wrong.
Here the kernel is held against oracles written from the seed's text (S-07..S-43) and
docs/skirmish.md: the exact chain :func:`sim.exact.skirmish.small_fight`, which reads
the scenario model and shares no code with the kernel, and hit allocations (S-26) worked
out by hand. Statistical cases run 1e6 trials at a fixed seed and require |z| < 4.5 on
every outcome (tests/conftest.py explains the tolerance).
"""

from __future__ import annotations

import dataclasses
import functools
from fractions import Fraction
from pathlib import Path

import pytest

from sim.exact import skirmish as ex
from sim.experiments import skirmish as api
from sim.rules.skirmish_loader import load_scenario
from sim.skirmish.compile import compile_scenario
from tests.conftest import MC_TRIALS, assert_matches_exact

SEED = 4242
NEED = (8, 9, 10)
DATA = Path(__file__).parents[1] / "data" / "skirmish"
TWO_V_ONE = load_scenario(DATA / "two_v_one.toml")
TWO_V_TWO = load_scenario(DATA / "two_v_two.toml")
DUEL = load_scenario("configs/skirmish/duel.toml")


def _variant(scenario, rules=None, **group0):
    if rules:
        scenario = dataclasses.replace(scenario,
                                       rules=dataclasses.replace(scenario.rules, **rules))
    if group0:
        g0 = dataclasses.replace(scenario.groups[0], **group0)
        scenario = dataclasses.replace(scenario, groups=(g0, scenario.groups[1]))
    return scenario


# Two against two has a few thousand states: eight rounds keep the exact chain to seconds
# (and exercise the round cap, S-18 frame).
SHORT = {"activation_max_rounds": 8}
FIGHTS = {
    "2v1": TWO_V_ONE,
    "2v1_best_skill_kept": _variant(TWO_V_ONE, {"recover_skill": "best_in_group",
                                                "end_of_fight_cowering": "kept",
                                                "reaction_partial_cover_is": "open"}),
    "2v1_withdraw_alternate": _variant(TWO_V_ONE, {"activation_order": "alternate",
                                                   "received_fire_max_chain": 2},
                                       withdraw_at=1),
    "2v2": _variant(TWO_V_TWO, SHORT),
    "2v2_not_hit_flank_first": _variant(TWO_V_TWO, {**SHORT, "received_fire_trigger": "not_hit",
                                                    "received_fire_precedence": "flank_first",
                                                    "suppression_compare": "greater_or_equal"}),
    "2v2_fixed_no_recover": _variant(TWO_V_TWO, {**SHORT, "activation_order": "fixed",
                                                 "recover_attempt": False,
                                                 "hit_need": (9, 10, 11),
                                                 "damage_faces": ("none",) * 4 + ("out",) * 2}),
}


@functools.cache
def _exact(name: str) -> ex.FightExact:
    """The exact chain of ``FIGHTS[name]``, solved once for every test that reads it."""
    return ex.small_fight(FIGHTS[name])


def _observed_and_exact(scenario, e=None):
    """The kernel's outcomes on ``scenario`` beside the exact chain ``e`` (solved if None)."""
    r = api.simulate(scenario, trials=MC_TRIALS, seed=SEED)
    e = ex.small_fight(scenario) if e is None else e
    observed, exact, labels = [], [], []
    for name, mc, p in (("draw", r.draws, e.p_draw), ("capped", r.capped, e.p_capped)):
        observed.append(mc)
        exact.append(p)
        labels.append(name)
    for g in range(2):
        s = r.sides[g]
        for name, mc, p in (("win", s.wins, e.p_win[g]), ("broken", s.broken, e.p_broken[g]),
                            ("withdrew", s.withdrew, e.p_withdrew[g])):
            observed.append(mc)
            exact.append(p)
            labels.append(f"{name}{g}")
        for name, hist, dist in (("shot", s.shot, e.shot[g]), ("lost", s.lost, e.lost[g])):
            assert len(hist) == len(dist)
            observed.extend(hist)
            exact.extend(dist)
            labels.extend(f"{name}{g}={n}" for n in range(len(dist)))
    observed.extend(r.rounds[1:])
    exact.extend(e.rounds[1:])
    labels.extend(f"round={n}" for n in range(1, len(e.rounds)))
    return observed, exact, labels


@pytest.mark.parametrize("name", FIGHTS)
def test_kernel_matches_exact_small_fight(name):
    # S-07..S-43 with two figures a side (or two against one): every output of the
    # firefight kernel against the exact chain written from the rules.
    # "2v1" is also the S-42 guard: a cowering figure in cover that passes Recover on one
    # die returns to the fight but, unlike a two-dice returner ("may immediately take any
    # action"), does not fire in that activation. The two loners cower often and rally
    # each other, so a kernel that lets one-die returners fire at once wins measurably
    # more often. (It had its own test that ran this very fight, seed and sample again.)
    observed, exact, labels = _observed_and_exact(FIGHTS[name], _exact(name))
    assert_matches_exact(observed, MC_TRIALS, exact, labels=labels)


@pytest.mark.parametrize("name", ["bundled", "flanked", "not_hit_capped", "kept_ge"])
def test_two_exact_chains_agree_on_the_duel(name):
    # Two independent exact twins of the one-against-one fight: the duel chain on the
    # compiled arrays and the small-fight chain on the scenario model agree to the last bit.
    scenario = {
        "bundled": DUEL,
        "flanked": _variant(DUEL, {"reaction_partial_cover_is": "open"}, flanked=True),
        "not_hit_capped": _variant(DUEL, {"received_fire_trigger": "not_hit",
                                          "activation_max_rounds": 3,
                                          "activation_order": "fixed"}),
        "kept_ge": _variant(DUEL, {"end_of_fight_cowering": "kept",
                                   "suppression_compare": "greater_or_equal",
                                   "received_fire_max_chain": 1}),
    }[name]
    d = ex.duel(compile_scenario(scenario))
    s = ex.small_fight(scenario)
    assert (s.p_win, s.p_draw, s.p_capped, s.p_broken) == (d.p_win, d.p_draw, d.p_capped,
                                                           d.p_broken)
    assert (s.shot, s.lost, s.rounds) == (d.shot, d.lost, d.rounds)


@pytest.mark.parametrize("name", ["2v1", "2v2"])
def test_small_fight_is_a_distribution(name):
    e = _exact(name)
    assert sum(e.p_win) + e.p_draw == 1
    assert sum(e.rounds) == 1 and e.rounds[0] == 0
    for g in range(2):
        assert sum(e.shot[g]) == 1 and sum(e.lost[g]) == 1
    assert e.p_capped <= e.p_draw


def test_small_fight_refuses_what_it_does_not_model():
    with pytest.raises(ValueError, match="in range"):
        ex.small_fight(load_scenario("configs/skirmish/street.toml"))
    with pytest.raises(ValueError, match="visible"):
        ex.small_fight(_variant(TWO_V_ONE, hidden=True))
    with pytest.raises(ValueError, match="targets_per_shooter"):
        ex.small_fight(_variant(TWO_V_ONE, {"shooting_targets_per_shooter": 2}))


# --- hit allocation (S-26, S-30), worked by hand ----------------------------------------
#
# Each case: Skill, dice announced per target, target condition level (0 none, 1 partial,
# prone ..., 2 cover), and the full joint distribution of hits per target. Derivations:
# the dice are sorted high to low (S-26), so only how many dice fall in each class of the
# hit table matters; the counts are multinomial over 6**n rolls.
HAND = {
    # Skill 4, one die at each of two open targets. First target: 8 row, no condition,
    # hits on 4+ (the higher die). Second target misses on 8 ("second or further"), hits
    # on 5+ (the lower die). P(max >= 4) = 27/36, P(min >= 5) = 4/36.
    "two_open": (4, (1, 1), (0, 0), {(1, 1): Fraction(4, 36), (1, 0): Fraction(23, 36),
                                     (0, 0): Fraction(9, 36)}),
    # Skill 3, one die at each of three open targets: first hits on 5+, second on 6
    # (9 row), third needs 10 (3 + 6 = 9 misses a third target). Two or more sixes:
    # 3 * 5 / 216 + 1 / 216 = 16/216; no die above 4: 64/216.
    "three_open": (3, (1, 1, 1), (0, 0, 0), {(1, 1, 0): Fraction(16, 216),
                                             (1, 0, 0): Fraction(136, 216),
                                             (0, 0, 0): Fraction(64, 216)}),
    # Skill 4, two dice at each of two open targets. Classes: H = 5, 6 (hits either
    # target, weight 2), M = 4 (hits the first only, weight 1), L = 1..3 (weight 3).
    # First target: min(2, #H + #M); second: max(0, #H - 2). Out of 1296:
    # (2,2): HHHH 16; (2,1): HHHM 4*8 + HHHL 4*8*3 = 128; (1,0): #H+#M = 1: 4*2*27 + 4*27 =
    # 324; (0,0): LLLL 81; (2,0): the rest, 747.
    "two_and_two": (4, (2, 2), (0, 0), {(2, 2): Fraction(16, 1296), (2, 1): Fraction(128, 1296),
                                        (2, 0): Fraction(747, 1296), (1, 0): Fraction(324, 1296),
                                        (0, 0): Fraction(81, 1296)}),
    # Skill 5, two dice at a first target in cover (hits on 5+, the 10 row) and one at a
    # prone second target (9 row: hits on 4+). The lowest die goes to the second target,
    # so it can be hit while the first is missed. Classes H = 5, 6 (2), M = 4 (1),
    # L = 1..3 (3); first: min(2, #H); second: no L. Out of 216: (2,1) HHH 8 + HHM 12 = 20;
    # (2,0) HHL 36; (1,1) HMM 6; (1,0) HML 36 + HLL 54 = 90; (0,1) MMM 1; (0,0) 63.
    "cover_then_prone": (5, (2, 1), (2, 1), {(2, 1): Fraction(20, 216), (2, 0): Fraction(36, 216),
                                             (1, 1): Fraction(6, 216), (1, 0): Fraction(90, 216),
                                             (0, 1): Fraction(1, 216), (0, 0): Fraction(63, 216)}),
}


@pytest.mark.parametrize("name", HAND)
def test_volley_distribution_hand_worked_s26(name):
    skill, alloc, levels, want = HAND[name]
    assert sum(want.values()) == 1
    assert ex.volley_distribution(skill, alloc, levels) == want


@pytest.mark.parametrize("name", HAND)
def test_volley_kernel_hand_worked_s26(name):
    skill, alloc, levels, want = HAND[name]
    counts = api.volley_counts(skill, alloc, levels, NEED, trials=MC_TRIALS, seed=SEED)
    keys = sorted(counts)
    assert_matches_exact([counts[key] for key in keys], MC_TRIALS,
                         [want.get(key, 0) for key in keys], labels=keys)
