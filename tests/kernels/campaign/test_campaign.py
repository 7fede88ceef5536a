"""Campaign kernel (P-37..P-50, Z-18..Z-26) on hand-made scenarios with exact answers.

Tiny rulesets are written to tmp_path: the base cards, a hand-made map and
rules that switch encounters off, so that days and endings are known exactly.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from sim.encounter.combat import CombatPolicy, compile_combat
from sim.exact.combat import combat_exact
from sim.experiments.campaign import run_campaign
from sim.paths import bundled_ruleset
from sim.reference.route import Terrain
from sim.rules.scenario import load_scenario
from tests.conftest import assert_matches_exact

QUIET = """
[dice]
success_on = 5
[campaign]
open_location_draw = "nothing"
secret_location_draw = "nothing"
max_days = 60
[zone]
enemies_per_day = 0
anomalies_per_day = 0
environment_change_chance = 0.0
"""

HEADER = "q,r,terrain,location,name,faction,roads,notes\n"


def line_map(length: int, terrain: int = 1) -> str:
    """Start, ``length`` hexes of ``terrain`` ending in a Secret Complex, then the Sarcophagus.

    The complex is the last of the ``length`` hexes; a bunker sits behind the start.
    """
    start_roads = "3-0" if terrain == 1 else "3"
    rows = ["-1,0,1,bunker,Bunker,,0,\n", f"0,0,1,open,Start,,{start_roads},\n"]
    for q in range(1, length + 1):
        road = terrain == 1
        roads = ("3" if q == length else "3-0") if road else ""
        kind, name = ("complex", "Lab") if q == length else ("", "")
        rows.append(f"{q},0,{terrain},{kind},{name},,{roads},\n")
    rows.append(f"{length + 1},0,1,sarcophagus,Sarcophagus,,,\n")
    return HEADER + "".join(rows)


def make_scenario(tmp_path: Path, map_text: str, rules: str = QUIET, items=(),
                  sarcophagus: str = "") -> Path:
    rules_dir = tmp_path / "rules"
    shutil.copytree(bundled_ruleset(), rules_dir)
    (rules_dir / "map.csv").write_text(map_text)
    (rules_dir / "rules.toml").write_text(rules)
    (rules_dir / "sarcophagus.csv").write_text("name,order,enemy,notes\n" + sarcophagus)
    items_toml = ", ".join(f'"{i}"' for i in items)
    path = tmp_path / "scenario.toml"
    path.write_text(f"""
ruleset = "rules"
stalker = "Strelok"
start = "Start"
[loadout]
items = [{items_toml}]
[policy]
retreat_at = 0
""")
    return path


@pytest.mark.parametrize("length", [1, 5, 6, 7, 12, 13, 20])
def test_straight_road_takes_ceil_l_over_6_days(tmp_path, length):
    # Z-19, Z-25: 6 steps a day at 1 step per road hex; reaching the complex ends the day,
    # the Sarcophagus (cost movement.epicentre_cost = 5) is entered the next day.
    scenario = load_scenario(make_scenario(tmp_path, line_map(length)))
    result = run_campaign(scenario, trials=2000, seed=3).to_dict()
    assert result["p_sarcophagus"]["mc"] == 1.0
    expected = math.ceil(length / 6) + 1
    assert result["days"]["histogram"][expected] == 2000


@pytest.mark.parametrize("length", [8, 9, 10, 18])
def test_jetpack_takes_ceil_l_over_9_days(tmp_path, length):
    # Z-03: the jetpack gives 9 steps a day (but not in the Epicentre).
    scenario = load_scenario(make_scenario(tmp_path, line_map(length), items=("Jetpack",)))
    result = run_campaign(scenario, trials=500, seed=3).to_dict()
    assert result["days"]["histogram"][math.ceil(length / 9) + 1] == 500


def test_field_only_line(tmp_path):
    # Z-21, Z-22: fields cost 2, so 3 a day.
    scenario = load_scenario(make_scenario(tmp_path, line_map(10, terrain=2)))
    result = run_campaign(scenario, trials=500, seed=3).to_dict()
    assert result["days"]["histogram"][math.ceil(10 / 3) + 1] == 500


def test_days_agree_with_a_brute_force_walker_on_the_base_map(tmp_path):
    # With encounters and Emissions off, a game is one optimal route per leg (P-50): each
    # Secret Complex nearest first (fewest days, then most steps left, then first in
    # map.csv), then the Sarcophagus. The days of each leg come from the exhaustive walker
    # of sim/reference/route.py (every walk, optional rests), not from the route planner.
    base = (bundled_ruleset() / "map.csv").read_text()
    path = make_scenario(tmp_path, base)
    path.write_text(path.read_text().replace('start = "Start"', 'start = "Cordon"'))
    scenario = load_scenario(path)
    hexes = scenario.ruleset.map.hexes
    terrain = Terrain(scenario.ruleset.map, scenario.ruleset.rules.movement)
    here = next(i for i, h in enumerate(hexes) if h.name == "Cordon")
    left = [i for i, h in enumerate(hexes) if h.location == "complex"]
    expected = 0
    while left:
        legs = {h: terrain.walk(here, h, 6) for h in left}
        here = min(left, key=lambda h: (legs[h][0], -legs[h][1], h))
        expected += legs[here][0]
        left.remove(here)
    sarcophagus = next(i for i, h in enumerate(hexes) if h.location == "sarcophagus")
    expected += terrain.walk(here, sarcophagus, 6)[0]
    result = run_campaign(scenario, trials=200, seed=1).to_dict()
    assert result["p_sarcophagus"]["mc"] == 1.0
    assert result["days"]["histogram"][expected] == 200


def test_final_emission_before_arrival(tmp_path):
    # P-48, P-49: five tokens a day and a Final Emission on top of the deck: the game
    # ends on day 1 for everyone still in the Zone.
    rules = QUIET.replace("environment_change_chance = 0.0",
                          "environment_change_chance = 1.0") + """
