"""Best play in fights (issue 24): the solver against brute force, monotone, never worse than
a threshold policy, and the kernel playing the plan against its exact value.

The brute force enumerates every deterministic plan of a tiny fight and evaluates each
with the exact twin following it (:func:`sim.exact.combat.combat_exact` with ``plan``): it
shares nothing with the backward induction of :mod:`sim.exact.best_combat`.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.cli import main
from sim.encounter.artifact import ArtifactRules, ArtifactSpec, combat_choices
from sim.encounter.combat import CombatPolicy, compile_combat
from sim.encounter.loadout import CloseCombatRules, WeaponSlot, tabulate
from sim.encounter.plan import (
    FLEE,
    CombatPlan,
    PlanShape,
    entry,
    fight_action,
    thresholds_plan,
)
from sim.encounter.spec import CombatSpec
from sim.exact.best_combat import (
    MAX_STATES,
    OBJECTIVES,
    BestPlayError,
    solve_combat,
    value_objective,
)
from sim.exact.combat import OUTCOMES, combat_exact
from sim.experiments.combat import simulate
from sim.kernels import combat as kernel
from sim.kernels import layout as S
from sim.kernels.layout import AVOID_STEALTH
from sim.paths import bundled_ruleset, configs_root
from sim.rules import load_ruleset
from sim.rules.scenario import load_scenario
from sim.rules.traits import EnemyTraits
from tests.conftest import assert_matches_exact
from tests.kernels.test_combat_properties import specs  # random fights (thresholds ignored here)

EPS = 1e-12


def objective_value(spec, plan, objective) -> float:
    """The objective under ``plan``, from the exact twin's outcomes and means (P-16..P-24)."""
    return objective_of(combat_exact(spec, plan), objective)


def objective_of(e, objective) -> float:
    return (sum(objective.weight(o) * e.outcomes[o] for o in OUTCOMES)
            - objective.wound * e.mean_wounds - objective.stimulant * e.mean_stimulants
            - objective.limited * e.mean_limited_spent
            - objective.side_effect * e.mean_side_effects)


def tiny(health=2, durability=0, stimulants=(), limited=False, rounds=2, wounds=1, stealth=1,
         vigilance=1, combat=1, endurance=1, flee_at=0, artifacts=(), other=1) -> CombatSpec:
    slots = [WeaponSlot("pistol", 1, 1, "short", None)]
    if limited:
        slots.append(WeaponSlot("grenade", 2, 0, "short", 1))
    return CombatSpec(
        artifacts=artifacts, other=other, other_max=other,
        art_rules=ArtifactRules(restore_uses=1),
        health=health, start_health=health, combat=combat, stealth=stealth,
        vigilance=vigilance, endurance=endurance, wounds=wounds, resist=4 if durability else 0,
        durability=durability, tokens=0, success_on=5, sneak=True, avoid_rule=AVOID_STEALTH,
        escape_target=4, flee_at=flee_at, heal_at=0, stimulants=stimulants,
        loadout=tabulate(slots, CloseCombatRules(melee_enemy=False), combat_choices(artifacts)),
        max_rounds=rounds)


def art(effect, value=1, auto=False, side=S.TARGET_HEALTH, side_value=1, hands=0, need=1):
    """A made-up artefact: an Intellect test of 2 dice needing ``need`` 5+ (P-10)."""
    return ArtifactSpec("a", effect, value, auto, 2, 5, need, side, side_value, hands)


def _subsets(spec, *effects):
    """Every record mask of the artefacts with one of ``effects``."""
    chosen = [i for i, a in enumerate(spec.artifacts) if a.effect in effects]
    return [sum(1 << i for i in combo) for k in range(len(chosen) + 1)
            for combo in itertools.combinations(chosen, k)]


