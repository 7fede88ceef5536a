"""The report's deck tables play the scenario's setup as ``zonesim combat --scenario`` does
(issue 44: the report built its three deck setups by hand and dropped the fight policy keys
it did not name, ``policy.encounters`` and ``policy.objective`` among them).

A scenario whose ``[policy]`` says ``encounters = "best"`` plays every fight and every
anomaly by best play (P-16, P-17, P-21, P-36); its report must show that play as the
scenario's, so best play is worth nothing more on any enemy card (the report played every
fight by the thresholds, which best play beats on some cards).
"""

from __future__ import annotations

import pytest

from sim.paths import bundled_ruleset, configs_root
from sim.report import tables
from sim.rules.scenario import load_scenario

TRIALS, SEED = 300, 3


@pytest.fixture(scope="module")
def best_scenario(tmp_path_factory):
    """The base scenario with ``encounters = "best"`` (objective: survive)."""
    text = (configs_root() / "scenarios" / "base.toml").read_text(encoding="utf-8")
    path = tmp_path_factory.mktemp("best") / "best.toml"
    path.write_text(text.replace('ruleset = "base"', f'ruleset = "{bundled_ruleset()}"')
                    .replace("[policy]\n", '[policy]\nencounters = "best"\n', 1),
                    encoding="utf-8")
    sc = load_scenario(path)
    assert sc.policy.encounters == "best"
    return sc


def test_a_scenario_playing_best_play_is_best_play_in_the_enemy_deck(best_scenario):
    shown = tables.enemy_deck(best_scenario, TRIALS, SEED)
    assert (shown.tables["enemy_best_play"]["good_play_worth"] == 0).all()

