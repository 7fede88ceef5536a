"""Battlefield values in compare and sweep, on common random numbers (issue 50 item 4).

``zonesim compare skirmish`` and ``zonesim sweep --experiment skirmish`` vary a
battlefield value like a card value (:mod:`sim.workflows.battlefield`): every point
plays the same fights on the same dice, so a value that never reaches the fight
differs by exactly 0, and a wall of 2 units (S-23: no fire through it) moves P(win)
beyond noise.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.experiments.skirmish import paired, simulate
from sim.rules.skirmish_loader import load_scenario
from sim.skirmish.vary import VaryError, grid, parse
from sim.workflows.battlefield import compare_battlefield

FIELD = "configs/skirmish/field_cover.toml"
STREET = "configs/skirmish/street_buildings.toml"


def _with_far_fence(tmp_path):
    """The field with a fence in a far corner, on no line of fire or movement."""
    text = Path(FIELD).read_text(encoding="utf-8")
    fence = ('[[battlefield.cover]]\nname = "Far fence"\nfrom = [0.5, 0.5]\nto = [1.5, 0.5]\n'
             'units = 1\nkind = "partial"\n\n')
    path = tmp_path / "field_fence.toml"
    path.write_text(text.replace("[groups.stalkers]", fence + "[groups.stalkers]"),
                    encoding="utf-8")
    return load_scenario(path)


def _rows(comparison, side, metric):
    return [r for r in comparison.rows() if r["side"] == side and r["metric"] == metric]


def test_a_value_that_never_reaches_the_fight_differs_by_exactly_zero(tmp_path):
    """Guard: unpaired streams (a seed per point) would give a nonzero difference."""
    scenario = _with_far_fence(tmp_path)
    comparison = compare_battlefield(scenario, ["cover.Far fence.units=1,2",
                                                "cover.Far fence.kind=partial,cover"],
                                     trials=400, seed=11)
    assert len(comparison.labels) == 4
    for row in comparison.rows():
        assert row["diff"] == row["diff_ci_low"] == row["diff_ci_high"] == 0.0, row
    assert {r["verdict"] for r in comparison.rows()
            if r["variant"] != comparison.labels[0]} == {"no detectable difference"}


def test_a_wall_of_two_units_moves_p_win():
    """S-23: the stone wall at 2 units blocks fire; the stalkers behind it win more."""
    comparison = compare_battlefield(load_scenario(FIELD), ["cover.Stone wall.units=1,2"],
                                     trials=2000, seed=20261129)
    base, wall = _rows(comparison, "Stalkers", "p_win")
    assert base["verdict"] == "baseline"
    assert wall["diff_ci_low"] > 0.0 and wall["verdict"] == "higher"
    assert wall["diff"] == pytest.approx(wall["mc"] - base["mc"])


def test_the_baseline_point_plays_the_very_fights_of_zonesim_skirmish():
    """Point 0 of the paired kernel counts what the firefight kernel counts on the seed."""
    scenario = load_scenario(STREET)
    points = grid(scenario, ["buildings.Shop.openings.1=window,none"])
    both = paired([s for _, s in points], trials=600, seed=5)
    alone = simulate(points[0][1], trials=600, seed=5)
    columns = [(side, metric.name) for side, metric in both.columns]
    for side in alone.sides:
        assert both.sums[0, 0, columns.index((side.name, "p_win"))] == side.wins
        assert both.sums[0, 0, columns.index((side.name, "casualties"))] == sum(
            n * c for n, c in enumerate(side.shot))
    assert both.sums[0, 0, 0] == alone.draws


def test_vary_reads_ranges_and_refuses_a_key_twice():
    assert parse("cover.Stone wall.units=1..3") == ("cover.Stone wall.units", ["1", "2", "3"])
    with pytest.raises(VaryError, match="varied twice"):
        grid(load_scenario(FIELD), ["cover.Hedge.units=1,2", "cover.Hedge.units=3"])
    with pytest.raises(VaryError, match="at least two values"):
        compare_battlefield(load_scenario(FIELD), ["cover.Hedge.units=1"], trials=10, seed=1)


@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_compare_skirmish_prints_every_format(fmt):
    result = CliRunner().invoke(main, ["compare", "skirmish", FIELD, "--vary",
                                       "cover.Stone wall.units=1,2", "--trials", "300",
                                       "--metric", "p_win", "--format", fmt])
    assert result.exit_code == 0, result.output
    if fmt == "json":
        doc = json.loads(result.stdout)
        assert doc["baseline"] == "cover.Stone wall.units=1"
        assert [r["side"] for r in doc["rows"]] == ["Stalkers", "Bandits"] * 2
        assert {r["metric"] for r in doc["rows"]} == {"p_win"}
    elif fmt == "csv":
        assert result.stdout.splitlines()[0] == ("variant,side,metric,mc,ci_low,ci_high,diff,"
                                                 "diff_ci_low,diff_ci_high,verdict")
    else:
        assert "paired difference to the first point" in result.stdout


def test_sweep_skirmish_prints_the_metric_per_point_and_refuses_other_options():
    runner = CliRunner()
    result = runner.invoke(main, ["sweep", "--experiment", "skirmish", "--scenario", FIELD,
                                  "--vary", "cover.Stone wall.units=1..3", "--trials", "300",
                                  "--metric", "casualties", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert len(rows) == 6 and {r["metric"] for r in rows} == {"casualties"}
    refused = runner.invoke(main, ["sweep", "--experiment", "skirmish", "--scenario", FIELD,
                                   "--vary", "cover.Hedge.units=1,2", "--enemy", "Snork"])
    assert refused.exit_code == 2 and "--enemy" in refused.output
    bad = runner.invoke(main, ["sweep", "--experiment", "skirmish", "--scenario", FIELD,
                               "--vary", "cover.Hedge.units=1,2", "--metric", "p_winn"])
    assert bad.exit_code == 2 and "not a skirmish metric" in bad.output


def test_the_help_examples_run():
    """Every example of ``zonesim compare skirmish --help`` runs (a few fights each)."""
    import shlex

    from sim.cli.battlefield import compare_skirmish
    text = compare_skirmish.help.split("Example:")[1].replace("\\\n", " ")
    examples = [shlex.split(line)[1:] for line in text.splitlines() if "zonesim" in line]
    assert len(examples) == 2
    for argv in examples:
        result = CliRunner().invoke(main, [*argv, "--trials", "50", "--format", "json"])
        assert result.exit_code == 0, (argv, result.output)
