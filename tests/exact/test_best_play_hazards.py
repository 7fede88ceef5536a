"""Best play in anomalies and events (issue 24, P-36, P-08, Z-08..Z-10): the solver against a
brute force over every deterministic decision, never worse than the fixed policies, an
artefact the player may leave unused never hurts, and the kernel playing the decisions
against their exact value.

The brute force evaluates each decision (enter after noticing or not, every subset of the
artefact records) with the exact twins following it; it shares nothing with the two-step
backward induction of :mod:`sim.exact.best_hazard`.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.encounter.anomaly import HazardPlay, compile_anomaly, compile_event
from sim.exact.anomaly import OUTCOMES, anomaly_exact
from sim.exact.best_combat import OBJECTIVES, value_objective
from sim.exact.best_hazard import anomaly_objective, event_objective, solve_anomaly, solve_event
from sim.exact.event import event_exact
from sim.experiments.anomaly import simulate_anomaly
from sim.kernels import anomaly as kernel
from sim.rules import load_ruleset
from tests.conftest import assert_matches_exact

GOALS = {**OBJECTIVES, "value": value_objective(1.0, wound=0.05, killed=0.5)}
RESIST = ("Fireball", "Flash", "Slime", "Stone blood")


@pytest.fixture(scope="module")
def rs():
    return load_ruleset()


def every_play(spec, anomaly=True):
    for enter in ((False, True) if anomaly else (False,)):
        for used in range(1 << len(spec.artifacts)):
            yield HazardPlay(enter, used)


def brute(spec, goal):
    return max(anomaly_objective(anomaly_exact(spec, p), goal) for p in every_play(spec))


@pytest.mark.parametrize("health", [1, 2, 3])
def test_the_solver_finds_the_brute_force_optimum(rs, health):
    """P-36, P-08: on every base anomaly, Health 1 to 3, carrying the four resist
    artefacts, the solver's decisions are worth the best of all 32 decisions, exactly."""
    for name in rs.anomalies:
        spec = compile_anomaly(rs, "Strelok", name, "Stalker suit", artifacts=RESIST,
                               state=_state(health))
        for goal in GOALS.values():
            play = solve_anomaly(spec, goal)
            value = anomaly_objective(anomaly_exact(spec, play), goal)
            assert value == brute(spec, goal), (name, goal.name)
            assert abs(float(value) - play.value) < 1e-12


def _state(health):
    from sim.encounter.anomaly import StartState
    return StartState(health=health)


def test_the_brute_force_sees_a_wrong_solver(rs):
    """Guard: a solver that ignores the bonus die (P-36) or uses every artefact is beaten."""
    spec = compile_anomaly(rs, "Strelok", "Burner", "Stalker suit", artifacts=("Fireball",),
                           state=_state(3))
    goal = GOALS["value"]
    wrong = solve_anomaly(replace(spec, deck=tuple(0 for _ in spec.deck)), goal)
    assert anomaly_objective(anomaly_exact(spec, wrong), goal) < brute(spec, goal)


def test_best_play_is_never_worse_than_enter_or_go_around(rs):
    """Every base anomaly, each objective: best play >= both fixed policies (P-36)."""
    for name in rs.anomalies:
        for enter in (False, True):
            spec = compile_anomaly(rs, "Strelok", name, "Stalker suit", enter=enter,
                                   artifacts=RESIST, state=_state(2))
            for goal in GOALS.values():
                fixed = anomaly_objective(anomaly_exact(spec), goal)
                best = anomaly_objective(anomaly_exact(spec, solve_anomaly(spec, goal)), goal)
                assert best >= fixed, (name, enter, goal.name)


def test_an_artefact_left_unused_at_will_never_lowers_best_play(rs):
    """P-08: every base artefact, every anomaly and event card, each objective."""
    for art, health in itertools.product(rs.artifacts, (1, 2, 3)):
        for cards, make, solve in ((rs.anomalies, compile_anomaly, solve_anomaly),
                                   (rs.events, compile_event, solve_event)):
            for name in cards:
                bare = make(rs, "Strelok", name, "Stalker suit", state=_state(health))
                held = make(rs, "Strelok", name, "Stalker suit", artifacts=(art,),
                            state=_state(health))
                for goal in GOALS.values():
                    assert solve(held, goal).value >= solve(bare, goal).value - 1e-12, \
                        (art, name, goal.name)


def test_the_event_item_is_no_decision(rs):
    """Z-08..Z-10: on every base event, the best item held is worth at least every other
    choice (none, or any single item) under each objective, so best play is today's rule."""
    items = [n for n, i in rs.items.items() if i.effect == "event_avoid"]
    for name, health in itertools.product(rs.events, (1, 2)):
        best = compile_event(rs, "Strelok", name, "Stalker suit", items, state=_state(health))
        for goal in GOALS.values():
            top = event_objective(event_exact(best), goal)
            for choice in [(), *((i,) for i in items)]:
                other = compile_event(rs, "Strelok", name, "Stalker suit", choice,
                                      state=_state(health))
                assert event_objective(event_exact(other), goal) <= top, (name, choice)


@pytest.mark.parametrize("name", ["Burner", "Whirligig"])
def test_the_kernel_playing_the_decisions_matches_their_exact_value(rs, name):
    """|z| < 4.5 at 400,000 encounters, a fixed seed, under the kill objective."""
    spec = compile_anomaly(rs, "Strelok", name, "Stalker suit", artifacts=RESIST,
                           state=_state(2))
    play = solve_anomaly(spec, GOALS["kill"])
    assert play.enter
    n = 400_000
    counts = simulate_anomaly(spec, n, 5, play=play)
    exact = anomaly_exact(spec, play)
    assert_matches_exact([*counts[:kernel.N_OUTCOMES], counts[kernel.ARTIFACT]], n,
                         [*(exact.outcomes[o] for o in OUTCOMES), exact.artifact],
                         [*OUTCOMES, "artifact"])


def _compare(kind: str, *args: str) -> dict:
    result = CliRunner().invoke(main, ["compare", kind, "--stalker", "Strelok", *args,
                                       "--trials", "20000", "--format", "json"])
    assert result.exit_code == 0, result.output
    return {(r["variant"], r["metric"]): r for r in json.loads(result.stdout)["rows"]}


def test_compare_anomaly_plays_best_play_as_a_variant_on_common_random_numbers():
    """``compare anomaly --variant policy=best`` (issue 24, "every comparison under best
    play"): best play for the trophy finds artefacts at least as often as going around
    (P-35, P-36), exactly, with a paired interval; best play to survive equals the policy
    of going around on this stalker (a tie goes to going around)."""
    rows = _compare("anomaly", "--anomaly", "all", "--armor", "Stalker suit",
                    "--variant", "policy=thresholds", "--variant", "policy=best",
                    "--variant", "policy=best;objective=kill")
    kill = rows[("policy=best;objective=kill", "artifact")]
    assert kill["diff_exact"] > 0.05 and kill["diff_ci_low"] > 0
    assert kill["verdict"] == "better"
    survive = rows[("policy=best", "knocked_out")]
    assert survive["diff_exact"] == 0 and survive["diff"] == 0


def test_compare_event_under_best_play_equals_the_policy_without_artefacts():
    """An event's only decision without artefacts is the event item, and the best held is
    always used (Z-10): ``compare event --variant policy=best`` changes no number."""
    rows = _compare("event", "--event", "all", "--variant", "policy=thresholds",
                    "--variant", "policy=best")
    changed = [k for k, r in rows.items() if k[0] == "policy=best" and r["diff"] != 0]
    assert not changed and len(rows) == 20
