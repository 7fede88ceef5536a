"""The campaign's plain copies are packed from the table of settings alone (issue 44).

``compile_campaign`` wrote each of the 44 parameters that copy a rule, policy or loadout
value unchanged by hand, beside the slot its setting names. Now the slot the table names
(:attr:`sim.rules.settings.Setting.slot`) is where the value goes, with no other line: a
new campaign policy key the kernel reads as it is needs its declaration, the kernel's read
and the reference twin's.
"""

from __future__ import annotations

import dataclasses

import pytest

from sim.campaign import compile as C
from sim.kernels import campaign as K
from sim.rules import settings
from sim.rules.scenario import load_scenario


@pytest.fixture(scope="module")
def scenario():
    """The base scenario with calm and purge thresholds that differ (P-08)."""
    sc = load_scenario("base")
    return dataclasses.replace(sc, policy=dataclasses.replace(sc.policy, calm_at=2,
                                                              purge_at=5))


def test_the_slot_a_setting_names_is_the_slot_its_value_fills(scenario, monkeypatch):
    by_name = settings.by_name()
    calm, purge = by_name["policy.calm_at"], by_name["policy.purge_at"]
    swapped = {calm.name: dataclasses.replace(calm, slot=purge.slot),
               purge.name: dataclasses.replace(purge, slot=calm.slot)}
    monkeypatch.setattr(C, "PLAIN_COPIES",
                        tuple(swapped.get(s.name, s) for s in C.PLAIN_COPIES))
    cp = C.compile_campaign(scenario).cp
    assert (cp[K.C_CALM_AT], cp[K.C_PURGE_AT]) == (5, 2)

