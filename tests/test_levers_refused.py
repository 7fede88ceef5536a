"""No step aborts a lever search (issue 26, section 3).

A move the card checks accept can still make a game that cannot be set up:
``rules.movement.base_steps`` two steps down leaves some hexes of the base map
unable to reach a bunker, and the campaign compile refuses it. The lever
finder skips such a move, names its edit (the card and cell) and the reason,
lists it with the moves the rules refuse (table and JSON), and plays all the
others; the ``--target ... --max-steps 3`` example of ``zonesim levers --help``
runs to the end.
"""

from __future__ import annotations

import json
import shlex

from click.testing import CliRunner

from sim.cli import main
from sim.rules.scenario import load_scenario
from sim.workflows import levers as L
from sim.workflows.targets import parse_target

SCENARIO = load_scenario("base")
REFUSED = "edit 'rules.movement.base_steps=4': some hexes cannot reach a bunker"


def test_a_move_the_compile_refuses_is_skipped_with_its_edit():
    setup = L.base_setup("campaign", SCENARIO)
    result = L.run_levers(SCENARIO.ruleset, "campaign", setup, trials=300, seed=3,
                          tables=["rules"], cards=["movement"], max_steps=3,
                          target=parse_target("p_sarcophagus in 0.45..0.55"))
    skipped = {(s["path"], s["steps"]): s for s in result.skipped}
    down2 = skipped[("rules.movement.base_steps", -2)]
    assert down2["reason"] == REFUSED and down2["refused_by"] == "compile"
    assert down2["value"] == 4
    by_rules = [s for s in result.skipped if s["refused_by"] == "rules"]
    assert by_rules and all(s["reason"].startswith("edit '") for s in by_rules)
    played = {(s["path"], s["steps"]) for s in result.steps}
    assert ("rules.movement.base_steps", -1) in played  # the move before it still plays
    assert not played & set(skipped)  # no refused move was played
    doc = result.to_dict()
    assert {"path": "rules.movement.base_steps", "steps": -2, "value": 4, "reason": REFUSED,
            "refused_by": "compile"} in doc["skipped"]


def test_the_table_lists_every_skipped_step(tmp_path):
    result = CliRunner().invoke(main, [
        "levers", "base", "--tables", "rules", "--cards", "movement",
        "--target", "p_sarcophagus in 0.45..0.55", "--max-steps", "3", "--trials", "300",
        "--seed", "3", "--workers", "1", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "rules.movement.base_steps -2: the game cannot be set up: " + REFUSED in result.stdout
    assert "rules.movement.base_steps -3: the game cannot be set up" in result.stdout
    assert "the rules refuse it: edit 'rules.movement.road_change_cost=-1'" in result.stdout


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
    compile_refused = [s for s in doc["skipped"] if s["refused_by"] == "compile"]
    assert {s["path"] for s in compile_refused} >= {"rules.movement.base_steps"}
    assert all(s["reason"].startswith(f"edit '{s['path']}=") for s in doc["skipped"])
    assert doc["values"] > 100 and len(doc["steps"]) > 200  # every other move was played
