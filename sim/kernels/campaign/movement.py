"""Movement and locations: one day's route and every location entered (Z-01..Z-26).

A stalker follows the first day of his optimal route toward today's
objective (P-37, P-50; Z-01..Z-03, Z-18..Z-26), with his movement items and
artefacts (Z-20). A base on the way trades (:mod:`.trade`); a location
resolves the card lying there or a draw: a fight (P-16..P-29), an anomaly
(P-31..P-36) or an event (Z-08..Z-10); the Sarcophagus is fought through
(P-50).
"""

from __future__ import annotations

from sim.jitting.options import jit
from sim.kernels import anomaly as A
from sim.kernels import combat as F
from sim.kernels import layout as S
from sim.kernels.anomaly import encounter as anomaly_encounter
from sim.kernels.artifact import test_bonus, usable
from sim.kernels.campaign import (
    C_ANOMALY_TROPHIES,
    C_ART_FAIL,
    C_ESCAPE_ITEMS_CONSUMED,
    C_EVENT_ITEMS_CONSUMED,
    C_EXCHANGE,
    C_HEAL_PRICE,
    C_KILLED_ENEMIES,
    C_MOVEMENT_STACKS,
    C_N_OBJECTIVES,
    C_N_SLOTS,
    C_N_WEAPONS,
    C_OPEN_DRAW,
    C_PAY_HEAL,
    C_RADIATION_MAX,
    C_REPUTATION,
    C_RESIST_ORDER,
    C_RETREAT_AT,
    C_SARCOPHAGUS_TARGET,
    C_SECRET_DRAW,
    C_SELL_TROPHIES_AT,
    C_SNEAK,
    C_TROPHY_LOT,
    C_TROPHY_TARGET,
    C_USE_MOVEMENT,
    DRAW_ANOMALY,
    DRAW_ENEMY,
    DRAW_EVENT,
    DRAW_NOTHING,
    DT_NONE,
    EV_ANOMALY,
    EV_ENEMY,
    FACTION_ECOLOGISTS,
    H_BUNKER_TARGET,
    H_FACTION,
    H_KIND,
    HAB_OPEN,
    HAB_SECRET,
    I_VALUE,
    ITEM_ESCAPE,
    ITEM_EVENT,
    ITEM_MOVEMENT,
    KILLED_TROPHY_SOLD,
    KIND_STALKER,
    LG_ANOMALY,
    LG_BASE,
    LG_EVENT,
    LG_FIGHT,
    LG_HEX,
    LG_ROUTE,
    LOC_BASE,
    LOC_COMPLEX,
    LOC_OPEN,
    LOC_SARCOPHAGUS,
    LOC_SECRET,
    N_KIND,
    N_PSI,
    O_COMBAT_HEALS,
    REACHED,
    S_ANOMALIES,
    S_ARMOR,
    S_ART_COUNT,
    S_ARTIFACTS,
    S_COMPLEXES,
    S_CONCUSSIONS,
    S_DURABILITY,
    S_END,
    S_EVENTS,
    S_FIGHTS,
    S_HEALTH,
    S_ITEMS_USED,
    S_KILLS,
    S_KNOCKED,
    S_KNOCKOUTS,
    S_LOST,
    S_OBJECTIVE,
    S_POS,
    S_RADIATION,
    S_RUBLES,
    S_SARCOPHAGUS,
    S_STOP,
    S_TROPHIES,
    S_TROPHY_ANOMALY,
    S_TROPHY_MUTANT,
    S_TROPHY_STALKER,
    S_WEAPONS,
    S_WILLPOWER,
    S_WORN,
    SOURCE_DRAWN,
    SOURCE_LYING,
    SOURCE_SARCOPHAGUS,
    V_AVOID,
    V_COUNT,
    V_DTYPE,
    V_EFFECT,
    V_TARGET,
    V_VALUE,
    Z_BOARD_A,
    Z_BOARD_E,
    Z_ETOKENS,
    called,
    part,
)
from sim.kernels.campaign import tables as tb
from sim.kernels.campaign.cards import (
    best_item,
    draw_card,
    draw_enemy,
    enemy_killed,
    handed_in,
    sold_artifacts,
    sold_trophies,
)
from sim.kernels.campaign.damage import held_artifacts, hurt, side_effects, suffer
from sim.kernels.campaign.end import conditions
from sim.kernels.campaign.log import note, snapshot
from sim.kernels.campaign.trade import buy_gear, exchange, gain, pay_heal, trade, use_medkits
from sim.kernels.combat import AVOIDED as FIGHT_AVOIDED
from sim.kernels.combat import KILLED as FIGHT_KILLED
from sim.kernels.combat import fight_by_thresholds
from sim.kernels.event import AVOIDED as EVENT_AVOIDED
from sim.kernels.event import event_effect

