"""Campaign kernel: whole games from the start hex to the Sarcophagus, counts per chunk.

One trial is one game of 1 to 4 stalkers on one board (P-37..P-50,
Z-01..Z-26), resolved day by day as in :mod:`sim.reference.campaign` (the
readable executable spec); a one-stalker scenario is the case of one seat:

1. Seats whose character died draw a new one (P-44) or are out
   (``multiplayer.after_death``). Then each stalker takes his turn, in the
   order of ``multiplayer.turn_order`` (Gap "Turn and phase order"): one
   who is lost (P-38, P-41) or knocked down (P-42) does not move; otherwise
   he follows the first day of his optimal route (precomputed by
   :mod:`sim.campaign.route`) toward his objective: the next Secret Complex,
   then the Sarcophagus (P-50), or the nearest bunker when he retreats to
   heal. Entering a location resolves the card lying there (a card killed
   or kept as a trophy is gone for the others) or draws from the shared
   decks; reaching the objective ends the day's movement. Stalkers do not
   fight each other (no rules in the seeds).
2. Once a day, after every turn, the Zone phase: new enemy and anomaly
   cards are placed; a card beyond the board limit, and a change of the
   Environment, add tokens to the one Emission Track (P-47), which every
   stalker's knock-outs, concussions and Deformations feed too.
3. Emission check (P-48, P-49): at the threshold the track is cleared and
   the next Emission card hits every stalker in the Open Space; the Final
   Emission ends the game for all.
4. The game ends with a win (competitive: the first stalker to survive the
   Sarcophagus; cooperative: enough of them, ``multiplayer.*`` keys), the
   Final Emission, no stalker left, or after ``campaign.max_days``.

Dice come from the trial's DICE stream, deck draws from its DECK stream, and
board placements and Environment changes from its ENVIRONMENT stream, so a
change of policy does not reshuffle the decks (common random numbers).

The compiled scenario travels as one argument, :class:`CampaignTables` (the
arrays of :class:`sim.campaign.compile.CampaignArrays` of every character
slot, stacked), and a game's scratch state as another, :class:`GameState`
(a row per seat, the shared Zone). A run of games is :func:`play_run`, made of
named parts (:func:`_new_game`, :func:`_play_day`, :func:`_play_turn`,
:func:`_move`, :func:`_location` (the Sarcophagus too), :func:`_end_of_day`,
:func:`_settle`, :func:`_game_over`, ...) that numba inlines into it; the
parts of one stalker's turn take his slot's tables (:func:`_slot`) and his
seat's view (:func:`_seat`). :func:`play_games` runs games on one scratch
state, one row of results per game (``G_*`` columns), and is shared by two
callers: :func:`campaign_kernel` adds the games up into per-chunk integer
counts and sums (columns below, :func:`count_games`), and
:func:`sim.experiments.campaign.simulate_trials` keeps the rows, which
``zonesim compare campaign`` needs to pair the variants trial by trial.
Either way a game depends only on (seed, trial index), so results do not
depend on chunking or threads.

There is no ``prange`` kernel here: :func:`campaign_kernel` is a plain-Python
driver whose chunks the runner spreads over threads (:func:`sim.jitting.options.pool_kernel`),
so the game body is compiled and optimised once, where a parallel kernel
calling it would optimise all of it again, once per kernel and once more
for its ``prange`` body.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.jitting.options import jit, pool_kernel
from sim.kernels import anomaly as A
from sim.kernels import combat as F
from sim.kernels import layout as S
from sim.kernels import rng
from sim.kernels.anomaly import encounter as anomaly_encounter
from sim.kernels.anomaly import take_damage
from sim.kernels.artifact import restore, test_bonus
from sim.kernels.combat import AVOIDED as FIGHT_AVOIDED
from sim.kernels.combat import KILLED as FIGHT_KILLED
from sim.kernels.combat import RESULT_SIZE, fight_by_thresholds
from sim.kernels.event import event_avoided
from sim.kernels.tracks import deformed, exhausted, onto

# How a game ends (first columns of ``out``).
REACHED = 0  # entered the Sarcophagus and survived it (P-50)
DEATH_KNOCKOUT_SARCOPHAGUS = 1  # P-43
DEATH_CONCUSSION_SARCOPHAGUS = 2  # P-43
DEATH_DEFORMATIONS = 3  # fifth Deformation card (P-39, P-43)
DEATH_BOTH = 4  # knocked out and concussed at once (P-43)
DEATH_FINAL_EMISSION = 5  # P-49
CAPPED = 6  # still in the Zone after the last simulated day
N_ENDS = 7

# Sums over games.
SUM_KNOCKOUTS = 7
SUM_CONCUSSIONS = 8
SUM_DEFORMATIONS = 9
SUM_EMISSIONS_HIT = 10
SUM_EMISSIONS = 11
SUM_ITEMS_USED = 12
SUM_FIGHTS = 13
SUM_KILLS = 14
SUM_ANOMALIES = 15
SUM_ARTIFACTS = 16
SUM_EVENTS = 17
SUM_DAYS = 18
SUM_DAYS_SQ = 19
SUM_COMPLEXES = 20
SUM_RUBLES = 21
SUM_ART_USES = 22  # uses of held artefacts (P-08..P-10)
SUM_SIDE_EFFECTS = 23  # side effects suffered (P-09)
SUM_EXCHANGES = 24  # artefacts bought with anomaly trophies (P-34)
HIST = 25  # histogram of the end day per end: HIST + end * (max_days + 1) + day

# Per-game results (columns of play_games' ``out``, the rows of ``simulate_trials``).
G_END = 0  # how the game ended (REACHED .. CAPPED)
G_DAY = 1  # the day it ended (0 .. max_days)
G_KNOCKOUTS = 2  # G_KNOCKOUTS .. G_EVENTS: the counters of SUM_KNOCKOUTS .. SUM_EVENTS, in order
G_CONCUSSIONS = 3
G_DEFORMATIONS = 4
G_EMISSIONS_HIT = 5
G_EMISSIONS = 6
G_ITEMS_USED = 7
G_FIGHTS = 8
G_KILLS = 9
G_ANOMALIES = 10
G_ARTIFACTS = 11
G_EVENTS = 12
G_COMPLEXES = 13  # Secret Complexes explored
G_RUBLES = 14  # rubles at the end
G_SIZE = 15  # the one-stalker columns (seat 1); the game's and every seat's follow
G_WINNERS = 15  # bit mask of the winning seats (cooperative: the team, when it won)
G_DRAWN = 16  # Emissions drawn
G_FINAL = 17  # 1: the Final Emission came (P-49)
G_CAPPED = 18  # 1: still running after the last simulated day
G_SEATS = 19  # per seat p: G_SEATS + SEAT_COLS * p + SEAT_*
SEAT_DEATHS = 0
SEAT_NEW = 1
SEAT_CHARACTER = 2  # stalkers.csv index of the seat's last character
SEAT_COLS = 3
MAX_PLAYERS = 4
G_ART_USES = G_SEATS + SEAT_COLS * MAX_PLAYERS  # seat 1's artefact counters (SUM_ART_USES ..)
G_SIDE_EFFECTS = G_ART_USES + 1
G_EXCHANGES = G_ART_USES + 2
G_SARCOPHAGUS = G_ART_USES + 3  # seat 1 entered the Sarcophagus (P-50), survived or not
G_ROW = G_ART_USES + 4
GAME_RUN = 1024  # games per play_games call inside campaign_kernel (a 280 KiB buffer)

# Multiplayer counts of campaign_kernel's rows, from mp_base(max_days) on.
MP_WINS = 0  # + seat: games the seat won
MP_DEATHS = 4  # + seat: sum of deaths
MP_DEATHS_SQ = 8
MP_NEW = 12  # + seat: sum of new characters (P-44)
MP_NEW_SQ = 16
MP_NOBODY = 20  # games nobody won
MP_FINAL = 21  # ... of which ended by the Final Emission (P-49)
MP_CAPPED = 22  # games still running after the last simulated day
MP_LENGTH = 23  # sum of game lengths in days
MP_LENGTH_SQ = 24
MP_DRAWN = 25  # sum of Emissions drawn
MP_DRAWN_SQ = 26
MP_CHARACTER = 27  # + character: games won by a character; then the length histogram

# Location kinds on the map (codes shared with sim.campaign.compile).
LOC_NONE = 0
LOC_OPEN = 1
LOC_SECRET = 2
LOC_COMPLEX = 3
LOC_BUNKER = 4
LOC_BASE = 5
LOC_EPICENTRE = 6
LOC_SARCOPHAGUS = 7

# Habitat codes of enemy cards.
HAB_OPEN = 0
HAB_SECRET = 1
HAB_ANY = 2

# Enemy kinds (trophy buyers, P-26..P-28).
KIND_MUTANT = 0
KIND_STALKER = 1
KIND_ANIMAL = 2

# Item effects.
ITEM_OTHER = 0
ITEM_EVENT = 1
ITEM_ESCAPE = 2
ITEM_MEDKIT = 3
ITEM_STIMULANT = 4
ITEM_MOVEMENT = 5
N_ITEM_EFFECTS = 6
O_COMBAT_HEALS = N_ITEM_EFFECTS  # row of ``item_order``: the items that heal in a fight

# What entering an empty location draws.
DRAW_NOTHING = 0
DRAW_EVENT = 1
DRAW_ENEMY = 2
DRAW_ANOMALY = 3

# Event effects (as sim.encounter.spec).
EV_DAMAGE = S.EFFECT_DAMAGE
EV_LOST_DAY = S.EFFECT_LOST_DAY
EV_TOKENS = S.EFFECT_EMISSION_TOKENS

# Scalar parameters (index constants into ``cp``).
C_START = 0
C_MAX_DAYS = 1
C_HEALTH = 2
C_WILLPOWER = 3
C_RADIATION_MAX = 4
C_RUBLES = 5
C_DURABILITY = 6
C_THRESHOLD = 7
C_TOKENS_LIMIT = 8
C_TOKENS_ENVIRONMENT = 9
C_TOKENS_KNOCKOUT = 10
C_TOKENS_CONCUSSION = 11
C_TOKENS_DEFORMATION = 12
C_ENEMIES_PER_DAY = 13
C_ANOMALIES_PER_DAY = 14
C_ENEMY_LIMIT = 15
C_ANOMALY_LIMIT = 16
C_ENVIRONMENT_CHANCE = 17  # probability * 2**62, compared with a 62-bit draw
C_ACCUMULATE = 18
C_DEFORMATION_LIMIT = 19
C_KNOCKOUT_REGAIN = 20
C_KNOCKED_DOWN_DAYS = 21
C_LOST_DAYS = 22
C_MEDKIT_AT = 23
C_RETREAT_AT = 24
C_PAY_HEAL = 25
C_HEAL_PRICE = 26
C_N_OBJECTIVES = 27
C_SARCOPHAGUS_TARGET = 28
C_OPEN_DRAW = 29
C_SECRET_DRAW = 30
C_REPUTATION = 31
C_TROPHY_LOT = 32
C_TROPHY_PRICE = 33
C_GEAR_LOT = 34
C_GEAR_ITEM = 35
C_SELL_DIVISOR = 36
C_EVENT_ITEMS_CONSUMED = 37
C_SNEAK = 38
C_ESCAPE_ITEMS_CONSUMED = 39
C_WEAPONS = 40  # bit mask of the scenario's weapons held at the start (P-37 losses)
C_CHARACTER = 41  # the stalker card's index in stalkers.csv
C_N_PLAYERS = 42  # seats (1..MAX_PLAYERS); the keys below are the same in every slot
C_N_CHARACTERS = 43  # stalker cards in the ruleset (new characters, P-44)
C_TURN_ORDER = 44  # ORDER_*: multiplayer.turn_order
C_SAME_DAY = 45  # SAME_DAY_*: multiplayer.same_day_win
C_AFTER_WIN = 46  # AFTER_WIN_*: multiplayer.after_win
C_AFTER_DEATH = 47  # AFTER_DEATH_*: multiplayer.after_death (P-44)
C_KIT_ITEMS = 48  # multiplayer.new_character_items: random item cards of a new character
C_COOPERATIVE = 49  # 1: cooperative variant (P-45)
C_NEEDED = 50  # cooperative: stalkers who must survive the Sarcophagus (0: all still in)
C_FIRST_PLAYER = 51  # FIRST_*: multiplayer.first_player
C_N_WEAPONS = 52  # weapon bits of S_WEAPONS; the artefact slots' bits follow
C_ART_FAIL = 53  # FAIL_*: artifacts.failed_activation (P-10)
C_RESIST_ORDER = 54  # RESIST_*: artifacts.resist_order
C_RESTORE_USES = 55  # artifacts.restore_uses: per fight, and per day outside fights
C_CARRY_LIMIT = 56  # artifacts.carry_limit (0: none)
C_MOVEMENT_STACKS = 57  # artifacts.movement_stacks (Z-20)
C_EXCHANGE_RATE = 58  # artifacts.exchange_trophies (P-34)
C_EXCHANGE_DRAW = 59  # EXCHANGE_*: artifacts.exchange_draw
C_CALM_AT = 60  # policy.calm_at
C_PURGE_AT = 61  # policy.purge_at (0: never)
C_USE_MOVEMENT = 62  # policy.use_movement_artifacts
C_EXCHANGE = 63  # policy.exchange
C_SIZE = 64


# Columns of the packed per-card tables (see sim.campaign.compile.CampaignArrays).
H_KIND = 0  # hexes: location kind code
H_BUNKER = 1  # hexes: nearest bunker (P-37)
H_BUNKER_TARGET = 2  # hexes: objective index of that bunker
H_FACTION = 3  # hexes: faction code of a base (FACTION_*; P-26, P-27)
I_EFFECT = 0  # items: effect code
I_VALUE = 1  # items: value (event items: the shift, AUTO_SHIFT for the Torsion scanner)
I_PRICE = 2
I_START = 3  # items: cards held at the start
N_KIND = 0  # enemies: trophy kind
N_HABITAT = 1
N_PSI = 2  # enemies: deals mental disturbances
N_COUNT = 3
V_AVOID = 0  # events: avoid roll (0: none)
V_EFFECT = 1
V_VALUE = 2
V_TARGET = 3
V_RESIST = 4
V_COUNT = 5
V_DTYPE = 6  # damage type (index of sim.campaign.artifacts.DTYPES): the resist artefacts' row
M_WOUNDS = 0  # emissions, in deck order
M_RADIATION = 1
M_PSI = 2
M_FINAL = 3
M_WOUND_RESIST = 4
M_RAD_RESIST = 5
M_PSI_RESIST = 6
M_WOUND_DTYPE = 7  # damage type of the wounds (DT_* row of the artefact records)
DT_RADIATION = 4  # rows of art_rec: the damage types of sim.rules.DAMAGE_TYPES, then none
DT_PSI = 5
DT_NONE = 6  # no damage: daily use and movement (resist artefacts do not act)
AC_TYPE = 0  # artefact cards (art_cards): type index in the deck (P-35)
AC_PRICE = 1
AC_COUNT = 2  # printed count
AC_SLOT = 3  # the character's slot that keeps the card (-1: sold, P-11)
AC_SIZE = 4
EXCHANGE_RANDOM = 0  # artifacts.exchange_draw
EXCHANGE_CHEAPEST = 1
EXCHANGE_DEAREST = 2
L_KIND = 0  # belongings lost on a knock-out (P-37), cheapest first: BELONG_* kind
L_INDEX = 1  # item card index or weapon bit

# Kinds of belongings (P-37: half of all his belongings are lost).
BELONG_ITEM = 0
BELONG_WEAPON = 1
BELONG_ARMOR = 2

# Factions owning bases (P-26..P-28: who buys which trophies).
FACTION_NONE = 0
FACTION_DUTY = 1
FACTION_FREEDOM = 2
FACTION_ECOLOGISTS = 3
FACTION_MILITARY = 4


# Mutable state of one seat (index constants into a row of ``st``).
S_POS = 0
S_HEALTH = 1
S_WILLPOWER = 2
S_RADIATION = 3
S_DEFORMATIONS = 4
S_ARMOR = 5  # damage tokens on the armour (P-04); == durability: destroyed (P-05)
S_RUBLES = 6
S_OBJECTIVE = 7
S_KNOCKED = 8  # days without movement left (P-42)
S_LOST = 9  # days out of play left (P-38, P-41)
S_TROPHY_MUTANT = 10
S_TROPHY_STALKER = 11
S_ART_COUNT = 12
S_ART_VALUE = 13
S_END = 14  # -1 while the seat's current character is in the Zone
S_STOP = 15  # movement stops for today
S_KO = 16
S_CONCUSSIONS = 17
S_EMISSIONS_HIT = 18
S_EMISSIONS = 19
S_ITEMS_USED = 20
S_FIGHTS = 21
S_KILLS = 22
S_ANOMALIES = 23
S_ARTIFACTS = 24
S_EVENTS = 25
S_EXPLORED = 26
S_WEAPONS = 27  # bit mask of the weapons, then of the artefact slots, held (P-37)
S_SLOT = 28  # the seat's current character: a slot of the stacked tables
S_STATUS = 29  # SEAT_PLAYING .. SEAT_AWAITING
S_DEATHS = 30  # characters of this seat who died (P-43)
S_NEW = 31  # new characters this seat drew (P-44)
S_TROPHY_ANOMALY = 32  # anomaly trophies (P-34), exchanged at the Ecologists' Bunker
S_ART_USES = 33
S_SIDE_EFFECTS = 34
S_EXCHANGES = 35
S_SARCOPHAGUS = 36  # times the seat's characters entered the Sarcophagus (P-50), survived or not
S_SIZE = 37

# Shared state of the Zone (index constants into ``zone``): one board, one Emission Track.
Z_ETOKENS = 0  # tokens on the Emission Track (P-47), fed by every stalker
Z_ENEXT = 1  # next card of the Emission deck
Z_ACC_W = 2  # accumulated Emission wounds, doses, disturbances (P-49)
Z_ACC_R = 3
Z_ACC_P = 4
Z_BOARD_E = 5  # enemy and anomaly cards on the board
Z_BOARD_A = 6
Z_EMISSIONS = 7  # Emissions drawn
Z_FINAL = 8  # the Final Emission came (P-49)
Z_WIN_DAY = 9  # day of the first win (0: none yet)
Z_REACHED = 10  # stalkers who survived the Sarcophagus
Z_WINNERS = 11  # bit mask of the winning seats
Z_DISCARDED = 12  # bit mask of dead characters' cards (P-44: discarded)
Z_FIRST = 13  # the seat that moves first on day 1 (multiplayer.first_player)
Z_SIZE = 14

# Seat status (``S_STATUS``).
SEAT_PLAYING = 0
SEAT_FINISHED = 1  # survived the Sarcophagus (P-50)
SEAT_ELIMINATED = 2  # dead and out (``multiplayer.after_death = "eliminated"``)
SEAT_AWAITING = 3  # dead; a new character enters next day (P-44)

# Codes of the multiplayer keys (``C_TURN_ORDER`` .. ``C_AFTER_DEATH``).
ORDER_SEAT = 0
ORDER_ROTATING = 1
ORDER_SIMULTANEOUS = 2
SAME_DAY_FIRST = 0
SAME_DAY_SHARED = 1
AFTER_WIN_END = 0
AFTER_WIN_PLAY_ON = 1
AFTER_DEATH_ELIMINATED = 0
AFTER_DEATH_NEW = 1
FIRST_SEAT1 = 0
FIRST_RANDOM = 1

part = jit(inline="always", _nrt=False)
"""Compile a part of the game body that takes ``tables`` or ``game``: inlined into
:func:`play_run`, no reference counts.

