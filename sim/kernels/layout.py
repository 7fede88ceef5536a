"""Array layouts the encounter kernels own: index constants and codes of their parameters.

The compile layer (:mod:`sim.encounter.spec`) packs specs into arrays with
these indices, and the kernels read them; they live here, beside the
kernels, so that a kernel imports nothing above numpy and numba.

Each packed record (combat, anomaly and event parameters, artefact records) is
declared once, as the ordered list of its slot names (:class:`~sim.kernels.records.Record`,
issue 28, section 1): ``P_HEALTH`` is the index of ``"P_HEALTH"`` in :data:`COMBAT_PARAMS`
and ``P_SIZE`` its length, bound here as module integers, which numba reads as
compile-time constants (``S.P_HEALTH``). The compile step packs by name
(``COMBAT_PARAMS.pack(P_HEALTH=...)``).
"""

from sim.kernels.records import Record

AVOID_STEALTH = 0
AVOID_REPUTATION = 1

# The packed integer parameters of a combat, in slot order (sim.encounter.spec.CombatSpec.pack
# fills them; a slot it does not name is 0). Artefact records (ARTEFACT) follow at P_SIZE.
COMBAT_PARAMS = Record("combat parameters", "P_SIZE", (
    "P_HEALTH",          # maximum Health, the healing cap (Z-14)
    "P_START_HEALTH",    # Health at the start
    "P_COMBAT",          # Combat test pool (P-19)
    "P_STEALTH",         # Stealth test pool (P-16)
    "P_VIGILANCE",       # the enemy's Vigilance: need of the Stealth tests (P-15, P-16, P-21)
    "P_ENDURANCE",       # the enemy's Toughness: need of the Combat test (P-19)
    "P_WOUNDS",          # wounds the enemy deals per failed round (P-20)
    "P_RESIST",          # armour resistance to the enemy's wound type, 0 = none (P-02)
    "P_DURABILITY",      # armour durability, 0 = no armour (P-03)
    "P_TOKENS",          # armour damage tokens at the start (P-04, P-05)
    "P_SUCCESS_ON",      # die face of a success (dice.success_on)
    "P_SNEAK",           # 1: try to avoid the fight first (P-16); 0: fight for the trophy (P-17)
    "P_AVOID_RULE",      # AVOID_STEALTH (P-16) or AVOID_REPUTATION (Z-15..Z-17)
    "P_ESCAPE_TARGET",   # the Reputation rule's d6 face: Reputation - best escape item
    "P_FLEE_AT",         # policy: flee from round 2 at Health <= this, 0 = never (P-21)
    "P_HEAL_AT",         # policy: take doses at Health <= this (Z-12..Z-14)
    "P_MAX_ROUNDS",      # safety cap on rounds (combat.max_rounds)
    "P_N_LIMITED",       # limited-use weapons in the loadout table (P-24)
    "P_STEALTH_ON",      # die face of a Stealth die (P-16, P-21)
    "P_N_ART",           # artefact records after the header (P-08..P-10); 0 = none
    "P_ART_FAIL",        # FAIL_* (artifacts.failed_activation)
    "P_RESIST_ORDER",    # RESIST_* (artifacts.resist_order)
    "P_RESTORE_USES",    # uses of each heal/calm artefact per fight (artifacts.restore_uses)
    "P_TRACK",           # the track the enemy's wounds hit: TARGET_HEALTH or TARGET_WILLPOWER
    "P_OTHER",           # the other of Health and Willpower at the start (side effects, calm)
    "P_OTHER_MAX",       # its maximum
    "P_PLAN",            # 0: the thresholds decide; else 1 + where the plan starts in ``plan``
    "P_PLAN_ROUND",      # the plan's strides: per round, Health point, armour token, dose used
    "P_PLAN_HEALTH",
    "P_PLAN_TOKENS",
    "P_PLAN_STIMS",      # (each limited-use weapon's uses follow, mixed radix of its uses + 1)
    "P_PLAN_STAGE",      # offset of a round's decisions after its heal/calm choice (0: none)
    "P_PLAN_OTHER",      # stride per point of the other track (0: the plan does not track it)
    "P_PLAN_COUNTS",     # stride per step of the heal/calm uses so far (mixed radix, record order)
    "P_N_COMBAT_ART",    # combat artefacts in the loadout table (mask bits after limited weapons)
    "P_SNEAK_ARTS",      # record mask of the stealth artefacts used to avoid the fight (-1: all)
    "P_N_KINDS",         # kinds of dose a plan chooses between (0: doses in the order carried)
    "P_AMBUSH",          # trait ambush: 1 = the fight cannot be avoided (P-22, P-16, Z-15)
    "P_ENEMY_FLEES",     # trait flees=N: 1 = the last round (P_MAX_ROUNDS = N) ends fled (P-22)
))
globals().update(COMBAT_PARAMS.constants)