fight = jit(fight_by_thresholds.py_func)
"""The one fight rule (:func:`sim.kernels.combat.fight`, by the thresholds: the game plays
no plan), compiled to be called here.

The combat and paired kernels inline it (a fight is their whole trial); the game
body calls it from three places, where three inlined copies tripled its compile
work for no measurable speed.
"""


@part
def _fight(T, G, R, s, p, e):
    """Fight enemy card ``e`` with the current Health, armour, weapons and heals (P-16..P-29).

    The fight tables of the armour worn (``S_WORN``: its block of ``e_params``,
    P-02..P-05, P-13) and the weapons still held (``S_WEAPONS``, P-37) are
    used. Stimulants heal in combat (Z-12), medkits too under
    ``combat.medkits_in_combat`` (P-24); both are used in item-card order
    (``item_order[O_COMBAT_HEALS]``, compiled from that key).
    The best escape item helps a Reputation avoid roll (Z-15..Z-17) and is
    used up under ``escape.items_consumed``. The artefacts held act as in
    ``zonesim combat`` (P-08..P-10, P-23; their records follow the fight's
    header in ``e_params``). Returns the fight outcome (a
    :mod:`sim.kernels.combat` code); trophies of killed enemies are counted
    by kind (P-26..P-28). ``s`` is the character's slot (his tables), ``p`` his seat.
    """
    cp, st = tb.slot(T, s), tb.seat(G, p)
    en, it, order = tb.en(T, cp), tb.it(T, cp), tb.item_order(T, cp)
    items, fparams, stims = tb.items(G, cp, p), tb.fparams(G, cp), tb.stims(G, cp)
    fres = tb.fres(G, cp)
    sneak = cp[C_SNEAK]
    w = st[S_WEAPONS] + (st[S_WORN] << (cp[C_N_WEAPONS] + cp[C_N_SLOTS]))
    packed = tb.e_params(T, cp)[w, e]
    n_art = packed[S.P_N_ART]
    for k in range(S.P_SIZE + n_art * S.AF_SIZE):
        fparams[k] = packed[k]
    fparams[S.P_OTHER] = st[S_HEALTH] if en[e, N_PSI] != 0 else st[S_WILLPOWER]
    fparams[S.P_TOKENS] = st[S_ARMOR]
    if fparams[S.P_AMBUSH] != 0:
        sneak = 0  # no avoid roll against an ambush (P-22)
    fparams[S.P_SNEAK] = sneak
    n_stims = 0
    if en[e, N_PSI] != 0:
        fparams[S.P_START_HEALTH] = st[S_WILLPOWER]
    else:
        fparams[S.P_START_HEALTH] = st[S_HEALTH]
        for k in range(order.shape[1]):
            i = order[O_COMBAT_HEALS, k]
            if i < 0:
                break
            for _ in range(items[i]):
                if n_stims < stims.shape[0] - 1:
                    stims[n_stims] = it[i, I_VALUE]
                    n_stims += 1
    escape = best_item(items, order, ITEM_ESCAPE)
    fparams[S.P_ESCAPE_TARGET] = cp[C_REPUTATION] - (it[escape, I_VALUE] if escape >= 0 else 0)
    if (escape >= 0 and sneak != 0 and cp[C_ESCAPE_ITEMS_CONSUMED] != 0
            and fparams[S.P_AVOID_RULE] == S.AVOID_REPUTATION):
        items[escape] -= 1  # used on the avoid roll, whatever its result (Z-15)
        st[S_ITEMS_USED] += 1
    stims[n_stims] = 0
    fight(tb.dice(R), fparams, stims[:n_stims + 1], tb.e_uses0(T, cp)[w, e], tb.uses(G, cp),
          tb.e_bonus(T, cp)[w, e], tb.e_spend(T, cp)[w, e], fres)
    outcome = fres[F.R_OUTCOME]
    st[S_ARMOR] = fres[F.R_TOKENS]
    if n_art > 0:  # the other track and radiation after side effects (P-09)
        if en[e, N_PSI] != 0:
            st[S_HEALTH] = fres[F.R_OTHER]
        else:
            st[S_WILLPOWER] = fres[F.R_OTHER]
        side_effects(st, 0, fres[F.R_RADIATION], 0, fres[F.R_ART_USES],
                      fres[F.R_SIDE_EFFECTS])
    if en[e, N_PSI] != 0:
        st[S_WILLPOWER] = fres[F.R_HEALTH]
    else:
        st[S_HEALTH] = fres[F.R_HEALTH]
        used = fres[F.R_STIMULANTS]
        st[S_ITEMS_USED] += used
        for k in range(order.shape[1]):
            i = order[O_COMBAT_HEALS, k]
            if i < 0 or used == 0:
                break
            take = min(items[i], used)
            items[i] -= take
            used -= take
    if outcome != FIGHT_AVOIDED:
        st[S_FIGHTS] += 1
    if outcome == FIGHT_KILLED:
        st[S_KILLS] += 1
        st[S_TROPHIES] += 1  # its card, a trophy (P-19)
        if en[e, N_KIND] == KIND_STALKER:
            st[S_TROPHY_STALKER] += 1
        else:
            st[S_TROPHY_MUTANT] += 1
    return outcome


