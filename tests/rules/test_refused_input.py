"""What ``validate`` and the scenario loader must refuse, with file, line, key and value
(issue 23, items 4, 6 and 7).

Header-only tables, decks that cannot be played, a hex that reaches no bunker, two epicentre
rules, what one seat cannot carry and nested route entries: each is refused while the
ruleset or scenario is read, before any trial.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from tests.hostile import copy_ruleset, edited_scenario, line_starting, run


@pytest.fixture
def my(tmp_path):
    """A copy of the bundled ruleset as ``tmp_path/my`` (see :func:`tests.hostile.copy_ruleset`)."""
    return copy_ruleset(tmp_path)


def _header_only(folder: Path, table: str) -> Path:
    path = folder / f"{table}.csv"
    path.write_text(path.read_text(encoding="utf-8").split("\n")[0] + "\n", encoding="utf-8")
    return path


def _set_column(folder: Path, table: str, column: str, value: str) -> Path:
    """Every card of ``table`` with ``column`` set to ``value``."""
    path = folder / f"{table}.csv"
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    index = rows[0].index(column)
    for row in rows[1:]:
        if row:
            row[index] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


# --- 4. silent acceptance: validate catches what the runs refuse -------------------------------

def test_header_only_enemies_is_refused_by_validate_with_file_and_line(my):
    path = _header_only(my, "enemies")
    _header_only(my, "sarcophagus")  # else its enemies are unknown cards first
    result = run("validate", str(my))
    assert result.exit_code == 2 and "ok (" not in result.output
    assert f"{path}:1: has a header but no cards; the deck needs a card with count >= 1" \
        in result.output
    combat = run("combat", "--rules", str(my), "--stalker", "Strelok", "--enemy", "all")
    assert combat.exit_code == 2 and f"{path}:1:" in combat.output


@pytest.mark.parametrize("table", ["anomalies", "events"])
def test_header_only_decks_are_refused(my, table):
    path = _header_only(my, table)
    result = run("validate", str(my))
    assert result.exit_code == 2
    assert f"{path}:1: has a header but no cards" in result.output


def test_no_stalker_card_is_refused(my):
    path = _header_only(my, "stalkers")
    result = run("validate", str(my))
    assert result.exit_code == 2
    assert f"{path}:1: has a header but no cards; every command plays a stalker card" \
        in result.output


@pytest.mark.parametrize(("table", "command", "option"), [
    ("enemies", "combat", "--enemy"), ("anomalies", "anomaly", "--anomaly"),
    ("events", "event", "--event")])
def test_every_count_zero_is_refused_at_the_first_card(my, table, command, option):
    path = _set_column(my, table, "count", "0")
    result = run("validate", str(my))
    assert result.exit_code == 2, result.output
    assert f"{path}:2: column 'count': every card's count is 0" in result.output
    deck = run("compare", command, "--rules", str(my), "--stalker", "Strelok", option, "all",
               "--baseline", "", "--variant", "label=x", "--trials", "100")
    assert deck.exit_code == 2 and f"{path}:2: column 'count'" in deck.output


def test_an_enemy_deck_that_only_deals_radiation_is_refused(my):
    path = _set_column(my, "enemies", "wound_type", "radiation")
    result = run("validate", str(my))
    assert result.exit_code == 2
    assert f"{path}:2: column 'wound_type': every enemy with count >= 1 deals radiation" \
        in result.output


def test_a_hex_that_cannot_reach_a_bunker_is_refused(tmp_path, my):
    path = my / "map.csv"
    with path.open("a", encoding="utf-8") as out:
        out.write("50,50,1,,,,,a hex apart from the map\n")
    result = run("validate", str(my))
    assert result.exit_code == 2
    line = line_starting(path, "50,50,")
    assert (f"{path}:{line}: column 'q': hex (50, 50) cannot reach any bunker with the base "
            "allowance of 6 steps") in result.output
    scenario = edited_scenario(tmp_path, 'ruleset = "base"', f'ruleset = "{my}"')
    campaign = run("campaign", str(scenario), "--trials", "10")
    assert campaign.exit_code == 2 and f"{path}:{line}:" in campaign.output


def test_movement_items_and_artefacts_with_two_epicentre_rules_are_refused(my):
    path = my / "rules.toml"
    text = path.read_text(encoding="utf-8")
    assert "\n[artifacts]\n" in text  # the base set leaves the key out: it follows
    set_apart = "\n[artifacts]\nmovement_in_epicentre = true\n"
    path.write_text(text.replace("\n[artifacts]\n", set_apart), encoding="utf-8")
    result = run("validate", str(my))
    assert result.exit_code == 2
    line = line_starting(path, "movement_in_epicentre")
    assert (f"{path}:{line}: key 'artifacts.movement_in_epicentre': true differs from "
            "movement.items_in_epicentre = false") in result.output


# --- 4 and 7: what one campaign character cannot carry, named by seat, line and key -----------

def test_too_many_artefacts_in_one_seat_names_the_seat_line_and_key(tmp_path):
    arts = '["Flash", "Slime", "Slug", "Crystal", "Jellyfish"]'
    path = edited_scenario(tmp_path, 'character = "Degtyarev"\n',
                           f'character = "Degtyarev"\n[players.loadout]\nartifacts = {arts}\n',
                           source="four_stalkers.toml")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2, result.output
    line = line_starting(path, "artifacts = ")
    assert (f"{path}:{line}: key 'players[3].loadout.artifacts': makes 5 artefact slots "
            "(carried, then kept: Flash, Slime, Slug, Crystal, Jellyfish); a campaign "
            "character has at most 4") in result.output
    assert result.output.count("artefact slots") == 1


def test_kept_artefacts_past_the_slots_name_the_keep_key(tmp_path):
    path = edited_scenario(tmp_path, "[policy]\n",
                           '[policy]\nkeep_artifacts = ["Crystal", "Jellyfish",'
                           ' "Flash", "Slime", "Slug"]\n')
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = line_starting(path, "keep_artifacts")
    assert f"{path}:{line}: key 'policy.keep_artifacts': makes 5 artefact slots" in result.output


def test_artefacts_past_the_carry_limit_name_the_loadout_key(tmp_path, my):
    rules = my / "rules.toml"
    text = rules.read_text(encoding="utf-8")
    assert "carry_limit = 0" in text
    rules.write_text(text.replace("carry_limit = 0", "carry_limit = 1"), encoding="utf-8")
    path = edited_scenario(tmp_path, 'ruleset = "base"', f'ruleset = "{my}"')
    path.write_text(path.read_text(encoding="utf-8").replace(
        "items = [", 'artifacts = ["Flash", "Slime"]\nitems = [', 1), encoding="utf-8")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = line_starting(path, "artifacts = ")
    assert (f"{path}:{line}: key 'loadout.artifacts': lists 2 artefacts; "
            "artifacts.carry_limit is 1") in result.output


def test_seven_weapons_name_the_loadout_key(tmp_path):
    weapons = ", ".join(['"Knife"'] * 7)
    path = edited_scenario(tmp_path, 'weapons = ["SVD sniper rifle", "Knife"]',
                           f"weapons = [{weapons}]")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = line_starting(path, "weapons = ")
    assert (f"{path}:{line}: key 'loadout.weapons': lists 7 weapons; a campaign character "
            "carries at most 6") in result.output


# --- 6. tracebacks: nested lists and tables in policy.route ------------------------------------

@pytest.mark.parametrize("route", ['[["Lab X-18"]]', "[{a = 1}]", '["Lab X-18", ["x"], {b = 2}]'],
                         ids=["list", "table", "mixed"])
def test_nested_route_entries_are_problems_with_line_and_key(tmp_path, route):
    path = edited_scenario(tmp_path, 'route = "nearest"', f"route = {route}")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2, result.output
    line = line_starting(path, "route = ")
    assert f"{path}:{line}: key 'policy.route': " in result.output
    assert "is not a Secret Complex name (a string)" in result.output


def test_a_nested_route_in_a_seat_names_the_seat(tmp_path):
    path = edited_scenario(tmp_path, 'sneak = "never"', 'sneak = "never"\nroute = [["Lab X-18"]]',
                           source="four_stalkers.toml")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = line_starting(path, "route = [[")
    assert (f"{path}:{line}: key 'players[2].policy.route': ['Lab X-18'] is not a Secret "
            "Complex name (a string)") in result.output
