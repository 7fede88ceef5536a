"""Messages that say what is wrong, once (issue 23, item 7).

A ruleset that is no ruleset, an unknown character, a stray character in a key, a missing
stalker and invisible characters (a zero-width space) in names and headers are named so that
a user sees them.
"""

from __future__ import annotations

import pytest

from tests.hostile import copy_ruleset, edited_scenario, line_starting, run


@pytest.fixture
def my(tmp_path):
    """A copy of the bundled ruleset as ``tmp_path/my`` (see :func:`tests.hostile.copy_ruleset`)."""
    return copy_ruleset(tmp_path)


ZWSP = "\u200b"
"""A zero-width space: invisible in a terminal."""


# --- 7. unclear messages ----------------------------------------------------------------------

@pytest.mark.parametrize(("ruleset", "why"), [
    ("../../etc", "ruleset folder not found"),
    ("/etc", "/etc holds none of rules.toml, stalkers.csv"),
    ("/dev/null", "/dev/null: is not a folder"),
], ids=["relative", "folder", "device"])
def test_a_ruleset_that_is_no_ruleset_names_the_scenario_line_and_key(tmp_path, ruleset, why):
    path = edited_scenario(tmp_path, 'ruleset = "base"', f'ruleset = "{ruleset}"')
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = line_starting(path, "ruleset = ")
    assert f"{path}:{line}: key 'ruleset': {ruleset!r} names no ruleset (" in result.output
    assert why in result.output
    assert "zonesim: 1 problem" in result.output  # not one per missing file


@pytest.mark.parametrize(("old", "new", "source", "key"), [
    ('stalker = "Strelok"', f'stalker = "Strel{ZWSP}ok"', "base.toml", "stalker"),
    ('character = "Scar"', 'character = "Nobody"', "four_stalkers.toml", "players[2].character"),
    ('character = "Ghost"', 'character = "Nobody"', "four_stalkers.toml", "players[4].character"),
], ids=["stalker", "seat", "seat_with_loadout"])
def test_an_unknown_character_is_the_only_problem(tmp_path, old, new, source, key):
    path = edited_scenario(tmp_path, old, new, source=source)
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = line_starting(path, new)
    assert f"{path}:{line}: key '{key}': " in result.output
    assert "is not a stalker in the ruleset" in result.output
    assert "rubles" not in result.output  # no problem about a key the file does not have
    assert "zonesim: 1 problem" in result.output


@pytest.mark.parametrize(("old", "new", "key"), [
    ('stalker = "Strelok"', '"stalk\u00a7r" = "Strelok"', "stalk\u00a7r"),
    ('stalker = "Strelok"', f'"stalker{ZWSP}" = "Strelok"', "stalker\\u200b"),
    ('start = "Cordon"', '"st\u00e4rt" = "Cordon"', "st\u00e4rt"),
], ids=["section_sign", "zero_width", "umlaut"])
def test_a_stray_character_in_a_key_is_the_only_problem(tmp_path, old, new, key):
    path = edited_scenario(tmp_path, old, new)
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = line_starting(path, new)
    taken = old.partition(" ")[0]
    assert (f"{path}:{line}: key '{key}': unknown key (did you mean '{taken}'?)"
            in result.output)
    assert f"key '{taken}'" not in result.output  # no problem about a key the file lacks
    assert "zonesim: 1 problem" in result.output


def test_a_missing_stalker_is_said_to_be_missing(tmp_path):
    path = edited_scenario(tmp_path, 'stalker = "Strelok"\n', "")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    assert f"{path}: key 'stalker': is missing: name the stalker card" in result.output
    assert "rubles" not in result.output and "zonesim: 1 problem" in result.output


def test_a_zero_width_space_in_a_card_name_is_refused_and_shown(tmp_path, my):
    """Issue 43: the ruleset refuses the name itself (tests/rules/test_name_characters.py)."""
    items = my / "items.csv"
    text = items.read_text(encoding="utf-8")
    assert "\nMedkit," in text
    items.write_text(text.replace("\nMedkit,", f"\nMed{ZWSP}kit,", 1), encoding="utf-8")
    path = edited_scenario(tmp_path, 'ruleset = "base"', f'ruleset = "{my}"')
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2 and ZWSP not in result.output
    assert ("column 'name': character 4 is the invisible character U+200B (zero width space) "
            "in 'Med\\u200bkit'") in result.output


def test_a_zero_width_space_in_a_csv_header_is_shown(my):
    path = my / "armor.csv"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("durability", f"durability{ZWSP}", 1), encoding="utf-8")
    result = run("validate", str(my))
    assert result.exit_code == 2 and ZWSP not in result.output
    assert f"{path}:1: column 'durability\\u200b': unknown column" in result.output


def test_a_zero_width_space_in_a_library_message_is_shown(my):
    path = my / "stalkers.csv"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("\nStrelok,", f"\nStrel{ZWSP}ok,", 1), encoding="utf-8")
    result = run("combat", "--rules", str(my), "--stalker", "Strelok", "--enemy", "Bloodsucker",
                 "--trials", "100")
    assert result.exit_code == 2 and ZWSP not in result.output
    assert "Strel\\u200bok" in result.output
