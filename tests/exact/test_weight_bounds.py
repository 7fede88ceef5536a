"""``policy.weights`` within bounds, and a best-play solver that cannot overflow (issue 43, 3).

A weight of ``inf`` or ``1e308`` used to be accepted: the backward induction of
:mod:`sim.exact.best_combat` then computed ``inf - inf`` (NaN), the "best" plan was
knocked out with probability 1.0, numpy warned on stderr and the JSON held ``-Infinity``.
Now every weight is a finite number in ``0..MAX_WEIGHT`` (the scenario loader refuses
the rest with file, key and value; :class:`~sim.exact.best_combat.Objective` refuses
them from any other caller), and the solver at the largest accepted weights stays
finite with the plan of the same weights scaled down (a plan does not depend on the
unit of its weights).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.encounter.anomaly import compile_anomaly
from sim.encounter.combat import CombatPolicy, compile_combat
from sim.exact.best_combat import solve_combat, value_objective
from sim.exact.best_hazard import solve_anomaly
from sim.paths import bundled_ruleset, configs_root
from sim.rules import RulesetError
from sim.rules.scenario import WEIGHT_KEYS, load_scenario

MAX_WEIGHT = 1_000_000
"""The documented bound (docs/rules.md, ``sim.rules.scenario.MAX_WEIGHT``)."""


def _scenario(tmp_path, weights: str):
    """The base scenario playing best play for the value objective with ``weights``."""
    text = (configs_root() / "scenarios" / "base.toml").read_text(encoding="utf-8")
    path = tmp_path / "weighed.toml"
    path.write_text(text.replace('ruleset = "base"', f'ruleset = "{bundled_ruleset()}"')
                    .replace("[policy]\n", '[policy]\nencounters = "best"\nobjective = "value"\n'
                             f"weights = {{ {weights} }}\n", 1), encoding="utf-8")
    return path


@pytest.mark.parametrize("value", ["inf", "+inf", "1e308", "1e400", "1" + "0" * 400,
                                   str(MAX_WEIGHT * 10), "nan", "-inf"])
def test_a_weight_that_is_not_finite_or_too_large_is_refused_with_its_key(tmp_path, value):
    path = _scenario(tmp_path, f"knocked_out = 1, wound = {value}")
    with pytest.raises(RulesetError) as info:
        load_scenario(path)
    [problem] = info.value.problems
    assert problem.file == str(path) and problem.column == "policy.weights.wound"
    assert problem.line is not None
    assert f"at most {MAX_WEIGHT:,}" in problem.message


def test_the_largest_weight_is_accepted(tmp_path):
    from sim.rules import scenario

    assert scenario.MAX_WEIGHT == MAX_WEIGHT
    weights = ", ".join(f"{k} = {MAX_WEIGHT}" for k in WEIGHT_KEYS)
    policy = load_scenario(_scenario(tmp_path, weights)).policy
    assert dict(policy.weights) == dict.fromkeys(WEIGHT_KEYS, float(MAX_WEIGHT))


def test_zonesim_combat_refuses_an_infinite_weight_with_file_key_and_value(tmp_path):
    path = _scenario(tmp_path, "knocked_out = inf, killed = 1e308")
    result = CliRunner().invoke(main, ["combat", "--scenario", str(path), "--enemy",
                                       "Bloodsucker", "--trials", "100", "--format", "json"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "Infinity" not in result.output
    lines = [line for line in result.output.splitlines() if "policy.weights" in line]
    assert len(lines) == 2  # both at once
    assert str(path) in lines[0] and "policy.weights.knocked_out" in lines[0]
    assert "inf" in lines[0] and "policy.weights.killed" in lines[1] and "1e+308" in lines[1]


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan, MAX_WEIGHT * 2.0, -1.0])
def test_an_objective_refuses_a_weight_out_of_bounds_from_any_caller(bad):
    with pytest.raises(ValueError, match="weight"):
        value_objective(wound=bad)


@pytest.fixture(scope="module")
def base():
    sc = load_scenario("base")
    return sc.ruleset, sc


@pytest.mark.parametrize("enemy", ["Bloodsucker", "Boar"])
def test_the_solver_at_the_largest_weights_stays_finite_with_the_plan_of_unit_weights(
        base, enemy):
    """Every weight at :data:`MAX_WEIGHT`: no overflow (numpy errors raised), the value that
    of weights 1 times MAX_WEIGHT and the same plan (ties are relative to the weights)."""
    rs, sc = base
    spec = compile_combat(rs, sc.stalker, enemy, sc.armor, tuple(sc.weapons), tuple(sc.items),
                          CombatPolicy())
    unit = value_objective(**dict.fromkeys(WEIGHT_KEYS, 1.0))
    largest = value_objective(**dict.fromkeys(WEIGHT_KEYS, float(MAX_WEIGHT)))
    with np.errstate(all="raise"):
        small, big = solve_combat(spec, unit), solve_combat(spec, largest)
    assert math.isfinite(big.value)
    assert big.value == pytest.approx(small.value * MAX_WEIGHT, rel=1e-9)
    assert np.array_equal(big.entries, small.entries) and big.sneak == small.sneak


def test_the_hazard_solver_at_the_largest_weights_stays_finite(base):
    rs, sc = base
    name = next(iter(rs.anomalies))
    spec = compile_anomaly(rs, sc.stalker, name, sc.armor, ())
    largest = value_objective(**dict.fromkeys(WEIGHT_KEYS, float(MAX_WEIGHT)))
    assert math.isfinite(solve_anomaly(spec, largest).value)
