"""Artefacts in whole games (issue 11; P-07..P-11, P-34, P-35, P-37, Z-20).

docs/rules.md "Artefacts in the campaign". The kernel against the plain-Python
reference on artefact scenarios is in tests/kernels/campaign/test_campaign_reference.py; here:
a change of P(Sarcophagus) measured by two independent runs agrees with the
paired comparison (common random numbers), and each campaign rule shows in
the per-game counts it should move, and only there.
"""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from sim.campaign.compile import compile_campaign
from sim.errors import InputError
from sim.experiments import campaign as campaign_api
from sim.experiments.artifacts import campaign_changes
from sim.experiments.campaign import run_campaign
from sim.paths import bundled_ruleset, configs_root
from sim.rules.scenario import load_scenario

Z_TOL = 4.5
BASE = (configs_root() / "scenarios" / "base.toml").read_text()


def scenario_file(tmp_path: Path, name: str = "s", *, artifacts=(), keep=(), policy: str = "",
                  rules: str = "") -> Path:
    """The base scenario with ``artifacts`` carried, ``keep`` kept and extra policy lines.

    ``policy`` lines replace or add ``[policy]`` keys; ``rules`` (TOML lines)
    replace (or add) keys of the base ruleset's ``[artifacts]`` table in a copy of it.
    """
    text = BASE.replace("items = [", f"artifacts = {list(artifacts)!r}\nitems = [", 1)
    text = text.replace("[policy]\n", f"[policy]\nkeep_artifacts = {list(keep)!r}\n", 1)
    for line in policy.strip().splitlines():
        key = line.split("=")[0].strip()
        text, found = re.subn(rf"(?m)^{key} = .*$", line, text)
        if not found:
            text = text.replace("[policy]\n", f"[policy]\n{line}\n", 1)
    text = text.replace("'", '"')
    if rules:
        folder = tmp_path / f"rules_{name}"
        shutil.copytree(bundled_ruleset(), folder)
        toml = (folder / "rules.toml").read_text()
        for line in rules.strip().splitlines():
            key = line.split("=")[0].strip()
            toml, found = re.subn(rf"(?m)^{key} = .*$", line, toml)
            if not found:  # a key the base set leaves out
                toml = toml.replace("\n[artifacts]\n", f"\n[artifacts]\n{line}\n", 1)
        (folder / "rules.toml").write_text(toml)
        text = text.replace('ruleset = "base"', f'ruleset = "{folder.name}"', 1)
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


def mean(result, key: str) -> float:
    return float(result.to_dict()[key])


def p_sarcophagus(result) -> tuple[float, float]:
    """P(Sarcophagus) and its standard error."""
    p = result.to_dict()["p_sarcophagus"]["mc"]
    return p, math.sqrt(p * (1 - p) / result.trials)


def test_a_change_measured_twice_agrees_with_the_paired_comparison(tmp_path):
    """Stone blood changes P(Sarcophagus) by what the paired comparison says (issue 11)."""
    trials = 20_000
    carrying = load_scenario(scenario_file(tmp_path, artifacts=["Stone blood"]))
    without = load_scenario(scenario_file(tmp_path, "none"))
    p1, se1 = p_sarcophagus(run_campaign(carrying, trials=trials, seed=11))
    p0, se0 = p_sarcophagus(run_campaign(without, trials=trials, seed=12))
    sums = campaign_changes(without, ["Stone blood"], trials=trials, seed=13)
    d = sums.sums[1]
    paired = d[2, 0] / trials
    paired_se = math.sqrt(max(d[3, 0] / trials - paired**2, 0.0) / trials)
    assert abs(paired) > Z_TOL * paired_se  # the artefact matters: the check can fail
    z = ((p1 - p0) - paired) / math.sqrt(se1**2 + se0**2 + paired_se**2)
    assert abs(z) < Z_TOL, (p1 - p0, paired, z)
    assert paired_se < math.sqrt(se1**2 + se0**2)  # pairing pays (common random numbers)