# Where a hazard's damage goes (anomalies P-32, events): the track it is taken on.
TARGET_HEALTH = 0      # wounds: physical, thermal, chemical, electric (P-37)
TARGET_RADIATION = 1   # radiation doses (P-39)
TARGET_WILLPOWER = 2   # mental disturbances, psi (P-40)

# The packed integer parameters of an anomaly, in slot order (AnomalySpec.pack); artefact
# records follow at A_SIZE.
ANOMALY_PARAMS = Record("anomaly parameters", "A_SIZE", (
    "A_PERCEPTION",        # Perception test pool (P-31)
    "A_AGILITY",           # Agility test pool (P-32)
    "A_PERCEPTION_NEED",   # the anomaly's eye: successes needed, <= 0 passes unrolled (P-31)
    "A_AGILITY_NEED",      # its skull (P-32)
    "A_DAMAGE",            # damage of a failed Agility test (P-32)
    "A_TARGET",            # TARGET_* the damage goes to
    "A_RESIST",            # die face that absorbs it, 0 = the armour does not roll (P-02)
    "A_DURABILITY",        # armour durability, 0 = no armour (P-03)
    "A_TOKENS",            # armour damage tokens at the start (P-04, P-05)
    "A_HEALTH",            # Health at the start (P-37)
    "A_RADIATION",         # radiation doses at the start (P-39)
    "A_RADIATION_MAX",     # the most allowed (P-39)
    "A_WILLPOWER",         # Willpower at the start (P-40)
    "A_ENTER",             # 1: enter after a passed Perception test (P-36)
    "A_BONUS_DICE",        # extra Agility dice on such an entry (P-36)
    "A_ARTIFACT",          # artefact type the anomaly yields (index in the deck), -1 = none
    "A_PERCEPTION_ON",     # die face of a Perception die
    "A_AGILITY_ON",        # die face of an Agility die
    "A_FIND_POOL",         # the artefact find test (P-07, P-35): pool,
    "A_FIND_ON",           # die face,
    "A_FIND_NEED",         # successes needed (<= 0: found without a test)
    "A_N_ART",             # artefact records after the header; 0 = none
    "A_ART_FAIL",          # FAIL_* (artifacts.failed_activation)
    "A_RESIST_ORDER",      # RESIST_* (artifacts.resist_order)
    "A_ART_UNUSED",        # bit mask of artefact records left unused (P-08; 0 = all used)
))
globals().update(ANOMALY_PARAMS.constants)

# What an event does when it happens (events.csv ``effect``).
EFFECT_NONE = 0
EFFECT_DAMAGE = 1          # wounds, radiation or psi: ``value`` points on ``target``
EFFECT_LOST_DAY = 2
EFFECT_EMISSION_TOKENS = 3
EFFECT_ENEMY = 4           # an enemy encounter: the caller draws an enemy and meets it (P-16)
EFFECT_ANOMALY = 5         # an anomaly encounter at the location: the caller draws one (P-30)

# The packed integer parameters of an event, in slot order (EventSpec.pack); artefact
# records follow at E_SIZE.
EVENT_PARAMS = Record("event parameters", "E_SIZE", (
    "E_AVOID_ON",        # the card's avoid roll, 0 = none (the event always happens, Z-09)
    "E_SHIFT",           # shift of the best event item; AUTO_SHIFT = avoided without a roll
    "E_EFFECT",          # EFFECT_*
    "E_VALUE",           # points of damage, days lost or Emission tokens
    "E_TARGET",          # TARGET_* of an EFFECT_DAMAGE
    "E_RESIST",          # E_RESIST .. E_WILLPOWER: the armour and the state at the start,
    "E_DURABILITY",      # as A_RESIST .. A_WILLPOWER of an anomaly
    "E_TOKENS",
    "E_HEALTH",
    "E_RADIATION",
    "E_RADIATION_MAX",
    "E_WILLPOWER",
    "E_N_ART",           # artefact records after the header; 0 = none
    "E_ART_FAIL",        # FAIL_* (artifacts.failed_activation)
    "E_RESIST_ORDER",    # RESIST_* (artifacts.resist_order)
    "E_ART_UNUSED",      # bit mask of artefact records left unused (P-08; 0 = all used)
))
globals().update(EVENT_PARAMS.constants)

