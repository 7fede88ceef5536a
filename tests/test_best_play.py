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
from sim.encounter.combat import CombatPolicy, compile_combat
from sim.encounter.loadout import CloseCombatRules, WeaponSlot, tabulate
from sim.encounter.plan import FLEE, CombatPlan, PlanShape, entry, fight_action
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
from sim.kernels.layout import AVOID_STEALTH
from sim.paths import bundled_ruleset, configs_root
from sim.rules import load_ruleset
from sim.rules.scenario import load_scenario
from tests.conftest import assert_matches_exact
from tests.test_combat_properties import specs  # random fights (thresholds ignored here)

EPS = 1e-12


def objective_value(spec, plan, objective) -> float:
    """The objective under ``plan``, from the exact twin's outcomes and means (P-16..P-24)."""
    return objective_of(combat_exact(spec, plan), objective)


def objective_of(e, objective) -> float:
    return (sum(objective.weight(o) * e.outcomes[o] for o in OUTCOMES)
            - objective.wound * e.mean_wounds - objective.stimulant * e.mean_stimulants
            - objective.limited * e.mean_limited_spent)


def tiny(health=2, durability=0, stimulants=(), limited=False, rounds=2, wounds=1, stealth=1,
         vigilance=1, combat=1, endurance=1, flee_at=0) -> CombatSpec:
    slots = [WeaponSlot("pistol", 1, 1, "short", None)]
    if limited:
        slots.append(WeaponSlot("grenade", 2, 0, "short", 1))
    return CombatSpec(
        health=health, start_health=health, combat=combat, stealth=stealth,
        vigilance=vigilance, endurance=endurance, wounds=wounds, resist=4 if durability else 0,
        durability=durability, tokens=0, success_on=5, sneak=True, avoid_rule=AVOID_STEALTH,
        escape_target=4, flee_at=flee_at, heal_at=0, stimulants=stimulants,
        loadout=tabulate(slots, CloseCombatRules(melee_enemy=False)), max_rounds=rounds)


def choices(spec, shape: PlanShape, rnd, health, used, uses):
    """Every decision the rules allow in a state (doses only below maximum Health)."""
    most = len(spec.stimulants) - used if health < spec.health else 0
    available = sum(1 << j for j, n in enumerate(uses) if n > 0)
    actions = [fight_action(m) for m in range(available + 1) if m & ~available == 0]
    if rnd >= 2:
        actions.append(FLEE)
    return [entry(k, a) for k in range(most + 1) for a in actions]


def every_plan(spec):
    """Every deterministic plan over every state of the fight (states with Health >= 1)."""
    shape = PlanShape(spec.max_rounds, spec.health, spec.durability, len(spec.stimulants),
                      tuple(spec.loadout.uses))
    cells, options = [], []
    for rnd in range(1, spec.max_rounds + 1):
        for health, tokens, used, uses in shape.states():
            cells.append(shape.index(rnd, health, tokens, used, uses))
            options.append(choices(spec, shape, rnd, health, used, uses))
    for sneak in (True, False):
        for picks in itertools.product(*options):
            entries = np.zeros(shape.size, dtype=np.int64)
            entries[cells] = picks
            yield CombatPlan(shape, sneak, entries)


TINY = {
    "two rounds, a stimulant": tiny(stimulants=(1,)),
    "two rounds, a stimulant, armour": tiny(stimulants=(1,), durability=1),
    "three rounds, a stimulant": tiny(stimulants=(1,), rounds=3),
    "a grenade, two rounds": tiny(limited=True, endurance=2),
    "a grenade, three rounds, Health 1": tiny(limited=True, rounds=3, endurance=2, health=1),
    "a grenade and a stimulant, one round": tiny(limited=True, stimulants=(2,), wounds=2,
                                                 endurance=2, rounds=1),
    "two doses, one round": tiny(stimulants=(1, 1), rounds=1, health=3),
}
OBJECTIVE_CASES = {**OBJECTIVES, "value": value_objective(1.0, wound=0.05, stimulant=0.02,
                                                          limited=0.03, killed=0.1)}


@pytest.mark.parametrize("case", sorted(TINY))
def test_the_solver_finds_the_brute_force_optimum(case):
    """Issue 24, section 3: on tiny fights every deterministic plan (72 to 8,192 of them) is
    evaluated exactly; for each objective the best of them is worth what the solver's plan
    is worth, and the solver's plan is worth what the solver says (P-16..P-24, Z-12..Z-14)."""
    spec = TINY[case]
    exacts = [combat_exact(spec, p) for p in every_plan(spec)]
    assert 64 <= len(exacts) <= 10_000
    for goal in OBJECTIVE_CASES.values():
        best = max(objective_of(e, goal) for e in exacts)
        plan = solve_combat(spec, goal)
        assert abs(plan.value - best) < 1e-9, goal.name
        assert abs(objective_value(spec, plan, goal) - plan.value) < 1e-9, goal.name


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
    if spec.durability == 0 or spec.resist <= 2:
        return
    assert best(replace(spec, resist=spec.resist - 1)) >= best(spec) - EPS


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
    rows = json.loads(result.output)["rows"]
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
    [row] = json.loads(CliRunner().invoke(main, args).output)["rows"]
    assert row["policy"] == "best (kill)"
    [row] = json.loads(CliRunner().invoke(main, [*args, "--policy", "thresholds"]).output)["rows"]
    assert "policy" not in row


def test_best_play_keys_are_checked_and_whole_games_refuse_them(tmp_path):
    bad = _best_scenario(tmp_path, 'encounters = "smart"\n')
    result = CliRunner().invoke(main, ["combat", "--scenario", str(bad), "--enemy", "Boar"])
    assert result.exit_code == 2 and "policy.encounters" in result.output
    assert "is not one of thresholds, best" in result.output
    best = _best_scenario(tmp_path, 'encounters = "best"\n')
    result = CliRunner().invoke(main, ["campaign", str(best), "--trials", "10"])
    assert result.exit_code == 2 and "policy.encounters" in result.output


def test_levers_on_a_best_play_scenario_play_best_play(tmp_path):
    """Levers take the encounter's setup from the scenario's one declaration
    (:func:`sim.experiments.setups.scenario_values`), best play included."""
    from sim.rules.scenario import load_scenario as load
    from sim.workflows.levers import base_setup

    scenario = load(_best_scenario(tmp_path, 'encounters = "best"\n'))
    setup = base_setup("combat", scenario, "Boar")
    assert setup["policy"] == "best" and setup["enemy"] == "Boar"
    assert base_setup("combat", load_scenario("base"), "all")["policy"] == "thresholds"
