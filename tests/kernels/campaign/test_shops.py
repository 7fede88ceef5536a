"""Each base sells its own items (Z-11; Z-05 for the Helicopter call; issue 27, item 2.5).

Z-11: "each base has its own types" of medkits and stimulants; Z-05: the Helicopter call is
bought only at the Military base. ``items.csv`` column ``sold_at`` names the factions whose
bases sell a card (the base set's values are examples, the Helicopter call's the seed's);
``economy.shops = "every_base"`` is the earlier reading, every base selling every item. The
kernel's trade (:func:`sim.kernels.campaign.trade.trade`) and the plain-Python reference's
(:meth:`sim.reference.campaign.Game.trade`) buy the shopping list base by base as written
out here; the kernel and the reference agree over whole games under both readings
(tests/kernels/campaign/test_campaign_reference.py plays the base scenario, here the other reading).
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from sim.campaign.compile import FACTIONS, compile_campaign
from sim.kernels import campaign as K
from sim.kernels.campaign.trade import trade
from sim.reference import campaign as reference
from sim.rules import RulesetError, load_ruleset
from sim.rules.scenario import load_scenario, scenario_path
from sim.rules.variants import apply_edits
from tests.kernels.campaign.test_campaign_reference import assert_agrees, scenario, z_scores

SHOPPING = ("Medkit", "Army medkit", "Stimulant", "Helicopter call", "Bag of nuts")
BY_HAND = {
    "duty": ("Medkit", "Bag of nuts"),
    "freedom": ("Medkit", "Stimulant", "Bag of nuts"),
    "ecologists": ("Army medkit", "Stimulant", "Bag of nuts"),
    "military": ("Army medkit", "Helicopter call", "Bag of nuts"),
}
"""What each base sells of :data:`SHOPPING` in the base set (items.csv ``sold_at``; the Bag of
nuts names no shop, so every base sells it)."""


def _scenario(shops: str):
    sc = load_scenario(scenario_path("base"))
    sc = dataclasses.replace(sc, ruleset=apply_edits(sc.ruleset, [f"rules.economy.shops={shops}"]),
                             rubles=100_000)
    return dataclasses.replace(sc, policy=dataclasses.replace(sc.policy, shopping=SHOPPING))


def _kernel_buys(sc, faction: str) -> tuple[str, ...]:
    arrays = compile_campaign(sc)
    st = np.zeros(K.S_SIZE, dtype=np.int64)
    st[K.S_RUBLES] = sc.rubles
    items = np.zeros(len(sc.ruleset.items), dtype=np.int64)
    trade(st, arrays.cp, items, arrays.it, arrays.shopping, FACTIONS[faction])
    names = list(sc.ruleset.items)
    return tuple(n for n in SHOPPING if items[names.index(n)])


def _reference_buys(sc, faction: str) -> tuple[str, ...]:
    game = reference.Game(reference.Campaign(sc), *(random.Random(k) for k in range(3)))
    game.me.items = [0] * len(game.me.items)
    game.trade(faction)
    names = list(sc.ruleset.items)
    return tuple(n for n in SHOPPING if game.me.items[names.index(n)])


@pytest.mark.parametrize("faction", sorted(BY_HAND))
def test_each_base_sells_its_own_items(faction):
    """Z-05, Z-11 under ``economy.shops = "per_base"`` (the default): the kernel and the
    reference buy at each base exactly what its faction sells."""
    sc = _scenario("per_base")
    assert _kernel_buys(sc, faction) == BY_HAND[faction]
    assert _reference_buys(sc, faction) == BY_HAND[faction]


@pytest.mark.parametrize("faction", sorted(BY_HAND))
def test_every_base_sells_every_item_under_the_other_reading(faction):
    sc = _scenario("every_base")
    assert _kernel_buys(sc, faction) == SHOPPING
    assert _reference_buys(sc, faction) == SHOPPING


def test_the_shops_differ_by_base():
    """Guard: the bases' lists differ from one another and from the whole list, so the
    checks above can fail."""
    assert len(set(BY_HAND.values())) == len(BY_HAND)
    assert all(bought != SHOPPING for bought in BY_HAND.values())


def test_the_helicopter_call_is_sold_at_the_military_base_only():
    """Z-05 (seed): the base set's Helicopter call names the Military base alone."""
    assert load_ruleset().items["Helicopter call"].sellers == ("military",)


def test_a_bad_seller_is_refused_naming_file_and_column(tmp_path):
    import shutil

    from sim.paths import bundled_ruleset

    folder = tmp_path / "rules"
    shutil.copytree(bundled_ruleset(), folder)
    path = folder / "items.csv"
    path.write_text(path.read_text().replace(",duty-freedom,", ",duty-monolith,"))
    with pytest.raises(RulesetError) as err:
        load_ruleset(folder)
    text = str(err.value)
    assert "items.csv" in text and "sold_at" in text and "monolith" in text


def test_reference_agrees_with_kernel_when_every_base_sells_every_item(tmp_path):
    """The kernel against the reference over whole games of the base scenario under
    ``economy.shops = "every_base"`` (|z| < Z_TOL)."""
    body = scenario_path("base").read_text(encoding="utf-8").split("[targets]")[0].replace(
        'ruleset = "base"', "")
    path = scenario(tmp_path, "every_base", {'shops = "per_base" ': 'shops = "every_base" '},
                    body)
    assert_agrees(z_scores(path))
