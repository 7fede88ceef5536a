"""Sweeps: grid parsing, the tidy table, common random numbers, and identical results in
this process, on a local process pool and on a Dask cluster."""

from __future__ import annotations

import json

import distributed  # a declared test dependency: missing, it fails the run (no skip)
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.report.writer import write_sweep
from sim.rules import load_ruleset
from sim.rules.variants import apply_edits
from sim.workflows.sweep import SweepError, Vary, grid, metric_names, run_sweep

TRIALS = 4_000
COMBAT = {"stalker": "Strelok", "enemy": "all", "armor": "Ecolog suit", "weapons": ["AK-74"]}
VARIES = ("enemies.Bloodsucker.endurance=2..4", "armor.Ecolog suit.durability=3,5")


@pytest.fixture(scope="module")
def serial():
    return run_sweep(None, VARIES, "combat", COMBAT, trials=TRIALS, seed=11)


def test_vary_parses_ranges_and_lists():
    assert Vary.parse("enemies.Bloodsucker.endurance=2..6").values == ("2", "3", "4", "5", "6")
    v = Vary.parse("armor.Ecolog suit.durability = 3, 4,5")
    assert v.path == "armor.Ecolog suit.durability" and v.values == ("3", "4", "5")
    assert Vary.parse("enemies.Boar.wound_type=physical,thermal").values == ("physical",
                                                                              "thermal")
    assert Vary.parse("rules.dice.success_on=4..5").values == ("4", "5")


@pytest.mark.parametrize("text", ["enemies.Boar.endurance", "enemies.Boar.endurance=",
                                  "enemies.Boar.endurance=5..2", "enemies.Boar.endurance=1,,2",
                                  "enemies.Boar.endurance=2,2", "Boar.endurance=2"])
def test_vary_rejects_bad_text(text):
    with pytest.raises(SweepError):
        Vary.parse(text)


def test_grid_is_the_cross_product_first_axis_slowest():
    points = grid([Vary.parse("enemies.Boar.endurance=1..2"),
                   Vary.parse("enemies.Boar.wounds=1,3")])
    assert points == [("enemies.Boar.endurance=1", "enemies.Boar.wounds=1"),
                      ("enemies.Boar.endurance=1", "enemies.Boar.wounds=3"),
                      ("enemies.Boar.endurance=2", "enemies.Boar.wounds=1"),
                      ("enemies.Boar.endurance=2", "enemies.Boar.wounds=3")]
    with pytest.raises(SweepError, match="twice"):
        grid([Vary.parse("enemies.Boar.wounds=1"), Vary.parse("enemies.Boar.wounds=2")])


def test_invalid_values_are_skipped_before_anything_runs():
    result = run_sweep(None, ["enemies.Bloodsucker.endurance=0..2"], "combat", COMBAT,
                       trials=10, seed=1)
    assert sorted(set(result.frame["point"])) == [1, 2]
    (skipped,) = result.skipped
    assert skipped["point"] == 0 and skipped["refused_by"] == "rules"
    assert skipped["reason"].startswith("edit 'enemies.Bloodsucker.endurance=0'")
    with pytest.raises(SweepError, match="no point of the grid can be played: edit "
                                         "'enemies.Bloodsucker.endurance=0'"):
        run_sweep(None, ["enemies.Bloodsucker.endurance=0"], "combat", COMBAT, trials=10,
                  seed=1)
    with pytest.raises(SweepError, match="unknown experiment"):
        run_sweep(None, ["enemies.Bloodsucker.endurance=2"], "poker", COMBAT, trials=10, seed=1)


