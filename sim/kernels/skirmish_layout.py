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
    "F_HIDDEN", "F_PRONE", "F_NIGHT_VISION", "F_FLOOR", "F_SPREAD"))
"""Static figure data (``fig``, one row per figure; figures of group 0 first)."""
globals().update(FIGURE.constants)

GROUP = Record("skirmish group columns", "N_GRP", (
    "G_START", "G_STOP", "G_LEADER", "G_FLANKED", "G_WITHDRAW", "G_TERRAIN", "G_LIT",
    "G_CARRIERS", "G_MOVEMENT"))
"""Static group data (``grp``, one row per side)."""
globals().update(GROUP.constants)

PARAMS = Record("skirmish rule options", "N_PARAMS", (
    "P_ORDER", "P_MAX_ROUNDS", "P_MAX_CHAIN", "P_TRIGGER", "P_PRECEDENCE",
    "P_PARTIAL_IS_COVER", "P_COVER_WHEN", "P_COVER_EXTRA", "P_CAP", "P_FAST_ATTEMPT",
    "P_FAST_INCHES", "P_OPEN_ONE", "P_LEADER_CHOICE", "P_SUPP_CMP", "P_TARGETS",
    "P_RECOVER_ATTEMPT", "P_RECOVER_SKILL", "P_COWER_END", "P_NIGHT", "P_BAD_WEATHER",
    "P_NIGHT_INCHES", "P_REDUCED_DAY", "P_REDUCED_NIGHT", "P_EXCUSED_ALL", "P_SURRENDER",
    "P_SURRENDER_WHEN", "P_FIELD", "P_UNITS_BLOCK", "P_DOOR", "P_ENTER_MOVE", "P_SHOOTER_COVER",
    "P_HEIGHT_CLEARS", "P_SURROUNDED", "P_GRID_NX", "P_GRID_NY", "P_WALLS_ROUND"))
"""The ruleset's and the scenario's options (``params``): every rule choice the seed leaves open."""
globals().update(PARAMS.constants)

OUTPUT = Record("skirmish output counters", "O_HIST", (
    ("O_WIN", 2), "O_DRAW", ("O_BROKEN", 2), ("O_WITHDREW", 2), "O_CAPPED", "O_ROUNDS_SUM",
    "O_ROUNDS_SQ", ("O_CARRIED", 2), ("O_CARRIED_SQ", 2), ("O_SURR", 2), ("O_SURR_SQ", 2)))
"""A firefight output row's fixed counters, one column per side where two wide; the
histograms begin at ``O_HIST`` (:func:`sim.kernels.skirmish.row_layout`). ``O_CARRIED`` and
``O_CARRIED_SQ``: comrades carried off the table at a voluntary exit (S-04, S-07), sum and
sum of squares. ``O_SURR`` and ``O_SURR_SQ``: figures that surrendered during the fight
(S-38 taken prisoner, S-39 surrounded), sum and sum of squares. On a battlefield the row
ends with four grids (:func:`sim.kernels.skirmish.grid_layout`)."""
globals().update(OUTPUT.constants)

COLUMNS = Record("skirmish per-figure state", "N_COLS", (
    "C_SKILL", "C_DICE", "C_RANGE", "C_SUPP", "C_TWO", "C_SPEED", "C_POS0", "C_PRONE0",
    "C_HIDDEN0", "C_BY_RANGE", "C_SIGHT", "C_CARRY", "C_STATUS", "C_POS", "C_PRONE", "C_FAST",
    "C_HIDDEN", "C_MOVED", "C_FIRED", "C_TARGET", "C_SMOD", "C_UPON", "C_HITS", "C_SUPPRESSED",
    "C_ATTACKER", "C_NDECL", "C_ARMED", "C_BASE", "C_CAND", "C_LIST", "C_WRANGE", "C_SPREAD",
    "C_SIGHT_LIT", "C_FLOOR0", "C_FLOOR", "C_OFLOOR", "C_ENTER", "C_SHOT_AT",
    ("C_DECL", MAX_TARGETS)))
"""Per-figure columns of a fight's flat state ``st`` (see :mod:`sim.kernels.skirmish`):
static, then the state of the current fight, then scratch lists of the current volley;
``C_DECL + j`` is the ``j``-th declared target."""
globals().update(COLUMNS.constants)

SIDE = Record("skirmish per-side state", "N_K", (
    "K_FAST_ANY", "K_MOVED_ANY", "K_SURRENDERED", "K_START", "K_STOP", "K_LEADER", "K_FLANKED",
    "K_WITHDRAW", "K_CARRIERS", "K_MOVEMENT"), start=LOST + 1)
"""Per-side items of ``st`` after the counts of figures in each status (``ACTIVE .. LOST``):
whether some figure may carry a Fast / Moved mark, the figures that surrendered in the fight,
and the static group data."""
globals().update(SIDE.constants)

FPARAMS = Record("skirmish battlefield measures", "N_FPAR", (
    "FP_HALF", "FP_WIDTH", "FP_DEPTH", "FP_CONTACT", "FP_RECOVER", "FP_SURROUND", "FP_CELL"))
"""Battlefield measures in inches (``fp``, float64): half an opening's width, the table,
``battlefield.contact_inches``, ``battlefield.recover_inches``, ``flee.surrounded_inches``
and the side of a cell of the position grids."""
globals().update(FPARAMS.constants)

XY = Record("skirmish per-figure position", "N_XY", (
    "XY_X", "XY_Y", "XY_X0", "XY_Y0", "XY_OX", "XY_OY", "XY_FX", "XY_FY"))
"""Per-figure positions on a battlefield (``xy``, float64, column ``c`` of figure ``f`` at
``c * MAXF + f``): now, at the start, before the current move, where it last fired."""
globals().update(XY.constants)

RESULT = Record("skirmish fight result", "N_RESULT", (
    "R_WINNER", ("R_SHOT", 2), ("R_LOST", 2), ("R_BROKEN", 2), ("R_CARRIED", 2),
    ("R_SURR", 2)))
"""What one finished fight counts as (:func:`sim.kernels.skirmish.outcome`): the winning
side (-1: a draw), then per side the figures shot and lost, broken (0 or 1), comrades carried
off and figures that surrendered."""
globals().update(RESULT.constants)

PAIRED = Record("skirmish paired metrics", "N_PAIRED", (
    "M_DRAW", "M_ROUNDS", ("M_WIN", 2), ("M_BROKEN", 2), ("M_WITHDREW", 2), ("M_SHOT", 2),
    ("M_LOST", 2), ("M_SURR", 2)))
"""The per-fight metrics :func:`sim.kernels.skirmish.paired_firefight_kernel` sums on common
random numbers (the last axis of its output): a draw (0/1), the rounds played, then per side
a win, a break and a withdrawal (0/1), the figures shot, lost and surrendered."""
globals().update(PAIRED.constants)
