"""Every kind of ruleset problem is reported with its exact one-line message.

Each test copies the base set to ``configs/my`` under a temporary working
directory, breaks one thing, and checks the message, which names the file as
the user passed it, the physical line (header = 1), the column and the value.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from sim.paths import bundled_ruleset
from sim.rules import RulesetError, check_ruleset, load_ruleset

MY = "configs/my"


@pytest.fixture
def my(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(bundled_ruleset(), tmp_path / MY)
    return Path(MY)


def read(folder: Path, table: str) -> list[list[str]]:
    with (folder / f"{table}.csv").open(encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))


def write(folder: Path, table: str, rows: list[list[str]]) -> None:
    with (folder / f"{table}.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def set_cell(folder: Path, table: str, name: str, column: str, value: str) -> None:
    rows = read(folder, table)
    col = rows[0].index(column)
    (row,) = [r for r in rows[1:] if r and r[0] == name]
    row[col] = value
    write(folder, table, rows)


def drop_column(folder: Path, table: str, column: str) -> None:
    rows = read(folder, table)
    col = rows[0].index(column)
    write(folder, table, [r[:col] + r[col + 1 :] for r in rows])


def rename_column(folder: Path, table: str, old: str, new: str) -> None:
    rows = read(folder, table)
    rows[0][rows[0].index(old)] = new
    write(folder, table, rows)


def problems(folder: Path | str) -> list[str]:
    with pytest.raises(RulesetError) as info:
        load_ruleset(folder)
    found = [str(p) for p in info.value.problems]
    assert found == [str(p) for p in check_ruleset(folder)]
    return found


# --- cells ------------------------------------------------------------------------------------


def test_bad_die_face(my):
    set_cell(my, "armor", "Ecolog suit", "thermal", "7")
    assert problems(my) == ["configs/my/armor.csv:4: column 'thermal': 7 is not a die face 2..6"]


@pytest.mark.parametrize("raw, shown", [("1", "1"), ("x", "'x'"), ("3+", "'3+'")])
def test_die_face_variants(my, raw, shown):
    set_cell(my, "events", "Stray bullet", "avoid_on", raw)
    assert problems(my) == [
        f"configs/my/events.csv:4: column 'avoid_on': {shown} is not a die face 2..6"
    ]


def test_problem_fields(my):
    set_cell(my, "armor", "Ecolog suit", "thermal", "7")
    with pytest.raises(RulesetError) as info:
        load_ruleset(my)
    (p,) = info.value.problems
    assert (p.file, p.line, p.column, p.value) == ("configs/my/armor.csv", 4, "thermal", "7")
    assert p.message == "7 is not a die face 2..6"


@pytest.mark.parametrize("raw, shown", [("six", "'six'"), ("3.5", "'3.5'")])
def test_non_integer(my, raw, shown):
    set_cell(my, "stalkers", "Strelok", "health", raw)
    assert problems(my) == [
        f"configs/my/stalkers.csv:2: column 'health': {shown} is not an integer"
    ]


def test_empty_required_integer(my):
    set_cell(my, "weapons", "Knife", "price", "")
    assert problems(my) == [
        "configs/my/weapons.csv:2: column 'price': empty cell; expected an integer 0..1000000"
    ]


def test_out_of_range(my):
    set_cell(my, "weapons", "Shotgun", "hands", "3")
    assert problems(my) == ["configs/my/weapons.csv:5: column 'hands': 3 is not in 0..2"]


def test_bad_enum(my):
    set_cell(my, "enemies", "Bandit", "kind", "mutnat")
    assert problems(my) == [
        "configs/my/enemies.csv:11: column 'kind': 'mutnat' is not one of mutant, stalker, animal"
        " (did you mean 'mutant'?)"
    ]


def test_bad_damage_type(my):
    set_cell(my, "anomalies", "Burner", "damage_type", "fire")
    assert problems(my) == [
        "configs/my/anomalies.csv:2: column 'damage_type': 'fire' is not one of physical,"
        " thermal, chemical, electric, radiation, psi"
    ]


def test_bad_flag(my):
    set_cell(my, "enemies", "Boar", "melee", "yes")
    assert problems(my) == ["configs/my/enemies.csv:4: column 'melee': 'yes' is not 0 or 1"]


def test_cells_are_stripped(my):
    set_cell(my, "armor", "Ecolog suit", "thermal", " 2 ")
    assert load_ruleset(my).armor["Ecolog suit"].thermal == 2


# --- header -----------------------------------------------------------------------------------


def test_missing_required_column(my):
    drop_column(my, "armor", "thermal")
    assert problems(my) == ["configs/my/armor.csv:1: column 'thermal': required column is missing"]


def test_unknown_column_typo(my):
    rename_column(my, "armor", "thermal", "thermall")
    assert problems(my) == [
        "configs/my/armor.csv:1: column 'thermall': unknown column (did you mean 'thermal'?)",
        "configs/my/armor.csv:1: column 'thermal': required column is missing",
    ]


def test_unknown_extra_column(my):
    rows = read(my, "weapons")
    write(my, "weapons", [r + (["colour"] if i == 0 else ["red"]) for i, r in enumerate(rows)])
    assert problems(my) == ["configs/my/weapons.csv:1: column 'colour': unknown column"]


def test_duplicate_column(my):
    rows = read(my, "weapons")
    write(my, "weapons", [r + [r[2]] for r in rows])
    assert problems(my) == [
        "configs/my/weapons.csv:1: column 'bonus': column appears twice in the header"
    ]


def test_notes_column_allowed_and_optional(my):
    set_cell(my, "weapons", "Knife", "notes", 'free text, with "quotes", commas; anything')
    assert load_ruleset(my).weapons["Knife"].notes.startswith("free text, with")
    drop_column(my, "weapons", "notes")
    rs = load_ruleset(my)
    assert rs.weapons["Knife"].notes == ""


def test_optional_artifact_columns_take_defaults(my):
    rows = read(my, "artifacts")
    write(my, "artifacts", [r[:4] for r in rows])  # name, count, type, price only
    flash = load_ruleset(my).artifacts["Flash"]
    assert (flash.effect, flash.value, flash.activation, flash.side_effect) == (
        "none",
        0,
        "auto",
        "none",
    )


# --- names and references ---------------------------------------------------------------------


def test_empty_name(my):
    set_cell(my, "weapons", "Machete", "name", "")
    assert problems(my) == ["configs/my/weapons.csv:3: column 'name': name is empty"]


def test_duplicate_name(my):
    set_cell(my, "weapons", "Machete", "name", "Knife")
    assert problems(my) == [
        "configs/my/weapons.csv:3: column 'name': 'Knife' duplicates the name on line 2"
    ]


def test_same_name_in_two_tables_is_fine(my):
    set_cell(my, "weapons", "Knife", "name", "Flash")
    assert load_ruleset(my).weapons["Flash"].range == "melee"


def test_bad_artifact_type_reference(my):
    set_cell(my, "anomalies", "Electro", "artifact_type", "elektro")
    assert problems(my) == [
        "configs/my/anomalies.csv:4: column 'artifact_type': 'elektro' is not the type of any"
        " artifact in configs/my/artifacts.csv (did you mean 'electro'?)"
    ]


def test_empty_artifact_type_yields_nothing(my):
    set_cell(my, "anomalies", "Electro", "artifact_type", "")
    assert load_ruleset(my).anomalies["Electro"].artifact_type == ""


# --- row checks -------------------------------------------------------------------------------


def test_auto_only_for_event_items(my):
    set_cell(my, "items", "Smoke bomb", "value", "auto")
    assert problems(my) == [
        "configs/my/items.csv:5: column 'value': 'auto' is only allowed for effect"
        " 'event_avoid', not 'escape'"
    ]


def test_item_value_needed(my):
    set_cell(my, "items", "Medkit", "value", "")
    assert problems(my) == [
        "configs/my/items.csv:8: column 'value': empty cell; effect 'medkit' needs a value"
    ]


def test_item_value_range_per_effect(my):
    set_cell(my, "items", "Bag of nuts", "value", "9")
    assert problems(my) == [
        "configs/my/items.csv:2: column 'value': 9 is not in 1..5 for effect 'event_avoid'"
    ]


def test_animal_only_in_open_space_p28(my):
    set_cell(my, "enemies", "Boar", "habitat", "secret")
    assert problems(my) == [
        "configs/my/enemies.csv:4: column 'habitat': 'secret' is not allowed for kind 'animal'"
        " (P-28: open only)"
    ]


def test_wounds_event_needs_damage_type(my):
    set_cell(my, "events", "Stray bullet", "damage_type", "")
    set_cell(my, "events", "Psi whisper", "damage_type", "physical")
    assert problems(my) == [
        "configs/my/events.csv:4: column 'damage_type': empty cell; effect 'wounds' needs one"
        " of physical, thermal, chemical, electric",
        "configs/my/events.csv:8: column 'damage_type': 'physical' must be empty for effect 'psi'",
    ]


def test_resist_needs_effect_type(my):
    set_cell(my, "artifacts", "Flash", "effect_type", "")
    assert problems(my) == [
        "configs/my/artifacts.csv:2: column 'effect_type': empty cell; effect 'resist' needs a"
        " damage type"
    ]


# --- emissions --------------------------------------------------------------------------------


def test_emission_order_duplicate(my):
    set_cell(my, "emissions", "Third Emission", "order", "2")
    assert problems(my) == [
        "configs/my/emissions.csv:4: column 'order': 2 duplicates the order on line 3"
    ]


def test_emission_order_gap(my):
    set_cell(my, "emissions", "Fifth Emission", "order", "7")
    assert problems(my) == [
        "configs/my/emissions.csv:6: column 'order': 7 is not in 1..6 (orders must be"
        " 1..number of emissions)"
    ]


def test_final_emission_must_be_last(my):
    set_cell(my, "emissions", "Final Emission", "order", "5")
    set_cell(my, "emissions", "Fifth Emission", "order", "6")
    assert problems(my) == [
        "configs/my/emissions.csv:7: column 'order': 5 is not the last order 6; the final card"
        " comes last"
    ]


def test_exactly_one_final_emission(my):
    set_cell(my, "emissions", "Fifth Emission", "final", "1")
    assert problems(my) == [
        "configs/my/emissions.csv:7: column 'final': 1 is a second final card (first on line 6)"
    ]
    set_cell(my, "emissions", "Fifth Emission", "final", "0")
    set_cell(my, "emissions", "Final Emission", "final", "0")
    assert problems(my) == [
        "configs/my/emissions.csv: column 'final': no card has final=1 (P-49: Final Emission)"
    ]


# --- file level -------------------------------------------------------------------------------


def test_ragged_row(my):
    rows = read(my, "weapons")
    rows[2].append("extra")
    write(my, "weapons", rows)
    assert problems(my) == ["configs/my/weapons.csv:3: row has 8 fields but the header has 7"]


def test_short_row(my):
    rows = read(my, "weapons")
    rows[3] = rows[3][:4]
    write(my, "weapons", rows)
    assert problems(my) == ["configs/my/weapons.csv:4: row has 4 fields but the header has 7"]


def test_not_utf8(my):
    path = my / "items.csv"
    lines = path.read_bytes().split(b"\n")
    lines[3] = lines[3].replace(b"seed", "séed".encode("latin-1"))
    path.write_bytes(b"\n".join(lines))
    assert problems(my) == [
        "configs/my/items.csv:4: not UTF-8 text (byte 0xe9); save the file as UTF-8"
    ]


def test_bom_and_empty_lines_tolerated(my):
    path = my / "armor.csv"
    lines = path.read_text(encoding="utf-8").split("\n")
    lines.insert(1, "")
    lines.insert(3, ",,,,,,,,,")
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).replace("\n", "\r\n").encode())
    rs = load_ruleset(my)
    assert list(rs.armor) == list(load_ruleset().armor)
    # Line numbers stay physical: Ecolog suit moved from line 4 to line 6.
    assert rs.where("armor", "Ecolog suit") == "configs/my/armor.csv:6"
    set_cell(my, "armor", "Ecolog suit", "thermal", "7")
    assert problems(my) == ["configs/my/armor.csv:6: column 'thermal': 7 is not a die face 2..6"]


def test_empty_file(my):
    (my / "weapons.csv").write_text("\n\n")
    assert problems(my) == ["configs/my/weapons.csv: file is empty; expected a header line"]


def test_binary_file(my):
    (my / "weapons.csv").write_bytes(b"name,price\x00\n")
    assert problems(my) == ["configs/my/weapons.csv:1: not a CSV text file (NUL byte)"]


def test_missing_file(my):
    (my / "events.csv").unlink()
    assert problems(my) == ["configs/my/events.csv: file not found"]


def test_missing_rules_toml(my):
    (my / "rules.toml").unlink()
    assert problems(my) == ["configs/my/rules.toml: file not found"]


def test_missing_folder(my):
    assert problems("configs/nope") == ["configs/nope: ruleset folder not found"]


def test_folder_is_a_file(my):
    assert problems(my / "armor.csv") == ["configs/my/armor.csv: is not a folder"]


# --- rules.toml -------------------------------------------------------------------------------


def test_malformed_toml(my):
    (my / "rules.toml").write_text("[dice]\nsuccess_on = \n")
    assert problems(my) == [
        "configs/my/rules.toml:2: malformed TOML: Invalid value (at line 2, column 14)"
    ]


def test_toml_out_of_range(my):
    (my / "rules.toml").write_text("# comment\n[dice]\nsuccess_on = 9\n")
    assert problems(my) == ["configs/my/rules.toml:3: key 'dice.success_on': 9 is not in 2..6"]


def test_unknown_toml_key(my):
    (my / "rules.toml").write_text("[dice]\nsucess_on = 5\n")
    assert problems(my) == [
        "configs/my/rules.toml:2: key 'dice.sucess_on': unknown key (did you mean"
        " 'dice.success_on'?)"
    ]


def test_unknown_toml_section(my):
    (my / "rules.toml").write_text("[dice]\nsuccess_on = 5\n\n[dcie]\nsides = 6\n")
    assert problems(my) == [
        "configs/my/rules.toml:4: key 'dcie': unknown section (did you mean 'dice'?)"
    ]


def test_top_level_value_instead_of_section(my):
    (my / "rules.toml").write_text("dice = 5\n")
    assert problems(my) == [
        "configs/my/rules.toml:1: key 'dice': 5 is not a table; write [dice] and its keys below it"
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ('success_on = "5"', "key 'dice.success_on': '5' is not an integer"),
        ("success_on = true", "key 'dice.success_on': true is not an integer"),
        ("success_on = 5.0", "key 'dice.success_on': 5.0 is not an integer"),
    ],
)
def test_wrong_toml_type(my, text, message):
    (my / "rules.toml").write_text(f"[dice]\n{text}\n")
    assert problems(my) == [f"configs/my/rules.toml:2: {message}"]


def test_wrong_toml_type_bool(my):
    (my / "rules.toml").write_text("[events]\nitems_consumed = 0\n")
    assert problems(my) == [
        "configs/my/rules.toml:2: key 'events.items_consumed': 0 is not true or false"
    ]


def test_dotted_keys_are_located(my):
    (my / "rules.toml").write_text(
        "[dice]\nsuccess_on = 5\n\n[economy]\nheal_price_per_wound = -1\n"
    )
    assert problems(my) == [
        "configs/my/rules.toml:5: key 'economy.heal_price_per_wound': -1 is not in 0..1000000"
    ]


def test_toml_values_override_defaults(my):
    (my / "rules.toml").write_text("[dice]\nsuccess_on = 4\n[events]\nitems_consumed = true\n")
    rs = load_ruleset(my)
    assert rs.rules.dice.success_on == 4
    assert rs.rules.events.items_consumed is True
    assert rs.rules.movement.base_steps == 6


# --- all at once ------------------------------------------------------------------------------


def test_all_problems_reported_at_once(my):
    set_cell(my, "armor", "Ecolog suit", "thermal", "7")
    set_cell(my, "armor", "Exoskeleton", "durability", "many")
    set_cell(my, "weapons", "Machete", "name", "Knife")
    set_cell(my, "anomalies", "Electro", "artifact_type", "elektro")
    (my / "events.csv").unlink()
    (my / "rules.toml").write_text("[dice]\nsuccess_on = 9\n[movement]\nbase_step = 6\n")
    found = problems(my)
    assert found == [
        "configs/my/rules.toml:2: key 'dice.success_on': 9 is not in 2..6",
        "configs/my/rules.toml:4: key 'movement.base_step': unknown key (did you mean"
        " 'movement.base_steps'?)",
        "configs/my/anomalies.csv:4: column 'artifact_type': 'elektro' is not the type of any"
        " artifact in configs/my/artifacts.csv (did you mean 'electro'?)",
        "configs/my/armor.csv:4: column 'thermal': 7 is not a die face 2..6",
        "configs/my/armor.csv:6: column 'durability': 'many' is not an integer",
        "configs/my/weapons.csv:3: column 'name': 'Knife' duplicates the name on line 2",
        "configs/my/events.csv: file not found",
    ]
    with pytest.raises(RulesetError) as info:
        load_ruleset(my)
    assert str(info.value).startswith("7 problems in ruleset:\n  configs/my/rules.toml:2:")
