"""Hostile input that was accepted without a word or told badly (issue 23, items 4, 6 and 7).

Every case asserts the exit status, that there is no traceback, and that the message
names the file and line (or the option, variant or edit), the key and the value. No
case here runs a kernel: each is refused while the ruleset, scenario or options are
read, before any trial.
"""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest

from sim.experiments.registry import experiment
from sim.paths import bundled_ruleset, configs_root
from sim.rules import load_ruleset
from sim.rules.scenario import MAX_THRESHOLD
from sim.workflows.compare import parse_variant
from tests.test_hostile import run  # no traceback, no exception but SystemExit

BASE = bundled_ruleset()
SCENARIOS = configs_root() / "scenarios"
ZWSP = "\u200b"
"""A zero-width space: invisible in a terminal."""


@pytest.fixture
def my(tmp_path):
    folder = tmp_path / "my"
    shutil.copytree(BASE, folder)
    return folder


def _scenario(tmp_path: Path, old: str, new: str, source: str = "base.toml",
              name: str = "s.toml") -> Path:
    text = (SCENARIOS / source).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def _line(path: Path, text: str) -> int:
    """The 1-based line of ``path`` that starts with ``text``."""
    lines = path.read_text(encoding="utf-8").split("\n")
    return next(i for i, line in enumerate(lines, start=1) if line.startswith(text))


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


# --- 4. silent acceptance: tune --edit of the tuned cell ---------------------------------------

TUNE_ENCOUNTER = ("tune", "--stalker", "Strelok", "--enemy", "Bloodsucker",
                  "--target", "knocked_out in 0.2..0.3", "--trials", "100")
TUNE_CAMPAIGN = ("tune", "campaign", "base", "--target", "p_sarcophagus in 0.3..0.5",
                 "--trials", "100")


@pytest.mark.parametrize(("command", "vary", "edit"), [
    (TUNE_ENCOUNTER, "enemies.Bloodsucker.endurance=1..8", "enemies.Bloodsucker.endurance=3"),
    (TUNE_ENCOUNTER, "enemies. Bloodsucker .endurance=1..8", "enemies.Bloodsucker.endurance = 3"),
    (TUNE_CAMPAIGN, "rules.combat.max_rounds=10..20", "rules.combat.max_rounds=50"),
], ids=["encounter", "spaces", "campaign"])
def test_tune_refuses_an_edit_of_the_tuned_cell(tmp_path, monkeypatch, command, vary, edit):
    monkeypatch.chdir(tmp_path)
    result = run(*command, "--vary", vary, "--edit", edit)
    assert result.exit_code == 2, result.output
    cell = ".".join(part.strip() for part in vary.partition("=")[0].split("."))
    assert "--edit" in result.output
    assert f"{edit!r} edits {cell}, the cell being tuned" in result.output
    assert not (tmp_path / "results").exists()


def test_tune_takes_an_edit_of_another_cell_of_the_same_card():
    from sim.workflows.tune import TuneInputError, _refuse_tuned_cell

    _refuse_tuned_cell("enemies.Bloodsucker.endurance", ("enemies.Bloodsucker.wounds=2",))
    with pytest.raises(TuneInputError) as error:
        _refuse_tuned_cell("enemies.Bloodsucker.endurance", ("enemies.Bloodsucker.endurance=2",))
    assert error.value.field == "edit"  # the CLI names --edit


# --- 4. silent acceptance: --variant values, checked as their options --------------------------

COMBAT = ("compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker",
          "--baseline", "", "--trials", "100")
ANOMALY = ("compare", "anomaly", "--stalker", "Strelok", "--anomaly", "Burner",
           "--baseline", "", "--trials", "100")
CAMPAIGN = ("compare", "campaign", "base", "--baseline", "", "--trials", "100")

