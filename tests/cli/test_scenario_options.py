"""``--scenario`` on combat, anomaly, event, compare, sweep and tune (issue 15, section 4).

The stalker, loadout and policy come from the scenario; an option given on the
command line wins; a scenario that cannot be found exits with status 2 and
names the file. The precedence is one library function
(:func:`sim.experiments.setups.resolve_setup`), tested here directly and
through each command.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.experiments.base import CompareInputError
from sim.experiments.setups import resolve_setup, scenario_values
from sim.rules.scenario import load_scenario

RUNNER = CliRunner()
BASE = load_scenario("base")  # Strelok, Stalker suit, SVD + Knife, medkits, stimulants, nuts
COMBAT_DEFAULTS = {"stalker": None, "enemy": "Bloodsucker", "armor": None, "weapons": (),
                   "items": (), "sneak": "always", "flee_at": 0, "heal_at": 0}


def run(*args: str):
    return RUNNER.invoke(main, list(args))


def _json(*args: str) -> dict:
    result = run(*args, "--format", "json", "--quiet")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --- the one resolution function ---------------------------------------------------------------

def test_scenario_values_are_used_where_no_option_is_given():
    setup = resolve_setup("combat", BASE, {}, COMBAT_DEFAULTS)
    assert setup["stalker"] == BASE.stalker == "Strelok"
    assert setup["armor"] == BASE.armor and setup["weapons"] == BASE.weapons
    assert setup["items"] == BASE.items
    assert setup["heal_at"] == BASE.policy.heal_at == 2  # the policy, not the command's 0
    assert setup["enemy"] == "Bloodsucker"  # what the scenario does not say keeps its default


def test_an_explicit_option_wins_over_the_scenario():
    setup = resolve_setup("combat", BASE, {"armor": "SEVA suit", "heal_at": 1, "items": ("none",)},
                          COMBAT_DEFAULTS)
    assert setup["armor"] == "SEVA suit" and setup["heal_at"] == 1
    assert setup["items"] == ()  # a lone 'none' empties the list
    assert resolve_setup("combat", BASE, {"armor": "none"}, COMBAT_DEFAULTS)["armor"] is None
    assert setup["weapons"] == BASE.weapons


def test_without_a_scenario_the_defaults_stand():
    setup = resolve_setup("combat", None, {"stalker": "Ghost"}, COMBAT_DEFAULTS)
    assert setup == {**COMBAT_DEFAULTS, "stalker": "Ghost"}


def test_no_stalker_anywhere_is_an_input_error_naming_the_option():
    with pytest.raises(CompareInputError) as caught:
        resolve_setup("combat", None, {}, COMBAT_DEFAULTS)
    assert caught.value.field == "stalker"


def test_each_experiment_takes_only_the_items_that_act_in_it():
    rs = BASE.ruleset
    assert scenario_values("combat", BASE)["items"] == BASE.items
    assert scenario_values("anomaly", BASE)["items"] == ()  # none acts in an anomaly
    events = scenario_values("event", BASE)["items"]
    assert events == ("Bag of nuts",) and all(rs.items[n].effect == "event_avoid" for n in events)
    assert scenario_values("anomaly", BASE)["enter"] is BASE.policy.enter_anomalies
    campaign = scenario_values("campaign", BASE)
    assert campaign["start"] == BASE.start and campaign["shopping"] == BASE.policy.shopping


# --- through the commands ----------------------------------------------------------------------

EXPLICIT = ("--stalker", "Strelok", "--armor", "Stalker suit", "--weapon", "SVD sniper rifle",
            "--weapon", "Knife", "--item", "Medkit", "--item", "Medkit", "--item", "Stimulant",
            "--item", "Stimulant", "--item", "Bag of nuts", "--heal-at", "2")


def test_combat_with_the_scenario_equals_the_options_written_out():
    common = ("combat", "--enemy", "Bloodsucker", "--trials", "3000", "--seed", "3")
    assert _json(*common, "--scenario", "base") == _json(*common, *EXPLICIT)


def test_compare_takes_the_scenario_and_an_option_overrides_it():
    args = ("compare", "combat", "--scenario", "base", "--enemy", "Bloodsucker", "--trials",
            "2000", "--baseline", "", "--variant", "armor=SEVA suit")
    setup = _json(*args)["setup"]
    assert (setup["stalker"], setup["armor"], setup["heal_at"]) == ("Strelok", "Stalker suit", 2)
    assert setup["weapons"] == ["SVD sniper rifle", "Knife"]
    setup = _json(*args, "--stalker", "Ghost", "--heal-at", "0", "--armor", "none")["setup"]
    assert (setup["stalker"], setup["armor"], setup["heal_at"]) == ("Ghost", None, 0)


def test_event_and_anomaly_take_what_acts_there():
    setup = _json("compare", "event", "--scenario", "base", "--event", "all", "--trials", "500",
                  "--baseline", "", "--variant", "item=Dosimeter")["setup"]
    assert setup["items"] == ["Bag of nuts"] and setup["armor"] == "Stalker suit"
    assert run("anomaly", "--scenario", "base", "--anomaly", "all", "--trials", "200",
               "--quiet").exit_code == 0  # the scenario's medkits are not refused


def test_tune_takes_the_scenario():
    doc = _json("tune", "--scenario", "base", "--enemy", "Bloodsucker", "--trials", "2000",
                "--vary", "enemies.Bloodsucker.endurance=3..4", "--target",
                "knocked_out <= 0.9", "--method", "scan")
    assert doc["setup"]["armor"] == "Stalker suit" and doc["setup"]["heal_at"] == 2


def test_sweep_takes_the_scenario(tmp_path):
    doc = _json("sweep", "--scenario", "base", "--enemy", "Bloodsucker", "--trials", "1000",
                "--vary", "enemies.Bloodsucker.endurance=3..4", "--workers", "1",
                "--out", str(tmp_path / "s"), "--armor", "SEVA suit")
    assert doc["params"]["stalker"] == "Strelok" and doc["params"]["armor"] == "SEVA suit"
    assert doc["params"]["weapons"] == ["SVD sniper rifle", "Knife"]


@pytest.mark.parametrize("command", [
    ("combat", "--enemy", "Bloodsucker"), ("anomaly", "--anomaly", "all"),
    ("event", "--event", "all"),
    ("compare", "combat", "--enemy", "Bloodsucker", "--baseline", "", "--variant", "label=x"),
    ("tune", "--enemy", "Bloodsucker", "--vary", "enemies.Bloodsucker.endurance=3..4",
     "--target", "knocked_out <= 0.5"),
    ("sweep", "--enemy", "Bloodsucker", "--vary", "enemies.Bloodsucker.endurance=3..4"),
], ids=lambda c: " ".join(c[:2]))
def test_a_bad_scenario_name_exits_2_naming_the_file(command):
    result = run(*command, "--scenario", "no_such_scenario", "--trials", "100", "--quiet")
    assert result.exit_code == 2, result.output
    assert "no_such_scenario.toml" in result.output and "not found" in result.output
    assert "Traceback" not in result.output


def test_no_stalker_and_no_scenario_exits_2():
    result = run("combat", "--enemy", "Bloodsucker", "--trials", "100")
    assert result.exit_code == 2
    assert "--stalker" in result.output and "--scenario" in result.output