def test_tidy_table_shape_and_columns(serial):
    frame = serial.frame
    n_enemies = frame["enemy"].nunique()
    assert len(frame) == 3 * 2 * n_enemies == len(serial.points) * n_enemies
    assert list(frame.columns[:5]) == ["point", *(v.split("=")[0] for v in VARIES), "stalker",
                                       "enemy"]
    assert frame["enemies.Bloodsucker.endurance"].dtype == np.int64
    metrics = metric_names(frame)
    assert "knocked_out" in metrics and "mean_wounds" in metrics
    for m in metrics:
        for suffix in ("_ci_low", "_ci_high", "_exact"):
            assert f"{m}{suffix}" in frame.columns
    # every point lists the cards in deck order, so rows line up across points
    cards = frame.groupby("point")["enemy"].apply(tuple)
    assert cards.nunique() == 1
    assert [p["edits"] for p in serial.points][1] == ["enemies.Bloodsucker.endurance=2",
                                                      "armor.Ecolog suit.durability=5"]


def test_each_point_runs_on_its_edited_ruleset_with_the_same_seed(serial):
    frame = serial.frame
    blood = frame[frame["enemy"] == "Bloodsucker"]
    exact = blood.groupby("enemies.Bloodsucker.endurance")["knocked_out_exact"].mean()
    assert exact.is_monotonic_increasing and exact.iloc[0] < exact.iloc[-1]
    # Cards that no edit touches give bit-identical rows at every point (common random
    # numbers), except those whose fights depend on the varied armour durability.
    dog = frame[frame["enemy"] == "Blind dog"]
    same_armor = dog[dog["armor.Ecolog suit.durability"] == 3]
    assert same_armor["knocked_out"].nunique() == 1
    digests = {p["digest"] for p in serial.points}
    assert len(digests) == len(serial.points)
    rs = apply_edits(load_ruleset(), ["enemies.Bloodsucker.endurance=2",
                                      "armor.Ecolog suit.durability=3"])
    assert serial.points[0]["digest"] == rs.digest()


def test_process_pool_gives_identical_results(serial):
    pooled = run_sweep(None, VARIES, "combat", COMBAT, trials=TRIALS, seed=11, workers=2)
    assert pooled.backend == "processes:2"
    pd.testing.assert_frame_equal(serial.frame, pooled.frame)


def test_dask_local_cluster_gives_identical_results(serial):
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        remote = run_sweep(None, VARIES, "combat", COMBAT, trials=TRIALS, seed=11,
                           scheduler=cluster.scheduler_address)
    assert remote.backend.startswith("dask:")
    pd.testing.assert_frame_equal(serial.frame, remote.frame)


def test_a_custom_experiment_is_one_more_kind():
    def flat(rs, params, trials, seed):
        # what the campaign hook returns: one flat row per point
        boar = rs.enemies["Boar"]
        return {"scenario": params["scenario"], "toughness": float(boar.endurance),
                "toughness_ci_low": boar.endurance - 0.5, "toughness_ci_high": boar.endurance
                + 0.5, "toughness_exact": None, "seed": seed}

    result = run_sweep(None, ["enemies.Boar.endurance=1..3"], flat, {"scenario": "base"},
                       trials=1, seed=5)
    assert result.frame["toughness"].tolist() == [1.0, 2.0, 3.0]
    assert result.frame["seed"].tolist() == [5, 5, 5]
    assert result.metrics == ("toughness",)


def test_an_in_memory_ruleset_cannot_go_to_workers():
    edited = apply_edits(load_ruleset(), ["enemies.Boar.wounds=3"])
    with pytest.raises(SweepError, match="in memory"):
        run_sweep(edited, ["enemies.Boar.endurance=1..2"], "combat", COMBAT, trials=10, seed=1,
                  workers=2)
    result = run_sweep(edited, ["enemies.Boar.endurance=1..2"], "combat",
                       {**COMBAT, "enemy": "Boar"}, trials=10, seed=1)
    assert len(result.frame) == 2


