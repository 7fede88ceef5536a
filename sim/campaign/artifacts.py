"""Artefact tables of one campaign slot (P-07..P-12, P-34, P-35; Z-20).

A character's *artefact slots* are the artefacts his loadout carries, then the
names his policy keeps when found or exchanged (docs/rules.md "Artefacts in
the campaign"). Which slots he holds is a bit mask, kept in the kernel's
belongings mask above the weapon bits, so the per-mask fight tables of
:mod:`sim.campaign.compile` cover artefacts as they cover weapons. This module
resolves the slots and writes the tables the day loop reads besides the
fights: the packed records of the held artefacts against each damage type
(anomalies, events, Emissions, daily use and movement), and the artefact
cards a find or an exchange can give.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from sim.encounter.anomaly import artifact_deck
from sim.encounter.artifact import (
    artifact_rules,
    compile_artifacts,
    pack_records,
)
from sim.kernels import campaign as K
from sim.kernels.layout import AF_SIZE, AF_USE_AT
from sim.rules import DAMAGE_TYPES, Ruleset
from sim.rules.scenario import MAX_CAMPAIGN_ARTIFACTS, Scenario, gear_artifacts

DTYPES = (*DAMAGE_TYPES, "none")
"""Rows of the ``art_rec`` table: one per damage type, then no damage (daily use, movement)."""

RECORDS = MAX_CAMPAIGN_ARTIFACTS * AF_SIZE
"""Width of the artefact records after a params header (fights, anomalies)."""


def artifact_slots(scenario: Scenario) -> tuple[str, ...]:
    """The loadout's artefacts, then the kept names not already carried, then the artefacts
    ``policy.shopping_gear`` buys not already there (slot order; P-13).

    At most :data:`~sim.rules.scenario.MAX_CAMPAIGN_ARTIFACTS`, as the scenario's
    validation (:func:`sim.rules.scenario.carry_problems`) ensures.
    """
    slots = tuple(scenario.artifacts)
    slots += tuple(n for n in dict.fromkeys(scenario.policy.keep_artifacts) if n not in slots)
    return slots + tuple(n for n in gear_artifacts(scenario.ruleset, scenario.policy.shopping_gear)
                         if n not in slots)


def held(slots: tuple[str, ...], mask: int) -> tuple[str, ...]:
    """The slots held under artefact bit mask ``mask``, in slot order."""
    return tuple(name for j, name in enumerate(slots) if mask >> j & 1)


def with_use(table: np.ndarray, base: int, slots: tuple[str, ...],
             use: tuple[tuple[str, int], ...], shift: int = 0) -> np.ndarray:
    """``table`` (packed encounters, a row per belongings mask) with ``policy.artifact_use``
    written into its artefact records (``AF_USE_AT``, P-08).

    Row ``m`` holds the artefacts of slot mask ``m >> shift`` (the bits above the weapons'
    ``shift``), its records from ``base`` in slot order (:func:`held`), as
    :func:`sim.encounter.artifact.pack_records` packs them; a record a row does not hold is
    padding no kernel reads. Without ``use`` the table itself is returned (shared, read-only:
    the tables of a search's candidates that differ in other keys are one).
    """
    if not use:
        return table
    out, wanted = table.copy(), dict(use)
    for m in range(out.shape[0]):
        for i, name in enumerate(held(slots, m >> shift)):
            if name in wanted:
                out[m, ..., base + i * AF_SIZE + AF_USE_AT] = wanted[name]
    return out


def allowed(rs: Ruleset, mask: int) -> bool:
    """Whether ``mask`` holds no more artefacts than ``artifacts.carry_limit`` allows."""
    return rs.may_carry(bin(mask).count("1"))


def intellect(scenario: Scenario) -> int:
    """The Intellect of the scenario's stalker: the pool of activation tests (P-10)."""
    return scenario.ruleset.stalkers[scenario.stalker].intellect


def movement_bonuses(rs: Ruleset, slots: tuple[str, ...], item_bonuses: list[int]) -> list[int]:
    """Every movement bonus a day can have: the best item with the movement artefacts (Z-20).

    Under ``artifacts.movement_stacks`` artefacts that work add to the best
    movement item; otherwise the larger of the two counts.
    """
    values = [rs.artifacts[n].value for n in slots if rs.artifacts[n].effect == "movement"]
    sums = {sum(c) for k in range(len(values) + 1) for c in combinations(values, k)}
    stacks = bool(rs.rules.artifacts.movement_stacks)
    return sorted({(i + s) if stacks else max(i, s) for i in item_bonuses for s in sums})


EXCHANGE_DRAWS = {"random": K.EXCHANGE_RANDOM, "cheapest": K.EXCHANGE_CHEAPEST,
                  "dearest": K.EXCHANGE_DEAREST}


def artifact_keys(scenario: Scenario) -> dict[str, int]:
    """The kernel's ``C_*`` values of the ``[artifacts]`` readings; the keys and policy
    values it copies unchanged are :func:`sim.campaign.compile.plain_copies`.
    """
    rules = artifact_rules(scenario.ruleset)
    return dict(
        C_ART_FAIL=rules.fail_rule, C_RESIST_ORDER=rules.resist_order,
        C_RESTORE_USES=rules.restore_uses,
        C_EXCHANGE_DRAW=EXCHANGE_DRAWS[scenario.ruleset.rules.artifacts.exchange_draw],
    )


def artifact_tables(scenario: Scenario, slots: tuple[str, ...]) -> dict:
    """The slot's ``art_rec``, ``art_n``, ``art_cards`` and ``art_identity`` tables.

    ``art_rec[m, d]`` holds the packed records (``AF_*``) of the artefacts
    held under mask ``m`` as they act against damage type ``DTYPES[d]`` (a
    resist artefact only against its own type), the first
    ``artifacts.use_limit`` of them in an encounter, all of them in the row
    ``none`` (a day's use, movement); ``art_n[m, d]`` their number.
    ``art_cards`` has a row per artefact card (``AC_*``): its type's index in
    the deck, price, printed count and the slot that keeps it (-1: sold when
    found). ``art_identity[t]`` is 1 when a kept name has type ``t``, so a
    find of that type draws which card it is (P-35).
    """
    rs = scenario.ruleset
    types, _ = artifact_deck(rs)
    pool = intellect(scenario)
    n_masks = 1 << len(slots)
    use = dict(scenario.policy.artifact_use)  # P-08, when each is used
    rec = np.zeros((n_masks, len(DTYPES), RECORDS), dtype=np.int64)
    count = np.zeros((n_masks, len(DTYPES)), dtype=np.int64)
    for mask in range(n_masks):
        if not allowed(rs, mask):
            continue
        for d, damage_type in enumerate(DTYPES):
            names = held(slots, mask)
            if damage_type == "none":  # a day's use and movement: every held artefact
                specs = tuple(s for n in names for s in compile_artifacts(rs, [n], pool,
                                                                          use=use))
            else:  # an encounter: the first artifacts.use_limit held
                specs = compile_artifacts(rs, names, pool, damage_type, use)
            packed = pack_records(specs)
            rec[mask, d, :packed.shape[0]] = packed
            count[mask, d] = len(specs)
    keep = set(scenario.policy.keep_artifacts)
    cards = [(types.index(c.type), c.price, c.count,
              slots.index(name) if name in keep else -1)
             for name, c in rs.artifacts.items()]
    identity = np.zeros(max(len(types), 1), dtype=np.int64)
    for t, _, _, slot in cards:
        if slot >= 0:
            identity[t] = 1
    return {"art_rec": rec, "art_n": count,
            "art_cards": np.asarray(cards, dtype=np.int64).reshape(-1, K.AC_SIZE),
            "art_identity": identity}
