"""Trade and healing: what a stalker does at bases and bunkers, and his heals.

At a faction base he sells trophies and artefacts and shops (P-11,
P-26..P-28); at the Ecologists' Bunker anomaly trophies buy artefacts (P-07,
P-34), kept in their slot or sold later (P-11, P-35). Outside combat he uses
medkits (Z-11..Z-14), in a bunker he regains a point and pays to heal (P-37,
P-40), and once a day he uses his heal, calm and purge artefacts
(P-08..P-10). Bases that sell gear sell the weapons and artefacts his policy
buys (P-13).
"""

from __future__ import annotations

import numpy as np

from sim.kernels import layout as S
from sim.kernels import rng
from sim.kernels.artifact import restore, usable
from sim.kernels.campaign import (
    AC_COUNT,
    AC_PRICE,
    AC_SLOT,
    AC_TYPE,
    AR_DURABILITY,
    AR_PRICE,
    B_BIT,
    B_KIND,
    B_PRICE,
    B_TYPE,
    BUNKER_TOWARD_OBJECTIVE,
    C_ARMOR_TRADE_IN,
    C_ART_FAIL,
    C_BOUGHT_FROM_DECK,
    C_BUNKER_CHOICE,
    C_CALM_AT,
    C_CARRY_LIMIT,
    C_EXCHANGE_DRAW,
    C_EXCHANGE_RATE,
    C_GEAR_ITEM,
    C_GEAR_LOT,
    C_GEAR_SHOPS,
    C_HEAL_PRICE,
    C_HEALTH,
    C_HELICOPTER_AT,
    C_KNOCKOUT_REGAIN,
    C_MEDKIT_AT,
    C_MILITARY_BASE,
    C_N_OBJECTIVES,
    C_N_WEAPONS,
    C_OBJECTIVE_BUNKER,
    C_PAY_HEAL,
    C_PURGE_AT,
    C_RESTORE_USES,
    C_SELL_DIVISOR,
    C_STIMULANT_AT,
    C_TROPHY_LOT,
    C_TROPHY_PRICE,
    C_WILLPOWER,
    EXCHANGE_CHEAPEST,
    EXCHANGE_DEAREST,
    EXCHANGE_RANDOM,
    FACTION_DUTY,
    FACTION_FREEDOM,
    GEAR_ARMOR,
    GEAR_ARTIFACT,
    H_BUNKER,
    H_KIND,
    I_PRICE,
    I_SOLD_AT,
    I_VALUE,
    ITEM_HELICOPTER,
    ITEM_MEDKIT,
    ITEM_STIMULANT,
    LOC_COMPLEX,
    LOC_SECRET,
    S_ARMOR,
    S_ART_COUNT,
    S_ART_VALUE,
    S_ARTIFACT_RUBLES,
    S_ARTIFACTS_SOLD,
    S_DURABILITY,
    S_EXCHANGES,
    S_HEALTH,
    S_ITEMS_USED,
    S_OBJECTIVE,
    S_POS,
    S_RADIATION,
    S_RUBLES,
    S_RUBLES_SPENT,
    S_TROPHIES_SOLD,
    S_TROPHY_ANOMALY,
    S_TROPHY_MUTANT,
    S_TROPHY_RUBLES,
    S_TROPHY_STALKER,
    S_WEAPONS,
    S_WILLPOWER,
    S_WORN,
    called,
    part,
)
from sim.kernels.campaign.cards import best_item, draw_card
from sim.kernels.campaign.damage import side_effects
from sim.kernels.dice import intact
from sim.kernels.tracks import exhausted


