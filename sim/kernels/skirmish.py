"""Skirmish kernels (seed 003): volleys, group reaction tests and whole firefights.

Everything here works on plain integer arrays compiled by
:mod:`sim.skirmish.compile`; every rule choice the seed leaves open arrives in
the ``params`` vector (indices ``P_*``, declared in :mod:`sim.kernels.skirmish_layout` with every
other column of the arrays below), never as a constant in the code.
The plain-Python twin, draw for draw, is :mod:`sim.reference.skirmish`; exact
twins are in :mod:`sim.exact.skirmish`.

Array layouts
-------------
fig : int64 (n_figures, N_FIG)
    Static figure data, columns ``F_*``; figures of group 0 come first.
grp : int64 (2, N_GRP)
    Static group data, columns ``G_*``.
st : int64 (ST_SIZE,)
    Flat state of one fight (firefight kernel only): per-figure columns ``C_*``
    (static data, the fight's state, scratch lists) and per-side items ``K_*``.
need : int64 (3,)
    Hit table (S-30): total of 1d6 + Skill needed with condition level 0, 1, 2.
damage : int64 (7,)
    Damage table (S-33, a Gap): outcome (``DMG_*``) of each face 1..6 (index 0 unused).
params : int64 (N_PARAMS,)
    Ruleset options, indices ``P_*``.

Randomness: all dice come from the (seed, trial, DICE) stream; the players'
choices (which target to shoot) from the (seed, trial, POLICY) stream.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from sim.jitting.options import jit, pjit, pool_kernel
from sim.kernels import rng
from sim.kernels import skirmish_geometry as geo
from sim.kernels.paired import N_SUMS, accumulate
from sim.kernels.skirmish_layout import (  # the records, declared once there
    ACTIVE,
    C_ARMED,
    C_ATTACKER,
    C_BASE,
    C_BY_RANGE,
    C_CAND,
    C_CARRY,
    C_DECL,
    C_DICE,
    C_ENTER,
    C_FAST,
    C_FIRED,
    C_FLOOR,
    C_FLOOR0,
    C_HIDDEN,
    C_HIDDEN0,
    C_HITS,
    C_LIST,
    C_MOVED,
    C_NDECL,
    C_OFLOOR,
    C_POS,
    C_POS0,
    C_PRONE,
    C_PRONE0,
    C_RANGE,
    C_SHOT_AT,
    C_SIGHT,
    C_SIGHT_LIT,
    C_SKILL,
    C_SMOD,
    C_SPEED,
    C_SPREAD,
    C_STATUS,
    C_SUPP,
    C_SUPPRESSED,
    C_TARGET,
    C_TWO,
    C_UPON,
    C_WRANGE,
    COWER,
    F_DICE,
    F_FLOOR,
    F_GROUP,
    F_HIDDEN,
    F_NIGHT_VISION,
    F_POS,
    F_PRONE,
    F_RANGE,
    F_SKILL,
    F_SPEED,
    F_SPREAD,
    F_SUPP,
    F_TWO,
    FLEE,
    FP_CELL,
    FP_CONTACT,
    FP_DEPTH,
    FP_HALF,
    FP_RECOVER,
    FP_SURROUND,
    FP_WIDTH,
    G_CARRIERS,
    G_FLANKED,
    G_LEADER,
    G_LIT,
    G_MOVEMENT,
    G_START,
    G_STOP,
    G_TERRAIN,
    G_WITHDRAW,
    K_CARRIERS,
    K_FAST_ANY,
    K_FLANKED,
    K_LEADER,
    K_MOVED_ANY,
    K_MOVEMENT,
    K_START,
    K_STOP,
    K_SURRENDERED,
    K_WITHDRAW,
    LOST,
    M_BROKEN,
    M_DRAW,
    M_LOST,
    M_ROUNDS,
    M_SHOT,
    M_SURR,
    M_WIN,
    M_WITHDREW,
    N_COLS,
    N_K,
    N_PAIRED,
    N_PARAMS,
    N_RESULT,
    N_XY,
    O_BROKEN,
    O_CAPPED,
    O_CARRIED,
    O_CARRIED_SQ,
    O_DRAW,
    O_HIST,
    O_ROUNDS_SQ,
    O_ROUNDS_SUM,
    O_SURR,
    O_SURR_SQ,
    O_WIN,
    O_WITHDREW,
    OUT,
    P_BAD_WEATHER,
    P_CAP,
    P_COVER_EXTRA,
    P_COVER_WHEN,
    P_COWER_END,
    P_DOOR,
    P_ENTER_MOVE,
    P_EXCUSED_ALL,
    P_FAST_ATTEMPT,
    P_FAST_INCHES,
    P_FIELD,
    P_GRID_NX,
    P_GRID_NY,
    P_HEIGHT_CLEARS,
    P_LEADER_CHOICE,
    P_MAX_CHAIN,
    P_MAX_ROUNDS,
    P_NIGHT,
    P_NIGHT_INCHES,
    P_OPEN_ONE,
    P_ORDER,
    P_PARTIAL_IS_COVER,
    P_PRECEDENCE,
    P_RECOVER_ATTEMPT,
    P_RECOVER_SKILL,
    P_REDUCED_DAY,
    P_REDUCED_NIGHT,
    P_SHOOTER_COVER,
    P_SUPP_CMP,
    P_SURRENDER,
    P_SURRENDER_WHEN,
    P_SURROUNDED,
    P_TARGETS,
    P_TRIGGER,
    P_UNITS_BLOCK,
    P_WALLS_ROUND,
    R_BROKEN,
    R_CARRIED,
    R_LOST,
    R_SHOT,
    R_SURR,
    R_WINNER,
    XY_FX,
    XY_FY,
    XY_OX,
    XY_OY,
    XY_X,
    XY_X0,
    XY_Y,
    XY_Y0,
)

# Position (S-01, S-31).
OPEN, PARTIAL, COVER = 0, 1, 2
# Damage outcomes (S-33).
DMG_NONE, DMG_OUT = 0, 1
# Target markers in C_TARGET.
NO_TARGET, CHOOSE = -1, -2

# Values of the options above.
ORDER_RANDOM, ORDER_ALTERNATE, ORDER_FIXED = 0, 1, 2
TRIGGER_NO_DAMAGE, TRIGGER_NOT_HIT = 0, 1
PREC_TEXT, PREC_SUPPRESSED, PREC_FLANK = 0, 1, 2
COVER_NEVER, COVER_STATIONARY, COVER_ALWAYS = 0, 1, 2
OPEN_ONE_PRONE, OPEN_ONE_COVER = 0, 1
LEADER_FIRE, LEADER_HOLD = 0, 1
SUPP_GREATER, SUPP_GREATER_EQUAL = 0, 1
RECOVER_OWN, RECOVER_BEST = 0, 1
COWER_END_SURRENDER, COWER_END_KEPT = 0, 1
# Where a group stands (S-21) and the sight of a figure nothing limits (S-19).
TERRAIN_OPEN, TERRAIN_WOODS, TERRAIN_EDGE = 0, 1, 2
SURRENDER_APPROACH, SURRENDER_WITHIN = 0, 1
NO_LIMIT = 1 << 30

# Reaction results (S-15, S-36).
R_NONE, R_FIRE, R_FIRE_M1, R_PRONE, R_COVER_PRONE, R_HIDE, R_FLEE, R_COWER, R_REVEAL = range(9)


@jit
def row_layout(n0, n1, max_rounds):
    """Offsets of the histograms in a firefight output row.

    Returns
    -------
    tuple of int
        ``(shot0, shot1, lost0, lost1, rounds, width)``: start of the
        casualty (out of the fight) histograms of each side (n + 1 bins), of
        the lost-figure histograms (n + 1 bins), of the rounds histogram
        (``max_rounds + 1`` bins), and the row width.
    """
    shot0 = O_HIST
    shot1 = shot0 + n0 + 1
    lost0 = shot1 + n1 + 1
    lost1 = lost0 + n0 + 1
    rounds = lost1 + n1 + 1
    return shot0, shot1, lost0, lost1, rounds, rounds + max_rounds + 1


@jit
def grid_layout(width, nx, ny):
    """Offsets of a battlefield's position grids after a row of ``width`` (:func:`row_layout`).

    Returns ``(fall0, fall1, fire0, fire1, width)``: where the figures of each
    side were when put out of the fight, and where each figure last fired from,
    counted per cell (``nx`` by ``ny`` cells, row-major from the origin), and
    the new row width.
    """
    cells = nx * ny
    return width, width + cells, width + 2 * cells, width + 3 * cells, width + 4 * cells


# --- single actions ---------------------------------------------------------------------

@jit
def roll_sorted(state, n, buf):
    """Roll ``n`` d6 into ``buf[:n]``, sorted high to low (S-26)."""
    for i in range(n):
        d = rng.d6(state)
        j = i
        while j > 0 and buf[j - 1] < d:
            buf[j] = buf[j - 1]
            j -= 1
        buf[j] = d


@jit
def roll(state, n, buf):
    """Roll ``n`` d6 into ``buf[:n]`` in stream order (group reaction dice, S-11)."""
    for i in range(n):
        buf[i] = rng.d6(state)


@jit
def passes(buf, n, skill, cap):
    """Dice of ``buf[:n]`` showing Skill or less (S-11), capped at ``cap`` (S-15)."""
    k = 0
    for i in range(n):
        if buf[i] <= skill:
            k += 1
    return k if k < cap else cap


@jit
def target_level(pos, prone, fast):
    """Hit-table condition level of a target (S-30, S-31).

    2: in cover (misses on 8 and 9); 1: partial cover, prone or moved fast
    (misses on 8); 0: none.
    """
    if pos == COVER:
        return 2
    if pos == PARTIAL or prone != 0 or fast != 0:
        return 1
    return 0


@jit
def shooter_level(fast, two_weapons):
    """Hit-table condition level from the shooter: moved fast or two weapons (S-31)."""
    return 1 if fast != 0 or two_weapons != 0 else 0


@jit
def die_level(target_lvl, shooter_lvl, order):
    """Condition level of one die at the ``order``-th declared target (0 = first; S-30)."""
    lvl = max(target_lvl, shooter_lvl)
    if order >= 2:
        return 2
    if order == 1:
        return max(lvl, 1)
    return lvl


@jit
def allocate(n_dice, n_targets, j):
    """Dice announced at the ``j``-th of ``n_targets`` targets (S-26).

    The split is as even as possible, earlier targets taking the extra dice
    (a policy: S-26 lets the player announce any split).
    """
    if n_targets == 1:
        return n_dice  # the common case, without an integer division
    return n_dice // n_targets + (1 if j < n_dice % n_targets else 0)


@jit
def suppresses(shooter_rating, target_rating, compare):
    """Whether fire suppresses the target (S-32): rating compared with the target's weapon."""
    if compare == SUPP_GREATER_EQUAL:
        return shooter_rating >= target_rating
    return shooter_rating > target_rating


