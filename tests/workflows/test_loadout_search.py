"""The starting-loadout search of ``zonesim optimize`` (issue 25, section 1).

"The starting loadout within the stalker's starting money at the cards' prices" (P-13):
a candidate kit (armour, weapons, items, artefacts) is paid for, or refunded, out of the
starting money against the scenario's kit (:class:`sim.workflows.policy_space.Purse`);
one that leaves less than 0 rubles is never proposed. The written scenario carries the
chosen loadout with a comment saying what changed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.experiments.campaign_paired import scenario_setup
from sim.rules.scenario import load_scenario
from sim.workflows import optimize as library
from sim.workflows import race as race_module
from sim.workflows.policy_space import RUBLES, Candidate, Purse, space
from sim.workflows.prices import loadout_price
from sim.workflows.scenario_toml import changed_scenario

TINY = '''ruleset = "base"
stalker = "Ghost"
start = "Cordon"

[loadout]
weapons = ["Knife"]
items = [
  "Bag of nuts",
]
rubles = 300

[policy]
shopping = []
'''
"""A poor stalker: 300 rubles, a knife and a bag of nuts; every armour card costs more."""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("loadout") / "tiny.toml"
    path.write_text(TINY)
    return path


def _beyond_money(rs, base: dict, setups: list[dict]) -> list[dict]:
    """The compiled setups whose kit costs more than the scenario's kit and its money."""
    kit, money = loadout_price(rs, base), 300
    return [s for s in setups
            if loadout_price(rs, s) - kit > money
            or (s["rubles"] if s["rubles"] is not None else money)
            != money - (loadout_price(rs, s) - kit)]


def _search(scenario, monkeypatch) -> tuple[library.Optimization, list[dict]]:
    """The loadout search on the tiny scenario, and the setup of every candidate compiled."""
    setups, real = [], race_module.compile_cases

    def recording(cases):
        setups.extend(dict(c.setup) for c in cases)
        return real(cases)

    monkeypatch.setattr(race_module, "compile_cases", recording)
    result = library.optimize(scenario, keys="armor,weapons,items", trials=200,
                              budget=40_000, fresh_trials=1_000, seed=4, passes=2)
    return result, setups


def test_no_unaffordable_loadout_is_ever_proposed(tiny, monkeypatch):
    scenario = load_scenario(tiny)
    base = scenario_setup(scenario)
    result, setups = _search(scenario, monkeypatch)
    assert len(setups) > 10  # kits were raced
    assert _beyond_money(scenario.ruleset, base, setups) == []
    logs = {k.key: k for k in result.keys}
    # every armour card costs 500 rubles or more: none is proposed, in any pass
    assert logs["armor"].unaffordable == result.passes * len(scenario.ruleset.armor)
    assert logs["armor"].raced <= 1 and logs["weapons"].unaffordable > 0
    assert all(s["armor"] is None for s in setups)
    won = result.winner.setup(base)
    assert won["rubles"] is None or won["rubles"] >= 0
    assert {row["key"] for row in result.key_rows() if row["unaffordable"]} >= {"armor"}


def test_the_check_catches_a_purse_that_ignores_prices(tiny, monkeypatch):
    """Guard: the money check above fails when the search pays nothing for its kits."""
    monkeypatch.setattr(Purse, "left", lambda self, candidate: self.money)
    scenario = load_scenario(tiny)
    _, setups = _search(scenario, monkeypatch)
    assert _beyond_money(scenario.ruleset, scenario_setup(scenario), setups)


def test_a_kit_is_paid_from_the_money_and_a_cheaper_one_refunded():
    scenario = load_scenario("base")  # Strelok, 1,000 rubles, a kit of 6,100
    base = scenario_setup(scenario)
    purse = Purse.of(scenario.ruleset, base)
    assert (purse.money, purse.kit) == (1000, 6100)
    assert purse.settle(Candidate()) == Candidate()  # the scenario's kit: its money unset
    cheaper = Candidate().with_value("armor", "Leather jacket", base)
    assert dict(purse.settle(cheaper).overrides)[RUBLES] == 2000
    dearer = Candidate().with_value("armor", "SEVA suit", base)  # 3,500 more
    assert purse.settle(dearer) is None
    near = Candidate().with_value("armor", "Ecolog suit", base)  # 1,500 more: 1,000 short
    assert purse.settle(near) is None
    swapped = Candidate().with_value("weapons", ("AK-74", "Knife"), base)
    assert dict(purse.settle(swapped).overrides)[RUBLES] == 2500


def test_the_lists_move_one_card_at_a_time():
    scenario = load_scenario("base")
    rs = scenario.ruleset
    armor, weapons = space(rs, scenario_setup(scenario), ("armor", "weapons"))
    assert armor.values == (None, *rs.armor)
    held = ("SVD sniper rifle", "Knife")
    values = weapons.values_at(held)
    assert values[0] == held and len(values) == len(set(values))
    assert ("Knife",) in values and ("SVD sniper rifle",) in values  # one removed
    assert (*held, "Grenade") in values  # one added
    assert ("AK-74", "Knife") in values and ("SVD sniper rifle", "Machete") in values
    assert all(abs(len(v) - len(held)) <= 1 for v in values)
    items = space(rs, scenario_setup(scenario), ("items",))[0].values_at(
        ("Medkit", "Medkit", "Stimulant"))
    assert ("Medkit", "Stimulant") in items and ("Medkit", "Medkit") in items
    assert ("Stimulant", "Medkit", "Stimulant") in items  # the first Medkit replaced


def test_the_written_scenario_carries_the_loadout_with_what_changed(tiny, tmp_path):
    scenario = load_scenario(tiny)
    changes = {"weapons": ("Knife", "PM pistol"), "items": (), "rubles": 100}
    text = changed_scenario(scenario, changes, ["header"])
    out = tmp_path / "kit.toml"
    out.write_text(text)
    written = load_scenario(out)
    assert written.weapons == ("Knife", "PM pistol") and written.items == ()
    assert written.rubles == 100 and written.armor is None
    assert 'weapons = ["Knife", "PM pistol"]   # optimize: was ["Knife"]' in text
    assert 'items = []   # optimize: was ["Bag of nuts"]' in text
    base = load_scenario("base")
    stripped = changed_scenario(base, {"armor": None, "rubles": 2500})
    (tmp_path / "bare.toml").write_text(stripped)
    bare = load_scenario(tmp_path / "bare.toml")
    assert bare.armor is None and bare.rubles == 2500 and bare.items == base.items
    assert '# armor = "Stalker suit"   # optimize: no armour (was this)' in stripped
