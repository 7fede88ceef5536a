"""The game driver: new games and characters, the turn order, the day, runs of games.

A game starts with every seat's stalker at the start hex and full decks
(P-37); each day seats whose character died draw a new one (P-44), the
stalkers take their turns in today's order (Gap "Turn and phase order"),
then the day's end: medkits, the Zone phase (P-47) and the Emission check
(P-48, P-49). :func:`play_run` plays a run of games into result rows,
:func:`play_games` gives it its scratch state, and :func:`campaign_kernel`
adds the rows up into a chunk's counts (:func:`count_games`).
"""

from __future__ import annotations

import numpy as np

from sim.jitting.options import jit, pool_kernel
from sim.kernels import rng
from sim.kernels.campaign import (
    AR_DURABILITY,
    C_CLUES_START,
    C_COOPERATIVE,
    C_DEFORM_CARDS,
    C_FIRST_PLAYER,
    C_HEALTH,
    C_HELICOPTER_AT,
    C_KIT_ITEMS,
    C_MAX_DAYS,
    C_N_CHARACTERS,
    C_N_PLAYERS,
    C_RUBLES,
    C_SAME_DAY,
    C_START,
    C_TURN_ORDER,
    C_WEAPONS,
    C_WILLPOWER,
    C_ZONE_DECK,
    C_ZONE_START,
    DT_NONE,
    FACTION_MILITARY,
    FIRST_RANDOM,
    G_CAPPED,
    G_DAY,
    G_DRAWN,
    G_END,
    G_FINAL,
    G_ROW,
    G_SEATS,
    G_WINNERS,
    GAME_RUN,
    HIST,
    I_START,
    IDLE_HELICOPTER,
    IDLE_KNOCKED,
    IDLE_LOST,
    LG_EMISSION,
    LG_IDLE,
    LG_NEW,
    LG_ZONE,
    MAX_PLAYERS,
    MP_CAPPED,
    MP_CHARACTER,
    MP_DEATHS,
    MP_DEATHS_SQ,
    MP_DRAWN,
    MP_DRAWN_SQ,
    MP_FINAL,
    MP_LENGTH,
    MP_LENGTH_SQ,
    MP_NEW,
    MP_NEW_SQ,
    MP_NOBODY,
    MP_WINS,
    N_COUNT,
    N_HABITAT,
    ORDER_ROTATING,
    ORDER_SIMULTANEOUS,
    S_ANOMALIES,
    S_CLUES,
    S_COMPLEXES,
    S_DURABILITY,
    S_END,
    S_HEALTH,
    S_KNOCKED,
    S_LOST,
    S_NEW,
    S_POS,
    S_RADIATION_DOWN,
    S_RUBLES,
    S_SLOT,
    S_STATUS,
    S_STOP,
    S_TROPHY_ANOMALY,
    S_WEAPONS,
    S_WILLPOWER,
    S_WORN,
    S_ZONE_TOKENS,
    SAME_DAY_FIRST,
    SEAT_AWAITING,
    SEAT_CHARACTER,
    SEAT_COLS,
    SEAT_DEATHS,
    SEAT_ELIMINATED,
    SEAT_NEW,
    SEAT_PLAYING,
    SUM_DAYS,
    SUM_DAYS_SQ,
    SUMMED_SLOTS,
    V_COUNT,
    Z_BOARD_A,
    Z_BOARD_E,
    Z_DEFORM_ORDER,
    Z_EMISSIONS,
    Z_ETOKENS,
    Z_FINAL,
    Z_FIRST,
    called,
    mp_base,
    part,
)
from sim.kernels.campaign import tables as tb
from sim.kernels.campaign.damage import gain_tokens, held_artifacts, hurt, spend_tokens
from sim.kernels.campaign.emission import emission, emission_card
from sim.kernels.campaign.end import (
    conditions,
    free_characters,
    game_over,
    settle,
    write_result,
)
from sim.kernels.campaign.log import day as day_log
from sim.kernels.campaign.log import note, snapshot
from sim.kernels.campaign.movement import at_base, move
from sim.kernels.campaign.trade import daily_artifacts, helicopter, recover, use_medkits
from sim.kernels.campaign.zone import deal_zone_deck, zone_phase


