"""The bundled base ruleset loads, carries every seed value and is immutable."""

from __future__ import annotations

import dataclasses
import hashlib
import shutil
from pathlib import Path

import pytest

from sim.paths import bundled_ruleset
from sim.rules import (
    DAMAGE_TYPES,
    Problem,
    Ruleset,
    RulesetError,
    check_ruleset,
    default_rules,
    load_ruleset,
)
from sim.rules.schema import PARAMS, TABLES


@pytest.fixture(scope="module")
def rs() -> Ruleset:
    return load_ruleset()


def test_base_set_has_no_problems():
    assert check_ruleset() == []
    assert check_ruleset(bundled_ruleset()) == []


def test_path_none_str_and_path_agree(rs):
    assert rs.path == bundled_ruleset()
    assert load_ruleset(str(bundled_ruleset())).digest() == rs.digest()
    assert load_ruleset(bundled_ruleset()).armor == rs.armor


def test_tables_are_mappings_in_file_order(rs):
    assert list(rs.stalkers)[0] == "Strelok"
    assert list(rs.armor) == [
        "Leather jacket",
        "Stalker suit",
        "Ecolog suit",
        "SEVA suit",
        "Exoskeleton",
    ]
    for table in TABLES:
        assert len(getattr(rs, table)) > 0


def test_ecolog_suit_seed_values_p06(rs):
    # P-06: Ecolog suit, thermal resistance 3+; Durability 4 (destroyed at the fourth token).
    ecolog = rs.armor["Ecolog suit"]
    assert ecolog.resistance("thermal") == 3
    assert ecolog.thermal == 3
    assert ecolog.durability == 4
    assert ecolog.resistance("psi") is None


def test_resistance_rejects_unknown_damage_type(rs):
    with pytest.raises(ValueError, match="unknown damage type"):
        rs.armor["Ecolog suit"].resistance("fire")


def test_armour_durability_typical_range_p03(rs):
    assert all(3 <= a.durability <= 5 for a in rs.armor.values())


def test_burner_seed_values_p06(rs):
    burner = rs.anomalies["Burner"]
    assert (burner.damage, burner.damage_type) == (3, "thermal")


def test_chemical_anomaly_p32(rs):
    assert (rs.anomalies["Fruit Punch"].damage, rs.anomalies["Fruit Punch"].damage_type) == (
        2,
        "chemical",
    )


def test_electro_yields_flash_sparkler_battery_p35(rs):
    electro = rs.anomalies["Electro"]
    assert electro.artifact_type == "electro"
    found = {a.name for a in rs.artifacts.values() if a.type == electro.artifact_type}
    assert {"Flash", "Sparkler", "Battery"} <= found


def test_event_item_ratings_z09(rs):
    assert rs.items["Bag of nuts"].effect == "event_avoid"
    assert rs.items["Bag of nuts"].value == 1
    assert rs.items["Dosimeter"].value == 2
    assert rs.items["Torsion scanner"].value == "auto"
    assert rs.items["Torsion scanner"].auto
    assert not rs.items["Dosimeter"].auto


def test_escape_item_ratings_z15(rs):
    ratings = {
        n: (rs.items[n].effect, rs.items[n].value)
        for n in ("Smoke bomb", "Camouflage cloak", "Stealth generator")
    }
    assert ratings == {
        "Smoke bomb": ("escape", 1),
        "Camouflage cloak": ("escape", 2),
        "Stealth generator": ("escape", 3),
    }


def test_movement_items_z01_z03(rs):
    assert rs.items["Jetpack"].effect == "movement"
    assert rs.items["Jetpack"].value == 3  # Z-03: 9 steps in total over base 6
    assert rs.rules.movement.base_steps + rs.items["Jetpack"].value == 9
    for name in ("Zone map", "GLONASS navigator", "Jetpack"):
        assert rs.items[name].uses is None  # Z-01: reusable
    for name, effect in (("Helicopter call", "helicopter"), ("Spatial gate", "none")):
        assert (rs.items[name].effect, rs.items[name].uses) == (effect, 1)  # Z-04, Z-05
    assert rs.items["Flashlight"].effect == "location_movement"


def test_healing_items_single_use(rs):
    assert rs.items["Medkit"].effect == "medkit"
    assert rs.items["Stimulant"].effect == "stimulant"
    assert rs.items["Medkit"].uses == 1


def test_weapon_hands_p23(rs):
    assert rs.weapons["Shotgun"].hands == 2
    assert rs.weapons["Knife"].hands == 1 and rs.weapons["Knife"].range == "melee"
    assert rs.weapons["Grenade"].hands == 1 and rs.weapons["Grenade"].uses == 1
    assert rs.weapons["AK-74"].uses is None