Inlined, these parts make one function that LLVM optimises as a whole; called
instead, each gets its ~40 arrays as ~300 scalar arguments, and the game body
ran 2.8 times slower (base scenario). The parts allocate nothing (numba refuses
to compile one that does), so they need no reference counting; with it, each
call counts every array of ``tables`` and ``game`` up and down, with atomic
operations on counters that all threads share for ``tables``: 6 times slower
inlined, 14 times called. Small parts that run often (drawing a card, an armour
roll, the conditions after a damage step) are inlined too.
"""

called = jit(_nrt=False)
"""Compile a part that takes a few arrays and runs rarely (losing belongings on a
knock-out, recovering in a bunker, trading, the Emission): called, not inlined.

numba inlines by copying the callee's IR, so every inlined part adds compile
work to each function it is inlined into, up to :func:`play_run`; calling
these parts costs a few scalar arguments a call and no measurable speed, and
took a quarter off the kernel's compile time (``benchmarks/bench_startup.py
--compile``).
"""

fight = jit(fight_by_thresholds.py_func)
"""The one fight rule (:func:`sim.kernels.combat.fight`, by the thresholds: the game plays
no plan), compiled to be called here.

The combat and paired kernels inline it (a fight is their whole trial); the game
body calls it from three places, where three inlined copies tripled its compile
work for no measurable speed.
"""


class CampaignTables(NamedTuple):
    """A compiled scenario as the kernels take it: one argument instead of 29 arrays.

    The one declaration of the compiled scenario's tables: the compile step's
    :class:`sim.campaign.compile.CampaignArrays` is generated from these fields
    (see there for shapes and meanings), and :func:`_slot` passes them in this
    order (a test reads it). Numba
    passes a named tuple of arrays as one typed argument (and caches kernels
    taking it), so every jitted function takes ``tables`` and reads the
    fields it needs.

    The kernels take the tables of every *slot* stacked on a first axis
    (:func:`sim.campaign.compile.pack_slots`): a slot is one character with
    his loadout and policy, compiled like a one-stalker scenario. Slots
    ``0 .. n_players - 1`` are the seats' starting characters; further slots
    are the characters a seat may draw after a death (P-44). The parts of one
    stalker's day take one slot's views (:func:`_slot`), with exactly the
    shapes of a one-stalker scenario.
    """

    cp: np.ndarray
    hexes: np.ndarray
    day_table: np.ndarray
    day_len: np.ndarray
    target_hex: np.ndarray
    allowance_of_value: np.ndarray
    place_open: np.ndarray
    place_secret: np.ndarray
    place_any: np.ndarray
    it: np.ndarray
    item_order: np.ndarray
    lose_order: np.ndarray
    shopping: np.ndarray
    e_params: np.ndarray
    e_bonus: np.ndarray
    e_spend: np.ndarray
    e_uses0: np.ndarray
    en: np.ndarray
    sarcophagus: np.ndarray
    a_params: np.ndarray
    a_count: np.ndarray
    art_deck0: np.ndarray
    art_value: np.ndarray
    ev: np.ndarray
    em: np.ndarray
    art_rec: np.ndarray
    art_n: np.ndarray
    art_cards: np.ndarray
    art_identity: np.ndarray


class GameState(NamedTuple):
    """Scratch arrays of one game, allocated once per :func:`play_games` call.

    ``st`` (n_players, S_SIZE) and ``items`` (n_players, n_items) hold one
    row per seat (``S_*`` indices; item cards held); ``zone`` the shared
    Zone (``Z_*``: Emission Track, board counts, winners); ``order`` today's
    turn order; the pools hold the cards left in each shared deck; ``board``
    the card lying on each hex of the one board (enemy ``e``: ``e + 1``,
    anomaly ``a``: ``-(a + 1)``); ``dice``, ``deck`` and ``env`` the trial's
    three random streams (common random numbers); the rest are buffers of
    the fight and anomaly primitives.

    A seat's view of the game (:func:`_seat`) is a ``GameState`` too, whose
    ``st`` and ``items`` are that seat's rows and every other field the
    shared array (the one board, the shared decks, the Emission Track).
    """

    st: np.ndarray
    items: np.ndarray
    zone: np.ndarray
    order: np.ndarray
    enemy_pool: np.ndarray
    anomaly_pool: np.ndarray
    event_pool: np.ndarray
    art_deck: np.ndarray
    art_scratch: np.ndarray
    board: np.ndarray
    habitats: np.ndarray
    dice: np.ndarray
    deck: np.ndarray
    env: np.ndarray
    fparams: np.ndarray
    aparams: np.ndarray
    stims: np.ndarray
    uses: np.ndarray
    fres: np.ndarray
    ares: np.ndarray


@part
def _slot(tables, s):
    """The tables of slot ``s`` (views): one character's compiled scenario."""
    return CampaignTables(tables.cp[s], tables.hexes[s], tables.day_table[s], tables.day_len[s],
                          tables.target_hex[s], tables.allowance_of_value[s], tables.place_open[s],
                          tables.place_secret[s], tables.place_any[s], tables.it[s],
                          tables.item_order[s], tables.lose_order[s], tables.shopping[s],
                          tables.e_params[s], tables.e_bonus[s], tables.e_spend[s],
                          tables.e_uses0[s], tables.en[s], tables.sarcophagus[s],
                          tables.a_params[s], tables.a_count[s], tables.art_deck0[s],
                          tables.art_value[s], tables.ev[s], tables.em[s], tables.art_rec[s],
                          tables.art_n[s], tables.art_cards[s], tables.art_identity[s])


