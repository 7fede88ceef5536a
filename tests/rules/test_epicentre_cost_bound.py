"""A too high ``movement.epicentre_cost`` is rules.toml's fault, not map.csv's (issue 43).

An Epicentre hex costs ``movement.epicentre_cost`` steps to enter (Z-03), the Sarcophagus
among them (P-50); above the base allowance ``movement.base_steps`` (Z-19) none can be
entered, and the loader blamed the map ("map.csv:21: column 'location': 'Sarcophagus'
cannot be reached ..."), an edit ``rules.movement.epicentre_cost=7`` went through to
"some hexes cannot reach a bunker". Both now name rules.toml's key, its value and the
bound it breaks; the map's own reachability is still checked.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.rules import load_ruleset
from sim.rules.variants import VariantError, apply_edits
from tests.rules.test_map_validation import problems

HIGH = ("configs/my/rules.toml:2: key 'movement.epicentre_cost': 7 is too high: every "
        "Epicentre hex, the Sarcophagus among them, is entered with at most the base "
        "allowance, movement.base_steps = 6 (Z-03, Z-19; an objective must be reachable on "
        "it), so at most 6")


def test_a_cost_above_the_base_allowance_is_blamed_on_rules_toml(my):
    (my / "rules.toml").write_text("[movement]\nepicentre_cost = 7\n")
    assert problems(my) == [HIGH]


def test_a_base_allowance_below_the_cost_names_both_keys(my):
    (my / "rules.toml").write_text("[movement]\nbase_steps = 4\n")
    found = problems(my)
    assert found[0] == (
        "configs/my/rules.toml:2: key 'movement.epicentre_cost': 5 is too high: every "
        "Epicentre hex, the Sarcophagus among them, is entered with at most the base "
        "allowance, movement.base_steps = 4 (Z-03, Z-19; an objective must be reachable on "
        "it), so at most 4")
    assert not any("Sarcophagus' (" in p for p in found)  # the map is not blamed for it


def test_zonesim_validate_names_rules_toml(my):
    (my / "rules.toml").write_text("[movement]\nepicentre_cost = 7\n")
    result = CliRunner().invoke(main, ["validate", str(my)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert HIGH in result.output and "map.csv" not in result.output


@pytest.mark.parametrize(("edits", "culprit", "value", "steps"), [
    (["rules.movement.epicentre_cost=7"], "rules.movement.epicentre_cost=7", 7, 6),
    (["rules.movement.base_steps=4"], "rules.movement.base_steps=4", 5, 4),
    (["rules.movement.epicentre_cost=6", "rules.movement.base_steps=5"],
     "rules.movement.base_steps=5", 6, 5),
])
def test_an_edit_past_the_bound_is_refused_naming_the_key(edits, culprit, value, steps):
    with pytest.raises(VariantError) as info:
        apply_edits(load_ruleset(None), edits)
    assert str(info.value) == (
        f"edit {culprit!r}: key 'movement.epicentre_cost': {value} is too high: every "
        "Epicentre hex, the Sarcophagus among them, is entered with at most the base "
        f"allowance, movement.base_steps = {steps} (Z-03, Z-19; an objective must be "
        f"reachable on it), so at most {steps}")


def test_an_edit_within_the_bound_is_played():
    rs = apply_edits(load_ruleset(None), ["rules.movement.epicentre_cost=6"])
    assert rs.rules.movement.epicentre_cost == 6


def test_compare_refuses_the_edit_before_any_game(tmp_path):
    result = CliRunner().invoke(main, ["compare", "campaign", "base", "--baseline", "",
                                       "--variant", "edit=rules.movement.epicentre_cost=7",
                                       "--trials", "10"])
    assert result.exit_code == 2, result.output
    assert "movement.epicentre_cost" in result.output and "at most 6" in result.output
    assert "cannot reach a bunker" not in result.output and "Traceback" not in result.output
