"""The exact combat twin against brute-force enumeration, and worked examples of the rules.

``sim.reference.enumeration`` enumerates every face of every die of fights
capped at one or two rounds, with the weapons chosen from the cards and no
Markov chain (icepool's habit: fast algorithms checked by brute force). The
twin (:mod:`sim.exact.combat`) must agree to float rounding on every outcome,
the token distribution and every expectation, on cases that exercise each
rule: the avoid rolls, flee, heal, melee halving, limited weapons, armour
destruction, psi.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from sim.encounter.combat import CombatPolicy, compile_combat
from sim.encounter.loadout import CloseCombatRules, WeaponSlot, tabulate
from sim.exact.combat import OUTCOMES, combat_exact
from sim.kernels.layout import AVOID_REPUTATION
from sim.reference.enumeration import absorb, enumerate_fight, passes
from sim.rules import load_ruleset
from sim.rules.traits import EnemyTraits

RS = load_ruleset(None)
TOL = 1e-12  # float rounding of the chain's sums; a wrong rule moves a value by >= 6**-8


def spec(stalker="Strelok", enemy="Bandit", armor=None, weapons=(), items=(), rounds=2,
         **policy_and_changes):
    policy = {k: policy_and_changes.pop(k) for k in ("sneak", "flee_at", "heal_at")
              if k in policy_and_changes}
    base = compile_combat(RS, stalker, enemy, armor, weapons, items, CombatPolicy(**policy))
    return replace(base, max_rounds=rounds, **policy_and_changes)


CASES = {
    "stealth avoid, one round (P-16)": spec(rounds=1),
    "reputation avoid with the cloak (Z-15, Z-16)": spec(items=("Camouflage cloak",),
                                                         avoid_rule=AVOID_REPUTATION),
    "fight for the trophy, armour (P-17, P-02)": spec(sneak="never", armor="Leather jacket"),
    "flee in round 2 (P-21)": spec(enemy="Mercenary", sneak="never", flee_at=5),
    "flee failed: damage, then knocked out (P-21)": spec(
        enemy="Bloodsucker", sneak="never", flee_at=6, start_health=4),
    "stimulants before each round (Z-12..Z-14)": spec(
        enemy="Boar", sneak="never", items=("Stimulant", "Stimulant"), heal_at=5,
        start_health=3),
    "healing burns above the maximum (Z-14)": spec(
        enemy="Bloodsucker", sneak="never", stimulants=(6,), heal_at=1, start_health=1),
    "melee enemy halves the rifle from round 2 (P-29)": spec(
        enemy="Bloodsucker", sneak="never", weapons=("SVD sniper rifle", "Knife")),
    "knife and grenade, grenade spent once (P-23)": spec(
        enemy="Chimera", sneak="never", weapons=("Knife", "Grenade", "PM pistol"), combat=2),
    "shotgun takes both hands (P-23)": spec(
        enemy="Snork", sneak="never", weapons=("Shotgun", "Grenade"), combat=2),
    "armour destroyed mid-fight (P-05, P-06)": spec(
        enemy="Chimera", sneak="never", armor="Ecolog suit", tokens=2, combat=2),
    "armour already destroyed": spec(enemy="Boar", sneak="never", armor="Ecolog suit",
                                     tokens=4),
    "psi enemy on Willpower, no stimulants (P-40)": spec(
        enemy="Controller", sneak="never", armor="SEVA suit", items=("Stimulant",), heal_at=5),
    "short range halved under the Gap key": spec(
        enemy="Boar", sneak="never", weapons=("PM pistol", "Shotgun"),
        loadout=tabulate([WeaponSlot("PM pistol", 1, 1, "short", None),
                          WeaponSlot("Shotgun", 2, 2, "short", None)],
                         CloseCombatRules(melee_enemy=True, short_range_full=False))),
    "ambush: no avoid roll (P-22, P-16)": spec(traits=EnemyTraits(ambush=True)),
    "ambush: no Reputation roll either (P-22, Z-16)": spec(
        items=("Camouflage cloak",), avoid_rule=AVOID_REPUTATION,
        traits=EnemyTraits(ambush=True)),
    "piercing: the armour does not roll (P-22, P-02)": spec(
        enemy="Boar", sneak="never", armor="Ecolog suit", traits=EnemyTraits(piercing=True)),
    "relentless: no flight (P-22, P-21)": spec(enemy="Mercenary", sneak="never", flee_at=5,
                                               traits=EnemyTraits(relentless=True)),
    "flees after round 1 (P-22)": spec(enemy="Chimera", sneak="never", armor="Ecolog suit",
                                       traits=EnemyTraits(flees=1)),
    "flees after round 2, the cap first (P-22)": spec(
        enemy="Chimera", sneak="never", traits=EnemyTraits(flees=2)),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_exact_twin_matches_enumeration(case):
    exact, brute = combat_exact(case), enumerate_fight(case)
    for outcome in OUTCOMES:
        assert exact.outcomes[outcome] == pytest.approx(float(brute.outcomes[outcome]),
                                                        abs=TOL), outcome
    assert sum(brute.outcomes.values()) == 1
    for tokens, p in enumerate(exact.tokens):
        assert p == pytest.approx(float(brute.tokens.get(tokens, 0)), abs=TOL), tokens
    for name in ("mean_wounds", "mean_rounds", "mean_stimulants", "mean_limited_spent"):
        assert getattr(exact, name) == pytest.approx(float(getattr(brute, name)), abs=TOL), name
    if case.durability:
        assert exact.p_destroyed == pytest.approx(
            float(brute.tokens.get(case.durability, 0)), abs=TOL)


def test_cases_exercise_every_rule():
    # A case list that missed a branch could not catch a fault in it.
    brute = {name: enumerate_fight(case) for name, case in CASES.items()}
    assert brute["flee in round 2 (P-21)"].outcomes["fled"] > 0
    assert brute["stimulants before each round (Z-12..Z-14)"].mean_stimulants > 0
    assert brute["knife and grenade, grenade spent once (P-23)"].mean_limited_spent > 0
    assert brute["armour destroyed mid-fight (P-05, P-06)"].tokens.get(4, 0) > 0
    assert brute["stealth avoid, one round (P-16)"].outcomes["capped"] > 0
    assert brute["flee failed: damage, then knocked out (P-21)"].outcomes["knocked_out"] > 0
    assert brute["reputation avoid with the cloak (Z-15, Z-16)"].outcomes["avoided"] > 0


# --- worked examples of the rule text ------------------------------------------------------


def test_p06_ecolog_suit_against_a_burner():
    # P-06: 3 thermal wounds, Ecolog thermal 3+, durability 4 with 3 tokens; dice 2, 3, 6:
    # the 3 fills the last token (absorbed), the 6 finds no armour left: 2 wounds taken.
    suit = RS.armor["Ecolog suit"]
    assert (suit.resistance("thermal"), suit.durability) == (3, 4)
    assert absorb((2, 3, 6), 3, 4, 3) == (2, 4)
    # The twin agrees on the whole distribution: P(3 wounds through) = P(no die >= 3).
    brute = enumerate_fight(spec(enemy="Boar", sneak="never", armor="Ecolog suit", tokens=3,
                                 combat=0, wounds=3, resist=3, rounds=1, start_health=9,
                                 health=9))
    assert brute.outcomes["capped"] == 1 and brute.mean_wounds == 3 - (1 - Fraction(2, 6) ** 3)


def test_z16_reputation_five_with_and_without_the_cloak():
    # Z-16: Reputation 5 (Strelok) avoids on 5-6 (2/6); with the Camouflage cloak on 3-6 (4/6);
    # Smoke bomb 3/6, Stealth generator 5/6 by the same formula.
    assert RS.stalkers["Strelok"].reputation == 5
    for items, p in (((), Fraction(2, 6)), (("Camouflage cloak",), Fraction(4, 6)),
                     (("Smoke bomb",), Fraction(3, 6)), (("Stealth generator",), Fraction(5, 6)),
                     (("Smoke bomb", "Camouflage cloak"), Fraction(4, 6))):  # Z-17: best one
        case = spec(items=items, avoid_rule=AVOID_REPUTATION, rounds=1)
        assert combat_exact(case).outcomes["avoided"] == pytest.approx(float(p), abs=TOL)
        assert enumerate_fight(case).outcomes["avoided"] == p


def test_p29_rifle_halved_against_a_melee_enemy():
    # P-29: round 1 gives the SVD's full +3; from round 2 only 3 // 2 = 1, and the knife
    # (melee, +1) becomes usable but the rifle takes both hands: 4 + 3 dice, then 4 + 1.
    case = spec(enemy="Bloodsucker", sneak="never", weapons=("SVD sniper rifle", "Knife"),
                wounds=0, start_health=6)
    kill_1 = passes(7, 5, 4)
    kill_2 = passes(5, 5, 4)
    assert enumerate_fight(case).outcomes["killed"] == kill_1 + (1 - kill_1) * kill_2
    assert combat_exact(case).outcomes["killed"] == pytest.approx(
        float(kill_1 + (1 - kill_1) * kill_2), abs=TOL)


def test_p19_kill_needs_successes_equal_to_toughness():
    # P-19: a kill needs successes >= Toughness (Bandit 2) on Combat 4 dice at 5+.
    case = spec(sneak="never", rounds=1)
    p = 1 - Fraction(4, 6) ** 4 - 4 * Fraction(2, 6) * Fraction(4, 6) ** 3
    assert enumerate_fight(case).outcomes["killed"] == p
    assert combat_exact(case).outcomes["killed"] == pytest.approx(float(p), abs=TOL)
