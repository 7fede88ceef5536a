"""``sim.workflows.tune`` and ``zonesim tune``: the search finds answers known from the exact twin.

The known answers come from :mod:`sim.exact.combat` (the Markov chain of the
fight, P-14..P-29): for Strelok with Ecolog suit and AK-74 against the
Bloodsucker, the exact P(knocked out) for endurance 1..8 is about
0.002, 0.068, 0.404, 0.811, 0.973, 0.999, 1, 1 (P-19: the Combat test needs
``endurance`` successes). A band of +-0.05 around one value contains no other,
so the tuned value is known; 20 000 trials give a half-width of ~0.007.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.encounter.combat import compile_combat
from sim.exact.combat import combat_exact
from sim.rules import load_ruleset
from sim.rules.variants import apply_edits
from sim.workflows import tune as T
from sim.workflows.targets import PASS, Target, parse_target

RS = load_ruleset(None)
BASE = {"stalker": "Strelok", "enemy": "Bloodsucker", "armor": "Ecolog suit",
        "weapons": ("AK-74",)}
VARY = "enemies.Bloodsucker.endurance=1..8"
TRIALS = 20_000


def _exact_knocked_out(endurance: int) -> float:
    rs = apply_edits(RS, [f"enemies.Bloodsucker.endurance={endurance}"])
    spec = compile_combat(rs, "Strelok", "Bloodsucker", "Ecolog suit", ("AK-74",))
    return combat_exact(spec).outcomes["knocked_out"]


EXACT = {e: _exact_knocked_out(e) for e in range(1, 9)}


@pytest.mark.parametrize("answer", [2, 3, 4])
@pytest.mark.parametrize("method", ["bisect", "scan"])
def test_tune_finds_the_exact_answer(answer, method):
    p = EXACT[answer]
    target = Target("knocked_out", p - 0.05, p + 0.05, text=f"knocked_out in {p:.3f}+-0.05")
    assert sum(target.contains(v) for v in EXACT.values()) == 1  # the answer is unique
    result = T.tune("combat", RS, BASE, VARY, target, trials=TRIALS, seed=3, method=method)
    assert result.chosen == answer and result.verdict == PASS
    assert result.current == 4 and result.method == method
    chosen = [r for r in result.evidence if r["chosen"]]
    assert [r["value"] for r in chosen] == [answer]
    assert chosen[0]["exact"] == pytest.approx(p)
    if method == "bisect":
        assert len(result.evidence) < 8  # fewer evaluations than the scan


def test_bisect_evidence_equals_scan_evidence_on_common_random_numbers():
    target = parse_target("knocked_out in 0.35..0.45")
    scan = T.tune("combat", RS, BASE, VARY, target, trials=TRIALS, seed=9, method="scan")
    bisect = T.tune("combat", RS, BASE, VARY, target, trials=TRIALS, seed=9)
    assert bisect.method == "bisect" and bisect.chosen == scan.chosen == 3
    by_value = {r["value"]: r for r in scan.evidence}
    for row in bisect.evidence:
        assert row == by_value[row["value"]]  # same seed, same streams: identical estimates


def test_one_sided_target_aims_at_its_bound():
    """``knocked_out <= 0.1``: endurance 1 and 2 pass; 2 is the one nearest the bound."""
    result = T.tune("combat", RS, BASE, VARY, parse_target("knocked_out <= 0.1"),
                    trials=TRIALS, seed=4)
    assert result.chosen == 2 and result.verdict == PASS


def test_decreasing_metric_and_stalker_cells():
    """More Combat dice (P-19) make a knock-out less likely: bisect reads the direction."""
    rs_values = {}
    for combat in range(0, 11):
        rs = apply_edits(RS, [f"stalkers.Strelok.combat={combat}"])
        spec = compile_combat(rs, "Strelok", "Bloodsucker", "Ecolog suit", ("AK-74",))
        rs_values[combat] = combat_exact(spec).outcomes["knocked_out"]
    answer = 4
    p = rs_values[answer]
    target = Target("knocked_out", p - 0.04, p + 0.04)
    assert sum(target.contains(v) for v in rs_values.values()) == 1
    result = T.tune("combat", RS, BASE, "stalkers.Strelok.combat=0..10", target,
                    trials=TRIALS, seed=5)
    assert result.chosen == answer and result.verdict == PASS


def test_no_candidate_passes_reports_the_closest():
    result = T.tune("combat", RS, BASE, VARY, parse_target("knocked_out in 0.5..0.6"),
                    trials=TRIALS, seed=6)
    assert result.verdict != PASS and result.chosen in (3, 4)


@pytest.mark.parametrize("method", ["bisect", "scan"])
def test_the_passing_value_nearest_the_current_one_is_chosen(method):
    """``knocked_out in 0..0.45`` passes at endurance 1, 2 and 3 (exact 0.002, 0.068, 0.404).

    The aim point 0.225 is nearer endurance 2, but the current value is 4: the
    smallest change that passes is 3, and bisection must find that edge too.
    """
    assert [e for e, p in EXACT.items() if p < 0.44] == [1, 2, 3]
    result = T.tune("combat", RS, BASE, VARY, parse_target("knocked_out in 0..0.45"),
                    trials=TRIALS, seed=8, method=method)
    assert result.chosen == 3 and result.verdict == PASS
    assert result.note == "smallest change that passes: enemies.Bloodsucker.endurance from 4 to 3"
    assert result.jumps_over is None


def test_a_current_value_that_passes_is_kept():
    """Endurance 4 gives 0.811 (exact): a band around it keeps 4, whatever the aim point."""
    result = T.tune("combat", RS, BASE, VARY, parse_target("knocked_out in 0.7..0.99"),
                    trials=TRIALS, seed=8)
    assert result.chosen == 4 and result.verdict == PASS
    assert "already passes" in result.note


def test_one_step_over_the_band_is_reported():
    """The bare stalker: exact 0.04 at endurance 1, 0.35 at 2, so 0.2..0.3 lies between."""
    bare = {"stalker": "Strelok", "enemy": "Bloodsucker"}
    for method in ("bisect", "scan"):
        result = T.tune("combat", RS, bare, VARY, parse_target("knocked_out in 0.2..0.3"),
                        trials=TRIALS, seed=2, method=method)
        assert result.verdict != PASS and result.jumps_over == (1, 2)
        assert "jumps over the target band 0.2..0.3" in result.note
        assert result.to_dict()["jumps_over"] == [1, 2]


def test_parse_vary():
    assert T.parse_vary(VARY) == T.Vary("enemies.Bloodsucker.endurance", tuple(range(1, 9)), True)
    assert T.parse_vary("armor.SEVA suit.durability=2..10:4").values == (2, 6, 10)
    assert T.parse_vary("rules.x.y=0.5..1:0.25").values == (0.5, 0.75, 1.0)
    assert T.parse_vary("enemies.Snork.wounds=1,3,2").values == (1, 3, 2)
    for bad in ("enemies.Snork.wounds", "enemies.Snork.wounds=5..1", "enemies.Snork.wounds=a,b",
                "wounds=1..3", "enemies.Snork.wounds=1..3:0"):
        with pytest.raises(T.TuneInputError):
            T.parse_vary(bad)


def test_tune_input_errors():
    target = parse_target("knocked_out in 0.2..0.3")
    with pytest.raises(T.TuneInputError, match="bisect needs an integer range"):
        T.tune("combat", RS, BASE, "enemies.Bloodsucker.endurance=1,2", target, trials=100,
               seed=1, method="bisect")
    halves = T.tune("combat", RS, BASE, "enemies.Bloodsucker.endurance=1..2:0.5", target,
                    trials=100, seed=1)  # 1.5 is skipped, not played: the rules refuse it
    assert [sk["value"] for sk in halves.skipped] == [1.5]
    assert "is not an integer" in halves.skipped[0]["reason"]
    with pytest.raises(T.TuneInputError, match="no candidate can be played: .*0 is not in "
                                               "1..10"):
        T.tune("combat", RS, BASE, "enemies.Bloodsucker.endurance=0,-1", target, trials=100,
               seed=1, method="scan")
    with pytest.raises(T.TuneInputError, match="unknown metric"):
        T.tune("combat", RS, BASE, VARY, parse_target("dead <= 1"), trials=100, seed=1)


def test_cli_tune_json_and_table():
    args = ("tune", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--armor", "Ecolog suit",
            "--weapon", "AK-74", "--vary", VARY, "--target", "knocked_out in 0.35..0.45",
            "--trials", "20000")
    result = CliRunner().invoke(main, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"experiment", "vary", "current", "target", "metric", "method", "trials", "seed",
            "chosen", "verdict", "evidence"} <= set(data)
    assert data["chosen"] == 3 and data["verdict"] == "PASS" and data["method"] == "bisect"
    assert set(data["evidence"][0]) == {"value", "mc", "ci_low", "ci_high", "exact",
                                        "verdict", "chosen"}
    table = CliRunner().invoke(main, list(args))
    assert table.exit_code == 0 and "chosen: enemies.Bloodsucker.endurance=3 (PASS)" in \
        table.output


def test_cli_tune_issue_example_and_event():
    """The issue's example runs (no endurance puts the bare stalker in 0.2..0.3)."""
    result = CliRunner().invoke(main, [
        "tune", "--stalker", "Strelok", "--enemy", "Bloodsucker",
        "--vary", "enemies.Bloodsucker.endurance=1..8", "--target", "knocked_out in 0.2..0.3",
        "--trials", "5000"])
    assert result.exit_code == 0, result.output
    assert "no candidate passes" in result.output
    assert "one step from 1 to 2 jumps over the target band" in result.output
    event = CliRunner().invoke(main, [
        "tune", "--stalker", "Strelok", "--event", "Radiation spike",
        "--vary", "events.Radiation spike.avoid_on=2..6", "--target", "avoided in 0.4..0.6",
        "--method", "scan", "--trials", "20000", "--format", "json"])
    assert event.exit_code == 0, event.output
    assert json.loads(event.stdout)["chosen"] == 4  # Z-09: avoid on 4+ is exactly 1/2


@pytest.mark.parametrize("args", [
    ("--enemy", "Bloodsucker", "--event", "Quiet day"),      # two experiments
    ("--enemy", "Bloodsucker", "--target", "knocked_out ~ 1"),
    ("--enemy", "Bloodsucker", "--vary", "enemies.Bloodsucker.endurance=a..b"),
    ("--enemy", "Nobody"),
])
def test_cli_tune_bad_input_exits_2(args):
    base = {"--vary": VARY, "--target": "knocked_out in 0.2..0.3"}
    extra = [x for k, v in base.items() if k not in args for x in (k, v)]
    result = CliRunner().invoke(main, ["tune", "--stalker", "Strelok", *args, *extra,
                                       "--trials", "100"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