@part
def _seat(game, p):
    """Seat ``p``'s view of the game: its own rows, the shared Zone (see :class:`GameState`)."""
    return GameState(game.st[p], game.items[p], game.zone, game.order, game.enemy_pool,
                     game.anomaly_pool, game.event_pool, game.art_deck, game.art_scratch,
                     game.board, game.habitats, game.dice, game.deck, game.env, game.fparams,
                     game.aparams, game.stims, game.uses, game.fres, game.ares)


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


@part
def _pay_heal(st, cp):
    """Heal wounds at ``economy.heal_price_per_wound`` while money lasts (P-37)."""
    if cp[C_PAY_HEAL] == 0:
        return
    price = max(cp[C_HEAL_PRICE], 1)
    heal = min(cp[C_HEALTH] - st[S_HEALTH], st[S_RUBLES] // price)
    if heal > 0:
        st[S_HEALTH] += heal
        st[S_RUBLES] -= heal * cp[C_HEAL_PRICE]
    heal = min(cp[C_WILLPOWER] - st[S_WILLPOWER], st[S_RUBLES] // price)
    if heal > 0:
        st[S_WILLPOWER] += heal
        st[S_RUBLES] -= heal * cp[C_HEAL_PRICE]


@called
def _lose_half(st, cp, items, lose_order):
    """Lose half of all belongings, rounded in the stalker's favour (P-37).

    Belongings are items, weapons, the armour (unless already destroyed,
    P-05) and artefacts ("half of all his items, ordinary, rare and artefacts
    alike"). The player chooses what goes (Gap); the policy gives up the
    cheapest cards first (``lose_order``, compiled by price), artefacts last.
    Lost armour counts as destroyed: its tokens are set to its durability.
    """
    armor = 1 if st[S_ARMOR] < cp[C_DURABILITY] else 0
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
        elif kind == BELONG_ARMOR and armor:
            st[S_ARMOR] = cp[C_DURABILITY]
            lose -= 1
    if lose > 0 and st[S_ART_COUNT] > 0:
        st[S_ART_VALUE] -= st[S_ART_VALUE] * lose // st[S_ART_COUNT]
        st[S_ART_COUNT] -= lose


@part
def _hurt(st, cp):
    """Whether a track is exhausted or over its maximum (work for :func:`_conditions`)."""
    return (exhausted(st[S_HEALTH]) or exhausted(st[S_WILLPOWER])
            or deformed(st[S_RADIATION], cp[C_RADIATION_MAX]))


@called
def _conditions(st, zone, cp, hexes, items, lose_order):
    """Resolve knock-out, concussion and deformation after a damage step (P-37..P-43, P-47).

    Knocked out and concussed at once, or either in the Sarcophagus, is death
    (P-43); the fifth Deformation card is death (P-39). Otherwise the stalker
    is moved to the nearest bunker (after a lost day in a Secret Location,
    P-38/P-41), loses half his belongings (P-37; Zone tokens of P-40 are not
    modelled), is knocked down (P-42), regains 1 point and may pay to heal.
    Each knock-out, concussion and deformation adds Emission tokens to the
    one track every stalker shares (``zone``, P-47: "some Stalker").
    """
    if st[S_LOST] > 0:
        return  # out of play until placed in a bunker (P-38, P-41)
    pos = st[S_POS]
    if deformed(st[S_RADIATION], cp[C_RADIATION_MAX]):
        st[S_DEFORMATIONS] += 1
        st[S_RADIATION] = 0
        zone[Z_ETOKENS] += cp[C_TOKENS_DEFORMATION]
        if st[S_DEFORMATIONS] >= cp[C_DEFORMATION_LIMIT]:
            st[S_END] = DEATH_DEFORMATIONS
            return
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
        st[S_KO] += 1
        zone[Z_ETOKENS] += cp[C_TOKENS_KNOCKOUT]
        _lose_half(st, cp, items, lose_order)
    else:
        st[S_CONCUSSIONS] += 1
        zone[Z_ETOKENS] += cp[C_TOKENS_CONCUSSION]
    st[S_STOP] = 1
    st[S_KNOCKED] = cp[C_KNOCKED_DOWN_DAYS]
    secret = hexes[pos, H_KIND] == LOC_SECRET or hexes[pos, H_KIND] == LOC_COMPLEX
    if secret and cp[C_LOST_DAYS] > 0:
        st[S_LOST] = cp[C_LOST_DAYS]
        return
    _recover(st, cp, hexes)  # in the bunker at once (``death.lost_days = 0``: no day lost)


@called
def _recover(st, cp, hexes):
    """In the bunker: regain a point of the exhausted track and pay to heal (P-37, P-40)."""
    st[S_POS] = hexes[st[S_POS], H_BUNKER]
    if exhausted(st[S_HEALTH]):
        st[S_HEALTH] = cp[C_KNOCKOUT_REGAIN]
    if exhausted(st[S_WILLPOWER]):
        st[S_WILLPOWER] = cp[C_KNOCKOUT_REGAIN]
    _pay_heal(st, cp)


@part
def _held(st, cp):
    """Bit mask of the artefact slots held: the bits of ``S_WEAPONS`` above the weapons."""
    return st[S_WEAPONS] >> cp[C_N_WEAPONS]


@part
def _lose(st, health, radiation, willpower):
    """Points lost on the tracks (P-37, P-39, P-40): radiation doses are gained."""
    st[S_HEALTH] -= health
    st[S_RADIATION] += radiation
    st[S_WILLPOWER] -= willpower


@part
def _side_effects(st, health, radiation, willpower, uses, suffered):
    """Artefact side effects onto the tracks (P-09), and the uses counted (P-08..P-10)."""
    _lose(st, health, radiation, willpower)
    st[S_ART_USES] += uses
    st[S_SIDE_EFFECTS] += suffered


@part
def _hazard(st, cp, dice, damage, target, resist, recs, n_art):
    """Damage through the resist artefacts and the armour onto one track.

    P-02..P-05 (armour), P-08..P-10 (the held resist artefacts of the
    damage's type, ``recs``: :func:`sim.kernels.anomaly.take_damage`, the
    rule of every hazard), P-37, P-39, P-40 (the tracks).
    """
    through, st[S_ARMOR], _, _, h, r, w, uses, suffered = take_damage(
        dice, recs, 0, n_art, cp[C_ART_FAIL], cp[C_RESIST_ORDER], damage, target, resist,
        cp[C_DURABILITY], st[S_ARMOR], st[S_HEALTH], st[S_RADIATION], cp[C_RADIATION_MAX],
        st[S_WILLPOWER], -1)
    health, radiation, willpower = onto(target, through)
    _lose(st, health, radiation, willpower)
    if n_art > 0:
        _side_effects(st, h, r, w, uses, suffered)


@part
def _fight(tables, game, e):
    """Fight enemy card ``e`` with the current Health, armour, weapons and heals (P-16..P-29).

    The fight tables of the weapons still held (``S_WEAPONS``, P-37) are
    used. Stimulants heal in combat (Z-12), medkits too under
    ``combat.medkits_in_combat`` (P-24); both are used in item-card order
    (``item_order[O_COMBAT_HEALS]``, compiled from that key).
    The best escape item helps a Reputation avoid roll (Z-15..Z-17) and is
    used up under ``escape.items_consumed``. The artefacts held act as in
    ``zonesim combat`` (P-08..P-10, P-23; their records follow the fight's
    header in ``e_params``). Returns the fight outcome (a
    :mod:`sim.kernels.combat` code); trophies of killed enemies are counted
    by kind (P-26..P-28).
    """
    cp, en, it, order = tables.cp, tables.en, tables.it, tables.item_order
    st, items, fparams, stims, fres = game.st, game.items, game.fparams, game.stims, game.fres
    sneak = cp[C_SNEAK]
    w = st[S_WEAPONS]
    n_art = tables.e_params[w, e, S.P_N_ART]
    for k in range(S.P_SIZE + n_art * S.AF_SIZE):
        fparams[k] = tables.e_params[w, e, k]
    fparams[S.P_OTHER] = st[S_HEALTH] if en[e, N_PSI] != 0 else st[S_WILLPOWER]
    fparams[S.P_TOKENS] = st[S_ARMOR]
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
    escape = _best_item(items, order, ITEM_ESCAPE)
    fparams[S.P_ESCAPE_TARGET] = cp[C_REPUTATION] - (it[escape, I_VALUE] if escape >= 0 else 0)
    if (escape >= 0 and sneak != 0 and cp[C_ESCAPE_ITEMS_CONSUMED] != 0
            and fparams[S.P_AVOID_RULE] == S.AVOID_REPUTATION):
        items[escape] -= 1  # used on the avoid roll, whatever its result (Z-15)
        st[S_ITEMS_USED] += 1
    stims[n_stims] = 0
    fight(game.dice, fparams, stims[:n_stims + 1], tables.e_uses0[w, e], game.uses,
          tables.e_bonus[w, e], tables.e_spend[w, e], fres)
    outcome = fres[F.R_OUTCOME]
    st[S_ARMOR] = fres[F.R_TOKENS]
    if n_art > 0:  # the other track and radiation after side effects (P-09)
        if en[e, N_PSI] != 0:
            st[S_HEALTH] = fres[F.R_OTHER]
        else:
            st[S_WILLPOWER] = fres[F.R_OTHER]
        _side_effects(st, 0, fres[F.R_RADIATION], 0, fres[F.R_ART_USES],
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
        if en[e, N_KIND] == KIND_STALKER:
            st[S_TROPHY_STALKER] += 1
        else:
            st[S_TROPHY_MUTANT] += 1
    return outcome


@part
def _anomaly(tables, game, a):
    """Meet anomaly card ``a`` (P-31..P-36); True when its card is kept as a trophy (P-34)."""
    st, aparams, ares, art_deck = game.st, game.aparams, game.ares, game.art_deck
    held = _held(st, tables.cp)
    n_art = tables.a_params[held, a, S.A_N_ART]
    for k in range(S.A_SIZE + n_art * S.AF_SIZE):
        aparams[k] = tables.a_params[held, a, k]
    aparams[S.A_TOKENS] = st[S_ARMOR]
    aparams[S.A_HEALTH] = st[S_HEALTH]
    aparams[S.A_RADIATION] = st[S_RADIATION]
    aparams[S.A_WILLPOWER] = st[S_WILLPOWER]
    anomaly_encounter(game.dice, game.deck, aparams, art_deck, game.art_scratch, ares)
    st[S_ARMOR] = ares[A.R_TOKENS]
    health, radiation, willpower = onto(aparams[S.A_TARGET], ares[A.R_LOST])
    _lose(st, health, radiation, willpower)
    if n_art > 0:
        _side_effects(st, ares[A.R_SIDE_HEALTH], ares[A.R_SIDE_RADIATION],
                      ares[A.R_SIDE_WILLPOWER], ares[A.R_ART_USES], ares[A.R_SIDE_EFFECTS])
    if ares[A.R_OUTCOME] != A.AVOIDED:  # he was inside
        st[S_ANOMALIES] += 1
    if ares[A.R_FOUND] != 0:
        # The found card leaves the deck; cards set aside during the search go
        # back (Gap, P-35).
        want = aparams[S.A_ARTIFACT]
        art_deck[want] -= 1
        st[S_ARTIFACTS] += 1
        _gain(st, tables.cp, game.deck, tables.art_cards, tables.art_identity,
              tables.art_value, want, -1)
    kept = A.keeps_trophy(ares[A.R_OUTCOME])
    if kept:
        st[S_TROPHY_ANOMALY] += 1
    return kept


@called
def _gain(st, cp, deck, cards, identity, value, t, card):
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
    if slot >= 0:
        bit = np.int64(1) << (cp[C_N_WEAPONS] + slot)
        held = st[S_WEAPONS] >> cp[C_N_WEAPONS]
        n_held = 0
        while held:
            n_held += held & 1
            held >>= 1
        if st[S_WEAPONS] & bit == 0 and (cp[C_CARRY_LIMIT] == 0 or n_held < cp[C_CARRY_LIMIT]):
            st[S_WEAPONS] |= bit
            return
    st[S_ART_COUNT] += 1
    st[S_ART_VALUE] += cards[card, AC_PRICE]


@called
def _exchange(st, cp, deck, art_deck, cards, identity, value):
    """At the Ecologists' Bunker, anomaly trophies buy artefacts (P-07, P-34).

    Every ``artifacts.exchange_trophies`` trophies buy one card while the
    deck has any: a random one (a type in proportion to the cards left, then
    the card, :func:`_gain`), or the cheapest or dearest card of a type with
    cards left (``artifacts.exchange_draw``).
    """
    rate = max(cp[C_EXCHANGE_RATE], 1)
    while st[S_TROPHY_ANOMALY] >= rate:
        card = -1
        if cp[C_EXCHANGE_DRAW] == EXCHANGE_RANDOM:
            t = _draw_card(deck, art_deck, art_deck, -1)
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
        _gain(st, cp, deck, cards, identity, value, t, card)


@part
def _event(st, zone, cp, dice, v, ev, items, it, order, recs, n_art):
    """Resolve event card ``v`` (Z-08..Z-10) with the best event item held.

    The avoidance roll is :func:`sim.kernels.event.event_avoided`, the rule
    of every caller; the best item is the one with the largest shift (the
    Torsion scanner's ``AUTO_SHIFT`` above all, Z-10). The held resist
    artefacts of the damage's type (``recs``, ``n_art``: rows of ``art_rec``)
    absorb with the armour (P-08).
    """
    st[S_EVENTS] += 1
    shift = 0
    if ev[v, V_AVOID] > 0:
        best = _best_item(items, order, ITEM_EVENT)
        if best >= 0:
            shift = it[best, I_VALUE]
            if cp[C_EVENT_ITEMS_CONSUMED] != 0:
                items[best] -= 1
                st[S_ITEMS_USED] += 1
    if event_avoided(dice, ev[v, V_AVOID], shift):
        return
    effect = ev[v, V_EFFECT]
    if effect == S.EFFECT_DAMAGE:
        d = ev[v, V_DTYPE]
        _hazard(st, cp, dice, ev[v, V_VALUE], ev[v, V_TARGET], ev[v, V_RESIST], recs[d], n_art[d])
    elif effect == S.EFFECT_LOST_DAY:
        st[S_STOP] = 1
        st[S_KNOCKED] += ev[v, V_VALUE]
    elif effect == S.EFFECT_EMISSION_TOKENS:
        zone[Z_ETOKENS] += ev[v, V_VALUE]


@called
def _trade(st, cp, items, it, shopping, faction):
    """At a faction base: sell trophies and artefacts, then shop (P-11, P-26..P-28).

    Only Duty, at its base, buys mutant and animal trophies, in lots
    (``economy.mutant_trophy_lot`` for ``economy.mutant_trophy_price``; P-26,
    P-28); only Freedom, at its base, gives one Gear for a lot of stalker
    trophies (P-27; assumption: the first item of the shopping list).
    Artefacts sell at any base for ``price // economy.artifact_sell_divisor``
    (P-11). Then each item of the shopping list is bought once while money
    lasts.
    """
    lot = max(cp[C_TROPHY_LOT], 1)
    if faction == FACTION_DUTY:
        lots = st[S_TROPHY_MUTANT] // lot
        st[S_RUBLES] += lots * cp[C_TROPHY_PRICE]
        st[S_TROPHY_MUTANT] -= lots * lot
    gear = max(cp[C_GEAR_LOT], 1)
    if faction == FACTION_FREEDOM and cp[C_GEAR_ITEM] >= 0:
        while st[S_TROPHY_STALKER] >= gear:
            st[S_TROPHY_STALKER] -= gear
            items[cp[C_GEAR_ITEM]] += 1
    st[S_RUBLES] += st[S_ART_VALUE] // max(cp[C_SELL_DIVISOR], 1)
    st[S_ART_VALUE] = 0
    st[S_ART_COUNT] = 0
    for j in range(shopping.shape[0]):
        i = shopping[j]
        if i >= 0 and st[S_RUBLES] >= it[i, I_PRICE]:
            st[S_RUBLES] -= it[i, I_PRICE]
            items[i] += 1


@part
def _use_medkits(st, cp, items, it, order):
    """Outside combat, use medkits while Health is at or below ``medkit_at`` (Z-11..Z-14)."""
    while st[S_HEALTH] <= cp[C_MEDKIT_AT] and st[S_HEALTH] < cp[C_HEALTH]:
        best = _best_item(items, order, ITEM_MEDKIT)
        if best < 0:
            return
        items[best] -= 1
        st[S_ITEMS_USED] += 1
        st[S_HEALTH] = min(cp[C_HEALTH], st[S_HEALTH] + it[best, I_VALUE])


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
def _emission_card(zone, cp, em):
    """Emission check at the end of the Zone phase (P-48, P-49): the card drawn, or -1.

    At the threshold the shared track is cleared and the next card of the
    shared Emission deck is drawn; its effects accumulate (P-49) whoever it
    hits. A Final Emission sets ``Z_FINAL``.
    """
    if zone[Z_ETOKENS] < cp[C_THRESHOLD]:
        return -1
    zone[Z_ETOKENS] = 0
    k = min(zone[Z_ENEXT], em.shape[0] - 1)
    zone[Z_ENEXT] += 1
    zone[Z_EMISSIONS] += 1
    if em[k, M_FINAL] != 0:
        zone[Z_FINAL] = 1
        return k
    zone[Z_ACC_W] += em[k, M_WOUNDS]
    zone[Z_ACC_R] += em[k, M_RADIATION]
    zone[Z_ACC_P] += em[k, M_PSI]
    return k


@called
def _emission(st, zone, cp, dice, hexes, em, k, recs, n_art):
    """Emission card ``k`` against one stalker (P-48, P-49).

    The Final Emission kills him (P-49); any other card hits him only in the
    Open Space (P-48): Secret Locations, Complexes, bunkers and bases
    shelter, and so does being out of play (P-38, P-41). Its wounds, doses
    and disturbances are three damages, each through the held resist
    artefacts of its type (``recs``, ``n_art``: rows of ``art_rec``) and the
    armour.
    """
    st[S_EMISSIONS] += 1
    if em[k, M_FINAL] != 0:
        st[S_END] = DEATH_FINAL_EMISSION
        return
    kind = hexes[st[S_POS], H_KIND]
    sheltered = (kind == LOC_SECRET or kind == LOC_COMPLEX or kind == LOC_BUNKER
                 or kind == LOC_BASE or st[S_LOST] > 0)
    if sheltered:
        return
    st[S_EMISSIONS_HIT] += 1
    wounds = zone[Z_ACC_W] if cp[C_ACCUMULATE] != 0 else em[k, M_WOUNDS]
    doses = zone[Z_ACC_R] if cp[C_ACCUMULATE] != 0 else em[k, M_RADIATION]
    psi = zone[Z_ACC_P] if cp[C_ACCUMULATE] != 0 else em[k, M_PSI]
    d = em[k, M_WOUND_DTYPE]
    _hazard(st, cp, dice, wounds, S.TARGET_HEALTH, em[k, M_WOUND_RESIST], recs[d], n_art[d])
    _hazard(st, cp, dice, doses, S.TARGET_RADIATION, em[k, M_RAD_RESIST], recs[DT_RADIATION],
            n_art[DT_RADIATION])
    _hazard(st, cp, dice, psi, S.TARGET_WILLPOWER, em[k, M_PSI_RESIST], recs[DT_PSI],
            n_art[DT_PSI])


@part
def _draw_event(tables, game):
    """An empty location draws an event card (Z-08..Z-10).

    Events are drawn without replacement and reshuffled when the deck runs out.
    """
    event_pool = game.event_pool
    v = _draw_card(game.deck, event_pool, event_pool, -1)
    if v < 0:
        for i in range(event_pool.shape[0]):
            event_pool[i] = tables.ev[i, V_COUNT]
        v = _draw_card(game.deck, event_pool, event_pool, -1)
    if v >= 0:
        held = _held(game.st, tables.cp)
        _event(game.st, game.zone, tables.cp, game.dice, v, tables.ev, game.items, tables.it,
               tables.item_order, tables.art_rec[held], tables.art_n[held])


@part
def _zone(tables, game):
    """Zone phase: new enemy and anomaly cards on the board, Environment change (P-47).

    Each day ``zone.enemies_per_day`` enemy cards and ``zone.anomalies_per_day``
    anomaly cards are drawn and laid on a random location suiting the card's
    habitat (anomalies: any location). A card beyond the board limit
    (``zone.enemy_limit``, ``zone.anomaly_limit``) is returned and adds
    ``emission.tokens_per_limit`` tokens; a card whose location is taken is
    returned. The Environment changes with ``zone.environment_change_chance``,
    adding ``emission.tokens_per_environment`` tokens. ``tables`` are the
    game's: these keys and the map are the same in every slot (slot 0's are read).
    """
    zone, cp, env, deck, board = game.zone, tables.cp[0], game.env, game.deck, game.board
    enemy_pool, anomaly_pool, habitats = game.enemy_pool, game.anomaly_pool, game.habitats
    for _ in range(cp[C_ENEMIES_PER_DAY]):
        e = _draw_card(deck, enemy_pool, habitats, -1)
        if e < 0:
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


@part
def _enter(cp, it, st, items):
    """Put a character at the start hex with his starting Health, Willpower, money and kit (P-37).

    ``cp`` and ``it`` are his slot's: a seat's first character starts with
    the scenario's loadout, a new one (P-44) with the new-character kit (see
    :func:`_new_character`). Counters of the seat (knock-outs, deaths, ...)
    are kept; the character's own state starts afresh.
    """
    for k in range(S_POS, S_STOP + 1):
        st[k] = 0
    st[S_POS] = cp[C_START]
    st[S_HEALTH] = cp[C_HEALTH]
    st[S_WILLPOWER] = cp[C_WILLPOWER]
    st[S_RUBLES] = cp[C_RUBLES]
    st[S_END] = -1
    st[S_WEAPONS] = cp[C_WEAPONS]
    st[S_TROPHY_ANOMALY] = 0
    st[S_STATUS] = SEAT_PLAYING
    for i in range(items.shape[0]):
        items[i] = it[i, I_START]


@part
def _new_game(tables, game, seed, t):
    """Set up game ``t``: streams, every seat's stalker at the start, full decks, empty board.

    The dice, deck and environment streams are keyed on ``(seed, t)``, so a
    game depends on nothing else (common random numbers across variants).
    Seat ``p`` plays slot ``p``: his scenario character, loadout and policy
    (P-37). The Emission Track is empty (P-47), no card lies on the board.
    The first player is seat 1 or drawn by lot (``multiplayer.first_player``).
    """
    rng.seed_stream(game.dice, seed, t, rng.DICE)
    rng.seed_stream(game.deck, seed, t, rng.DECK)
    rng.seed_stream(game.env, seed, t, rng.ENVIRONMENT)
    game.zone[:] = 0
    n = game.st.shape[0]
    if n > 1 and tables.cp[0, C_FIRST_PLAYER] == FIRST_RANDOM:
        game.zone[Z_FIRST] = rng.below(game.env, n)  # drawn by lot (ENVIRONMENT stream)
    for p in range(n):
        game.st[p, :] = 0
        game.st[p, S_SLOT] = p
        _enter(tables.cp[p], tables.it[p], game.st[p], game.items[p])
    for e in range(game.enemy_pool.shape[0]):
        game.enemy_pool[e] = tables.en[0, e, N_COUNT]
    for v in range(game.event_pool.shape[0]):
        game.event_pool[v] = tables.ev[0, v, V_COUNT]
    for a in range(game.anomaly_pool.shape[0]):
        game.anomaly_pool[a] = tables.a_count[0, a]
    for a in range(game.art_deck.shape[0]):
        game.art_deck[a] = tables.art_deck0[0, a]
    game.board[:] = 0


@part
def _new_character(tables, game, p):
    """Seat ``p`` draws a new character after a death (P-44), or is out if none is left.

    The character is drawn uniformly from the stalker cards neither in play
    (held by another seat, or out of the Zone after the Sarcophagus) nor
    discarded (the dead, P-44), from the DECK stream. He starts at the start
    hex with his card's money, the new-character kit's armour and weapons
    (his slot) and ``multiplayer.new_character_items`` item cards drawn at
    random, each uniformly from the ruleset's item cards (P-44: "draws its
    starting equipment at random").
    """
    cp0 = tables.cp[0]
    n, n_chars = game.st.shape[0], cp0[C_N_CHARACTERS]
    taken = game.zone[Z_DISCARDED]
    for q in range(n):
        status = game.st[q, S_STATUS]
        if q != p and (status == SEAT_PLAYING or status == SEAT_FINISHED):
            taken |= np.int64(1) << tables.cp[game.st[q, S_SLOT], C_CHARACTER]
    free = 0
    for c in range(n_chars):
        free += 1 - ((taken >> c) & 1)
    st, items = game.st[p], game.items[p]
    if free == 0:
        st[S_STATUS] = SEAT_ELIMINATED
        return
    j = rng.below(game.deck, free)
    for c in range(n_chars):
        if (taken >> c) & 1 == 0:
            if j == 0:
                st[S_SLOT] = n + c
                break
            j -= 1
    _enter(tables.cp[st[S_SLOT]], tables.it[st[S_SLOT]], st, items)
    for _ in range(cp0[C_KIT_ITEMS]):
        items[rng.below(game.deck, items.shape[0])] += 1
    st[S_NEW] += 1


@part
def _target(tables, st):
    """Objective index of today's route (P-37, P-50).

    The nearest bunker when Health is down to the policy's ``retreat_at`` and
    he can pay to heal there; otherwise the next Secret Complex in visiting
    order, and after the last one the Sarcophagus.
    """
    cp = tables.cp
    if (cp[C_RETREAT_AT] > 0 and st[S_HEALTH] <= cp[C_RETREAT_AT]
            and st[S_RUBLES] >= cp[C_HEAL_PRICE] and cp[C_PAY_HEAL] != 0):
        return tables.hexes[st[S_POS], H_BUNKER_TARGET]
    if st[S_OBJECTIVE] < cp[C_N_OBJECTIVES]:
        return st[S_OBJECTIVE]
    return cp[C_SARCOPHAGUS_TARGET]


@part
def _location(tables, game, h, kind):
    """Enter location ``h`` of ``kind``: the card lying there, else a draw (P-14..P-16, P-30..P-34).

    An enemy lying there stays unless killed (P-16); an anomaly lying there
    goes back to its pool unless kept as a trophy (P-31, P-34). An empty
    location draws what ``campaign.open_location_draw`` or
    ``campaign.secret_location_draw`` says: an event (Z-08..Z-10), an enemy
    suiting the location's habitat (back into the pool unless killed, P-16),
    or an anomaly. Damage then resolves into conditions (P-37..P-43).

    The Sarcophagus as the final objective (``kind`` ``LOC_SARCOPHAGUS``) holds
    what waits there, fought in order (P-50); a knock-out or concussion there
    is death (P-43), so conditions are resolved after every fight, and
    surviving them all ends his game (``REACHED``). Every enemy is met through
    the one fight below (an inlined part is compiled once per site).
    """
    st, cp, board = game.st, tables.cp, game.board
    final = kind == LOC_SARCOPHAGUS
    card = 0 if final else board[h]
    draw = DRAW_NOTHING if final else cp[C_OPEN_DRAW] if kind == LOC_OPEN else cp[C_SECRET_DRAW]
    e = card - 1 if card > 0 else -1  # the enemy met, lying there or drawn
    a = -card - 1 if card < 0 else -1  # the anomaly met
    if final:
        st[S_SARCOPHAGUS] += 1
    elif card != 0:
        board[h] = 0  # taken up; an enemy not killed goes back below
    elif draw == DRAW_EVENT:
        _draw_event(tables, game)
    elif draw == DRAW_ENEMY:
        want = HAB_OPEN if kind == LOC_OPEN else HAB_SECRET
        e = _draw_card(game.deck, game.enemy_pool, game.habitats, want)
    elif draw == DRAW_ANOMALY:
        a = _draw_card(game.deck, game.anomaly_pool, game.anomaly_pool, -1)
    fights = tables.sarcophagus.shape[0] if final else 1 if e >= 0 else 0
    for j in range(fights):
        if final:
            e = tables.sarcophagus[j]
        killed = _fight(tables, game, e) == FIGHT_KILLED
        if final:
            _conditions(st, game.zone, cp, tables.hexes, game.items, tables.lose_order)
            if st[S_END] >= 0:
                break
        elif card == 0:
            if not killed:
                game.enemy_pool[e] += 1  # back into the pool (P-16)
        elif killed:
            game.zone[Z_BOARD_E] -= 1
        else:
            board[h] = card  # it stays (P-16)
    if a >= 0:
        if not _anomaly(tables, game, a):
            game.anomaly_pool[a] += 1
        if card != 0:
            game.zone[Z_BOARD_A] -= 1
    if final:
        if st[S_END] < 0:
            st[S_END] = REACHED
    elif _hurt(st, cp):
        _conditions(st, game.zone, cp, tables.hexes, game.items, tables.lose_order)


@part
def _move(tables, game):
    """One day's movement along the first day of the optimal route (Z-01..Z-03, Z-18..Z-26).

    The movement artefacts are used first (Z-20, :func:`_movement_artifacts`;
    the conditions at once, and a knock-out keeps him in place); then the
    objective is chosen and the best movement item with them sets the
    allowance (Z-01..Z-03). Each hex
    entered is resolved: a base trades (P-11, P-26..P-28), after the
    Ecologists' exchange at their bunker (P-34, :func:`_exchange`), a location its card
    (:func:`_location`), then medkits (Z-11); the Sarcophagus as the final
    objective is fought through (P-50, :func:`_location` too). Movement ends at the day's goal, when
    something stops it (``S_STOP``: knock-out, lost day) or with the game.
    Arriving at a bunker he retreated to, he pays to heal (P-37); arriving at
    a Secret Complex on his feet, he has explored it (P-50; assumption).
    """
    st, cp, hexes, items, it = game.st, tables.cp, tables.hexes, game.items, tables.it
    extra = 0
    held = _held(st, cp)
    n_art = tables.art_n[held, DT_NONE]
    if cp[C_USE_MOVEMENT] != 0 and n_art > 0:
        extra = _movement_artifacts(st, cp, game.dice, tables.art_rec[held, DT_NONE], n_art)
        if _hurt(st, cp):
            _conditions(st, game.zone, cp, hexes, items, tables.lose_order)
            if st[S_END] >= 0 or st[S_STOP] != 0:
                return
    target = _target(tables, st)
    goal = tables.target_hex[target]
    mover = _best_item(items, tables.item_order, ITEM_MOVEMENT)
    bonus = it[mover, I_VALUE] if mover >= 0 else 0
    bonus = bonus + extra if cp[C_MOVEMENT_STACKS] != 0 else max(bonus, extra)
    allowance = tables.allowance_of_value[bonus]
    start = st[S_POS]
    downs = st[S_KO] + st[S_CONCUSSIONS]
    for i in range(tables.day_len[start, target, allowance]):
        h = tables.day_table[start, target, allowance, i]
        st[S_POS] = h
        kind = hexes[h, H_KIND]
        if kind == LOC_BASE:
            if hexes[h, H_FACTION] == FACTION_ECOLOGISTS and cp[C_EXCHANGE] != 0:
                _exchange(st, cp, game.deck, game.art_deck, tables.art_cards,
                          tables.art_identity, tables.art_value)
            _trade(st, cp, items, it, tables.shopping, hexes[h, H_FACTION])
        elif (kind == LOC_OPEN or kind == LOC_SECRET or kind == LOC_COMPLEX or (
                kind == LOC_SARCOPHAGUS and h == goal and target == cp[C_SARCOPHAGUS_TARGET])):
            _location(tables, game, h, kind)
            if st[S_END] >= 0:
                return
            _use_medkits(st, cp, items, it, tables.item_order)
        if st[S_STOP] != 0 or h == goal:
            break
    if st[S_END] < 0 and st[S_POS] == goal:
        if target > cp[C_SARCOPHAGUS_TARGET]:
            _pay_heal(st, cp)
        elif (target < cp[C_N_OBJECTIVES] and st[S_KO] + st[S_CONCUSSIONS] == downs
              and st[S_LOST] == 0):
            st[S_OBJECTIVE] += 1
            st[S_EXPLORED] += 1


@called
def _movement_artifacts(st, cp, dice, recs, n_art):
    """Movement artefacts used at the start of a day's movement: the steps they add (Z-20).

    Each held movement artefact is used once (P-09, P-10:
    :func:`sim.kernels.artifact.test_bonus`, the rule of test dice); its
    side effect hits at once.
    """
    extra, h, r, w, uses, suffered = test_bonus(dice, recs, 0, n_art, cp[C_ART_FAIL],
                                                S.ART_MOVEMENT, -1)
    _side_effects(st, h, r, w, uses, suffered)
    return extra


@called
def _daily_artifacts(st, cp, dice, recs, n_art):
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
                if effect == S.ART_HEAL:
                    level, _, h, r, w, uses, suffered = restore(
                        dice, rec, 0, 1, fail, effect, 0, st[S_HEALTH], cp[C_HEALTH],
                        cp[C_MEDKIT_AT], 1, -1)
                    st[S_HEALTH] = level
                elif effect == S.ART_CALM:
                    level, _, h, r, w, uses, suffered = restore(
                        dice, rec, 0, 1, fail, effect, 0, st[S_WILLPOWER], cp[C_WILLPOWER],
                        cp[C_CALM_AT], 1, -1)
                    st[S_WILLPOWER] = level
                else:
                    level, _, h, r, w, uses, suffered = restore(
                        dice, rec, 0, 1, fail, effect, 0, -st[S_RADIATION], 0,
                        -cp[C_PURGE_AT] if cp[C_PURGE_AT] > 0 else -(1 << 40), 1, -1)
                    st[S_RADIATION] = -level
                _side_effects(st, h, r, w, uses, suffered)
                if uses == 0:
                    break


@part
def _play_turn(tables, game):
    """One stalker's turn: movement and encounters, or a day out of play.

    A stalker lost in a Secret Location is out of play and placed in a bunker
    when his lost days run out (P-38, P-41); a knocked-down one does not move
    (P-42); otherwise he moves (:func:`_move`). Then, in play, he uses his
    heal, calm and purge artefacts (:func:`_daily_artifacts`). ``tables`` is
    his slot, ``game`` his seat's view.
    """
    st, cp = game.st, tables.cp
    st[S_STOP] = 0
    if st[S_LOST] > 0:
        st[S_LOST] -= 1
        if st[S_LOST] == 0:
            _recover(st, cp, tables.hexes)
    elif st[S_KNOCKED] > 0:
        st[S_KNOCKED] -= 1
    else:
        _move(tables, game)
    held = _held(st, cp)
    if st[S_END] < 0 and st[S_LOST] == 0 and tables.art_n[held, DT_NONE] > 0:
        _daily_artifacts(st, cp, game.dice, tables.art_rec[held, DT_NONE],
                         tables.art_n[held, DT_NONE])
        if _hurt(st, cp):
            _conditions(st, game.zone, cp, tables.hexes, game.items, tables.lose_order)


@part
def _end_of_day(tables, game):
    """Medkits, the Zone phase (P-47) and the Emission check (P-48, P-49), once a day for all.

    After every stalker's turn: each stalker in play uses medkits (Z-11), the
    Zone phase lays cards on the one board, and at the threshold of the one
    Emission Track the next Emission card hits every stalker in the Open
    Space (P-48; seat order, each with his own armour); the Final Emission
    kills them all (P-49). Damage then resolves into conditions (P-37..P-43).
    """
    n = game.st.shape[0]
    for p in range(n):
        st = game.st[p]
        if st[S_STATUS] == SEAT_PLAYING and st[S_LOST] == 0:
            s = st[S_SLOT]
            _use_medkits(st, tables.cp[s], game.items[p], tables.it[s], tables.item_order[s])
    _zone(tables, game)
    k = _emission_card(game.zone, tables.cp[0], tables.em[0])
    for p in range(n):
        st = game.st[p]
        if st[S_STATUS] != SEAT_PLAYING:
            continue
        s = st[S_SLOT]
        cp, hexes = tables.cp[s], tables.hexes[s]
        if k >= 0:
            held = _held(st, cp)
            _emission(st, game.zone, cp, game.dice, hexes, tables.em[s], k,
                      tables.art_rec[s, held], tables.art_n[s, held])
        if st[S_END] < 0 and _hurt(st, cp):
            _conditions(st, game.zone, cp, hexes, game.items[p], tables.lose_order[s])


@part
def _settle(tables, game, p, day):
    """Seat ``p``'s character left the Zone today: a win, a finish or a death.

    Competitive (P-45): the first stalker to survive the Sarcophagus wins;
    another who survives it on the same day wins too under
    ``multiplayer.same_day_win = "shared"``. Cooperative: he counts toward the
    team (:func:`_game_over`). A dead character's card is discarded; the seat
    draws a new character next day (P-44) or is out
    (``multiplayer.after_death``); after the Final Emission nobody comes back.
    """
    st, zone, cp0 = game.st[p], game.zone, tables.cp[0]
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
    zone[Z_DISCARDED] |= np.int64(1) << tables.cp[st[S_SLOT], C_CHARACTER]
    if cp0[C_AFTER_DEATH] == AFTER_DEATH_NEW and zone[Z_FINAL] == 0:
        st[S_STATUS] = SEAT_AWAITING
    else:
        st[S_STATUS] = SEAT_ELIMINATED


@part
def _game_over(tables, game):
    """Whether the game is over (P-49, P-50; ``multiplayer.*`` keys).

    The Final Emission ends it for all (P-49). Competitive: a win ends it
    under ``multiplayer.after_win = "end"``. Cooperative: the team wins
    (every seat still in the game is a winner) once ``C_NEEDED`` stalkers
    (0: every seat not eliminated) survived the Sarcophagus, and loses when
    too few seats are left for that. Either way it ends when no seat is left
    in the Zone.
    """
    zone, cp0, n = game.zone, tables.cp[0], game.st.shape[0]
    if zone[Z_FINAL] != 0:
        return True
    in_zone = 0
    standing = 0
    mask = 0
    for p in range(n):
        status = game.st[p, S_STATUS]
        in_zone += status == SEAT_PLAYING or status == SEAT_AWAITING
        if status != SEAT_ELIMINATED:
            standing += 1
            mask |= np.int64(1) << p
    if cp0[C_COOPERATIVE] != 0:
        needed = cp0[C_NEEDED] if cp0[C_NEEDED] > 0 else standing
        if needed > 0 and zone[Z_REACHED] >= needed:
            zone[Z_WINNERS] = mask
            return True
        return in_zone == 0 or standing < needed
    if zone[Z_WINNERS] != 0 and cp0[C_AFTER_WIN] == AFTER_WIN_END:
        return True
    return in_zone == 0


@part
def _turn_order(tables, game, day):
    """Today's turn order (``multiplayer.turn_order``; Gap "Turn and phase order").

    ``seat``: the first player (``Z_FIRST``) first every day, then the seats
    after him; ``rotating``: the first player moves one seat on each day;
    ``simultaneous``: a random order drawn each day from the ENVIRONMENT
    stream (who takes a shared card first is a fair lottery).
    """
    order, rule = game.order, tables.cp[0, C_TURN_ORDER]
    n = order.shape[0]
    first = game.zone[Z_FIRST]
    if rule == ORDER_ROTATING:
        first += day - 1
    first = first % n if n > 1 else 0  # one division a day, none alone
    for i in range(n):
        order[i] = first + i - n if first + i >= n else first + i
    if rule == ORDER_SIMULTANEOUS:
        for i in range(n - 1, 0, -1):
            j = rng.below(game.env, i + 1)
            order[i], order[j] = order[j], order[i]


@part
def _play_day(tables, game, day):
    """One day: new characters, every stalker's turn, the day's end; True when the game is over.

    Seats whose character died draw a new one (P-44); the stalkers take
    their turns in today's order (:func:`_turn_order`); unless the game is
    over, the Zone phase and the Emission check follow once for all
    (:func:`_end_of_day`). Under ``same_day_win = "first"`` (and in the
    cooperative variant) the game ends at once with the turn that decides it.
    """
    n, cp0 = game.st.shape[0], tables.cp[0]
    for p in range(n):
        if game.st[p, S_STATUS] == SEAT_AWAITING:
            _new_character(tables, game, p)
    _turn_order(tables, game, day)
    at_once = cp0[C_SAME_DAY] == SAME_DAY_FIRST or cp0[C_COOPERATIVE] != 0
    # Steps 0 .. n-1 are the turns, step n the day's end: one copy of each part
    # (they are inlined), the game checked after every step that may end it.
    for i in range(n + 1):
        first, last = 0, 0  # the seats to settle after this step
        if i < n:
            p = game.order[i]
            if game.st[p, S_STATUS] == SEAT_PLAYING:
                _play_turn(_slot(tables, game.st[p, S_SLOT]), _seat(game, p))
                first, last = p, p + 1
        else:
            _end_of_day(tables, game)
            first, last = 0, n
        for q in range(first, last):
            _settle(tables, game, q, day)
        if (at_once or i >= n - 1) and _game_over(tables, game):
            return True
    return False


@part
def _write_result(tables, game, day, over, res):
    """Fill one result row: seat 1's ``G_*`` counters, then the game's and every seat's.

    Seat 1's end is how his current character left the Zone (``CAPPED`` if
    he is still in it); for a one-stalker scenario these are the whole game.
    """
    st = game.st[0]
    res[G_END] = st[S_END] if st[S_END] >= 0 else CAPPED
    res[G_DAY] = day
    res[G_KNOCKOUTS] = st[S_KO]
    res[G_CONCUSSIONS] = st[S_CONCUSSIONS]
    res[G_DEFORMATIONS] = st[S_DEFORMATIONS]
    res[G_EMISSIONS_HIT] = st[S_EMISSIONS_HIT]
    res[G_EMISSIONS] = st[S_EMISSIONS]
    res[G_ITEMS_USED] = st[S_ITEMS_USED]
    res[G_FIGHTS] = st[S_FIGHTS]
    res[G_KILLS] = st[S_KILLS]
    res[G_ANOMALIES] = st[S_ANOMALIES]
    res[G_ARTIFACTS] = st[S_ARTIFACTS]
    res[G_EVENTS] = st[S_EVENTS]
    res[G_COMPLEXES] = st[S_EXPLORED]
    res[G_RUBLES] = st[S_RUBLES]
    res[G_WINNERS] = game.zone[Z_WINNERS]
    res[G_DRAWN] = game.zone[Z_EMISSIONS]
    res[G_FINAL] = game.zone[Z_FINAL]
    res[G_CAPPED] = 0 if over else 1
    res[G_ART_USES] = st[S_ART_USES]
    res[G_SIDE_EFFECTS] = st[S_SIDE_EFFECTS]
    res[G_EXCHANGES] = st[S_EXCHANGES]
    res[G_SARCOPHAGUS] = st[S_SARCOPHAGUS]
    for p in range(MAX_PLAYERS):
        base = G_SEATS + SEAT_COLS * p
        if p < game.st.shape[0]:
            res[base + SEAT_DEATHS] = game.st[p, S_DEATHS]
            res[base + SEAT_NEW] = game.st[p, S_NEW]
            res[base + SEAT_CHARACTER] = tables.cp[game.st[p, S_SLOT], C_CHARACTER]
        else:
            res[base + SEAT_DEATHS] = 0
            res[base + SEAT_NEW] = 0
            res[base + SEAT_CHARACTER] = -1


@jit(_nrt=False)  # the root the parts are inlined into (see ``part``); allocates nothing
def play_run(tables, game, seed, first, n_games, out, row0):
    """Play games ``first .. first + n_games - 1`` on the scratch state ``game``; game
    ``first + i`` fills ``out[row0 + i]``.

    Each game runs day by day until it is over or ``campaign.max_days`` have
    passed (``CAPPED``); each day is :func:`_play_day`.
    """
    max_days = tables.cp[0, C_MAX_DAYS]
    for g in range(n_games):
        _new_game(tables, game, seed, first + g)
        day = 0
        over = False
        while not over and day < max_days:
            day += 1
            over = _play_day(tables, game, day)
        _write_result(tables, game, day, over, out[row0 + g])


def play_games(seed, first, n_games, tables, out, row0):
    """Play games ``first .. first + n_games - 1``; game ``first + i`` fills ``out[row0 + i]``.

    The body of one game, shared by :func:`campaign_kernel` (which aggregates
    the rows) and :func:`sim.experiments.campaign.simulate_trials` (which keeps
    them), compiled once for both (:func:`play_run`). A game's result depends
    only on ``(seed, trial index)``, never on how games are grouped into calls.
    Scratch state (:class:`GameState`) is allocated here, in numpy, once per
    call, so callers pass runs of games rather than one at a time; a compiled
    function allocating it and calling :func:`play_run` would link the game
    body in and have LLVM optimise it a second time.

    Parameters
    ----------
    seed : int
        Run seed.
    first, n_games : int
        Trial index of the first game and number of games.
    tables : CampaignTables
        The compiled scenario, slots stacked on the first axis.
    out : ndarray of int64, shape (n_rows, G_ROW)
        Per-game results (``G_*`` columns).
    row0 : int
        Row of ``out`` for game ``first``.
    """
    n = int(tables.cp[0, C_N_PLAYERS])

    def zeros(size):
        return np.zeros(size, dtype=np.int64)

    state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
    game = GameState(
        zeros((n, S_SIZE)), zeros((n, tables.it.shape[1])), zeros(Z_SIZE), zeros(n),
        zeros(tables.en.shape[1]), zeros(tables.a_count.shape[1]), zeros(tables.ev.shape[1]),
        zeros(tables.art_deck0.shape[1]), zeros(tables.art_deck0.shape[1]),
        zeros(tables.hexes.shape[1]), np.ascontiguousarray(tables.en[0, :, N_HABITAT]),
        state, state.copy(), state.copy(), zeros(tables.e_params.shape[3]),
        zeros(tables.a_params.shape[3]), zeros(64), zeros(tables.e_uses0.shape[3]),
        zeros(RESULT_SIZE), zeros(A.RESULT_SIZE))
    play_run(tables, game, seed, first, n_games, out, row0)


pool_kernel(play_games, play_run)


@part
def mp_base(max_days):
    """First column of the multiplayer counts (``MP_*`` offsets) of campaign_kernel's rows."""
    return HIST + N_ENDS * (max_days + 1)


@part
def count_width(max_days, n_characters):
    """Columns of campaign_kernel's rows: seat 1's counts, ``MP_*``, the length histogram."""
    return mp_base(max_days) + MP_CHARACTER + n_characters + max_days + 1


@part
def _count_game(res, row, max_days, n_characters):
    """Add one game's result row to a chunk's counts (integers: any order gives the same sums)."""
    end = res[G_END]
    day = res[G_DAY]
    row[end] += 1
    row[HIST + end * (max_days + 1) + day] += 1
    for k in range(G_KNOCKOUTS, G_EVENTS + 1):
        row[SUM_KNOCKOUTS + k - G_KNOCKOUTS] += res[k]
    row[SUM_DAYS] += day
    row[SUM_DAYS_SQ] += day * day
    row[SUM_COMPLEXES] += res[G_COMPLEXES]
    row[SUM_RUBLES] += res[G_RUBLES]
    for k in range(3):
        row[SUM_ART_USES + k] += res[G_ART_USES + k]
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


def campaign_kernel(seed, n_trials, chunk_size, first_chunk, tables, out):
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
    max_days = int(tables.cp[0, C_MAX_DAYS])
    n_characters = int(tables.cp[0, C_N_CHARACTERS])
    games = np.zeros((min(GAME_RUN, chunk_size), G_ROW), dtype=np.int64)
    for r in range(out.shape[0]):
        c = first_chunk + r
        stop = min((c + 1) * chunk_size, n_trials)
        for lo in range(c * chunk_size, stop, GAME_RUN):
            n = min(GAME_RUN, stop - lo)
            play_games(seed, lo, n, tables, games, 0)
            count_games(games, n, out[r], max_days, n_characters)


pool_kernel(campaign_kernel, play_run, count_games)