[emission]
threshold = 5
tokens_per_environment = 5
"""
    path = make_scenario(tmp_path, line_map(20), rules=rules)
    (tmp_path / "rules" / "emissions.csv").write_text(
        "name,order,wounds,radiation,psi,final,notes\nFinal Emission,1,0,0,0,1,\n")
    result = run_campaign(load_scenario(path), trials=1000, seed=2).to_dict()
    assert result["p_final_emission"]["mc"] == 1.0
    assert result["p_sarcophagus"]["mc"] == 0.0


def test_sarcophagus_knockout_is_death(tmp_path):
    # P-43, P-50: knocked out in the Sarcophagus is death. With nothing on the way the
    # stalker arrives fresh, so P(death) is the exact P(knocked out) of that one fight.
    path = make_scenario(tmp_path, line_map(3), sarcophagus="Beast,1,Boar,\n")
    scenario = load_scenario(path)
    trials = 200_000
    result = run_campaign(scenario, trials=trials, seed=5).to_dict()
    died = {c["cause"]: c["mc"] for c in result["causes"]}["knocked_out_in_sarcophagus"]
    spec = compile_combat(scenario.ruleset, "Strelok", "Boar", None, (), (), CombatPolicy())
    exact = combat_exact(spec).outcomes["knocked_out"]
    assert 0.0 < exact < 1.0
    assert_matches_exact([round(died * trials)], trials, [exact])
    assert result["p_sarcophagus"]["mc"] + died == pytest.approx(1.0)


def test_results_identical_for_threads_and_chunks():
    scenario = load_scenario(None)
    one = run_campaign(scenario, trials=4000, seed=11, threads=1)
    two = run_campaign(scenario, trials=4000, seed=11, threads=2, chunk_size=333)
    assert np.array_equal(one.counts, two.counts)
    assert not np.array_equal(one.counts, run_campaign(scenario, trials=4000, seed=12).counts)


ROAD_CHANGE_MAP = HEADER + "".join(f"{row}\n" for row in (
    "-1,0,1,bunker,Bunker,,0,",
    "0,0,1,open,Start,,3-0,",
    "1,0,1,,,,3-0,",
    "2,0,1,,,,3-0,",
    "3,0,1,,,,3-0;1-4,",  # two roads crossing without a junction (Z-26)
    "4,0,1,,,,3,",
    "2,1,1,,,,1,",
    "4,-1,1,,,,4-1,",
    "5,-2,1,,,,4-1,",
    "6,-3,1,complex,Lab,,4,",
    "7,-4,1,sarcophagus,Sarcophagus,,,",
))


@pytest.mark.parametrize(("change_cost", "days"), [(2, 3), (0, 2)])
def test_road_change_costs_two_steps(tmp_path, change_cost, days):
    # Z-25, Z-26: the only way goes along one road to the crossing and leaves along the
    # other. Day 1: three road hexes (3 steps), then the change (1 + 2 = 3 steps): 6.
    # Day 2: two more hexes to the complex; day 3: the Sarcophagus. With no change cost
    # the complex is reached on day 1 and the Sarcophagus on day 2.
    rules = QUIET + f"[movement]\nroad_change_cost = {change_cost}\n"
    scenario = load_scenario(make_scenario(tmp_path, ROAD_CHANGE_MAP, rules=rules))
    result = run_campaign(scenario, trials=500, seed=3).to_dict()
    assert result["days"]["histogram"][days] == 500


@pytest.mark.parametrize("medkits_in_combat", [False, True])
def test_best_item_is_the_highest_value_held(medkits_in_combat):
    """``item_order`` picks what a scan of every card would (Z-02, Z-10, Z-17; Z-12, P-24).

    Random item tables with many equal values: the best held card of an effect
    is the one of highest value, the first card among equals; the fight heals
    with the stimulants (and medkits under ``combat.medkits_in_combat``) in
    card order.
    """
    from sim.campaign.compile import item_order
    from sim.kernels import campaign as K
    from sim.kernels.campaign.cards import best_item

    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(1, 12))
        it = np.zeros((n, 4), dtype=np.int64)
        it[:, K.I_EFFECT] = rng.integers(0, K.N_ITEM_EFFECTS, n)
        it[:, K.I_VALUE] = rng.integers(0, 3, n)
        held = rng.integers(0, 2, n)
        order = item_order(it, (K.ITEM_STIMULANT, K.ITEM_MEDKIT) if medkits_in_combat
                           else (K.ITEM_STIMULANT,))
        for effect in range(K.N_ITEM_EFFECTS):
            best = -1
            for i in range(n):
                if held[i] and it[i, K.I_EFFECT] == effect and (
                        best < 0 or it[i, K.I_VALUE] > it[best, K.I_VALUE]):
                    best = i
            assert best_item(held, order, effect) == best
        heals = [i for i in range(n) if it[i, K.I_EFFECT] == K.ITEM_STIMULANT
                 or (medkits_in_combat and it[i, K.I_EFFECT] == K.ITEM_MEDKIT)]
        row = order[K.O_COMBAT_HEALS]
        assert list(row[row >= 0]) == heals
