"""The scenario's ``policy.weights`` reach every best-play solver (issue 43, item 4).

``zonesim artifacts --objective value`` played the plans of the default weights (a
knock-out 1, nothing else) whatever the scenario's ``policy.weights`` said, and the
report's enemy deck averaged its "best play" row the same way, while ``combat`` and the
report's per-card tables read them. The scenario setups of both now carry the weights.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from sim.cli import main
from sim.exact.best_combat import objective
from sim.experiments.artifacts import artifacts_compared, scenario_setup
from sim.experiments.setups import base_setup, best_objective
from sim.paths import bundled_ruleset, configs_root
from sim.rules.scenario import load_scenario

WEIGHTS = (("knocked_out", 1.0), ("wound", 0.3), ("killed", 0.5))
"""Weights whose plans differ from the default's: kills and wounds count, so against the
enemy deck Crystal and Stone flower raise P(knocked out) under them (they lower it under
the default weights)."""
NAMES = ("Stone blood", "Crystal", "Stone flower")
TRIALS, SEED = 2000, 5
CHANGES = ("combat_knocked_out_mc", "combat_knocked_out_exact", "anomaly_knocked_out_mc")


def _scenario(tmp_path):
    text = (configs_root() / "scenarios" / "base.toml").read_text(encoding="utf-8")
    table = ", ".join(f"{k} = {v}" for k, v in WEIGHTS)
    path = tmp_path / "weighed.toml"
    path.write_text(text.replace('ruleset = "base"', f'ruleset = "{bundled_ruleset()}"')
                    .replace("[policy]\n", f"[policy]\nweights = {{ {table} }}\n", 1),
                    encoding="utf-8")
    return path


def _changes(rows) -> dict:
    return {r["artifact"]: tuple(r[c] for c in CHANGES) for r in rows}


def test_artifacts_objective_value_plays_the_scenarios_weights(tmp_path):
    path = _scenario(tmp_path)
    sc = load_scenario(path)
    assert sc.policy.weights == WEIGHTS
    picked = [a for n in NAMES for a in ("--artifact", n)]
    result = CliRunner().invoke(main, ["artifacts", str(path), *picked, "--policy", "best",
                                       "--games", "0", "--objective", "value", "--trials",
                                       str(TRIALS), "--seed", str(SEED), "--format", "json"])
    assert result.exit_code == 0, result.output
    shown = _changes(json.loads(result.stdout)["rows"])
    setup = {**scenario_setup(load_scenario("base")), "policy": "best", "objective": "value"}
    weighed = artifacts_compared(sc.ruleset, {**setup, "weights": WEIGHTS}, trials=TRIALS,
                                 seed=SEED, names=NAMES)
    default = artifacts_compared(sc.ruleset, {**setup, "weights": ()}, trials=TRIALS,
                                 seed=SEED, names=NAMES)
    assert shown == _changes(weighed.to_dict(orient="records"))
    assert shown != _changes(default.to_dict(orient="records"))
    assert shown["Crystal"][1] > 0 > _changes(default.to_dict(orient="records"))["Crystal"][1]


def test_every_scenario_setup_of_an_encounter_carries_the_weights(tmp_path):
    """The artefact comparison's setup and the report's enemy-deck setup (whose "best play"
    row is a compare variant of it) give best play the scenario's weights."""
    sc = load_scenario(_scenario(tmp_path))
    wanted = objective("value", WEIGHTS)
    for setup in (scenario_setup(sc), base_setup("combat", sc)):
        assert best_objective({**setup, "policy": "best", "objective": "value"}) == wanted