def test_enemies_cover_all_kinds(rs):
    assert {e.kind for e in rs.enemies.values()} == {"mutant", "stalker", "animal"}
    assert rs.enemies["Controller"].wound_type == "psi"
    assert rs.enemies["Bloodsucker"].melee is True
    assert all(e.habitat == "open" for e in rs.enemies.values() if e.kind == "animal")  # P-28


def test_emission_deck_ends_with_final_p49(rs):
    deck = rs.emission_deck()
    assert [e.order for e in deck] == list(range(1, len(deck) + 1))
    assert deck[-1].final and not any(e.final for e in deck[:-1])


def test_rules_toml_seed_values(rs):
    r = rs.rules
    assert r.dice.success_on == 5
    assert r.movement.base_steps == 6  # Z-19
    assert r.emission.threshold == 5  # P-48
    assert (r.economy.mutant_trophy_lot, r.economy.mutant_trophy_price) == (5, 500)  # P-26
    assert r.economy.heal_price_per_wound == 100  # P-37
    assert r.economy.artifact_sell_divisor == 2  # P-11
    assert r.events.items_consumed is False
    assert r.escape.items_consumed is False
    assert (r.reaction.covering_extra_dice, r.reaction.result_cap) == (1, 2)  # S-15
    assert rs.param("dice", "success_on") == 5
    assert r.param("economy", "heal_price_per_wound") == 100


def test_missing_keys_take_defaults(tmp_path):
    folder = tmp_path / "my"
    shutil.copytree(bundled_ruleset(), folder)
    (folder / "rules.toml").write_text("")
    rs = load_ruleset(folder)
    assert rs.rules == default_rules()
    for p in PARAMS:
        assert rs.param(p.section, p.key) == p.default
        assert type(rs.param(p.section, p.key)) is p.type


def test_model_is_immutable(rs):
    with pytest.raises(dataclasses.FrozenInstanceError):
        rs.armor["Ecolog suit"].thermal = 6  # type: ignore[misc]
    with pytest.raises(TypeError):
        rs.armor["Ecolog suit"] = rs.armor["Leather jacket"]  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rs.rules.dice.success_on = 4  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rs.rules = None  # type: ignore[misc]


def test_digest_is_sha256_of_the_files(rs, tmp_path):
    assert len(rs.digest()) == 64 and int(rs.digest(), 16) >= 0
    folder = tmp_path / "my"
    shutil.copytree(bundled_ruleset(), folder)
    assert load_ruleset(folder).digest() == rs.digest()  # content, not location
    with (folder / "armor.csv").open("a", encoding="utf-8") as f:
        f.write("\n")  # an ignored empty line still changes the bytes
    assert load_ruleset(folder).digest() != rs.digest()
    assert rs.digest() != hashlib.sha256(b"").hexdigest()


def test_where_names_file_and_line(rs):
    assert rs.where("armor", "Ecolog suit") == f"{rs.path / 'armor.csv'}:4"


def test_every_card_type_has_notes_and_name(rs):
    for table in TABLES:
        for card in getattr(rs, table).values():
            assert isinstance(card.name, str) and card.name
            assert isinstance(card.notes, str)


def test_damage_types():
    assert DAMAGE_TYPES == ("physical", "thermal", "chemical", "electric", "radiation", "psi")


def test_extra_files_in_folder_are_ignored(tmp_path):
    folder = tmp_path / "my"
    shutil.copytree(bundled_ruleset(), folder)
    (folder / "README.md").write_text("hello")
    assert check_ruleset(folder) == []


def test_problem_str_formats():
    assert str(Problem("a/armor.csv", 4, "thermal", "7", "7 is not a die face 2..6")) == (
        "a/armor.csv:4: column 'thermal': 7 is not a die face 2..6"
    )
    assert str(Problem("a/rules.toml", 3, "dice.success_on", "9", "9 is not in 2..6")) == (
        "a/rules.toml:3: key 'dice.success_on': 9 is not in 2..6"
    )
    assert str(Problem("a/items.csv", None, None, None, "file not found")) == (
        "a/items.csv: file not found"
    )
    err = RulesetError([Problem("x.csv", 2, None, None, "bad")])
    assert isinstance(err, Exception) and "x.csv:2: bad" in str(err)


def test_bundled_path_is_a_path(rs):
    assert isinstance(rs.path, Path)


def test_every_key_and_column_is_documented():
    text = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    for p in PARAMS:
        assert f"`{p.section}.{p.key}`" in text, p
    for table, columns in TABLES.items():
        assert f"{table}.csv" in text
        for col in columns:
            assert col.name in text, (table, col.name)
    for heading in (
        "## Ruleset files",
        "## Dice and tests",
        "## Armour",
        "## Items",
        "## Assumptions",
    ):
        assert f"\n{heading}\n" in text