def choices(spec, rnd, health, used, uses, kinds=()):
    """Every decision the rules allow in a state (doses only below maximum Health): with
    kinds of dose, how many of each kind (``uses`` then ends with each kind's doses left)."""
    n_limited = len(spec.loadout.uses)
    if kinds:
        doses = [sum(n << (S.PLAN_KIND_BITS * j) for j, n in enumerate(take))
                 for take in itertools.product(*(range(left + 1) for left in uses[n_limited:]))
                 if health < spec.health or not any(take)]
    else:
        doses = range((len(spec.stimulants) - used if health < spec.health else 0) + 1)
    available = sum(1 << j for j, n in enumerate(uses[:n_limited]) if n > 0)
    available |= spec.loadout.every_artifact
    fights = [fight_action(m) for m in range(available + 1) if m & ~available == 0]
    resist = _subsets(spec, S.ART_RESIST)
    actions = [(a, x) for a in fights for x in resist]
    if rnd >= 2 and not spec.traits.relentless:  # no flight from a relentless enemy (P-22)
        actions += [(FLEE, s) for s in _subsets(spec, S.ART_RESIST, S.ART_STEALTH)]
    return [entry(k, a, x) for k in doses for a, x in actions]


def every_plan(spec, by_kind=True):
    """Every deterministic plan over every state of the fight (states with Health >= 1):
    each heal/calm choice and each decision, and whether (and with which stealth
    artefacts) to avoid the fight."""
    kinds = tuple((v, spec.stimulants.count(v)) for v in dict.fromkeys(spec.stimulants))
    kinds = kinds if len(kinds) > 1 and by_kind else ()
    shape = PlanShape(spec.max_rounds, spec.health, spec.durability,
                      0 if kinds else len(spec.stimulants),
                      tuple(spec.loadout.uses), spec.other_max if spec.artifacts else 0,
                      tuple(i for i, a in enumerate(spec.artifacts)
                            if a.effect in (S.ART_HEAL, S.ART_CALM)),
                      spec.art_rules.restore_uses, kinds)
    cells, options = [], []
    for rnd in range(1, spec.max_rounds + 1):
        for health, tokens, used, uses, other, counts in shape.states():
            if shape.stages == 2:
                cells.append(shape.index(rnd, health, tokens, used, uses, other, counts, 0))
                options.append([entry(0, 0, r) for r in _subsets(spec, S.ART_HEAL, S.ART_CALM)])
            cells.append(shape.index(rnd, health, tokens, used, uses, other, counts))
            options.append(choices(spec, rnd, health, used, uses, kinds))
    sneaks = [(False, -1)] + [(True, s) for s in _subsets(spec, S.ART_STEALTH)]
    for sneak, select in sneaks:
        for picks in itertools.product(*options):
            entries = np.zeros(shape.size, dtype=np.int64)
            entries[cells] = picks
            yield CombatPlan(shape, sneak, entries, sneak_select=select)


TINY = {
    "two rounds, a stimulant": tiny(stimulants=(1,)),
    "two rounds, a stimulant, armour": tiny(stimulants=(1,), durability=1),
    "three rounds, a stimulant": tiny(stimulants=(1,), rounds=3),
    "a grenade, two rounds": tiny(limited=True, endurance=2),
    "a grenade, three rounds, Health 1": tiny(limited=True, rounds=3, endurance=2, health=1),
    "a grenade and a stimulant, one round": tiny(limited=True, stimulants=(2,), wounds=2,
                                                 endurance=2, rounds=1),
    "two doses, one round": tiny(stimulants=(1, 1), rounds=1, health=3),
    "a medkit or a stimulant at Health 1 (P-24, Z-12)": replace(
        tiny(stimulants=(1, 2), rounds=1, health=3, wounds=2, endurance=2), start_health=1),
}
ART_TINY = {
    "a heal artefact hurting Health, two rounds": tiny(
        artifacts=(art(S.ART_HEAL, side_value=1),), wounds=1, endurance=2),
    "a calm artefact, Willpower 2": tiny(artifacts=(art(S.ART_CALM, side=S.TARGET_HEALTH),),
                                         other=2, rounds=2, health=1),
    "an automatic resist artefact costing Willpower": tiny(
        artifacts=(art(S.ART_RESIST, auto=True, side=S.TARGET_WILLPOWER),), wounds=2,
        health=2, other=1, endurance=2),
    "a combat artefact needing both hands": tiny(
        artifacts=(art(S.ART_COMBAT, value=2, hands=2, side=S.TARGET_WILLPOWER),), other=2,
        health=1, rounds=2, endurance=2),
    "a stealth artefact, three rounds": tiny(
        artifacts=(art(S.ART_STEALTH, side=S.TARGET_HEALTH),), rounds=3, health=2,
        endurance=3),
}
TRAIT_TINY = {  # the enemy's traits (P-22) on the rule the solver and the brute force read
    "ambush, a stimulant": replace(tiny(stimulants=(1,)), traits=EnemyTraits(ambush=True)),
    "piercing, a stimulant, armour": replace(tiny(stimulants=(1,), durability=1),
                                             traits=EnemyTraits(piercing=True)),
    # best play would flee here (survive 0.605 against 0.473 without a flight)
    "relentless, three rounds, a stimulant, Health 3": replace(
        tiny(stimulants=(1,), rounds=3, health=3, wounds=2, endurance=2),
        traits=EnemyTraits(relentless=True)),
    "flees after round 2 of three, a stimulant": replace(tiny(stimulants=(1,), rounds=3),
                                                         traits=EnemyTraits(flees=2)),
    "a stealth artefact, ambush, flees after round 2": replace(
        ART_TINY["a stealth artefact, three rounds"],
        traits=EnemyTraits(ambush=True, flees=2)),
}
OBJECTIVE_CASES = {**OBJECTIVES, "value": value_objective(1.0, wound=0.05, stimulant=0.02,
                                                          limited=0.03, killed=0.1,
                                                          side_effect=0.04)}