AUTO_SHIFT = 1 << 20
"""Shift of an automatic event item (the Torsion scanner avoids without a roll, Z-09).

Larger than every rolled shift, so the best event item (Z-10) is always the
one with the largest shift, in every caller (see
:func:`sim.kernels.event.event_avoided`)."""

# Artefacts (P-07..P-12). A params array (combat, anomaly or event) carries its
# artefacts as records of AF_SIZE fields after its header (at P_SIZE, A_SIZE or
# E_SIZE); the header's *_N_ART says how many. The compile step writes only the
# artefacts that can act in that encounter (a resist artefact only against its
# damage type), in the order carried.
ARTEFACT = Record("artefact records", "AF_SIZE", (
    "AF_EFFECT",        # ART_* code
    "AF_VALUE",         # size of the effect (dice, points restored, wounds absorbed)
    "AF_AUTO",          # 1: automatic use, no test, side effect always (P-09)
    "AF_POOL",          # Intellect pool of the activation test (P-10)
    "AF_FACE",          # die face of that test
    "AF_NEED",          # successes it needs (the card's intellect_need, dice.modifier)
    "AF_SIDE_TARGET",   # TARGET_* of the side effect, SIDE_NONE = none
    "AF_SIDE_VALUE",    # its points
    "AF_USE_AT",        # used only at this Health or less (policy.artifact_use; USE_ALWAYS)
))
globals().update(ARTEFACT.constants)

ART_NONE = 0
ART_HEAL = 1        # restore Health
ART_CALM = 2        # restore Willpower
ART_PURGE = 3       # remove radiation doses
ART_RESIST = 4      # absorb up to value wounds of its type per damage
ART_MOVEMENT = 5    # steps per day (campaign)
ART_COMBAT = 6      # dice added to the Combat test
ART_STEALTH = 7     # dice added to Stealth tests
SIDE_NONE = -1

FAIL_NOTHING = 0      # a failed activation does nothing
FAIL_SIDE_EFFECT = 1  # no effect, the side effect happens
FAIL_BOTH = 2         # the effect and the side effect, as an automatic artefact

RESIST_BEFORE_ARMOR = 0
RESIST_AFTER_ARMOR = 1

USE_ALWAYS = 1 << 30
"""``AF_USE_AT`` of an artefact used whenever its rule allows (``policy.artifact_use``
``always``, the default): above any Health. ``never`` is 0, as the policy's other
thresholds: a stalker at 0 Health is knocked out (P-37)."""

MAX_ARTIFACTS = 8
"""Most artefacts one encounter simulates: uses of each restoring artefact are
counted in 8 bits of one integer (:func:`sim.kernels.artifact.restore`)."""

PLAN_ACTION_SHIFT = 16
"""In a plan entry, the bits from here to :data:`PLAN_ART_SHIFT` are the action (0 = flee,
``1 + mask`` = fight allowing the limited-use weapons and combat artefacts of ``mask``);
the bits below, the stimulant doses taken: their number, or with kinds of dose
(``params[P_N_KINDS]``) :data:`PLAN_KIND_BITS` bits per kind."""

PLAN_KIND_BITS = 4
"""Bits of a plan entry's dose field per kind of dose: at most 15 doses of a kind at once."""

PLAN_ART_SHIFT = 40
"""In a plan entry, the bits from here up are the artefact records used (P-08): in a
round's heal/calm choice the heal and calm artefacts, in its decision the stealth
artefacts of a flight and the resist artefacts against the enemy's attack."""

PLAN_ACTION_BITS = (1 << (PLAN_ART_SHIFT - PLAN_ACTION_SHIFT)) - 1
"""The action's bits of a plan entry, once shifted down by :data:`PLAN_ACTION_SHIFT`."""

SPEND_ART_SHIFT = 32
"""In a loadout ``spend`` table, the bits from here up are the combat artefacts
(record indices) chosen with the weapons for that round (P-23); the bits below
are the limited-use weapons spent."""
