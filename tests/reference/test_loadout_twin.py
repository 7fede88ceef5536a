"""The loadout choice with combat artefacts against its independent twin (P-23, P-24, P-29).

``sim.encounter.loadout.tabulate`` (built on ``best_with_artifacts``) gives the table the
combat kernel, the exact twin and the combat reference all read. Its twin,
:func:`sim.reference.loadout.best_equipment`, is written from the rules' text: every
weapon and combat artefact equipped or not, every assignment within the hands tried. On
random loadouts, for both round phases and every mask of limited weapons still held and
combat artefacts allowed (bit ``len(limited) + k`` is artefact ``k``), the table's choice
must be a legal loadout with the twin's pool bonus, and spend as few limited uses and
artefacts as the twin's (the documented ties). Guards: a table that ignores the hand
limit, or the hands an artefact needs, is caught.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.encounter.loadout import (
    FIRST_ROUND,
    LATER_ROUNDS,
    CloseCombatRules,
    LoadoutTable,
    WeaponSlot,
    tabulate,
)
from sim.kernels.layout import SPEND_ART_SHIFT
from sim.reference.loadout import best_equipment

SHOTGUN = WeaponSlot("Shotgun", 3, 2, "short", None)
GRENADE = WeaponSlot("Grenade", 2, 1, "short", 1)
KNIFE = WeaponSlot("Knife", 1, 1, "melee", None)
RIFLE = WeaponSlot("Rifle", 4, 2, "long", None)
PISTOL = WeaponSlot("Pistol", 1, 1, "short", None)


def disagreements(table: LoadoutTable, rules: CloseCombatRules,
                  artifacts: tuple[tuple[int, int, int], ...]) -> list[str]:
    """Every phase and mask where ``table`` and the twin (under ``rules`` and the
    ``(record, dice, hands)`` ``artifacts``) disagree, described."""
    slots, limited = table.slots, table.limited
    found = []
    for phase in (FIRST_ROUND, LATER_ROUNDS):
        close = rules.melee_enemy and phase == LATER_ROUNDS
        for mask in range(1 << (len(limited) + len(artifacts))):
            held = {limited[j] for j in range(len(limited)) if mask >> j & 1}
            uses = [None if s.uses is None else int(i in held) for i, s in enumerate(slots)]
            allowed = [a for k, a in enumerate(artifacts) if mask >> (len(limited) + k) & 1]
            bonus, weapons, arts = best_equipment(
                slots, uses, [(dice, hands) for _, dice, hands in allowed], close=close,
                melee_enemy=rules.melee_enemy, hands=rules.hands,
                long_range_divisor=rules.long_range_divisor,
                short_range_full=rules.short_range_full,
                melee_weapons_vs_ranged=rules.melee_weapons_vs_ranged)
            spend = table.spend[phase][mask]
            spent = [limited[j] for j in range(len(limited)) if spend >> j & 1]
            used = [a for a in allowed if spend >> (SPEND_ART_SHIFT + a[0]) & 1]
            hands = sum(slots[i].hands for i in spent) + sum(h for _, _, h in used)
            total = table.bonus[phase][mask] + sum(dice for _, dice, _ in used)
            legal = set(spent) <= held and spend >> SPEND_ART_SHIFT == sum(
                1 << a[0] for a in used) and hands <= rules.hands
            twin = (bonus, sum(slots[i].uses is not None for i in weapons), len(arts))
            if not legal or (total, len(spent), len(used)) != twin:
                found.append(f"phase {phase} mask {mask:b}: table {total} spending {spent} "
                             f"with {used}, twin {bonus} with weapons {weapons} and {arts}")
    return found


weapon = st.builds(WeaponSlot, st.sampled_from(["W"]), st.integers(0, 4), st.integers(0, 2),
                   st.sampled_from(["long", "short", "melee"]),
                   st.one_of(st.none(), st.integers(1, 2)))
rules_strategy = st.builds(CloseCombatRules, st.booleans(), st.integers(1, 3),
                           st.integers(2, 3), st.booleans(), st.booleans())


@st.composite
def combat_artifacts(draw) -> tuple[tuple[int, int, int], ...]:
    """Up to three combat artefacts ``(record, dice, hands)``, records distinct."""
    n = draw(st.integers(0, 3))
    records = draw(st.lists(st.integers(0, 7), min_size=n, max_size=n, unique=True))
    return tuple((r, draw(st.integers(1, 3)), draw(st.integers(0, 2))) for r in records)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(weapon, min_size=0, max_size=5), rules_strategy, combat_artifacts())
def test_the_table_picks_the_twins_pool_bonus(slots, rules, artifacts):
    """P-23/P-24/P-29: on random loadouts the table's choice is the twin's, every mask."""
    table = tabulate(slots, rules, artifacts)
    assert disagreements(table, rules, artifacts) == []


def test_the_rules_examples():
    """P-23's example: a grenade and a knife together (1 hand each); a shotgun takes both
    hands, so with it nothing else that needs a hand. Close combat against a Melee enemy
    (P-29): the knife counts, the rifle gives half its bonus rounded down."""
    ranged = dict(close=False, melee_enemy=True, hands=2, long_range_divisor=2,
                  short_range_full=True, melee_weapons_vs_ranged=False)
    assert best_equipment([GRENADE, KNIFE], [1, None], [], **ranged) == (2, (0,), ())
    assert best_equipment([GRENADE, KNIFE], [1, None], [], **{**ranged, "close": True}) == \
        (3, (0, 1), ())
    assert best_equipment([SHOTGUN, GRENADE], [None, 1], [(1, 1)], **ranged)[0] == 3
    assert best_equipment([RIFLE, KNIFE], [None, None], [], **{**ranged, "close": True}) == \
        (2, (0,), ())  # 4 // 2 = 2 beats the knife's 1; both need 3 hands
    assert best_equipment([PISTOL], [None], [(2, 0)], **ranged) == (3, (0,), (0,))  # P-24


def test_a_table_ignoring_the_hand_limit_is_caught():
    """Guard: the shotgun with the grenade, or with a one-hand artefact, is three hands."""
    rules = CloseCombatRules(melee_enemy=True)
    slots, artifacts = [SHOTGUN, GRENADE, KNIFE], ((0, 2, 1),)
    assert disagreements(tabulate(slots, rules, artifacts), rules, artifacts) == []
    wrong = tabulate(slots, replace(rules, hands=9), artifacts)
    assert disagreements(wrong, rules, artifacts)


def test_a_table_treating_artifacts_as_hands_free_is_caught():
    """Guard: a two-hand artefact beside the rifle is over the limit (P-23 counts the hands
    of artefacts too)."""
    rules = CloseCombatRules(melee_enemy=False)
    artifacts = ((3, 2, 2),)
    wrong = tabulate([RIFLE], rules, ((3, 2, 0),))
    assert disagreements(tabulate([RIFLE], rules, artifacts), rules, artifacts) == []
    assert disagreements(wrong, rules, artifacts)
