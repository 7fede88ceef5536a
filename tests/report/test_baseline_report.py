"""Before and after (issue 26, item 1): a report and a comparison against a baseline.

A designer copies the base ruleset, changes three cards and asks what moved:
``zonesim report mine.toml --baseline base`` lists exactly those three cells
first, then the paired differences (common random numbers, P-14..P-50) that
moved beyond noise, then the flipped verdicts; every table shows baseline,
changed and difference, and ``diff.csv`` holds every number.
``zonesim compare scenarios`` gives the same comparison as JSON.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.paths import configs_root
from sim.report import before_after, build, labels
from sim.rules.scenario import load_scenario
from sim.workflows import baseline

TRIALS = 2_000
GAMES = 2_000
EDITS = ((("enemies.csv", "Bloodsucker,1,mutant,any,4,4,3,"),
          "Bloodsucker,1,mutant,any,4,5,3,"),
         (("items.csv", "Dosimeter,500,"), "Dosimeter,800,"),
         (("artifacts.csv", "Flash,2,electro,1000,resist,1,"), "Flash,2,electro,1000,resist,2,"))
"""Three cells changed: the Bloodsucker's endurance 4 -> 5 (P-19), the Dosimeter's price
500 -> 800 and Flash's value 1 -> 2 (P-08)."""


@pytest.fixture(scope="module")
def mine(tmp_path_factory) -> Path:
    """A copy of the base ruleset with three changed cells, and a scenario that plays it."""
    root = tmp_path_factory.mktemp("mine")
    rules = root / "mine_rules"
    shutil.copytree(configs_root() / "base", rules)
    for (file, old), new in EDITS:
        path = rules / file
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, old
        path.write_text(text.replace(old, new), encoding="utf-8")
    scenario = (configs_root() / "scenarios" / "base.toml").read_text(encoding="utf-8")
    (root / "mine.toml").write_text(scenario.replace('ruleset = "base"',
                                                     'ruleset = "mine_rules"'), encoding="utf-8")
    return root / "mine.toml"


def test_changed_cells_are_exactly_the_three(mine):
    changed = load_scenario(mine)
    cells = baseline.changed_cells(baseline.baseline_scenario(changed, "base"), changed)
    assert cells.to_dict("records") == [
        {"file": "enemies.csv", "card": "Bloodsucker", "column": "endurance", "old": "4",
         "new": "5"},
        {"file": "items.csv", "card": "Dosimeter", "column": "price", "old": "500",
         "new": "800"},
        {"file": "artifacts.csv", "card": "Flash", "column": "value", "old": "1", "new": "2"}]
    # a ruleset folder as the baseline: the same scenario on the base folder
    folder = baseline.baseline_scenario(changed, str(configs_root() / "base"))
    assert len(baseline.changed_cells(folder, changed)) == 3
    assert baseline.changed_cells(changed, changed).empty


def test_scenario_keys_and_rules_toml_are_cells(tmp_path):
    base = load_scenario("base")
    text = (configs_root() / "scenarios" / "base.toml").read_text(encoding="utf-8")
    rules = tmp_path / "rules"
    shutil.copytree(configs_root() / "base", rules)
    toml = rules / "rules.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    path = tmp_path / "other.toml"
    path.write_text(text.replace("heal_at = 2 ", "heal_at = 3 ")
                    .replace('ruleset = "base"', 'ruleset = "rules"'), encoding="utf-8")
    cells = baseline.changed_cells(base, load_scenario(path))
    assert cells.to_dict("records") == [{"file": "base.toml -> other.toml", "card": "policy",
                                         "column": "heal_at", "old": "2", "new": "3"}]


def test_paired_differences_move_the_bloodsucker(mine):
    """The Bloodsucker's fights move by about +22 pp of knock-outs; untouched cards do not.

    Cards the edit leaves alone play identical fights on the same random numbers
    (common random numbers), so their difference is exactly 0, interval and all.
    """
    changed = load_scenario(mine)
    base = baseline.baseline_scenario(changed, "base")
    rows, skipped = baseline.paired_differences(base, changed, trials=TRIALS,
                                                campaign_trials=GAMES, seed=3)
    assert skipped == []
    moved = baseline.moved(rows)
    top = moved.iloc[0]
    assert (top["card"], top["metric"]) in {("Bloodsucker", "killed"),
                                            ("Bloodsucker", "knocked_out")}
    ko = rows[(rows["card"] == "Bloodsucker") & (rows["metric"] == "knocked_out")].iloc[0]
    assert ko["diff_ci_low"] > 0.15 and ko["diff"] == pytest.approx(
        ko["changed"] - ko["baseline"])
    dog = rows[rows["card"] == "Blind dog"]
    assert (dog["diff"] == 0).all() and (dog["diff_ci_high"] == 0).all()
    assert not dog["moved"].any()
    assert set(rows["section"]) == {"enemy deck", "anomaly deck", "event deck", "campaign"}
    # same seed, any thread count: the same numbers
    again, _ = baseline.paired_differences(base, changed, trials=TRIALS, campaign_trials=GAMES,
                                           seed=3, threads=1)
    pd.testing.assert_frame_equal(rows, again)