@part
def _enter(cp, it, armor, st, items):
    """Put a character at the start hex with his starting Health, Willpower, money and kit (P-37).

    ``cp``, ``it`` and ``armor`` are his slot's: a seat's first character starts with
    the scenario's loadout, a new one (P-44) with the new-character kit (see
    :func:`_new_character`). Counters of the seat (knock-outs, deaths, ...)
    are kept; the character's own state starts afresh.
    """
    for k in range(S_POS, S_STOP + 1):
        st[k] = 0
    st[S_POS] = cp[C_START]
    st[S_DURABILITY] = armor[0, AR_DURABILITY]  # the starting armour, untouched (S_WORN 0)
    st[S_HEALTH] = cp[C_HEALTH]
    st[S_WILLPOWER] = cp[C_WILLPOWER]
    st[S_RUBLES] = cp[C_RUBLES]
    st[S_END] = -1
    st[S_WEAPONS] = cp[C_WEAPONS]
    st[S_TROPHY_ANOMALY] = 0
    st[S_CLUES] = cp[C_CLUES_START]  # Gap "Tokens"
    st[S_ZONE_TOKENS] = cp[C_ZONE_START]
    st[S_RADIATION_DOWN] = 0  # his own Deformation cards only (P-39)
    st[S_STATUS] = SEAT_PLAYING
    for i in range(items.shape[0]):
        items[i] = it[i, I_START]


@called
def _new_game(T, G, R, seed, t):
    """Set up game ``t``: streams, every seat's stalker at the start, full decks, empty board.

    The dice, deck and environment streams are keyed on ``(seed, t)``, so a
    game depends on nothing else (common random numbers across variants).
    Seat ``p`` plays slot ``p``: his scenario character, loadout and policy
    (P-37). The Emission Track is empty (P-47), no card lies on the board.
    The first player is seat 1 or drawn by lot (``multiplayer.first_player``).
    The Deformation deck (P-39), when it does anything, is shuffled from a
    stream of its own (``rng.DEFORMATIONS``), so the other draws are the same
    whatever it holds; the Zone deck (``zone.cards = "deck"``, P-30, P-47) is
    dealt full and drawn from its own stream (``rng.ZONE_CARDS``) likewise.
    """
    cp0, zone, deck = tb.slot(T, 0), tb.zone(G), tb.deck(R)
    rng.seed_stream(tb.dice(R), seed, t, rng.DICE)
    rng.seed_stream(deck, seed, t, rng.DECK)
    rng.seed_stream(tb.env(R), seed, t, rng.ENVIRONMENT)
    zone[:] = 0
    n_cards = cp0[C_DEFORM_CARDS]
    if n_cards > 0:
        rng.seed_stream(deck, seed, t, rng.DEFORMATIONS)
        for i in range(n_cards):
            zone[Z_DEFORM_ORDER + i] = i
        for i in range(n_cards - 1, 0, -1):
            j = rng.below(deck, i + 1)
            a, b = zone[Z_DEFORM_ORDER + i], zone[Z_DEFORM_ORDER + j]
            zone[Z_DEFORM_ORDER + i], zone[Z_DEFORM_ORDER + j] = b, a
        rng.seed_stream(deck, seed, t, rng.DECK)
    if cp0[C_ZONE_DECK] != 0:
        rng.seed_stream(tb.zone_deck(R), seed, t, rng.ZONE_CARDS)
        deal_zone_deck(cp0, zone)
    n = cp0[C_N_PLAYERS]
    if n > 1 and cp0[C_FIRST_PLAYER] == FIRST_RANDOM:
        zone[Z_FIRST] = rng.below(tb.env(R), n)  # drawn by lot (ENVIRONMENT stream)
    for p in range(n):
        st, cp = tb.seat(G, p), tb.slot(T, p)
        st[:] = 0
        st[S_SLOT] = p
        _enter(cp, tb.it(T, cp), tb.armor(T, cp), st, tb.items(G, cp, p))
        tb.trophies(G, cp0, p)[:] = 0
        tb.art_waiting(G, cp0, p)[:] = 0
    en, enemy_pool = tb.en(T, cp0), tb.enemy_pool(G, cp0)
    for e in range(enemy_pool.shape[0]):
        enemy_pool[e] = en[e, N_COUNT]
    ev, event_pool = tb.ev(T, cp0), tb.event_pool(G, cp0)
    for v in range(event_pool.shape[0]):
        event_pool[v] = ev[v, V_COUNT]
    a_count, anomaly_pool = tb.a_count(T, cp0), tb.anomaly_pool(G, cp0)
    for a in range(anomaly_pool.shape[0]):
        anomaly_pool[a] = a_count[a]
    art_deck0, art_deck = tb.art_deck0(T, cp0), tb.art_deck(G, cp0)
    for a in range(art_deck.shape[0]):
        art_deck[a] = art_deck0[a]
    tb.board(G, cp0)[:] = 0
    tb.enemy_discard(G, cp0)[:] = 0


