"""The Zone phase of the game day (P-47): new enemy and anomaly cards on the one board.

Once a day, after every stalker's turn, cards are drawn from the shared
decks and laid on random free locations suiting them; a card past the board
limit, and a change of the Environment, add tokens to the one Emission
Track (P-47).
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
    HAB_OPEN,
    HAB_SECRET,
    Z_BOARD_A,
    Z_BOARD_E,
    Z_ETOKENS,
    part,
)
from sim.kernels.campaign.cards import _draw_card, _draw_enemy


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
def _zone(tables, game):
    """Zone phase: new enemy and anomaly cards on the board, Environment change (P-47).

    Each day ``zone.enemies_per_day`` enemy cards and ``zone.anomalies_per_day``
    anomaly cards are drawn and laid on a random location suiting the card's
    habitat (anomalies: any location). A card beyond the board limit
    (``zone.enemy_limit``, ``zone.anomaly_limit``) is returned and adds
    ``emission.tokens_per_limit`` tokens; a card whose location is taken is
    returned; when the enemy deck has no card left (:func:`.cards._draw_enemy`)
    no more enemies are laid today. The Environment changes with ``zone.environment_change_chance``,
    adding ``emission.tokens_per_environment`` tokens. ``tables`` are the
    game's: these keys and the map are the same in every slot (slot 0's are read).
    """
    zone, cp, env, deck, board = game.zone, tables.cp[0], game.env, game.deck, game.board
    enemy_pool, anomaly_pool, habitats = game.enemy_pool, game.anomaly_pool, game.habitats
    for _ in range(cp[C_ENEMIES_PER_DAY]):
        e = _draw_enemy(cp, deck, enemy_pool, game.enemy_discard, habitats, -1)
        if e < 0:  # no enemy card left (``campaign.killed_enemies``): none is laid
            break
        places = tables.place_any[0]
        if habitats[e] == HAB_OPEN:
            places = tables.place_open[0]
        elif habitats[e] == HAB_SECRET:
            places = tables.place_secret[0]
        h = _place(env, board, places, cp[C_ENEMY_LIMIT], zone[Z_BOARD_E])
        if h >= 0:
            board[h] = e + 1
            zone[Z_BOARD_E] += 1
        else:
            enemy_pool[e] += 1
            if h == -1:
                zone[Z_ETOKENS] += cp[C_TOKENS_LIMIT]
    for _ in range(cp[C_ANOMALIES_PER_DAY]):
        a = _draw_card(deck, anomaly_pool, anomaly_pool, -1)
        if a < 0:
            break
        h = _place(env, board, tables.place_any[0], cp[C_ANOMALY_LIMIT], zone[Z_BOARD_A])
        if h >= 0:
            board[h] = -(a + 1)
            zone[Z_BOARD_A] += 1
        else:
            anomaly_pool[a] += 1
            if h == -1:
                zone[Z_ETOKENS] += cp[C_TOKENS_LIMIT]
    if np.int64(rng.next_u64(env) >> np.uint64(2)) < cp[C_ENVIRONMENT_CHANCE]:
        zone[Z_ETOKENS] += cp[C_TOKENS_ENVIRONMENT]
