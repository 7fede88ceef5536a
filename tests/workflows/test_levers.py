"""The lever finder (issue 15 §3): ``sim.workflows.levers``, ``zonesim levers``, Morris.

The done-when check of the issue: the lever finder's top five on the base
scenario agree, within intervals, with direct paired comparisons of those
same one-step changes (``zonesim compare``'s machinery,
:func:`sim.workflows.compare.compare`). Two ways: on the same seed they must
give the very same numbers (same streams, whatever the batching), and on
another seed each paired difference must agree with the lever finder's
(two-sample |z| < 4.5 on the paired differences, the suite's tolerance) and
with the exact difference of the combat Markov chain (P-14..P-29).
"""

from __future__ import annotations

import json
import math
import sys

import distributed
import pytest
from click.testing import CliRunner

from sim import stats
from sim.cli import main
from sim.experiments.registry import experiment
from sim.rules.scenario import load_scenario
from sim.workflows import compare as C
from sim.workflows import levers as L
from sim.workflows.targets import PASS, parse_target
from tests.conftest import Z_TOL

SCENARIO = load_scenario("base")
RS = SCENARIO.ruleset
COMBAT = L.base_setup("combat", SCENARIO)
TRIALS = 20_000
SEED = 11


@pytest.fixture(scope="module")
def combat_levers() -> L.LeverResult:
    """Every value of the base scenario against the whole enemy deck (combat, P-14..P-29)."""
    return L.run_levers(RS, "combat", COMBAT, trials=TRIALS, seed=SEED)


def _se(low: float, high: float) -> float:
    return (high - low) / (2 * stats.Z95)


def test_levers_are_the_numeric_cells_and_keys():
    levers = {lv.path: lv for lv in L.find_levers(RS)}
    assert levers["enemies.Bloodsucker.endurance"].current == 4
    assert levers["enemies.Bloodsucker.endurance"].step == 1
    assert levers["items.Medkit.price"].step == L.MONEY_STEP
    assert levers["stalkers.Strelok.rubles"].step == L.MONEY_STEP
    assert levers["rules.zone.environment_change_chance"].step == pytest.approx(0.05)
    assert "armor.Stalker suit.physical" in levers  # a die face
    assert not any(p.endswith((".melee", ".kind", ".name", ".final")) for p in levers)
    assert "rules.movement.items_in_epicentre" not in levers  # a bool is no number
    assert "items.Torsion scanner.value" not in levers  # 'auto'
    only = L.find_levers(RS, tables=["enemies", "rules"], cards=["Bloodsucker", "dice"])
    assert {lv.path for lv in only} == {
        "enemies.Bloodsucker.count", "enemies.Bloodsucker.vigilance",
        "enemies.Bloodsucker.endurance", "enemies.Bloodsucker.wounds",
        "rules.dice.success_on"}
    with pytest.raises(L.LeverError, match="unknown table 'enemy'"):
        L.find_levers(RS, tables=["enemy"])
    with pytest.raises(L.LeverError, match="Nobody"):
        L.find_levers(RS, cards=["Nobody"])


def test_refused_steps_are_named_not_run():
    levers = L.find_levers(RS, cards=["Blind dog"], tables=["enemies"])
    moves, refused = L.plan_steps(RS, levers)
    assert {(m.lever.column, m.steps) for m in moves} >= {("endurance", 1), ("count", -1)}
    assert ("endurance", -1) not in {(m.lever.column, m.steps) for m in moves}
    (row,) = [r for r in refused if r["path"] == "enemies.Blind dog.endurance"]
    assert row["steps"] == -1 and row["value"] == 0 and "not in 1..10" in row["reason"]


def test_top_five_agree_with_direct_paired_comparisons(combat_levers):
    """Done when (issue 15): the top five agree with compare's paired differences."""
    top = combat_levers.ranking().head(5)
    assert list(top["rank"]) == [1, 2, 3, 4, 5]
    assert (top["effect"].diff().dropna() <= 0).all()
    exp = experiment("combat")
    steps = {(s["path"], s["steps"]): s for s in combat_levers.steps}
    for path in top["path"]:
        moves = [steps[(path, k)] for k in (-1, 1) if (path, k) in steps]
        variants = [C.Variant("baseline"),
                    *(C.Variant(f"{m['steps']:+d}", (), (f"{path}={m['value']}",))
                      for m in moves)]
        same = C.compare(exp, RS, COMBAT, variants, trials=TRIALS, seed=SEED,
                         metrics=["knocked_out"])
        other = C.compare(exp, RS, COMBAT, variants, trials=TRIALS, seed=SEED + 1,
                          metrics=["knocked_out"])
        for m, row, fresh in zip(moves, same.rows[1:], other.rows[1:], strict=True):
            for key in ("mc", "diff", "diff_ci_low", "diff_ci_high"):
                assert row[key] == m[key], (path, m["steps"], key)
            se = math.hypot(_se(m["diff_ci_low"], m["diff_ci_high"]),
                            _se(fresh["diff_ci_low"], fresh["diff_ci_high"]))
            assert abs(m["diff"] - fresh["diff"]) < Z_TOL * se, (path, m["steps"])
            if m["diff_exact"] is not None and m["verdict"] != L.NO_EFFECT:
                one = _se(m["diff_ci_low"], m["diff_ci_high"])
                assert abs(m["diff"] - m["diff_exact"]) < Z_TOL * one, (path, m["steps"])