@called
def _new_character(T, G, R, p):
    """Seat ``p`` draws a new character after a death (P-44), or is out if none is left.

    The character is drawn uniformly from the stalker cards neither in play
    (held by another seat, or out of the Zone after the Sarcophagus) nor
    discarded (the dead, P-44), from the DECK stream. He starts at the start
    hex with his card's money, the new-character kit's armour and weapons
    (his slot) and ``multiplayer.new_character_items`` item cards drawn at
    random, each uniformly from the ruleset's item cards (P-44: "draws its
    starting equipment at random").
    """
    cp0, st, deck = tb.slot(T, 0), tb.seat(G, p), tb.deck(R)
    n, n_chars = cp0[C_N_PLAYERS], cp0[C_N_CHARACTERS]
    taken, free = free_characters(T, G, p)
    if free == 0:
        st[S_STATUS] = SEAT_ELIMINATED
        return
    j = rng.below(deck, free)
    for c in range(n_chars):
        if (taken >> c) & 1 == 0:
            if j == 0:
                st[S_SLOT] = n + c
                break
            j -= 1
    cp = tb.slot(T, st[S_SLOT])
    items = tb.items(G, cp, p)
    _enter(cp, tb.it(T, cp), tb.armor(T, cp), st, items)
    tb.trophies(G, cp0, p)[:] = 0  # the dead character's trophy cards were discarded with him
    tb.art_waiting(G, cp0, p)[:] = 0  # and so were his artefacts (P-44)
    for _ in range(cp0[C_KIT_ITEMS]):
        items[rng.below(deck, items.shape[0])] += 1
    st[S_NEW] += 1


@called
def _play_turn(T, G, R, s, p, L):
    """Seat ``p``'s turn, his character being slot ``s``: movement and encounters, or a day
    out of play.

    A stalker lost in a Secret Location is out of play and placed in a bunker
    when his lost days run out (P-38, P-41); a knocked-down one does not move
    (P-42); otherwise he calls the helicopter (:func:`.trade.helicopter`, Z-05) or
    moves (:func:`.movement.move`) and gains the day's clue and Zone tokens
    (:func:`.damage.gain_tokens`). Then, in play, he uses his heal, calm and purge
    artefacts (:func:`.trade.daily_artifacts`) and spends his tokens
    (:func:`.damage.spend_tokens`). A turn without movement and his tracks at its end
    are logged (``L``, :mod:`.log`).
    """
    cp, st = tb.slot(T, s), tb.seat(G, p)
    st[S_STOP] = 0
    if st[S_LOST] > 0:
        st[S_LOST] -= 1
        note(L, p, LG_IDLE, IDLE_LOST, st[S_LOST], 0, 0, 0, 0)
        if st[S_LOST] == 0:
            recover(st, cp, tb.hexes(T, cp))
    elif st[S_KNOCKED] > 0:
        st[S_KNOCKED] -= 1
        note(L, p, LG_IDLE, IDLE_KNOCKED, st[S_KNOCKED], 0, 0, 0, 0)
    elif st[S_HEALTH] <= cp[C_HELICOPTER_AT] and helicopter(st, cp, tb.items(G, cp, p),
                                                             tb.item_order(T, cp)):
        note(L, p, LG_IDLE, IDLE_HELICOPTER, 0, 0, 0, 0, 0)
        at_base(T, G, R, s, p, FACTION_MILITARY)  # flown there, he trades there (Z-05)
    else:
        complexes, anomalies = st[S_COMPLEXES], st[S_ANOMALIES]
        move(T, G, R, s, p, L)
        gain_tokens(st, cp, st[S_COMPLEXES] - complexes, st[S_ANOMALIES] - anomalies)
    held = held_artifacts(st, cp)
    n_art = tb.art_n(T, cp)[held, DT_NONE]
    if st[S_END] < 0 and st[S_LOST] == 0 and n_art > 0:
        daily_artifacts(st, cp, tb.dice(R), tb.art_rec(T, cp)[held, DT_NONE], n_art)
        if hurt(st, cp):
            conditions(st, tb.zone(G), cp, tb.hexes(T, cp), tb.items(G, cp, p),
                       tb.lose_order(T, cp))
    if st[S_END] < 0 and st[S_LOST] == 0:
        spend_tokens(st, cp)
    snapshot(L, p, st, tb.items(G, cp, p))


