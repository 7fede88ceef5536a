"""Combat kernel (P-14..P-29, Z-12..Z-17) against its exact Markov-chain twin.

Every case runs 1e6 fights at a fixed seed; each outcome must agree with the
exact probability within |z| < 4.5 (tests/conftest.py), and mean wounds and
mean rounds within 4.5 sample standard errors.
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from sim import stats
from sim.encounter import combat as lib
from sim.encounter.loadout import CloseCombatRules, WeaponSlot, tabulate
from sim.encounter.spec import CombatSpec
from sim.exact.combat import OUTCOMES, combat_exact
from sim.experiments import combat as combat_experiment
from sim.kernels import combat as kernel
from sim.kernels.layout import AVOID_REPUTATION
from sim.reference import combat as reference
from sim.rules import load_ruleset
from tests.conftest import MC_TRIALS, Z_TOL, assert_matches_exact

RS = load_ruleset(None)
SEED = 424242


def check_spec(spec: CombatSpec, trials: int = MC_TRIALS, seed: int = SEED):
    counts = combat_experiment.simulate(spec, trials, seed)
    exact = combat_exact(spec)
    assert sum(exact.outcomes.values()) == pytest.approx(1.0, abs=1e-12)
    assert_matches_exact(counts[:kernel.N_OUTCOMES], trials,
                         [exact.outcomes[o] for o in OUTCOMES], labels=list(OUTCOMES))
    assert_matches_exact(counts[kernel.TOKENS:], trials, exact.tokens)
    assert_matches_exact([counts[kernel.DESTROYED]], trials, [exact.p_destroyed])
    for total, square, expected in (
        (kernel.SUM_WOUNDS, kernel.SUM_WOUNDS_SQ, exact.mean_wounds),
        (kernel.SUM_ROUNDS, kernel.SUM_ROUNDS_SQ, exact.mean_rounds),
    ):
        z = stats.mean_z_score(counts[total], counts[square], trials, expected)
        assert abs(z) < Z_TOL, (total, z)
    return counts, exact


STALKERS = list(RS.stalkers)
LOADOUTS = [(), ("AK-74",), ("Knife", "PM pistol"), ("Shotgun", "Grenade"), ("SVD sniper rifle",)]
ARMOURS = [None, "Leather jacket", "Ecolog suit", "SEVA suit"]
POLICIES = [lib.CombatPolicy(), lib.CombatPolicy(sneak="never"),
            lib.CombatPolicy(sneak="never", flee_at=3),
            lib.CombatPolicy(flee_at=2, heal_at=3)]
ITEMS = [(), ("Stimulant", "Stimulant"), ("Medkit",)]


FACTORS = (STALKERS, list(RS.enemies), ARMOURS, LOADOUTS, POLICIES, ITEMS)
GRID_SIZE = 60


def _grid():
    """60 base-set combinations: a seeded random sample covering every level of every factor.

    Each factor's levels are dealt round-robin into 60 slots and shuffled
    independently of the other factors, so every stalker, enemy, armour,
    loadout, policy and item set is run at least 60 // levels times, in
    random company (a plain stride through the product tied the policy to the
    items and never ran some policies).
    """
    rand = random.Random(SEED)
    columns = []
    for levels in FACTORS:
        column = [levels[i % len(levels)] for i in range(GRID_SIZE)]
        rand.shuffle(column)
        columns.append(column)
    return list(zip(*columns, strict=True))


def test_grid_covers_every_level_of_every_factor():
    grid = _grid()
    assert len(set(grid)) == GRID_SIZE
    for k, levels in enumerate(FACTORS):
        counts = [sum(case[k] == level for case in grid) for level in levels]
        assert min(counts) >= GRID_SIZE // len(levels), (k, counts)


@pytest.mark.parametrize(("stalker", "enemy", "armor", "weapons", "policy", "items"), _grid())
def test_base_set_grid_matches_exact(stalker, enemy, armor, weapons, policy, items):
    spec = lib.compile_combat(RS, stalker, enemy, armor, weapons, items, policy)
    check_spec(spec)


def _spec(**changes) -> CombatSpec:
    base = lib.compile_combat(RS, "Strelok", "Bloodsucker", "Ecolog suit", ("AK-74",))
    return replace(base, **changes)


def _loadout(*slots, melee=True):
    return tabulate(list(slots), CloseCombatRules(melee_enemy=melee))


EDGE_CASES = {
    "no armour": dict(resist=0, durability=0),
    "armour destroyed mid-fight": dict(resist=2, durability=3, wounds=3),
    "armour nearly broken": dict(durability=4, tokens=3),
    "melee enemy, long-range weapon (P-29)": dict(
        loadout=_loadout(WeaponSlot("AK", 3, 2, "long", None))),
    "melee weapons only from round 2": dict(
        loadout=_loadout(WeaponSlot("Knife", 2, 1, "melee", None),
                         WeaponSlot("Pistol", 1, 1, "short", None))),
    "grenades spent first round": dict(
        loadout=_loadout(WeaponSlot("Grenade", 2, 1, "short", 1),
                         WeaponSlot("Grenade", 2, 1, "short", 1),
                         WeaponSlot("Pistol", 1, 1, "short", None))),
    "zero-dice pool": dict(combat=0, loadout=_loadout()),
    "need 0 kills at once": dict(endurance=0, sneak=False),
    "vigilance 0 always avoided": dict(vigilance=0),
    "flee policy": dict(sneak=False, flee_at=5),
    # P-21: fleeing is tried "in the next round", never in round 1, even when the stalker
    # starts at or below his flee threshold.
    "flee wanted from round 1": dict(sneak=False, start_health=2, flee_at=3),
    "stimulants in combat": dict(stimulants=(1, 2, 1), heal_at=4, sneak=False),
    "reputation avoid rule (Z-16)": dict(avoid_rule=AVOID_REPUTATION, escape_target=3),
    "capped fight": dict(wounds=0, combat=0, loadout=_loadout(), sneak=False, max_rounds=7),
    "low health start": dict(start_health=1, stimulants=(2,), heal_at=1),
}


@pytest.mark.parametrize("changes", EDGE_CASES.values(), ids=EDGE_CASES.keys())
def test_edge_cases_match_exact(changes):
    check_spec(_spec(**changes))


def test_exact_edge_values():
    assert combat_exact(_spec(endurance=0, sneak=False)).outcomes["killed"] == 1.0
    assert combat_exact(_spec(vigilance=0)).outcomes["avoided"] == 1.0
    capped = combat_exact(_spec(wounds=0, combat=0, loadout=_loadout(), sneak=False,
                                max_rounds=7))
    assert capped.outcomes["capped"] == 1.0 and capped.mean_rounds == 7.0
    zero = combat_exact(_spec(combat=0, loadout=_loadout(), sneak=False))
    assert zero.outcomes["knocked_out"] == pytest.approx(1.0)


@pytest.mark.parametrize("changes", [{}, EDGE_CASES["flee policy"],
                                     EDGE_CASES["stimulants in combat"],
                                     EDGE_CASES["grenades spent first round"]])
def test_plain_python_reference_matches_exact(changes):
    # The readable reference rolls one die at a time; 60,000 fights keep this test quick.
    spec = _spec(**changes)
    trials = 60_000
    counts = reference.simulate(spec, trials, seed=5)
    exact = combat_exact(spec)
    assert_matches_exact([counts[o] for o in OUTCOMES], trials,
                         [exact.outcomes[o] for o in OUTCOMES], labels=list(OUTCOMES))


def test_counts_identical_for_one_and_two_threads():
    spec = _spec(sneak=False, flee_at=2, stimulants=(1,), heal_at=2)
    one = combat_experiment.simulate(spec, 300_000, 11, threads=1)
    two = combat_experiment.simulate(spec, 300_000, 11, threads=2)
    assert np.array_equal(one, two)
    assert not np.array_equal(one, combat_experiment.simulate(spec, 300_000, 12, threads=2))


def test_loadout_table_p23_p29():
    slots = [WeaponSlot("AK", 3, 2, "long", None), WeaponSlot("Knife", 1, 1, "melee", None),
             WeaponSlot("Grenade", 2, 1, "short", 1), WeaponSlot("Pistol", 1, 1, "short", None)]
    melee = tabulate(slots, CloseCombatRules(melee_enemy=True))
    # Round 1 vs a Melee enemy: AK full (3); with the grenade too many hands -> AK alone,
    # grenade kept (ties prefer spending nothing).
    assert melee.bonus[0] == (3, 3)
    assert melee.spend[0] == (0, 0)
    # Round 2+: AK halves to 1; grenade 2 + knife 1 = 3 beats pistol + knife.
    assert melee.bonus[1] == (2, 3)
    assert melee.spend[1] == (0, 1)
    ranged = tabulate(slots, CloseCombatRules(melee_enemy=False))
    assert ranged.bonus == ((3, 3), (3, 3))  # the knife is never usable (P-29 Gap key)