def test_without_artefacts_and_exchange_the_artefact_counters_stay_zero(tmp_path):
    result = run_campaign(load_scenario(scenario_file(tmp_path, policy="exchange = false")),
                          trials=3000, seed=3)
    assert mean(result, "artifacts_used") == mean(result, "side_effects") == 0
    assert mean(result, "exchanges") == 0


def test_the_exchange_buys_artefacts_with_anomaly_trophies(tmp_path):
    """P-34: at the Ecologists' Bunker every 3 trophies buy one artefact, sold there (P-11)."""
    on = run_campaign(load_scenario(scenario_file(tmp_path, "on", policy="enter_anomalies = true")),
                      trials=4000, seed=5)
    off = run_campaign(load_scenario(scenario_file(
        tmp_path, "off", policy="enter_anomalies = true\nexchange = false")), trials=4000, seed=5)
    assert mean(on, "exchanges") > 0.05
    assert mean(off, "exchanges") == 0
    assert mean(on, "rubles_at_end") > mean(off, "rubles_at_end")


def test_a_kept_find_is_used(tmp_path):
    """A kept name found in an anomaly is held and acts (P-07, P-35): uses without a loadout one."""
    kept = run_campaign(load_scenario(scenario_file(
        tmp_path, keep=["Fireball", "Slime"], policy="enter_anomalies = true")), trials=4000,
        seed=8)
    assert mean(kept, "artifacts_used") > 0
    sold = run_campaign(load_scenario(scenario_file(
        tmp_path, "sold", policy="enter_anomalies = true")), trials=4000, seed=8)
    assert mean(sold, "artifacts_used") == 0


def test_movement_artefacts_follow_the_policy(tmp_path):
    """Z-20: Battery is used every morning (automatic: its side effect every day) or not at all."""
    used = run_campaign(load_scenario(scenario_file(tmp_path, artifacts=["Battery"])),
                        trials=3000, seed=4)
    idle = run_campaign(load_scenario(scenario_file(
        tmp_path, "idle", artifacts=["Battery"], policy="use_movement_artifacts = false")),
        trials=3000, seed=4)
    assert mean(used, "side_effects") > 5  # about one a day
    assert mean(idle, "artifacts_used") == 0
    assert mean(used, "game_days") < mean(idle, "game_days")


def test_a_carried_artefact_changes_the_fights(tmp_path):
    """Stone blood resists the Monolith fighter's physical wounds: fewer deaths there."""
    with_it = run_campaign(load_scenario(scenario_file(tmp_path, artifacts=["Stone blood"])),
                           trials=4000, seed=2).to_dict()
    without = run_campaign(load_scenario(scenario_file(tmp_path, "none")), trials=4000,
                           seed=2).to_dict()
    causes = {d["cause"]: d["mc"] for d in with_it["causes"]}
    before = {d["cause"]: d["mc"] for d in without["causes"]}
    assert causes["knocked_out_in_sarcophagus"] < before["knocked_out_in_sarcophagus"]


def test_results_do_not_depend_on_threads_with_artefacts(tmp_path):
    sc = load_scenario(scenario_file(tmp_path, artifacts=["Slug", "Sparkler"],
                                     keep=["Fireball", "Moonlight"],
                                     policy="enter_anomalies = true"))
    arrays = compile_campaign(sc)
    one = campaign_api.simulate(arrays, 3000, 9, threads=1, chunk_size=500)
    two = campaign_api.simulate(arrays, 3000, 9, threads=2, chunk_size=700)
    assert np.array_equal(one, two)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"artifacts": ["Flash", "Slime", "Slug"], "keep": ["Crystal", "Jellyfish"]},
     "at most 4"),
    ({"artifacts": ["Battery"], "rules": "movement_in_epicentre = true"},
     "movement_in_epicentre"),
    ({"artifacts": ["Flash", "Slime"], "rules": "carry_limit = 1"}, "carry_limit"),
])
def test_artefacts_the_campaign_cannot_play_are_refused(tmp_path, kwargs, message):
    with pytest.raises(InputError) as error:
        compile_campaign(load_scenario(scenario_file(tmp_path, **kwargs)))
    assert message in str(error.value)