@called
def _end_of_day(T, G, R, L):
    """Medkits, the Zone phase (P-47) and the Emission check (P-48, P-49), once a day for all.

    After every stalker's turn: each stalker in play uses medkits (Z-11), the
    Zone phase lays cards on the one board, and at the threshold of the one
    Emission Track the next Emission card hits every stalker in the Open
    Space (P-48; seat order, each with his own armour); the Final Emission
    kills them all (P-49). Damage then resolves into conditions (P-37..P-43).
    The Zone phase, the Emission and every seat's tracks after them are logged
    (``L``, :mod:`.log`).
    """
    cp0, zone = tb.slot(T, 0), tb.zone(G)
    n = cp0[C_N_PLAYERS]
    for p in range(n):
        st = tb.seat(G, p)
        if st[S_STATUS] == SEAT_PLAYING and st[S_LOST] == 0:
            cp = tb.slot(T, st[S_SLOT])
            use_medkits(st, cp, tb.items(G, cp, p), tb.it(T, cp), tb.item_order(T, cp))
    tokens = zone[Z_ETOKENS]
    zone_phase(T, G, R)
    note(L, -1, LG_ZONE, tokens, zone[Z_ETOKENS], zone[Z_BOARD_E], zone[Z_BOARD_A], 0, 0)
    k = emission_card(zone, cp0, tb.em(T, cp0))
    if k >= 0:
        note(L, -1, LG_EMISSION, k, zone[Z_FINAL], zone[Z_EMISSIONS], 0, 0, 0)
    for p in range(n):
        st = tb.seat(G, p)
        if st[S_STATUS] != SEAT_PLAYING:
            continue
        cp = tb.slot(T, st[S_SLOT])
        hexes = tb.hexes(T, cp)
        if k >= 0:
            held = held_artifacts(st, cp)
            emission(st, zone, cp, tb.dice(R), hexes, tb.em(T, cp),
                     tb.em_resist(T, cp)[st[S_WORN]], k, tb.art_rec(T, cp)[held],
                     tb.art_n(T, cp)[held])
        if st[S_END] < 0 and hurt(st, cp):
            conditions(st, zone, cp, hexes, tb.items(G, cp, p), tb.lose_order(T, cp))
        snapshot(L, p, st, tb.items(G, cp, p))


@part
def _turn_order(T, G, R, day):
    """Today's turn order (``multiplayer.turn_order``; Gap "Turn and phase order").

    ``seat``: the first player (``Z_FIRST``) first every day, then the seats
    after him; ``rotating``: the first player moves one seat on each day;
    ``simultaneous``: a random order drawn each day from the ENVIRONMENT
    stream (who takes a shared card first is a fair lottery).
    """
    cp0 = tb.slot(T, 0)
    order, rule = tb.order(G, cp0), cp0[C_TURN_ORDER]
    n = order.shape[0]
    first = tb.zone(G)[Z_FIRST]
    if rule == ORDER_ROTATING:
        first += day - 1
    first = first % n if n > 1 else 0  # one division a day, none alone
    for i in range(n):
        order[i] = first + i - n if first + i >= n else first + i
    if rule == ORDER_SIMULTANEOUS:
        env = tb.env(R)
        for i in range(n - 1, 0, -1):
            j = rng.below(env, i + 1)
            order[i], order[j] = order[j], order[i]