FIGHT = ("combat", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--trials", "100")
HAZARD = ("anomaly", "--stalker", "Strelok", "--anomaly", "Burner", "--trials", "100")

VARIANTS = {
    "heal_at": (COMBAT, "heal_at=-3", "heal_at", "-3 is not in 0..1000",
                (*FIGHT, "--heal-at", "-3")),
    "flee_at": (COMBAT, "flee_at=-1", "flee_at", "-1 is not in 0..1000",
                (*FIGHT, "--flee-at", "-1")),
    "intellect": (COMBAT, "intellect=-5", "intellect", "-5 is not in 0..1000",
                  (*FIGHT, "--intellect", "-5")),
    "heal_at_above": (COMBAT, "heal_at=1001", "heal_at", "1001 is not in 0..1000",
                      (*FIGHT, "--heal-at", "1001")),
    "health": (ANOMALY, "health=0", "health", "0 is not in 1..1000", (*HAZARD, "--health", "0")),
    "campaign_heal_at": (CAMPAIGN, "heal_at=-3", "heal_at", "-3 is not in 0..1000", None),
    "rubles": (CAMPAIGN, "rubles=-1", "rubles", "-1 is not in 0..1000000000", None),
    "route_twice": (CAMPAIGN, "route=Lab X-18;route=Lab X-18", "route",
                    "'Lab X-18' is listed twice", None),
}


@pytest.mark.parametrize("case", list(VARIANTS))
def test_a_variant_value_is_refused_where_its_option_is(tmp_path, monkeypatch, case):
    monkeypatch.chdir(tmp_path)
    command, spec, key, message, option = VARIANTS[case]
    result = run(*command, "--variant", spec)
    assert result.exit_code == 2, result.output
    assert f"variant {spec!r}: key '{key}': {message}" in result.output
    if option is not None:  # the option refuses the same value
        refused = run(*option)
        assert refused.exit_code == 2 and "Invalid value for" in refused.output
    assert not (tmp_path / "results").exists()


def test_variant_integers_take_the_range_of_their_option_and_scenario_key():
    combat, campaign = experiment("combat"), experiment("campaign")
    assert parse_variant(f"heal_at={MAX_THRESHOLD}", combat).overrides == (
        ("heal_at", MAX_THRESHOLD),)
    assert parse_variant("health=1", experiment("anomaly")).overrides == (("health", 1),)
    assert parse_variant("route=Lab X-18;route=Lab X-16", campaign).overrides == (
        ("route", ("Lab X-18", "Lab X-16")),)


# --- 6. tracebacks: integers past int64 in --variant -------------------------------------------

@pytest.mark.parametrize(("command", "spec", "shown"), [
    (COMBAT, "heal_at=9223372036854775808", "922337203685... (19 digits) is not in 0..1000"),
    (COMBAT, "intellect=" + "9" * 5000, "999999999999... (5000 digits) is not in 0..1000"),
    (CAMPAIGN, "rubles=99999999999999999999", "999999999999... (20 digits) is not in"),
], ids=["int64", "thousands", "rubles"])
def test_variant_integers_past_int64_are_a_message(tmp_path, monkeypatch, command, spec, shown):
    monkeypatch.chdir(tmp_path)
    result = run(*command, "--variant", spec)
    assert result.exit_code == 2, result.output
    key = spec.partition("=")[0]
    assert f"key '{key}': {shown}" in result.output


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
    line = _line(path, "50,50,")
    assert (f"{path}:{line}: column 'q': hex (50, 50) cannot reach any bunker with the base "
            "allowance of 6 steps") in result.output
    scenario = _scenario(tmp_path, 'ruleset = "base"', f'ruleset = "{my}"')
    campaign = run("campaign", str(scenario), "--trials", "10")
    assert campaign.exit_code == 2 and f"{path}:{line}:" in campaign.output


def test_movement_items_and_artefacts_with_two_epicentre_rules_are_refused(my):
    path = my / "rules.toml"
    text = path.read_text(encoding="utf-8")
    assert "movement_in_epicentre = false" in text
    path.write_text(text.replace("movement_in_epicentre = false", "movement_in_epicentre = true"),
                    encoding="utf-8")
    result = run("validate", str(my))
    assert result.exit_code == 2
    line = _line(path, "movement_in_epicentre")
    assert (f"{path}:{line}: key 'artifacts.movement_in_epicentre': true differs from "
            "movement.items_in_epicentre = false") in result.output


@pytest.mark.parametrize(("edits", "message"), [
    ([f"enemies.{name}.count=0" for name in load_ruleset().enemies],
     "enemies.csv: every card's count is 0"),
    ([f"events.{name}.count=0" for name in load_ruleset().events],
     "events.csv: every card's count is 0"),
    (["rules.artifacts.movement_in_epicentre=true"],
     "key 'artifacts.movement_in_epicentre': true differs"),
], ids=["enemies", "events", "epicentre"])
def test_edits_are_held_to_the_same_table_checks(tmp_path, monkeypatch, edits, message):
    monkeypatch.chdir(tmp_path)
    spec = ";".join(f"edit={e}" for e in edits)
    result = run(*COMBAT, "--variant", spec)
    assert result.exit_code == 2, result.output
    assert f"edit {edits[-1]!r}: {message}" in result.output


# --- 4 and 7: what one campaign character cannot carry, named by seat, line and key -----------

def test_too_many_artefacts_in_one_seat_names_the_seat_line_and_key(tmp_path):
    arts = '["Flash", "Slime", "Slug", "Crystal", "Jellyfish"]'
    path = _scenario(tmp_path, 'character = "Degtyarev"\n',
                     f'character = "Degtyarev"\n[players.loadout]\nartifacts = {arts}\n',
                     source="four_stalkers.toml")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2, result.output
    line = _line(path, "artifacts = ")
    assert (f"{path}:{line}: key 'players[3].loadout.artifacts': makes 5 artefact slots "
            "(carried, then kept: Flash, Slime, Slug, Crystal, Jellyfish); a campaign "
            "character has at most 4") in result.output
    assert result.output.count("artefact slots") == 1


def test_kept_artefacts_past_the_slots_name_the_keep_key(tmp_path):
    path = _scenario(tmp_path, "[policy]\n", '[policy]\nkeep_artifacts = ["Crystal", "Jellyfish",'
                     ' "Flash", "Slime", "Slug"]\n')
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = _line(path, "keep_artifacts")
    assert f"{path}:{line}: key 'policy.keep_artifacts': makes 5 artefact slots" in result.output


def test_artefacts_past_the_carry_limit_name_the_loadout_key(tmp_path, my):
    rules = my / "rules.toml"
    text = rules.read_text(encoding="utf-8")
    assert "carry_limit = 0" in text
    rules.write_text(text.replace("carry_limit = 0", "carry_limit = 1"), encoding="utf-8")
    path = _scenario(tmp_path, 'ruleset = "base"', f'ruleset = "{my}"')
    path.write_text(path.read_text(encoding="utf-8").replace(
        "items = [", 'artifacts = ["Flash", "Slime"]\nitems = [', 1), encoding="utf-8")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = _line(path, "artifacts = ")
    assert (f"{path}:{line}: key 'loadout.artifacts': lists 2 artefacts; "
            "artifacts.carry_limit is 1") in result.output


def test_seven_weapons_name_the_loadout_key(tmp_path):
    weapons = ", ".join(['"Knife"'] * 7)
    path = _scenario(tmp_path, 'weapons = ["SVD sniper rifle", "Knife"]', f"weapons = [{weapons}]")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = _line(path, "weapons = ")
    assert (f"{path}:{line}: key 'loadout.weapons': lists 7 weapons; a campaign character "
            "carries at most 6") in result.output


# --- 6. tracebacks: nested lists and tables in policy.route ------------------------------------

@pytest.mark.parametrize("route", ['[["Lab X-18"]]', "[{a = 1}]", '["Lab X-18", ["x"], {b = 2}]'],
                         ids=["list", "table", "mixed"])
def test_nested_route_entries_are_problems_with_line_and_key(tmp_path, route):
    path = _scenario(tmp_path, 'route = "nearest"', f"route = {route}")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2, result.output
    line = _line(path, "route = ")
    assert f"{path}:{line}: key 'policy.route': " in result.output
    assert "is not a Secret Complex name (a string)" in result.output


def test_a_nested_route_in_a_seat_names_the_seat(tmp_path):
    path = _scenario(tmp_path, 'sneak = "never"', 'sneak = "never"\nroute = [["Lab X-18"]]',
                     source="four_stalkers.toml")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = _line(path, "route = [[")
    assert (f"{path}:{line}: key 'players[2].policy.route': ['Lab X-18'] is not a Secret "
            "Complex name (a string)") in result.output


# --- 7. unclear messages ----------------------------------------------------------------------

@pytest.mark.parametrize(("ruleset", "why"), [
    ("../../etc", "ruleset folder not found"),
    ("/etc", "/etc holds none of rules.toml, stalkers.csv"),
    ("/dev/null", "/dev/null: is not a folder"),
], ids=["relative", "folder", "device"])
def test_a_ruleset_that_is_no_ruleset_names_the_scenario_line_and_key(tmp_path, ruleset, why):
    path = _scenario(tmp_path, 'ruleset = "base"', f'ruleset = "{ruleset}"')
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = _line(path, "ruleset = ")
    assert f"{path}:{line}: key 'ruleset': {ruleset!r} names no ruleset (" in result.output
    assert why in result.output
    assert "zonesim: 1 problem" in result.output  # not one per missing file


@pytest.mark.parametrize(("old", "new", "source", "key"), [
    ('stalker = "Strelok"', f'stalker = "Strel{ZWSP}ok"', "base.toml", "stalker"),
    ('character = "Scar"', 'character = "Nobody"', "four_stalkers.toml", "players[2].character"),
    ('character = "Ghost"', 'character = "Nobody"', "four_stalkers.toml", "players[4].character"),
], ids=["stalker", "seat", "seat_with_loadout"])
def test_an_unknown_character_is_the_only_problem(tmp_path, old, new, source, key):
    path = _scenario(tmp_path, old, new, source=source)
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = _line(path, new)
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
    path = _scenario(tmp_path, old, new)
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = _line(path, new)
    taken = old.partition(" ")[0]
    assert (f"{path}:{line}: key '{key}': unknown key (did you mean '{taken}'?)"
            in result.output)
    assert f"key '{taken}'" not in result.output  # no problem about a key the file lacks
    assert "zonesim: 1 problem" in result.output


def test_a_missing_stalker_is_said_to_be_missing(tmp_path):
    path = _scenario(tmp_path, 'stalker = "Strelok"\n', "")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    assert f"{path}: key 'stalker': is missing: name the stalker card" in result.output
    assert "rubles" not in result.output and "zonesim: 1 problem" in result.output


def test_a_zero_width_space_in_a_card_name_is_shown_in_the_suggestion(tmp_path, my):
    items = my / "items.csv"
    text = items.read_text(encoding="utf-8")
    assert "\nMedkit," in text
    items.write_text(text.replace("\nMedkit,", f"\nMed{ZWSP}kit,", 1), encoding="utf-8")
    path = _scenario(tmp_path, 'ruleset = "base"', f'ruleset = "{my}"')
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2 and ZWSP not in result.output
    assert "'Medkit' is not an item in the ruleset (did you mean 'Med\\u200bkit'?)" \
        in result.output


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