@pytest.mark.parametrize("case", sorted(TINY) + sorted(ART_TINY) + sorted(TRAIT_TINY))
def test_the_solver_finds_the_brute_force_optimum(case):
    """Issue 24, section 3: on tiny fights every deterministic plan (72 to 8,192 of them) is
    evaluated exactly; for each objective the best of them is worth what the solver's plan
    is worth, and the solver's plan is worth what the solver says (P-16..P-24, Z-12..Z-14).
    With an artefact (P-08..P-10, P-23, P-24) the plans may use it or not in every state:
    heal and calm before a round, combat dice with the weapons, stealth on a flight or to
    avoid the fight, resist against the attack. With the enemy's traits (P-22) no plan
    avoids an ambush, none rolls the armour against a piercing enemy, none flees from a
    relentless one, and none plays a round after the enemy has fled."""
    spec = {**TINY, **ART_TINY, **TRAIT_TINY}[case]
    exacts = [combat_exact(spec, p) for p in every_plan(spec)]
    assert 64 <= len(exacts) <= 10_000
    for goal in OBJECTIVE_CASES.values():
        best = max(objective_of(e, goal) for e in exacts)
        plan = solve_combat(spec, goal)
        assert abs(plan.value - best) < 1e-9, goal.name
        assert abs(objective_value(spec, plan, goal) - plan.value) < 1e-9, goal.name


def test_the_brute_force_sees_a_solver_that_uses_every_artefact():
    """Guard: using every artefact whenever its rule allows (the threshold reading, the
    wrong rule for best play: P-08 leaves each use to the player) is beaten by the brute
    force where a use can hurt: the heal artefact's side effect costs Health."""
    spec = ART_TINY["a heal artefact hurting Health, two rounds"]
    goal = OBJECTIVES["survive"]
    best = max(objective_value(spec, p, goal) for p in every_plan(spec))
    assert best > objective_of(combat_exact(spec), goal) + 0.1


def test_the_brute_force_sees_doses_taken_only_in_the_order_carried():
    """Guard: at Health 1 of 3, against 2 wounds, carrying a stimulant (+1) then a medkit
    (+2) in a fight (P-24), the best plan takes the medkit alone; plans that take doses
    only in the order carried need both to reach Health 3, one dose more (the value
    objective charges it), so the choice by kind is worth its cost."""
    spec = TINY["a medkit or a stimulant at Health 1 (P-24, Z-12)"]
    goal = OBJECTIVE_CASES["value"]
    in_order = max(objective_value(spec, p, goal) for p in every_plan(spec, by_kind=False))
    assert solve_combat(spec, goal).value > in_order + goal.stimulant / 2