@part
def _play_day(T, G, R, day, L):
    """One day: new characters, every stalker's turn, the day's end; True when the game is over.

    Seats whose character died draw a new one (P-44); the stalkers take
    their turns in today's order (:func:`_turn_order`); unless the game is
    over, the Zone phase and the Emission check follow once for all
    (:func:`_end_of_day`). Under ``same_day_win = "first"`` (and in the
    cooperative variant) the game ends at once with the turn that decides it.
    """
    cp0 = tb.slot(T, 0)
    n = cp0[C_N_PLAYERS]
    for p in range(n):
        if tb.seat(G, p)[S_STATUS] == SEAT_AWAITING:
            _new_character(T, G, R, p)
            note(L, p, LG_NEW, tb.seat(G, p)[S_SLOT], tb.seat(G, p)[S_STATUS], 0, 0, 0, 0)
    _turn_order(T, G, R, day)
    order = tb.order(G, cp0)
    at_once = cp0[C_SAME_DAY] == SAME_DAY_FIRST or cp0[C_COOPERATIVE] != 0
    # Steps 0 .. n-1 are the turns, step n the day's end: one call site of each part
    # (settle and game_over are inlined), the game checked after every step that may end it.
    for i in range(n + 1):
        first, last = 0, 0  # the seats to settle after this step
        if i < n:
            p = order[i]
            st = tb.seat(G, p)
            if st[S_STATUS] == SEAT_PLAYING:
                _play_turn(T, G, R, st[S_SLOT], p, L)
                first, last = p, p + 1
        else:
            _end_of_day(T, G, R, L)
            first, last = 0, n
        for q in range(first, last):
            settle(T, G, q, day)
        if (at_once or i >= n - 1) and game_over(T, G):
            return True
    return False


@jit(_nrt=False)  # the root the parts are inlined into (see ``part``); allocates nothing
def play_run(T, G, R, seed, first, n_games, out, row0, L):
    """Play games ``first .. first + n_games - 1`` on the scratch state ``G`` and streams
    ``R``; game ``first + i`` fills ``out[row0 + i]``.

    Each game runs day by day until it is over or ``campaign.max_days`` have
    passed (``CAPPED``); each day is :func:`_play_day`. ``L`` is the trace log
    (:mod:`.log`): empty for the Monte Carlo, which then plays exactly as
    without one; a traced game (``n_games`` 1) writes its events there.
    """
    max_days = T[C_MAX_DAYS]  # slot 0's
    n_seats = T[C_N_PLAYERS]
    for g in range(n_games):
        _new_game(T, G, R, seed, first + g)
        day_log(L, 0)
        for p in range(n_seats):
            snapshot(L, p, tb.seat(G, p), tb.items(G, tb.slot(T, p), p))
        day = 0
        over = False
        while not over and day < max_days:
            day += 1
            day_log(L, day)
            over = _play_day(T, G, R, day, L)
        write_result(T, G, day, over, out[row0 + g])


NO_LOG = np.zeros(0, dtype=np.int64)
"""The empty trace log every Monte Carlo game passes (:mod:`.log`): nothing is written."""


