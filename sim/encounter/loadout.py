"""Choosing the loadout for each combat round (P-23, P-24, P-29).

Before every round the stalker equips weapons totalling at most ``hands``
hands (P-23; hands-free cards are unlimited, P-24) so as to maximise the
Combat-test pool. What a weapon gives depends on the round against a Melee
enemy (P-29): round 1 is ranged combat (long and short full, melee unusable);
from round 2 long-range weapons give half their bonus rounded down, short-range
weapons ``short_range_close_combat`` (default full, Gap) and melee weapons
their full bonus.

Combat artefacts (P-08, P-23) compete for the same hands: each is a
``(record index, dice, hands)`` choice whose nominal dice count like a
weapon's bonus; the choice is made on nominal dice (an activated artefact may
still fail its Intellect test, P-10), and ties keep artefacts unused.

Limited-use weapons (grenades) are spent when used; the best selection is
tabulated here for every combination of limited weapons still available and
of combat artefacts the stalker is willing to use (best play may leave one
unused, P-08), so kernels look the choice up instead of searching it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import combinations

from sim.kernels.layout import SPEND_ART_SHIFT

FIRST_ROUND = 0
LATER_ROUNDS = 1


@dataclass(frozen=True)
class WeaponSlot:
    """One weapon card in a loadout (copies are separate slots)."""

    name: str
    bonus: int
    hands: int
    range: str
    uses: int | None  # None: unlimited


@dataclass(frozen=True)
class CloseCombatRules:
    """Rule parameters of P-29 that the seeds leave open (ruleset ``[combat]`` keys)."""

    melee_enemy: bool
    hands: int = 2
    long_range_divisor: int = 2
    short_range_full: bool = True
    melee_weapons_vs_ranged: bool = False


def effective_bonus(slot: WeaponSlot, phase: int, rules: CloseCombatRules) -> int | None:
    """Bonus of ``slot`` in a round phase, or None when it cannot be used (P-29)."""
    close = rules.melee_enemy and phase == LATER_ROUNDS
    if slot.range == "melee":
        usable = close or (not rules.melee_enemy and rules.melee_weapons_vs_ranged)
        return slot.bonus if usable else None
    if slot.range == "long" and close:
        return slot.bonus // rules.long_range_divisor
    if slot.range == "short" and close and not rules.short_range_full:
        return slot.bonus // rules.long_range_divisor
    return slot.bonus


def best_selection(slots: list[WeaponSlot], available: set[int], phase: int,
                   rules: CloseCombatRules) -> tuple[int, tuple[int, ...]]:
    """Best (bonus, chosen slot indices) among ``available`` slots within the hand limit.

    Ties prefer the selection that spends fewer limited-use weapons, then the
    one listed first, so limited weapons are kept when they add nothing.
    """
    usable = [i for i in sorted(available) if effective_bonus(slots[i], phase, rules) is not None
              and effective_bonus(slots[i], phase, rules) > 0]
    free = [i for i in usable if slots[i].hands == 0]
    handed = [i for i in usable if slots[i].hands > 0]
    best_key, best = None, ()
    for size in range(len(handed) + 1):
        for combo in combinations(handed, size):
            if sum(slots[i].hands for i in combo) > rules.hands:
                continue
            chosen = tuple(sorted((*free, *combo)))
            bonus = sum(effective_bonus(slots[i], phase, rules) for i in chosen)
            spent = sum(slots[i].uses is not None for i in chosen)
            key = (bonus, -spent)
            if best_key is None or key > best_key:
                best_key, best = key, chosen
    return (0 if best_key is None else best_key[0]), best


def best_with_artifacts(slots: list[WeaponSlot], available: set[int], phase: int,
                        rules: CloseCombatRules, artifacts: tuple = ()
                        ) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """Best (weapon bonus, weapon slots, artefact records) within the hand limit (P-23).

    Every subset of the combat artefacts (``(record, dice, hands)``) is tried
    with the best weapons for the hands it leaves; the largest nominal pool
    bonus wins, then fewer limited-use weapons spent, then fewer artefacts.
    """
    best_key, best = None, (0, (), ())
    for size in range(len(artifacts) + 1):
        for combo in combinations(artifacts, size):
            left = rules.hands - sum(hands for _, _, hands in combo)
            if left < 0:
                continue
            bonus, chosen = best_selection(slots, available, phase, replace(rules, hands=left))
            spent = sum(slots[i].uses is not None for i in chosen)
            key = (bonus + sum(dice for _, dice, _ in combo), -spent)
            if best_key is None or key > best_key:
                best_key, best = key, (bonus, chosen, tuple(rec for rec, _, _ in combo))
    return best


@dataclass(frozen=True)
class LoadoutTable:
    """Per-round loadout lookup for a kernel.

    Attributes
    ----------
    limited : tuple of int
        Slot index of each limited-use weapon (bit ``j`` of a mask is limited
        weapon ``j``; bit ``len(limited) + k`` is combat artefact ``k``).
    uses : tuple of int
        Uses of each limited-use weapon at the start of the fight.
    bonus : tuple of tuple of int
        ``bonus[phase][mask]``: pool bonus when the limited weapons in ``mask``
        still have uses and the combat artefacts in ``mask`` may be used (the
        threshold policy allows every combat artefact: :meth:`every_artifact`).
    spend : tuple of tuple of int
        ``spend[phase][mask]``: mask of limited weapons spent by that choice.
    slots : tuple of WeaponSlot
        The weapons the table was built from.
    rules : CloseCombatRules
        The P-29 parameters the table was built with.
    artifacts : tuple of (int, int, int)
        The combat artefacts considered, ``(record, dice, hands)``; the
        records chosen are the bits of ``spend`` from ``SPEND_ART_SHIFT`` up,
        and ``bonus`` holds the weapons' part only.
    """

    slots: tuple[WeaponSlot, ...]
    rules: CloseCombatRules
    limited: tuple[int, ...]
    uses: tuple[int, ...]
    bonus: tuple[tuple[int, ...], ...]
    spend: tuple[tuple[int, ...], ...]
    artifacts: tuple[tuple[int, int, int], ...] = ()

    @property
    def every_artifact(self) -> int:
        """The mask bits of every combat artefact (the threshold policy uses them all)."""
        return ((1 << len(self.artifacts)) - 1) << len(self.limited)


def tabulate(slots: list[WeaponSlot], rules: CloseCombatRules,
             artifacts: tuple[tuple[int, int, int], ...] = ()) -> LoadoutTable:
    """Tabulate the best selection for both phases and every availability mask.

    The table depends only on these inputs, all immutable, and a campaign
    compiles the same fights for every variant of a lever screen, sweep or
    tuning run (each enemy card with each set of weapons held): tables are
    remembered (the last 4,096), and a remembered one is the same object,
    which nothing changes.
    """
    return _tabulate(tuple(slots), rules, tuple(artifacts))


@lru_cache(maxsize=4096)
def _tabulate(slots: tuple[WeaponSlot, ...], rules: CloseCombatRules,
              artifacts: tuple[tuple[int, int, int], ...]) -> LoadoutTable:
    """:func:`tabulate`'s work, remembered."""
    limited = tuple(i for i, s in enumerate(slots) if s.uses is not None)
    unlimited = {i for i, s in enumerate(slots) if s.uses is None}
    n_limited = len(limited)
    bonus, spend = [], []
    for phase in (FIRST_ROUND, LATER_ROUNDS):
        row_bonus, row_spend = [], []
        for mask in range(1 << (n_limited + len(artifacts))):
            available = unlimited | {limited[j] for j in range(n_limited) if mask >> j & 1}
            allowed = tuple(a for k, a in enumerate(artifacts) if mask >> (n_limited + k) & 1)
            value, chosen, arts = best_with_artifacts(slots, available, phase, rules, allowed)
            row_bonus.append(value)
            row_spend.append(sum(1 << j for j, i in enumerate(limited) if i in chosen)
                             + sum(1 << (SPEND_ART_SHIFT + rec) for rec in arts))
        bonus.append(tuple(row_bonus))
        spend.append(tuple(row_spend))
    return LoadoutTable(tuple(slots), rules, limited, tuple(slots[i].uses for i in limited),
                        tuple(bonus), tuple(spend), tuple(artifacts))
