"""Array layouts the encounter kernels own: index constants and codes of their parameters.

The compile layer (:mod:`sim.encounter.spec`) packs specs into arrays with
these indices, and the kernels read them; they live here, beside the
kernels, so that a kernel imports nothing above numpy and numba.
"""

AVOID_STEALTH = 0
AVOID_REPUTATION = 1

# Layout of the packed integer parameters of a combat (index constants used by the kernel).
P_HEALTH = 0
P_START_HEALTH = 1
P_COMBAT = 2
P_STEALTH = 3
P_VIGILANCE = 4
P_ENDURANCE = 5
P_WOUNDS = 6
P_RESIST = 7
P_DURABILITY = 8
P_TOKENS = 9
P_SUCCESS_ON = 10
P_SNEAK = 11
P_AVOID_RULE = 12
P_ESCAPE_TARGET = 13
P_FLEE_AT = 14
P_HEAL_AT = 15
P_MAX_ROUNDS = 16
P_N_LIMITED = 17
P_STEALTH_ON = 18
P_N_ART = 19        # artefact records after the header (P-08..P-10); 0 = none
P_ART_FAIL = 20     # FAIL_* (artifacts.failed_activation)
P_RESIST_ORDER = 21  # RESIST_* (artifacts.resist_order)
P_RESTORE_USES = 22  # uses of each heal/calm artefact per fight (artifacts.restore_uses)
P_TRACK = 23        # the track the enemy's wounds hit: TARGET_HEALTH or TARGET_WILLPOWER
P_OTHER = 24        # the other of Health and Willpower at the start (side effects, calm)
P_OTHER_MAX = 25    # its maximum
P_PLAN = 26         # 0: the thresholds decide; else 1 + where the fight's plan starts in ``plan``
P_PLAN_ROUND = 27   # the plan's strides: per round, Health point, armour token, dose used
P_PLAN_HEALTH = 28
P_PLAN_TOKENS = 29
P_PLAN_STIMS = 30   # (each limited-use weapon's uses follow, mixed radix of its uses + 1)
P_PLAN_STAGE = 31   # offset of a round's decisions after its heal/calm choice (0: no such choice)
P_PLAN_OTHER = 32   # stride per point of the other track (0: the plan does not track it)
P_PLAN_COUNTS = 33  # stride per step of the heal/calm uses so far (mixed radix, record order)
P_N_COMBAT_ART = 34  # combat artefacts in the loadout table (mask bits after the limited weapons)
P_SNEAK_ARTS = 35   # record mask of the stealth artefacts used to avoid the fight (-1: all)
P_N_KINDS = 36      # kinds of dose a plan chooses between (0: doses in the order carried)
P_SIZE = 37

# Where a hazard's damage goes (anomalies P-32, events): the track it is taken on.
TARGET_HEALTH = 0      # wounds: physical, thermal, chemical, electric (P-37)
TARGET_RADIATION = 1   # radiation doses (P-39)
TARGET_WILLPOWER = 2   # mental disturbances, psi (P-40)

# Layout of the packed integer parameters of an anomaly (index constants used by the kernel).
A_PERCEPTION = 0
A_AGILITY = 1
A_PERCEPTION_NEED = 2
A_AGILITY_NEED = 3
A_DAMAGE = 4
A_TARGET = 5
A_RESIST = 6
A_DURABILITY = 7
A_TOKENS = 8
A_HEALTH = 9
A_RADIATION = 10
A_RADIATION_MAX = 11
A_WILLPOWER = 12
A_ENTER = 13
A_BONUS_DICE = 14
A_ARTIFACT = 15
A_PERCEPTION_ON = 16
A_AGILITY_ON = 17
A_FIND_POOL = 18
A_FIND_ON = 19
A_FIND_NEED = 20
A_N_ART = 21        # artefact records after the header; 0 = none
A_ART_FAIL = 22
A_RESIST_ORDER = 23
A_ART_UNUSED = 24  # bit mask of artefact records left unused (P-08; 0 = all used)
A_SIZE = 25

# What an event does when it happens (events.csv ``effect``).
EFFECT_NONE = 0
EFFECT_DAMAGE = 1          # wounds, radiation or psi: ``value`` points on ``target``
EFFECT_LOST_DAY = 2
EFFECT_EMISSION_TOKENS = 3

# Layout of the packed integer parameters of an event.
E_AVOID_ON = 0     # the card's avoid roll, 0 = none (the event always happens)
E_SHIFT = 1        # shift of the best event item; AUTO_SHIFT = avoided without a roll
E_EFFECT = 2
E_VALUE = 3
E_TARGET = 4
E_RESIST = 5
E_DURABILITY = 6
E_TOKENS = 7
E_HEALTH = 8
E_RADIATION = 9
E_RADIATION_MAX = 10
E_WILLPOWER = 11
E_N_ART = 12        # artefact records after the header; 0 = none
E_ART_FAIL = 13
E_RESIST_ORDER = 14
E_ART_UNUSED = 15  # bit mask of artefact records left unused (P-08; 0 = all used)
E_SIZE = 16

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
AF_EFFECT = 0       # ART_* code
AF_VALUE = 1        # size of the effect (dice, points restored, wounds absorbed)
AF_AUTO = 2         # 1: automatic use, no test, side effect always (P-09)
AF_POOL = 3         # Intellect pool of the activation test (P-10)
AF_FACE = 4         # die face of that test
AF_NEED = 5         # successes it needs (the card's intellect_need, dice.modifier)
AF_SIDE_TARGET = 6  # TARGET_* of the side effect, SIDE_NONE = none
AF_SIDE_VALUE = 7   # its points
AF_SIZE = 8

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
