"""``zonesim levers`` plays its top moves again on fresh games (honest selection).

The ranking is read on the dice that made it, so its top is favoured by their noise. The
:data:`~sim.workflows.levers.FRESH_TOP` levers that move the metric most and the first
changes reaching a target are played again on the fresh seed
(:func:`sim.workflows.fresh.fresh_seed`); on the combat deck the exact twin of the fight
(P-14..P-29) says what each paired difference should be.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sim import stats
from sim.cli import main
from sim.rules.scenario import load_scenario
from sim.workflows import levers as L
from sim.workflows.fresh import fresh_seed
from sim.workflows.targets import parse_target
from tests.conftest import Z_TOL

SCENARIO = load_scenario("base")
COMBAT = L.base_setup("combat", SCENARIO)
TARGET = parse_target("knocked_out in 0.1..0.2")


@pytest.fixture(scope="module")
def result() -> L.LeverResult:
    return L.run_levers(SCENARIO.ruleset, "combat", COMBAT, trials=8_000, seed=5,
                        target=TARGET, tables=["enemies", "stalkers", "weapons"])


def test_the_top_levers_and_reaching_changes_are_played_on_fresh_dice(result):
    fresh = result.fresh
    assert fresh["seed"] == fresh_seed(5) != 5 and fresh["trials"] == 8_000
    top = [r["path"] for r in result.ranking().head(L.FRESH_TOP).to_dict(orient="records")]
    roles = [(r["role"], r["path"]) for r in fresh["rows"]]
    assert [p for role, p in roles if role == "top"] == top
    reaching = [(s["path"], s["steps"]) for s in result.reaching_rows()[:L.FRESH_TOP]]
    shown = {(r["path"], r["steps"]) for r in fresh["rows"]}
    assert set(reaching) <= shown and len(shown) == len(fresh["rows"])  # each move once


def test_fresh_differences_are_new_dice_that_agree_with_the_exact_twin(result):
    steps = {(s["path"], s["steps"]): s for s in result.steps}
    for r in result.fresh["rows"]:
        old = steps[(r["path"], r["steps"])]
        assert r["diff"] != old["diff"] or old["diff"] == 0.0  # not the ranking's estimate
        se = (r["diff_ci_high"] - r["diff_ci_low"]) / (2 * stats.Z95)
        if old["diff_exact"] is not None and se > 0:
            assert abs(r["diff"] - old["diff_exact"]) / se < Z_TOL, r


def test_the_command_prints_the_figures_to_act_on(tmp_path):
    args = ["levers", "base", "--experiment", "combat", "--card", "Bloodsucker", "--metric",
            "knocked_out", "--tables", "enemies", "--trials", "3000", "--seed", "2",
            "--out", str(tmp_path / "out")]
    table = CliRunner().invoke(main, args)
    assert table.exit_code == 0, table.output
    assert "fresh games (seed" in table.stdout and "  top: enemies.Bloodsucker." in table.stdout
    doc = json.loads(CliRunner().invoke(main, [*args[:-1], str(tmp_path / "j"), "--format",
                                               "json"]).stdout)
    assert doc["fresh"]["seed"] == fresh_seed(2) and doc["fresh"]["rows"]
    assert (tmp_path / "out" / "fresh.csv").read_text().startswith("role,path,steps")
