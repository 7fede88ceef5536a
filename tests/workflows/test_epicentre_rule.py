"""One Epicentre rule (issue 26, Z-03): ``artifacts.movement_in_epicentre`` follows
``movement.items_in_epicentre`` unless ``rules.toml`` sets it.

The campaign's route tables take one Epicentre rule for the steps movement items
and movement artefacts add, so the two keys must agree; a ruleset that leaves the
artefact key out has it follow the movement key, an edit of the movement key
carries it along, and only setting them apart is refused, naming both keys.
"""

from __future__ import annotations

import shutil

import pytest

from sim.paths import resolve_ruleset
from sim.rules import RulesetError, load_ruleset
from sim.rules.scenario import load_scenario
from sim.rules.variants import VariantError, apply_edits
from sim.workflows import readings

SET = "movement_in_epicentre = false"


@pytest.fixture
def copy(tmp_path):
    folder = tmp_path / "rules"
    shutil.copytree(resolve_ruleset(None), folder)
    return folder


def _write(folder, items: str, artefact_line: str | None) -> None:
    """The copy's movement key set to ``items``, and the artefact key to ``artefact_line``
    (the base set leaves it out)."""
    path = folder / "rules.toml"
    text = path.read_text(encoding="utf-8")
    assert SET not in text and "items_in_epicentre = false" in text and "\n[artifacts]\n" in text
    text = text.replace("items_in_epicentre = false", f"items_in_epicentre = {items}")
    if artefact_line is not None:
        text = text.replace("\n[artifacts]\n", f"\n[artifacts]\n{artefact_line}\n")
    path.write_text(text, encoding="utf-8")


def test_a_copy_of_the_base_set_changing_the_movement_key_alone_loads(copy):
    """The base set leaves the artefact key out, so a designer's copy that changes only the
    movement key has both follow it (issue 26: "one Epicentre rule")."""
    _write(copy, "true", None)
    assert load_ruleset(copy).rules.artifacts.movement_in_epicentre is True


@pytest.mark.parametrize("items", ["true", "false"])
def test_the_artefact_key_follows_the_movement_key_when_not_set(copy, items):
    _write(copy, items, None)
    rules = load_ruleset(copy).rules
    assert rules.artifacts.movement_in_epicentre is rules.movement.items_in_epicentre \
        is (items == "true")


def test_the_artefact_key_set_alike_loads(copy):
    _write(copy, "true", "movement_in_epicentre = true")
    assert load_ruleset(copy).rules.artifacts.movement_in_epicentre is True


def test_the_two_keys_set_apart_are_refused_naming_both(copy):
    _write(copy, "true", SET)
    with pytest.raises(RulesetError) as error:
        load_ruleset(copy)
    text = str(error.value.problems[0])
    assert "artifacts.movement_in_epicentre" in text and "movement.items_in_epicentre" in text
    assert "leave artifacts.movement_in_epicentre out" in text


def test_an_edit_of_the_movement_key_carries_the_artefact_key_along():
    rs = load_ruleset()
    edited = apply_edits(rs, ["rules.movement.items_in_epicentre=true"])
    assert edited.rules.movement.items_in_epicentre is True
    assert edited.rules.artifacts.movement_in_epicentre is True
    assert rs.rules.artifacts.movement_in_epicentre is False  # the input is unchanged
    both = apply_edits(rs, ["rules.artifacts.movement_in_epicentre=true",
                            "rules.movement.items_in_epicentre=true"])
    assert both.rules.artifacts.movement_in_epicentre is True


@pytest.mark.parametrize("edits", [
    ["rules.artifacts.movement_in_epicentre=true"],
    ["rules.movement.items_in_epicentre=true", "rules.artifacts.movement_in_epicentre=false"],
    ["rules.artifacts.movement_in_epicentre=false", "rules.movement.items_in_epicentre=true"],
])
def test_edits_that_set_the_keys_apart_are_refused(edits):
    with pytest.raises(VariantError, match="key 'artifacts.movement_in_epicentre'"):
        apply_edits(load_ruleset(), edits)


def test_the_epicentre_reading_is_played():
    result = readings.run_readings(load_scenario("base"), trials=300, seed=2)
    played = {r["edit"] for r in result.rows}
    skipped = {s["edit"]: s["reason"] for s in result.skipped}
    assert "rules.movement.items_in_epicentre=true" in played
    assert "movement.items_in_epicentre" in skipped["rules.artifacts.movement_in_epicentre=true"]
