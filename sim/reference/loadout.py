"""The round's best weapons within the hand limit (P-23, P-24, P-29), in plain Python.

One statement of the loadout rule for the plain-Python references (the
combat enumeration and the campaign reference), read from the weapon cards
rather than from the compiled loadout tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations


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
        if weapon.range == "melee":
            ok = close or (not melee_enemy and melee_weapons_vs_ranged)
            bonus = weapon.bonus if ok else 0
        elif close and (weapon.range == "long" or not short_range_full):
            bonus = weapon.bonus // long_range_divisor  # rounded down (P-29)
        else:
            bonus = weapon.bonus
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
