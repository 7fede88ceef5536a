"""Which item a stalker uses: the best of each kind, one rule for every caller (Z-10, Z-17).

Items of one kind never add up (Z-02, Z-10, Z-17); only the best one acts.
The encounter compile steps, the campaign compile step and ``zonesim prob``
all choose it here.
"""

from __future__ import annotations

from collections.abc import Iterable

from sim.kernels.layout import AUTO_SHIFT


def event_shift(item) -> int:
    """Shift of an event item's avoid roll (Z-09): its value, or ``AUTO_SHIFT`` for ``auto``.

    The Torsion scanner (``auto``) avoids without a roll; its shift is larger
    than any rolled shift, so ranking items by shift is the one best-item rule
    of every caller (encounter commands, paired kernels, campaign).
    """
    return AUTO_SHIFT if item.value == "auto" else int(item.value)


def best_event_item(items: Iterable):
    """The event item that helps most (Z-10: items never add up); None if none given.

    The largest :func:`event_shift` wins; of equal ones, the first given.
    """
    chosen = [i for i in items if i.effect == "event_avoid"]
    if not chosen:
        return None
    return max(chosen, key=event_shift)


def best_escape_item(items: Iterable):
    """The escape item with the highest rating (Z-17: items never add up); None if none."""
    chosen = [i for i in items if i.effect == "escape"]
    return max(chosen, key=lambda i: int(i.value)) if chosen else None
