"""The skirmish kernels' packed records (seed 003), each declared once as its slot names.

Every array the firefight kernels read or write by column (:mod:`sim.kernels.skirmish`) is
declared here as a :class:`~sim.kernels.records.Record`: the index constants and the sizes
are generated from the order of the names and bound as this module's integers, which numba
reads as compile-time constants. :mod:`sim.skirmish.compile` packs the static arrays by name
(:meth:`~sim.kernels.records.Record.pack`); the kernel, its plain-Python reference and its
exact twins read the same names.
"""

from __future__ import annotations

from sim.kernels.records import Record

# Figure status (S-38..S-42; OUT is "out of the fight" from damage, LOST is
# "lost in the Zone": fled over the table edge or removed from play). Codes, and the
# first columns of a side's state (SIDE): how many of its figures are in each status.
ACTIVE, COWER, FLEE, OUT, LOST = 0, 1, 2, 3, 4
MAX_TARGETS = 6
"""Targets one shooter may declare (``shooting.targets_per_shooter`` at most, S-28)."""

FIGURE = Record("skirmish figure columns", "N_FIG", (
    "F_GROUP", "F_SKILL", "F_DICE", "F_RANGE", "F_SUPP", "F_TWO", "F_SPEED", "F_POS",
    "F_HIDDEN", "F_PRONE", "F_NIGHT_VISION"))
"""Static figure data (``fig``, one row per figure; figures of group 0 first)."""
globals().update(FIGURE.constants)

GROUP = Record("skirmish group columns", "N_GRP", (
    "G_START", "G_STOP", "G_LEADER", "G_FLANKED", "G_WITHDRAW", "G_TERRAIN", "G_LIT",
    "G_CARRIERS"))
"""Static group data (``grp``, one row per side)."""
globals().update(GROUP.constants)

PARAMS = Record("skirmish rule options", "N_PARAMS", (
    "P_ORDER", "P_MAX_ROUNDS", "P_MAX_CHAIN", "P_TRIGGER", "P_PRECEDENCE",
    "P_PARTIAL_IS_COVER", "P_COVER_WHEN", "P_COVER_EXTRA", "P_CAP", "P_FAST_ATTEMPT",
    "P_FAST_INCHES", "P_OPEN_ONE", "P_LEADER_CHOICE", "P_SUPP_CMP", "P_TARGETS",
    "P_RECOVER_ATTEMPT", "P_RECOVER_SKILL", "P_COWER_END", "P_NIGHT", "P_BAD_WEATHER",
    "P_NIGHT_INCHES", "P_REDUCED_DAY", "P_REDUCED_NIGHT", "P_EXCUSED_ALL", "P_SURRENDER",
    "P_SURRENDER_WHEN"))
"""The ruleset's and the scenario's options (``params``): every rule choice the seed leaves open."""
globals().update(PARAMS.constants)

OUTPUT = Record("skirmish output counters", "O_HIST", (
    ("O_WIN", 2), "O_DRAW", ("O_BROKEN", 2), ("O_WITHDREW", 2), "O_CAPPED", "O_ROUNDS_SUM",
    "O_ROUNDS_SQ", ("O_CARRIED", 2), ("O_CARRIED_SQ", 2)))
"""A firefight output row's fixed counters, one column per side where two wide; the
histograms begin at ``O_HIST`` (:func:`sim.kernels.skirmish.row_layout`). ``O_CARRIED`` and
``O_CARRIED_SQ``: comrades carried off the table at a voluntary exit (S-04, S-07), sum and
sum of squares."""
globals().update(OUTPUT.constants)

COLUMNS = Record("skirmish per-figure state", "N_COLS", (
    "C_SKILL", "C_DICE", "C_RANGE", "C_SUPP", "C_TWO", "C_SPEED", "C_POS0", "C_PRONE0",
    "C_HIDDEN0", "C_BY_RANGE", "C_SIGHT", "C_CARRY", "C_STATUS", "C_POS", "C_PRONE", "C_FAST",
    "C_HIDDEN", "C_MOVED", "C_FIRED", "C_TARGET", "C_SMOD", "C_UPON", "C_HITS", "C_SUPPRESSED",
    "C_ATTACKER", "C_NDECL", "C_ARMED", "C_BASE", "C_CAND", "C_LIST",
    ("C_DECL", MAX_TARGETS)))
"""Per-figure columns of a fight's flat state ``st`` (see :mod:`sim.kernels.skirmish`):
static, then the state of the current fight, then scratch lists of the current volley;
``C_DECL + j`` is the ``j``-th declared target."""
globals().update(COLUMNS.constants)

SIDE = Record("skirmish per-side state", "N_K", (
    "K_FAST_ANY", "K_MOVED_ANY", "K_START", "K_STOP", "K_LEADER", "K_FLANKED", "K_WITHDRAW",
    "K_CARRIERS"), start=LOST + 1)
"""Per-side items of ``st`` after the counts of figures in each status (``ACTIVE .. LOST``):
whether some figure may carry a Fast / Moved mark, and the static group data."""
globals().update(SIDE.constants)
