"""Targets and constraints: one ``--constraint``, bounds inside the metric's values (issue 43).

``optimize --constraint`` took only the last of several and accepted ``p_sarcophagus >=
1.5`` (a target no estimate can meet). A second constraint is refused; a finite bound
outside a metric's values (a proportion's 0..1, a count's >= 0) is refused wherever the
target grammar is read: ``optimize``, ``tune``, ``sweep``, ``levers``, ``compare``'s
targets and targets file, and the report's scenario targets.
"""

from __future__ import annotations

import math

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.experiments import registry
from sim.workflows.optimize import OptimizeError, objective_of
from sim.workflows.targets import TargetError, checked, metric_range, parse_target

QUICK = ["--keys", "flee_at", "--trials", "100", "--budget", "1000", "--fresh-trials", "100"]


def _checked(text: str):
    target = parse_target(text)
    return checked(target, registry.metrics().get(target.metric))


@pytest.mark.parametrize("text", [
    "p_sarcophagus >= 1.5", "p_sarcophagus in 0.35..55", "knocked_out <= -0.1",
    "knockouts <= -1", "days.median in -3..16", "causes.final_emission == 2",
    "days_median >= -1",  # an older name, read as days.median
])
def test_a_bound_outside_the_metric_s_values_is_refused(text):
    with pytest.raises(TargetError, match="outside the values"):
        _checked(text)


@pytest.mark.parametrize("text", [
    "p_sarcophagus >= 1", "p_sarcophagus in 0..1", "knockouts <= 0", "days.median >= 0",
    "rubles_at_end in 0..inf", "p_sarcophagus >= -inf", "my_own_metric >= 99",
])
def test_bounds_at_the_edge_open_or_on_unknown_metrics_pass(text):
    _checked(text)


def test_the_ranges_follow_the_declared_kinds():
    metrics = registry.metrics()
    assert metric_range(metrics["p_sarcophagus"]) == (0.0, 1.0)
    assert metric_range(metrics["game_days"]) == (0.0, math.inf)
    assert all(metric_range(m) == (0.0, math.inf) for m in metrics.values()
               if m.kind == "mean")


def test_a_targets_file_is_checked_too(tmp_path):
    path = tmp_path / "targets.toml"
    path.write_text("[targets]\nknocked_out = [0.1, 0.2]\np_sarcophagus = [0.35, 55]\n")
    result = CliRunner().invoke(main, [
        "compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--variant",
        "heal_at=1", "--baseline", "", "--targets", str(path)])
    assert result.exit_code == 2, result.output
    assert "--targets" in result.output and "the bound 55 is outside" in result.output


def test_optimize_refuses_a_constraint_outside_its_metric_s_values():
    with pytest.raises(OptimizeError, match="1.5") as error:
        objective_of(constraint="p_sarcophagus >= 1.5")
    assert error.value.field == "constraint"
    with pytest.raises(OptimizeError, match="outside"):
        objective_of(constraint="days.median <= -1")
    with pytest.raises(OptimizeError, match="outside"):
        objective_of(constraint="seat_deaths <= -1", seat=1)
    objective_of(constraint="seat_win >= 0.3", seat=1)
    result = CliRunner().invoke(main, ["optimize", "base", *QUICK, "--constraint",
                                       "p_sarcophagus >= 1.5"])
    assert result.exit_code == 2, result.output
    assert "--constraint" in result.output and "1.5" in result.output
    assert "Traceback" not in result.output and "games of selection" not in result.output


def test_optimize_refuses_a_second_constraint_instead_of_keeping_the_last():
    result = CliRunner().invoke(main, ["optimize", "base", *QUICK,
                                       "--constraint", "days.median <= 16",
                                       "--constraint", "p_final_emission <= 0.1"])
    assert result.exit_code == 2, result.output
    assert "--constraint" in result.output and "2 times" in result.output
    assert "days.median <= 16" in result.output and "p_final_emission <= 0.1" in result.output


@pytest.mark.parametrize(("args", "option"), [
    (["tune", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--vary",
      "enemies.Bloodsucker.endurance=1..8", "--target", "knocked_out in 0.2..3"], "--target"),
    (["sweep", "--experiment", "campaign", "--vary", "enemies.Bloodsucker.endurance=2..3",
      "--target", "p_sarcophagus >= 1.5"], "--target"),
    (["levers", "base", "--target", "p_sarcophagus in 45..55"], "--target"),
    (["compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--variant",
      "heal_at=1", "--baseline", "", "--target", "knocked_out <= 25"], "--target"),
])
def test_every_command_reading_a_target_refuses_the_bound(args, option, tmp_path):
    if args[0] in ("sweep", "levers"):
        args = [*args, "--out", str(tmp_path / "results")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert option in result.output and "outside the values" in result.output
    assert not (tmp_path / "results").exists()


def test_the_report_refuses_a_scenario_target_outside_the_metric_s_values(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('stalker = "Strelok"\nstart = "Cordon"\n[targets]\n'
                    "p_sarcophagus = [0.35, 55]\nknockouts = [0, 2]\n")
    result = CliRunner().invoke(main, ["report", str(path), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2, result.output
    assert f"{path}:4" in result.output and "targets.p_sarcophagus" in result.output
    assert "the bound 55 is outside" in result.output and "knockouts" not in result.output
    assert not (tmp_path / "r").exists()
