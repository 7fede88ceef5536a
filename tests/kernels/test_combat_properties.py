"""Property tests of the exact combat chain (hypothesis): sums and monotonicity.

Checked on exact values, so no statistical tolerance is involved.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from sim.encounter.loadout import CloseCombatRules, WeaponSlot, tabulate
from sim.encounter.spec import CombatSpec
from sim.exact.combat import combat_exact
from sim.kernels.layout import AVOID_STEALTH

EPS = 1e-12


@st.composite
def specs(draw):
    health = draw(st.integers(1, 7))
    durability = draw(st.integers(0, 5))
    melee = draw(st.booleans())
    slots = draw(st.lists(st.builds(
        WeaponSlot, st.just("w"), st.integers(0, 3), st.integers(0, 2),
        st.sampled_from(["long", "short", "melee"]), st.sampled_from([None, 1, 2])),
        max_size=3))
    return CombatSpec(
        health=health, start_health=draw(st.integers(1, health)),
        combat=draw(st.integers(0, 5)), stealth=draw(st.integers(0, 5)),
        vigilance=draw(st.integers(0, 5)), endurance=draw(st.integers(0, 5)),
        wounds=draw(st.integers(0, 4)),
        resist=draw(st.integers(2, 6)) if durability else 0, durability=durability,
        tokens=0, success_on=draw(st.integers(2, 6)), sneak=draw(st.booleans()),
        avoid_rule=AVOID_STEALTH, escape_target=4,
        flee_at=draw(st.integers(0, 3)), heal_at=draw(st.integers(0, 3)),
        stimulants=tuple(draw(st.lists(st.integers(1, 3), max_size=2))),
        loadout=tabulate(slots, CloseCombatRules(melee_enemy=melee)), max_rounds=30,
    )


def not_knocked_out(spec):
    # Monotonicity holds for fights without a flee threshold: with flee_at, better
    # protection can keep Health above the threshold so the stalker fights on and is
    # knocked out where a weaker one would have fled (hypothesis found: Health 3,
    # 2 wounds a round, flee at 1, Vigilance 0: no armour flees surely, armour of
    # durability 1 is knocked out 3/4 of the time). That is the policy's fault, not
    # the rules'. A heal threshold does the same (Health 3, 2 wounds a round, heal at 1
    # with one stimulant of 2: no armour heals back to 3, armour leaves Health at 2 with
    # no healing and the next hit knocks out). So the monotone properties are checked
    # without threshold policies.
    spec = replace(spec, flee_at=0, heal_at=0)
    return 1.0 - combat_exact(spec).outcomes["knocked_out"]


@settings(max_examples=150, deadline=None)
@given(specs())
def test_outcome_probabilities_sum_to_one(spec):
    exact = combat_exact(spec)
    assert abs(sum(exact.outcomes.values()) - 1.0) < EPS
    assert abs(sum(exact.tokens) - 1.0) < EPS
    assert all(p >= -EPS for p in exact.outcomes.values())


@settings(max_examples=150, deadline=None)
@given(specs(), st.integers(1, 3))
def test_more_durability_never_hurts(spec, extra):
    # P-03: a sturdier armour absorbs at least as much.
    if spec.durability == 0:
        spec = replace(spec, resist=4)
    better = replace(spec, durability=spec.durability + extra)
    assert not_knocked_out(better) >= not_knocked_out(spec) - EPS


@settings(max_examples=150, deadline=None)
@given(specs())
def test_better_resistance_never_hurts(spec):
    # P-02: a lower absorbing face means more absorbed wounds.
    if spec.durability == 0 or spec.resist <= 2:
        return
    better = replace(spec, resist=spec.resist - 1)
    assert not_knocked_out(better) >= not_knocked_out(spec) - EPS


@settings(max_examples=150, deadline=None)
@given(specs(), st.integers(1, 3))
def test_more_health_never_hurts(spec, extra):
    # P-37: a knock-out needs Health to reach 0; more of it can only delay that.
    better = replace(spec, health=spec.health + extra, start_health=spec.start_health + extra)
    assert not_knocked_out(better) >= not_knocked_out(spec) - EPS


@settings(max_examples=150, deadline=None)
@given(specs())
def test_higher_vigilance_never_raises_avoidance(spec):
    # P-16: Vigilance is the need of the Stealth test.
    harder = replace(spec, vigilance=spec.vigilance + 1)
    assert combat_exact(harder).outcomes["avoided"] <= combat_exact(spec).outcomes["avoided"] + EPS
