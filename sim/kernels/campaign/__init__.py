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
(a row per seat, the shared Zone). A run of games is
:func:`.game.play_run`, made of named parts (:func:`.game._new_game`,
:func:`.game._play_day`, :func:`.game._play_turn`, :func:`.movement._move`,
:func:`.movement._location` (the Sarcophagus too), :func:`.game._end_of_day`,
:func:`.end._settle`, :func:`.end._game_over`, ...) that numba inlines into
it; the parts of one stalker's turn take his slot's tables (:func:`_slot`)
and his seat's view (:func:`_seat`). :func:`.game.play_games` runs games on
one scratch state, one row of results per game (``G_*`` columns), and is
shared by two callers: :func:`.game.campaign_kernel` adds the games up into
per-chunk integer counts and sums (columns below, :func:`.game.count_games`),
and :func:`sim.experiments.campaign.simulate_trials` keeps the rows, which
``zonesim compare campaign`` needs to pair the variants trial by trial.
Either way a game depends only on (seed, trial index), so results do not
depend on chunking or threads.

There is no ``prange`` kernel here: :func:`.game.campaign_kernel` is a plain-Python
driver whose chunks the runner spreads over threads (:func:`sim.jitting.options.pool_kernel`),
so the game body is compiled and optimised once, where a parallel kernel
calling it would optimise all of it again, once per kernel and once more
for its ``prange`` body.

The package is cut by phase of the game day, a module a sitting; each imports
only this module and the modules above it in this list:

- this module: the layouts (``C_*`` parameters, ``S_*`` seat and ``Z_*`` Zone
  state, ``G_*`` result columns, ``SUM_*``/``MP_*`` count columns, the card
  tables' columns and codes), :class:`CampaignTables`, :class:`GameState`,
  the ``part``/``called`` decorators and the slot and seat views;
- :mod:`.cards`: the best item card held, a draw from a shared deck;
- :mod:`.damage`: damage through the armour and artefacts onto the tracks;
- :mod:`.zone`: the Zone phase (P-47): new cards on the board;
- :mod:`.trade`: trade and healing: bases, the Ecologists' exchange,
  artefacts gained, medkits, paid healing, recovery in a bunker, the daily
  artefacts;
- :mod:`.emission`: the Emission check and card (P-48, P-49);
- :mod:`.end`: the end of a character and of the game: knock-outs and
  deaths, losses, settling, game over, the result row;
- :mod:`.movement`: movement and locations: the day's route, the location
  entered and its encounter (fight, anomaly, event), the Sarcophagus;
- :mod:`.game`: the driver: a new game and character, the turn order, the
  day, :func:`.game.play_run`, :func:`.game.play_games`, counting and
  :func:`.game.campaign_kernel`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.jitting.options import jit
from sim.kernels import layout as S

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
:func:`.game.play_run`, no reference counts.

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
work to each function it is inlined into, up to :func:`.game.play_run`; calling
these parts costs a few scalar arguments a call and no measurable speed, and
took a quarter off the kernel's compile time (``benchmarks/bench_startup.py
--compile``).
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
    """Scratch arrays of one game, allocated once per :func:`.game.play_games` call.

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
def mp_base(max_days):
    """First column of the multiplayer counts (``MP_*`` offsets) of campaign_kernel's rows."""
    return HIST + N_ENDS * (max_days + 1)


@part
def count_width(max_days, n_characters):
    """Columns of campaign_kernel's rows: seat 1's counts, ``MP_*``, the length histogram."""
    return mp_base(max_days) + MP_CHARACTER + n_characters + max_days + 1