@jit
def sight_inches(night, bad_weather, own_terrain, enemy_terrain, night_vision, enemy_lit,
                 night_inches, reduced_day, reduced_night, excused_all):
    """How far a figure sees the enemy group (S-19..S-22); ``NO_LIMIT`` if nothing limits it.

    S-19: the line of sight has no range limit but terrain and weather. S-20:
    at night it is ``night_inches`` (12), unless the figure has night vision or
    the enemy stands in a well-lit area. S-21: in woods it is ``reduced_day``
    (12) by day and ``reduced_night`` (6) at night, unless the figure or the
    enemy is at the edge of the wood; woods limit the line if either end is in
    them. S-22: bad weather likewise, wherever the figures stand. The S-20
    exceptions lift only the night limit (``excused_all`` = 0, the text's
    reading) or also make woods and weather take their day value (1).
    """
    excused = night_vision != 0 or enemy_lit != 0
    limit = NO_LIMIT
    if night != 0 and not excused:
        limit = night_inches
    woods = ((own_terrain == TERRAIN_WOODS or enemy_terrain == TERRAIN_WOODS)
             and own_terrain != TERRAIN_EDGE and enemy_terrain != TERRAIN_EDGE)
    if woods or bad_weather != 0:
        dark = night != 0 and not (excused and excused_all != 0)
        limit = min(limit, reduced_night if dark else reduced_day)
    return limit


@jit
def volley_hits(state, buf, n_dice, skill, alloc, levels, need, hits):
    """Roll one volley and count hits per announced target (S-26, S-29, S-30).

    Parameters
    ----------
    state : ndarray of uint64
        Dice stream.
    buf : ndarray of int64, shape (>= n_dice,)
        Scratch for the dice.
    n_dice, skill : int
        Rate of fire and the shooter's Skill (with any modifier).
    alloc : ndarray of int64, shape (m,)
        Dice announced at each target, in order; ``sum(alloc) == n_dice``.
    levels : ndarray of int64, shape (m,)
        Condition level of each target before its order is counted.
    need : ndarray of int64, shape (3,)
        Hit table.
    hits : ndarray of int64, shape (m,)
        Filled with the hits on each target.
    """
    roll_sorted(state, n_dice, buf)
    i = 0
    for j in range(alloc.shape[0]):
        hits[j] = 0
        lvl = die_level(levels[j], 0, j)
        for _ in range(alloc[j]):
            if buf[i] + skill >= need[lvl]:
                hits[j] += 1
            i += 1


@pjit
def volley_kernel(seed, n_trials, chunk_size, first_chunk, skill, alloc, levels, need, out):
    """Joint histogram of hits per target of one volley; ``out`` (n_chunks, prod(alloc + 1)).

    The bin of hits ``(h_0, ..., h_{m-1})`` is the mixed-radix number with
    digit ``h_j`` of base ``alloc[j] + 1``, first target most significant.
    """
    n_dice = 0
    for j in range(alloc.shape[0]):
        n_dice += alloc[j]
    for r in prange(out.shape[0]):
        c = first_chunk + r
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        buf = np.zeros(max(n_dice, 1), dtype=np.int64)
        hits = np.zeros(alloc.shape[0], dtype=np.int64)
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            rng.seed_stream(state, seed, t, rng.DICE)
            volley_hits(state, buf, n_dice, skill, alloc, levels, need, hits)
            b = 0
            for j in range(alloc.shape[0]):
                b = b * (alloc[j] + 1) + hits[j]
            out[r, b] += 1


@pjit
def group_reaction_kernel(seed, n_trials, chunk_size, first_chunk, skills, covering, extra, cap,
                          out):
    """Joint histogram of dice passed by each member of a group on shared dice (S-10, S-11).

    The group rolls 2d6, plus ``extra`` dice if any member is Covering (S-15);
    a member that is not Covering reads only the first two dice. Bin: mixed
    radix with digit ``passes_i`` of base ``cap + 1``, first member most
    significant; ``out`` (n_chunks, (cap + 1) ** n_members).
    """
    n = 2
    for i in range(covering.shape[0]):
        if covering[i] != 0:
            n = 2 + extra
    for r in prange(out.shape[0]):
        c = first_chunk + r
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        buf = np.zeros(n, dtype=np.int64)
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            rng.seed_stream(state, seed, t, rng.DICE)
            roll(state, n, buf)
            b = 0
            for i in range(skills.shape[0]):
                b = b * (cap + 1) + passes(buf, n if covering[i] != 0 else 2, skills[i], cap)
            out[r, b] += 1


# --- firefight --------------------------------------------------------------------------
#
# A firefight is one inlined body per trial (numba ``inline="always"``; the tiny
# index helpers ``_f``, ``_g``, ``_p`` are plain jitted functions that LLVM
# inlines, which keeps the compile time down): the hot path makes no calls with
# dozens of array arguments. That body is inlined in one serial function only,
# :func:`play_chunk`, which both firefight kernels call from plain Python on a
# pool of threads (``pool_kernel``), so it is compiled once, and numba's parallel
# passes never walk it (issue 45: inside two ``prange`` kernels those passes took
# 113 of 173 CPU seconds of the cold compile). All data of a fight live in one flat
# int64 array ``st`` (figures, sides, rule options), so few pointers compete for
# registers: column ``c`` of figure ``f`` is at ``c * MAXF + f`` (a constant
# offset per column), indexed with unsigned integers (no negative-index
# wraparound code). Instead of rescanning the figures:
# - per-side counters keep the number of figures in each status, so "no figure
#   in normal condition" (S-18), Recover (S-41) and the tally are O(1);
# - the figures about to fire are listed (``C_ARMED``), and the fired-upon
#   figures too (``C_LIST``); fired-upon and Fired marks are volley stamps that
#   keep growing from fight to fight, so nothing is reset per volley or fight;
# - the Received Fire table is looked up rather than branched through, and the
#   dice of a volley at one target are counted branch-free.
# Every die and every policy draw is taken in the same order as the reference
# (sim.reference.skirmish), which the tests check bit for bit.

MAXF = 64
"""Room for figures in ``st`` (two groups of at most 30, sim.rules.skirmish_loader.MAX_FIGURES)."""

# Per-figure columns of ``st`` (skirmish_layout.COLUMNS): static (set per chunk from
# ``fig``), then the state of the current fight, then scratch lists of the current volley.
# C_FIRED is a volley stamp: a figure whose C_FIRED is above its group's
# ``started`` stamp (see :func:`fight`) has had its action in the activation,
# because it fired, returned on one die (S-42) or picked up a comrade (S-04).
# C_CARRY: the comrade a figure carries (S-04, S-05), or NO_TARGET.
# Per-side data after the figure columns, at GRP0 + g * N_K + k: the number of
# figures in each status (k = ACTIVE..LOST), whether some figure may carry a
# Fast / Moved mark, and the static group data.
GRP0 = N_COLS * MAXF
# The Received Fire table of each side (S-36) for the rule options, looked up
# without branching at RF0 + _rf_index(g, k, pos, suppressed, fast).
RF0 = GRP0 + 2 * N_K
# The rule options (``params``) and the hit table (``need``) at P0 + P_*, P0 + P_NEED + level,
# so that the fight needs no other arrays than ``st`` and the streams.
P0 = RF0 + 2 * 3 * 3 * 2 * 2
P_NEED = N_PARAMS
ST_SIZE = P0 + P_NEED + 3


@jit
def _f(c, f):
    """Index of column ``c`` of figure ``f`` in ``st`` (unsigned: no wraparound check)."""
    return np.uint64(c * MAXF + f)


@jit
def _g(g, k):
    """Index of item ``k`` of side ``g`` in ``st``."""
    return np.uint64(GRP0 + g * N_K + k)


@jit
def _p(k):
    """Index of rule option ``k`` (``P_*``, or ``P_NEED + level``) in ``st``."""
    return np.uint64(P0 + k)


@jit
def _rf_index(g, k, pos, suppressed, fast):
    """Index in ``st`` of the Received Fire result of side ``g`` for ``k`` dice passed."""
    return np.uint64(RF0 + g * 36 + k * 12 + pos * 4 + suppressed * 2 + fast)


@jit(inline="always")
def _set_status(st, g, f, status):
    """Change the status of figure ``f`` of side ``g``, keeping the side's counts.

    A figure that leaves normal condition drops the comrade it carries (S-05).
    """
    st[_g(g, st[_f(C_STATUS, f)])] -= 1
    st[_g(g, status)] += 1
    st[_f(C_STATUS, f)] = status
    if status != ACTIVE:
        st[_f(C_CARRY, f)] = NO_TARGET


@jit(inline="always")
def _ended(st):
    """A side with no figure in normal condition can no longer fire (S-18)."""
    return st[_g(0, ACTIVE)] == 0 or st[_g(1, ACTIVE)] == 0


@jit(inline="always")
def _in_cover(pos, partial_is_cover):
    """'In cover' for the reaction tables; partial cover per ``reaction.partial_cover_is``."""
    return pos == COVER or (pos == PARTIAL and partial_is_cover != 0)


@jit(inline="always")
def _targetable(st, f):
    """Visible and still on the field: in normal condition or cowering (S-16, S-38)."""
    return (st[_f(C_STATUS, f)] <= COWER) & (st[_f(C_HIDDEN, f)] == 0)


@jit(inline="always")
def _count_at_least(state, n, face):
    """:func:`sim.kernels.rng.count_at_least` (the same dice), inlined into the volley."""
    counter, buffer, left = state[0], state[1], state[2]
    hits = 0
    for _ in range(n):
        die, counter, buffer, left = rng._die(counter, buffer, left)
        hits += np.int64(die >= face)  # branch-free: the comparison is a coin flip
    state[0], state[1], state[2] = counter, buffer, left
    return hits


@jit(inline="always")
def _mark_fired_upon(st, n_upon, s, t, vid, supp_cmp):
    """Note that ``s`` fires at ``t`` in volley ``vid`` (S-32, S-35); return the list length.

    ``C_LIST[:n_upon]`` lists the figures fired upon in the volley.
    """
    if st[_f(C_UPON, t)] != vid:
        st[_f(C_UPON, t)] = vid
        st[_f(C_HITS, t)] = 0
        st[_f(C_SUPPRESSED, t)] = 0
        st[_f(C_LIST, n_upon)] = t
        n_upon += 1
    st[_f(C_ATTACKER, t)] = s
    if suppresses(st[_f(C_SUPP, s)], st[_f(C_SUPP, t)], supp_cmp):
        st[_f(C_SUPPRESSED, t)] = 1
    return n_upon