@called
def _anomaly(T, G, R, s, p, a):
    """Meet anomaly card ``a`` (P-31..P-36); True when its card is kept as a trophy (P-34).

    The encounter of the artefact slots held and the armour worn (``S_WORN``: its block of
    ``a_params``, P-02..P-05, P-13).
    """
    cp, st = tb.slot(T, s), tb.seat(G, p)
    aparams, ares, art_deck = tb.aparams(G, cp), tb.ares(G, cp), tb.art_deck(G, cp)
    row = held_artifacts(st, cp) + (st[S_WORN] << cp[C_N_SLOTS])
    packed = tb.a_params(T, cp)[row, a]
    n_art = packed[S.A_N_ART]
    for k in range(S.A_SIZE + n_art * S.AF_SIZE):
        aparams[k] = packed[k]
    aparams[S.A_TOKENS] = st[S_ARMOR]
    aparams[S.A_HEALTH] = st[S_HEALTH]
    aparams[S.A_RADIATION] = st[S_RADIATION]
    aparams[S.A_WILLPOWER] = st[S_WILLPOWER]
    anomaly_encounter(tb.dice(R), tb.deck(R), aparams, art_deck, tb.art_scratch(G, cp), ares)
    suffer(st, aparams[S.A_TARGET], ares[A.R_LOST], ares[A.R_TOKENS], ares[A.R_SIDE_HEALTH],
            ares[A.R_SIDE_RADIATION], ares[A.R_SIDE_WILLPOWER], ares[A.R_ART_USES],
            ares[A.R_SIDE_EFFECTS], n_art)
    if ares[A.R_OUTCOME] != A.AVOIDED:  # he was inside
        st[S_ANOMALIES] += 1
    if ares[A.R_FOUND] != 0:
        # The found card leaves the deck; cards set aside during the search go
        # back (Gap, P-35).
        want = aparams[S.A_ARTIFACT]
        art_deck[want] -= 1
        st[S_ARTIFACTS] += 1
        count = st[S_ART_COUNT]
        gain(st, cp, tb.deck(R), tb.art_cards(T, cp), tb.art_identity(T, cp),
              tb.art_value(T, cp), want, -1)
        tb.art_waiting(G, cp, p)[want] += st[S_ART_COUNT] - count  # not kept: it waits to be sold
    kept = A.keeps_trophy(ares[A.R_OUTCOME])
    if kept:
        st[S_TROPHY_ANOMALY] += 1
        st[S_TROPHIES] += 1
    return kept


