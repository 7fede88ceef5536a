"""``sim.workflows.compare`` and ``zonesim compare``: variants, rows, verdicts, exact, CLI."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.encounter.anomaly import compile_event
from sim.exact.event import event_exact
from sim.experiments import base, registry
from sim.experiments import event as event_experiment
from sim.rules import load_ruleset
from sim.workflows import compare as C
from sim.workflows.prices import PRICE_KEYS
from sim.workflows.targets import parse_target
from tests.conftest import Z_TOL

RS = load_ruleset(None)
RUNNER = CliRunner()
COMBAT = registry.experiment("combat")


def run(*args: str):
    return RUNNER.invoke(main, list(args))


def test_parse_variant_keys():
    v = C.parse_variant("armor=SEVA suit;weapon=AK-74;weapon=Knife;"
                        "edit=enemies.Bloodsucker.endurance=3;flee-at=2", COMBAT)
    setup = v.setup({"stalker": "Strelok", "weapons": ("Shotgun",), "armor": None})
    assert setup["armor"] == "SEVA suit" and setup["weapons"] == ("AK-74", "Knife")
    assert setup["flee_at"] == 2 and v.edits == ("enemies.Bloodsucker.endurance=3",)
    assert v.label == "armor=SEVA suit;weapon=AK-74;weapon=Knife;" \
                      "edit=enemies.Bloodsucker.endurance=3;flee-at=2"
    assert C.parse_variant("armor=none;weapon=none;label=naked", COMBAT).setup(
        {"armor": "SEVA suit", "weapons": ("AK-74",)}) == {"armor": None, "weapons": ()}
    assert C.parse_variant("", COMBAT).label == "base"
    with pytest.raises(base.CompareInputError, match="unknown key 'armour'"):
        C.parse_variant("armour=SEVA suit", COMBAT)
    with pytest.raises(base.CompareInputError, match="not an integer"):
        C.parse_variant("flee_at=two", COMBAT)
    with pytest.raises(base.CompareInputError, match="unknown key 'weapon'"):
        C.parse_variant("weapon=AK-74", registry.experiment("event"))


def _compare(name, base, specs, **kw):
    exp = registry.experiment(name)
    return C.compare(exp, RS, base, [C.parse_variant(s, exp) for s in specs], **kw)


def test_rows_verdicts_and_exact_values_of_an_event_item_comparison():
    """Z-09: Radiation spike is avoided on 4+; the Bag of nuts shifts it to 3+, the
    Dosimeter to 2+, the Torsion scanner avoids without a roll."""
    result = _compare("event", {"stalker": "Strelok", "event": "Radiation spike"},
                      ["item=Bag of nuts", "item=Dosimeter", "item=Torsion scanner",
                       "label=nuts again;item=Bag of nuts"], trials=50_000, seed=5,
                      metrics=["avoided", "radiation"])
    rows = {(r["variant"], r["metric"]): r for r in result.rows}
    assert list(rows) == [(v, m) for v in ("item=Bag of nuts", "item=Dosimeter",
                                           "item=Torsion scanner", "nuts again")
                          for m in ("avoided", "radiation")]
    assert all(tuple(r)[: len(C.ROW_KEYS)] == C.ROW_KEYS for r in result.rows)
    assert rows[("item=Bag of nuts", "avoided")]["exact"] == pytest.approx(4 / 6)
    assert rows[("item=Bag of nuts", "avoided")]["verdict"] == C.BASELINE
    dosimeter = rows[("item=Dosimeter", "avoided")]
    assert dosimeter["exact"] == pytest.approx(5 / 6)
    assert dosimeter["diff_exact"] == pytest.approx(1 / 6)
    assert dosimeter["diff_ci_low"] > 0 and dosimeter["verdict"] == "better"
    assert rows[("item=Dosimeter", "radiation")]["verdict"] == "better"  # fewer doses
    scanner = rows[("item=Torsion scanner", "avoided")]
    assert scanner["mc"] == 1.0 and scanner["ci_high"] == 1.0
    # The same variant twice: identical trials, so the difference is exactly 0.
    again = rows[("nuts again", "avoided")]
    assert (again["diff"], again["diff_ci_low"], again["diff_ci_high"]) == (0.0, 0.0, 0.0)
    assert again["verdict"] == C.NO_DIFFERENCE


def test_paired_difference_interval_covers_the_exact_difference():
    # The standard error comes from the raw paired sums of the same run (not from the
    # interval under test), and the reported half-width must be 1.96 of it.
    base = {"stalker": "Strelok", "enemy": "Bloodsucker", "weapons": ("AK-74",)}
    specs = ["armor=Ecolog suit", "armor=SEVA suit",
             "edit=enemies.Bloodsucker.endurance=3;armor=Ecolog suit"]
    variants = [C.parse_variant(s, COMBAT) for s in specs]
    result = C.compare(registry.experiment("combat"), RS, base, variants, trials=100_000, seed=17)
    sums = COMBAT.run(C.cases(RS, base, variants), trials=100_000, seed=17, threads=None)
    names = [m.name for m in sums.metrics]
    checked = 0
    for row in result.rows:
        if row["verdict"] == C.BASELINE or row["diff_exact"] is None:
            continue
        d, d2 = (float(x) for x in sums.sums[specs.index(row["variant"]), 2:,
                                             names.index(row["metric"])])
        n = sums.trials
        se = math.sqrt(max(d2 - d * d / n, 0.0) / (n - 1) / n)
        half = (row["diff_ci_high"] - row["diff_ci_low"]) / 2
        assert half == pytest.approx(1.959963984540054 * se, rel=1e-9, abs=1e-15), row
        if se > 0:
            assert abs(row["diff"] - row["diff_exact"]) < Z_TOL * se, row
            checked += 1
        else:
            assert row["diff"] == pytest.approx(row["diff_exact"], abs=1e-12), row
    assert checked >= 10


def test_deck_average_is_weighted_by_card_count():
    """``--event all``: the exact value is the count-weighted mean of the cards' exact values."""
    result = _compare("event", {"stalker": "Strelok", "event": "all"},
                      ["item=Bag of nuts", "item=Dosimeter"], trials=20_000, seed=3,
                      metrics=["avoided"])
    total = sum(e.count for e in RS.events.values())
    expected = sum(e.count * float(event_exact(compile_event(
        RS, "Strelok", e.name, None, ("Dosimeter",))).outcomes["avoided"])
        for e in RS.events.values()) / total
    assert result.rows[1]["exact"] == pytest.approx(expected)
    assert result.rows[1]["ci_low"] < result.rows[1]["mc"] < result.rows[1]["ci_high"]


