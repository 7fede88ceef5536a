"""Rule fixes of the seed audit: each test cites the rule and the seed phrase it enforces.

Every test here failed on the code before the fixes (the Torsion scanner
ranked last in the campaign, trophies sold at any base, weapons and armour
never lost, every survivor finding an artefact, escape items never used up,
Emission disturbances through no armour, the Emission deck escalating twice,
a single reading of test modifiers, a route that could skip or repeat a
Secret Complex).
"""

from __future__ import annotations

import csv
import shutil
from fractions import Fraction

import numpy as np
import pytest

from sim.campaign.compile import compile_campaign, visiting_order
from sim.campaign.hexmap import compile_map
from sim.encounter.anomaly import compile_anomaly
from sim.encounter.combat import CombatPolicy, compile_combat
from sim.encounter.items import best_event_item
from sim.encounter.modifier import test_terms as terms_of
from sim.exact import dice as exact_dice
from sim.exact.anomaly import anomaly_exact
from sim.exact.combat import combat_exact
from sim.experiments.campaign import simulate_trials
from sim.kernels import campaign as K
from sim.kernels import rng
from sim.kernels.campaign import emission, end, trade
from sim.paths import bundled_ruleset
from sim.rules import RulesetError, load_ruleset
from sim.rules.scenario import load_scenario

RS = load_ruleset()


def _ruleset(tmp_path, **keys):
    """A copy of the base ruleset in ``tmp_path / "rules"`` with some keys changed.

    ``keys`` maps ``"section__key"`` to the TOML text of the new value; the key must
    already be written in the bundled ``rules.toml`` (or is added to its section).
    """
    folder = tmp_path / "rules"
    shutil.copytree(bundled_ruleset(), folder)
    lines = (folder / "rules.toml").read_text().splitlines()
    for name, value in keys.items():
        section, key = name.split("__")
        start = lines.index(f"[{section}]")
        for i in range(start + 1, len(lines)):
            if lines[i].startswith("[") or not lines[i].strip():
                lines.insert(i, f"{key} = {value}")
                break
            if lines[i].split("=")[0].strip() == key:
                lines[i] = f"{key} = {value}"
                break
    (folder / "rules.toml").write_text("\n".join(lines) + "\n")
    return folder


# --- 1.1 one best-event-item rule (Z-09, Z-10) ----------------------------------------


def test_campaign_ranks_the_torsion_scanner_first():
    # Z-09: the Torsion scanner avoids "without rolling", better than any shift; Z-10:
    # only the best item counts. The campaign's item values must rank it first, as
    # sim.experiments.primitives.best_event_item does for `zonesim event`.
    scenario = load_scenario(None)
    arrays = compile_campaign(scenario)
    names = list(RS.items)
    value = {n: arrays.item_value[names.index(n)] for n in
             ("Bag of nuts", "Dosimeter", "Torsion scanner")}
    assert value["Torsion scanner"] > value["Dosimeter"] > value["Bag of nuts"] > 0
    held = [RS.items[n] for n in ("Bag of nuts", "Torsion scanner", "Dosimeter")]
    assert best_event_item(held).name == "Torsion scanner"


# --- 1.2 trophies sold only to their buyer (P-26..P-28) ---------------------------------


def _trade_state(mutant: int, stalker: int) -> np.ndarray:
    st = np.zeros(K.S_SIZE, dtype=np.int64)
    st[K.S_TROPHY_MUTANT] = mutant
    st[K.S_TROPHY_STALKER] = stalker
    return st


@pytest.mark.parametrize(("faction", "rubles", "gear"), [
    (K.FACTION_DUTY, 500, 0),       # P-26: Duty buys 5 mutant trophies for 500 rubles
    (K.FACTION_FREEDOM, 0, 1),      # P-27: Freedom gives 1 Gear for 5 stalker trophies
    (K.FACTION_ECOLOGISTS, 0, 0),   # nobody else buys trophies
    (K.FACTION_MILITARY, 0, 0),
])
def test_trophies_sell_only_at_their_faction_base(faction, rubles, gear):
    arrays = compile_campaign(load_scenario(None))
    cp = arrays.cp.copy()
    items = np.zeros(arrays.it.shape[0], dtype=np.int64)
    st = _trade_state(5, 5)
    trade.trade(st, cp, items, arrays.it, np.zeros(0, dtype=np.int64), faction)
    assert st[K.S_RUBLES] == rubles
    assert items[int(cp[K.C_GEAR_ITEM])] == gear
    assert st[K.S_TROPHY_MUTANT] == 5 - 5 * (rubles > 0)
    assert st[K.S_TROPHY_STALKER] == 5 - 5 * gear


