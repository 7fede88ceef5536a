"""Walking to the Duty base to sell mutant trophies (P-26, P-28; ``policy.sell_trophies_at``).

Duty buys mutant and animal trophies, in lots, at its base only (P-26, P-28); on base the
route to the Secret Complexes never passes it, so without a decision to go there no trophy
is ever sold (issue 25). ``sell_trophies_at`` > 0 is that decision: holding at least that
many and a lot, the stalker's next objective is the Duty base (after a retreat to a bunker,
before the Secret Complexes), where he sells on arrival. The kernel
(:func:`sim.kernels.campaign.movement._target`) and the reference
(:meth:`sim.reference.campaign.Game.sells_trophies`) agree over whole games, a reference
that never walks there is caught, and 0 keeps today's tables.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.campaign.compile import compile_campaign
from sim.reference import campaign as reference
from sim.rules.scenario import load_scenario
from tests.kernels.campaign.test_campaign_reference import (
    TRADER_BODY,
    TRADER_RULES,
    assert_agrees,
    assert_disagrees,
    scenario,
    z_scores,
)


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    return scenario(tmp_path_factory.mktemp("trophies"), "seller", TRADER_RULES,
                    TRADER_BODY + "sell_trophies_at = 2\n")


def test_reference_agrees_with_kernel_over_games_that_walk_to_sell(path):
    assert_agrees(z_scores(path))


class NeverSells(reference.Game):
    """P-26 ignored: the stalker never walks to the Duty base to sell."""

    def sells_trophies(self):
        return False


def test_a_reference_that_never_walks_to_sell_is_caught(path):
    """Guard: 250 reference games keep the largest |z| at 52.3 (trophy rubles; 165.3 at
    3,000 games, the count before)."""
    assert_disagrees(z_scores(path, NeverSells, 250))


def test_selling_adds_the_duty_base_as_the_last_target_and_zero_changes_nothing():
    base = load_scenario("base")
    never = compile_campaign(base)
    seller = compile_campaign(dataclasses.replace(
        base, policy=dataclasses.replace(base.policy, sell_trophies_at=5)))
    duty = next(h.name for h in base.ruleset.map.hexes if h.faction == "duty")
    names = [h.name for h in base.ruleset.map.hexes]
    assert seller.target_hex[-1] == names.index(duty)
    assert len(seller.target_hex) == len(never.target_hex) + 1
    assert np.array_equal(seller.target_hex[:-1], never.target_hex)
    assert np.array_equal(seller.day_table[:, :-1], never.day_table)
