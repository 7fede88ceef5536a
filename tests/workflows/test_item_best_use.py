"""Items under a use policy valued under their best use, in whole games (issue 46, item 2).

"The same for items where a use policy exists": an item card whose use a ``[policy]`` Health
threshold decides (medkits ``medkit_at``, Z-11..Z-14, and ``heal_at`` under
``combat.medkits_in_combat``, P-24; stimulants ``heal_at`` and ``stimulant_at``, Z-12; the
Helicopter call ``helicopter_at``, Z-04, Z-05) is carried once more than the loadout's and
valued under the thresholds that play it best, chosen on the selection's games and valued on
fresh ones, against the same thresholds without the card; the scenario's thresholds give
the context figure. ``zonesim artifacts --policy best`` shows them as a second table.
"""

from __future__ import annotations

import json
import math

import pytest

from sim.rules.scenario import load_scenario
from sim.rules.variants import apply_edits
from sim.workflows import best_use
from sim.workflows.optimize import FRESH_FIRST
from tests.hostile import run


def test_the_items_under_a_use_policy_are_the_medkits_the_stimulant_and_the_helicopter():
    rs = load_scenario("base").ruleset
    assert best_use.policy_items(rs) == ["Medkit", "Army medkit", "Stimulant", "Helicopter call"]
    assert best_use.use_keys(rs, "stimulant") == ("heal_at", "stimulant_at")
    assert best_use.use_keys(rs, "event_avoid") == ()  # the best one held is always used
    assert best_use.use_keys(rs, "medkit") == ("medkit_at",)
    fights = apply_edits(rs, ["rules.combat.medkits_in_combat=true"])
    assert best_use.use_keys(fights, "medkit") == ("heal_at", "medkit_at")  # P-24


@pytest.fixture(scope="module")
def helicopter():
    return best_use.item_best_uses(load_scenario("base"), ["Helicopter call"], trials=400,
                                   seed=3).iloc[0]


def test_one_more_card_is_valued_on_fresh_games_under_the_chosen_thresholds(helicopter):
    health = load_scenario("base").ruleset.stalkers["Strelok"].health
    key, value = helicopter[best_use.USE].split("=")
    assert key == "helicopter_at" and 0 <= int(value) <= health
    assert helicopter["best_use_first_trial"] == FRESH_FIRST  # none of the selection's games
    assert helicopter["best_use_trials"] == 400
    for stem in (best_use.ITEM_SCENARIO, best_use.ITEM_STEM):
        low, mc, high = (helicopter[f"{stem}_{k}"] for k in ("ci_low", "mc", "ci_high"))
        assert low <= mc <= high and all(math.isfinite(x) for x in (low, mc, high))
    per = helicopter[f"{best_use.ITEM_STEM}_per_1000_rubles"]
    assert per == pytest.approx(helicopter[f"{best_use.ITEM_STEM}_mc"] * 1000 / 3000)


def test_the_scenarios_never_used_helicopter_changes_only_what_a_knock_out_takes(helicopter):
    """base never calls the helicopter (``helicopter_at = 0``): one more card under the
    scenario's thresholds plays the same games but for the half of his belongings a knock-out
    takes (P-37), a small change either way; the best use may call it."""
    assert abs(helicopter[f"{best_use.ITEM_SCENARIO}_mc"]) < 0.02


def test_zonesim_artifacts_best_gives_the_items_table_too():
    args = ["artifacts", "base", "--policy", "best", "--games", "60", "--trials", "300",
            "--artifact", "Crystal", "--seed", "5", "--quiet"]
    data = json.loads(run(*args, "--format", "json").stdout)
    assert [r["item"] for r in data["items"]] == ["Medkit", "Army medkit", "Stimulant",
                                                 "Helicopter call"]
    assert all(r[best_use.USE] for r in data["items"])
    table = run(*args).stdout
    assert "items under a use policy" in table and "heal_at=" in table
    csv = run(*args, "--format", "csv").stdout
    assert "\nCrystal," in csv and ",Stimulant," in csv