@jit(inline="always")
def _damage(dice, st, g, t, hits, dmg_out):
    """Roll the damage table once per hit while ``t`` is not out (S-33).

    ``dmg_out`` has bit ``face`` set when that face puts the target out of the
    fight; a hit on a figure already out is wasted and rolls nothing.
    """
    for _ in range(hits):
        if st[_f(C_STATUS, t)] == OUT:
            return
        if (dmg_out >> rng.d6(dice)) & 1:
            _set_status(st, g, t, OUT)


@jit(inline="always")
def _target_level(st, t):
    """Hit-table condition level of target ``t``: :func:`target_level`, without branching."""
    pos = st[_f(C_POS, t)]
    row8 = (pos == PARTIAL) | (st[_f(C_PRONE, t)] != 0) | (st[_f(C_FAST, t)] != 0)
    return max(2 * np.int64(pos == COVER), np.int64(row8))


@jit(inline="always")
def _declare(pol, st, nb, e0, e1, s, n_targets):
    """Name the targets of shooter ``s`` into its ``C_DECL`` columns (S-25, S-28, S-35).

    A fixed target (return fire at the figure that fired, S-35) is kept if it
    can still be shot; otherwise up to ``shooting.targets_per_shooter``
    distinct targets are drawn uniformly from the visible enemies (POLICY
    stream). ``C_BASE[:nb]`` lists the visible enemies in figure order; it is
    filled on first use in the volley (``nb < 0``: not yet), since no figure
    changes state while targets are named. Returns ``(targets, nb)``.
    """
    t = st[_f(C_TARGET, s)]
    if t >= 0:
        if _targetable(st, t):
            st[_f(C_DECL, s)] = t
            return 1, nb
        return 0, nb
    if nb < 0:
        nb = 0
        for e in range(e0, e1):
            st[_f(C_BASE, nb)] = e  # branch-free compaction: being visible is a coin flip
            nb += np.int64(_targetable(st, e))
    m = min(n_targets, nb, st[_f(C_DICE, s)])
    if m == 1:
        # One target: the partial shuffle below reduces to one draw (none for a sole enemy).
        st[_f(C_DECL, s)] = st[_f(C_BASE, rng.below(pol, nb) if nb > 1 else 0)]
    elif m > 1:
        for j in range(nb):
            st[_f(C_CAND, j)] = st[_f(C_BASE, j)]
        for j in range(m):
            k = j + rng.below(pol, nb - j) if nb - j > 1 else j
            tmp = st[_f(C_CAND, j)]
            st[_f(C_CAND, j)] = st[_f(C_CAND, k)]
            st[_f(C_CAND, k)] = tmp
            st[_f(C_DECL + j, s)] = st[_f(C_CAND, j)]
    return m, nb



# --- the battlefield (issue 50) -----------------------------------------------------------
#
# On a scenario with a battlefield (P_FIELD = 1) every figure has a position and the fight
# reads the table through sim.kernels.skirmish_geometry: ``fld`` is the tuple
# ``(xy, bld, opn, cov, lit, fp, ex, ey)`` of per-figure positions (skirmish_layout.XY),
# the battlefield arrays, its measures (skirmish_layout.FPARAMS) and two scratch arrays.
# On the abstract battlefield (P_FIELD = 0) none of this is read, and the fight draws the
# same dice as before.


@jit
def _x(c, f):
    """Index of position column ``c`` of figure ``f`` in ``xy``."""
    return np.uint64(c * MAXF + f)


@jit(inline="always")
def _dist(xy, a, b):
    """Inches between figures ``a`` and ``b``."""
    dx = xy[_x(XY_X, a)] - xy[_x(XY_X, b)]
    dy = xy[_x(XY_Y, a)] - xy[_x(XY_Y, b)]
    return np.sqrt(dx * dx + dy * dy)


@jit(inline="always")
def _sight_at(st, fld, s, t):
    """How far ``s`` sees ``t`` (S-19..S-22): S-20's limit lifted when ``t`` stands lit."""
    xy = fld[0]
    if geo.in_area(fld[4], xy[_x(XY_X, t)], xy[_x(XY_Y, t)]):
        return st[_f(C_SIGHT_LIT, s)]
    return st[_f(C_SIGHT, s)]


@jit(inline="always")
def _seen(st, fld, s, t, x, y, floor):
    """Whether ``s`` sees ``t`` standing at ``(x, y, floor)``: within its sight, no building
    between them (S-19).
    """
    xy = fld[0]
    dx = xy[_x(XY_X, s)] - x
    dy = xy[_x(XY_Y, s)] - y
    if dx * dx + dy * dy > _sight_at(st, fld, s, t) ** 2:
        return False
    return not geo.sight_blocked(fld[1], fld[2], fld[5][FP_HALF], xy[_x(XY_X, s)],
                                 xy[_x(XY_Y, s)], st[_f(C_FLOOR, s)], x, y, floor)


@jit(inline="always")
def _fire_level(st, fld, s, t):
    """Cover level of ``s``'s fire at ``t`` on the battlefield, -1 if it cannot fire.

    Within its weapon's range and its sight (S-19..S-22), along a line no
    building blocks and across fewer than ``battlefield.units_block`` units of
    cover (S-19, S-23); the level is that of the cover crossed (S-31, S-01).
    """
    xy = fld[0]
    d = _dist(xy, s, t)
    if d > st[_f(C_WRANGE, s)] or d > _sight_at(st, fld, s, t):
        return -1
    fp = fld[5]
    return geo.fire_line(fld[1], fld[2], fld[3], fp[FP_HALF], xy[_x(XY_X, s)], xy[_x(XY_Y, s)],
                         st[_f(C_FLOOR, s)], xy[_x(XY_X, t)], xy[_x(XY_Y, t)],
                         st[_f(C_FLOOR, t)], st[_f(C_ENTER, t)] != 0, fp[FP_CONTACT],
                         st[_p(P_SHOOTER_COVER)] != 0, st[_p(P_HEIGHT_CLEARS)] != 0,
                         st[_p(P_UNITS_BLOCK)])


@jit(inline="always")
def _has_target(st, fld, s, e):
    """Whether ``s`` can fire at some visible enemy of side ``e`` (S-19, S-23)."""
    for t in range(st[_g(e, K_START)], st[_g(e, K_STOP)]):
        if _targetable(st, t) and _fire_level(st, fld, s, t) >= 0:
            return True
    return False


@jit(inline="always")
def _declare_field(pol, st, fld, e0, e1, s, n_targets):
    """Name the targets of shooter ``s`` on the battlefield (S-25, S-28, S-35); return how many.

    A fixed target (return fire, S-35) is kept if ``s`` can still fire at it.
    Otherwise the first target is drawn uniformly (POLICY stream) from the
    enemies ``s`` can fire at, and up to ``shooting.targets_per_shooter - 1``
    further ones from those within the weapon's spread of the first (S-25,
    :func:`sim.kernels.skirmish_geometry.within_spread`).
    """
    t = st[_f(C_TARGET, s)]
    if t >= 0:
        if _targetable(st, t) and _fire_level(st, fld, s, t) >= 0:
            st[_f(C_DECL, s)] = t
            return 1
        return 0
    nb = 0
    for e in range(e0, e1):
        if _targetable(st, e) and _fire_level(st, fld, s, e) >= 0:
            st[_f(C_BASE, nb)] = e
            nb += 1
    if nb == 0:
        return 0
    first = st[_f(C_BASE, rng.below(pol, nb) if nb > 1 else 0)]
    st[_f(C_DECL, s)] = first
    want = min(n_targets, st[_f(C_DICE, s)]) - 1
    if want <= 0:
        return 1
    xy = fld[0]
    fx = xy[_x(XY_X, first)]
    fy = xy[_x(XY_Y, first)]
    nc = 0
    for j in range(nb):
        e = st[_f(C_BASE, j)]
        if e != first and geo.within_spread(fx, fy, xy[_x(XY_X, e)], xy[_x(XY_Y, e)],
                                             st[_f(C_SPREAD, s)]):
            st[_f(C_CAND, nc)] = e
            nc += 1
    m = 1
    for j in range(min(want, nc)):
        k = j + rng.below(pol, nc - j) if nc - j > 1 else j
        tmp = st[_f(C_CAND, j)]
        st[_f(C_CAND, j)] = st[_f(C_CAND, k)]
        st[_f(C_CAND, k)] = tmp
        st[_f(C_DECL + m, s)] = st[_f(C_CAND, j)]
        m += 1
    return m


@jit(inline="always")
def _flee(st, fld, g, f):
    """Figure ``f`` of ``g`` flees (S-39), or surrenders if it is surrounded.

    On a battlefield with ``flee.surrounded = "paths"``, a figure whose every
    run to a table edge passes within ``flee.surrounded_inches`` of an enemy in
    normal condition (:func:`sim.kernels.skirmish_geometry.surrounded`) is taken
    prisoner at once: lost, and counted as surrendered.
    """
    if st[_p(P_FIELD)] != 0 and st[_p(P_SURROUNDED)] != 0:
        xy, ex, ey, fp = fld[0], fld[6], fld[7], fld[5]
        e = 1 - g
        n = 0
        for c in range(st[_g(e, K_START)], st[_g(e, K_STOP)]):
            if st[_f(C_STATUS, c)] == ACTIVE:
                ex[n] = xy[_x(XY_X, c)]
                ey[n] = xy[_x(XY_Y, c)]
                n += 1
        if geo.surrounded(xy[_x(XY_X, f)], xy[_x(XY_Y, f)], ex, ey, n, fp[FP_WIDTH],
                          fp[FP_DEPTH], fp[FP_SURROUND]):
            _set_status(st, g, f, LOST)
            st[_g(g, K_SURRENDERED)] += 1
            return
    _set_status(st, g, f, FLEE)


@jit(inline="always")
def _settle(st, fld, f):
    """Position state of ``f`` after it moved or its entering ended (S-01).

    Inside a building and not just entering: in cover; otherwise in the open.
    """
    xy = fld[0]
    inside = geo.building_at(fld[1], xy[_x(XY_X, f)], xy[_x(XY_Y, f)]) != geo.OUTSIDE
    st[_f(C_POS, f)] = COVER if inside and st[_f(C_ENTER, f)] == 0 else OPEN


@jit(inline="always")
def _fast_dice(dice, st):
    """The group's shared fast-move test (S-09): ``(attempt, d1, d2)``.

    Under ``fast_move.attempt`` the moving group rolls two dice once for all its
    figures (:func:`_fast_passes` reads them per figure); otherwise no die is
    rolled and both are 0. The one roll of both movement functions, on open
    ground (:func:`_move`) and on a battlefield (:func:`_field_move`).
    """
    attempt = st[_p(P_FAST_ATTEMPT)] != 0
    d1 = 0
    d2 = 0
    if attempt:
        d1 = rng.d6(dice)
        d2 = rng.d6(dice)
    return attempt, d1, d2


