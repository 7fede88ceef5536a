"""The Helicopter call (Z-04, Z-05; issue 27, item 2.5).

Z-04: used once; Z-05: bought only at the Military base
(tests/kernels/campaign/test_shops.py), it takes the
stalker back to the Military base and nowhere else, and it returns to the deck after use, so
it can be bought again. When to call it is the player's choice (Gap "Helicopter call"), the
policy key ``policy.helicopter_at``: at the start of his turn, at that Health or less (0,
the default: never). The flight is the day's movement (assumption); he trades there. The
kernel's rule (:func:`sim.kernels.campaign.trade.helicopter`) and the reference's
(:meth:`sim.reference.campaign.Game.helicopter`) are checked on hand-made states, and agree
over whole games of stalkers who carry and buy calls.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from sim.campaign.compile import compile_campaign
from sim.kernels import campaign as K
from sim.kernels.campaign.trade import helicopter, trade
from sim.reference import campaign as reference
from sim.rules.scenario import load_scenario, scenario_path
from tests.kernels.campaign.test_campaign_reference import (
    assert_agrees,
    assert_disagrees,
    scenario,
    z_scores,
)


def _scenario(helicopter_at: int, items=("Helicopter call", "Medkit")):
    sc = load_scenario(scenario_path("base"))
    policy = dataclasses.replace(sc.policy, helicopter_at=helicopter_at,
                                 shopping=("Army medkit",))
    return dataclasses.replace(sc, items=items, policy=policy, rubles=1000)


def _hex(sc, name: str) -> int:
    return next(i for i, h in enumerate(sc.ruleset.map.hexes) if h.name == name)


def _kernel(sc, pos: int, health: int):
    arrays = compile_campaign(sc)
    st = np.zeros(K.S_SIZE, dtype=np.int64)
    st[K.S_POS], st[K.S_HEALTH], st[K.S_RUBLES] = pos, health, sc.rubles
    items = arrays.it[:, K.I_START].copy()
    flew = helicopter(st, arrays.cp, items, arrays.item_order)
    if flew:  # the turn then visits the base he landed at (game.py: movement.at_base)
        trade(st, arrays.cp, items, arrays.it, arrays.shopping, K.FACTION_MILITARY)
    return bool(flew), int(st[K.S_POS]), int(st[K.S_RUBLES]), items.tolist()


def _reference(sc, pos: int, health: int):
    game = reference.Game(reference.Campaign(sc), *(random.Random(k) for k in range(3)))
    game.me.pos, game.me.health = pos, health
    flew = game.helicopter()
    return flew, game.me.pos, game.me.rubles, list(game.me.items)


@pytest.mark.parametrize(("helicopter_at", "health", "flies"), [
    (0, 1, False), (2, 3, False), (2, 2, True), (5, 1, True)])
def test_the_call_flies_him_to_the_military_base_at_its_threshold(helicopter_at, health, flies):
    """Z-04, Z-05: at Health <= ``helicopter_at`` (> 0) the card is used up and he is at the
    Military base, where he buys an Army medkit (600 of his 1,000 rubles; Z-11: sold
    there); otherwise nothing happens. Kernel and reference alike."""
    sc = _scenario(helicopter_at)
    names = list(sc.ruleset.items)
    cordon, military = _hex(sc, "Cordon"), _hex(sc, "Military base")
    start = [sc.items.count(n) for n in names]
    want_items = list(start)
    if flies:
        want_items[names.index("Helicopter call")] -= 1
        want_items[names.index("Army medkit")] += 1
    want = (flies, military if flies else cordon, 400 if flies else 1000, want_items)
    assert _kernel(sc, cordon, health) == want
    assert _reference(sc, cordon, health) == want


def test_no_call_without_the_card_or_at_the_military_base():
    sc = _scenario(3, items=("Medkit",))
    cordon = _hex(sc, "Cordon")
    assert _kernel(sc, cordon, 1)[0] is False and _reference(sc, cordon, 1)[0] is False
    sc = _scenario(3)
    military = _hex(sc, "Military base")
    assert _kernel(sc, military, 1)[0] is False and _reference(sc, military, 1)[0] is False


def test_the_check_sees_a_call_that_does_nothing():
    """Guard: a state where the call flies differs from one where it does not."""
    sc = _scenario(2)
    cordon = _hex(sc, "Cordon")
    assert _kernel(sc, cordon, 2) != _kernel(sc, cordon, 3)


HELICOPTER_BODY = ('stalker = "Strelok"\nstart = "Cordon"\n[loadout]\narmor = "Stalker suit"\n'
                   'weapons = ["SVD sniper rifle", "Knife"]\n'
                   'items = ["Helicopter call", "Helicopter call", "Medkit", "Stimulant"]\n'
                   'rubles = 6000\n'
                   '[policy]\nhelicopter_at = 3\nretreat_at = 0\n'
                   'shopping = ["Helicopter call", "Army medkit", "Medkit"]\n')
"""Stalkers who call the helicopter at Health 3, never retreat, and buy calls back."""


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    return scenario(tmp_path_factory.mktemp("helicopter"), "helicopter", body=HELICOPTER_BODY)


def test_reference_agrees_with_kernel_over_games_with_calls(path):
    assert_agrees(z_scores(path))


class NeverCalls(reference.Game):
    """Z-05 ignored: the stalker never calls the helicopter."""

    def helicopter(self):
        return False


def test_a_reference_that_never_calls_is_caught(path):
    """Guard: 250 reference games keep the largest |z| at 8.2 (rubles spent; 31.9 at 3,000
    games, the count before)."""
    assert_disagrees(z_scores(path, NeverCalls, 250))