@pytest.mark.slow
def test_report_against_a_baseline(mine, tmp_path):
    changed = load_scenario(mine)
    report = build.run_report(changed, trials=TRIALS, campaign_trials=GAMES, seed=3,
                              out=tmp_path / "out", baseline="base")
    folder = report.folder
    md = (folder / "report.md").read_text(encoding="utf-8")
    first = md.split("## Verdict")[0]
    # the three cells come first, before anything that moved (after the glossary's terms)
    glossary = {f"- **{term}**" for term, _ in labels.GLOSSARY}
    lines = [line for line in first.splitlines()
             if line.startswith("- ") and line.split(":")[0] not in glossary]
    assert lines[:3] == ["- enemies.csv, Bloodsucker, endurance: 4 -&gt; 5",
                         "- items.csv, Dosimeter, price: 500 -&gt; 800",
                         "- artifacts.csv, Flash, value: 1 -&gt; 2"]
    assert "Moved beyond noise" in first and "Bloodsucker, knocked out" in first
    assert "Verdicts that flipped" in first or "No verdict flipped" in first
    # every table: a moved cell reads baseline -> changed (difference)
    enemy = md.split("**Enemy cards**")[1].split("**")[0]
    blood = next(line for line in enemy.splitlines() if line.startswith("| Bloodsucker"))
    assert "-&gt;" in blood
    dog = next(line for line in enemy.splitlines() if line.startswith("| Blind dog"))
    assert "-&gt;" not in dog
    diff = pd.read_csv(folder / "diff.csv")
    assert list(diff.columns) == list(before_after.DIFF_TABLE_COLUMNS)
    assert set(diff["source"]) == {"paired", "table"}
    assert {"enemy_deck", "items_event", "campaign_summary"} <= set(diff["table"])
    price = diff[(diff["table"] == "items_event") & (diff["column"] == "price")
                 & (diff["row"].str.startswith("Dosimeter"))]
    assert set(price["difference"]) == {300.0}
    meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
    assert meta["baseline"]["given"] == "base" and "diff.csv" in meta["files"]
    assert report.to_dict()["changed_cells"][0]["card"] == "Bloodsucker"
    # why the win rate moved (issue 47): paths of the changed games adding up to the difference
    assert "Why the win rate moved" in first
    said = re.search(r"the difference ([+-][0-9.]+) \(95 %", first)
    paths = pd.read_csv(folder / "win_rate_paths.csv")
    assert {"what", "games", "share", "share_ci_low", "share_ci_high"} <= set(paths.columns)
    assert paths["share"].sum() == pytest.approx(float(said.group(1)), abs=6e-5)


def test_merged_cell():
    assert before_after.merged_cell("0.1300 ±0.0010", "0.1500 ±0.0010") == \
        "0.1300 ±0.0010 -> 0.1500 ±0.0010 (+0.0200)"
    assert before_after.merged_cell("38.9 % (38.0 to 39.8)", "40.1 % (39.2 to 41.0)") == \
        "38.9 % (38.0 to 39.8) -> 40.1 % (39.2 to 41.0) (+1.2 pp)"
    assert before_after.merged_cell("Strelok", "Strelok") == "Strelok"
    assert before_after.merged_cell("PASS", "FAIL") == "PASS -> FAIL"


def test_compare_scenarios_json_and_errors(mine, tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["compare", "scenarios", str(mine), "--baseline", "base",
                                  "--trials", "300", "--campaign-trials", "300", "--seed", "2",
                                  "--format", "json", "--quiet"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [c["card"] for c in doc["changed_cells"]] == ["Bloodsucker", "Dosimeter", "Flash"]
    assert doc["moved"] and all(r["moved"] for r in doc["moved"])
    assert {"baseline", "baseline_ci_low", "changed", "diff", "diff_ci_low"} <= set(
        doc["rows"][0])
    # a ruleset folder without the scenario's stalker: named, status 2, no traceback
    rules = tmp_path / "rules"
    shutil.copytree(configs_root() / "base", rules)
    stalkers = rules / "stalkers.csv"
    stalkers.write_text(stalkers.read_text(encoding="utf-8").replace("Strelok", "Strelka"),
                        encoding="utf-8")
    result = runner.invoke(main, ["compare", "scenarios", "base", "--baseline", str(rules),
                                  "--trials", "10", "--campaign-trials", "10"])
    assert result.exit_code == 2
    assert ("cannot be played on it: key 'stalker': 'Strelok' is not a stalker in the ruleset "
            "(did you mean 'Strelka'?)") in " ".join(result.output.split())
    assert "Traceback" not in result.output
    result = runner.invoke(main, ["report", "four_stalkers", "--baseline", "base",
                                  "--trials", "10", "--campaign-trials", "10",
                                  "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and "several stalkers" in result.output
    assert not (tmp_path / "x").exists()
