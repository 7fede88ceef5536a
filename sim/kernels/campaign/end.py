"""The end of a character and of the game (P-37..P-45, P-49, P-50, ``multiplayer.*``).

After a damage step: knock-out, concussion and deformation, with the loss of
half the belongings on a knock-out (P-37) and death (P-39, P-43). After a
turn or the day's end: a character who left the Zone is settled (a win, a
finish or a death, P-44, P-45) and the game may be over; at its end the
game's result row is written (``G_*`` columns).
"""

from __future__ import annotations

import numpy as np

from sim.kernels.campaign import (
    AFTER_DEATH_NEW,
    AFTER_WIN_END,
    BELONG_ARMOR,
    BELONG_ITEM,
    BELONG_WEAPON,
    C_AFTER_DEATH,
    C_AFTER_WIN,
    C_CHARACTER,
    C_COOP_DEAD,
    C_COOPERATIVE,
    C_DEFORM_CARDS,
    C_DEFORM_EFFECT,
    C_DEFORM_VALUE,
    C_DEFORMATION_LIMIT,
    C_KNOCKED_DOWN_DAYS,
    C_LOST_DAYS,
    C_N_CHARACTERS,
    C_N_PLAYERS,
    C_NEEDED,
    C_SAME_DAY,
    C_TOKENS_CONCUSSION,
    C_TOKENS_DEFORMATION,
    C_TOKENS_KNOCKOUT,
    CAPPED,
    COOP_DEAD_TEAM_LOSES,
    COUNTER_SLOTS,
    DEATH_BOTH,
    DEATH_CONCUSSION_SARCOPHAGUS,
    DEATH_DEFORMATIONS,
    DEATH_KNOCKOUT_SARCOPHAGUS,
    DEFORM_DISTURBANCES,
    DEFORM_EMISSION_TOKENS,
    DEFORM_KNOCKED_DOWN,
    DEFORM_RADIATION_LIMIT,
    DEFORM_WOUNDS,
    G_CAPPED,
    G_DAY,
    G_DRAWN,
    G_END,
    G_FINAL,
    G_SEATS,
    G_WINNERS,
    H_KIND,
    L_INDEX,
    L_KIND,
    LOC_COMPLEX,
    LOC_SARCOPHAGUS,
    LOC_SECRET,
    MAX_PLAYERS,
    REACHED,
    S_ARMOR,
    S_ART_COUNT,
    S_ART_VALUE,
    S_CLUES,
    S_CLUES_LOST,
    S_CONCUSSIONS,
    S_DEATHS,
    S_DEFORMATIONS,
    S_DURABILITY,
    S_END,
    S_HEALTH,
    S_KNOCKED,
    S_KNOCKOUTS,
    S_LOST,
    S_NEW,
    S_POS,
    S_RADIATION,
    S_RADIATION_DOWN,
    S_SLOT,
    S_STATUS,
    S_STOP,
    S_WEAPONS,
    S_WILLPOWER,
    S_WORN,
    S_ZONE_LOST,
    S_ZONE_TOKENS,
    SAME_DAY_SHARED,
    SEAT_AWAITING,
    SEAT_CHARACTER,
    SEAT_COLS,
    SEAT_DEATHS,
    SEAT_ELIMINATED,
    SEAT_FINISHED,
    SEAT_NEW,
    SEAT_PLAYING,
    Z_DEFORM_NEXT,
    Z_DEFORM_ORDER,
    Z_DISCARDED,
    Z_EMISSIONS,
    Z_ETOKENS,
    Z_FINAL,
    Z_REACHED,
    Z_WIN_DAY,
    Z_WINNERS,
    called,
    part,
)
from sim.kernels.campaign import tables as tb
from sim.kernels.campaign.damage import radiation_limit
from sim.kernels.campaign.trade import recover
from sim.kernels.dice import intact
from sim.kernels.tracks import deformed, exhausted


@part
def _halve(st, held, lost):
    """He loses half of the tokens in slot ``held``, rounded in his favour (P-39, P-40).

    ``n // 2`` go: with 5 he keeps 3. Counted in slot ``lost``.
    """
    gone = st[held] // 2
    st[held] -= gone
    st[lost] += gone


