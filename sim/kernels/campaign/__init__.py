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
   cards are placed, by the per-day keys or by the Zone cards drawn
   (``zone.cards``, P-30); a card beyond the board limit, and a change of the
   Environment, add tokens to the one Emission Track (P-47), which every
   stalker's knock-outs, concussions and Deformations feed too.
3. Emission check (P-48, P-49): at the threshold the track is cleared and
   the next Emission card hits every stalker in the Open Space; the Final
   Emission ends the game for all.
4. The game ends with a win (competitive: the first stalker to survive the
   Sarcophagus; cooperative: enough of them, ``multiplayer.*`` keys), the
   Final Emission, no stalker left, or after ``campaign.max_days``.

Dice come from the trial's DICE stream, deck draws from its DECK stream, and
board placements and Environment changes from its ENVIRONMENT stream, and the
Zone cards (``zone.cards = "deck"``) from its ZONE_CARDS stream, so a
change of policy does not reshuffle the decks (common random numbers).

The compiled scenario travels as one flat ``int64`` array ``T`` (every
character slot's header, then its tables: :mod:`.tables`), a game's scratch
state as another, ``G`` (the shared Zone, a row per seat, the decks and
buffers), and its random streams as a ``uint64`` array ``R``. A run of games
is :func:`.game.play_run`, made of named parts (:func:`.game._new_game`,
:func:`.game._play_day`, :func:`.game._play_turn`, :func:`.movement.move`,
:func:`.movement._location` (the Sarcophagus too), :func:`.game._end_of_day`,
:func:`.end.settle`, :func:`.end.game_over`, ...); each takes the three
arrays and the integers it needs (the slot ``s`` of the character whose
turn it is, his seat ``p``) and reads its tables through the views of
:mod:`.tables` (``hexes(T, cp)``, ``items(G, cp, p)``). :func:`.game.play_games` runs games on
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

- this module: the layouts, each declared once as a
  :class:`sim.kernels.records.Record` whose order of names gives the index
  constants (``PARAMETERS`` ``C_*``, ``SEAT_STATE`` ``S_*``, ``ZONE`` ``Z_*``,
  the result columns ``ONE_STALKER``/``GAME``/``SEAT`` ``G_*``, the trace log's
  ``LOG``/``LOGGED``/``LOG_KINDS`` (``LOG_*``, ``LG_*``), the counts
  ``ENDS``/``SUMS``/``MULTIPLAYER``, the card tables' columns ``HEX`` ..
  ``LOSS``; seat 1's counters, ``COUNTERS``, each one name that gives its state slot,
  result column and sum), the codes and the ``part``/``called`` decorators;
- :mod:`.log`: the trace log of one game (``zonesim campaign --trace``): events
  written through :func:`.log.note`, nothing when the log is empty (the Monte Carlo);
- :mod:`.tables`: where the compiled scenario and a game's state lie in ``T``,
  ``G`` and ``R``: the tables and state arrays, each declared once with its
  dimensions, and their views;
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

from sim.jitting.options import jit
from sim.kernels import layout as S
from sim.kernels.records import Record

# How a game ends (first columns of ``out``).
ENDS = Record("how a game ends", "N_ENDS", (
    "REACHED",  # entered the Sarcophagus and survived it (P-50)
    "DEATH_KNOCKOUT_SARCOPHAGUS",  # P-43
    "DEATH_CONCUSSION_SARCOPHAGUS",  # P-43
    "DEATH_DEFORMATIONS",  # fifth Deformation card (P-39, P-43)
    "DEATH_BOTH",  # knocked out and concussed at once (P-43)
    "DEATH_FINAL_EMISSION",  # P-49
    "CAPPED",  # still in the Zone after the last simulated day
))
globals().update(ENDS.constants)

# Seat 1's counters, each declared once here: a slot of the seat's state ``S_<name>``
# (SEAT_STATE), copied into his result column ``G_<name>`` when the game ends
# (:func:`.end.write_result`) and added up over games into ``SUM_<name>``
# (:func:`.game._count_game`), through ``COUNTER_SLOTS`` and ``SUMMED_SLOTS`` below. Three
# runs, each in the order of its result columns, which the records below take from them:
EVENT_COUNTERS = (  # ONE_STALKER after G_DAY; the first sums
    "KNOCKOUTS",
    "CONCUSSIONS",
    "DEFORMATIONS",
    "EMISSIONS_HIT",
    "EMISSIONS",
    "ITEMS_USED",
    "FIGHTS",
    "KILLS",
    "ANOMALIES",
    "ARTIFACTS",
    "EVENTS",
)
HELD_COUNTERS = (  # ONE_STALKER's last columns; summed after SUM_DAYS, SUM_DAYS_SQ
    "COMPLEXES",  # Secret Complexes explored
    "RUBLES",  # rubles held (at the end)
)
SEAT1_COUNTERS = (  # GAME after the seats' columns; summed last
    "ART_USES",  # uses of held artefacts (P-08..P-10)
    "SIDE_EFFECTS",  # side effects suffered (P-09)
    "EXCHANGES",  # artefacts bought with anomaly trophies (P-34)
    "SARCOPHAGUS",  # times the seat's characters entered the Sarcophagus (P-50), survived or not
    "CLUES",  # clue tokens held (P-39; Gap "Tokens")
    "ZONE_TOKENS",  # Zone tokens held (P-40)
    "CLUES_LOST",  # clue tokens lost to radiation mutations, every character of the seat
    "ZONE_LOST",  # Zone tokens lost to concussions
    # The economy (issue 46, item 6), every character of the seat:
    "TROPHIES",  # trophy cards taken: enemies killed (P-19) and anomaly cards kept (P-34)
    "TROPHIES_SOLD",  # enemy trophies sold: to Duty for rubles, Freedom for Gear (P-26..P-28)
    "TROPHY_RUBLES",  # rubles from them (P-26, P-28)
    "ARTIFACTS_SOLD",  # artefacts sold at a base (P-11)
    "ARTIFACT_RUBLES",  # rubles from them
    "RUBLES_SPENT",  # rubles paid for items, gear, armour (less the old one's) and healing
)
COUNTERS = EVENT_COUNTERS + HELD_COUNTERS + SEAT1_COUNTERS
UNSUMMED = ("SARCOPHAGUS",)  # counters with a result column but no sum


def _named(prefix: str, counters: tuple[str, ...]) -> tuple[str, ...]:
    """The slots of ``counters`` in one record: ``prefix`` + each name (``G_KNOCKOUTS``)."""
    return tuple(prefix + name for name in counters)


def _summed(counters: tuple[str, ...]) -> tuple[str, ...]:
    """The sum columns of ``counters``: ``SUM_`` + each name, but those in ``UNSUMMED``."""
    return _named("SUM_", tuple(name for name in counters if name not in UNSUMMED))


# Sums over games.
SUMS = Record("count columns after the ends", "HIST", (
    *_summed(EVENT_COUNTERS),
    "SUM_DAYS",
    "SUM_DAYS_SQ",
    *_summed(HELD_COUNTERS + SEAT1_COUNTERS),
), start=ENDS.N_ENDS)
globals().update(SUMS.constants)

# Per-game results (columns of play_games' ``out``, the rows of ``simulate_trials``).
ONE_STALKER = Record("one-stalker result columns", "G_SIZE", (
    "G_END",  # how the game ended (REACHED .. CAPPED)
    "G_DAY",  # the day it ended (0 .. max_days)
    *_named("G_", EVENT_COUNTERS + HELD_COUNTERS),
))
# G_SIZE, where the one-stalker columns (seat 1) end: the game's and every seat's follow
globals().update(ONE_STALKER.constants)
MAX_PLAYERS = 4  # sim.rules.scenario.MAX_PLAYERS (tests/test_layout_slots.py ties them)
SEAT = Record("a seat's result columns", "SEAT_COLS", (
    "SEAT_DEATHS",
    "SEAT_NEW",
    "SEAT_CHARACTER",  # stalkers.csv index of the seat's last character
))
globals().update(SEAT.constants)
GAME = Record("game result columns", "G_ROW", (
    "G_WINNERS",  # bit mask of the winning seats (cooperative: the team, when it won)
    "G_DRAWN",  # Emissions drawn
    "G_FINAL",  # 1: the Final Emission came (P-49)
    "G_CAPPED",  # 1: still running after the last simulated day
    ("G_SEATS", SEAT.SEAT_COLS * MAX_PLAYERS),  # per seat p: G_SEATS + SEAT_COLS * p + SEAT_*
    *_named("G_", SEAT1_COUNTERS),
), start=ONE_STALKER.G_SIZE)
globals().update(GAME.constants)
GAME_RUN = 1024  # games per play_games call inside campaign_kernel (a 280 KiB buffer)

# Multiplayer counts of campaign_kernel's rows, from mp_base(max_days) on.
MULTIPLAYER = Record("multiplayer count columns", "MP_CHARACTER", (
    ("MP_WINS", MAX_PLAYERS),  # + seat: games the seat won
    ("MP_DEATHS", MAX_PLAYERS),  # + seat: sum of deaths
    ("MP_DEATHS_SQ", MAX_PLAYERS),
    ("MP_NEW", MAX_PLAYERS),  # + seat: sum of new characters (P-44)
    ("MP_NEW_SQ", MAX_PLAYERS),
    "MP_NOBODY",  # games nobody won
    "MP_FINAL",  # ... of which ended by the Final Emission (P-49)
    "MP_CAPPED",  # games still running after the last simulated day
    "MP_LENGTH",  # sum of game lengths in days
    "MP_LENGTH_SQ",
    "MP_DRAWN",  # sum of Emissions drawn
    "MP_DRAWN_SQ",
))
# MP_CHARACTER, where these end: + character, games won by a character; then the length histogram
globals().update(MULTIPLAYER.constants)

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
ITEM_HELICOPTER = 6  # Z-04, Z-05
N_ITEM_EFFECTS = 7
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
EV_ENEMY = S.EFFECT_ENEMY  # the card brings an enemy encounter (P-16)
EV_ANOMALY = S.EFFECT_ANOMALY  # the card brings an anomaly encounter (P-30)

MAX_OBJECTIVES = 16
MAX_DEFORMATION_CARDS = 16  # sim.rules.schema.MAX_DEFORMATION_CARDS: the deck's order in ZONE
MAX_ZONE_CARDS = 8  # sim.rules.schema.MAX_ZONE_CARDS: kinds of Zone card (P-30, P-47)
"""Objectives (Secret Complexes, then the Sarcophagus) whose bunker ``C_OBJECTIVE_BUNKER`` holds:
``policy.bunker_choice = "toward_objective"`` plays maps of up to 15 complexes."""

# Scalar parameters (index constants into ``cp``).
PARAMETERS = Record("campaign parameters", "C_SIZE", (
    "C_START",
    "C_MAX_DAYS",
    "C_HEALTH",
    "C_WILLPOWER",
    "C_RADIATION_MAX",
    "C_RUBLES",
    "C_THRESHOLD",
    "C_TOKENS_LIMIT",
    "C_TOKENS_ENVIRONMENT",
    "C_TOKENS_KNOCKOUT",
    "C_TOKENS_CONCUSSION",
    "C_TOKENS_DEFORMATION",
    "C_ENEMIES_PER_DAY",
    "C_ANOMALIES_PER_DAY",
    "C_ENEMY_LIMIT",
    "C_ANOMALY_LIMIT",
    "C_ENVIRONMENT_CHANCE",  # probability * 2**62, compared with a 62-bit draw
    "C_ACCUMULATE",
    "C_DEFORMATION_LIMIT",
    "C_KNOCKOUT_REGAIN",
    "C_KNOCKED_DOWN_DAYS",
    "C_LOST_DAYS",
    "C_MEDKIT_AT",
    "C_RETREAT_AT",
    "C_PAY_HEAL",
    "C_HEAL_PRICE",
    "C_N_OBJECTIVES",
    "C_SARCOPHAGUS_TARGET",
    "C_OPEN_DRAW",
    "C_SECRET_DRAW",
    "C_REPUTATION",
    "C_TROPHY_LOT",
    "C_TROPHY_PRICE",
    "C_GEAR_LOT",
    "C_GEAR_ITEM",
    "C_SELL_DIVISOR",
    "C_EVENT_ITEMS_CONSUMED",
    "C_SNEAK",
    "C_ESCAPE_ITEMS_CONSUMED",
    "C_WEAPONS",  # bit mask of the scenario's weapons held at the start (P-37 losses)
    "C_CHARACTER",  # the stalker card's index in stalkers.csv
    "C_N_PLAYERS",  # seats (1..MAX_PLAYERS); the keys below are the same in every slot
    "C_N_CHARACTERS",  # stalker cards in the ruleset (new characters, P-44)
    "C_TURN_ORDER",  # ORDER_*: multiplayer.turn_order
    "C_SAME_DAY",  # SAME_DAY_*: multiplayer.same_day_win
    "C_AFTER_WIN",  # AFTER_WIN_*: multiplayer.after_win
    "C_AFTER_DEATH",  # AFTER_DEATH_*: multiplayer.after_death (P-44)
    "C_KIT_ITEMS",  # multiplayer.new_character_items: random item cards of a new character
    "C_COOPERATIVE",  # 1: cooperative variant (P-45)
    "C_NEEDED",  # cooperative: stalkers who must survive the Sarcophagus (0: all still in)
    "C_FIRST_PLAYER",  # FIRST_*: multiplayer.first_player
    "C_N_WEAPONS",  # weapon bits of S_WEAPONS; the artefact slots' bits follow
    "C_ART_FAIL",  # FAIL_*: artifacts.failed_activation (P-10)
    "C_RESIST_ORDER",  # RESIST_*: artifacts.resist_order
    "C_RESTORE_USES",  # artifacts.restore_uses: per fight, and per day outside fights
    "C_CARRY_LIMIT",  # artifacts.carry_limit (0: none)
    "C_MOVEMENT_STACKS",  # artifacts.movement_stacks (Z-20)
    "C_EXCHANGE_RATE",  # artifacts.exchange_trophies (P-34)
    "C_EXCHANGE_DRAW",  # EXCHANGE_*: artifacts.exchange_draw
    "C_CALM_AT",  # policy.calm_at
    "C_PURGE_AT",  # policy.purge_at (0: never)
    "C_USE_MOVEMENT",  # policy.use_movement_artifacts
    "C_EXCHANGE",  # policy.exchange
    "C_BASES_SHELTER",  # emission.bases_shelter (P-48)
    "C_STIMULANT_AT",  # policy.stimulant_at: stimulants outside combat (Z-12; 0: never)
    "C_BUNKER_CHOICE",  # BUNKER_*: policy.bunker_choice (P-38, P-41)
    ("C_OBJECTIVE_BUNKER", MAX_OBJECTIVES),  # + objective: the bunker nearest to it (P-38)
    "C_COOP_DEAD",  # COOP_DEAD_*: multiplayer.cooperative_dead (P-45)
    "C_KILLED_ENEMIES",  # KILLED_*: campaign.killed_enemies (P-19: a killed enemy's card)
    "C_ANOMALY_TROPHIES",  # 1: campaign.anomaly_trophies = "when_exchanged" (P-34)
    "C_SOLD_ARTIFACTS",  # 1: campaign.sold_artifacts = "returned" (P-11)
    "C_HELICOPTER_AT",  # policy.helicopter_at (Z-04, Z-05; 0: never)
    "C_MILITARY_BASE",  # hex of the Military base (Z-05; -1: none on the map)
    "C_SELL_TROPHIES_AT",  # policy.sell_trophies_at (P-26, P-28; 0: never walk to sell)
    "C_TROPHY_TARGET",  # target index of the Duty base, where mutant trophies sell (-1: none)
    "C_CLUES_START",  # tokens.clues_start (Gap "Tokens")
    "C_CLUES_PER_COMPLEX",  # tokens.clues_per_complex
    "C_CLUE_USE",  # USE_*: tokens.clue_use
    "C_ZONE_START",  # tokens.zone_start
    "C_ZONE_PER_ANOMALY",  # tokens.zone_per_anomaly
    "C_ZONE_USE",  # USE_*: tokens.zone_use
    "C_DEFORM_CARDS",  # Deformation cards drawn from (P-39; 0: none, or none does anything)
    ("C_DEFORM_EFFECT", MAX_DEFORMATION_CARDS),  # + card: DEFORM_* effect of each card
    ("C_DEFORM_VALUE", MAX_DEFORMATION_CARDS),  # + card: its value
    "C_ZONE_DECK",  # 1: zone.cards = "deck", the Zone phase draws Zone cards (P-30, P-47)
    "C_ZONE_DRAWS",  # zone.cards_per_phase: Zone cards drawn each Zone phase
    ("C_ZONE_COUNT", MAX_ZONE_CARDS),  # + kind: copies of each kind of Zone card (zone.csv)
    ("C_ZONE_ENEMIES", MAX_ZONE_CARDS),  # + kind: enemy cards it lays
    ("C_ZONE_ANOMALIES", MAX_ZONE_CARDS),  # + kind: anomaly cards it lays
    ("C_ZONE_ENVIRONMENT", MAX_ZONE_CARDS),  # + kind: 1 when the Environment changes
    ("C_ZONE_TOKENS", MAX_ZONE_CARDS),  # + kind: Emission tokens it adds
    "C_GEAR_SHOPS",  # bit mask of the factions whose bases sell gear (P-13; economy.gear_shops)
    "C_BOUGHT_FROM_DECK",  # a bought artefact is taken from the artefact deck (P-35)
    "C_N_SLOTS",  # artefact slots of S_WEAPONS; the fight and anomaly tables of each armour follow
    "C_ARMOR_TRADE_IN",  # economy.armor_trade_in_divisor: old armour sells for price // it (0: not)
))
globals().update(PARAMETERS.constants)
BUNKER_NEAREST = 0  # policy.bunker_choice
BUNKER_TOWARD_OBJECTIVE = 1
USE_NONE = 0  # tokens.clue_use, tokens.zone_use (sim.rules.schema.TOKEN_USES)
USE_HEALTH = 1
USE_WILLPOWER = 2
USE_RADIATION = 3
DEFORM_NONE = 0  # Deformation card effects (sim.rules.schema.DEFORMATION_EFFECTS)
DEFORM_RADIATION_LIMIT = 1
DEFORM_WOUNDS = 2
DEFORM_DISTURBANCES = 3
DEFORM_KNOCKED_DOWN = 4
DEFORM_EMISSION_TOKENS = 5


# Columns of the packed per-card tables (see sim.campaign.compile.CampaignArrays).
HEX = Record("hex columns", "H_SIZE", (
    "H_KIND",  # location kind code
    "H_BUNKER",  # nearest bunker (P-37)
    "H_BUNKER_TARGET",  # objective index of that bunker
    "H_FACTION",  # faction code of a base (FACTION_*; P-26, P-27)
))
ITEM = Record("item card columns", "I_SIZE", (
    "I_EFFECT",  # effect code
    "I_VALUE",  # value (event items: the shift, AUTO_SHIFT for the Torsion scanner)
    "I_PRICE",
    "I_START",  # cards held at the start
    "I_SOLD_AT",  # bit mask of the factions (FACTION_*) whose bases sell it (Z-05, Z-11)
))
ENEMY = Record("enemy card columns", "N_SIZE", (
    "N_KIND",  # trophy kind
    "N_HABITAT",
    "N_PSI",  # deals mental disturbances
    "N_COUNT",
))
EVENT_CARD = Record("event card columns", "V_SIZE", (
    "V_AVOID",  # avoid roll (0: none)
    "V_EFFECT",
    "V_VALUE",
    "V_TARGET",
    "V_COUNT",
    "V_DTYPE",  # damage type (index of sim.campaign.artifacts.DTYPES): the resist artefacts' row
))
EMISSION = Record("Emission card columns, in deck order", "M_SIZE", (
    "M_WOUNDS",
    "M_RADIATION",
    "M_PSI",
    "M_FINAL",
    "M_WOUND_DTYPE",  # damage type of the wounds (DT_* row of the artefact records)
))
EMISSION_RESIST = Record("the worn armour's face against an Emission card (em_resist; 0: no roll)",
                         "MR_SIZE", (
    "M_WOUND_RESIST",  # against its wounds
    "M_RAD_RESIST",  # its doses
    "M_PSI_RESIST",  # its disturbances
))
ARMOR = Record("armour a character may wear (armor): the starting one, then those bought",
               "AR_SIZE", (
    "AR_DURABILITY",  # P-03 (0: no armour)
    "AR_PRICE",  # armor.csv (P-13); traded in for price // C_ARMOR_TRADE_IN (when above 0)
))
DT_RADIATION = 4  # rows of art_rec: sim.rules.DAMAGE_TYPES, then none (tied by test_layout_slots)
DT_PSI = 5
DT_NONE = 6  # no damage: daily use and movement (resist artefacts do not act)
N_DTYPES = DT_NONE + 1  # rows of art_rec and art_n per artefact mask
ARTIFACT_CARD = Record("artefact card columns (art_cards)", "AC_SIZE", (
    "AC_TYPE",  # type index in the deck (P-35)
    "AC_PRICE",
    "AC_COUNT",  # printed count
    "AC_SLOT",  # the character's slot that keeps the card (-1: sold, P-11)
))
EXCHANGE_RANDOM = 0  # artifacts.exchange_draw
EXCHANGE_CHEAPEST = 1
EXCHANGE_DEAREST = 2
LOSS = Record("belongings lost on a knock-out (P-37), in order of loss", "L_SIZE", (
    "L_KIND",  # BELONG_* kind
    "L_INDEX",  # item card index, weapon bit, or armour row (lost only while worn)
))
GEAR = Record("gear the shopping policy buys (policy.shopping_gear, P-13), in order", "B_SIZE", (
    "B_KIND",  # GEAR_WEAPON, GEAR_ARTIFACT or GEAR_ARMOR (-1: padding)
    "B_BIT",  # its bit of S_WEAPONS (a weapon's, an artefact slot's); an armour's row of armor
    "B_PRICE",  # the card's price (weapons.csv, artifacts.csv, armor.csv)
    "B_TYPE",  # an artefact's type index in the deck (P-35)
))
GEAR_WEAPON = 0
GEAR_ARTIFACT = 1
GEAR_ARMOR = 2
for _record in (HEX, ITEM, ENEMY, EVENT_CARD, EMISSION, EMISSION_RESIST, ARMOR, ARTIFACT_CARD, LOSS,
                GEAR):
    globals().update(_record.constants)

# Where a killed enemy's card goes (``C_KILLED_ENEMIES``, campaign.killed_enemies; P-19, Gap).
KILLED_NEVER = 0  # out of the game for good
KILLED_TROPHY_SOLD = 1  # back into the enemy pool when its trophy is sold (P-26..P-28)
KILLED_AT_ONCE = 2  # back into the enemy pool right after the fight
KILLED_RESHUFFLE = 3  # onto the discard pile, shuffled back when a draw finds no card

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
SEAT_STATE = Record("seat state", "S_SIZE", (
    "S_POS",
    "S_HEALTH",
    "S_WILLPOWER",
    "S_RADIATION",
    "S_ARMOR",  # damage tokens on the armour (P-04); == durability: destroyed (P-05)
    "S_WORN",  # the armour worn: its row of armor (0: the starting one; P-13: bought)
    "S_DURABILITY",  # its durability (AR_DURABILITY), while it is worn
    "S_OBJECTIVE",
    "S_KNOCKED",  # days without movement left (P-42)
    "S_LOST",  # days out of play left (P-38, P-41)
    "S_TROPHY_MUTANT",
    "S_TROPHY_STALKER",
    "S_ART_COUNT",
    "S_ART_VALUE",
    "S_END",  # -1 while the seat's current character is in the Zone
    "S_STOP",  # movement stops for today
    "S_WEAPONS",  # bit mask of the weapons, then of the artefact slots, held (P-37)
    "S_SLOT",  # the seat's current character: a slot of the stacked tables
    "S_STATUS",  # SEAT_PLAYING .. SEAT_AWAITING
    "S_DEATHS",  # characters of this seat who died (P-43)
    "S_NEW",  # new characters this seat drew (P-44)
    "S_TROPHY_ANOMALY",  # anomaly trophies (P-34), exchanged at the Ecologists' Bunker
    "S_RADIATION_DOWN",  # the radiation limit lowered by Deformation cards (P-39)
    *_named("S_", COUNTERS),  # the counters, S_KNOCKOUTS .. S_ZONE_LOST (seat 1's: G_*)
))
globals().update(SEAT_STATE.constants)
_RESULT = {**ONE_STALKER.index, **GAME.index}
COUNTER_SLOTS = tuple((SEAT_STATE.index[f"S_{name}"], _RESULT[f"G_{name}"]) for name in COUNTERS)
"""(state slot, result column) of every counter: what :func:`.end.write_result` copies."""
SUMMED_SLOTS = tuple((_RESULT[f"G_{name}"], SUMS.index[f"SUM_{name}"])
                     for name in COUNTERS if name not in UNSUMMED)
"""(result column, sum column) of every summed counter: what :func:`.game._count_game` adds."""

# Shared state of the Zone (index constants into ``zone``): one board, one Emission Track.
ZONE = Record("Zone state", "Z_SIZE", (
    "Z_ETOKENS",  # tokens on the Emission Track (P-47), fed by every stalker
    "Z_ENEXT",  # next card of the Emission deck
    "Z_ACC_W",  # accumulated Emission wounds, doses, disturbances (P-49)
    "Z_ACC_R",
    "Z_ACC_P",
    "Z_BOARD_E",  # enemy and anomaly cards on the board
    "Z_BOARD_A",
    "Z_EMISSIONS",  # Emissions drawn
    "Z_FINAL",  # the Final Emission came (P-49)
    "Z_WIN_DAY",  # day of the first win (0: none yet)
    "Z_REACHED",  # stalkers who survived the Sarcophagus
    "Z_WINNERS",  # bit mask of the winning seats
    "Z_DISCARDED",  # bit mask of dead characters' cards (P-44: discarded)
    "Z_FIRST",  # the seat that moves first on day 1 (multiplayer.first_player)
    ("Z_DEFORM_ORDER", MAX_DEFORMATION_CARDS),  # the shuffled Deformation deck (P-39)
    "Z_DEFORM_NEXT",  # Deformation cards drawn so far; the deck cycles
    ("Z_ZONE_POOL", MAX_ZONE_CARDS),  # + kind: Zone cards left in the deck (P-30, P-47)
))
globals().update(ZONE.constants)

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
COOP_DEAD_IGNORED = 0
COOP_DEAD_TEAM_LOSES = 1

# One game told day by day (``zonesim campaign --trace``, issue 47): a traced game writes
# its events into a log array ``L`` (:mod:`.log`); every other game passes an empty one.
LOG = Record("the trace log's header", "LOG_HEAD", (
    "LOG_EVENTS",  # events written so far (those past the log's end are counted, not kept)
    "LOG_DAY",  # the day being played (0: setting up)
))
LOGGED = Record("a logged event's words", "LOG_WIDTH", (
    "LOG_WHEN",  # the day it happened
    "LOG_SEAT",  # the seat it concerns (-1: the whole Zone)
    "LOG_KIND",  # LG_* below
    ("LOG_VALUES", 14),  # the event's values, as LG_* says
))
LOG_KINDS = Record("kinds of logged events", "N_LOGGED", (
    "LG_STATE",  # a seat's tracks and counters (``.log.SNAPSHOT``), item cards held, S_WEAPONS
    "LG_ROUTE",  # objective index, goal hex, start hex, movement item (-1), its bonus, steps
    #              the movement artefacts added
    "LG_HEX",  # hex entered, its location kind
    "LG_FIGHT",  # enemy card, outcome (combat codes), rounds, wounds, stimulants, source
    "LG_ANOMALY",  # anomaly card, outcome (anomaly codes), artefact found, trophy kept, source
    "LG_EVENT",  # event card, event item used (-1), outcome, encounter it brings, days lost,
    #              Emission tokens
    "LG_BASE",  # faction, rubles before, rubles after
    "LG_IDLE",  # a turn without movement: IDLE_* reason, days left
    "LG_NEW",  # a new character (P-44): his slot
    "LG_ZONE",  # the Zone phase: Emission tokens before, after, enemy and anomaly cards on board
    "LG_EMISSION",  # an Emission card drawn: its index, 1 if Final, Emissions drawn so far
))
for _record in (LOG, LOGGED, LOG_KINDS):
    globals().update(_record.constants)
SOURCE_LYING = 0  # an encounter's card lay on the location (LG_FIGHT, LG_ANOMALY)
SOURCE_DRAWN = 1  # drawn on entering the empty location
SOURCE_SARCOPHAGUS = 2  # waiting in the Sarcophagus (P-50)
IDLE_LOST = 0  # lost in a Secret Location (P-38, P-41)
IDLE_KNOCKED = 1  # knocked down (P-42)
IDLE_HELICOPTER = 2  # flown to the Military base (Z-05)


part = jit(inline="always", _nrt=False)
"""Compile a part of the game that runs at every location, fight or damage step (the
location entered, the fight's set-up, drawing a card, a damage step): inlined where it is
called, no reference counts.

numba inlines by copying the part's IR into its caller, so each place a part is
inlined costs compile time; the parts that run most often are inlined to save the
call (calling the location and the fight set-up each time measured 5 % slower,
base scenario, one thread). The parts allocate nothing (numba refuses to compile
one that does), so they need no reference counting, whose atomic counts on the
arrays every thread shares cost several times the game itself.
"""

called = jit(_nrt=False)
"""Compile a part that is called, not inlined: a stalker's turn and the day's end, and
the rarer parts (a base, an anomaly, an event card drawn, a new game or character, a
knock-out, the Emission).

Every part takes the three flat arrays ``T``, ``G``, ``R`` (:mod:`.tables`) and a few
integers, some 25 words: a call costs about 40 instructions. Each called part is
compiled once, where inlined it would be compiled at each of its callers, and
LLVM gives each a function of its own that fits the registers: the game body
inlined whole into :func:`.game.play_run` was one function of some 10,000
instructions whose loops held every table's address in memory, and passing the
sixty arrays of the former tables and state to a called part cost about 600 cycles.
"""


@part
def mp_base(max_days):
    """First column of the multiplayer counts (``MP_*`` offsets) of campaign_kernel's rows."""
    return SUMS.HIST + ENDS.N_ENDS * (max_days + 1)


@part
def count_width(max_days, n_characters):
    """Columns of campaign_kernel's rows: seat 1's counts, ``MP_*``, the length histogram."""
    return mp_base(max_days) + MULTIPLAYER.MP_CHARACTER + n_characters + max_days + 1