@jit(inline="always")
def _fast_passes(st, g, f, d1, d2, attempt):
    """Dice ``d1, d2`` of the group's fast-move test that figure ``f`` of ``g`` passed (S-09).

    None when the group does not try (``fast_move.attempt``), and none for a figure
    carrying a comrade alone: it moves at its normal speed (S-05).
    """
    if not attempt:
        return 0
    skill = st[_f(C_SKILL, f)]
    x = st[_f(C_CARRY, f)]
    if x != NO_TARGET and _carriers(st, g, x) < 2:
        return 0
    return np.int64(d1 <= skill) + np.int64(d2 <= skill)


@jit(inline="always")
def _field_move(dice, st, fld, g, started):
    """Group ``g`` moves on the battlefield (S-02, S-03, S-09): the movement policy ``advance``.

    The group rolls its fast-move test as on the abstract battlefield. Each
    figure in normal condition that may act and cannot fire at any enemy moves
    on its own towards the nearest enemy still on the field (status normal or
    cowering): straight, its S-09 allowance plus the fast-move inches, through
    doors (-2 inches) and windows (the move ends); a wall with no opening in its
    way stops it, or under ``battlefield.walls = "round"`` (the default) it goes
    round that building by its corners
    (:func:`sim.kernels.skirmish_geometry.move_round`), halting half an inch
    inside its range of the goal (or 1 inch short once within range). To reach
    an enemy in another building it heads for the point 1 inch outside that
    building's nearest door (or ground-floor window), then through it to 1 inch
    inside; to leave its own building the same through its nearest door, out.
    On an upper floor, or with the goal on another floor of its building, the
    move is one flight of stairs (S-02: one turn a floor). A figure that ends
    its move in a building it was not in is entering (S-01: in the open). A
    figure that can fire stays and fires.
    """
    xy, bld, opn, fp = fld[0], fld[1], fld[2], fld[5]
    attempt, d1, d2 = _fast_dice(dice, st)
    per_pass = st[_p(P_FAST_INCHES)]
    around = st[_p(P_WALLS_ROUND)] != 0
    g0 = st[_g(g, K_START)]
    g1 = st[_g(g, K_STOP)]
    e = 1 - g
    for f in range(g0, g1):
        st[_f(C_MOVED, f)] = 0
        xy[_x(XY_OX, f)] = xy[_x(XY_X, f)]
        xy[_x(XY_OY, f)] = xy[_x(XY_Y, f)]
        st[_f(C_OFLOOR, f)] = st[_f(C_FLOOR, f)]
    for f in range(g0, g1):
        if st[_f(C_STATUS, f)] != ACTIVE or st[_f(C_FIRED, f)] > started:
            continue
        if _has_target(st, fld, f, e):
            continue
        goal = -1
        best = 0.0
        for c in range(st[_g(e, K_START)], st[_g(e, K_STOP)]):
            if st[_f(C_STATUS, c)] <= COWER:
                d = _dist(xy, f, c)
                if goal < 0 or d < best:
                    goal = c
                    best = d
        if goal < 0:
            continue
        k = _fast_passes(st, g, f, d1, d2, attempt)
        inches = st[_f(C_SPEED, f)] + k * per_pass
        fx = xy[_x(XY_X, f)]
        fy = xy[_x(XY_Y, f)]
        floor = st[_f(C_FLOOR, f)]
        b = geo.building_at(bld, fx, fy)
        gx = xy[_x(XY_X, goal)]
        gy = xy[_x(XY_Y, goal)]
        gb = geo.building_at(bld, gx, gy)
        if b != geo.OUTSIDE and (floor > 0 and gb != b
                                 or gb == b and floor != st[_f(C_FLOOR, goal)]):
            st[_f(C_FLOOR, f)] = geo.stairs_turn(bld, b, floor,
                                                 0 if gb != b else st[_f(C_FLOOR, goal)])
        else:
            door = np.float64(st[_p(P_DOOR)])
            left = np.float64(inches)
            nx = fx
            ny = fy
            side = gb if gb != geo.OUTSIDE else b
            found = False
            if gb != b and side != geo.OUTSIDE:
                # Two legs: to 1 inch before the way in (or out), then through it.
                way = 1.0 if gb != geo.OUTSIDE else -1.0
                ax, ay, found = geo.entry_point(bld, opn, side, fx, fy, -way)
                gx, gy, found = geo.entry_point(bld, opn, side, fx, fy, way)
                if found:
                    leg = np.sqrt((ax - fx) ** 2 + (ay - fy) ** 2)
                    if leg > geo.STEP:
                        nx, ny, how, rest = geo.move_round(bld, opn, fp[FP_HALF], door, fx,
                                                           fy, floor, ax, ay, left, 0.0, around)
                        left = rest if how == geo.MOVE_FREE and rest >= 0.0 else 0.0
                    if left > 0.0:
                        nx, ny, how, _ = geo.move_round(bld, opn, fp[FP_HALF], door, nx, ny,
                                                        floor, gx, gy, left, 0.0, around)
            if not found:
                stop = 1.0
                reach = min(st[_f(C_WRANGE, f)], _sight_at(st, fld, f, goal))
                if best > reach:
                    stop = reach - 0.5
                nx, ny, how, _ = geo.move_round(bld, opn, fp[FP_HALF], door, fx, fy, floor,
                                                xy[_x(XY_X, goal)], xy[_x(XY_Y, goal)], left,
                                                stop, around)
            xy[_x(XY_X, f)] = nx
            xy[_x(XY_Y, f)] = ny
            nb = geo.building_at(bld, nx, ny)
            if nb != b:
                st[_f(C_ENTER, f)] = np.int64(nb != geo.OUTSIDE)
        st[_f(C_FAST, f)] = np.int64(k >= 1)
        st[_f(C_PRONE, f)] = 0
        st[_f(C_HIDDEN, f)] = 0
        st[_f(C_MOVED, f)] = 1
        _settle(st, fld, f)
    st[_g(g, K_FAST_ANY)] = 1
    st[_g(g, K_MOVED_ANY)] = 1


@jit(inline="always")
def _field_start(st, fld, g, started):
    """Whether group ``g`` advances on the battlefield: its movement policy is ``advance``
    and a figure in normal condition that may act (S-42) cannot fire at any enemy.

    With ``battlefield.entering = "activation"`` a figure's entering (S-01) ends here.
    """
    g0 = st[_g(g, K_START)]
    g1 = st[_g(g, K_STOP)]
    if st[_p(P_ENTER_MOVE)] == 0:
        for f in range(g0, g1):
            if st[_f(C_ENTER, f)] != 0:
                st[_f(C_ENTER, f)] = 0
                _settle(st, fld, f)
    if st[_g(g, K_MOVEMENT)] == 0:
        return False
    for f in range(g0, g1):
        if (st[_f(C_STATUS, f)] == ACTIVE and st[_f(C_FIRED, f)] <= started
                and not _has_target(st, fld, f, 1 - g)):
            return True
    return False


@jit(inline="always")
def _field_in_sight(st, fld, g):
    """List in ``C_LIST`` the figures of ``g`` an enemy move made take In Sight (S-14).

    A figure in normal condition tests when some enemy that moved started its
    move out of its sight and came into it, or started out of its range and
    came into range within sight (:func:`sim.kernels.skirmish_geometry.comes_into_sight`).
    """
    xy = fld[0]
    e = 1 - g
    n_test = 0
    for f in range(st[_g(g, K_START)], st[_g(g, K_STOP)]):
        if st[_f(C_STATUS, f)] != ACTIVE:
            continue
        for m in range(st[_g(e, K_START)], st[_g(e, K_STOP)]):
            if st[_f(C_MOVED, m)] == 0 or st[_f(C_STATUS, m)] > COWER:
                continue
            reach = min(st[_f(C_WRANGE, f)], _sight_at(st, fld, f, m))
            ox = xy[_x(XY_OX, m)]
            oy = xy[_x(XY_OY, m)]
            fx = xy[_x(XY_X, f)]
            fy = xy[_x(XY_Y, f)]
            before = np.sqrt((ox - fx) ** 2 + (oy - fy) ** 2)
            seen_before = _seen(st, fld, f, m, ox, oy, st[_f(C_OFLOOR, m)])
            seen_now = _seen(st, fld, f, m, xy[_x(XY_X, m)], xy[_x(XY_Y, m)],
                             st[_f(C_FLOOR, m)])
            if geo.comes_into_sight(seen_before, before <= reach, seen_now,
                                    _dist(xy, f, m) <= reach):
                st[_f(C_LIST, n_test)] = f
                n_test += 1
                break
    return n_test


@jit(inline="always")
def _field_surrender(st, fld, g, movers_only):
    """Cowering figures of ``g`` surrender to an armed enemy within reach (S-38), on the table.

    Each cowering figure with an enemy in normal condition (one that moved, if
    ``movers_only``) within ``surrender.inches`` that sees it (S-19..S-22) is
    taken prisoner: lost, and counted as surrendered.
    """
    if st[_g(g, COWER)] == 0 or st[_p(P_SURRENDER)] < 0:
        return
    xy = fld[0]
    e = 1 - g
    for c in range(st[_g(g, K_START)], st[_g(g, K_STOP)]):
        if st[_f(C_STATUS, c)] != COWER:
            continue
        for f in range(st[_g(e, K_START)], st[_g(e, K_STOP)]):
            if (st[_f(C_STATUS, f)] == ACTIVE and (st[_f(C_MOVED, f)] != 0 or not movers_only)
                    and _dist(xy, f, c) <= st[_p(P_SURRENDER)]
                    and _seen(st, fld, f, c, xy[_x(XY_X, c)], xy[_x(XY_Y, c)],
                              st[_f(C_FLOOR, c)])):
                _set_status(st, g, c, LOST)
                st[_g(g, K_SURRENDERED)] += 1
                break


@jit(inline="always")
def _friend_near(st, fld, g, f):
    """A friend in normal condition within ``battlefield.recover_inches`` of ``f`` (S-41)."""
    xy = fld[0]
    for c in range(st[_g(g, K_START)], st[_g(g, K_STOP)]):
        if c != f and st[_f(C_STATUS, c)] == ACTIVE and _dist(xy, c, f) <= fld[5][FP_RECOVER]:
            return True
    return False