@part
def _deformation_card(st, zone, cp):
    """He receives the next Deformation card (P-39) and suffers its effect.

    The deck (``deformations.csv``) is shuffled once a game
    (:func:`.game._new_game`) into ``Z_DEFORM_ORDER``, shared by every
    stalker; it cycles: after its last card the first comes again (Gap: the
    texts say nothing of a deck running out). Effects (Gap "Deformation Card
    effects"): the radiation limit lowered for the rest of his life, wounds or
    mental disturbances at once (a knock-out or concussion follows in
    :func:`conditions`), days knocked down (P-42), Emission tokens (P-47).
    A deck that does nothing is not drawn (``C_DEFORM_CARDS`` 0).
    """
    n = cp[C_DEFORM_CARDS]
    if n == 0:
        return
    k = zone[Z_DEFORM_NEXT]
    zone[Z_DEFORM_NEXT] = k + 1 if k + 1 < n else 0
    card = zone[Z_DEFORM_ORDER + k]
    effect, value = cp[C_DEFORM_EFFECT + card], cp[C_DEFORM_VALUE + card]
    if effect == DEFORM_RADIATION_LIMIT:
        st[S_RADIATION_DOWN] += value
    elif effect == DEFORM_WOUNDS:
        st[S_HEALTH] -= value
    elif effect == DEFORM_DISTURBANCES:
        st[S_WILLPOWER] -= value
    elif effect == DEFORM_KNOCKED_DOWN:
        st[S_STOP] = 1
        st[S_KNOCKED] += value
    elif effect == DEFORM_EMISSION_TOKENS:
        zone[Z_ETOKENS] += value


@called
def _lose_half(st, items, lose_order):
    """Lose half of all belongings, rounded in the stalker's favour (P-37).

    Belongings are items, weapons, the armour (unless already destroyed,
    P-05) and artefacts ("half of all his items, ordinary, rare and artefacts
    alike"). The player chooses what goes (Gap); the policy gives up the
    cheapest cards first (``lose_order``, compiled by price), artefacts last.
    Lost armour counts as destroyed: its tokens are set to its durability. ``lose_order``
    has a row for every armour he may wear (the starting one and those bought, P-13, each
    at its price); only the worn one's counts.
    """
    armor = 1 if intact(st[S_DURABILITY], st[S_ARMOR]) else 0
    total = st[S_ART_COUNT] + armor
    for i in range(items.shape[0]):
        total += items[i]
    for j in range(lose_order.shape[0]):
        if lose_order[j, L_KIND] == BELONG_WEAPON:
            total += (st[S_WEAPONS] >> lose_order[j, L_INDEX]) & 1
    lose = total // 2
    for j in range(lose_order.shape[0]):
        if lose == 0:
            break
        kind = lose_order[j, L_KIND]
        i = lose_order[j, L_INDEX]
        if kind == BELONG_ITEM:
            take = min(items[i], lose)
            items[i] -= take
            lose -= take
        elif kind == BELONG_WEAPON:
            if (st[S_WEAPONS] >> i) & 1:
                st[S_WEAPONS] &= ~(np.int64(1) << i)
                lose -= 1
        elif kind == BELONG_ARMOR and armor and i == st[S_WORN]:
            st[S_ARMOR] = st[S_DURABILITY]
            lose -= 1
    if lose > 0 and st[S_ART_COUNT] > 0:
        st[S_ART_VALUE] -= st[S_ART_VALUE] * lose // st[S_ART_COUNT]
        st[S_ART_COUNT] -= lose


