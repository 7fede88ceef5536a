"""Cards of the campaign: the best item card held, a draw from a shared deck, discards.

Small parts that several phases call: the choice of the best item of an
effect (Z-02, Z-10, Z-17: movement, event and escape items, medkits), a
uniform draw from the cards left in a shared deck (enemies, anomalies and
events of :mod:`.zone` and :mod:`.movement`, artefacts of the Ecologists'
exchange in :mod:`.trade`), and where discarded cards go: a killed enemy's
(``campaign.killed_enemies``: :func:`enemy_killed`, :func:`draw_enemy`,
:func:`sold_trophies`; P-19, P-26..P-28), an exchanged anomaly trophy's
(``campaign.anomaly_trophies``: :func:`handed_in`; P-34) and a sold
artefact's (``campaign.sold_artifacts``: :func:`sold_artifacts`; P-11).
"""

from __future__ import annotations

from sim.kernels import rng
from sim.kernels.campaign import (
    C_KILLED_ENEMIES,
    C_SOLD_ARTIFACTS,
    HAB_ANY,
    KILLED_AT_ONCE,
    KILLED_RESHUFFLE,
    KILLED_TROPHY_SOLD,
    KIND_STALKER,
    N_KIND,
    part,
)


@part
def best_item(items, item_order, effect):
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
def draw_card(deck_state, pool, habitat, want):
    """Draw one card uniformly from those left in ``pool`` that suit habitat ``want``.

    ``want < 0`` accepts every card (``habitat`` is then not read). Drawing
    uniformly among the suitable cards is the same as drawing from the
    shuffled deck until one suits and returning the others (Gap: what happens
    to unsuitable cards). The card leaves the pool; -1 when none is left.
    """
    n = pool.shape[0]
    total = 0
    if want < 0:  # a plain sum, which LLVM vectorises
        for c in range(n):
            total += pool[c]
    else:
        for c in range(n):
            total += pool[c] * ((habitat[c] == HAB_ANY) | (habitat[c] == want))
    if total == 0:
        return -1
    j = rng.below(deck_state, total)
    # The card drawn is the first whose running count passes j: the number of cards whose
    # running count is at most j, counted without a branch on the draw.
    seen = 0
    c = 0
    if want < 0:
        for k in range(n):
            seen += pool[k]
            c += seen <= j
    else:
        for k in range(n):
            seen += pool[k] * ((habitat[k] == HAB_ANY) | (habitat[k] == want))
            c += seen <= j
    pool[c] -= 1
    return c


@part
def draw_enemy(cp, deck_state, pool, discard, habitat, want):
    """Draw an enemy card suiting habitat ``want`` (``-1``: any); -1 when none is found.

    Under ``campaign.killed_enemies = "reshuffle_when_empty"`` a draw that
    finds no suitable card in the pool shuffles the discard pile (the killed
    cards, ``discard``) back into it and draws once more (P-19; Gap). A draw
    that still finds none draws nothing: the location entered stays empty
    (no encounter), the Zone phase lays no card (docs/rules.md "Campaign" 3, 5).
    """
    e = draw_card(deck_state, pool, habitat, want)
    if e < 0 and cp[C_KILLED_ENEMIES] == KILLED_RESHUFFLE:
        back = 0
        for c in range(pool.shape[0]):
            back += discard[c]
            pool[c] += discard[c]
            discard[c] = 0
        if back > 0:
            e = draw_card(deck_state, pool, habitat, want)
    return e


@part
def enemy_killed(cp, pool, discard, trophies, e):
    """Enemy card ``e`` was killed (P-19: the stalker takes it as a trophy): where the card goes.

    ``campaign.killed_enemies``: ``never`` out of the game; ``at_once`` back
    into the pool; ``reshuffle_when_empty`` onto the discard pile
    (:func:`draw_enemy`); ``trophy_sold`` into the stalker's trophies
    (``trophies``: his seat's row), back into the pool when sold
    (:func:`sold_trophies`). The trophy is counted by kind in every reading
    (``S_TROPHY_*``).
    """
    reading = cp[C_KILLED_ENEMIES]
    if reading == KILLED_AT_ONCE:
        pool[e] += 1
    elif reading == KILLED_RESHUFFLE:
        discard[e] += 1
    elif reading == KILLED_TROPHY_SOLD:
        trophies[e] += 1


@part
def sold_trophies(pool, trophies, en, mutants, stalkers):
    """Trophies sold at a base go back into the enemy pool (``trophy_sold``; P-26..P-28).

    ``mutants`` mutant and animal trophies (Duty, P-26, P-28) and ``stalkers``
    stalker trophies (Freedom, P-27) were sold; the cards handed in are the
    seat's trophy cards of those kinds, first cards of ``enemies.csv`` first
    (which cards a lot holds is not said; Gap). A trophy taken in the
    Sarcophagus has no card here; fewer cards than sold trophies return all.
    """
    for c in range(pool.shape[0]):
        if mutants == 0 and stalkers == 0:
            return
        if en[c, N_KIND] == KIND_STALKER:
            take = min(trophies[c], stalkers)
            stalkers -= take
        else:
            take = min(trophies[c], mutants)
            mutants -= take
        trophies[c] -= take
        pool[c] += take


@part
def handed_in(pool, trophies, n):
    """``n`` anomaly trophies exchanged go back into the anomaly pool (P-34).

    Under ``campaign.anomaly_trophies = "when_exchanged"``: ``trophies`` is the
    seat's anomaly part of its trophy row; the cards handed in are the first
    of anomalies.csv (which trophies a player hands in is not said; Gap).
    """
    for c in range(pool.shape[0]):
        if n == 0:
            return
        take = min(trophies[c], n)
        trophies[c] -= take
        pool[c] += take
        n -= take


@part
def sold_artifacts(cp, art_deck, waiting, sold):
    """The ``sold`` artefacts waiting to be sold were sold (P-11): their cards go back, or not.

    ``waiting`` counts by type (P-35) the cards gained and not kept; those
    beyond ``sold`` were lost on knock-outs (P-37 counts artefacts, not
    cards: the first types of the deck are taken as the lost ones) and do not
    return. Under ``campaign.sold_artifacts = "returned"`` the sold cards go
    back into the artefact deck (``art_deck``, by type); either way none waits
    any more.
    """
    lost = -sold
    for t in range(waiting.shape[0]):
        lost += waiting[t]
    for t in range(waiting.shape[0]):
        drop = min(waiting[t], max(lost, 0))
        lost -= drop
        if cp[C_SOLD_ARTIFACTS] != 0:
            art_deck[t] += waiting[t] - drop
        waiting[t] = 0