@jit(inline="always")
def _volley(dice, pol, st, fld, buf, dmg_out, side, n_armed, dist, vid, n_targets, supp_cmp,
            trigger):
    """Group ``side`` fires at once (S-28..S-34, S-38); return the number of Received Fire testers.

    The figures with a target marker are listed in ``C_ARMED[:n_armed]``, in
    figure order. Every shooter names its targets before any die is rolled
    (S-28); hits on a figure already out are wasted. A hit rolls on
    the damage table at once. Afterwards a cowering figure fired upon flees
    (S-38) and a figure in normal condition that meets the trigger
    (``received_fire.trigger``) tests (S-34, S-43): the testers are left in
    ``C_LIST``, in no particular order (their results do not depend on it).
    On a battlefield a shooter names targets it can fire at from where it stands
    (:func:`_declare_field`), the cover its line crosses raises the hit-table
    level (S-23, S-31), and where it fired from is noted for the plot.
    """
    enemy = 1 - side
    field = st[_p(P_FIELD)] != 0
    e0 = st[_g(enemy, K_START)]
    e1 = st[_g(enemy, K_STOP)]
    nb = -1
    for i in range(n_armed):
        s = st[_f(C_ARMED, i)]
        m = 0
        if field:
            if st[_f(C_STATUS, s)] == ACTIVE:
                m = _declare_field(pol, st, fld, e0, e1, s, n_targets)
        elif st[_f(C_STATUS, s)] == ACTIVE and dist <= st[_f(C_RANGE, s)]:
            m, nb = _declare(pol, st, nb, e0, e1, s, n_targets)
        st[_f(C_NDECL, s)] = m
        st[_f(C_TARGET, s)] = NO_TARGET
    n_upon = 0
    for i in range(n_armed):
        s = st[_f(C_ARMED, i)]
        m = st[_f(C_NDECL, s)]
        if m == 0:
            st[_f(C_SMOD, s)] = 0
            continue
        st[_f(C_HIDDEN, s)] = 0
        st[_f(C_FIRED, s)] = vid
        if field:
            xy = fld[0]
            xy[_x(XY_FX, s)] = xy[_x(XY_X, s)]
            xy[_x(XY_FY, s)] = xy[_x(XY_Y, s)]
            st[_f(C_SHOT_AT, s)] = 1
        n = st[_f(C_DICE, s)]
        skill = st[_f(C_SKILL, s)] + st[_f(C_SMOD, s)]
        st[_f(C_SMOD, s)] = 0
        s_lvl = shooter_level(st[_f(C_FAST, s)], st[_f(C_TWO, s)])
        if st[_f(C_CARRY, s)] != NO_TARGET:
            s_lvl = 2  # firing while carrying: every target counts as in cover (S-06)
        if m == 1:
            # All dice at one target: the order of the dice does not matter, only
            # how many hit (S-26); damage is rolled after the volley's dice.
            t = st[_f(C_DECL, s)]
            lvl = max(_target_level(st, t), s_lvl)
            if field:
                lvl = max(lvl, _fire_level(st, fld, s, t))
            n_upon = _mark_fired_upon(st, n_upon, s, t, vid, supp_cmp)
            h = _count_at_least(dice, n, st[_p(P_NEED + lvl)] - skill)
            st[_f(C_HITS, t)] += h
            _damage(dice, st, enemy, t, h, dmg_out)
            continue
        roll_sorted(dice, n, buf)
        i = 0
        for j in range(m):
            t = st[_f(C_DECL + j, s)]
            t_lvl = _target_level(st, t)
            if field:
                t_lvl = max(t_lvl, _fire_level(st, fld, s, t))
            lvl = die_level(t_lvl, s_lvl, j)
            n_upon = _mark_fired_upon(st, n_upon, s, t, vid, supp_cmp)
            for _ in range(allocate(n, m, j)):
                if buf[i] + skill >= st[_p(P_NEED + lvl)]:
                    st[_f(C_HITS, t)] += 1
                    _damage(dice, st, enemy, t, 1, dmg_out)
                i += 1
    testers = 0
    for i in range(n_upon):
        t = st[_f(C_LIST, i)]
        status = st[_f(C_STATUS, t)]
        if status == COWER:
            _flee(st, fld, enemy, t)
        elif status == ACTIVE and (trigger == TRIGGER_NO_DAMAGE or st[_f(C_HITS, t)] == 0):
            st[_f(C_LIST, testers)] = t
            testers += 1
    return testers


@jit(inline="always")
def received_fire_result(k, in_cover, suppressed, fast, flanked, precedence):
    """Result of the Received Fire table (S-36) for ``k`` dice passed."""
    if k >= 2:
        if in_cover:
            return R_PRONE if suppressed else R_FIRE
        if suppressed:
            return R_COVER_PRONE if fast else R_PRONE
        return R_FIRE
    if k == 1:
        # Text order: flank before suppressed in cover, suppressed before flank in the open.
        flank_first = precedence == PREC_FLANK or (precedence == PREC_TEXT and in_cover)
        if flank_first and flanked:
            return R_FLEE
        if suppressed:
            return R_PRONE
        if flanked:
            return R_FLEE
        return R_FIRE_M1
    return R_COWER if in_cover else R_FLEE


@jit(inline="always")
def _apply(st, fld, g, f, result):
    """Carry out a reaction result that is not fire (S-15, S-36, S-38, S-39)."""
    if result == R_PRONE:
        st[_f(C_PRONE, f)] = 1
    elif result == R_COVER_PRONE or result == R_HIDE:
        st[_f(C_POS, f)] = COVER
        if result == R_COVER_PRONE:
            st[_f(C_PRONE, f)] = 1
    elif result == R_FLEE:
        _flee(st, fld, g, f)
    elif result == R_COWER:
        _set_status(st, g, f, COWER)
    elif result == R_REVEAL:
        st[_f(C_HIDDEN, f)] = 0


@jit(inline="always")
def _received_fire(dice, st, fld, n_test, g, allow_fire, dist):
    """The testers ``C_LIST[:n_test]`` of group ``g`` test Received Fire (S-10..S-12, S-34..S-37).

    One shared 2d6 for the group. Returns how many figures fire back, listed in
    figure order in ``C_ARMED``; each one targets the figure that fired at it
    (S-35), with -1 Skill on a one-die pass. A figure that cowers with an
    enemy within 6 inches surrenders at once where ``surrender.when`` is
    ``within`` (S-38, :func:`_surrender`).
    """
    if n_test == 0:
        return 0
    d1 = rng.d6(dice)
    d2 = rng.d6(dice)
    back = 0
    for i in range(n_test):
        f = st[_f(C_LIST, i)]
        skill = st[_f(C_SKILL, f)]
        k = np.int64(d1 <= skill) + np.int64(d2 <= skill)
        # The table (received_fire_result for the side's options) is read without
        # branching: the dice passed and the conditions are coin flips.
        r = st[_rf_index(g, k, st[_f(C_POS, f)], st[_f(C_SUPPRESSED, f)], st[_f(C_FAST, f)])]
        if r == R_FIRE or r == R_FIRE_M1:
            if allow_fire:
                st[_f(C_TARGET, f)] = st[_f(C_ATTACKER, f)]
                st[_f(C_SMOD, f)] = -1 if r == R_FIRE_M1 else 0
                j = back  # the testers come in no order; the shooters fire in figure order
                while j > 0 and st[_f(C_ARMED, j - 1)] > f:
                    st[_f(C_ARMED, j)] = st[_f(C_ARMED, j - 1)]
                    j -= 1
                st[_f(C_ARMED, j)] = f
                back += 1
        else:
            _apply(st, fld, g, f, r)
    if st[_p(P_SURRENDER_WHEN)] == SURRENDER_WITHIN:
        if st[_p(P_FIELD)] != 0:
            _field_surrender(st, fld, g, False)
        else:
            _surrender(st, g, dist, False)
    return back


@jit(inline="always")
def in_sight_result(k, hidden, leader, in_cover, open_one, leader_choice):
    """Result of the In Sight table (S-15) for ``k`` dice passed."""
    if hidden:
        if leader and k >= 1:
            return R_FIRE if leader_choice == LEADER_FIRE else R_NONE
        if k == 2:
            return R_FIRE
        if k == 1:
            return R_FIRE_M1
        return R_REVEAL
    if k >= 2:
        return R_FIRE
    if k == 1:
        if in_cover:
            return R_FIRE_M1
        return R_PRONE if open_one == OPEN_ONE_PRONE else R_HIDE
    return R_NONE


@jit(inline="always")
def _covering(st, f, when):
    """Whether figure ``f`` counts as Covering for the In Sight test (S-15, ``covering.when``)."""
    return when == COVER_ALWAYS or (when == COVER_STATIONARY and st[_f(C_MOVED, f)] == 0)


@jit(inline="always")
def _in_sight(dice, st, fld, buf, g, old_dist, dist):
    """Group ``g`` tests In Sight for figures the enemy moved into range of (S-14, S-15).

    Returns how many figures fire, listed in ``C_ARMED`` (their targets are
    chosen among the movers).
    """
    when = st[_p(P_COVER_WHEN)]
    n_test = 0
    n_dice = 2
    if st[_p(P_FIELD)] != 0:
        n_test = _field_in_sight(st, fld, g)
        for i in range(n_test):
            if _covering(st, st[_f(C_LIST, i)], when):
                n_dice = 2 + st[_p(P_COVER_EXTRA)]
    else:
        for f in range(st[_g(g, K_START)], st[_g(g, K_STOP)]):
            r = st[_f(C_RANGE, f)]
            if old_dist > r >= dist and st[_f(C_STATUS, f)] == ACTIVE:
                st[_f(C_LIST, n_test)] = f
                n_test += 1
                if _covering(st, f, when):
                    n_dice = 2 + st[_p(P_COVER_EXTRA)]
    if n_test == 0:
        return 0
    roll(dice, n_dice, buf)
    cap = st[_p(P_CAP)]
    leader = st[_g(g, K_LEADER)] != 0
    partial_is_cover = st[_p(P_PARTIAL_IS_COVER)]
    shooters = 0
    for i in range(n_test):
        f = st[_f(C_LIST, i)]
        k = passes(buf, n_dice if _covering(st, f, when) else 2, st[_f(C_SKILL, f)], cap)
        r = in_sight_result(k, st[_f(C_HIDDEN, f)] != 0, leader,
                            _in_cover(st[_f(C_POS, f)], partial_is_cover), st[_p(P_OPEN_ONE)],
                            st[_p(P_LEADER_CHOICE)])
        if r == R_FIRE or r == R_FIRE_M1:
            st[_f(C_TARGET, f)] = CHOOSE
            st[_f(C_SMOD, f)] = -1 if r == R_FIRE_M1 else 0
            st[_f(C_ARMED, shooters)] = f
            shooters += 1
        else:
            _apply(st, fld, g, f, r)
    return shooters