@part
def _event(st, zone, cp, dice, v, ev, resist, items, it, order, recs, n_art, L, p):
    """Resolve event card ``v`` (Z-08..Z-10) with the best event item held.

    The draw is :func:`sim.kernels.event.event_effect`, the rule of every
    caller; this part chooses the item and writes the result on his state. The
    best item is the one with the largest shift (the Torsion scanner's
    ``AUTO_SHIFT`` above all, Z-10), used up under ``events.items_consumed``.
    The held resist artefacts of the damage's type (``recs``, ``n_art``: rows
    of ``art_rec``) absorb with the armour he wears (P-08; ``resist``: its row of
    ``ev_resist``, a face per event card); a lost day stops his
    movement for today and keeps him down its days, Emission tokens go on the
    Emission Track. Returns the encounter the card brings (``EV_ENEMY``,
    ``EV_ANOMALY``; ``EFFECT_NONE``, 0, when there is none or the card was avoided).
    The card, the item used and what it did are logged for seat ``p`` (``L``, :mod:`.log`).
    """
    st[S_EVENTS] += 1
    shift = 0
    best = -1
    if ev[v, V_AVOID] > 0:
        best = best_item(items, order, ITEM_EVENT)
        if best >= 0:
            shift = it[best, I_VALUE]
            if cp[C_EVENT_ITEMS_CONSUMED] != 0:
                items[best] -= 1
                st[S_ITEMS_USED] += 1
    d, target = ev[v, V_DTYPE], ev[v, V_TARGET]
    (outcome, through, after, _, h, r, w, uses, suffered, days, emission,
     day_lost, encounter) = event_effect(
        dice, ev[v, V_AVOID], shift, ev[v, V_EFFECT], ev[v, V_VALUE], target, resist[v],
        recs[d], 0, n_art[d], cp[C_ART_FAIL], cp[C_RESIST_ORDER], st[S_DURABILITY],
        st[S_ARMOR], st[S_HEALTH], st[S_RADIATION], cp[C_RADIATION_MAX], st[S_WILLPOWER],
        usable(recs[d], 0, n_art[d], st[S_HEALTH]))  # policy.artifact_use (P-08)
    note(L, p, LG_EVENT, v, best, outcome, encounter,
         days if day_lost else 0, emission if outcome != EVENT_AVOIDED else 0)
    if outcome == EVENT_AVOIDED:
        return encounter
    suffer(st, target, through, after, h, r, w, uses, suffered, n_art[d])
    if day_lost:
        st[S_STOP] = 1
        st[S_KNOCKED] += days
    zone[Z_ETOKENS] += emission
    return encounter


@called
def _draw_event(T, G, R, s, p, L):
    """An empty location draws an event card (Z-08..Z-10); returns the draw it brings.

    Events are drawn without replacement and reshuffled when the deck runs out.
    A card that brings an encounter (effect ``enemy`` or ``anomaly``, not
    avoided) returns ``DRAW_ENEMY`` or ``DRAW_ANOMALY``: the location then
    draws that card as if its key said so (:func:`_location`; the enemy goes
    back into the pool unless killed, P-16; P-30). Otherwise ``DRAW_NOTHING``.
    """
    cp, st = tb.slot(T, s), tb.seat(G, p)
    event_pool, ev = tb.event_pool(G, cp), tb.ev(T, cp)
    v = draw_card(tb.deck(R), event_pool, event_pool, -1)
    if v < 0:
        for i in range(event_pool.shape[0]):
            event_pool[i] = ev[i, V_COUNT]
        v = draw_card(tb.deck(R), event_pool, event_pool, -1)
    if v < 0:
        return DRAW_NOTHING
    held = held_artifacts(st, cp)
    encounter = _event(st, tb.zone(G), cp, tb.dice(R), v, ev, tb.ev_resist(T, cp)[st[S_WORN]],
                       tb.items(G, cp, p), tb.it(T, cp), tb.item_order(T, cp),
                       tb.art_rec(T, cp)[held], tb.art_n(T, cp)[held], L, p)
    if encounter == EV_ENEMY:
        return DRAW_ENEMY
    if encounter == EV_ANOMALY:
        return DRAW_ANOMALY
    return DRAW_NOTHING