def test_campaign_levers_equal_compare_campaign():
    """The campaign's per-trial paired kernel gives the lever finder's numbers."""
    setup = L.base_setup("campaign", SCENARIO)
    result = L.run_levers(RS, "campaign", setup, trials=2000, seed=SEED,
                          cards=["Monolith fighter"], batch=3)
    ran = [s for s in result.steps if s["verdict"] != L.NO_EFFECT]
    assert ran
    variants = [C.Variant("baseline"),
                *(C.Variant(s["path"] + str(s["steps"]), (), (f"{s['path']}={s['value']}",))
                  for s in ran)]
    direct = C.compare(experiment("campaign"), RS, setup, variants, trials=2000, seed=SEED,
                       metrics=["p_sarcophagus"])
    assert direct.rows[0]["mc"] == result.baseline["mc"]
    for s, row in zip(ran, direct.rows[1:], strict=True):
        assert (row["diff"], row["diff_ci_low"], row["diff_ci_high"]) == (
            s["diff"], s["diff_ci_low"], s["diff_ci_high"])


def test_no_effect_and_batching(combat_levers):
    """A move that leaves the compiled fights unchanged is not run; batching changes nothing."""
    steps = {(s["path"], s["steps"]): s for s in combat_levers.steps}
    other = steps[("stalkers.Scar.combat", 1)]  # the scenario plays Strelok
    assert other["verdict"] == L.NO_EFFECT and other["diff"] == 0.0
    small = L.run_levers(RS, "combat", COMBAT, trials=TRIALS, seed=SEED,
                         cards=["Bloodsucker", "Strelok"], batch=3)
    for s in small.steps:
        assert s == steps[(s["path"], s["steps"])]


def test_target_marks_the_smallest_changes():
    target = parse_target("knocked_out in 0.10..0.125")
    result = L.run_levers(RS, "combat", COMBAT, trials=TRIALS, seed=SEED, target=target,
                          max_steps=2, tables=["enemies"], cards=["Chimera", "Bloodsucker"])
    reach = result.reaching_rows()
    assert reach and all(r["target_verdict"] == PASS for r in reach)
    assert all(0.10 <= r["ci_low"] and r["ci_high"] <= 0.125 for r in reach)
    assert [abs(r["steps"]) for r in reach] == sorted(abs(r["steps"]) for r in reach)
    assert any(abs(s["steps"]) == 2 for s in result.steps)
    with pytest.raises(L.LeverError, match="target is on"):
        L.run_levers(RS, "combat", COMBAT, trials=100, seed=1, target=target,
                     metric="killed")


def _cli(*args: str, tmp_path=None):
    out = [] if tmp_path is None else ["--out", str(tmp_path / "out")]
    return CliRunner().invoke(main, ["levers", *args, *out, "--workers", "1"])


