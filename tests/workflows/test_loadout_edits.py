"""Comparisons without traps (issue 26, items 3 and 5): loadout edits and the cash row.

``item+=NAME`` adds a card to the scenario's items, ``item-=NAME`` removes one,
``items=A,B`` replaces them; a bare ``item=NAME`` replaces them too and the
output says so; every variant's full loadout is echoed. With
``--cash-equivalent`` a row "card minus its cash" gives the card against its
price in starting rubles, paired (P-13 money, Z-01..Z-03 the Jetpack).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.experiments import registry
from sim.experiments.base import CompareInputError
from sim.experiments.campaign_paired import scenario_setup
from sim.rules.scenario import load_scenario
from sim.workflows import compare

ITEMS = ("Medkit", "Medkit", "Stimulant", "Stimulant", "Bag of nuts")
"""The base scenario's items."""
GAMES = 3_000


@pytest.fixture(scope="module")
def base():
    return scenario_setup(load_scenario("base"))


def _setup(text, base):
    return compare.parse_variant(text, registry.experiment("campaign")).setup(base)


def test_add_remove_replace(base):
    assert base["items"] == ITEMS
    assert _setup("item+=Jetpack", base)["items"] == (*ITEMS, "Jetpack")
    assert _setup("item-=Medkit", base)["items"] == ("Medkit", "Stimulant", "Stimulant",
                                                     "Bag of nuts")
    assert _setup("items=Jetpack, Medkit", base)["items"] == ("Jetpack", "Medkit")
    assert _setup("items=none", base)["items"] == ()
    assert _setup("item=Jetpack", base)["items"] == ("Jetpack",)
    assert _setup("item=Jetpack;item+=Medkit", base)["items"] == ("Jetpack", "Medkit")
    assert _setup("weapon-=Knife;weapon+=AK-74", base)["weapons"] == ("SVD sniper rifle",
                                                                      "AK-74")


def test_bad_edits_are_named(base):
    exp = registry.experiment("campaign")
    with pytest.raises(CompareInputError, match="holds no 'Dosimeter'.*Bag of nuts"):
        compare.parse_variant("item-=Dosimeter", exp).setup(base)
    with pytest.raises(CompareInputError, match="rubles\\+= edits a list"):
        compare.parse_variant("rubles+=3", exp)
    with pytest.raises(CompareInputError, match="needs a card name"):
        compare.parse_variant("item+=", exp)


def test_bare_item_says_it_replaces(base):
    variant = compare.parse_variant("item=Jetpack", registry.experiment("campaign"))
    described = compare.describe(variant, base)
    assert described["loadout"]["items"] == ["Jetpack"]
    assert described["notes"] == [
        "item=Jetpack replaces the loadout's items (Medkit, Medkit, Stimulant, Stimulant, "
        "Bag of nuts); item+=NAME adds one, item-=NAME removes one"]
    added = compare.describe(compare.parse_variant("item+=Jetpack",
                                                   registry.experiment("campaign")), base)
    assert "notes" not in added and added["changes"] == ["item+=Jetpack"]
    # on a base with no items, replacing is adding: no note
    assert "notes" not in compare.describe(variant, {**base, "items": ()})


def test_cli_echoes_loadouts_and_the_cash_row():
    """The Jetpack added against 5,000 rubles: "minus its cash" is the paired difference.

    The mean of the paired differences equals the difference of the means, so the
    row's estimate is the card's estimate less the cash variant's (to rounding).
    """
    runner = CliRunner()
    args = ["compare", "campaign", "base", "--baseline", "", "--variant", "item+=Jetpack",
            "--variant", "item=Jetpack", "--cash-equivalent", "--metric", "p_sarcophagus",
            "--trials", str(GAMES), "--seed", "5", "--quiet"]
    result = runner.invoke(main, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    loadouts = {v["label"]: v["loadout"]["items"] for v in doc["variants"]}
    assert loadouts["item+=Jetpack"] == [*ITEMS, "Jetpack"]
    assert loadouts["item=Jetpack"] == ["Jetpack"]
    assert loadouts["item+=Jetpack as cash (+5,000 rubles)"] == list(ITEMS)
    rows = {r["variant"]: r for r in doc["rows"]}
    minus = rows["item+=Jetpack minus its cash"]
    card, cash = rows["item+=Jetpack"], rows["item+=Jetpack as cash (+5,000 rubles)"]
    assert minus["mc"] == pytest.approx(card["mc"] - cash["mc"], abs=1e-12)
    assert minus["ci_low"] < minus["mc"] < minus["ci_high"]
    assert minus["verdict"] in ("better", "worse", compare.NO_DIFFERENCE)
    table = runner.invoke(main, args)
    assert table.exit_code == 0, table.output
    assert "loadouts:" in table.output
    assert "item=Jetpack replaces the loadout's items" in table.output
    assert "per 1,000 rubles: the paired difference times 1,000" in table.output
