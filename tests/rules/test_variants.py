"""Card edits on an immutable ruleset (sim.rules.variants): parsing, validation, immutability."""

from __future__ import annotations

import pytest

from sim.encounter.combat import compile_combat
from sim.rules import load_ruleset
from sim.rules.variants import (
    CardEdit,
    VariantError,
    apply_edits,
    edit_value,
    format_value,
    parse_edit,
)

RS = load_ruleset(None)


def test_parse_edit_splits_table_card_column_value():
    assert parse_edit("enemies.Bloodsucker.endurance=4") == CardEdit(
        "enemies", "Bloodsucker", "endurance", "4")
    # Card names with spaces (and the value's own '=' or '.') are kept whole.
    assert parse_edit("armor.Ecolog suit.durability = 5") == CardEdit(
        "armor", "Ecolog suit", "durability", "5")
    assert parse_edit("rules.combat.max_rounds=50").table == "rules"


@pytest.mark.parametrize("text", ["enemies.Bloodsucker=4", "endurance=4", "enemies..x=1",
                                  "enemies.Bloodsucker.endurance"])
def test_malformed_edits_are_refused(text):
    with pytest.raises(VariantError, match="table.card.column=value"):
        parse_edit(text)


def test_apply_returns_a_new_ruleset_and_leaves_the_input_alone():
    edited = apply_edits(RS, ["enemies.Bloodsucker.endurance=2", "armor.Ecolog suit.durability=5"])
    assert edited.enemies["Bloodsucker"].endurance == 2
    assert edited.armor["Ecolog suit"].durability == 5
    assert RS.enemies["Bloodsucker"].endurance == 4  # base value (enemies.csv)
    assert RS.armor["Ecolog suit"].durability == 4  # P-06 seed value
    assert list(edited.enemies) == list(RS.enemies)  # card order kept
    assert edited.sha256 != RS.sha256 and edited.path == RS.path
    assert apply_edits(RS, []) is RS
    with pytest.raises(TypeError):
        edited.enemies["Bloodsucker"] = None  # read-only mapping


def test_edited_cards_reach_the_compiled_fight():
    """P-19: the Combat test needs the enemy's endurance (Toughness) successes."""
    edited = apply_edits(RS, ["enemies.Bloodsucker.endurance=2"])
    assert compile_combat(edited, "Strelok", "Bloodsucker").endurance == 2
    assert compile_combat(RS, "Strelok", "Bloodsucker").endurance == 4


def test_typed_values_like_the_loader():
    edited = apply_edits(RS, ["enemies.Bloodsucker.melee=0", "armor.Ecolog suit.thermal=",
                              "items.Dosimeter.value=auto", "weapons.Grenade.uses="])
    assert edited.enemies["Bloodsucker"].melee is False
    assert edited.armor["Ecolog suit"].thermal is None  # blank: no protection (P-01)
    assert edited.items["Dosimeter"].auto  # Z-09: avoids without a roll
    assert edited.weapons["Grenade"].uses is None  # blank: unlimited


@pytest.mark.parametrize(("edit", "message"), [
    ("enemies.Bloodsucker.endurance=0", "column 'endurance': 0 is not in 1..10"),
    ("enemies.Bloodsucker.endurance=four", "column 'endurance': 'four' is not an integer"),
    ("armor.Ecolog suit.thermal=7", "column 'thermal': 7 is not a die face 2..6"),
    ("enemies.Bloodsucker.wound_type=fire", "is not one of physical"),
    ("enemies.Bloodsucker.kind=animal", "column 'habitat'"),  # P-28: animals live in the open
    ("items.Bag of nuts.value=9", "column 'value': 9 is not in 1..5 for effect 'event_avoid'"),
    ("items.Medkit.value=auto", "'auto' is only allowed for effect 'event_avoid'"),
    ("enemies.Bloodsucker.name=X", "name cannot be edited"),
    ("enemies.Bloodsuker.endurance=3", "no card 'Bloodsuker' in enemies (did you mean"),
    ("enemies.Bloodsucker.toughness=3", "enemies has no column 'toughness'"),
    ("enemy.Bloodsucker.endurance=3", "unknown table 'enemy'"),
    ("anomalies.Burner.artifact_type=Nothing", "not the type of any artifact (P-35)"),
    ("rules.combat.max_rounds=0", "key 'combat.max_rounds': 0 is not in 1..10000"),
    ("rules.combat.avoid_rule=luck", "is not one of stealth_test, reputation"),
    ("rules.dice.sucess_on=4", "unknown key 'dice.sucess_on'"),
])
def test_invalid_edits_name_the_edit_and_the_reason(edit, message):
    with pytest.raises(VariantError) as info:
        apply_edits(RS, [edit])
    assert f"edit {edit!r}" in str(info.value)
    assert message in str(info.value)


def test_rules_edits():
    edited = apply_edits(RS, ["rules.combat.max_rounds=50", "rules.armor.absorbs_psi=false",
                              "rules.combat.avoid_rule=reputation"])
    assert edited.rules.combat.max_rounds == 50
    assert edited.rules.armor.absorbs_psi is False
    assert edited.rules.combat.avoid_rule == "reputation"  # Z-15..Z-17
    assert edited.rules.dice.success_on == RS.rules.dice.success_on
    assert RS.rules.combat.max_rounds == 100


def test_edit_value_and_format_value():
    assert edit_value(RS, "enemies.Bloodsucker.endurance") == 4
    assert edit_value(RS, "rules.dice.success_on") == 5
    with pytest.raises(VariantError):
        edit_value(RS, "enemies.Nobody.endurance")
    assert format_value(3) == "3" and format_value(3.0) == "3" and format_value(0.25) == "0.25"