@jit(inline="always")
def _recover(dice, st, fld, g, vid):
    """Cowering and fleeing figures of ``g`` try to return (S-41, S-42) on shared 2d6.

    Only when a friend is in normal condition (the abstract battlefield keeps a
    group together, so "within 2 inches" always holds). Two dice passed: the
    figure returns and "may immediately take any action", so it moves and
    fires with its group in this activation. One die passed (a cowering figure
    in cover): it returns to the fight without that licence, so it takes no
    action in this activation: it gets the unused stamp ``vid + 1`` in
    ``C_FIRED`` (as if it had fired after the activation began) and stays
    where it is (``C_MOVED`` cleared). On a battlefield a figure tries only
    with a friend in normal condition within ``battlefield.recover_inches``
    (S-41). Returns the last stamp used.
    """
    if (st[_g(g, COWER)] + st[_g(g, FLEE)] == 0 or st[_g(g, ACTIVE)] == 0
            or st[_p(P_RECOVER_ATTEMPT)] == 0):
        return vid
    g0 = st[_g(g, K_START)]
    g1 = st[_g(g, K_STOP)]
    best_rule = st[_p(P_RECOVER_SKILL)] == RECOVER_BEST
    best = -1
    if best_rule:
        for f in range(g0, g1):
            if st[_f(C_STATUS, f)] == ACTIVE:
                best = max(best, st[_f(C_SKILL, f)])
    d1 = rng.d6(dice)
    d2 = rng.d6(dice)
    partial_is_cover = st[_p(P_PARTIAL_IS_COVER)]
    waited = False
    for f in range(g0, g1):
        status = st[_f(C_STATUS, f)]
        if status != COWER and status != FLEE:
            continue
        if st[_p(P_FIELD)] != 0 and not _friend_near(st, fld, g, f):
            continue
        skill = best if best_rule else st[_f(C_SKILL, f)]
        k = np.int64(d1 <= skill) + np.int64(d2 <= skill)
        sitting = status == COWER and _in_cover(st[_f(C_POS, f)], partial_is_cover)
        if k == 2:
            _set_status(st, g, f, ACTIVE)
            if status == FLEE:
                st[_f(C_POS, f)] = OPEN
                st[_f(C_PRONE, f)] = 0
        elif k == 1 and sitting:
            _set_status(st, g, f, ACTIVE)
            st[_f(C_FIRED, f)] = vid + 1
            st[_f(C_MOVED, f)] = 0
            waited = True
        else:
            _set_status(st, g, f, LOST)
    return vid + 1 if waited else vid


@jit(inline="always")
def _carriers(st, g, x):
    """How many figures of ``g`` carry comrade ``x`` (S-04, S-05)."""
    n = 0
    for c in range(st[_g(g, K_START)], st[_g(g, K_STOP)]):
        n += np.int64(st[_f(C_CARRY, c)] == x)
    return n


@jit(inline="always")
def _pick_up(st, g, started, vid):
    """Figures of ``g`` pick up comrades out of the fight (S-04); return the last stamp used.

    The group's ``carriers`` (a policy: 0 leaves its casualties, 1 or 2 figures
    per comrade, S-05) pick up, in figure order, each comrade out of the fight
    whom nobody carries, with the first figures in normal condition that may act
    and carry nobody. Picking up ends the carrier's turn: like a one-die
    returner (S-42) it gets the stamp ``vid + 1`` in ``C_FIRED``, so it neither
    advances nor fires in this activation, and stays where it is.
    """
    n = st[_g(g, K_CARRIERS)]
    if n == 0 or st[_g(g, OUT)] == 0:
        return vid
    g0 = st[_g(g, K_START)]
    g1 = st[_g(g, K_STOP)]
    used = False
    for x in range(g0, g1):
        if st[_f(C_STATUS, x)] != OUT or _carriers(st, g, x) > 0:
            continue
        free = 0
        for c in range(g0, g1):
            free += np.int64((st[_f(C_STATUS, c)] == ACTIVE) & (st[_f(C_FIRED, c)] <= started)
                             & (st[_f(C_CARRY, c)] == NO_TARGET))
        if free < n:
            break
        taken = 0
        for c in range(g0, g1):
            if (taken < n and st[_f(C_STATUS, c)] == ACTIVE and st[_f(C_FIRED, c)] <= started
                    and st[_f(C_CARRY, c)] == NO_TARGET):
                st[_f(C_CARRY, c)] = x
                st[_f(C_FIRED, c)] = vid + 1
                st[_f(C_MOVED, c)] = 0
                taken += 1
        used = True
    return vid + 1 if used else vid


@jit(inline="always")
def _move(dice, st, g, dist, started):
    """Group ``g`` advances (S-09) and may try to move fast; return the new distance.

    Each figure in normal condition that may act (``C_FIRED <= started``; a
    one-die returner may not, S-42) moves its S-09 allowance plus
    ``fast_move.inches_per_pass`` per die passed on a shared 2d6 fast-move
    test; the group keeps together at the pace of its slowest mover. Moving
    figures leave cover, stand up and are seen. A figure carrying a comrade
    moves at its normal speed and not fast, unless two carry him (S-05).
    """
    attempt, d1, d2 = _fast_dice(dice, st)
    per_pass = st[_p(P_FAST_INCHES)]
    step = -1
    for f in range(st[_g(g, K_START)], st[_g(g, K_STOP)]):
        if st[_f(C_STATUS, f)] != ACTIVE or st[_f(C_FIRED, f)] > started:
            continue
        k = _fast_passes(st, g, f, d1, d2, attempt)
        inches = st[_f(C_SPEED, f)] + k * per_pass
        if step < 0 or inches < step:
            step = inches
        st[_f(C_FAST, f)] = np.int64(k >= 1)
        st[_f(C_POS, f)] = OPEN
        st[_f(C_PRONE, f)] = 0
        st[_f(C_HIDDEN, f)] = 0
        st[_f(C_MOVED, f)] = 1
    st[_g(g, K_FAST_ANY)] = 1
    st[_g(g, K_MOVED_ANY)] = 1
    return max(dist - step, 0)


@jit(inline="always")
def _surrender(st, g, dist, movers_only):
    """Cowering figures of ``g`` surrender to an armed enemy within reach (S-38).

    If the group distance is within ``surrender.inches`` (6) and an enemy in
    normal condition (so armed) sees them (``C_SIGHT``, S-19..S-22), every
    cowering figure of ``g`` is taken prisoner and counts as lost. Called after
    the enemy group's advance with ``movers_only`` (the enemy that "comes" is a
    figure that advanced), and, where ``surrender.when = "within"``, after each
    Received Fire test of ``g`` with any enemy (a figure that cowers with an
    enemy already that close). ``P_SURRENDER`` < 0: the rule is off.
    """
    if st[_g(g, COWER)] == 0 or dist > st[_p(P_SURRENDER)]:
        return
    seen = False
    e = 1 - g
    for f in range(st[_g(e, K_START)], st[_g(e, K_STOP)]):
        if (st[_f(C_STATUS, f)] == ACTIVE and (st[_f(C_MOVED, f)] != 0 or not movers_only)
                and dist <= st[_f(C_SIGHT, f)]):
            seen = True
    if seen:
        for f in range(st[_g(g, K_START)], st[_g(g, K_STOP)]):
            if st[_f(C_STATUS, f)] == COWER:
                _set_status(st, g, f, LOST)
                st[_g(g, K_SURRENDERED)] += 1


@jit(inline="always")
def _first(dice, order, r):
    """Group activating first in round ``r`` (``activation.order``)."""
    if order == ORDER_FIXED:
        return 0
    if order == ORDER_ALTERNATE:
        return (r - 1) & 1
    while True:
        a = rng.d6(dice)
        b = rng.d6(dice)
        if a != b:
            return 0 if a > b else 1


@jit(inline="always")
def _start_activation(st, g, dist, started):
    """Fleeing figures of ``g`` leave the table (S-40, S-08) and its Fast marks end;
    return whether a figure in normal condition that may act (not a one-die
    returner, S-42) is out of range (S-09).

    ``C_BY_RANGE`` lists each group's figures by increasing range, so the scan
    stops at the first figure in range.
    """
    g0 = st[_g(g, K_START)]
    g1 = st[_g(g, K_STOP)]
    if st[_g(g, FLEE)] > 0 or st[_g(g, K_FAST_ANY)] != 0:
        for f in range(g0, g1):
            if st[_f(C_STATUS, f)] == FLEE:
                _set_status(st, g, f, LOST)
            st[_f(C_FAST, f)] = 0
        st[_g(g, K_FAST_ANY)] = 0
    for i in range(g0, g1):
        f = st[_f(C_BY_RANGE, i)]
        if st[_f(C_RANGE, f)] >= dist:
            return False
        if st[_f(C_STATUS, f)] == ACTIVE and st[_f(C_FIRED, f)] <= started:
            return True
    return False


@jit(inline="always")
def _exchange(dice, pol, st, fld, buf, dmg_out, side, n_armed, dist, vid):
    """A volley and the return fire it provokes, up to ``received_fire.max_chain`` volleys.

    The first volley's shooters are listed in ``C_ARMED[:n_armed]``.

    Returns the last volley stamp used.
    """
    max_chain = st[_p(P_MAX_CHAIN)]
    n_targets = st[_p(P_TARGETS)]
    supp_cmp = st[_p(P_SUPP_CMP)]
    trigger = st[_p(P_TRIGGER)]
    depth = 1
    while True:
        vid += 1
        n_test = _volley(dice, pol, st, fld, buf, dmg_out, side, n_armed, dist, vid, n_targets,
                         supp_cmp, trigger)
        if _ended(st):
            return vid
        n_armed = _received_fire(dice, st, fld, n_test, 1 - side, depth < max_chain, dist)
        if n_armed == 0 or _ended(st):
            return vid
        side = 1 - side
        depth += 1


@jit(inline="always")
def _entered(st, fld, g):
    """With ``battlefield.entering = "move"``, the entering of ``g``'s movers (S-01) ends
    once the enemy has reacted to their move (In Sight, S-14).
    """
    if st[_p(P_FIELD)] != 0 and st[_p(P_ENTER_MOVE)] != 0:
        for f in range(st[_g(g, K_START)], st[_g(g, K_STOP)]):
            if st[_f(C_ENTER, f)] != 0:
                st[_f(C_ENTER, f)] = 0
                _settle(st, fld, f)


