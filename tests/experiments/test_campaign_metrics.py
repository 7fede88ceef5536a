"""Campaign metrics without traps (issue 26, section 3): reaching the Sarcophagus, every
cause of the end, one label per metric, and an interval on every per-game mean.

- ``p_reach_sarcophagus`` counts the games in which the stalker entered the
  Sarcophagus (P-50), won or not: the kernel's per-game flag agrees with how
  each game ended, and the campaign's share is the flag's count.
- Every per-game mean of ``zonesim campaign`` comes with the normal 95 %
  interval of the per-game values, computed here from the per-game rows.
- The new metrics and every cause of the end are campaign metrics of
  compare, tune, levers, sweep and targets, and their compare baseline is the
  campaign's number on the same seed (common random numbers).
- One label per metric, declared with it and read by every output.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from click.testing import CliRunner

from sim import stats
from sim.campaign.compile import compile_campaign
from sim.cli import main
from sim.experiments import campaign as C
from sim.experiments import campaign_paired as CP
from sim.experiments import registry
from sim.experiments.campaign import run_campaign, simulate_trials
from sim.kernels import campaign as K
from sim.rules.scenario import load_scenario
from sim.workflows import levers

SCENARIO = load_scenario("base")
TRIALS, SEED = 3000, 5


@pytest.fixture(scope="module")
def rows() -> np.ndarray:
    """Per-game rows of the base scenario (trials 0 .. TRIALS - 1 of SEED)."""
    return simulate_trials(compile_campaign(SCENARIO), SEED, 0, TRIALS).copy()


@pytest.fixture(scope="module")
def data() -> dict:
    return run_campaign(SCENARIO, trials=TRIALS, seed=SEED).to_dict()


def test_the_reach_flag_agrees_with_how_each_game_ended(rows):
    end, entered = rows[:, K.G_END], rows[:, K.G_SARCOPHAGUS]
    inside = np.isin(end, (K.REACHED, K.DEATH_KNOCKOUT_SARCOPHAGUS,
                           K.DEATH_CONCUSSION_SARCOPHAGUS))
    outside = np.isin(end, (K.DEATH_FINAL_EMISSION, K.CAPPED))
    assert np.all(entered[inside] == 1)  # won or died there: he entered it (P-43, P-50)
    assert np.all(entered[outside] == 0)  # the game went on: he never entered it
    assert set(np.unique(entered)) <= {0, 1}  # one stalker enters it at most once
    assert inside.sum() > 0.5 * TRIALS and outside.sum() > 0.1 * TRIALS  # both kinds occur


def test_p_reach_is_the_share_that_entered(rows, data):
    entered = int(rows[:, K.G_SARCOPHAGUS].sum())
    low, high = stats.wilson(entered, TRIALS)
    assert data["p_reach_sarcophagus"] == {"mc": entered / TRIALS, "ci_low": low,
                                           "ci_high": high}
    won = data["p_sarcophagus"]["mc"]
    causes = {c["cause"]: c["mc"] for c in data["causes"]}
    in_there = won + causes["knocked_out_in_sarcophagus"] + causes["concussion_in_sarcophagus"]
    assert in_there <= data["p_reach_sarcophagus"]["mc"] + 1e-12
    assert data["p_reach_sarcophagus"]["mc"] > won + 0.2  # on base, many die in there


def test_every_per_game_mean_has_the_interval_of_its_games(rows, data):
    columns = {**C.COUNTERS, "game_days": K.G_DAY}
    for name, column in columns.items():
        x = rows[:, column].astype(float)
        mean, low, high = stats.mean_interval(x.sum(), (x * x).sum(), TRIALS)
        assert data["means"][name] == {"mc": mean, "ci_low": low, "ci_high": high}, name
        assert data[name] == mean and low <= mean <= high
    won = rows[rows[:, K.G_END] == K.REACHED, K.G_DAY].astype(float)
    mean, low, high = stats.mean_interval(won.sum(), (won * won).sum(), len(won))
    days = data["days"]
    assert days["mean"] == pytest.approx(mean, rel=1e-12)
    assert (days["mean_ci_low"], days["mean_ci_high"]) == (low, high)
    assert data["means"]["knockouts"]["ci_high"] > data["means"]["knockouts"]["ci_low"]


def test_blocks_and_threads_change_no_sum():
    one = run_campaign(SCENARIO, trials=2500, seed=SEED, threads=1, chunk_size=333)
    two = run_campaign(SCENARIO, trials=2500, seed=SEED, threads=2)
    assert np.array_equal(one.counts, two.counts)
    assert one.squares == two.squares and one.entered == two.entered
    assert one.to_dict() == two.to_dict()


def test_campaign_table_has_every_interval_and_the_declared_labels():
    result = CliRunner().invoke(main, ["campaign", "base", "--trials", "2000", "--seed", "3",
                                       "--format", "csv"])
    assert result.exit_code == 0, result.output
    lines = list(csv.reader(io.StringIO(result.stdout)))
    assert lines[0] == ["metric", "what", "mc", "ci_low", "ci_high"]
    table = {line[0]: line for line in lines[1:]}
    for name in ("p_reach_sarcophagus", "game_days", "knockouts", "rubles_at_end",
                 "days.mean", "causes.knocked_out_in_sarcophagus"):
        assert table[name][3] and table[name][4], name  # an interval
        assert table[name][1] == C.label(name)
    assert table["p_sarcophagus"][1] == "win (reach and survive the Sarcophagus)"
    assert table["p_reach_sarcophagus"][1] == "reach the Sarcophagus (survive it or not)"


def test_one_label_per_metric_declared_with_it():
    names = [m[0] for m in C.METRICS]
    assert len(names) == len(set(names))
    assert [m.name for m in CP.CAMPAIGN_METRICS] == names
    for name in (*names, *C.FRAME_METRICS):
        assert C.LABELS[name] and "_" not in C.LABELS[name], name
    from sim.report import labels  # the report reads the same declaration

    for name in (*names, *C.FRAME_METRICS):
        assert labels.metric(name) == C.label(name), name
    for cause, text in C.CAUSE_LABELS.items():
        assert labels.cause(cause) == text, cause


def test_artifacts_help_names_the_win_rate_not_the_reach():
    text = CliRunner().invoke(main, ["artifacts", "--help"]).output
    assert "P(reach the Sarcophagus)" not in text
    assert "win" in text


@pytest.mark.parametrize("name", ["p_reach_sarcophagus", *(f"causes.{c}" for c in C.DEATHS)])
def test_every_cause_and_the_reach_are_campaign_metrics(name):
    known = [m.name for m in registry.experiment("campaign").metrics]
    assert name in known
    assert name in C.FRAME_METRICS  # sweep columns
    assert levers.check_metric(registry.experiment("campaign"), name) == name


def test_compare_takes_a_cause_and_its_baseline_is_the_campaign(data):
    args = ["compare", "campaign", "base", "--baseline", "",
            "--variant", "edit=enemies.Bloodsucker.endurance=6",
            "--metric", "causes.knocked_out_in_sarcophagus", "--metric", "p_reach_sarcophagus",
            "--target", "causes.knocked_out_in_sarcophagus <= 0.9",
            "--trials", str(TRIALS), "--seed", str(SEED), "--format", "json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    rows = {(r["variant"], r["metric"]): r for r in json.loads(result.stdout)["rows"]}
    causes = {c["cause"]: c for c in data["causes"]}
    base = rows[("base", "causes.knocked_out_in_sarcophagus")]
    assert base["mc"] == causes["knocked_out_in_sarcophagus"]["mc"]
    assert rows[("base", "p_reach_sarcophagus")]["mc"] == data["p_reach_sarcophagus"]["mc"]
    edited = rows[("edit=enemies.Bloodsucker.endurance=6", "p_reach_sarcophagus")]
    assert edited["diff"] == pytest.approx(
        edited["mc"] - data["p_reach_sarcophagus"]["mc"], abs=1e-12)
    assert edited["diff_ci_low"] < edited["diff"] < edited["diff_ci_high"]
    assert base["target_verdict"] == "PASS"


def test_tune_and_sweep_take_the_reach_and_the_causes(tmp_path):
    tune = CliRunner().invoke(main, [
        "tune", "campaign", "base", "--vary", "enemies.Bloodsucker.endurance=3,4",
        "--target", "p_reach_sarcophagus >= 0.5", "--trials", "1500", "--seed", "3",
        "--format", "json"])
    assert tune.exit_code == 0, tune.output
    doc = json.loads(tune.stdout)
    assert doc["metric"] == "p_reach_sarcophagus"
    assert all(c["ci_low"] < c["mc"] < c["ci_high"] for c in doc["evidence"])
    sweep = CliRunner().invoke(main, [
        "sweep", "--experiment", "campaign", "--vary", "enemies.Bloodsucker.endurance=3,4",
        "--metric", "causes.knocked_out_in_sarcophagus", "--workers", "1", "--trials", "1500",
        "--seed", "3", "--format", "json", "--out", str(tmp_path / "sweep")])
    assert sweep.exit_code == 0, sweep.output
    doc = json.loads(sweep.stdout)
    assert "p_reach_sarcophagus" in doc["metrics"]
    for row in doc["rows"]:
        for name in ("causes.knocked_out_in_sarcophagus", "p_reach_sarcophagus", "knockouts"):
            assert row[f"{name}_ci_low"] < row[name] < row[f"{name}_ci_high"], name
