"""Event kernel (Z-08..Z-10) against its exact twin and the reference; ``zonesim event``.

Monte Carlo vs exact on every base event x items (none, Bag of nuts,
Dosimeter, Torsion scanner) x armour (none, Ecolog suit, SEVA suit), 1e6
trials each, |z| < 4.5 (see tests/conftest.py), for a stalker on his last
Health and Willpower point and one dose below the radiation maximum, so every
effect can knock out or deform.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from sim import stats
from sim.cli import main
from sim.encounter.anomaly import HazardInputError, StartState, compile_event
from sim.exact.event import OUTCOMES, event_exact
from sim.experiments.event import event_table, simulate_event
from sim.kernels import event as k
from sim.kernels import rng
from sim.reference import anomaly as reference
from sim.rules import load_ruleset
from tests.conftest import MC_TRIALS, Z_TOL, assert_matches_exact

RS = load_ruleset(None)
SEED = 777
FRAGILE = StartState(health=1, willpower=1, radiation=4)
ITEMS = [(), ("Bag of nuts",), ("Dosimeter",), ("Torsion scanner",)]


@pytest.mark.parametrize("armor", [None, "Ecolog suit", "SEVA suit"])
@pytest.mark.parametrize("items", ITEMS, ids=["no-item", "nuts", "dosimeter", "torsion"])
@pytest.mark.parametrize("event", list(RS.events))
def test_kernel_matches_exact(event, items, armor):
    spec = compile_event(RS, "Ghost", event, armor, items, state=FRAGILE)
    counts = simulate_event(spec, MC_TRIALS, SEED)
    exact = event_exact(spec)
    assert counts[: k.N_OUTCOMES].sum() == MC_TRIALS
    assert_matches_exact(
        [*counts[: k.N_OUTCOMES], counts[k.DEFORMATION], counts[k.DESTROYED]], MC_TRIALS,
        [*(exact.outcomes[o] for o in OUTCOMES), exact.deformation, exact.armor_destroyed],
        [*OUTCOMES, "deformation", "destroyed"])
    for col, value in ((k.SUM_HEALTH, exact.health_lost), (k.SUM_RADIATION, exact.radiation),
                       (k.SUM_PSI, exact.psi), (k.SUM_DAYS, exact.days_lost),
                       (k.SUM_TOKENS, exact.emission_tokens)):
        z = stats.mean_z_score(counts[col], counts[col + 1], MC_TRIALS, float(value))
        assert abs(z) < Z_TOL, (col, z)


@pytest.mark.parametrize(("event", "items", "armor"), [
    ("Wildfire", (), "Ecolog suit"), ("Radiation spike", ("Bag of nuts",), "SEVA suit"),
    ("Psi whisper", ("Dosimeter",), "SEVA suit"), ("Zone stirs", ("Dosimeter",), None),
])
def test_reference_matches_exact(event, items, armor):
    spec = compile_event(RS, "Ghost", event, armor, items, state=FRAGILE)
    n = 100_000
    counts = reference.simulate_event(spec, n, SEED)
    exact = event_exact(spec)
    assert_matches_exact([counts[o] for o in OUTCOMES] + [counts["deformation"]], n,
                         [*(exact.outcomes[o] for o in OUTCOMES), exact.deformation],
                         [*OUTCOMES, "deformation"])


def test_results_do_not_depend_on_threads():
    spec = compile_event(RS, "Strelok", "Wildfire", "Ecolog suit", state=StartState(tokens=3))
    one = simulate_event(spec, 300_000, 5, threads=1)
    two = simulate_event(spec, 300_000, 5, threads=2)
    np.testing.assert_array_equal(one, two)


def test_items_without_event_effect_are_refused():
    with pytest.raises(HazardInputError, match="only items with effect event_avoid"):
        compile_event(RS, "Strelok", "Wildfire", items=["Medkit"])


def test_table_rows():
    table = event_table(RS, "Ghost", list(RS.events), "SEVA suit", ["Bag of nuts", "Dosimeter"],
                        state=FRAGILE, trials=20_000, seed=SEED)
    assert [r["item"] for r in table.rows] == ["Dosimeter"] * len(RS.events)  # Z-10
    knocked = [r["outcomes"]["knocked_out"]["exact"] for r in table.rows]
    assert knocked == sorted(knocked, reverse=True)
    for row in table.rows:
        assert sum(c["exact"] for c in row["outcomes"].values()) == pytest.approx(1.0)


def test_cli_event_json():
    result = CliRunner().invoke(main, ["event", "--stalker", "Strelok", "--event",
                                       "Radiation spike", "--item", "Dosimeter", "--trials",
                                       "5000", "--seed", "3", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc) == {"trials", "seed", "rows"} and doc["trials"] == 5000 and doc["seed"] == 3
    row = doc["rows"][0]
    assert row["stalker"] == "Strelok" and row["event"] == "Radiation spike"
    assert set(row["outcomes"]) == {"avoided", "happened", "knocked_out"}
    for cell in [*row["outcomes"].values(), row["radiation"], row["health_lost"]]:
        assert set(cell) == {"mc", "ci_low", "ci_high", "exact"}
    assert row["outcomes"]["avoided"]["exact"] == pytest.approx(5 / 6)  # Z-09


@pytest.mark.parametrize("args", [["--event", "Nope"], ["--event", "all", "--item", "Medkit"],
                                  ["--event", "all", "--armor", "Tin can"],
                                  ["--event", "all", "--tokens", "2"]])
def test_cli_event_bad_input_exits_2(args):
    result = CliRunner().invoke(main, ["event", "--stalker", "Strelok", *args, "--trials", "10"])
    assert result.exit_code == 2
    assert "Invalid value" in result.output


def test_cli_event_table_and_help():
    runner = CliRunner()
    result = runner.invoke(main, ["event", "--stalker", "Scar", "--event", "all", "--trials",
                                  "2000"])
    assert result.exit_code == 0, result.output
    assert all(name in result.output for name in RS.events)
    help_text = runner.invoke(main, ["event", "--help"]).output
    assert "Example" in help_text and "zonesim event --stalker" in help_text


@pytest.mark.parametrize(("effect", "value", "expected"), [
    (k.S.EFFECT_LOST_DAY, 0, (0, 0, True, k.S.EFFECT_NONE)),  # a lost day of 0 still stops him
    (k.S.EFFECT_LOST_DAY, 2, (2, 0, True, k.S.EFFECT_NONE)),
    (k.S.EFFECT_EMISSION_TOKENS, 3, (0, 3, False, k.S.EFFECT_NONE)),
    (k.S.EFFECT_NONE, 5, (0, 0, False, k.S.EFFECT_NONE)),
    (k.S.EFFECT_ENEMY, 0, (0, 0, False, k.S.EFFECT_ENEMY)),  # an enemy encounter (P-16)
    (k.S.EFFECT_ANOMALY, 0, (0, 0, False, k.S.EFFECT_ANOMALY)),  # an anomaly there (P-30)
])
def test_event_effect_without_damage(effect, value, expected):
    """event_effect, the one home of the event rule (Z-08..Z-10): a card without a roll
    happens, and only its effect's fields are set; the armour keeps its tokens. An enemy
    or anomaly card returns the encounter it brings (P-16, P-30)."""
    state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
    rng.seed_stream(state, SEED, 0, rng.DICE)
    out = k.event_effect(state, 0, 0, effect, value, k.S.TARGET_HEALTH, 0,
                         np.zeros(1, dtype=np.int64), 0, 0, 0, 0, 3, 1, 4, 0, 5, 4, -1)
    outcome, through, after, *_, days, emission, day_lost, encounter = out
    assert (outcome, through, after) == (k.HAPPENED, 0, 1)
    assert (days, emission, day_lost, encounter) == expected


def test_event_effect_avoided_by_torsion_scanner():
    """Guard: the Torsion scanner's shift avoids the card (Z-09), so no effect is set,
    nor the encounter of an enemy card (P-16)."""
    state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
    for effect, value in ((k.S.EFFECT_LOST_DAY, 2), (k.S.EFFECT_ENEMY, 0)):
        out = k.event_effect(state, 6, k.S.AUTO_SHIFT, effect, value, k.S.TARGET_HEALTH, 0,
                             np.zeros(1, dtype=np.int64), 0, 0, 0, 0, 3, 1, 4, 0, 5, 4, -1)
        assert out[0] == k.AVOIDED and out[-4:] == (0, 0, False, k.S.EFFECT_NONE)