def test_the_brute_force_sees_a_wrong_solver():
    """Guard: a solver that never takes a stimulant (the wrong rule: doses are a choice,
    Z-12) is beaten by the brute force on a fight where a dose helps."""
    spec = TINY["two rounds, a stimulant"]
    goal = OBJECTIVES["survive"]
    plan = solve_combat(replace(spec, stimulants=()), goal)
    assert max(objective_value(spec, p, goal) for p in every_plan(spec)) > plan.value + 0.01


@pytest.fixture(scope="module")
def base():
    from sim.experiments.setups import resolve_setup

    scenario = load_scenario("base")
    setup = resolve_setup("combat", scenario, {}, {})
    return scenario.ruleset, setup


def base_spec(rs, setup, enemy, **policy):
    return compile_combat(rs, setup["stalker"], enemy, setup["armor"], tuple(setup["weapons"]),
                          tuple(setup["items"]), CombatPolicy(**policy))


def fightable(rs):
    from sim.experiments.combat import deck_names

    return deck_names(rs, "all")


def test_best_play_is_never_worse_than_a_threshold_policy(base):
    """Issue 24, section 3: on every base card, best play is worth at least what every
    threshold policy of a grid (sneak always/never, flee at 0..3, heal at 0..3) gets."""
    rs, setup = base
    goal = OBJECTIVES["survive"]
    for enemy in fightable(rs):
        plan = solve_combat(base_spec(rs, setup, enemy), goal)
        for sneak, flee_at, heal_at in itertools.product(("always", "never"), range(4),
                                                         range(4)):
            spec = base_spec(rs, setup, enemy, sneak=sneak, flee_at=flee_at, heal_at=heal_at)
            assert 1 - combat_exact(spec).outcomes["knocked_out"] <= plan.value + EPS, \
                (enemy, sneak, flee_at, heal_at)


def best(spec, objective="survive"):
    return solve_combat(spec, OBJECTIVES[objective]).value


@settings(max_examples=60, deadline=None)
@given(specs(), st.integers(1, 2))
def test_more_health_never_lowers_best_play(spec, extra):
    """Issue 24: more maximum and starting Health never lowers P(not knocked out) under best
    play (the thresholds fail this, docs/rules.md)."""
    more = replace(spec, health=spec.health + extra, start_health=spec.start_health + extra)
    assert best(more) >= best(spec) - EPS


@settings(max_examples=60, deadline=None)
@given(specs(), st.integers(1, 2))
def test_more_durability_never_lowers_best_play(spec, extra):
    resist = spec.resist or 4
    more = replace(spec, durability=spec.durability + extra, resist=resist)
    if spec.durability == 0:
        spec = replace(spec, resist=0)
    assert best(more) >= best(spec) - EPS


@settings(max_examples=60, deadline=None)
@given(specs())
def test_better_resistance_never_lowers_best_play(spec):
    """Without healing (see the next test for why it matters)."""
    if spec.durability == 0 or spec.resist <= 2 or spec.stimulants:
        return
    assert best(replace(spec, resist=spec.resist - 1)) >= best(spec) - EPS