def scratch(T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A game's scratch state ``G`` and random streams ``R`` for the compiled scenario ``T``,
    allocated in numpy (:mod:`.tables`).

    :func:`play_games` allocates them once per call; ``benchmarks/profile_campaign.py``
    keeps them to read the streams' counters after each game. Each enemy card's
    habitat (``habitats``) is copied from ``en`` here, once.
    """
    G = np.zeros(int(tb.header(T)[tb.GS_SIZE]), dtype=np.int64)
    tb.state(T, G).habitats[:] = tb.table(T, "en")[:, N_HABITAT]
    return G, np.zeros(tb.R_SIZE, dtype=np.uint64)


def play_games(seed, first, n_games, T, out, row0, log=NO_LOG):
    """Play games ``first .. first + n_games - 1``; game ``first + i`` fills ``out[row0 + i]``.

    The body of one game, shared by :func:`campaign_kernel` (which aggregates
    the rows) and :func:`sim.experiments.campaign.simulate_trials` (which keeps
    them), compiled once for both (:func:`play_run`). A game's result depends
    only on ``(seed, trial index)``, never on how games are grouped into calls.
    Scratch state (:func:`scratch`) is allocated here, in numpy, once per
    call, so callers pass runs of games rather than one at a time; a compiled
    function allocating it and calling :func:`play_run` would link the game
    body in and have LLVM optimise it a second time.

    Parameters
    ----------
    seed : int
        Run seed.
    first, n_games : int
        Trial index of the first game and number of games.
    T : ndarray of int64
        The compiled scenario, every slot (:func:`sim.campaign.compile.pack_slots`).
    out : ndarray of int64, shape (n_rows, G_ROW)
        Per-game results (``G_*`` columns).
    row0 : int
        Row of ``out`` for game ``first``.
    log : ndarray of int64, optional
        The trace log of one game (:mod:`.log`; ``n_games`` 1); by default none.
    """
    G, R = scratch(T)
    play_run(T, G, R, seed, first, n_games, out, row0, log)


pool_kernel(play_games, play_run)


@part
def _count_game(res, row, max_days, n_characters):
    """Add one game's result row to a chunk's counts (integers: any order gives the same sums):
    its end and end day, every summed counter (``SUMMED_SLOTS``), the multiplayer columns.
    """
    end = res[G_END]
    day = res[G_DAY]
    row[end] += 1
    row[HIST + end * (max_days + 1) + day] += 1
    for column, total in SUMMED_SLOTS:
        row[total] += res[column]
    row[SUM_DAYS] += day
    row[SUM_DAYS_SQ] += day * day
    mp = mp_base(max_days)
    winners = res[G_WINNERS]
    for p in range(MAX_PLAYERS):
        base = G_SEATS + SEAT_COLS * p
        deaths, new = res[base + SEAT_DEATHS], res[base + SEAT_NEW]
        row[mp + MP_DEATHS + p] += deaths
        row[mp + MP_DEATHS_SQ + p] += deaths * deaths
        row[mp + MP_NEW + p] += new
        row[mp + MP_NEW_SQ + p] += new * new
        if (winners >> p) & 1:
            row[mp + MP_WINS + p] += 1
            row[mp + MP_CHARACTER + res[base + SEAT_CHARACTER]] += 1
    if winners == 0:
        row[mp + MP_NOBODY] += 1
        row[mp + MP_FINAL] += res[G_FINAL]
    row[mp + MP_CAPPED] += res[G_CAPPED]
    row[mp + MP_LENGTH] += day
    row[mp + MP_LENGTH_SQ] += day * day
    row[mp + MP_DRAWN] += res[G_DRAWN]
    row[mp + MP_DRAWN_SQ] += res[G_DRAWN] * res[G_DRAWN]
    row[mp + MP_CHARACTER + n_characters + day] += 1


@jit
def count_games(games, n, row, max_days, n_characters):
    """Add the first ``n`` result rows of ``games`` to one chunk's counts ``row``."""
    for g in range(n):
        _count_game(games[g], row, max_days, n_characters)


def campaign_kernel(seed, n_trials, chunk_size, first_chunk, T, out):
    """Run chunks ``first_chunk ..`` of ``n_trials`` games; ``out`` has shape
    (n_chunks, count_width(max_days, n_characters)), row ``r`` for chunk ``first_chunk + r``.

    A serial driver in plain Python with the runner's kernel convention:
    :func:`sim.runner.run_counts` runs its chunks on a pool of threads
    (``pool_kernel``). Games are played by :func:`play_games` in runs of
    ``GAME_RUN`` into a small buffer, whose rows are then added to the chunk's
    counts (:func:`count_games`). Both are compiled functions that release the
    GIL; neither calls the other, so the game body is compiled and optimised
    once, not again inside every kernel that calls it.
    """
    max_days = int(T[C_MAX_DAYS])  # slot 0's header
    n_characters = int(T[C_N_CHARACTERS])
    games = np.zeros((min(GAME_RUN, chunk_size), G_ROW), dtype=np.int64)
    for r in range(out.shape[0]):
        c = first_chunk + r
        stop = min((c + 1) * chunk_size, n_trials)
        for lo in range(c * chunk_size, stop, GAME_RUN):
            n = min(GAME_RUN, stop - lo)
            play_games(seed, lo, n, T, games, 0)
            count_games(games, n, out[r], max_days, n_characters)


pool_kernel(campaign_kernel, play_run, count_games)
