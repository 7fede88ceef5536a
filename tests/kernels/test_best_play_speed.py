"""The kernel's played plans (issue 24, section 4): what makes a plan's fight as fast as the
thresholds' must play the same fights.

Without artefacts the combat kernel reads a plan as
:func:`sim.kernels.combat.played_entries` (each entry's doses as the Health they restore,
their number and the move of the entry's index, the round's stride included) and keeps the
entry's index as the state changes. These tests check the played entries against the doses
taken one by one in plain Python (Z-12..Z-14: in the order carried, Health capped at its
maximum), and the kernel's plan path against its thresholds path dice for dice on loadouts
with limited-use weapons and stimulants (P-23, Z-12), where the index moves with the wounds,
the armour's tokens, the doses and the weapons' uses.
No test here is timed: the speed is measured by ``benchmarks/bench_best_play.py``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sim.encounter.combat import CombatPolicy, compile_combat
from sim.encounter.plan import CombatPlan, decode, entry, fight_action, thresholds_plan
from sim.experiments.combat import simulate
from sim.kernels import combat as kernel
from sim.kernels import layout as S
from sim.rules import load_ruleset


def fight(enemy, weapons=("AK-74", "Grenade"), items=("Stimulant", "Medkit", "Stimulant"),
          heal_at=3, flee_at=0, sneak="always"):
    return compile_combat(load_ruleset(), "Strelok", enemy, "Stalker suit", weapons, items,
                          CombatPolicy(sneak=sneak, flee_at=flee_at, heal_at=heal_at))


def doses_taken(health, used, doses, health_max, stimulants):
    """Health after ``doses`` doses from dose ``used`` on (Z-12..Z-14), one at a time."""
    for value in stimulants[used:used + doses]:
        health = min(health_max, health + value)
    return health


def expected_played(spec, plan, stimulants, health_max, wrong=False):
    """The played entries computed in plain Python from the plan's decisions; ``wrong``
    forgets the cap at maximum Health (the guard)."""
    shape = plan.shape
    strides = shape.strides
    out = []
    for i, value in enumerate(plan.entries):
        health = i // strides[2] % shape.dims[2]
        used = i // strides[5] % shape.dims[5]
        doses, action, _ = decode(int(value))
        doses = min(doses, len(stimulants) - used)
        after = (health + sum(stimulants[used:used + doses]) if wrong
                 else doses_taken(health, used, doses, health_max, stimulants))
        gain = after - health
        out.append(gain + (doses << kernel.GAIN_BITS) + (action << S.PLAN_ACTION_SHIFT)
                   + ((strides[0] + gain * strides[2] + doses * strides[5])
                      << S.PLAN_ART_SHIFT))
    return np.asarray(out, dtype=np.int64)


def every_dose_now(spec) -> CombatPlan:
    """A plan that takes every dose left at once in every state and fights with the
    Grenade allowed: doses at full Health, where the cap decides."""
    shape = thresholds_plan(spec).shape
    entries = np.zeros(shape.size, dtype=np.int64)
    for rnd in range(1, shape.rounds + 1):
        for health, tokens, used, uses, _, _ in shape.states():
            entries[shape.index(rnd, health, tokens, used, uses)] = entry(
                shape.stimulants - used, fight_action(1))
    entries.flags.writeable = False
    return CombatPlan(shape, True, entries)


@pytest.mark.parametrize("make", [thresholds_plan, every_dose_now])
def test_played_entries_are_the_doses_taken_one_by_one(make):
    """Each played entry holds the Health its doses restore (Z-12..Z-14, capped at the
    maximum), their number and the index move they make, and keeps the action (P-21,
    P-23); a rule that forgets the cap gives other entries (the guard, on the plan that
    takes its doses at full Health)."""
    spec = fight("Bloodsucker")
    plan = make(spec)
    packed, played = plan.pack(spec.pack())
    stimulants = list(spec.stimulants)
    health_max = int(packed.params[S.P_HEALTH])
    assert played.flags.writeable  # as NO_PLAN: one compiled kernel for plans and thresholds
    assert np.array_equal(played, expected_played(spec, plan, stimulants, health_max))
    if make is every_dose_now:
        assert not np.array_equal(
            played, expected_played(spec, plan, stimulants, health_max, wrong=True))


@pytest.mark.parametrize("enemy", ["Bloodsucker", "Boar", "Chimera", "Controller"])
def test_the_kept_index_plays_the_thresholds_dice_for_dice_with_limited_weapons(enemy):
    """The kernel's plan path keeps the entry's index as Health, tokens, doses and the
    Grenade's uses change (P-02..P-05, P-23, Z-12): the thresholds written as a plan (heal
    at 3, flee at 2 from round 2, P-21) give the thresholds' counts bit for bit on the same
    seed; a plan that never flees does not (the guard)."""
    spec = fight(enemy, flee_at=2)
    counts = simulate(spec, 100_000, 3)
    assert np.array_equal(simulate(spec, 100_000, 3, plan=thresholds_plan(spec)), counts)
    other = thresholds_plan(replace(spec, flee_at=0))
    assert not np.array_equal(simulate(spec, 100_000, 3, plan=other), counts)


def test_a_plan_with_artefacts_keeps_its_entries():
    """A fight with an artefact (P-08) is played by the kernel's variant with artefacts'
    code, which reads the plan's own entries: pack gives them as they are, in an array
    the kernel may take as it takes ``NO_PLAN`` (writable), and the plan's stay read-only."""
    from sim.exact.best_combat import solve_combat

    spec = compile_combat(load_ruleset(), "Strelok", "Boar", "Stalker suit", ("AK-74",),
                          ("Stimulant",), CombatPolicy(heal_at=2), ("Crystal",))
    plan = solve_combat(spec)
    _, entries = plan.pack(spec.pack())
    assert np.array_equal(entries, plan.entries) and entries.flags.writeable
    assert not plan.entries.flags.writeable


def test_the_kernel_playing_doses_at_full_health_matches_its_exact_value():
    """Doses taken at full Health restore nothing (Z-14, the cap): the kernel playing
    :func:`every_dose_now` by its played entries agrees with the exact twin following the
    plan's own entries on every outcome and on the doses taken (|z| < 4.5, 400,000 fights,
    a fixed seed)."""
    from sim.exact.combat import OUTCOMES, combat_exact
    from tests.conftest import assert_matches_exact

    spec = fight("Bloodsucker")
    plan = every_dose_now(spec)
    n = 400_000
    counts = simulate(spec, n, 19, plan=plan)
    exact = combat_exact(spec, plan)
    assert_matches_exact(counts[:kernel.N_OUTCOMES], n, [exact.outcomes[o] for o in OUTCOMES],
                         OUTCOMES)
    # doses per fight lie in 0..k (k carried): variance at most k**2 / 4, so 4.5 standard
    # errors are at most 4.5 * k / 2 / sqrt(n)
    k = len(spec.stimulants)
    assert abs(counts[kernel.SUM_STIMULANTS] / n - exact.mean_stimulants) < 4.5 * k / 2 / n**0.5
