"""Repeated names are refused where a repeat means nothing (issue 43, other class).

``policy.route`` refuses a Secret Complex listed twice and ``sweep`` a cell
varied twice; these lists took a repeat without a word: ``policy.keep_artifacts``
and ``policy.shopping_gear`` (a set: the repeat was dropped), the same cell in
two ``--edit``/``edit=`` (the later silently won), ``compare --metric`` and
``artifacts --artifact`` given twice (rows repeated). Now each is refused in the
same words, naming the key or option and the name. A loadout's lists
(``items = ["Medkit", "Medkit"]``: two doses), ``policy.shopping`` (one copy
bought per entry) and ``[[players]]`` with one character twice (as ``stalkers =
N``) keep their repeats: copies count there.
"""

from __future__ import annotations

import pytest

from sim.paths import bundled_ruleset
from sim.rules import RulesetError
from sim.rules.scenario import load_scenario, scenario_path
from sim.rules.variants import VariantError, apply_edits
from tests.cli.test_cli import run


def _scenario(tmp_path, policy: str):
    text = scenario_path("base").read_text(encoding="utf-8")
    text = text.replace('ruleset = "base"', f'ruleset = "{bundled_ruleset()}"')
    text = text.replace("[policy]\n", f"[policy]\n{policy}\n")
    path = tmp_path / "twice.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("key", "name", "why"), [
    ("keep_artifacts", "Flash", "an artefact is kept when found or not (P-11); name it once"),
    ("shopping_gear", "Knife", "each card is bought once, while not held (P-13); name it once"),
])
def test_a_policy_set_refuses_a_name_twice(tmp_path, key, name, why):
    path = _scenario(tmp_path, f'{key} = ["{name}", "{name}"]')
    with pytest.raises(RulesetError) as info:
        load_scenario(path)
    shown = [str(p) for p in info.value.problems]
    assert any(f"key 'policy.{key}': '{name}' is listed twice: {why}" in s for s in shown), shown


def test_copies_stay_where_they_count(tmp_path):
    path = _scenario(tmp_path, 'keep_artifacts = ["Flash"]')
    text = path.read_text(encoding="utf-8").replace(
        'shopping = ["Medkit", "Stimulant"]', 'shopping = ["Medkit", "Medkit"]')
    path.write_text(text, encoding="utf-8")
    scenario = load_scenario(path)
    assert scenario.items.count("Medkit") == 2 and scenario.policy.shopping.count("Medkit") == 2
    assert len(load_scenario("four_stalkers").players) == 4


def test_two_edits_of_one_cell_are_refused():
    rs = load_scenario("base").ruleset
    with pytest.raises(VariantError, match="edits 'enemies.Flesh.endurance=1' and "
                       "'enemies.Flesh.endurance=2' set the same cell; give each cell once"):
        apply_edits(rs, ["enemies.Flesh.endurance=1", "enemies.Flesh.endurance=2"])
    with pytest.raises(VariantError, match="set the same cell"):
        apply_edits(rs, ["rules.combat.max_rounds=5", "rules.combat.max_rounds=6"])
    assert apply_edits(rs, ["enemies.Flesh.endurance=1", "enemies.Flesh.vigilance=2"]) is not rs


def test_balance_seats_refuses_one_cell_edited_twice():
    result = run("balance", "seats", "four_stalkers", "--edit",
                 "rules.multiplayer.first_player=seat1", "--edit",
                 "rules.multiplayer.first_player=seat2", "--trials", "10")
    assert result.exit_code == 2, result.output
    assert "set the same cell; give each cell once" in " ".join(result.output.split())


def test_compare_refuses_a_metric_twice():
    result = run("compare", "combat", "--stalker", "Strelok", "--enemy", "Flesh",
                 "--baseline", "", "--variant", "armor=SEVA suit", "--metric", "knocked_out",
                 "--metric", "knocked_out", "--trials", "10")
    assert result.exit_code == 2, result.output
    assert "Invalid value for --metric: metric 'knocked_out' is given twice" \
        in " ".join(result.output.split())


def test_artifacts_refuses_an_artefact_twice():
    result = run("artifacts", "base", "--artifact", "Flash", "--artifact", "Flash",
                 "--trials", "10", "--games", "0")
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--artifact': 'Flash' is given twice" \
        in " ".join(result.output.split())