def test_targets_add_a_verdict_column():
    result = _compare("combat", {"stalker": "Strelok", "enemy": "Bandit"},
                      ["armor=Ecolog suit", "armor=SEVA suit"], trials=20_000, seed=1,
                      metrics=["knocked_out", "killed"],
                      targets=[parse_target("knocked_out <= 0.5")])
    verdicts = {(r["variant"], r["metric"]): r["target_verdict"] for r in result.rows}
    assert verdicts[("armor=Ecolog suit", "knocked_out")] == "PASS"
    assert verdicts[("armor=Ecolog suit", "killed")] is None


@pytest.mark.parametrize(("specs", "kw", "message"), [
    (["armor=Ecolog suit", "armor=Ecolog suit"], {}, "labels must differ"),
    (["armor=Ecolog suit", "edit=enemies.Bloodsucker.endurance=0"], {}, "0 is not in 1..10"),
    (["armor=Ecolog suit", "armor=Tin can"], {},
     "variant 'armor=Tin can': ruleset .* has no armour 'Tin can'"),
    (["armor=Ecolog suit"], {"metrics": ["dead"]}, "unknown metric 'dead'"),
])
def test_input_errors(specs, kw, message):
    with pytest.raises(base.CompareInputError, match=message):
        _compare("combat", {"stalker": "Strelok", "enemy": "Bloodsucker"}, specs,
                 trials=100, seed=1, **kw)


def test_cli_compare_event_json():
    result = run("compare", "event", "--stalker", "Strelok", "--event", "all",
                 "--variant", "item=Bag of nuts", "--variant", "item=Dosimeter",
                 "--variant", "item=Torsion scanner", "--trials", "20000", "--seed", "8",
                 "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"experiment", "trials", "seed", "setup", "baseline", "variants", "rows",
            "ruleset_sha256", "targets"} <= set(data)
    assert data["experiment"] == "event" and data["trials"] == 20000 and data["seed"] == 8
    assert data["baseline"] == "item=Bag of nuts"
    assert len(data["rows"]) == 3 * len(event_experiment.EVENT_METRICS)
    assert set(C.ROW_KEYS) <= set(data["rows"][0])
    assert {r["verdict"] for r in data["rows"]} <= {
        "baseline", "better", "worse", "higher", "lower", "no detectable difference"}


def test_cli_compare_combat_table_csv_and_baseline():
    args = ("compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker",
            "--baseline", "", "--variant", "edit=enemies.Bloodsucker.endurance=3",
            "--metric", "knocked_out", "--target", "knocked_out <= 0.9", "--trials", "20000")
    table = run(*args)
    assert table.exit_code == 0, table.output
    assert "base" in table.output and "better" in table.output and "PASS" in table.output
    csv = run(*args, "--format", "csv")
    assert csv.stdout.splitlines()[0] == ",".join(
        (*C.ROW_KEYS, *PRICE_KEYS, "target", "target_verdict"))  # prices: issue 15
    # Results do not depend on the thread count.
    assert run(*args, "--format", "csv", "--threads", "1").stdout == \
        run(*args, "--format", "csv", "--threads", "2").stdout


def test_cli_compare_anomaly_runs():
    result = run("compare", "anomaly", "--stalker", "Ghost", "--anomaly", "all",
                 "--variant", "armor=none", "--variant", "armor=SEVA suit",
                 "--metric", "knocked_out", "--metric", "mean_loss", "--trials", "5000",
                 "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert [r["metric"] for r in rows] == ["knocked_out", "mean_loss"] * 2


@pytest.mark.parametrize("args", [
    ("compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker",
     "--variant", "armor=SEVA suit"),                                   # one variant only
    ("compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker",
     "--variant", "armor=SEVA suit", "--variant", "armour=Exoskeleton"),
    ("compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker",
     "--variant", "", "--variant", "edit=enemies.Bloodsucker.endurance=99"),
    ("compare", "event", "--stalker", "Strelok", "--event", "all",
     "--variant", "item=Bag of nuts", "--variant", "item=Medkit"),
    ("compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker",
     "--variant", "", "--variant", "armor=SEVA suit", "--target", "knocked_out ~ 3"),
    ("compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker",
     "--variant", "", "--variant", "armor=SEVA suit", "--metric", "dead"),
])
def test_cli_bad_input_exits_2(args):
    result = run(*args, "--trials", "100")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "Error" in result.output