@jit(inline="always")
def fight(dice, pol, st, fld, n_fig, distance0, dmg_out, buf, vid):
    """Play one firefight from the scenario's start; return the round it ended in.

    ``st`` holds the static figure, group and rule data (:func:`_static_state`);
    the fight's state is reset here. ``vid`` is the last volley stamp used
    (C_UPON and C_FIRED hold the stamp of a figure's last volley); stamps keep
    growing from fight to fight, so old ones need no reset. Returns
    ``(rounds, withdrew, capped, vid)``: the round the fight ended in, the
    withdrawn group + 1 (0 if none), whether the fight ran to
    ``activation.max_rounds`` without ending, and the last stamp used.

    An activation of group ``g`` (Gap: turn structure): voluntary exit (S-07),
    Recover (S-41, S-42), picking up comrades out of the fight (S-04, the
    group's ``carriers``), fleeing figures leave the table (S-40, S-08),
    advance into range (S-09), the enemy's cowering figures surrender if it
    came within 6 inches (S-38), the enemy's In Sight test and fire (S-14,
    S-15), then every figure in normal condition that has not fired yet in
    this activation shoots (S-29). A figure that returned on one die or picked
    up a comrade in this activation neither advances nor shoots in it (S-42,
    S-04), but it reacts to enemy fire like any figure in normal condition
    (S-34..S-36).
    """
    for f in range(n_fig):
        st[_f(C_STATUS, f)] = ACTIVE
        st[_f(C_POS, f)] = st[_f(C_POS0, f)]
        st[_f(C_PRONE, f)] = st[_f(C_PRONE0, f)]
        st[_f(C_HIDDEN, f)] = st[_f(C_HIDDEN0, f)]
        st[_f(C_FAST, f)] = 0
        st[_f(C_MOVED, f)] = 0
        st[_f(C_TARGET, f)] = NO_TARGET
        st[_f(C_CARRY, f)] = NO_TARGET
        st[_f(C_SMOD, f)] = 0
    if st[_p(P_FIELD)] != 0:
        xy = fld[0]
        for f in range(n_fig):
            xy[_x(XY_X, f)] = xy[_x(XY_X0, f)]
            xy[_x(XY_Y, f)] = xy[_x(XY_Y0, f)]
            st[_f(C_FLOOR, f)] = st[_f(C_FLOOR0, f)]
            st[_f(C_ENTER, f)] = 0
            st[_f(C_SHOT_AT, f)] = 0
            if geo.building_at(fld[1], xy[_x(XY_X, f)], xy[_x(XY_Y, f)]) != geo.OUTSIDE:
                st[_f(C_POS, f)] = COVER  # inside a building: in cover (S-01)
    for g in range(2):
        for k in range(ACTIVE, K_SURRENDERED + 1):
            st[_g(g, k)] = 0
        st[_g(g, ACTIVE)] = st[_g(g, K_STOP)] - st[_g(g, K_START)]
    dist = distance0
    order = st[_p(P_ORDER)]
    field = st[_p(P_FIELD)] != 0
    for r in range(1, st[_p(P_MAX_ROUNDS)] + 1):
        g = _first(dice, order, r)
        for _ in range(2):
            if st[_g(g, ACTIVE)] <= st[_g(g, K_WITHDRAW)]:
                return r, g + 1, False, vid
            # A figure with C_FIRED > started has acted in this activation: it fired,
            # or it returned on one die and may not act (S-42).
            started = vid
            vid = _recover(dice, st, fld, g, vid)
            vid = _pick_up(st, g, started, vid)
            if field:
                _start_activation(st, g, dist, started)
                advance = _field_start(st, fld, g, started)
            else:
                advance = _start_activation(st, g, dist, started)
            for phase in range(2):
                if phase == 0:
                    if not advance:
                        if st[_g(g, K_MOVED_ANY)] != 0:
                            for f in range(st[_g(g, K_START)], st[_g(g, K_STOP)]):
                                st[_f(C_MOVED, f)] = 0
                            st[_g(g, K_MOVED_ANY)] = 0
                        continue
                    old = dist
                    if field:
                        _field_move(dice, st, fld, g, started)
                        _field_surrender(st, fld, 1 - g, True)
                    else:
                        dist = _move(dice, st, g, dist, started)
                        _surrender(st, 1 - g, dist, True)
                    shooters = _in_sight(dice, st, fld, buf, 1 - g, old, dist)
                    if shooters == 0:
                        _entered(st, fld, g)
                        continue
                    side = 1 - g
                else:
                    shooters = 0
                    for f in range(st[_g(g, K_START)], st[_g(g, K_STOP)]):
                        # Branch-free: no figure of g has a target marker here.
                        fires = ((st[_f(C_STATUS, f)] == ACTIVE)
                                 & (st[_f(C_FIRED, f)] <= started))
                        st[_f(C_TARGET, f)] = CHOOSE if fires else NO_TARGET
                        st[_f(C_ARMED, shooters)] = f
                        shooters += np.int64(fires)
                    if shooters == 0:
                        break
                    side = g
                vid = _exchange(dice, pol, st, fld, buf, dmg_out, side, shooters, dist, vid)
                if _ended(st):
                    return r, 0, False, vid
                if phase == 0:
                    _entered(st, fld, g)
            if _ended(st):  # only an exchange of fire changes who is in normal condition
                return r, 0, False, vid
            g = 1 - g
    return st[_p(P_MAX_ROUNDS)], 0, True, vid


@jit(inline="always")
def outcome(st, withdrew, capped, res):
    """What one finished fight counts as, written into ``res`` (``RESULT``, int64): the one
    reading of its end.

    Winner: the side still in normal condition when the other has none, or
    the side that stayed when the other withdrew (S-07); -1, a draw, if both are
    gone or the round cap was reached. Per side: figures shot; figures lost: fled
    over the edge or removed (S-08, S-42), still fleeing at the end (S-40), or
    cowering on a losing side (surrender, S-38, per ``end_of_fight.cowering``);
    broken (1): no figure in normal condition at the end and not every figure shot;
    comrades carried off (S-04, S-07: out of the fight, carried by a figure in
    normal condition when its side leaves the table); figures taken prisoner
    during the fight (S-38, S-39). :func:`tally` counts it into an output row,
    :func:`paired_firefight_kernel` into paired metrics.
    """
    for i in range(N_RESULT):
        res[i] = 0
    winner = -1
    if withdrew != 0:
        winner = 2 - withdrew
    elif not capped:
        a0 = st[_g(0, ACTIVE)]
        a1 = st[_g(1, ACTIVE)]
        if a0 > 0 and a1 == 0:
            winner = 0
        elif a1 > 0 and a0 == 0:
            winner = 1
    res[R_WINNER] = winner
    surrender = st[_p(P_COWER_END)] == COWER_END_SURRENDER
    for g in range(2):
        shot = st[_g(g, OUT)]
        lost = st[_g(g, LOST)] + st[_g(g, FLEE)]
        if winner == 1 - g and surrender:
            lost += st[_g(g, COWER)]
        if withdrew == g + 1 and st[_g(g, K_CARRIERS)] != 0:
            carried = 0
            for x in range(st[_g(g, K_START)], st[_g(g, K_STOP)]):
                if st[_f(C_STATUS, x)] == OUT and _carriers(st, g, x) > 0:
                    carried += 1
            res[R_CARRIED + g] = carried
        res[R_SHOT + g] = shot
        res[R_LOST + g] = lost
        n = st[_g(g, K_STOP)] - st[_g(g, K_START)]
        if not capped and withdrew != g + 1 and st[_g(g, ACTIVE)] == 0 and shot < n:
            res[R_BROKEN + g] = 1
        res[R_SURR + g] = st[_g(g, K_SURRENDERED)]


@jit(inline="always")
def tally(st, fld, rounds, withdrew, capped, row, res):
    """Add one finished fight to an output row (layout: :func:`row_layout`); ``res`` is
    scratch for :func:`outcome`.

    The fight's winner or draw, breaks, losses, carried-off comrades and
    surrenders are :func:`outcome`'s; its rounds are counted here. On a
    battlefield, each figure out of the fight adds one to its side's cell where
    it fell, and each figure that fired one to the cell it last fired from
    (:func:`grid_layout`).
    """
    n0 = st[_g(0, K_STOP)] - st[_g(0, K_START)]
    n1 = st[_g(1, K_STOP)] - st[_g(1, K_START)]
    shot0, shot1, lost0, lost1, o_rounds, base = row_layout(n0, n1, st[_p(P_MAX_ROUNDS)])
    outcome(st, withdrew, capped, res)
    winner = res[R_WINNER]
    if winner >= 0:
        row[O_WIN + winner] += 1
    else:
        row[O_DRAW] += 1
    if withdrew != 0:
        row[O_WITHDREW + withdrew - 1] += 1
    if capped:
        row[O_CAPPED] += 1
    row[O_ROUNDS_SUM] += rounds
    row[O_ROUNDS_SQ] += rounds * rounds
    row[o_rounds + rounds] += 1
    for g in range(2):
        carried = res[R_CARRIED + g]
        row[O_CARRIED + g] += carried
        row[O_CARRIED_SQ + g] += carried * carried
        row[(shot0 if g == 0 else shot1) + res[R_SHOT + g]] += 1
        row[(lost0 if g == 0 else lost1) + res[R_LOST + g]] += 1
        row[O_BROKEN + g] += res[R_BROKEN + g]
        surrendered = res[R_SURR + g]
        row[O_SURR + g] += surrendered
        row[O_SURR_SQ + g] += surrendered * surrendered
    if st[_p(P_FIELD)] != 0:
        xy = fld[0]
        nx = st[_p(P_GRID_NX)]
        ny = st[_p(P_GRID_NY)]
        cell = fld[5][FP_CELL]
        fall0, fall1, fire0, fire1, _ = grid_layout(base, nx, ny)
        for f in range(n0 + n1):
            g = 0 if f < n0 else 1
            if st[_f(C_STATUS, f)] == OUT:
                cx = min(max(np.int64(xy[_x(XY_X, f)] / cell), 0), nx - 1)
                cy = min(max(np.int64(xy[_x(XY_Y, f)] / cell), 0), ny - 1)
                row[(fall0 if g == 0 else fall1) + cy * nx + cx] += 1
            if st[_f(C_SHOT_AT, f)] != 0:
                cx = min(max(np.int64(xy[_x(XY_FX, f)] / cell), 0), nx - 1)
                cy = min(max(np.int64(xy[_x(XY_FY, f)] / cell), 0), ny - 1)
                row[(fire0 if g == 0 else fire1) + cy * nx + cx] += 1


