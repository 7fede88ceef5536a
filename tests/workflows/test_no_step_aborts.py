"""No step aborts a sweep or a tune (issue 26, section 3, beside
tests/workflows/test_levers_refused.py).

A grid point or a tune candidate the rules refuse (a value out of its column's
range; ``rules.movement.base_steps`` at 4 or less on the base ruleset, below the Epicentre
cost of 5, issue 43) or whose game the experiment cannot set up (with two artefacts
carried, ``rules.artifacts.carry_limit = 1``: more artefacts than he may carry) is skipped
and listed with its edit (card and cell) and reason; the others are played. Only a grid
or a search with nothing left to play is an error (exit status 2).
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from sim.cli import main
from sim.rules import load_ruleset
from sim.rules.scenario import load_scenario
from sim.workflows import tune as T
from sim.workflows.compare import Variant
from sim.workflows.levers import base_setup
from sim.workflows.sweep import run_sweep
from sim.workflows.targets import parse_target
from tests.workflows.test_levers_refused import TOO_HIGH, refused


def test_a_sweep_skips_the_points_whose_game_cannot_be_set_up(carrying):
    result = run_sweep(None, ["rules.artifacts.carry_limit=1..3"], "campaign",
                       {"scenario": str(carrying)}, trials=100, seed=3)
    assert sorted(set(result.frame["point"])) == [1, 2]
    (skipped,) = result.skipped
    assert skipped == {"point": 0, "edits": ["rules.artifacts.carry_limit=1"],
                       "reason": "edit 'rules.artifacts.carry_limit=1': the edited ruleset: "
                                 "scenario carrying cannot be played on it: key "
                                 "'loadout.artifacts': lists 2 artefacts; "
                                 "artifacts.carry_limit is 1", "refused_by": "compile"}
    assert result.metadata()["skipped"] == [skipped]
    assert [p["point"] for p in result.points] == [1, 2]


def test_a_sweep_skips_the_points_the_rules_refuse():
    result = run_sweep(None, ["rules.movement.base_steps=4..6"], "campaign",
                       {"scenario": "base"}, trials=100, seed=3)
    assert sorted(set(result.frame["point"])) == [1, 2]
    (skipped,) = result.skipped
    assert skipped == {"point": 0, "edits": ["rules.movement.base_steps=4"], "reason": TOO_HIGH,
                       "refused_by": "rules"}


def test_a_sweep_without_skips_keeps_its_metadata():
    result = run_sweep(None, ["rules.movement.base_steps=6"], "campaign",
                       {"scenario": "base"}, trials=50, seed=3)
    assert result.skipped == () and "skipped" not in result.metadata()


def test_the_sweep_command_lists_every_skipped_point(tmp_path):
    args = ["sweep", "--experiment", "campaign", "--vary", "rules.movement.base_steps=3..5",
            "--trials", "100", "--workers", "1", "--quiet"]
    table = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "a")])
    assert table.exit_code == 0, table.output
    assert "2 points skipped, not played:" in table.stdout
    assert ("point 1 (rules.movement.base_steps=4): the rules refuse it: " + TOO_HIGH
            in table.stdout)
    doc = json.loads(CliRunner().invoke(main, [*args, "--out", str(tmp_path / "b"),
                                               "--format", "json"]).stdout)
    assert [s["point"] for s in doc["skipped"]] == [0, 1]
    meta = json.loads((tmp_path / "b" / "metadata.json").read_text())
    assert [s["point"] for s in meta["skipped"]] == [0, 1]


def test_a_sweep_with_nothing_to_play_exits_2(tmp_path):
    out = CliRunner().invoke(main, ["sweep", "--experiment", "campaign", "--vary",
                                    "rules.movement.base_steps=3..4", "--trials", "50",
                                    "--workers", "1", "--out", str(tmp_path / "x")])
    assert out.exit_code == 2 and "no point of the grid can be played" in out.output
    assert "Traceback" not in out.output and not (tmp_path / "x").exists()


def test_tune_skips_the_candidates_that_cannot_be_played(carrying):
    sc = load_scenario(carrying)
    result = T.tune("campaign", sc.ruleset, base_setup("campaign", sc),
                    "rules.artifacts.carry_limit=1..3", parse_target("p_sarcophagus >= 0.2"),
                    trials=100, seed=3, method="scan")
    assert [s["value"] for s in result.skipped] == [1]
    assert result.skipped[0]["reason"] == refused(carrying)
    assert result.skipped[0]["refused_by"] == "compile"
    assert [e["value"] for e in result.evidence] == [2, 3]
    assert result.to_dict()["skipped"] == list(result.skipped)


def test_tune_skips_a_candidate_the_rules_refuse():
    rs = load_ruleset()
    base = {"stalker": "Strelok", "enemy": "Bloodsucker"}
    result = T.tune("combat", rs, base, "enemies.Bloodsucker.endurance=0..3",
                    parse_target("knocked_out in 0.2..0.3"), trials=200, seed=1,
                    method="scan", variant=Variant())
    assert [s["value"] for s in result.skipped] == [0]
    assert result.skipped[0]["refused_by"] == "rules"
    assert "0 is not in 1..10" in result.skipped[0]["reason"]
    assert [e["value"] for e in result.evidence] == [1, 2, 3]
    assert "skipped" not in T.tune("combat", rs, base, "enemies.Bloodsucker.endurance=1..3",
                                   parse_target("knocked_out in 0.2..0.3"), trials=200,
                                   seed=1, method="scan").to_dict()


def test_the_tune_command_lists_the_skipped_candidates():
    out = CliRunner().invoke(main, ["tune", "campaign", "base", "--vary",
                                    "rules.movement.base_steps=4..6", "--target",
                                    "p_sarcophagus >= 0.2", "--trials", "100", "--method",
                                    "scan", "--quiet"])
    assert out.exit_code == 0, out.output
    assert "1 candidates skipped, not played:" in out.stdout
    assert "rules.movement.base_steps=4: the rules refuse it: " + TOO_HIGH in out.stdout


def test_tune_with_nothing_to_play_exits_2():
    out = CliRunner().invoke(main, ["tune", "campaign", "base", "--vary",
                                    "rules.movement.base_steps=3..4", "--target",
                                    "p_sarcophagus >= 0.2", "--trials", "50"])
    assert out.exit_code == 2 and "no candidate can be played" in out.output
    assert "Traceback" not in out.output