def test_base_map_factions_reach_the_kernel():
    arrays = compile_campaign(load_scenario(None))
    hexmap = compile_map(RS)
    codes = {"duty": K.FACTION_DUTY, "freedom": K.FACTION_FREEDOM,
             "ecologists": K.FACTION_ECOLOGISTS, "military": K.FACTION_MILITARY}
    for h, faction in enumerate(hexmap.factions):
        assert arrays.faction[h] == codes.get(faction, K.FACTION_NONE)
    assert sorted(f for f in hexmap.factions if f) == sorted(codes)


# --- 1.3 a knock-out loses half of all belongings (P-37) --------------------------------


def test_knockout_loses_weapons_and_armour_too():
    # P-37: "loses half of all his items", rounded in his favour; weapons and armour are
    # belongings too. Base scenario: Stalker suit (1500), SVD (3000), Knife (100), and
    # 2 Medkits (300), 2 Stimulants (400), 1 Bag of nuts (100): 8 belongings, 4 lost,
    # cheapest first: Bag of nuts 100, Knife 100, then both Medkits 300.
    scenario = load_scenario(None)
    arrays = compile_campaign(scenario)
    st = np.zeros(K.S_SIZE, dtype=np.int64)
    st[K.S_WEAPONS] = arrays.cp[K.C_WEAPONS]
    st[K.S_DURABILITY] = arrays.armor[0, K.AR_DURABILITY]  # wearing the suit, no token
    items = arrays.item_start.copy()
    end._lose_half(st, items, arrays.lose_order)
    names = list(RS.items)
    held = {n: int(items[names.index(n)]) for n in ("Medkit", "Stimulant", "Bag of nuts")}
    assert held == {"Medkit": 0, "Stimulant": 2, "Bag of nuts": 0}
    assert list(scenario.weapons) == ["SVD sniper rifle", "Knife"]
    assert st[K.S_WEAPONS] == 0b01  # the knife went, the rifle stays
    assert st[K.S_ARMOR] == 0  # the suit stays (dearer than what was lost)
    # A second knock-out: 4 belongings left (suit, rifle, 2 stimulants): 2 go, the
    # stimulants (400 each) before the suit (1500).
    end._lose_half(st, items, arrays.lose_order)
    assert items[names.index("Stimulant")] == 0 and st[K.S_ARMOR] == 0
    # Third: suit and rifle, one goes: the suit, whose loss destroys it (tokens = durability).
    end._lose_half(st, items, arrays.lose_order)
    assert st[K.S_ARMOR] == st[K.S_DURABILITY] == 4 and st[K.S_WEAPONS] == 0b01


# --- 1.4 the artefact search is a chance (P-07, P-35) -----------------------------------


def test_artifact_find_is_a_test_not_a_certainty():
    # P-35: "has a chance to find"; P-07: "passing the appropriate test". Default: a
    # Perception test needing one success (anomaly.find_attribute, anomaly.find_need).
    spec = compile_anomaly(RS, "Strelok", "Electro")
    assert spec.find_pool == RS.stalkers["Strelok"].perception and spec.find_need == 1
    found = anomaly_exact(spec).artifact
    inside_alive = anomaly_exact(spec).trophy
    p_find = 1 - Fraction(2, 3) ** 3  # Perception 3, success on 5+
    assert found == inside_alive * p_find
    assert 0 < found < inside_alive


def test_find_need_zero_is_the_old_certainty_and_a_card_can_override(tmp_path):
    folder = _ruleset(tmp_path, anomaly__find_need="0")
    with open(folder / "anomalies.csv", newline="") as f:
        rows = list(csv.reader(f))
    column = rows[0].index("damage_type") + 1
    for row in rows:
        row.insert(column, "find" if row is rows[0] else "3" if row[0] == "Burner" else "")
    with open(folder / "anomalies.csv", "w", newline="") as f:
        csv.writer(f).writerows(rows)
    rs = load_ruleset(folder)
    electro = compile_anomaly(rs, "Strelok", "Electro")
    assert electro.find_need == 0 and anomaly_exact(electro).artifact == anomaly_exact(
        electro).trophy
    burner = compile_anomaly(rs, "Strelok", "Burner")  # its card says find 3
    assert burner.find_need == 3
    assert anomaly_exact(burner).artifact == anomaly_exact(burner).trophy * sum(
        exact_dice.pool_distribution(3, 5)[3:], Fraction(0))