def test_better_resistance_can_lower_best_play_when_the_stalker_heals():
    """A finding, not a defect: the armour's blocks are spent whether the stalker needs them
    or not (each blocked wound places a token, P-03..P-05), and Health stops at its maximum
    (Z-14). At Health 1 of 3 with two doses of 2, against 3 wounds and a durability-2 armour,
    a better resistance blocks both tokens' worth in the first attack where one would do,
    and the next attack gets through whole: P(not knocked out) 0.2250 at resistance 3,
    0.2155 at resistance 2, each the exact value of its best plan (the brute force agrees
    on the tiny fights above)."""
    spec = replace(tiny(health=3, durability=2, stimulants=(2, 2), rounds=30, wounds=3,
                        stealth=2, vigilance=2, combat=0, endurance=1),
                   start_health=1, resist=3, loadout=tabulate([], CloseCombatRules(False)))
    worse, better = best(spec), best(replace(spec, resist=2))
    assert worse == pytest.approx(0.22500522165, abs=1e-9)
    assert better == pytest.approx(0.21548770230, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(specs(), st.integers(1, 3))
def test_one_more_stimulant_never_lowers_best_play(spec, dose):
    more = replace(spec, stimulants=(*spec.stimulants, dose))
    assert best(more) >= best(spec) - EPS


def test_threshold_policies_are_not_monotone_but_best_play_is():
    """The reason for best play (docs/rules.md): with flee at 1, armour of durability 1
    lowers P(not knocked out) (Health 3, 2 wounds, Vigilance 0: without armour the stalker
    flees surely); best play with the armour is at least as good as without."""
    bare = replace(tiny(health=3, wounds=2, vigilance=0, stealth=1, combat=0, endurance=1,
                        rounds=30, flee_at=1), sneak=False)
    armour = replace(bare, durability=1, resist=4)
    ko = [combat_exact(s).outcomes["knocked_out"] for s in (bare, armour)]
    assert ko[1] > ko[0] + 0.1
    assert best(armour) >= best(bare) - EPS


@pytest.mark.parametrize("enemy", ["Bloodsucker", "Boar", "Chimera", "Flesh"])
def test_the_kernel_playing_the_plan_matches_its_exact_value(base, enemy):
    """Issue 24, section 2: the Monte Carlo kernel reading the plan and the exact twin
    following it agree on every outcome (|z| < 4.5 at 10^6 fights, a fixed seed)."""
    rs, setup = base
    spec = base_spec(rs, setup, enemy)
    plan = solve_combat(spec, OBJECTIVES["survive"])
    counts = simulate(spec, 1_000_000, 11, plan=plan)
    exact = combat_exact(spec, plan)
    assert_matches_exact(counts[:kernel.N_OUTCOMES], 1_000_000,
                         [exact.outcomes[o] for o in OUTCOMES], OUTCOMES)


@pytest.mark.parametrize("enemy", ["Boar", "Bloodsucker", "Controller"])
def test_the_thresholds_written_as_a_plan_play_the_same_fights_dice_for_dice(base, enemy):
    """The kernel's plan path against its thresholds path: the base policy (heal at 2) as a
    plan gives the same counts, bit for bit, on the same seed; a plan that flees at 1
    instead does not (the guard)."""
    rs, setup = base
    spec = base_spec(rs, setup, enemy, sneak=setup["sneak"], heal_at=setup["heal_at"])
    counts = simulate(spec, 100_000, 5)
    assert np.array_equal(simulate(spec, 100_000, 5, plan=thresholds_plan(spec)), counts)
    other = thresholds_plan(replace(spec, flee_at=1, heal_at=0))
    assert not np.array_equal(simulate(spec, 100_000, 5, plan=other), counts)


@pytest.mark.parametrize("enemy", ["Bloodsucker", "Boar"])
def test_the_kernel_playing_doses_by_kind_matches_its_exact_value(base, enemy):
    """Under ``combat.medkits_in_combat`` (P-24) the base loadout carries medkits (+2) and
    stimulants (+1): the plan chooses how many of each (Z-12), the kernel reads the choice
    and the kinds' doses left, and agrees with the exact twin (|z| < 4.5, 400,000 fights)."""
    from sim.rules.variants import apply_edits

    rs, setup = base
    rs = apply_edits(rs, ["rules.combat.medkits_in_combat=true"])
    spec = base_spec(rs, setup, enemy, heal_at=2)
    plan = solve_combat(spec, OBJECTIVES["survive"])
    assert plan.shape.kinds == ((2, 2), (1, 2))
    counts = simulate(spec, 400_000, 17, plan=plan)
    exact = combat_exact(spec, plan)
    assert_matches_exact(counts[:kernel.N_OUTCOMES], 400_000,
                         [exact.outcomes[o] for o in OUTCOMES], OUTCOMES)
    assert abs(1 - exact.outcomes["knocked_out"] - plan.value) < 1e-9
    assert exact.outcomes["knocked_out"] <= combat_exact(spec).outcomes["knocked_out"] + 1e-12


def test_a_kernel_ignoring_the_plan_disagrees_with_it(base):
    """Guard: the thresholds' fights (no plan) do not match the plan's exact outcomes on a
    card where best play flees (the Boar), so the agreement above can fail."""
    rs, setup = base
    spec = base_spec(rs, setup, "Boar")
    plan = solve_combat(spec, OBJECTIVES["survive"])
    counts = simulate(spec, 200_000, 11)
    exact = combat_exact(spec, plan)
    with pytest.raises(pytest.fail.Exception):
        assert_matches_exact(counts[:kernel.N_OUTCOMES], 200_000,
                             [exact.outcomes[o] for o in OUTCOMES], OUTCOMES)


def test_a_plan_too_large_is_refused_with_its_size():
    many = tiny(limited=True, health=40, stimulants=(1,) * 40, rounds=3000, durability=8)
    with pytest.raises(BestPlayError) as error:
        solve_combat(many)
    assert f"{MAX_STATES:,}" in str(error.value) and "states" in str(error.value)


def test_zonesim_combat_policy_best_prints_each_card_with_its_plan_in_words():
    result = CliRunner().invoke(main, ["combat", "--scenario", "base", "--enemy", "all",
                                       "--policy", "best", "--trials", "2000",
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert len(rows) == len(fightable(load_ruleset()))
    for row in rows:
        assert row["policy"] == "best (survive)"
        assert row["decisions"] and all(isinstance(line, str) for line in row["decisions"])
        assert abs(row["objective"]["exact"] - (1 - row["outcomes"]["knocked_out"]["exact"])) \
            < 1e-9
    table = CliRunner().invoke(main, ["combat", "--scenario", "base", "--enemy", "Boar",
                                      "--policy", "best", "--trials", "2000"])
    assert table.exit_code == 0 and "Boar: " in table.output and "flee" in table.output


def test_compare_plays_best_play_as_a_variant_on_common_random_numbers():
    """Issue 24, section 2: ``--variant policy=best`` plays every card by its plan in the
    paired kernel (the plans of all cards in one array); its Monte Carlo outcomes agree
    with the exact values under the plans (|z| < 4.5), and best play knocks out no more
    than the thresholds do, card by card (exact)."""
    from sim.experiments.base import Case
    from sim.experiments.combat import run_combat

    rs, setup = load_ruleset(), {"stalker": "Strelok", "enemy": "all", "armor": "Stalker suit",
                                 "weapons": ("AK-74", "Grenade"), "items": ("Stimulant",),
                                 "heal_at": 1}
    cases = [Case(rs, setup), Case(rs, {**setup, "policy": "best"})]
    n = 200_000
    sums = run_combat(cases, trials=n, seed=4)
    ko = OUTCOMES.index("knocked_out")
    assert sums.exact[1, ko] <= sums.exact[0, ko] + EPS
    assert sums.exact[1, ko] < sums.exact[0, ko] - 0.001  # the plans differ somewhere
    for v in range(2):
        mean = sums.sums[v, 0, :len(OUTCOMES)] / n  # per trial: the deck's weighted average
        se = np.sqrt(np.maximum(sums.sums[v, 1, :len(OUTCOMES)] / n - mean**2, 0) / n)
        exact = sums.exact[v, :len(OUTCOMES)]
        assert np.all(np.abs(mean - exact) <= 4.5 * se + 1e-12), (v, mean, exact)


def test_a_policy_variant_that_is_no_policy_is_refused():
    result = CliRunner().invoke(main, ["compare", "combat", "--stalker", "Strelok", "--enemy",
                                       "Bandit", "--baseline", "", "--variant", "policy=smart",
                                       "--trials", "100"])
    assert result.exit_code == 2
    assert "'smart' is not one of thresholds, best" in result.output


def _best_scenario(tmp_path, extra: str):
    text = (configs_root() / "scenarios" / "base.toml").read_text(encoding="utf-8")
    assert "[policy]\n" in text
    path = tmp_path / "best.toml"
    path.write_text(text.replace('ruleset = "base"', f'ruleset = "{bundled_ruleset()}"')
                    .replace("[policy]\n", "[policy]\n" + extra, 1), encoding="utf-8")
    return path


def test_a_scenario_asks_for_best_play_and_an_option_overrides_it(tmp_path):
    """``policy.encounters = "best"`` makes the encounter commands play each card's plan;
    ``--policy thresholds`` on the command line wins over the scenario."""
    path = _best_scenario(tmp_path, 'encounters = "best"\nobjective = "kill"\n')
    args = ["combat", "--scenario", str(path), "--enemy", "Boar", "--trials", "2000",
            "--format", "json"]
    [row] = json.loads(CliRunner().invoke(main, args).stdout)["rows"]
    assert row["policy"] == "best (kill)"
    [row] = json.loads(CliRunner().invoke(main, [*args, "--policy", "thresholds"]).stdout)["rows"]
    assert "policy" not in row


def test_best_play_keys_are_checked_and_whole_games_refuse_them(tmp_path):
    bad = _best_scenario(tmp_path, 'encounters = "smart"\n')
    result = CliRunner().invoke(main, ["combat", "--scenario", str(bad), "--enemy", "Boar"])
    assert result.exit_code == 2 and "policy.encounters" in result.output
    assert "is not one of thresholds, best" in result.output
    best = _best_scenario(tmp_path, 'encounters = "best"\n')
    result = CliRunner().invoke(main, ["campaign", str(best), "--trials", "10"])
    assert result.exit_code == 2 and "policy.encounters" in result.output


def test_the_value_objective_weighs_what_the_scenario_says(tmp_path):
    """``policy.objective = "value"`` with ``policy.weights`` (issue 24, section 1): best play
    maximises the expected weights. Against the Bloodsucker a knock-out alone costing 1
    takes stimulants (as ``survive`` does); wounds costing 0.05 too take none (a dose
    prolongs the fight: +0.009 in P(not knocked out) for +0.35 wounds), nor does a dose
    costing 2. The row's objective is the plan's exact value, the weighted outcomes less
    the costs."""
    rows = {}
    for name, weights in (("cheap", "knocked_out = 1"),
                          ("wounds", "knocked_out = 1, wound = 0.05"),
                          ("dear", "knocked_out = 1, stimulant = 2")):
        path = _best_scenario(tmp_path, f'encounters = "best"\nobjective = "value"\n'
                                        f'weights = {{ {weights} }}\n')
        result = CliRunner().invoke(main, ["combat", "--scenario", str(path), "--enemy",
                                           "Bloodsucker", "--trials", "20000", "--format",
                                           "json"])
        assert result.exit_code == 0, result.output
        [rows[name]] = json.loads(result.stdout)["rows"]
    cheap, wounds, dear = rows["cheap"], rows["wounds"], rows["dear"]
    assert cheap["policy"] == "best (value)"
    assert cheap["mean_stimulants"]["exact"] > 0.5
    assert wounds["mean_stimulants"]["exact"] == 0 == dear["mean_stimulants"]["exact"]
    assert cheap["objective"]["exact"] == pytest.approx(-cheap["outcomes"]["knocked_out"]["exact"])
    value = -wounds["outcomes"]["knocked_out"]["exact"] - 0.05 * wounds["mean_wounds"]["exact"]
    assert wounds["objective"]["exact"] == pytest.approx(value, abs=1e-9)


def test_bad_weights_are_reported_all_at_once_with_their_keys(tmp_path):
    path = _best_scenario(tmp_path, 'objective = "value"\n'
                                    'weights = { knocked_out = -1, wounds = 0.1 }\n')
    result = CliRunner().invoke(main, ["combat", "--scenario", str(path), "--enemy", "Boar"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "policy.weights.knocked_out" in result.output and "0 or more" in result.output
    assert "policy.weights.wounds" in result.output and "wound" in result.output


def test_levers_on_a_best_play_scenario_play_best_play(tmp_path):
    """Levers take the encounter's setup from the scenario's one declaration
    (:func:`sim.experiments.setups.scenario_values`), best play included."""
    from sim.rules.scenario import load_scenario as load
    from sim.workflows.levers import base_setup

    scenario = load(_best_scenario(tmp_path, 'encounters = "best"\n'))
    setup = base_setup("combat", scenario, "Boar")
    assert setup["policy"] == "best" and setup["enemy"] == "Boar"
    assert base_setup("combat", load_scenario("base"), "all")["policy"] == "thresholds"