def test_written_folder_round_trips_and_failures_leave_nothing(serial, tmp_path, monkeypatch):
    folder = write_sweep(serial, tmp_path / "sweep", "knocked_out")
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["metadata.json", "sweep-knocked_out.png", "sweep.csv", "sweep.parquet"]
    assert all((folder / n).stat().st_size > 0 for n in names)
    pd.testing.assert_frame_equal(pd.read_parquet(folder / "sweep.parquet"), serial.frame,
                                  check_dtype=False)
    meta = json.loads((folder / "metadata.json").read_text())
    assert meta["seed"] == 11 and meta["trials"] == TRIALS and len(meta["points"]) == 6
    assert meta["ruleset_digest"] == load_ruleset().digest()

    from sim.report import plots

    def boom(*args, **kwargs):
        raise RuntimeError("injected")

    monkeypatch.setattr(plots, "save", boom)
    with pytest.raises(RuntimeError, match="injected"):
        write_sweep(serial, tmp_path / "broken", "knocked_out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep"]


def test_cli_sweep(tmp_path):
    runner = CliRunner()
    out = tmp_path / "s"
    result = runner.invoke(main, ["sweep", "--stalker", "Strelok", "--enemy", "Boar",
                                  "--vary", "enemies.Boar.endurance=1..3", "--trials", "2000",
                                  "--workers", "1", "--out", str(out), "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["folder"] == str(out) and len(doc["rows"]) == 3
    assert doc["varies"] == {"enemies.Boar.endurance": ["1", "2", "3"]}
    assert (out / "sweep-knocked_out.png").stat().st_size > 0
    table = runner.invoke(main, ["sweep", "--stalker", "Strelok", "--enemy", "Boar",
                                 "--vary", "enemies.Boar.endurance=1..2", "--trials", "500",
                                 "--workers", "1", "--out", str(tmp_path / "t")])
    assert table.exit_code == 0 and "knocked_out" in table.stdout
    again = runner.invoke(main, ["sweep", "--stalker", "Strelok", "--vary",
                                 "enemies.Boar.endurance=1", "--trials", "100", "--workers",
                                 "1", "--out", str(out)])
    assert again.exit_code == 1 and "exists already" in again.output


@pytest.mark.parametrize("args", [
    ["--vary", "enemies.Boar.endurance=0"],
    ["--vary", "enemies.Nobody.endurance=1"],
    ["--vary", "enemies.Boar.endurance=1", "--metric", "happiness"],
])
def test_cli_sweep_bad_input_exits_2(args, tmp_path):
    result = CliRunner().invoke(main, ["sweep", "--stalker", "Strelok", "--trials", "100",
                                       "--workers", "1", "--out", str(tmp_path / "x"), *args])
    assert result.exit_code == 2, result.output
    assert not (tmp_path / "x").exists()


def test_campaign_experiment_plays_the_edited_ruleset(monkeypatch):
    from sim.experiments import campaign_paired

    class Result:
        def __init__(self, scenario, trials, seed):
            self.endurance = scenario.ruleset.enemies["Bloodsucker"].endurance
            self.trials, self.seed = trials, seed

        def to_frame(self):
            p = self.endurance / 10
            return pd.DataFrame([{"scenario": "base", "trials": self.trials, "seed": self.seed,
                                  "p_sarcophagus": p, "p_sarcophagus_ci_low": p - 0.01,
                                  "p_sarcophagus_ci_high": p + 0.01, "days.median": 20.0}])

    monkeypatch.setattr(campaign_paired, "run_campaign",
                        lambda scenario, *, trials, seed, threads=None: Result(scenario, trials,
                                                                                seed))
    result = run_sweep(None, ["enemies.Bloodsucker.endurance=3..5"], "campaign",
                       {"scenario": "base"}, trials=100, seed=4)
    frame = result.frame
    assert frame["p_sarcophagus"].tolist() == pytest.approx([0.3, 0.4, 0.5])
    assert list(frame.columns[:5]) == ["point", "enemies.Bloodsucker.endurance", "scenario",
                                       "trials", "seed"]
    # every metric gets the same four columns; unknown parts are NaN
    assert frame["p_sarcophagus_exact"].isna().all()
    assert frame[["days.median_ci_low", "days.median_ci_high"]].isna().all().all()
    assert result.metrics == ("p_sarcophagus", "days.median")