@part
def _target(T, cp, st):
    """Objective index of today's route (P-26, P-37, P-50).

    The nearest bunker when Health is down to the policy's ``retreat_at`` and
    he can pay to heal there; else the Duty base when he holds at least
    ``sell_trophies_at`` mutant trophies and a lot of them (P-26, P-28: he sells
    them on arrival, :func:`.trade.trade`); otherwise the next Secret Complex in
    visiting order, and after the last one the Sarcophagus.
    """
    if (cp[C_RETREAT_AT] > 0 and st[S_HEALTH] <= cp[C_RETREAT_AT]
            and st[S_RUBLES] >= cp[C_HEAL_PRICE] and cp[C_PAY_HEAL] != 0):
        return tb.hexes(T, cp)[st[S_POS], H_BUNKER_TARGET]
    duty = cp[C_TROPHY_TARGET]
    if (duty >= 0 and st[S_TROPHY_MUTANT] >= max(cp[C_SELL_TROPHIES_AT], cp[C_TROPHY_LOT], 1)
            and st[S_POS] != tb.target_hex(T, cp)[duty]):
        return duty
    if st[S_OBJECTIVE] < cp[C_N_OBJECTIVES]:
        return st[S_OBJECTIVE]
    return cp[C_SARCOPHAGUS_TARGET]


@part
def _location(T, G, R, s, p, h, kind, L):
    """Enter location ``h`` of ``kind``: the card lying there, else a draw (P-14..P-16, P-30..P-34).

    An enemy lying there stays unless killed (P-16); an anomaly lying there
    goes back to its pool unless kept as a trophy (P-31, P-34). An empty
    location draws what ``campaign.open_location_draw`` or
    ``campaign.secret_location_draw`` says: an event (Z-08..Z-10; one of effect
    ``enemy`` or ``anomaly`` then draws that card, P-16, P-30), an enemy
    suiting the location's habitat (back into the pool unless killed, P-16),
    or an anomaly; a draw that finds no card leaves the location empty. A
    killed enemy's card goes where ``campaign.killed_enemies`` says
    (:func:`.cards.enemy_killed`). Damage then resolves into conditions (P-37..P-43).

    The Sarcophagus as the final objective (``kind`` ``LOC_SARCOPHAGUS``) holds
    what waits there, fought in order (P-50); a knock-out or concussion there
    is death (P-43), so conditions are resolved after every fight, and
    surviving them all ends his game (``REACHED``). Every enemy is met through
    the one fight below (an inlined part is compiled once per site). Each
    encounter is logged (``L``, :mod:`.log`) with where its card came from.
    """
    cp, st, zone = tb.slot(T, s), tb.seat(G, p), tb.zone(G)
    board = tb.board(G, cp)
    enemy_pool, anomaly_pool = tb.enemy_pool(G, cp), tb.anomaly_pool(G, cp)
    final = kind == LOC_SARCOPHAGUS
    card = 0 if final else board[h]
    draw = DRAW_NOTHING if final else cp[C_OPEN_DRAW] if kind == LOC_OPEN else cp[C_SECRET_DRAW]
    e = card - 1 if card > 0 else -1  # the enemy met, lying there or drawn
    a = -card - 1 if card < 0 else -1  # the anomaly met
    if final:
        st[S_SARCOPHAGUS] += 1
    elif card != 0:
        board[h] = 0  # taken up; an enemy not killed goes back below
    else:
        if draw == DRAW_EVENT:
            draw = _draw_event(T, G, R, s, p, L)  # an encounter the card brings, if any
        if draw == DRAW_ENEMY:
            want = HAB_OPEN if kind == LOC_OPEN else HAB_SECRET
            e = draw_enemy(cp, tb.deck(R), enemy_pool, tb.enemy_discard(G, cp),
                           tb.habitats(G, cp), want)
        elif draw == DRAW_ANOMALY:
            a = draw_card(tb.deck(R), anomaly_pool, anomaly_pool, -1)
    sarcophagus = tb.sarcophagus(T, cp)
    fights = sarcophagus.shape[0] if final else 1 if e >= 0 else 0
    source = SOURCE_SARCOPHAGUS if final else SOURCE_LYING if card != 0 else SOURCE_DRAWN
    for j in range(fights):
        if final:
            e = sarcophagus[j]
        outcome = _fight(T, G, R, s, p, e)
        killed = outcome == FIGHT_KILLED
        if L.shape[0] != 0:
            fres = tb.fres(G, cp)
            note(L, p, LG_FIGHT, e, outcome, fres[F.R_ROUNDS], fres[F.R_WOUNDS],
                 fres[F.R_STIMULANTS], source)
        if final:
            conditions(st, zone, cp, tb.hexes(T, cp), tb.items(G, cp, p), tb.lose_order(T, cp))
            if st[S_END] >= 0:
                break
        elif killed:
            enemy_killed(cp, enemy_pool, tb.enemy_discard(G, cp), tb.trophies(G, cp, p), e)
            if card != 0:
                zone[Z_BOARD_E] -= 1
        elif card == 0:
            enemy_pool[e] += 1  # back into the pool (P-16)
        else:
            board[h] = card  # it stays (P-16)
    if a >= 0:
        kept = _anomaly(T, G, R, s, p, a)
        if L.shape[0] != 0:
            ares = tb.ares(G, cp)
            note(L, p, LG_ANOMALY, a, ares[A.R_OUTCOME], ares[A.R_FOUND], kept, source, 0)
        if not kept:
            anomaly_pool[a] += 1
        elif cp[C_ANOMALY_TROPHIES] != 0:  # a trophy card, back when exchanged (P-34)
            tb.trophies(G, cp, p)[enemy_pool.shape[0] + a] += 1
        if card != 0:
            zone[Z_BOARD_A] -= 1
    if final:
        if st[S_END] < 0:
            st[S_END] = REACHED
    elif hurt(st, cp):
        conditions(st, zone, cp, tb.hexes(T, cp), tb.items(G, cp, p), tb.lose_order(T, cp))


