"""Cards of the campaign: the best item card held, a draw from a shared deck.

Two small parts that several phases call: the choice of the best item of an
effect (Z-02, Z-10, Z-17: movement, event and escape items, medkits) and a
uniform draw from the cards left in a shared deck (enemies, anomalies and
events of :mod:`.zone` and :mod:`.movement`, artefacts of the Ecologists'
exchange in :mod:`.trade`).
"""

from __future__ import annotations

from sim.kernels import rng
from sim.kernels.campaign import HAB_ANY, part


@part
def _best_item(items, item_order, effect):
    """Index of the held item of ``effect`` with the highest value (-1: none; Z-02, Z-10, Z-17).

    ``item_order[effect]`` lists the item cards of that effect by value, highest
    first (the first card among equals), then -1: the first one held is the best.
    """
    for k in range(item_order.shape[1]):
        i = item_order[effect, k]
        if i < 0:
            return -1
        if items[i] > 0:
            return i
    return -1


@part
def _draw_card(deck_state, pool, habitat, want):
    """Draw one card uniformly from those left in ``pool`` that suit habitat ``want``.

    ``want < 0`` accepts every card (``habitat`` is then not read). Drawing
    uniformly among the suitable cards is the same as drawing from the
    shuffled deck until one suits and returning the others (Gap: what happens
    to unsuitable cards). The card leaves the pool; -1 when none is left.
    """
    total = 0
    if want < 0:  # a plain sum, which LLVM vectorises
        for c in range(pool.shape[0]):
            total += pool[c]
    else:
        for c in range(pool.shape[0]):
            if habitat[c] == HAB_ANY or habitat[c] == want:
                total += pool[c]
    if total == 0:
        return -1
    j = rng.below(deck_state, total)
    for c in range(pool.shape[0]):
        if want < 0 or habitat[c] == HAB_ANY or habitat[c] == want:
            if j < pool[c]:
                pool[c] -= 1
                return c
            j -= pool[c]
    return -1
