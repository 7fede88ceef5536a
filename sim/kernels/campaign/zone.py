"""The Zone phase of the game day (P-30, P-47): new enemy and anomaly cards on the one board.

Once a day, after every stalker's turn, cards are drawn from the shared
decks and laid on random free locations suiting them; a card past the board
limit, and a change of the Environment, add tokens to the one Emission
Track (P-47). How many cards come, and whether the Environment changes, is
``zone.cards``: the per-day keys (``"per_day"``) or the Zone cards of
``zone.csv`` drawn from the Zone deck (``"deck"``).
"""

from __future__ import annotations

import numpy as np

from sim.kernels import rng
from sim.kernels.campaign import (
    C_ANOMALIES_PER_DAY,
    C_ANOMALY_LIMIT,
    C_ENEMIES_PER_DAY,
    C_ENEMY_LIMIT,
    C_ENVIRONMENT_CHANCE,
    C_TOKENS_ENVIRONMENT,
    C_TOKENS_LIMIT,
    C_ZONE_ANOMALIES,
    C_ZONE_COUNT,
    C_ZONE_DECK,
    C_ZONE_DRAWS,
    C_ZONE_ENEMIES,
    C_ZONE_ENVIRONMENT,
    C_ZONE_TOKENS,
    HAB_OPEN,
    HAB_SECRET,
    MAX_ZONE_CARDS,
    Z_BOARD_A,
    Z_BOARD_E,
    Z_ETOKENS,
    Z_ZONE_POOL,
    part,
)
from sim.kernels.campaign import tables as tb
from sim.kernels.campaign.cards import draw_card, draw_enemy


@part
def _place(env, board, placements, limit, on_board):
    """Pick a location for a new card: -1 past the board limit (P-47), -2 if none is free."""
    if on_board >= limit:
        return -1
    if placements.shape[0] == 0:
        return -2
    h = placements[rng.below(env, placements.shape[0])]
    return h if board[h] == 0 else -2


@part
def _lay_enemy(T, G, R, cp):
    """Draw an enemy card and lay it on a location of its habitat (P-47); False: none left.

    A card beyond ``zone.enemy_limit`` goes back and adds
    ``emission.tokens_per_limit`` tokens; a card whose location is taken goes
    back; a draw finding no card (:func:`.cards.draw_enemy`) lays nothing. ``cp`` is
    slot 0's header: the Zone's keys are the same in every slot.
    """
    zone, board, habitats = tb.zone(G), tb.board(G, cp), tb.habitats(G, cp)
    pool = tb.enemy_pool(G, cp)
    e = draw_enemy(cp, tb.deck(R), pool, tb.enemy_discard(G, cp), habitats, -1)
    if e < 0:  # no enemy card left (``campaign.killed_enemies``): none is laid
        return False
    places = tb.place_any(T, cp)
    if habitats[e] == HAB_OPEN:
        places = tb.place_open(T, cp)
    elif habitats[e] == HAB_SECRET:
        places = tb.place_secret(T, cp)
    h = _place(tb.env(R), board, places, cp[C_ENEMY_LIMIT], zone[Z_BOARD_E])
    if h >= 0:
        board[h] = e + 1
        zone[Z_BOARD_E] += 1
    else:
        pool[e] += 1
        if h == -1:
            zone[Z_ETOKENS] += cp[C_TOKENS_LIMIT]
    return True


@part
def _lay_anomaly(T, G, R, cp):
    """Draw an anomaly card and lay it on any location (P-30, P-47); False: none left.

    Past ``zone.anomaly_limit`` or on a taken location it goes back, as an enemy's.
    """
    zone, board, anomaly_pool = tb.zone(G), tb.board(G, cp), tb.anomaly_pool(G, cp)
    a = draw_card(tb.deck(R), anomaly_pool, anomaly_pool, -1)
    if a < 0:
        return False
    h = _place(tb.env(R), board, tb.place_any(T, cp), cp[C_ANOMALY_LIMIT], zone[Z_BOARD_A])
    if h >= 0:
        board[h] = -(a + 1)
        zone[Z_BOARD_A] += 1
    else:
        anomaly_pool[a] += 1
        if h == -1:
            zone[Z_ETOKENS] += cp[C_TOKENS_LIMIT]
    return True


@part
def deal_zone_deck(cp, zone):
    """Every Zone card back into the Zone deck (P-30, P-47): a count per kind, ``Z_ZONE_POOL``."""
    for k in range(MAX_ZONE_CARDS):
        zone[Z_ZONE_POOL + k] = cp[C_ZONE_COUNT + k]


@part
def _zone_card(cp, zone, stream):
    """The next Zone card's kind (P-30, P-47); -1 when the deck holds none at all.

    The deck is drawn without replacement (uniformly among the cards left: the
    top of a shuffled deck) from its own stream; when it runs out, every card
    is shuffled back in and the draw is made again (Gap: the texts say nothing
    of a Zone deck running out).
    """
    pool = zone[Z_ZONE_POOL:Z_ZONE_POOL + MAX_ZONE_CARDS]
    total = 0
    for k in range(MAX_ZONE_CARDS):
        total += pool[k]
    if total == 0:
        deal_zone_deck(cp, zone)
        for k in range(MAX_ZONE_CARDS):
            total += pool[k]
        if total == 0:
            return -1
    j = rng.below(stream, total)
    for k in range(MAX_ZONE_CARDS):
        if j < pool[k]:
            pool[k] -= 1
            return k
        j -= pool[k]
    return -1


@part
def zone_phase(T, G, R):
    """Zone phase: new enemy and anomaly cards on the board, Environment change (P-30, P-47).

    Under ``zone.cards = "per_day"`` the phase is one card made of the per-day
    keys: ``zone.enemies_per_day`` enemy cards, ``zone.anomalies_per_day``
    anomaly cards, and the Environment changes with
    ``zone.environment_change_chance``. Under ``"deck"`` ``zone.cards_per_phase``
    Zone cards are drawn (:func:`_zone_card`). Each card lays its enemy cards
    (:func:`_lay_enemy`), then its anomaly cards (:func:`_lay_anomaly`; when a
    deck has no card left, no more of its cards are laid for this card), changes
    the Environment (``emission.tokens_per_environment`` tokens) and adds its
    Emission tokens. These keys and the map are the same in every slot (slot 0's are
    read).
    """
    zone, cp = tb.zone(G), tb.slot(T, 0)
    deck = cp[C_ZONE_DECK] != 0
    for _ in range(cp[C_ZONE_DRAWS] if deck else 1):
        k = _zone_card(cp, zone, tb.zone_deck(R)) if deck else 0
        if k < 0:
            return
        for _ in range(cp[C_ZONE_ENEMIES + k] if deck else cp[C_ENEMIES_PER_DAY]):
            if not _lay_enemy(T, G, R, cp):
                break
        for _ in range(cp[C_ZONE_ANOMALIES + k] if deck else cp[C_ANOMALIES_PER_DAY]):
            if not _lay_anomaly(T, G, R, cp):
                break
        if deck:
            changes = cp[C_ZONE_ENVIRONMENT + k] != 0
            zone[Z_ETOKENS] += cp[C_ZONE_TOKENS + k]
        else:
            changes = (np.int64(rng.next_u64(tb.env(R)) >> np.uint64(2))
                       < cp[C_ENVIRONMENT_CHANCE])
        if changes:
            zone[Z_ETOKENS] += cp[C_TOKENS_ENVIRONMENT]
