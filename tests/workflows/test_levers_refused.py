"""No step aborts a lever search (issue 26, section 3).

A move the card checks accept can still make a game that cannot be set up: with two
artefacts carried, ``rules.artifacts.carry_limit`` one step up (0, no limit, to 1) leaves
the stalker more artefacts than he may carry, and the campaign compile refuses it. The
lever finder skips such a move, names its edit (the card and cell) and the reason,
lists it with the moves the rules refuse (table and JSON), and plays all the others; the
``--target ... --max-steps 3`` example of ``zonesim levers --help`` runs to the end.

(``rules.movement.base_steps`` two steps down, the first example, is now refused by the
rules themselves: the Epicentre cost 5 is above an allowance of 4, issue 43.)
"""

from __future__ import annotations

import csv
import io
import json
import shlex

from click.testing import CliRunner

from sim.cli import main
from sim.rules.scenario import load_scenario
from sim.workflows import levers as L
from sim.workflows.targets import parse_target

SCENARIO = load_scenario("base")
TOO_HIGH = ("edit 'rules.movement.base_steps=4': key 'movement.epicentre_cost': 5 is too "
            "high: every Epicentre hex, the Sarcophagus among them, is entered with at most "
            "the base allowance, movement.base_steps = 4 (Z-03, Z-19; an objective must be "
            "reachable on it), so at most 4")


def refused(path) -> str:
    """Why the campaign compile refuses ``rules.artifacts.carry_limit=1`` for the scenario
    ``path`` carrying two artefacts (the fixture ``carrying``, tests/conftest.py)."""
    return (f"edit 'rules.artifacts.carry_limit=1': {path}: key 'loadout.artifacts': lists 2 "
            "artefacts; artifacts.carry_limit is 1")


def test_a_move_the_compile_refuses_is_skipped_with_its_edit(carrying):
    scenario = load_scenario(carrying)
    setup = L.base_setup("campaign", scenario)
    result = L.run_levers(scenario.ruleset, "campaign", setup, trials=300, seed=3,
                          tables=["rules"], cards=["artifacts"], max_steps=3,
                          target=parse_target("p_sarcophagus in 0.45..0.55"))
    skipped = {(s["path"], s["steps"]): s for s in result.skipped}
    up1 = skipped[("rules.artifacts.carry_limit", 1)]
    assert up1["reason"] == refused(carrying) and up1["refused_by"] == "compile"
    assert up1["value"] == 1
    by_rules = [s for s in result.skipped if s["refused_by"] == "rules"]
    assert by_rules and all(s["reason"].startswith("edit '") for s in by_rules)
    played = {(s["path"], s["steps"]) for s in result.steps}
    assert ("rules.artifacts.carry_limit", 2) in played  # the move after it still plays
    assert not played & set(skipped)  # no refused move was played
    doc = result.to_dict()
    assert {"path": "rules.artifacts.carry_limit", "steps": 1, "value": 1,
            "reason": refused(carrying), "refused_by": "compile"} in doc["skipped"]


def _refused_csv(folder) -> dict[tuple[str, int], dict]:
    """The skipped steps the folder's refused.csv lists (issue 47, item 6: the table only
    counts them), by path and steps."""
    rows = csv.DictReader(io.StringIO((folder / "refused.csv").read_text(encoding="utf-8")))
    return {(r["path"], int(r["steps"])): r for r in rows}


def test_the_folder_lists_every_skipped_step(tmp_path, carrying):
    result = CliRunner().invoke(main, [
        "levers", str(carrying), "--tables", "rules", "--cards", "artifacts",
        "--target", "p_sarcophagus in 0.45..0.55", "--max-steps", "3", "--trials", "300",
        "--seed", "3", "--workers", "1", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    listed = _refused_csv(tmp_path / "out")
    assert listed[("rules.artifacts.carry_limit", 1)]["reason"] == refused(carrying)
    assert listed[("rules.artifacts.carry_limit", 1)]["refused_by"] == "compile"
    assert listed[("rules.artifacts.carry_limit", -1)]["refused_by"] == "rules"
    assert f"{len(listed)} steps refused, not played" in result.stdout
    result = CliRunner().invoke(main, [
        "levers", "base", "--tables", "rules", "--cards", "movement",
        "--target", "p_sarcophagus in 0.45..0.55", "--max-steps", "3", "--trials", "300",
        "--seed", "3", "--workers", "1", "--out", str(tmp_path / "movement")])
    assert result.exit_code == 0, result.output
    listed = _refused_csv(tmp_path / "movement")
    assert listed[("rules.movement.base_steps", -2)]["reason"] == TOO_HIGH
    assert any(r["reason"].startswith("edit 'rules.movement.road_change_cost=-1'")
               and r["refused_by"] == "rules" for r in listed.values())


def test_the_help_example_with_a_target_runs_to_the_end(tmp_path):
    text = CliRunner().invoke(main, ["levers", "--help"]).output
    (example,) = [line for line in text.splitlines() if "--max-steps 3" in line]
    args = shlex.split(example)
    assert args[:2] == ["zonesim", "levers"] and "--target" in args
    result = CliRunner().invoke(main, [
        *args[1:], "--trials", "40", "--seed", "5", "--workers", "1", "--quiet",
        "--format", "json", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    refused = {(s["path"], s["steps"]): s for s in doc["skipped"]}
    assert refused[("rules.movement.base_steps", -2)]["reason"] == TOO_HIGH
    assert all(s["reason"].startswith(f"edit '{s['path']}=") for s in doc["skipped"])
    assert doc["values"] > 100 and len(doc["steps"]) > 200  # every other move was played
