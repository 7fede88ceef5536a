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
P_SIZE = 19

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
A_SUCCESS_ON = 13
A_ENTER = 14
A_BONUS_DICE = 15
A_ARTIFACT = 16
A_PERCEPTION_ON = 17
A_AGILITY_ON = 18
A_FIND_POOL = 19
A_FIND_ON = 20
A_FIND_NEED = 21
A_SIZE = 22

# What an event does when it happens (events.csv ``effect``).
EFFECT_NONE = 0
EFFECT_DAMAGE = 1          # wounds, radiation or psi: ``value`` points on ``target``
EFFECT_LOST_DAY = 2
EFFECT_EMISSION_TOKENS = 3

# Layout of the packed integer parameters of an event.
E_AVOID_ON = 0     # the card's avoid roll, 0 = none (the event always happens)
E_SHIFT = 1        # shift of the best event item; AUTO_SHIFT = avoided without a roll
E_EFFECT = 3
E_VALUE = 4
E_TARGET = 5
E_RESIST = 6
E_DURABILITY = 7
E_TOKENS = 8
E_HEALTH = 9
E_RADIATION = 10
E_RADIATION_MAX = 11
E_WILLPOWER = 12
E_SIZE = 13

AUTO_SHIFT = 1 << 20
"""Shift of an automatic event item (the Torsion scanner avoids without a roll, Z-09).

Larger than every rolled shift, so the best event item (Z-10) is always the
one with the largest shift, in every caller (see
:func:`sim.kernels.event.event_avoided`)."""
