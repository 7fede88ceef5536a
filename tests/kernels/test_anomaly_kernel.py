"""Anomaly kernel (P-30..P-36) against its exact twin, the plain-Python reference, and itself.

Monte Carlo vs exact: every base anomaly x two stalker states (a fresh
Strelok; a worn-down Ghost, so that knock-outs, concussions and deformations
happen) x three armours (none, Ecolog suit, SEVA suit) x enter on/off = 84
combinations at 1e6 trials each, |z| < 4.5 on every probability and mean
(see tests/conftest.py for why 4.5).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sim import runner, stats
from sim.encounter.anomaly import StartState, compile_anomaly
from sim.exact.anomaly import OUTCOMES, anomaly_exact
from sim.experiments.anomaly import anomaly_table, simulate_anomaly
from sim.kernels import anomaly as k
from sim.reference import anomaly as reference
from sim.rules import load_ruleset
from tests.conftest import MC_TRIALS, Z_TOL, assert_matches_exact

RS = load_ruleset(None)
SEED = 4242
WORN = StartState(health=2, willpower=2, radiation=4)
STALKERS = [("Strelok", StartState()), ("Ghost", WORN)]
ARMOURS = [None, "Ecolog suit", "SEVA suit"]


def _state(state: StartState, armor: str | None) -> StartState:
    # Worn-down armour too: 2 tokens already on it (P-04), so the durability cap bites.
    if armor is None or state.health is None:
        return state
    return StartState(state.health, state.willpower, state.radiation, tokens=2)


def check_kernel(spec, counts, trials) -> None:
    """Every probability and mean of a kernel run against the exact twin (|z| < Z_TOL)."""
    exact = anomaly_exact(spec)
    labels = [*OUTCOMES, "perceived", "deformation", "artifact", "trophy", "destroyed"]
    observed = [*(counts[i] for i in range(k.N_OUTCOMES)), counts[k.PERCEIVED],
                counts[k.DEFORMATION], counts[k.ARTIFACT], counts[k.UNHARMED] + counts[k.DAMAGED],
                counts[k.DESTROYED]]
    expected = [*(exact.outcomes[o] for o in OUTCOMES), exact.perceived, exact.deformation,
                exact.artifact, exact.trophy, exact.armor_destroyed]
    assert_matches_exact(observed, trials, expected, labels)
    assert counts[: k.N_OUTCOMES].sum() == trials
    assert_matches_exact([counts[k.SEARCHES]], trials, [exact.searched], ["searched"])
    z = stats.mean_z_score(counts[k.SUM_LOSS], counts[k.SUM_LOSS_SQ], trials,
                           float(exact.mean_loss))
    assert abs(z) < Z_TOL, f"mean loss z={z:.2f}"
    if counts[k.SEARCHES]:
        z = stats.mean_z_score(counts[k.SUM_DRAWS], counts[k.SUM_DRAWS_SQ],
                               int(counts[k.SEARCHES]), float(exact.draws_per_search))
        assert abs(z) < Z_TOL, f"draws per search z={z:.2f}"


@pytest.mark.parametrize("enter", [False, True], ids=["around", "enter"])
@pytest.mark.parametrize("armor", ARMOURS)
@pytest.mark.parametrize(("stalker", "state"), STALKERS, ids=["fresh", "worn"])
@pytest.mark.parametrize("anomaly", list(RS.anomalies))
def test_kernel_matches_exact(anomaly, stalker, state, armor, enter):
    spec = compile_anomaly(RS, stalker, anomaly, armor, enter=enter, state=_state(state, armor))
    check_kernel(spec, simulate_anomaly(spec, MC_TRIALS, SEED), MC_TRIALS)


@pytest.mark.parametrize("deck", [{"electro": 0}, {"electro": 1}, {"fire": 9, "electro": 1}])
def test_depleted_deck_draws(deck):
    # P-35 with a depleted deck (the campaign case): nothing found when the type is gone.
    spec = compile_anomaly(RS, "Degtyarev", "Electro", enter=True, deck=deck)
    counts = simulate_anomaly(spec, MC_TRIALS, SEED)
    check_kernel(spec, counts, MC_TRIALS)
    if deck["electro"] == 0:
        assert counts[k.ARTIFACT] == 0


def test_wrong_rule_is_detected():
    # Guard: forgetting the P-36 bonus die is caught at 1e6 trials.
    spec = compile_anomaly(RS, "Strelok", "Whirligig", enter=True)
    counts = simulate_anomaly(spec, MC_TRIALS, SEED)
    wrong = anomaly_exact(replace(spec, bonus_dice=0))
    with pytest.raises(pytest.fail.Exception):
        assert_matches_exact(counts[: k.N_OUTCOMES], MC_TRIALS,
                             [wrong.outcomes[o] for o in OUTCOMES])


def test_results_do_not_depend_on_threads_or_chunks():
    spec = compile_anomaly(RS, "Ghost", "Burner", "Ecolog suit", enter=True,
                           state=StartState(health=2, tokens=1))
    one = simulate_anomaly(spec, 300_000, 7, threads=1)
    two = simulate_anomaly(spec, 300_000, 7, threads=2)
    chunked = runner.run_counts(k.anomaly_kernel, 7, 300_000, (k.WIDTH,), *spec.pack(),
                                threads=2, chunk_size=1000)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(one, chunked)
    assert not np.array_equal(one, simulate_anomaly(spec, 300_000, 8, threads=2))


def test_policy_does_not_reshuffle_the_deck():
    # Common random numbers: the DECK stream is apart from the DICE stream, so a policy
    # that rolls more dice leaves the trial's deck order alone. Both specs search on every
    # trial (never hurt, a certain find): one falls in unseen without a roll, the other
    # rolls a Perception test first and enters on purpose. Identical draws, and not 0 == 0.
    spec = compile_anomaly(RS, "Strelok", "Burner")
    around = replace(spec, perception_need=99, agility_need=0, find_need=0)
    entered = replace(around, perception_need=1, perception=6, enter=True)
    a, e = simulate_anomaly(around, 100_000, 3), simulate_anomaly(entered, 100_000, 3)
    assert a[k.SEARCHES] == e[k.SEARCHES] == 100_000
    assert e[k.PERCEIVED] > 0 and a[k.PERCEIVED] == 0  # the DICE streams differ in use
    assert a[k.SUM_DRAWS] == e[k.SUM_DRAWS] > 100_000
    assert a[k.SUM_DRAWS_SQ] == e[k.SUM_DRAWS_SQ]


@pytest.mark.parametrize(("anomaly", "stalker", "state", "armor", "enter"), [
    ("Burner", "Strelok", StartState(tokens=3), "Ecolog suit", False),
    ("Psi field", "Ghost", StartState(willpower=2, tokens=1), "SEVA suit", True),
    ("Radiation hotspot", "Ghost", StartState(radiation=4), None, True),
    ("Whirligig", "Scar", StartState(health=3), "SEVA suit", False),
])
def test_reference_matches_exact(anomaly, stalker, state, armor, enter):
    # The readable spec agrees with the twin (1e5 trials: pure Python is slow).
    spec = compile_anomaly(RS, stalker, anomaly, armor, enter=enter, state=state)
    n = 100_000
    counts = reference.simulate(spec, n, SEED)
    exact = anomaly_exact(spec)
    assert_matches_exact([counts[o] for o in OUTCOMES] + [counts["perceived"],
                         counts["deformation"], counts["artifact"]], n,
                         [*(exact.outcomes[o] for o in OUTCOMES), exact.perceived,
                          exact.deformation, exact.artifact],
                         [*OUTCOMES, "perceived", "deformation", "artifact"])


def test_table_is_sorted_by_danger_and_sums_to_one():
    table = anomaly_table(RS, "Ghost", list(RS.anomalies), "SEVA suit", state=WORN,
                          trials=20_000, seed=SEED)
    knocked = [r["outcomes"]["knocked_out"]["exact"] for r in table.rows]
    assert knocked == sorted(knocked, reverse=True)
    for row in table.rows:
        assert sum(c["mc"] for c in row["outcomes"].values()) == pytest.approx(1.0)
        assert sum(c["exact"] for c in row["outcomes"].values()) == pytest.approx(1.0)
