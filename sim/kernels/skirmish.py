"""Skirmish kernels (seed 003): volleys, group reaction tests and whole firefights.

Everything here works on plain integer arrays compiled by
:mod:`sim.skirmish.compile`; every rule choice the seed leaves open arrives in
the ``params`` vector (indices ``P_*`` below), never as a constant in the code.
The plain-Python twin, draw for draw, is :mod:`sim.skirmish.reference`; exact
twins are in :mod:`sim.exact.skirmish`.

Array layouts
-------------
fig : int64 (n_figures, N_FIG)
    Static figure data, columns ``F_*``; figures of group 0 come first.
grp : int64 (2, N_GRP)
    Static group data, columns ``G_*``.
fs : int64 (n_figures, N_FS)
    Dynamic figure state of the current trial, columns ``S_*``.
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

from sim.kernels import rng
from sim.kernels._jit import jit, pjit

# Figure status (S-38..S-42; OUT is "out of the fight" from damage, LOST is
# "lost in the Zone": fled over the table edge or removed from play).
ACTIVE, COWER, FLEE, OUT, LOST = 0, 1, 2, 3, 4
# Position (S-01, S-31).
OPEN, PARTIAL, COVER = 0, 1, 2
# Damage outcomes (S-33).
DMG_NONE, DMG_OUT = 0, 1
# Target markers in S_TARGET.
NO_TARGET, CHOOSE = -1, -2

F_GROUP, F_SKILL, F_DICE, F_RANGE, F_SUPP, F_TWO, F_SPEED, F_POS, F_HIDDEN, F_PRONE = range(10)
N_FIG = 10
G_START, G_STOP, G_LEADER, G_FLANKED, G_WITHDRAW = range(5)
N_GRP = 5
(S_STATUS, S_POS, S_PRONE, S_FAST, S_HIDDEN, S_MOVED, S_FIRED, S_TARGET, S_SMOD, S_UPON,
 S_HITS, S_SUPP, S_ATTACKER, S_TEST, S_NDECL) = range(15)
N_FS = 15
MAX_TARGETS = 6

(P_ORDER, P_MAX_ROUNDS, P_MAX_CHAIN, P_TRIGGER, P_PRECEDENCE, P_PARTIAL_IS_COVER,
 P_COVER_WHEN, P_COVER_EXTRA, P_CAP, P_FAST_ATTEMPT, P_FAST_INCHES, P_OPEN_ONE,
 P_LEADER_CHOICE, P_SUPP_CMP, P_TARGETS, P_RECOVER_ATTEMPT, P_RECOVER_SKILL,
 P_COWER_END) = range(18)
N_PARAMS = 18

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

# Reaction results (S-15, S-36).
R_NONE, R_FIRE, R_FIRE_M1, R_PRONE, R_COVER_PRONE, R_HIDE, R_FLEE, R_COWER, R_REVEAL = range(9)

# Output row: fixed counters, then histograms (see :func:`row_layout`).
O_WIN, O_DRAW, O_BROKEN, O_WITHDREW, O_CAPPED, O_ROUNDS_SUM, O_ROUNDS_SQ = 0, 2, 3, 5, 7, 8, 9
O_HIST = 10


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
def volley_kernel(seed, n_trials, chunk_size, skill, alloc, levels, need, out):
    """Joint histogram of hits per target of one volley; ``out`` (n_chunks, prod(alloc + 1)).

    The bin of hits ``(h_0, ..., h_{m-1})`` is the mixed-radix number with
    digit ``h_j`` of base ``alloc[j] + 1``, first target most significant.
    """
    n_dice = 0
    for j in range(alloc.shape[0]):
        n_dice += alloc[j]
    for c in prange(out.shape[0]):
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        buf = np.zeros(max(n_dice, 1), dtype=np.int64)
        hits = np.zeros(alloc.shape[0], dtype=np.int64)
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            rng.seed_stream(state, seed, t, rng.DICE)
            volley_hits(state, buf, n_dice, skill, alloc, levels, need, hits)
            b = 0
            for j in range(alloc.shape[0]):
                b = b * (alloc[j] + 1) + hits[j]
            out[c, b] += 1


@pjit
def group_reaction_kernel(seed, n_trials, chunk_size, skills, covering, extra, cap, out):
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
    for c in prange(out.shape[0]):
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        buf = np.zeros(n, dtype=np.int64)
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            rng.seed_stream(state, seed, t, rng.DICE)
            roll(state, n, buf)
            b = 0
            for i in range(skills.shape[0]):
                b = b * (cap + 1) + passes(buf, n if covering[i] != 0 else 2, skills[i], cap)
            out[c, b] += 1


# --- firefight --------------------------------------------------------------------------

@jit
def _count(fs, grp, g, status):
    n = 0
    for f in range(grp[g, G_START], grp[g, G_STOP]):
        if fs[f, S_STATUS] == status:
            n += 1
    return n


@jit
def _ended(fs, grp):
    """A side with no figure in normal condition can no longer fire (S-18)."""
    return _count(fs, grp, 0, ACTIVE) == 0 or _count(fs, grp, 1, ACTIVE) == 0


@jit
def _in_cover(pos, params):
    """'In cover' for the reaction tables; partial cover per ``reaction.partial_cover_is``."""
    return pos == COVER or (pos == PARTIAL and params[P_PARTIAL_IS_COVER] != 0)


@jit
def _targetable(fs, f):
    """Visible and still on the field: in normal condition or cowering (S-16, S-38)."""
    s = fs[f, S_STATUS]
    return (s == ACTIVE or s == COWER) and fs[f, S_HIDDEN] == 0


@jit
def _declare(pol, fig, fs, grp, params, decl, cand, s, enemy):
    """Name the targets of shooter ``s`` into ``decl[s]`` (S-25, S-28, S-35); return how many.

    A fixed target (return fire at the figure that fired, S-35) is kept if it
    can still be shot; otherwise up to ``shooting.targets_per_shooter``
    distinct targets are drawn uniformly from the visible enemies (POLICY stream).
    """
    t = fs[s, S_TARGET]
    if t >= 0:
        if _targetable(fs, t):
            decl[s, 0] = t
            return 1
        return 0
    n = 0
    for e in range(grp[enemy, G_START], grp[enemy, G_STOP]):
        if _targetable(fs, e):
            cand[n] = e
            n += 1
    m = min(params[P_TARGETS], n, fig[s, F_DICE])
    for j in range(m):
        # A draw only when there is a choice: a sole candidate takes no random number.
        k = j + rng.below(pol, n - j) if n - j > 1 else j
        tmp = cand[j]
        cand[j] = cand[k]
        cand[k] = tmp
        decl[s, j] = cand[j]
    return m


@jit
def _volley(dice, pol, fig, fs, grp, dist, need, damage, params, decl, cand, buf, side):
    """Group ``side`` fires at once (S-28..S-34, S-38); return the number of Received Fire testers.

    Every shooter with a target marker names its targets before any die is
    rolled (S-28); hits on a figure already out are wasted. A hit rolls on
    the damage table at once. Afterwards a cowering figure fired upon flees
    (S-38) and a figure in normal condition that meets the trigger
    (``received_fire.trigger``) is marked to test (S-34, S-43).
    """
    enemy = 1 - side
    for f in range(fig.shape[0]):
        fs[f, S_UPON] = 0
        fs[f, S_HITS] = 0
        fs[f, S_SUPP] = 0
        fs[f, S_TEST] = 0
    for s in range(grp[side, G_START], grp[side, G_STOP]):
        fs[s, S_NDECL] = 0
        if fs[s, S_TARGET] != NO_TARGET and fs[s, S_STATUS] == ACTIVE and dist <= fig[s, F_RANGE]:
            fs[s, S_NDECL] = _declare(pol, fig, fs, grp, params, decl, cand, s, enemy)
        fs[s, S_TARGET] = NO_TARGET
    for s in range(grp[side, G_START], grp[side, G_STOP]):
        m = fs[s, S_NDECL]
        if m == 0:
            fs[s, S_SMOD] = 0
            continue
        fs[s, S_HIDDEN] = 0
        fs[s, S_FIRED] = 1
        n = fig[s, F_DICE]
        roll_sorted(dice, n, buf)
        skill = fig[s, F_SKILL] + fs[s, S_SMOD]
        fs[s, S_SMOD] = 0
        s_lvl = shooter_level(fs[s, S_FAST], fig[s, F_TWO])
        i = 0
        for j in range(m):
            t = decl[s, j]
            lvl = die_level(target_level(fs[t, S_POS], fs[t, S_PRONE], fs[t, S_FAST]), s_lvl, j)
            fs[t, S_UPON] = 1
            fs[t, S_ATTACKER] = s
            if suppresses(fig[s, F_SUPP], fig[t, F_SUPP], params[P_SUPP_CMP]):
                fs[t, S_SUPP] = 1
            for _ in range(allocate(n, m, j)):
                if buf[i] + skill >= need[lvl]:
                    fs[t, S_HITS] += 1
                    if fs[t, S_STATUS] != OUT and damage[rng.d6(dice)] == DMG_OUT:
                        fs[t, S_STATUS] = OUT
                i += 1
    testers = 0
    for t in range(grp[enemy, G_START], grp[enemy, G_STOP]):
        if fs[t, S_UPON] == 0:
            continue
        if fs[t, S_STATUS] == COWER:
            fs[t, S_STATUS] = FLEE
        elif fs[t, S_STATUS] == ACTIVE and (params[P_TRIGGER] == TRIGGER_NO_DAMAGE
                                            or fs[t, S_HITS] == 0):
            fs[t, S_TEST] = 1
            testers += 1
    return testers


@jit
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


@jit
def _apply(fs, f, result):
    """Carry out a reaction result that is not fire (S-15, S-36, S-38, S-39)."""
    if result == R_PRONE:
        fs[f, S_PRONE] = 1
    elif result == R_COVER_PRONE or result == R_HIDE:
        fs[f, S_POS] = COVER
        fs[f, S_PRONE] = 1 if result == R_COVER_PRONE else fs[f, S_PRONE]
    elif result == R_FLEE:
        fs[f, S_STATUS] = FLEE
    elif result == R_COWER:
        fs[f, S_STATUS] = COWER
    elif result == R_REVEAL:
        fs[f, S_HIDDEN] = 0


@jit
def _received_fire(dice, fig, fs, grp, params, buf, g, allow_fire):
    """Group ``g`` takes one Received Fire test on shared 2d6 (S-10..S-12, S-34..S-37).

    Returns how many figures fire back; each one targets the figure that fired
    at it (S-35), with -1 Skill on a one-die pass.
    """
    testers = 0
    for f in range(grp[g, G_START], grp[g, G_STOP]):
        testers += fs[f, S_TEST]
    if testers == 0:
        return 0
    roll(dice, 2, buf)
    back = 0
    for f in range(grp[g, G_START], grp[g, G_STOP]):
        if fs[f, S_TEST] == 0:
            continue
        fs[f, S_TEST] = 0
        k = passes(buf, 2, fig[f, F_SKILL], 2)
        r = received_fire_result(k, _in_cover(fs[f, S_POS], params), fs[f, S_SUPP] != 0,
                                 fs[f, S_FAST] != 0, grp[g, G_FLANKED] != 0,
                                 params[P_PRECEDENCE])
        if r == R_FIRE or r == R_FIRE_M1:
            if allow_fire:
                fs[f, S_TARGET] = fs[f, S_ATTACKER]
                fs[f, S_SMOD] = -1 if r == R_FIRE_M1 else 0
                back += 1
        else:
            _apply(fs, f, r)
    return back


@jit
def _exchange(dice, pol, fig, fs, grp, dist, need, damage, params, decl, cand, buf, side):
    """A volley and the return fire it provokes, up to ``received_fire.max_chain`` volleys."""
    depth = 1
    while True:
        _volley(dice, pol, fig, fs, grp, dist, need, damage, params, decl, cand, buf, side)
        if _ended(fs, grp):
            return
        back = _received_fire(dice, fig, fs, grp, params, buf, 1 - side,
                              depth < params[P_MAX_CHAIN])
        if back == 0 or _ended(fs, grp):
            return
        side = 1 - side
        depth += 1


@jit
def _covering(fs, f, params):
    """Whether figure ``f`` counts as Covering for the In Sight test (S-15, ``covering.when``)."""
    when = params[P_COVER_WHEN]
    return when == COVER_ALWAYS or (when == COVER_STATIONARY and fs[f, S_MOVED] == 0)


@jit
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


@jit
def _in_sight(dice, fig, fs, grp, params, buf, g, old_dist, dist):
    """Group ``g`` tests In Sight for figures the enemy moved into range of (S-14, S-15).

    Returns how many figures fire (their targets are chosen among the movers).
    """
    n_test = 0
    n_dice = 2
    for f in range(grp[g, G_START], grp[g, G_STOP]):
        r = fig[f, F_RANGE]
        if fs[f, S_STATUS] == ACTIVE and old_dist > r >= dist:
            fs[f, S_TEST] = 1
            n_test += 1
            if _covering(fs, f, params):
                n_dice = 2 + params[P_COVER_EXTRA]
    if n_test == 0:
        return 0
    roll(dice, n_dice, buf)
    shooters = 0
    for f in range(grp[g, G_START], grp[g, G_STOP]):
        if fs[f, S_TEST] == 0:
            continue
        fs[f, S_TEST] = 0
        k = passes(buf, n_dice if _covering(fs, f, params) else 2, fig[f, F_SKILL],
                   params[P_CAP])
        r = in_sight_result(k, fs[f, S_HIDDEN] != 0, grp[g, G_LEADER] != 0,
                            _in_cover(fs[f, S_POS], params), params[P_OPEN_ONE],
                            params[P_LEADER_CHOICE])
        if r == R_FIRE or r == R_FIRE_M1:
            fs[f, S_TARGET] = CHOOSE
            fs[f, S_SMOD] = -1 if r == R_FIRE_M1 else 0
            shooters += 1
        else:
            _apply(fs, f, r)
    return shooters


@jit
def _recover(dice, fig, fs, grp, params, buf, g):
    """Cowering and fleeing figures of ``g`` try to return (S-41, S-42) on shared 2d6.

    Only when a friend is in normal condition (the abstract battlefield keeps a
    group together, so "within 2 inches" always holds).
    """
    best = -1
    waiting = 0
    for f in range(grp[g, G_START], grp[g, G_STOP]):
        st = fs[f, S_STATUS]
        if st == ACTIVE:
            best = max(best, fig[f, F_SKILL])
        elif st == COWER or st == FLEE:
            waiting += 1
    if waiting == 0 or best < 0 or params[P_RECOVER_ATTEMPT] == 0:
        return
    roll(dice, 2, buf)
    for f in range(grp[g, G_START], grp[g, G_STOP]):
        st = fs[f, S_STATUS]
        if st != COWER and st != FLEE:
            continue
        skill = best if params[P_RECOVER_SKILL] == RECOVER_BEST else fig[f, F_SKILL]
        k = passes(buf, 2, skill, 2)
        sitting = st == COWER and _in_cover(fs[f, S_POS], params)
        if k == 2 or (k == 1 and sitting):
            fs[f, S_STATUS] = ACTIVE
            if st == FLEE:
                fs[f, S_POS] = OPEN
                fs[f, S_PRONE] = 0
        else:
            fs[f, S_STATUS] = LOST


@jit
def _move(dice, fig, fs, grp, params, buf, g, dist):
    """Group ``g`` advances (S-09) and may try to move fast; return the new distance.

    Each figure in normal condition moves its S-09 allowance plus
    ``fast_move.inches_per_pass`` per die passed on a shared 2d6 fast-move
    test; the group keeps together at the pace of its slowest member. Moving
    figures leave cover, stand up and are seen.
    """
    if params[P_FAST_ATTEMPT] != 0:
        roll(dice, 2, buf)
    step = -1
    for f in range(grp[g, G_START], grp[g, G_STOP]):
        if fs[f, S_STATUS] != ACTIVE:
            continue
        k = passes(buf, 2, fig[f, F_SKILL], 2) if params[P_FAST_ATTEMPT] != 0 else 0
        inches = fig[f, F_SPEED] + k * params[P_FAST_INCHES]
        if step < 0 or inches < step:
            step = inches
        fs[f, S_FAST] = 1 if k >= 1 else 0
        fs[f, S_POS] = OPEN
        fs[f, S_PRONE] = 0
        fs[f, S_HIDDEN] = 0
        fs[f, S_MOVED] = 1
    return max(dist - step, 0)


@jit
def _activate(dice, pol, fig, fs, grp, world, need, damage, params, decl, cand, buf, g):
    """One activation of group ``g`` (Gap: turn structure); return True if the fight ended.

    Order: voluntary exit (S-07), Recover (S-41, S-42), fleeing figures leave
    the table (S-40, S-08), advance into range (S-09) with the enemy's In
    Sight test and fire (S-14, S-15), then every figure in normal condition
    that has not fired yet shoots (S-29).
    """
    if _count(fs, grp, g, ACTIVE) <= grp[g, G_WITHDRAW]:
        world[1] = g + 1
        return True
    _recover(dice, fig, fs, grp, params, buf, g)
    for f in range(grp[g, G_START], grp[g, G_STOP]):
        if fs[f, S_STATUS] == FLEE:
            fs[f, S_STATUS] = LOST
        fs[f, S_FAST] = 0
        fs[f, S_FIRED] = 0
    dist = world[0]
    advance = False
    for f in range(grp[g, G_START], grp[g, G_STOP]):
        if fs[f, S_STATUS] == ACTIVE and fig[f, F_RANGE] < dist:
            advance = True
    if advance:
        world[0] = _move(dice, fig, fs, grp, params, buf, g, dist)
        if _in_sight(dice, fig, fs, grp, params, buf, 1 - g, dist, world[0]) > 0:
            _exchange(dice, pol, fig, fs, grp, world[0], need, damage, params, decl, cand, buf,
                      1 - g)
            if _ended(fs, grp):
                return True
    else:
        for f in range(grp[g, G_START], grp[g, G_STOP]):
            fs[f, S_MOVED] = 0
    shooters = 0
    for f in range(grp[g, G_START], grp[g, G_STOP]):
        if fs[f, S_STATUS] == ACTIVE and fs[f, S_FIRED] == 0:
            fs[f, S_TARGET] = CHOOSE
            shooters += 1
    if shooters > 0:
        _exchange(dice, pol, fig, fs, grp, world[0], need, damage, params, decl, cand, buf, g)
    return _ended(fs, grp)


@jit
def _first(dice, params, r):
    """Group activating first in round ``r`` (``activation.order``)."""
    if params[P_ORDER] == ORDER_FIXED:
        return 0
    if params[P_ORDER] == ORDER_ALTERNATE:
        return (r - 1) % 2
    while True:
        a = rng.d6(dice)
        b = rng.d6(dice)
        if a != b:
            return 0 if a > b else 1


@jit
def fight(dice, pol, fig, fs, grp, world, distance0, need, damage, params, decl, cand, buf):
    """Play one firefight from the scenario's start; return the round it ended in.

    ``world`` (int64, 3) receives the distance, the withdrawn group + 1 (0 if
    none) and 1 if the fight ran to ``activation.max_rounds`` without ending.
    """
    for f in range(fig.shape[0]):
        for k in range(N_FS):
            fs[f, k] = 0
        fs[f, S_POS] = fig[f, F_POS]
        fs[f, S_PRONE] = fig[f, F_PRONE]
        fs[f, S_HIDDEN] = fig[f, F_HIDDEN]
        fs[f, S_TARGET] = NO_TARGET
        fs[f, S_ATTACKER] = -1
    world[0] = distance0
    world[1] = 0
    world[2] = 0
    for r in range(1, params[P_MAX_ROUNDS] + 1):
        g = _first(dice, params, r)
        if _activate(dice, pol, fig, fs, grp, world, need, damage, params, decl, cand, buf, g):
            return r
        if _activate(dice, pol, fig, fs, grp, world, need, damage, params, decl, cand, buf,
                     1 - g):
            return r
    world[2] = 1
    return params[P_MAX_ROUNDS]


@jit
def tally(fs, grp, world, params, rounds, row):
    """Add one finished fight to an output row (layout: :func:`row_layout`).

    Winner: the side still in normal condition when the other has none, or
    the side that stayed when the other withdrew (S-07); a draw if both are
    gone or the round cap was reached. Lost figures: fled over the edge or
    removed (S-08, S-42), still fleeing at the end (S-40), or cowering on a
    losing side (surrender, S-38, per ``end_of_fight.cowering``). Broken: no
    figure in normal condition at the end and not every figure shot.
    """
    n0 = grp[0, G_STOP] - grp[0, G_START]
    n1 = grp[1, G_STOP] - grp[1, G_START]
    shot0, shot1, lost0, lost1, o_rounds, _ = row_layout(n0, n1, params[P_MAX_ROUNDS])
    capped = world[2] != 0
    winner = -1
    if world[1] != 0:
        winner = 2 - world[1]
    elif not capped:
        a0 = _count(fs, grp, 0, ACTIVE)
        a1 = _count(fs, grp, 1, ACTIVE)
        if a0 > 0 and a1 == 0:
            winner = 0
        elif a1 > 0 and a0 == 0:
            winner = 1
    if winner >= 0:
        row[O_WIN + winner] += 1
    else:
        row[O_DRAW] += 1
    if world[1] != 0:
        row[O_WITHDREW + world[1] - 1] += 1
    if capped:
        row[O_CAPPED] += 1
    row[O_ROUNDS_SUM] += rounds
    row[O_ROUNDS_SQ] += rounds * rounds
    row[o_rounds + rounds] += 1
    for g in range(2):
        shot = _count(fs, grp, g, OUT)
        lost = _count(fs, grp, g, LOST) + _count(fs, grp, g, FLEE)
        if winner == 1 - g and params[P_COWER_END] == COWER_END_SURRENDER:
            lost += _count(fs, grp, g, COWER)
        row[(shot0 if g == 0 else shot1) + shot] += 1
        row[(lost0 if g == 0 else lost1) + lost] += 1
        n = grp[g, G_STOP] - grp[g, G_START]
        if (not capped and world[1] != g + 1 and _count(fs, grp, g, ACTIVE) == 0
                and shot < n):
            row[O_BROKEN + g] += 1


@pjit
def firefight_kernel(seed, n_trials, chunk_size, fig, grp, distance0, need, damage, params,
                     out):
    """Play ``n_trials`` firefights; ``out`` (n_chunks, width) of :func:`row_layout` counts.

    Per chunk only one row of counts is kept, so memory does not grow with the
    number of trials.
    """
    n_fig = fig.shape[0]
    for c in prange(out.shape[0]):
        dice = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        pol = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        fs = np.zeros((n_fig, N_FS), dtype=np.int64)
        decl = np.zeros((n_fig, MAX_TARGETS), dtype=np.int64)
        cand = np.zeros(n_fig, dtype=np.int64)
        buf = np.zeros(8, dtype=np.int64)
        world = np.zeros(3, dtype=np.int64)
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            rng.seed_stream(dice, seed, t, rng.DICE)
            rng.seed_stream(pol, seed, t, rng.POLICY)
            rounds = fight(dice, pol, fig, fs, grp, world, distance0, need, damage, params,
                           decl, cand, buf)
            tally(fs, grp, world, params, rounds, out[c])