@called
def conditions(st, zone, cp, hexes, items, lose_order):
    """Resolve knock-out, concussion and deformation after a damage step (P-37..P-43, P-47).

    A radiation mutation (P-39) halves his clue tokens (rounded in his
    favour), gives him a Deformation card (:func:`_deformation_card`; the
    fifth is death, P-43, whatever it says) and clears his doses. Knocked out
    and concussed at once, or either in the Sarcophagus, is death (P-43).
    Otherwise the stalker is moved to the nearest bunker (after a lost day in
    a Secret Location, P-38/P-41), loses half his belongings (P-37) or half
    his Zone tokens (P-40), is knocked down (P-42), regains 1 point and may
    pay to heal.
    Each knock-out, concussion and deformation adds Emission tokens to the
    one track every stalker shares (``zone``, P-47: "some Stalker").
    """
    if st[S_LOST] > 0:
        return  # out of play until placed in a bunker (P-38, P-41)
    pos = st[S_POS]
    if deformed(st[S_RADIATION], radiation_limit(st, cp)):
        st[S_DEFORMATIONS] += 1
        _halve(st, S_CLUES, S_CLUES_LOST)
        st[S_RADIATION] = 0
        zone[Z_ETOKENS] += cp[C_TOKENS_DEFORMATION]
        if st[S_DEFORMATIONS] >= cp[C_DEFORMATION_LIMIT]:
            st[S_END] = DEATH_DEFORMATIONS
            return
        _deformation_card(st, zone, cp)
    knocked = exhausted(st[S_HEALTH])
    concussed = exhausted(st[S_WILLPOWER])
    if not knocked and not concussed:
        return
    if knocked and concussed:
        st[S_END] = DEATH_BOTH
        return
    if hexes[pos, H_KIND] == LOC_SARCOPHAGUS:
        st[S_END] = DEATH_KNOCKOUT_SARCOPHAGUS if knocked else DEATH_CONCUSSION_SARCOPHAGUS
        return
    if knocked:
        st[S_KNOCKOUTS] += 1
        zone[Z_ETOKENS] += cp[C_TOKENS_KNOCKOUT]
        _lose_half(st, items, lose_order)
    else:
        st[S_CONCUSSIONS] += 1
        zone[Z_ETOKENS] += cp[C_TOKENS_CONCUSSION]
        _halve(st, S_ZONE_TOKENS, S_ZONE_LOST)
    st[S_STOP] = 1
    st[S_KNOCKED] = cp[C_KNOCKED_DOWN_DAYS]
    secret = hexes[pos, H_KIND] == LOC_SECRET or hexes[pos, H_KIND] == LOC_COMPLEX
    if secret and cp[C_LOST_DAYS] > 0:
        st[S_LOST] = cp[C_LOST_DAYS]
        return
    recover(st, cp, hexes)  # in the bunker at once (``death.lost_days = 0``: no day lost)


@part
def settle(T, G, p, day):
    """Seat ``p``'s character left the Zone today: a win, a finish or a death.

    Competitive (P-45): the first stalker to survive the Sarcophagus wins;
    another who survives it on the same day wins too under
    ``multiplayer.same_day_win = "shared"``. Cooperative: he counts toward the
    team (:func:`game_over`). A dead character's card is discarded; the seat
    draws a new character next day (P-44) or is out
    (``multiplayer.after_death``); after the Final Emission nobody comes back.
    """
    st, zone, cp0 = tb.seat(G, p), tb.zone(G), tb.slot(T, 0)
    if st[S_STATUS] != SEAT_PLAYING or st[S_END] < 0:
        return
    if st[S_END] == REACHED:
        st[S_STATUS] = SEAT_FINISHED
        zone[Z_REACHED] += 1
        if cp0[C_COOPERATIVE] == 0 and (zone[Z_WIN_DAY] == 0 or (
                zone[Z_WIN_DAY] == day and cp0[C_SAME_DAY] == SAME_DAY_SHARED)):
            zone[Z_WIN_DAY] = day
            zone[Z_WINNERS] |= np.int64(1) << p
        return
    st[S_DEATHS] += 1
    zone[Z_DISCARDED] |= np.int64(1) << tb.slot(T, st[S_SLOT])[C_CHARACTER]
    if cp0[C_AFTER_DEATH] == AFTER_DEATH_NEW and zone[Z_FINAL] == 0:
        st[S_STATUS] = SEAT_AWAITING
    else:
        st[S_STATUS] = SEAT_ELIMINATED


@part
def free_characters(T, G, p):
    """The stalker cards a new character can still be drawn from (P-44), and their count.

    Taken are the discarded cards (the dead, ``Z_DISCARDED``) and the
    characters of the seats other than ``p`` still in the Zone or out of it
    after the Sarcophagus (``SEAT_PLAYING``, ``SEAT_FINISHED``); ``p = -1``
    excludes no seat. Returns the mask of the cards taken and the number free.
    """
    cp0 = tb.slot(T, 0)
    taken = tb.zone(G)[Z_DISCARDED]
    for q in range(cp0[C_N_PLAYERS]):
        st = tb.seat(G, q)
        if q != p and (st[S_STATUS] == SEAT_PLAYING or st[S_STATUS] == SEAT_FINISHED):
            taken |= np.int64(1) << tb.slot(T, st[S_SLOT])[C_CHARACTER]
    free = 0
    for c in range(cp0[C_N_CHARACTERS]):
        free += 1 - ((taken >> c) & 1)
    return taken, free