def test_cli_help_has_an_example():
    result = CliRunner().invoke(main, ["levers", "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output and "zonesim levers base" in result.output


def test_cli_json_and_csv(tmp_path):
    args = ("base", "--experiment", "combat", "--cards", "Bloodsucker", "--trials", "3000",
            "--seed", "3")
    result = _cli(*args, "--format", "json", tmp_path=tmp_path)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert {"experiment", "metric", "trials", "seed", "baseline", "levers", "reaching",
            "steps", "skipped", "folder"} <= set(doc)
    assert doc["metric"] == "knocked_out" and doc["levers"]
    assert list(doc["levers"][0]) == list(L.COLUMNS)
    assert list(doc["steps"][0]) == list(L.STEP_COLUMNS)
    folder = tmp_path / "out"
    assert {p.name for p in folder.iterdir()} >= {"levers.csv", "steps.csv", "metadata.json",
                                                  "tornado-knocked_out.png"}
    assert (folder / "tornado-knocked_out.png").read_bytes()[:4] == b"\x89PNG"
    csv = CliRunner().invoke(main, ["levers", *args, "--format", "csv", "--workers", "1",
                                    "--out", str(tmp_path / "csv")])
    assert csv.exit_code == 0
    assert csv.stdout.splitlines()[0].split(",") == list(L.COLUMNS)


def test_cli_bad_metric_exits_2(tmp_path):
    result = _cli("base", "--metric", "p_sarcofagus", tmp_path=tmp_path)
    assert result.exit_code == 2
    assert "p_sarcofagus" in result.output and "p_sarcophagus" in result.output
    assert not (tmp_path / "out").exists()


def test_cli_target_marks_changes(tmp_path):
    result = _cli("base", "--experiment", "combat", "--cards", "Chimera,Bloodsucker",
                  "--tables", "enemies", "--trials", "5000", "--target",
                  "knocked_out in 0.10..0.125", tmp_path=tmp_path)
    assert result.exit_code == 0, result.output
    assert "changes that reach knocked_out in 0.10..0.125 (PASS)" in result.output
    assert "enemies.Bloodsucker.count: 1 -> 0 (-1 steps)" in result.output
    assert (tmp_path / "out" / "reaching.csv").exists()


def test_morris_without_salib_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "SALib", None)
    monkeypatch.setitem(sys.modules, "SALib.analyze", None)
    monkeypatch.setitem(sys.modules, "SALib.sample", None)
    result = _cli("base", "--method", "morris", "--experiment", "combat", tmp_path=tmp_path)
    assert result.exit_code == 2
    assert "pip install 'zonesim[levers]'" in result.output


def test_morris_screens_the_levers():
    from sim.workflows.morris import MORRIS_COLUMNS, run_morris

    result = run_morris(RS, "combat", COMBAT, trials=5000, seed=SEED, trajectories=4,
                        tables=["stalkers", "weapons"], cards=["Strelok", "SVD sniper rifle"])
    frame = result.ranking()
    assert list(frame.columns) == list(MORRIS_COLUMNS)
    assert result.evaluations == 4 * (len(frame) + 1)
    assert frame["mu_star"].is_monotonic_decreasing
    assert frame.iloc[0]["path"] in ("stalkers.Strelok.combat", "weapons.SVD sniper rifle.bonus")
    assert "stalkers.Strelok.rubles" in result.skipped  # money plays no part in a fight
    again = run_morris(RS, "combat", COMBAT, trials=5000, seed=SEED, trajectories=4,
                       tables=["stalkers", "weapons"], cards=["Strelok", "SVD sniper rifle"])
    assert again.rows == result.rows


@pytest.mark.subprocess  # two pool worker processes
def test_pool_and_dask_give_the_same_numbers(combat_levers):
    """Two worker processes, or a Dask cluster, give the serial numbers bit for bit."""
    steps = {(s["path"], s["steps"]): s for s in combat_levers.steps}
    kw = {"trials": TRIALS, "seed": SEED, "batch": 4, "cards": ["Bloodsucker", "SVD sniper rifle"]}
    pooled = L.run_levers(RS, "combat", COMBAT, workers=2, **kw)
    assert pooled.backend == "processes:2"
    assert all(s == steps[(s["path"], s["steps"])] for s in pooled.steps)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        remote = L.run_levers(RS, "combat", COMBAT, scheduler=cluster.scheduler_address, **kw)
    assert remote.backend.startswith("dask:")
    assert remote.steps == pooled.steps


def test_one_step_over_the_band_is_reported():
    """success_on 5 -> 4 takes P(knocked out) from about 0.13 to 0.05 (P-02): over 0.07..0.11."""
    target = parse_target("knocked_out in 0.07..0.11")
    result = L.run_levers(RS, "combat", COMBAT, trials=TRIALS, seed=SEED, target=target,
                          tables=["rules"], cards=["dice"])
    assert result.reaching_rows() == []
    assert result.jumps_over() == [{"path": "rules.dice.success_on", "from": 5, "to": 4}]
    assert result.to_dict()["jumps_over"] == result.jumps_over()


@pytest.mark.slow
def test_campaign_top_five_agree_with_compare_campaign():
    """Done when (issue 15), on whole games: every value of the base scenario, then the top
    five's one-step changes replayed by ``zonesim compare campaign``'s machinery."""
    setup = L.base_setup("campaign", SCENARIO)
    trials = 4000
    result = L.run_levers(RS, "campaign", setup, trials=trials, seed=SEED)
    top = result.ranking().head(5)
    steps = {(s["path"], s["steps"]): s for s in result.steps}
    moves = [steps[(p, k)] for p in top["path"] for k in (-1, 1) if (p, k) in steps]
    variants = [C.Variant("baseline"),
                *(C.Variant(f"{m['path']}{m['steps']:+d}", (), (f"{m['path']}={m['value']}",))
                  for m in moves)]
    exp = experiment("campaign")
    same = C.compare(exp, RS, setup, variants, trials=trials, seed=SEED,
                     metrics=["p_sarcophagus"])
    other = C.compare(exp, RS, setup, variants, trials=trials, seed=SEED + 1,
                      metrics=["p_sarcophagus"])
    for m, row, fresh in zip(moves, same.rows[1:], other.rows[1:], strict=True):
        assert (row["diff"], row["diff_ci_low"], row["diff_ci_high"]) == (
            m["diff"], m["diff_ci_low"], m["diff_ci_high"])
        se = math.hypot(_se(m["diff_ci_low"], m["diff_ci_high"]),
                        _se(fresh["diff_ci_low"], fresh["diff_ci_high"]))
        assert abs(m["diff"] - fresh["diff"]) < Z_TOL * se, (m["path"], m["steps"])