# --- 1.6 Emission disturbances and the armour (P-48, P-49) ------------------------------


def test_emission_disturbances_follow_the_armour_flags(tmp_path):
    # Every damage type of an Emission card goes through the armour under
    # emission.armor_absorbs, psi only if armor.absorbs_psi (as for anomalies and events).
    base = (bundled_ruleset().parent / "scenarios" / "base.toml").read_text()

    def psi_resist(case: str, **keys) -> list[int]:
        folder = _ruleset(tmp_path / case, **keys)
        path = folder.parent / "scenario.toml"
        path.write_text(base.replace('ruleset = "base"', f'ruleset = "{folder}"').replace(
            'armor = "Stalker suit"', 'armor = "SEVA suit"'))
        return [int(x) for x in compile_campaign(load_scenario(path)).em_psi_resist]

    seva = RS.armor["SEVA suit"].resistance("psi")
    assert set(psi_resist("on", emission__armor_absorbs="true")) == {seva}
    assert set(psi_resist("off", emission__armor_absorbs="false")) == {0}
    assert set(psi_resist("no_psi", emission__armor_absorbs="true",
                          armor__absorbs_psi="false")) == {0}


def test_emission_kernel_rolls_the_armour_against_disturbances():
    # P-02: one die per disturbance, each >= the resistance absorbs one while durability
    # lasts. 3 disturbances against psi 5+ with durability 5: exact mean through 3 * 4/6.
    cp = np.zeros(K.C_SIZE, dtype=np.int64)
    cp[K.C_THRESHOLD] = 1
    em = np.zeros((2, K.M_SIZE), dtype=np.int64)
    em[0, K.M_PSI] = 3
    em[1, K.M_FINAL] = 1
    resist = np.zeros((2, K.MR_SIZE), dtype=np.int64)  # the worn armour's faces
    resist[0, K.M_PSI_RESIST] = 5
    hexes = np.zeros((1, 4), dtype=np.int64)
    hexes[0, K.H_KIND] = K.LOC_OPEN
    dice = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
    recs = np.zeros((7, 1), dtype=np.int64)  # no resist artefacts held (one row per type)
    no_artifacts = np.zeros(7, dtype=np.int64)
    trials, lost = 20_000, 0
    for t in range(trials):
        rng.seed_stream(dice, 9, t, rng.DICE)
        st = np.zeros(K.S_SIZE, dtype=np.int64)
        st[K.S_WILLPOWER] = 10
        st[K.S_DURABILITY] = 5
        zone = np.zeros(K.Z_SIZE, dtype=np.int64)
        zone[K.Z_ETOKENS] = 1
        k = emission.emission_card(zone, cp, em)
        emission.emission(st, zone, cp, dice, hexes, em, resist, k, recs, no_artifacts)
        lost += 10 - st[K.S_WILLPOWER]
    mean, sd = 3 * 4 / 6, (3 * (4 / 6) * (2 / 6)) ** 0.5
    assert abs(lost / trials - mean) < 4.5 * sd / trials ** 0.5


# --- 2.1 medkits in combat: a switch (P-24 vs Z-12) -------------------------------------


def test_medkits_in_combat_is_a_switch(tmp_path):
    items = ("Medkit", "Stimulant", "Medkit")
    policy = CombatPolicy(heal_at=2)
    off = compile_combat(RS, "Strelok", "Monolith fighter", "Stalker suit", ("AK-74",), items,
                         policy)
    assert off.stimulants == (1,)  # Z-12: medkits only outside combat (the default)
    rs = load_ruleset(_ruleset(tmp_path, combat__medkits_in_combat="true"))
    on = compile_combat(rs, "Strelok", "Monolith fighter", "Stalker suit", ("AK-74",), items,
                        policy)
    assert on.stimulants == (2, 1, 2)  # P-24: hands-free medkits without limit, in order
    assert (combat_exact(on).outcomes["knocked_out"]
            < combat_exact(off).outcomes["knocked_out"])


# --- 2.2 one Emission escalation (P-49) ------------------------------------------------