@called
def at_base(T, G, R, s, p, faction):
    """At a faction base: the Ecologists' exchange, then trade (P-11, P-26..P-28, P-34).

    The discards of the exchange and the sale go where the keys say
    (docs/rules.md "Campaign" 3): exchanged anomaly trophies back into the
    anomaly pool (``campaign.anomaly_trophies``), sold enemy trophies into
    the enemy pool (``campaign.killed_enemies = "trophy_sold"``), sold
    artefacts into the artefact deck (``campaign.sold_artifacts``).
    """
    cp, st = tb.slot(T, s), tb.seat(G, p)
    art_deck, waiting = tb.art_deck(G, cp), tb.art_waiting(G, cp, p)
    trophies = tb.trophies(G, cp, p)
    n_enemies = cp[tb.N_ENEMIES]
    if faction == FACTION_ECOLOGISTS and cp[C_EXCHANGE] != 0:
        anomalies = st[S_TROPHY_ANOMALY]
        exchange(st, cp, tb.deck(R), art_deck, tb.art_cards(T, cp), tb.art_identity(T, cp),
                 tb.art_value(T, cp), waiting)
        if cp[C_ANOMALY_TROPHIES] != 0:
            handed_in(tb.anomaly_pool(G, cp), trophies[n_enemies:],
                      anomalies - st[S_TROPHY_ANOMALY])
    mutants, stalkers, sold = st[S_TROPHY_MUTANT], st[S_TROPHY_STALKER], st[S_ART_COUNT]
    trade(st, cp, tb.items(G, cp, p), tb.it(T, cp), tb.shopping(T, cp), faction)
    if cp[C_KILLED_ENEMIES] == KILLED_TROPHY_SOLD:
        sold_trophies(tb.enemy_pool(G, cp), trophies, tb.en(T, cp),
                      mutants - st[S_TROPHY_MUTANT], stalkers - st[S_TROPHY_STALKER])
    sold_artifacts(cp, art_deck, waiting, sold)
    buy_gear(st, cp, tb.gear(T, cp), tb.armor(T, cp), art_deck, faction)  # P-13, after items