@part
def game_over(T, G):
    """Whether the game is over (P-44, P-49, P-50; ``multiplayer.*`` keys).

    A seat awaiting a new character can still come back only while a stalker
    card is free for him (P-44): the free cards go to the awaiting seats in
    seat order, as :func:`.game._new_character` deals them next morning, and
    an awaiting seat left without one is out of the game now (no empty day is
    played for a draw that must fail; issue 27, 1.7). The Final Emission ends
    it for all (P-49). Competitive: a win ends it under
    ``multiplayer.after_win = "end"``. Cooperative (P-45): under
    ``multiplayer.cooperative_dead = "team_loses"`` a seat out of the game
    loses it for the team at once; the team wins (every seat still in the
    game is a winner) once ``C_NEEDED`` stalkers (0: every seat still in)
    survived the Sarcophagus, and loses when too few seats are left for that
    (under ``"ignored"`` a seat out of the game only leaves the count).
    Either way it ends when no seat is left in the Zone or able to come back.
    """
    zone, cp0 = tb.zone(G), tb.slot(T, 0)
    n = cp0[C_N_PLAYERS]
    if zone[Z_FINAL] != 0:
        return True
    free = -1  # counted at the first awaiting seat: most days none awaits
    in_zone = 0
    standing = 0
    mask = 0
    for p in range(n):
        status = tb.seat(G, p)[S_STATUS]
        if status == SEAT_AWAITING:
            if free < 0:
                free = free_characters(T, G, -1)[1]
            if free == 0:
                continue  # no card left for him: out of the game (P-44)
            free -= 1
        if status != SEAT_ELIMINATED:
            in_zone += status != SEAT_FINISHED
            standing += 1
            mask |= np.int64(1) << p
    if cp0[C_COOPERATIVE] != 0:
        if cp0[C_COOP_DEAD] == COOP_DEAD_TEAM_LOSES and standing < n:
            return True  # a teammate out of the game: the team has lost
        needed = cp0[C_NEEDED] if cp0[C_NEEDED] > 0 else standing
        if needed > 0 and zone[Z_REACHED] >= needed:
            zone[Z_WINNERS] = mask
            return True
        return in_zone == 0 or standing < needed
    if zone[Z_WINNERS] != 0 and cp0[C_AFTER_WIN] == AFTER_WIN_END:
        return True
    return in_zone == 0


@part
def write_result(T, G, day, over, res):
    """Fill one result row: seat 1's counters (``COUNTER_SLOTS``: ``G_<name>`` from his state's
    ``S_<name>``), then the game's columns and every seat's.

    Seat 1's end is how his current character left the Zone (``CAPPED`` if
    he is still in it); for a one-stalker scenario these are the whole game.
    """
    st, zone = tb.seat(G, 0), tb.zone(G)
    res[G_END] = st[S_END] if st[S_END] >= 0 else CAPPED
    res[G_DAY] = day
    for state, column in COUNTER_SLOTS:
        res[column] = st[state]
    res[G_WINNERS] = zone[Z_WINNERS]
    res[G_DRAWN] = zone[Z_EMISSIONS]
    res[G_FINAL] = zone[Z_FINAL]
    res[G_CAPPED] = 0 if over else 1
    n = tb.slot(T, 0)[C_N_PLAYERS]
    for p in range(MAX_PLAYERS):
        base = G_SEATS + SEAT_COLS * p
        if p < n:
            seat = tb.seat(G, p)
            res[base + SEAT_DEATHS] = seat[S_DEATHS]
            res[base + SEAT_NEW] = seat[S_NEW]
            res[base + SEAT_CHARACTER] = tb.slot(T, seat[S_SLOT])[C_CHARACTER]
        else:
            res[base + SEAT_DEATHS] = 0
            res[base + SEAT_NEW] = 0
            res[base + SEAT_CHARACTER] = -1
