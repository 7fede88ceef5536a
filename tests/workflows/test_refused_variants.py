"""Variants and edits a run cannot honour are refused, named by option, variant or edit
(issue 23, items 4 and 6).

``tune --edit`` of the tuned cell, a ``--variant`` value outside its option's range and an
integer past int64 in a variant end with one message (exit status 2), before any trial.
"""

from __future__ import annotations

import pytest

from sim.experiments.registry import experiment
from sim.rules import load_ruleset
from sim.rules.scenario import MAX_THRESHOLD
from sim.workflows.compare import parse_variant
from tests.hostile import run

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
    "sneak": (COMBAT, "sneak=foo", "sneak", "'foo' is not one of always, never",
              (*FIGHT, "--sneak", "foo")),
    "campaign_sneak": (CAMPAIGN, "sneak=sometimes", "sneak",
                       "'sometimes' is not one of always, never", None),
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