@part
def move(T, G, R, s, p, L):
    """One day's movement along the first day of the optimal route (Z-01..Z-03, Z-18..Z-26).

    The movement artefacts are used first (Z-20, :func:`_movement_artifacts`;
    the conditions at once, and a knock-out keeps him in place); then the
    objective is chosen and the best movement item with them sets the
    allowance (Z-01..Z-03). Each hex
    entered is resolved: a base trades (P-11, P-26..P-28; trophies sold go back
    into the enemy pool under ``campaign.killed_enemies = "trophy_sold"``), after the
    Ecologists' exchange at their bunker (P-34, :func:`.trade.exchange`), a location its card
    (:func:`_location`), then medkits (Z-11); the Sarcophagus as the final
    objective is fought through (P-50, :func:`_location` too). Movement ends at the day's goal, when
    something stops it (``S_STOP``: knock-out, lost day) or with the game.
    Arriving at a bunker he retreated to, he pays to heal (P-37); arriving at
    a Secret Complex on his feet, he has explored it (P-50; assumption). The day's
    route, each hex entered, each base's trade and his tracks after each location are
    logged (``L``, :mod:`.log`).
    """
    cp, st = tb.slot(T, s), tb.seat(G, p)
    hexes, items = tb.hexes(T, cp), tb.items(G, cp, p)
    it, order = tb.it(T, cp), tb.item_order(T, cp)
    extra = 0
    held = held_artifacts(st, cp)
    n_art = tb.art_n(T, cp)[held, DT_NONE]
    if cp[C_USE_MOVEMENT] != 0 and n_art > 0:
        extra = _movement_artifacts(st, cp, tb.dice(R), tb.art_rec(T, cp)[held, DT_NONE], n_art)
        if hurt(st, cp):
            conditions(st, tb.zone(G), cp, hexes, items, tb.lose_order(T, cp))
            if st[S_END] >= 0 or st[S_STOP] != 0:
                return
    target = _target(T, cp, st)
    goal = tb.target_hex(T, cp)[target]
    mover = best_item(items, order, ITEM_MOVEMENT)
    bonus = it[mover, I_VALUE] if mover >= 0 else 0
    bonus = bonus + extra if cp[C_MOVEMENT_STACKS] != 0 else max(bonus, extra)
    allowance = tb.allowance_of_value(T, cp)[bonus]
    start = st[S_POS]
    downs = st[S_KNOCKOUTS] + st[S_CONCUSSIONS]
    route = tb.day_table(T, cp)[start, target, allowance]
    note(L, p, LG_ROUTE, target, goal, start, mover, bonus, extra)
    for i in range(tb.day_len(T, cp)[start, target, allowance]):
        h = route[i]
        st[S_POS] = h
        kind = hexes[h, H_KIND]
        note(L, p, LG_HEX, h, kind, 0, 0, 0, 0)
        if kind == LOC_BASE:
            rubles = st[S_RUBLES]
            at_base(T, G, R, s, p, hexes[h, H_FACTION])
            note(L, p, LG_BASE, hexes[h, H_FACTION], rubles, st[S_RUBLES], 0, 0, 0)
        elif (kind == LOC_OPEN or kind == LOC_SECRET or kind == LOC_COMPLEX or (
                kind == LOC_SARCOPHAGUS and h == goal and target == cp[C_SARCOPHAGUS_TARGET])):
            _location(T, G, R, s, p, h, kind, L)
            if st[S_END] >= 0:
                snapshot(L, p, st, items)
                return
            use_medkits(st, cp, items, it, order)
            snapshot(L, p, st, items)
        if st[S_STOP] != 0 or h == goal:
            break
    if st[S_END] < 0 and st[S_POS] == goal:
        if target > cp[C_SARCOPHAGUS_TARGET] and target != cp[C_TROPHY_TARGET]:
            pay_heal(st, cp)  # at the bunker he retreated to
        elif (target < cp[C_N_OBJECTIVES] and st[S_KNOCKOUTS] + st[S_CONCUSSIONS] == downs
              and st[S_LOST] == 0):
            st[S_OBJECTIVE] += 1
            st[S_COMPLEXES] += 1


@called
def _movement_artifacts(st, cp, dice, recs, n_art):
    """Movement artefacts used at the start of a day's movement: the steps they add (Z-20).

    Each held movement artefact is used once (P-09, P-10:
    :func:`sim.kernels.artifact.test_bonus`, the rule of test dice); its
    side effect hits at once.
    """
    extra, h, r, w, uses, suffered = test_bonus(dice, recs, 0, n_art, cp[C_ART_FAIL],
                                                S.ART_MOVEMENT,
                                                usable(recs, 0, n_art, st[S_HEALTH]))
    side_effects(st, h, r, w, uses, suffered)
    return extra