@jit
def _static_state(fig, grp, need, params):
    """A fresh ``st`` (int64, ST_SIZE) with the scenario's static figure and group data.

    ``C_SIGHT`` is how far each figure sees the enemy (:func:`sight_inches`) and
    ``C_RANGE`` its weapon's range within that sight: everything that reads a
    range reads this one. ``C_BY_RANGE`` lists each group's figures by
    increasing range (stable); the Received Fire tables are filled for the rule
    options.
    """
    st = np.zeros(ST_SIZE, dtype=np.int64)
    for k in range(N_PARAMS):
        st[_p(k)] = params[k]
    for lvl in range(3):
        st[_p(P_NEED + lvl)] = need[lvl]
    for f in range(fig.shape[0]):
        g = fig[f, F_GROUP]
        sight = sight_inches(params[P_NIGHT], params[P_BAD_WEATHER], grp[g, G_TERRAIN],
                             grp[1 - g, G_TERRAIN], fig[f, F_NIGHT_VISION], grp[1 - g, G_LIT],
                             params[P_NIGHT_INCHES], params[P_REDUCED_DAY],
                             params[P_REDUCED_NIGHT], params[P_EXCUSED_ALL])
        st[_f(C_SKILL, f)] = fig[f, F_SKILL]
        st[_f(C_DICE, f)] = fig[f, F_DICE]
        st[_f(C_SIGHT, f)] = sight
        st[_f(C_SIGHT_LIT, f)] = sight_inches(
            params[P_NIGHT], params[P_BAD_WEATHER], grp[g, G_TERRAIN], grp[1 - g, G_TERRAIN],
            fig[f, F_NIGHT_VISION], 1, params[P_NIGHT_INCHES], params[P_REDUCED_DAY],
            params[P_REDUCED_NIGHT], params[P_EXCUSED_ALL])
        st[_f(C_RANGE, f)] = min(fig[f, F_RANGE], sight)  # a target must be seen (S-19)
        st[_f(C_WRANGE, f)] = fig[f, F_RANGE]
        st[_f(C_SPREAD, f)] = fig[f, F_SPREAD]
        st[_f(C_FLOOR0, f)] = fig[f, F_FLOOR]
        st[_f(C_SUPP, f)] = fig[f, F_SUPP]
        st[_f(C_TWO, f)] = fig[f, F_TWO]
        st[_f(C_SPEED, f)] = fig[f, F_SPEED]
        st[_f(C_POS0, f)] = fig[f, F_POS]
        st[_f(C_PRONE0, f)] = fig[f, F_PRONE]
        st[_f(C_HIDDEN0, f)] = fig[f, F_HIDDEN]
    for g in range(2):
        g0 = grp[g, G_START]
        st[_g(g, K_START)] = g0
        st[_g(g, K_STOP)] = grp[g, G_STOP]
        st[_g(g, K_LEADER)] = grp[g, G_LEADER]
        st[_g(g, K_FLANKED)] = grp[g, G_FLANKED]
        st[_g(g, K_WITHDRAW)] = grp[g, G_WITHDRAW]
        st[_g(g, K_CARRIERS)] = grp[g, G_CARRIERS]
        st[_g(g, K_MOVEMENT)] = grp[g, G_MOVEMENT]
        for i in range(g0, grp[g, G_STOP]):
            j = i
            while j > g0 and st[_f(C_RANGE, st[_f(C_BY_RANGE, j - 1)])] > st[_f(C_RANGE, i)]:
                st[_f(C_BY_RANGE, j)] = st[_f(C_BY_RANGE, j - 1)]
                j -= 1
            st[_f(C_BY_RANGE, j)] = i
        for k in range(3):
            for pos in range(3):
                for suppressed in range(2):
                    for fast in range(2):
                        st[_rf_index(g, k, pos, suppressed, fast)] = received_fire_result(
                            k, _in_cover(pos, params[P_PARTIAL_IS_COVER]), suppressed != 0,
                            fast != 0, grp[g, G_FLANKED] != 0, params[P_PRECEDENCE])
    return st


@jit(_nrt=False)  # allocates nothing (_chunk_scratch): no reference counts in the fight
def play_chunk(seed, n_trials, chunk_size, c, fig, grp, distance0, need, damage, params, xy0,
               bld, opn, cov, lit, fp, cuts, row, sums, sts, xys, dice, pol, buf, outs, vids,
               res, ex, ey, x):
    """Play chunk ``c`` of ``n_trials`` firefights of V variants on common random numbers.

    The one compiled body of both firefight kernels (:func:`firefight_kernel`, V = 1, and
    :func:`paired_firefight_kernel`), so that the fight, inlined here once, is compiled once
    for both, in a serial function: a ``prange`` kernel around it had numba's parallel
    passes walk the whole inlined fight and compile it a second time as the loop body
    (issue 45: 173 CPU seconds of cold compile, 120 of them in the parallel passes).

    Variant ``v`` is :func:`firefight_kernel`'s arguments at ``[v]`` (``fig``, ``grp``,
    ``need``, ``damage``, ``params``, ``xy0``, ``fp``; ``distance0[v]``) with its
    battlefield rows ``bld[cuts[v, 0]:cuts[v + 1, 0]]`` (``opn``, ``cov``, ``lit`` in
    columns 1..3 of ``cuts``); every variant has the same figures. For each trial index
    every variant plays its fight on the same (seed, trial) DICE and POLICY streams, so a
    variant plays the very fight of the baseline (variant 0) until its change first acts.
    With ``sums`` of length 0 each fight is counted into ``row`` (:func:`tally`, layout
    :func:`row_layout`); otherwise each fight's ``PAIRED`` metrics (from :func:`outcome`)
    go to :func:`sim.kernels.paired.accumulate` into ``sums`` (V, N_SUMS, N_PAIRED). The
    arrays after ``sums`` are the chunk's state and scratch (:func:`_chunk_scratch`).
    """
    n_var = fig.shape[0]
    n_fig = fig.shape[1]
    paired = sums.shape[0] > 0
    for v in range(n_var):
        for f in range(n_fig):
            xys[v, _x(XY_X0, f)] = xy0[v, f, 0]
            xys[v, _x(XY_Y0, f)] = xy0[v, f, 1]
        for face in range(1, 7):
            if damage[v, face] == DMG_OUT:
                outs[v] |= 1 << face
    stop = min((c + 1) * chunk_size, n_trials)
    for t0 in range(c * chunk_size, stop, BLOCK):
        t1 = min(t0 + BLOCK, stop)
        for v in range(n_var):
            # The views of a variant once per block: a short fight costs little more.
            st = sts[v]
            fld = (xys[v], bld[cuts[v, 0]:cuts[v + 1, 0]], opn[cuts[v, 1]:cuts[v + 1, 1]],
                   cov[cuts[v, 2]:cuts[v + 1, 2]], lit[cuts[v, 3]:cuts[v + 1, 3]], fp[v],
                   ex, ey)
            for t in range(t0, t1):
                rng.seed_stream(dice, seed, t, rng.DICE)
                rng.seed_stream(pol, seed, t, rng.POLICY)
                rounds, withdrew, capped, vids[v] = fight(dice, pol, st, fld, n_fig,
                                                          distance0[v], outs[v], buf, vids[v])
                if not paired:
                    tally(st, fld, rounds, withdrew, capped, row, res)
                    continue
                outcome(st, withdrew, capped, res)
                m = x[t - t0, v]
                m[M_DRAW] = res[R_WINNER] < 0
                m[M_ROUNDS] = rounds
                for g in range(2):
                    m[M_WIN + g] = res[R_WINNER] == g
                    m[M_BROKEN + g] = res[R_BROKEN + g]
                    m[M_WITHDREW + g] = withdrew == g + 1
                    m[M_SHOT + g] = res[R_SHOT + g]
                    m[M_LOST + g] = res[R_LOST + g]
                    m[M_SURR + g] = res[R_SURR + g]
        if paired:
            for t in range(t0, t1):  # in trial order: the same float sums
                accumulate(sums, x[t - t0])


BLOCK = 1024
"""Trials :func:`play_chunk` plays per variant before the next variant's."""


def _own_lines(shape, dtype=np.float64):
    """Zeros of ``shape`` with a cache line of their own on each side.

    Two threads' small scratch arrays (the streams are 32 bytes) could otherwise share a
    cache line, and every die one thread rolls would then stall the other (false sharing).
    """
    n = int(np.prod(shape))
    return np.zeros(n + 16, dtype=dtype)[8:8 + n].reshape(shape)


def _chunk_scratch(fig, grp, need, params):
    """The state and scratch of one :func:`play_chunk` call, fresh (so that a chunk's
    fights never depend on another's), each array on cache lines of its own
    (:func:`_own_lines`): ``sts`` (each variant's :func:`_static_state`), ``xys``, the
    DICE and POLICY streams, the dice, each variant's damage bits and last volley stamp,
    :func:`outcome`'s result, two position lists and the paired metrics.

    Raises
    ------
    ValueError
        More figures than ``MAXF``.
    """
    n_var, n_fig = fig.shape[:2]
    if n_fig > MAXF:
        raise ValueError("too many figures for the firefight kernel (MAXF)")
    sts = _own_lines((n_var, ST_SIZE), np.int64)
    for v in range(n_var):
        sts[v] = _static_state(fig[v], grp[v], need[v], params[v])
    return (sts, _own_lines((n_var, N_XY * MAXF)), _own_lines(rng.STATE_SIZE, np.uint64),
            _own_lines(rng.STATE_SIZE, np.uint64), _own_lines(8, np.int64),
            _own_lines(n_var, np.int64), _own_lines(n_var, np.int64),
            _own_lines(N_RESULT, np.int64), _own_lines(MAXF), _own_lines(MAXF),
            _own_lines((BLOCK, n_var, N_PAIRED)))


def firefight_kernel(seed, n_trials, chunk_size, first_chunk, fig, grp, distance0, need, damage,
                     params, xy0, bld, opn, cov, lit, fp, out):
    """Play ``n_trials`` firefights; ``out`` (n_chunks, width) of :func:`row_layout` counts.

    Per chunk only one row of counts is kept, so memory does not grow with the
    number of trials. ``xy0`` (n_figures, 2) are the start positions and
    ``bld, opn, cov, lit, fp`` the battlefield
    (:mod:`sim.kernels.skirmish_geometry`, ``skirmish_layout.FPARAMS``), read
    only where ``params[P_FIELD]`` is set (then the row ends with
    :func:`grid_layout`'s grids). A plain-Python driver of :func:`play_chunk` (one
    variant), whose chunks :func:`sim.runner.run_counts` runs on a pool of threads
    (``pool_kernel``).
    """
    cuts = np.array([[0, 0, 0, 0], [len(bld), len(opn), len(cov), len(lit)]], dtype=np.int64)
    one = (fig[None], grp[None], np.array([distance0], dtype=np.int64), need[None],
           damage[None], params[None], xy0[None], bld, opn, cov, lit, fp[None], cuts)
    no_sums = np.zeros((0, N_SUMS, N_PAIRED))
    for r in range(out.shape[0]):
        play_chunk(seed, n_trials, chunk_size, first_chunk + r, *one, out[r], no_sums,
                   *_chunk_scratch(fig[None], grp[None], need[None], params[None]))


pool_kernel(firefight_kernel, play_chunk, _static_state)


def paired_firefight_kernel(seed, n_trials, chunk_size, first_chunk, fig, grp, distance0, need,
                            damage, params, xy0, bld, opn, cov, lit, fp, cuts, out):
    """Play V variants of one fight on common random numbers; paired sums of their metrics.

    The arguments are :func:`play_chunk`'s, ``out`` (n_chunks, V, N_SUMS, N_PAIRED):
    a plain-Python driver of it, whose chunks :func:`sim.runner.run_counts` runs on a
    pool of threads (``pool_kernel``); a variant whose change never acts changes no
    fight.
    """
    no_row = np.zeros(0, dtype=np.int64)
    for r in range(out.shape[0]):
        play_chunk(seed, n_trials, chunk_size, first_chunk + r, fig, grp, distance0, need,
                   damage, params, xy0, bld, opn, cov, lit, fp, cuts, no_row, out[r],
                   *_chunk_scratch(fig, grp, need, params))


pool_kernel(paired_firefight_kernel, play_chunk, _static_state)
