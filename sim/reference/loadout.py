"""The round's best weapons and combat artefacts within the hand limit (P-23, P-24, P-29),
in plain Python.

One statement of the loadout rule for the plain-Python references (the
combat enumeration and the campaign reference), read from the weapon cards
rather than from the compiled loadout tables. :func:`best_equipment` states the
choice with combat artefacts from the rules' text alone, as the independent twin of
``sim.encounter.loadout.best_with_artifacts`` (which the kernel's tables, the exact
twin and the combat reference share): every weapon and artefact is equipped or not,
and every such assignment within the hands is tried.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, product


def round_bonus(weapon, *, close: bool, melee_enemy: bool, long_range_divisor: int,
                short_range_full: bool, melee_weapons_vs_ranged: bool) -> int:
    """What ``weapon`` adds to a round's Combat pool (P-29); 0 when it cannot be used.

    Round 1 of a Melee-symbol fight, and every round of another fight, is ranged
    combat: long- and short-range weapons give their full bonus, melee weapons
    nothing (unless ``melee_weapons_vs_ranged`` against a non-Melee enemy). In
    close combat (``close``: a Melee enemy after round 1) long-range weapons give
    half their bonus rounded down (``bonus // long_range_divisor``), short-range
    ones too unless ``short_range_full``, melee weapons their full bonus.
    """
    if weapon.range == "melee":
        ok = close or (not melee_enemy and melee_weapons_vs_ranged)
        return weapon.bonus if ok else 0
    if close and (weapon.range == "long" or not short_range_full):
        return weapon.bonus // long_range_divisor  # rounded down (P-29)
    return weapon.bonus


def best_weapons(weapons: Sequence, uses: Sequence[int | None], *, close: bool,
                 melee_enemy: bool, hands: int, long_range_divisor: int,
                 short_range_full: bool, melee_weapons_vs_ranged: bool
                 ) -> tuple[int, tuple[int, ...]]:
    """The best Combat bonus of a round and the weapons that give it.

    Parameters
    ----------
    weapons : sequence
        Cards with ``bonus``, ``range`` and ``hands``.
    uses : sequence of int or None
        Uses left of each weapon (None: unlimited; 0: cannot be used).
    close : bool
        Close combat (a Melee enemy after round 1, P-29): long-range weapons
        give ``bonus // long_range_divisor``, short-range ones too unless
        ``short_range_full``, melee weapons their full bonus.
    melee_enemy, melee_weapons_vs_ranged : bool
        Melee weapons count only in close combat, or against a non-Melee
        enemy if ``melee_weapons_vs_ranged``.
    hands : int
        Hands available (P-23); hands-free weapons always count (P-24).

    Returns
    -------
    tuple
        ``(bonus, chosen weapon indices)``: every subset within the hands is
        tried; the largest bonus wins, then the one spending fewer limited
        uses, then the first found (smaller subsets first).
    """
    usable = []
    for i, weapon in enumerate(weapons):
        if uses[i] == 0:
            continue
        bonus = round_bonus(weapon, close=close, melee_enemy=melee_enemy,
                            long_range_divisor=long_range_divisor,
                            short_range_full=short_range_full,
                            melee_weapons_vs_ranged=melee_weapons_vs_ranged)
        if bonus > 0:
            usable.append((i, bonus))
    free = [u for u in usable if weapons[u[0]].hands == 0]
    handed = [u for u in usable if weapons[u[0]].hands > 0]
    best_key, best = None, ()
    for size in range(len(handed) + 1):
        for combo in combinations(handed, size):
            if sum(weapons[i].hands for i, _ in combo) > hands:
                continue
            chosen = (*free, *combo)
            key = (sum(b for _, b in chosen), -sum(uses[i] is not None for i, _ in chosen))
            if best_key is None or key > best_key:
                best_key, best = key, chosen
    return (best_key[0] if best_key else 0), tuple(i for i, _ in best)


def best_equipment(weapons: Sequence, uses: Sequence[int | None],
                   artifacts: Sequence[tuple[int, int]], *, close: bool, melee_enemy: bool,
                   hands: int, long_range_divisor: int, short_range_full: bool,
                   melee_weapons_vs_ranged: bool
                   ) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """The best nominal Combat pool bonus of a round from weapons and combat artefacts.

    P-23: before each round the stalker may use any items and artefacts whose
    hands total at most ``hands`` (2 in the rules); P-24: those needing no hands
    are used without limit; P-29: what a weapon gives in this round
    (:func:`round_bonus`). A combat artefact (P-08) adds its dice; the choice is
    made on those nominal dice (the Intellect test comes after, P-10).

    Parameters
    ----------
    weapons, uses
        As :func:`best_weapons` (a weapon with 0 uses left cannot be equipped).
    artifacts : sequence of (int, int)
        ``(dice, hands)`` of each combat artefact the stalker may use this round.
    close, melee_enemy, hands, long_range_divisor, short_range_full, melee_weapons_vs_ranged
        As :func:`best_weapons`.

    Returns
    -------
    tuple
        ``(bonus, weapon indices, artefact indices)``. Every assignment of each
        weapon and each artefact to equipped or not is tried; one is allowed when
        the hands of what it equips total at most ``hands`` and every weapon it
        equips adds to the pool (one that cannot be used this round, or has no
        uses left, adds nothing). The largest bonus wins, then the one
        spending fewer limited uses, then the one using fewer artefacts, then
        the first found.
    """
    bonuses = [0 if left == 0 else round_bonus(
        weapon, close=close, melee_enemy=melee_enemy, long_range_divisor=long_range_divisor,
        short_range_full=short_range_full, melee_weapons_vs_ranged=melee_weapons_vs_ranged)
        for weapon, left in zip(weapons, uses, strict=True)]
    best_key, best = None, (0, (), ())
    for worn in product((False, True), repeat=len(weapons) + len(artifacts)):
        chosen = tuple(i for i in range(len(weapons)) if worn[i])
        arts = tuple(k for k in range(len(artifacts)) if worn[len(weapons) + k])
        if any(bonuses[i] <= 0 for i in chosen):
            continue
        if sum(weapons[i].hands for i in chosen) + sum(artifacts[k][1] for k in arts) > hands:
            continue
        bonus = sum(bonuses[i] for i in chosen) + sum(artifacts[k][0] for k in arts)
        key = (bonus, -sum(uses[i] is not None for i in chosen), -len(arts))
        if best_key is None or key > best_key:
            best_key, best = key, (bonus, chosen, arts)
    return best