def test_bundled_emission_deck_escalates_once():
    # P-49: early Emissions are weak ("a radiation dose or a wound"), then effects
    # accumulate. With emission.accumulate = "persist" (the default) the cards are the
    # increments: each adds at most two points, and what is in force grows steadily.
    assert RS.rules.emission.accumulate == "persist"
    deck = [c for c in RS.emission_deck() if not c.final]
    assert sum(c.wounds + c.radiation + c.psi for c in deck[:1]) == 1
    assert all(c.wounds + c.radiation + c.psi <= 2 for c in deck)
    in_force = np.cumsum([[c.wounds, c.radiation, c.psi] for c in deck], axis=0)
    assert in_force[4].tolist() == [2, 3, 1]  # the fifth Emission, all earlier ones in force


# --- 2.3 what a test's modifier does ---------------------------------------------------


def test_modifier_readings():
    assert terms_of(4, 5, "successes") == (5, 4)
    assert terms_of(4, 5, "face") == (4, 1)
    assert terms_of(1, 5, "face")[1] == 0  # a 1+ die always succeeds: no roll
    assert terms_of(9, 5, "face") == (7, 1)  # no d6 shows 7: cannot pass


def test_stealth_three_against_vigilance_four_under_each_reading(tmp_path):
    # P-16: a Stealth test "with a modifier equal to the enemy's Vigilance". Read as
    # successes needed, Stealth 3 cannot reach Vigilance 4; read as the die face, each
    # die passes on 4+ and one success is enough: 1 - (1/2)**3.
    strelok, bloodsucker = RS.stalkers["Strelok"], RS.enemies["Bloodsucker"]
    assert (strelok.stealth, bloodsucker.vigilance) == (3, 4)
    spec = compile_combat(RS, "Strelok", "Bloodsucker")
    assert combat_exact(spec).outcomes["avoided"] == 0
    rs = load_ruleset(_ruleset(tmp_path, dice__modifier='"face"'))
    spec = compile_combat(rs, "Strelok", "Bloodsucker")
    assert combat_exact(spec).outcomes["avoided"] == pytest.approx(7 / 8)
    anomaly = compile_anomaly(rs, "Strelok", "Springboard")  # eye 3: a die on 3+
    assert anomaly_exact(anomaly).perceived == 1 - Fraction(1, 3) ** 3


# --- 1.8 every Secret Complex exactly once (P-50) ---------------------------------------


def _route_scenario(tmp_path, route: str):
    path = tmp_path / "route.toml"
    base = (bundled_ruleset().parent / "scenarios" / "base.toml").read_text()
    path.write_text(base.replace('ruleset = "base"', f'ruleset = "{bundled_ruleset()}"')
                    .replace('route = "nearest"', f"route = {route}"))
    return path


def test_route_with_a_repeated_complex_is_refused(tmp_path):
    with pytest.raises(Exception) as info:
        load_scenario(_route_scenario(tmp_path, '["Lab X-18", "Lab X-18"]'))
    message = str(info.value)
    assert "policy.route" in message and "Lab X-18" in message and "twice" in message
    assert "route.toml:" in message


def test_route_naming_some_complexes_visits_all(tmp_path):
    scenario = load_scenario(_route_scenario(tmp_path, '["Lab X-10"]'))
    hexmap = compile_map(scenario.ruleset)
    order = visiting_order(scenario, hexmap, hexmap.index_of("Cordon"))
    assert order[0] == hexmap.index_of("Lab X-10")
    assert sorted(order) == sorted(int(h) for h in hexmap.of_kind("complex"))
    # P-50: nobody reaches the Sarcophagus with a complex unexplored.
    games = simulate_trials(compile_campaign(scenario), 4, 0, 2000)
    reached = games[games[:, K.G_END] == K.REACHED]
    assert len(reached) > 0
    assert (reached[:, K.G_COMPLEXES] == 3).all()


def test_too_many_weapons_is_a_clear_error(tmp_path):
    path = tmp_path / "many.toml"
    base = (bundled_ruleset().parent / "scenarios" / "base.toml").read_text()
    path.write_text(base.replace('ruleset = "base"', f'ruleset = "{bundled_ruleset()}"')
                    .replace('weapons = ["SVD sniper rifle", "Knife"]',
                             "weapons = " + str(["Knife"] * 7).replace("'", '"')))
    with pytest.raises(RulesetError, match="at most 6") as error:  # the scenario's validation
        load_scenario(path)
    assert "loadout.weapons" in str(error.value)


def test_unknown_modifier_reading_is_refused(tmp_path):
    with pytest.raises(RulesetError, match="dice.modifier"):
        load_ruleset(_ruleset(tmp_path, dice__modifier='"dice"'))
