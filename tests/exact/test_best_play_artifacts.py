"""Best play with artefacts (issue 24): an artefact the player may leave unused never lowers
best play, the kernel playing such a plan agrees with its exact value, and
``zonesim artifacts --policy best`` says what each artefact is worth when used well.

The solver against the brute force on tiny fights with artefacts is in
``tests/exact/test_best_play.py`` (``ART_TINY``).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.encounter.anomaly import compile_anomaly
from sim.encounter.combat import CombatPolicy, compile_combat
from sim.exact.best_combat import OBJECTIVES, solve_combat
from sim.exact.best_hazard import solve_anomaly
from sim.exact.combat import OUTCOMES, combat_exact
from sim.experiments.combat import deck_names, simulate
from sim.experiments.setups import resolve_setup
from sim.kernels import combat as kernel
from sim.rules.scenario import load_scenario
from tests.conftest import assert_matches_exact

EPS = 1e-9


@pytest.fixture(scope="module")
def base():
    scenario = load_scenario("base")
    return scenario.ruleset, resolve_setup("combat", scenario, {}, {})


def fight(rs, setup, enemy, artifacts=()):
    """The base stalker and loadout against ``enemy``, carrying ``artifacts`` besides."""
    return compile_combat(rs, setup["stalker"], enemy, setup["armor"], tuple(setup["weapons"]),
                          tuple(setup["items"]), CombatPolicy(), tuple(artifacts))


@pytest.mark.parametrize("objective", ["survive", "kill"])
def test_no_artefact_lowers_best_play_in_any_base_fight(base, objective):
    """Issue 24, section 3 ("Artefacts"): every artefact of the base set, carried by the base
    stalker against every base enemy card, leaves best play at least as good as carrying
    nothing (P-08: the player decides whether a use pays; no artefact has a passive effect
    in a fight). 13 artefacts x 14 cards, exact values."""
    rs, setup = base
    goal = OBJECTIVES[objective]
    worse = []
    for enemy in deck_names(rs, "all"):
        bare = solve_combat(fight(rs, setup, enemy), goal).value
        for name in rs.artifacts:
            value = solve_combat(fight(rs, setup, enemy, [name]), goal).value
            if value < bare - EPS:
                worse.append((enemy, name, bare, value))
    assert not worse


def test_the_thresholds_do_let_an_artefact_lower_a_fight(base):
    """Guard: used whenever its rule allows (the thresholds), Stone flower's failed
    activations (psi 1, P-09) raise P(knocked out) against the Controller (0.565 -> 0.668),
    so the test above checks something a policy can get wrong."""
    rs, setup = base
    bare = combat_exact(fight(rs, setup, "Controller")).outcomes["knocked_out"]
    used = combat_exact(fight(rs, setup, "Controller", ["Stone flower"])).outcomes["knocked_out"]
    assert used > bare + 0.05


def test_no_artefact_lowers_best_play_in_any_base_anomaly(base):
    """The same in anomalies (P-08, P-35, P-36): best play with each base artefact is at
    least as good as without, on every anomaly card (exact Fractions, no tolerance)."""
    rs, setup = base
    worse = []
    for anomaly in rs.anomalies:
        for objective in ("survive", "kill"):
            goal = OBJECTIVES[objective]
            bare = solve_anomaly(compile_anomaly(rs, setup["stalker"], anomaly, setup["armor"]),
                                 goal).value
            for name in rs.artifacts:
                spec = compile_anomaly(rs, setup["stalker"], anomaly, setup["armor"],
                                       artifacts=(name,))
                if solve_anomaly(spec, goal).value < bare:
                    worse.append((anomaly, objective, name))
    assert not worse


def test_a_second_artefact_never_lowers_best_play(base):
    """One more artefact never lowers best play (issue 24, section 3, "Monotone"): Crystal
    (heal) and Stone flower (combat dice) together against the cards where each helps."""
    rs, setup = base
    for enemy in ("Chimera", "Bloodsucker", "Boar"):
        for goal in OBJECTIVES.values():
            one = max(solve_combat(fight(rs, setup, enemy, [a]), goal).value
                      for a in ("Crystal", "Stone flower"))
            both = solve_combat(fight(rs, setup, enemy, ["Crystal", "Stone flower"]), goal)
            assert both.value >= one - EPS


@pytest.mark.parametrize(("enemy", "artifacts"), [
    ("Chimera", ("Stone flower",)),
    ("Bloodsucker", ("Crystal", "Stone flower")),
    ("Controller", ("Sparkler", "Moonlight")),
    ("Boar", ("Stone blood", "Sparkler")),
])
def test_the_kernel_playing_a_plan_with_artefacts_matches_its_exact_value(base, enemy,
                                                                          artifacts):
    """Issue 24, section 2, with artefacts: the kernel reads the round's heal/calm choice,
    then the doses, action and stealth/resist artefacts from the plan, and agrees with the
    exact twin following the same plan on every outcome (|z| < 4.5 at 400,000 fights)."""
    rs, setup = base
    spec = fight(rs, setup, enemy, artifacts)
    plan = solve_combat(spec, OBJECTIVES["survive"])
    counts = simulate(spec, 400_000, 13, plan=plan)
    exact = combat_exact(spec, plan)
    assert_matches_exact(counts[:kernel.N_OUTCOMES], 400_000,
                         [exact.outcomes[o] for o in OUTCOMES], OUTCOMES)
    assert abs(1 - exact.outcomes["knocked_out"] - plan.value) < EPS


def test_a_kernel_using_every_artefact_disagrees_with_the_plan(base):
    """Guard: fights by the thresholds (every artefact used) do not match the exact outcomes
    of a plan that leaves Stone flower unused against the Controller."""
    rs, setup = base
    spec = fight(rs, setup, "Controller", ["Stone flower"])
    plan = solve_combat(spec, OBJECTIVES["survive"])
    counts = simulate(spec, 400_000, 13)
    exact = combat_exact(spec, plan)
    with pytest.raises(pytest.fail.Exception):
        assert_matches_exact(counts[:kernel.N_OUTCOMES], 400_000,
                             [exact.outcomes[o] for o in OUTCOMES], OUTCOMES)


def test_zonesim_artifacts_policy_best_shows_what_each_artefact_is_worth():
    """``zonesim artifacts base --policy best`` (issue 24, "Done when"): every artefact's exact
    change in P(knocked out) over the enemy deck is <= 0 under best play, where the
    thresholds make Stone flower raise it; ``--games 0`` compares no whole games."""
    args = ["artifacts", "base", "--trials", "4000", "--format", "json"]
    best = CliRunner().invoke(main, [*args, "--policy", "best", "--games", "0"])
    assert best.exit_code == 0, best.output
    doc = json.loads(best.stdout)
    assert doc["policy"] == "best" and doc["objective"] == "survive"
    assert doc["campaign"] == "whole games not compared"
    assert len(doc["rows"]) == 13
    assert all(r["combat_knocked_out_exact"] <= EPS for r in doc["rows"])
    flower = {r["artifact"]: r for r in doc["rows"]}["Stone flower"]
    assert flower["combat_knocked_out_exact"] < -0.001
    thresholds = CliRunner().invoke(main, [*args, "--games", "0", "--artifact", "Stone flower"])
    rows = json.loads(thresholds.stdout)["rows"]
    assert rows[0]["combat_knocked_out_exact"] > 0.01
    table = CliRunner().invoke(main, ["artifacts", "base", "--trials", "2000", "--policy", "best",
                                      "--artifact", "Crystal", "--games", "0"])
    assert "encounters played by best play (survive)" in table.output
