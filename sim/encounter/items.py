"""Which item a stalker uses: the best of each kind, one rule for every caller (Z-10, Z-17).

Items of one kind never add up (Z-02, Z-10, Z-17); only the best one acts.
The encounter compile steps, the campaign compile step and ``zonesim prob``
all choose it here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sim.kernels.layout import AUTO_SHIFT


def event_shift(item) -> int:
    """Shift of an event item's avoid roll (Z-09): its value, or ``AUTO_SHIFT`` for ``auto``.

    The Torsion scanner (``auto``) avoids without a roll; its shift is larger
    than any rolled shift, so ranking items by shift is the one best-item rule
    of every caller (encounter commands, paired kernels, campaign).
    """
    return AUTO_SHIFT if item.value == "auto" else int(item.value)


def worth(item) -> int:
    """How much an item helps within its kind, the measure every best-item choice ranks by:
    an event item's :func:`event_shift` (Z-09), otherwise its value (0 for none).
    """
    return event_shift(item) if item.effect == "event_avoid" else int(item.value or 0)


def best_first(worths: Sequence[int]) -> list[int]:
    """Positions of ``worths``, the best first (Z-02, Z-10, Z-17: items never add up, the best
    one acts): the highest first, of equal ones the first given. The one ranking of the
    encounter compile steps, ``zonesim prob`` and the campaign's ``item_order``.
    """
    return sorted(range(len(worths)), key=lambda k: -worths[k])


def _best(items: Iterable, effect: str):
    chosen = [i for i in items if i.effect == effect]
    return chosen[best_first([worth(i) for i in chosen])[0]] if chosen else None


def best_event_item(items: Iterable):
    """The event item that helps most (Z-10: items never add up); None if none given.

    The largest :func:`event_shift` wins; of equal ones, the first given.
    """
    return _best(items, "event_avoid")


def best_escape_item(items: Iterable):
    """The escape item with the highest rating (Z-17: items never add up); None if none."""
    return _best(items, "escape")