@part
def pay_heal(st, cp):
    """Heal wounds at ``economy.heal_price_per_wound`` while money lasts (P-37)."""
    if cp[C_PAY_HEAL] == 0:
        return
    price = max(cp[C_HEAL_PRICE], 1)
    heal = min(cp[C_HEALTH] - st[S_HEALTH], st[S_RUBLES] // price)
    if heal > 0:
        st[S_HEALTH] += heal
        st[S_RUBLES] -= heal * cp[C_HEAL_PRICE]
        st[S_RUBLES_SPENT] += heal * cp[C_HEAL_PRICE]
    heal = min(cp[C_WILLPOWER] - st[S_WILLPOWER], st[S_RUBLES] // price)
    if heal > 0:
        st[S_WILLPOWER] += heal
        st[S_RUBLES] -= heal * cp[C_HEAL_PRICE]
        st[S_RUBLES_SPENT] += heal * cp[C_HEAL_PRICE]


@called
def recover(st, cp, hexes):
    """In the bunker: regain a point of the exhausted track and pay to heal (P-37, P-40).

    Knocked out or concussed in the Open Space he is placed in the nearest bunker
    (P-37, P-40); lost in a Secret Location or Complex, in "any bunker of his
    choice" (P-38, P-41): the nearest one, or under ``policy.bunker_choice =
    "toward_objective"`` the bunker nearest to his current objective
    (``C_OBJECTIVE_BUNKER``, compiled by :mod:`sim.campaign.compile`).
    """
    kind = hexes[st[S_POS], H_KIND]
    if cp[C_BUNKER_CHOICE] == BUNKER_TOWARD_OBJECTIVE and (kind == LOC_SECRET
                                                           or kind == LOC_COMPLEX):
        st[S_POS] = cp[C_OBJECTIVE_BUNKER + min(st[S_OBJECTIVE], cp[C_N_OBJECTIVES])]
    else:
        st[S_POS] = hexes[st[S_POS], H_BUNKER]
    if exhausted(st[S_HEALTH]):
        st[S_HEALTH] = cp[C_KNOCKOUT_REGAIN]
    if exhausted(st[S_WILLPOWER]):
        st[S_WILLPOWER] = cp[C_KNOCKOUT_REGAIN]
    pay_heal(st, cp)


@called
def gain(st, cp, deck, cards, identity, value, t, card):
    """An artefact of type ``t`` found or exchanged: kept in its slot, or waiting to be sold.

    ``card`` is the card when known (-1: not drawn yet). A type holding a
    name some stalker keeps draws its card in proportion to the printed
    counts (DECK stream; P-35); the card is kept if its slot is free and
    ``artifacts.carry_limit`` allows, otherwise it waits to be sold at the
    next base for its price (P-11). A type nobody keeps is worth its mean
    price (docs/rules.md "Artefacts in the campaign" 1, 7).
    """
    if card < 0 and identity[t] != 0:
        total = 0
        for c in range(cards.shape[0]):
            if cards[c, AC_TYPE] == t:
                total += cards[c, AC_COUNT]
        j = rng.below(deck, total)
        for c in range(cards.shape[0]):
            if cards[c, AC_TYPE] == t:
                if j < cards[c, AC_COUNT]:
                    card = c
                    break
                j -= cards[c, AC_COUNT]
    if card < 0:
        st[S_ART_COUNT] += 1
        st[S_ART_VALUE] += value[t]
        return
    slot = cards[card, AC_SLOT]
    if slot >= 0 and _slot_free(st, cp, cp[C_N_WEAPONS] + slot):
        st[S_WEAPONS] |= np.int64(1) << (cp[C_N_WEAPONS] + slot)
        return
    st[S_ART_COUNT] += 1
    st[S_ART_VALUE] += cards[card, AC_PRICE]


@part
def _slot_free(st, cp, bit):
    """Whether artefact slot bit ``bit`` of ``S_WEAPONS`` is free and may be filled: not held,
    and fewer artefacts held than ``artifacts.carry_limit`` (0: no limit; P-08..P-10).
    """
    held = st[S_WEAPONS] >> cp[C_N_WEAPONS]
    n_held = 0
    while held:
        n_held += held & 1
        held >>= 1
    return (st[S_WEAPONS] >> bit) & 1 == 0 and (cp[C_CARRY_LIMIT] == 0
                                                or n_held < cp[C_CARRY_LIMIT])


@called
def exchange(st, cp, deck, art_deck, cards, identity, value, waiting):
    """At the Ecologists' Bunker, anomaly trophies buy artefacts (P-07, P-34).

    Every ``artifacts.exchange_trophies`` trophies buy one card while the
    deck has any: a random one (a type in proportion to the cards left, then
    the card, :func:`gain`), or the cheapest or dearest card of a type with
    cards left (``artifacts.exchange_draw``). A card not kept waits to be
    sold: its type is counted in ``waiting`` (the seat's row of
    ``art_waiting``, :func:`.cards.sold_artifacts`).
    """
    rate = max(cp[C_EXCHANGE_RATE], 1)
    while st[S_TROPHY_ANOMALY] >= rate:
        card = -1
        if cp[C_EXCHANGE_DRAW] == EXCHANGE_RANDOM:
            t = draw_card(deck, art_deck, art_deck, -1)
        else:
            for c in range(cards.shape[0]):
                if art_deck[cards[c, AC_TYPE]] > 0 and (
                        card < 0 or (cp[C_EXCHANGE_DRAW] == EXCHANGE_CHEAPEST
                                     and cards[c, AC_PRICE] < cards[card, AC_PRICE])
                        or (cp[C_EXCHANGE_DRAW] == EXCHANGE_DEAREST
                            and cards[c, AC_PRICE] > cards[card, AC_PRICE])):
                    card = c
            t = cards[card, AC_TYPE] if card >= 0 else -1
            if t >= 0:
                art_deck[t] -= 1
        if t < 0:
            return
        st[S_TROPHY_ANOMALY] -= rate
        st[S_EXCHANGES] += 1
        count = st[S_ART_COUNT]
        gain(st, cp, deck, cards, identity, value, t, card)
        waiting[t] += st[S_ART_COUNT] - count


@called
def trade(st, cp, items, it, shopping, faction):
    """At a faction base: sell trophies and artefacts, then shop (P-11, P-26..P-28).

    Only Duty, at its base, buys mutant and animal trophies, in lots
    (``economy.mutant_trophy_lot`` for ``economy.mutant_trophy_price``; P-26,
    P-28); only Freedom, at its base, gives one Gear for a lot of stalker
    trophies (P-27; assumption: the first item of the shopping list).
    Artefacts sell at any base for ``price // economy.artifact_sell_divisor``
    (P-11). Then each item of the shopping list that this base sells
    (``I_SOLD_AT``: Z-05, Z-11, ``economy.shops``) is bought once while money
    lasts.
    """
    lot = max(cp[C_TROPHY_LOT], 1)
    if faction == FACTION_DUTY:
        lots = st[S_TROPHY_MUTANT] // lot
        st[S_RUBLES] += lots * cp[C_TROPHY_PRICE]
        st[S_TROPHY_RUBLES] += lots * cp[C_TROPHY_PRICE]
        st[S_TROPHY_MUTANT] -= lots * lot
        st[S_TROPHIES_SOLD] += lots * lot
    gear = max(cp[C_GEAR_LOT], 1)
    if faction == FACTION_FREEDOM and cp[C_GEAR_ITEM] >= 0:
        while st[S_TROPHY_STALKER] >= gear:
            st[S_TROPHY_STALKER] -= gear
            st[S_TROPHIES_SOLD] += gear
            items[cp[C_GEAR_ITEM]] += 1
    sale = st[S_ART_VALUE] // max(cp[C_SELL_DIVISOR], 1)
    st[S_RUBLES] += sale
    st[S_ARTIFACT_RUBLES] += sale
    st[S_ARTIFACTS_SOLD] += st[S_ART_COUNT]
    st[S_ART_VALUE] = 0
    st[S_ART_COUNT] = 0
    for j in range(shopping.shape[0]):
        i = shopping[j]
        if i >= 0 and (it[i, I_SOLD_AT] >> faction) & 1 and st[S_RUBLES] >= it[i, I_PRICE]:
            st[S_RUBLES] -= it[i, I_PRICE]
            st[S_RUBLES_SPENT] += it[i, I_PRICE]
            items[i] += 1


@called
def buy_gear(st, cp, gear, armor, art_deck, faction):
    """At a base that sells gear, buy the weapons, artefacts and armour of ``policy.shopping_gear``
    (P-13).

    Only at the bases of ``economy.gear_shops`` (``C_GEAR_SHOPS``: every faction
    base, or one faction's); in the list's order, each at its card's price
    while money lasts, and only while not held (a weapon or artefact is one
    card: bought again after a knock-out took it, P-37). A weapon bought is
    one more bit of the belongings mask, so its fights are the compiled ones
    (P-23: the hands limit which weapons a round uses, not how many he carries).
    An artefact goes into its slot when :func:`_slot_free` allows
    (``artifacts.carry_limit``); under ``economy.bought_artifacts =
    "from_deck"`` it is a card of the artefact deck: one of its type must be
    left (P-35), and it is taken out.

    He wears one armour (``armor``: its row ``S_WORN``, ``S_DURABILITY``), so the listed
    armours are his wishes, best first: walking the list, he buys the first armour he does
    not wear (or wears destroyed, P-05) that money buys, and none listed after the one he
    wears. He puts it on at once with no damage token (P-04); the old one, unless destroyed,
    is discarded or, under ``economy.armor_trade_in_divisor`` N > 0, sold for its price // N
    (2: P-11's rate for an artefact), the money counting towards the new one.
    """
    if (cp[C_GEAR_SHOPS] >> faction) & 1 == 0:
        return
    settled = False  # an armour listed earlier is worn, or was bought now
    for j in range(gear.shape[0]):
        bit, price, t = gear[j, B_BIT], gear[j, B_PRICE], gear[j, B_TYPE]
        if gear[j, B_KIND] == GEAR_ARMOR:
            wearing = intact(st[S_DURABILITY], st[S_ARMOR])
            if settled or (bit == st[S_WORN] and wearing):
                settled = True
                continue
            back = 0
            if wearing and cp[C_ARMOR_TRADE_IN] > 0:
                back = armor[st[S_WORN], AR_PRICE] // cp[C_ARMOR_TRADE_IN]
            if st[S_RUBLES] + back >= price:
                st[S_RUBLES] += back - price
                st[S_RUBLES_SPENT] += price - back
                st[S_WORN], st[S_DURABILITY], st[S_ARMOR] = bit, armor[bit, AR_DURABILITY], 0
                settled = True
            continue
        if gear[j, B_KIND] < 0 or (st[S_WEAPONS] >> bit) & 1 or st[S_RUBLES] < price:
            continue
        if gear[j, B_KIND] == GEAR_ARTIFACT:
            if not _slot_free(st, cp, bit) or (cp[C_BOUGHT_FROM_DECK] != 0
                                               and art_deck[t] <= 0):
                continue
            if cp[C_BOUGHT_FROM_DECK] != 0:
                art_deck[t] -= 1
        st[S_RUBLES] -= price
        st[S_RUBLES_SPENT] += price
        st[S_WEAPONS] |= np.int64(1) << bit


@called
def helicopter(st, cp, items, order):
    """Call the helicopter at the start of his turn (Z-04, Z-05); True when he is flown.

    At Health <= ``policy.helicopter_at`` (> 0), holding a Helicopter call and
    not already at the Military base, the card is used up (Z-04: single use;
    Z-05: it returns to the deck, so the Military base sells it again) and he
    is flown to the Military base, the one place it goes to (Z-05). The
    flight is his day's movement (Gap "Helicopter call": assumption); there
    he trades as at any base (the caller visits the base, :func:`.movement.at_base`).
    """
    base = cp[C_MILITARY_BASE]
    if cp[C_HELICOPTER_AT] <= 0 or st[S_HEALTH] > cp[C_HELICOPTER_AT] or base < 0 \
            or st[S_POS] == base:
        return False
    call = best_item(items, order, ITEM_HELICOPTER)
    if call < 0:
        return False
    items[call] -= 1
    st[S_ITEMS_USED] += 1
    st[S_POS] = base
    return True


@part
def use_medkits(st, cp, items, it, order):
    """Outside combat, heal with medkits, then stimulants (Z-11..Z-14).

    The best medkit while Health is at or below ``policy.medkit_at``; then,
    Z-12 allowing stimulants "both in and outside combat", the best stimulant
    while Health is at or below ``policy.stimulant_at`` (0, the default: never,
    they are kept for fights). Each heals up to the maximum (Z-14).
    """
    for effect in (ITEM_MEDKIT, ITEM_STIMULANT):
        at = cp[C_MEDKIT_AT] if effect == ITEM_MEDKIT else cp[C_STIMULANT_AT]
        if effect == ITEM_STIMULANT and at <= 0:
            break  # never, not even at Health 0 while lost (P-38)
        while st[S_HEALTH] <= at and st[S_HEALTH] < cp[C_HEALTH]:
            best = best_item(items, order, effect)
            if best < 0:
                break
            items[best] -= 1
            st[S_ITEMS_USED] += 1
            st[S_HEALTH] = min(cp[C_HEALTH], st[S_HEALTH] + it[best, I_VALUE])


@called
def daily_artifacts(st, cp, dice, recs, n_art):
    """Heal, calm and purge artefacts once a day, after the stalker's turn (P-08..P-10).

    Heal artefacts while Health <= ``policy.medkit_at``, then calm artefacts
    while Willpower <= ``policy.calm_at``, then purge artefacts while the
    doses are at least ``policy.purge_at`` (0: never); each artefact, in slot
    order, up to ``artifacts.restore_uses`` times a day before the next
    (:func:`sim.kernels.artifact.restore`, the rule fights use before a
    round). A purge restores "minus the doses" up to 0.
    """
    fail, limit = cp[C_ART_FAIL], cp[C_RESTORE_USES]
    for effect in (S.ART_HEAL, S.ART_CALM, S.ART_PURGE):
        for j in range(n_art):
            rec = recs[j * S.AF_SIZE:(j + 1) * S.AF_SIZE]
            for _ in range(limit):
                select = usable(rec, 0, 1, st[S_HEALTH])  # policy.artifact_use (P-08)
                if effect == S.ART_HEAL:
                    level, _, h, r, w, uses, suffered = restore(
                        dice, rec, 0, 1, fail, effect, 0, st[S_HEALTH], cp[C_HEALTH],
                        cp[C_MEDKIT_AT], 1, select)
                    st[S_HEALTH] = level
                elif effect == S.ART_CALM:
                    level, _, h, r, w, uses, suffered = restore(
                        dice, rec, 0, 1, fail, effect, 0, st[S_WILLPOWER], cp[C_WILLPOWER],
                        cp[C_CALM_AT], 1, select)
                    st[S_WILLPOWER] = level
                else:
                    level, _, h, r, w, uses, suffered = restore(
                        dice, rec, 0, 1, fail, effect, 0, -st[S_RADIATION], 0,
                        -cp[C_PURGE_AT] if cp[C_PURGE_AT] > 0 else -(1 << 40), 1, select)
                    st[S_RADIATION] = -level
                side_effects(st, h, r, w, uses, suffered)
                if uses == 0:
                    break
