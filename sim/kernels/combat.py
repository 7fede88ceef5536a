"""Combat kernel (P-14..P-29, Z-12..Z-17): many independent fights, counts per chunk.

One trial is one fight of the stalker against one enemy card, resolved as in
:mod:`sim.exact.combat` (its exact twin) and :mod:`sim.reference.combat` (the
readable executable spec). All dice of a fight come from the trial's DICE
stream, so the same seed gives the same fights for every variant that rolls
the same dice (common random numbers).

Per-chunk aggregates (columns of ``out``) are integer counts and sums, so the
result does not depend on chunking or threads.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from sim.jitting.options import jit, pjit
from sim.kernels import layout as S
from sim.kernels import rng
from sim.kernels.artifact import absorb, restore, test_bonus, usable
from sim.kernels.dice import armor_absorb, d6_at_least, destroyed, pool_test
from sim.kernels.records import Record
from sim.kernels.tracks import exhausted

# How a fight ends: each outcome is at once the code fight() writes in R_OUTCOME and the
# column of ``out`` that counts it (``row[outcome] += 1``), so code and column are one
# declaration.
OUTCOME = Record("fight outcomes", "N_OUTCOMES", (
    "AVOIDED",      # the Stealth test or the Reputation roll avoided the fight (P-16, Z-15..Z-17)
    "KILLED",       # the Combat test reached the enemy's Endurance (P-19)
    "FLED",         # he fled (P-21), or the enemy did (trait flees=N, P-22)
    "KNOCKED_OUT",  # Health or Willpower at 0 (P-37, P-40)
    "CAPPED",       # undecided after combat.max_rounds rounds
))
globals().update(OUTCOME.constants)  # AVOIDED .. CAPPED, N_OUTCOMES, as other kernels read them

# Columns of ``out`` after the outcome counts: sums per chunk, then the token histogram.
SUMS = Record("fight count columns after the outcomes", "TOKENS", (
    "SUM_WOUNDS",
    "SUM_WOUNDS_SQ",
    "SUM_ROUNDS",
    "SUM_ROUNDS_SQ",
    "DESTROYED",           # fights that destroyed the armour (P-05)
    "SUM_STIMULANTS",
    "SUM_SPENT",           # limited-use weapon uses spent
    "SUM_ART_USES",        # artefact uses (P-08..P-10)
    "SUM_SIDE_EFFECTS",    # side effects suffered (P-09, P-10)
    "SUM_SIDE_RADIATION",  # radiation doses from side effects (a deformation does not end a fight)
), start=OUTCOME.N_OUTCOMES)
# TOKENS, where the sums end: the histogram of tokens at the end, columns TOKENS .. TOKENS +
# durability (width())
globals().update(SUMS.constants)

# Fields of fight()'s ``result`` buffer; fight() writes those from R_OTHER on only when
# the fight has artefacts (params[P_N_ART] > 0).
RESULT = Record("fight results", "RESULT_SIZE", (
    "R_OUTCOME",        # AVOIDED .. CAPPED
    "R_WOUNDS",         # wounds taken through the armour
    "R_ROUNDS",         # rounds fought
    "R_TOKENS",         # armour tokens at the end
    "R_STIMULANTS",     # doses taken
    "R_SPENT",          # limited-use weapon uses spent
    "R_HEALTH",         # the fight's track at the end
    "R_OTHER",          # the other of Health and Willpower at the end
    "R_RADIATION",      # radiation doses from side effects
    "R_ART_USES",       # artefact uses (P-08..P-10)
    "R_SIDE_EFFECTS",   # side effects suffered (P-09)
))
globals().update(RESULT.constants)  # R_OUTCOME .. RESULT_SIZE, as other kernels read them


NO_PLAN = np.zeros(1, dtype=np.int64)
"""The plan argument of a fight that follows its thresholds (``params[P_PLAN] == 0``)."""

GAIN_BITS = 8
"""In a played entry (:func:`played_entries`), the low bits are the Health the doses restore,
the next ``GAIN_BITS`` bits (up to ``PLAN_ACTION_SHIFT``) the number of doses."""

GAIN_MASK = (1 << GAIN_BITS) - 1


def width(durability: int) -> int:
    """Number of aggregate columns for an armour of ``durability``."""
    return SUMS.TOKENS + max(durability, 0) + 1


@jit(inline="always")
def _side(params, health, h, r, w, uses, suffered, result):
    """Apply artefact side effects (P-09) to the fight's tracks; returns the fight track."""
    if params[S.P_TRACK] == S.TARGET_HEALTH:
        health -= h
        result[RESULT.R_OTHER] -= w
    else:
        health -= w
        result[RESULT.R_OTHER] -= h
    result[RESULT.R_RADIATION] += r
    result[RESULT.R_ART_USES] += uses
    result[RESULT.R_SIDE_EFFECTS] += suffered
    return health


@jit
def _test_dice(state, params, effect, select, health, result):
    """Artefact dice for one Combat or Stealth test (P-23, P-24); ``(dice, health)``."""
    extra, h, r, w, uses, suffered = test_bonus(state, params, S.P_SIZE, params[S.P_N_ART],
                                                params[S.P_ART_FAIL], effect, select)
    return extra, _side(params, health, h, r, w, uses, suffered, result)


@jit
def _restore(state, params, health, counts, select, result):
    """Heal and calm artefacts of record mask ``select`` before a round (P-08, P-24):
    ``(health, counts)``.
    """
    n_art, fail, at = params[S.P_N_ART], params[S.P_ART_FAIL], params[S.P_HEAL_AT]
    limit = params[S.P_RESTORE_USES]
    own, other = S.ART_HEAL, S.ART_CALM
    if params[S.P_TRACK] != S.TARGET_HEALTH:
        own, other = S.ART_CALM, S.ART_HEAL
    health, counts, h, r, w, uses, suffered = restore(
        state, params, S.P_SIZE, n_art, fail, own, counts, health, params[S.P_HEALTH], at, limit,
        select)
    health = _side(params, health, h, r, w, uses, suffered, result)
    result[RESULT.R_OTHER], counts, h, r, w, uses, suffered = restore(
        state, params, S.P_SIZE, n_art, fail, other, counts, result[RESULT.R_OTHER],
        params[S.P_OTHER_MAX], at, limit, select)
    return _side(params, health, h, r, w, uses, suffered, result), counts


@jit
def _attack(state, params, health, tokens, select, result):
    """The enemy's wounds through the resist artefacts of record mask ``select`` and the
    armour (P-02..P-05, P-08, P-20).
    """
    through, tokens, h, r, w, uses, suffered = absorb(
        state, params, S.P_SIZE, params[S.P_N_ART], params[S.P_ART_FAIL],
        params[S.P_RESIST_ORDER], params[S.P_WOUNDS], params[S.P_RESIST],
        params[S.P_DURABILITY], tokens, select)
    return through, tokens, _side(params, health, h, r, w, uses, suffered, result)


@jit(inline="always")
def _down(params, health, result):
    """Knocked out on the fight's track (P-37, P-40) or on the other by an artefact's side
    effect.
    """
    return exhausted(health) or (params[S.P_N_ART] > 0 and exhausted(result[RESULT.R_OTHER]))


@jit(inline="always")
def _loadout(n_limited, n_combat, uses, spend, phase, allowed):
    """The round's loadout (P-23) among the limited weapons left and the ``n_combat``
    combat artefacts, those of mask ``allowed`` (-1: all): ``(mask of those, spend
    entry)``; spends.

    ``allowed`` is applied bit by bit: without limited weapons and combat artefacts (a
    constant 0 of those without artefacts) the mask does not depend on a plan's entry, so
    the round's dice need not wait for the entry to be read (issue 24, section 4).
    """
    mask = ((1 << n_combat) - 1) << n_limited & allowed
    for j in range(n_limited):
        if uses[j] > 0:
            mask |= allowed & 1 << j
    used = spend[phase, mask]
    for j in range(n_limited):
        if used >> j & 1:
            uses[j] -= 1
    return mask, used


@jit(inline="always")
def _allowed(params, n_limited, select):
    """A round's loadout mask by the thresholds: every limited-use weapon, and the combat
    artefacts among the records of ``select`` (P-23; bit ``n_limited + k`` is the ``k``-th
    combat artefact record of value above 0, :func:`sim.encounter.artifact.combat_choices`).
    """
    allowed = (1 << n_limited) - 1
    k = 0
    for i in range(params[S.P_N_ART]):
        rec = S.P_SIZE + i * S.AF_SIZE
        if params[rec + S.AF_EFFECT] == S.ART_COMBAT and params[rec + S.AF_VALUE] > 0:
            if select >> i & 1:
                allowed |= 1 << (n_limited + k)
            k += 1
    return allowed


@jit(inline="always")
def _dose(health, health_max, stimulants, stims):
    """Take the next stimulant dose (Z-12..Z-14): Health up to its maximum; ``(health, stims)``."""
    return min(health_max, health + stimulants[stims]), stims + 1


@jit
def _doses(doses, n_kinds, n_limited, health, health_max, stimulants, uses, stims):
    """A plan's doses by kind (Z-12..Z-14, P-24): ``PLAN_KIND_BITS`` bits per kind of
    ``doses``; kind ``j`` restores ``stimulants[j]``, up to the maximum, and its doses left
    are ``uses[n_limited + j]`` (the plan's state). ``(health, stims)``.
    """
    for j in range(n_kinds):
        for _ in range(doses >> (S.PLAN_KIND_BITS * j) & ((1 << S.PLAN_KIND_BITS) - 1)):
            health = min(health_max, health + stimulants[j])
            uses[n_limited + j] -= 1
            stims += 1
    return health, stims


@jit(inline="always")
def _planned(plan, at, n_limited, uses0, uses):
    """The plan's entry at offset ``at`` from the state's other parts, plus the limited-use
    weapons' uses left (mixed radix of each weapon's uses + 1: the last axis of a plan,
    sim.encounter.plan).
    """
    code = 0
    for j in range(n_limited):
        code = code * (uses0[j] + 1) + uses[j]
    return plan[np.uint64(at + code)]  # unsigned: no test for an index from the end


@jit
def played_entries(entries, per_round, per_health, n_health, per_dose, n_used, health_max,
                   stimulants):
    """A plan of a fight without artefacts and kinds of dose as the kernel plays it (issue 24,
    section 4): each entry's doses (Z-12..Z-14, :func:`_dose`, in the order carried, from the
    doses used of its state) replaced by the Health they restore (bits from 0), their number
    (bits from :data:`GAIN_BITS`) and the move of the entry's index they make, with the
    round's stride ``per_round`` (bits from ``PLAN_ART_SHIFT``, where a plan with artefacts
    keeps its record mask); the action stays.

    ``entries`` is row-major with the strides ``per_health`` and ``per_dose`` of the Health
    (``n_health`` values) and doses used (``n_used``) axes (:class:`sim.encounter.plan.PlanShape`).
    The kernel then adds a decision to its state and its index without a loop over the doses
    and without deriving the index from every state variable each round (:func:`_fight`).
    """
    out = np.empty_like(entries)
    n_stims = stimulants.shape[0] - 1
    for i in range(entries.shape[0]):
        health = i // per_health % n_health
        stims = used = i // per_dose % n_used
        doses = entries[i] & ((1 << S.PLAN_ACTION_SHIFT) - 1)
        level = health
        for _ in range(doses):
            if stims < n_stims:  # more doses than carried: no state reaches the entry
                level, stims = _dose(level, health_max, stimulants, stims)
        gain, taken = level - health, stims - used
        action = entries[i] >> S.PLAN_ACTION_SHIFT & S.PLAN_ACTION_BITS
        out[i] = (gain + (taken << GAIN_BITS) + (action << S.PLAN_ACTION_SHIFT)
                  + ((per_round + gain * per_health + taken * per_dose) << S.PLAN_ART_SHIFT))
    return out


@jit(inline="always")
def _tracked(params, other, counts):
    """Offset of the artefact part of a plan's state: the other track (P-09, P-40) and the
    uses so far of each heal and calm artefact (mixed radix of ``restore_uses + 1``, in
    record order; ``counts`` packs them 8 bits per record, :func:`restore`).
    """
    code = 0
    radix = params[S.P_RESTORE_USES] + 1
    for i in range(params[S.P_N_ART]):
        effect = params[S.P_SIZE + i * S.AF_SIZE + S.AF_EFFECT]
        if effect == S.ART_HEAL or effect == S.ART_CALM:
            code = code * radix + (counts >> (8 * i) & 255)
    return other * params[S.P_PLAN_OTHER] + code * params[S.P_PLAN_COUNTS]


@jit(inline="always")
def fight(state, params, stimulants, uses0, uses, bonus, spend, plan, result):
    """Resolve one fight; fills ``result`` = (outcome, wounds, rounds, tokens, stims, spent,
    health at the end, then the ``R_*`` artefact fields, written only with artefacts).

    The procedure follows P-16 (avoid by Stealth) or Z-15..Z-17 (by Reputation),
    P-18..P-21 (rounds, stalker first, flee from round 2), P-23/P-29 (loadout
    per round via the precomputed ``bonus``/``spend`` tables; the high bits of
    ``spend`` are the combat artefacts chosen with the weapons), P-02..P-05
    (armour tokens persist through the fight; the enemy's traits, P-22, may forbid the
    avoiding, pierce the armour or end the fight by the enemy's flight), Z-12..Z-14 (stimulants in
    combat, capped at maximum Health) and P-08..P-10 (artefacts: heal and
    calm before a round, dice to Stealth and Combat tests, resist per attack;
    :mod:`sim.kernels.artifact`). The stalker's choices (stimulants, flee,
    limited-use weapons, avoiding the fight, which artefacts to use) follow the
    thresholds in ``params`` (every artefact used whenever its rule allows), or with
    ``params[P_PLAN]`` the decision table ``plan`` (:mod:`sim.encounter.plan`): before
    each round the heal and calm artefacts to use, then after them the doses, the
    action and the stealth and resist artefacts of the round. The one procedure, :func:`_fight`, is
    inlined three times: with artefacts (or a plan's doses by kind, ``params[P_N_KINDS]``),
    and without them by plan or by thresholds, so that each runs none of the others' code
    (the constants ``art`` and ``planned`` fold it away; a plan's reading stays within
    10 % of the thresholds' fights/s, issue 24). Without artefacts and kinds ``plan`` holds
    :func:`played_entries` (:meth:`sim.encounter.plan.CombatPlan.pack` makes them).
    """
    if params[S.P_N_ART] > 0 or params[S.P_N_KINDS] > 0:
        _fight(state, params, stimulants, uses0, uses, bonus, spend, plan, result, True,
               params[S.P_PLAN] != 0)
    elif params[S.P_PLAN] != 0:
        _fight(state, params, stimulants, uses0, uses, bonus, spend, plan, result, False, True)
    else:
        _fight(state, params, stimulants, uses0, uses, bonus, spend, plan, result, False, False)


@jit(inline="always")
def fight_by_thresholds(state, params, stimulants, uses0, uses, bonus, spend, result):
    """:func:`fight` by the thresholds in ``params`` (``params[P_PLAN]`` is 0): for
    callers that never pass a plan (the campaign), which then carry none of its code.
    """
    if params[S.P_N_ART] > 0:
        _fight(state, params, stimulants, uses0, uses, bonus, spend, NO_PLAN, result, True,
               False)
    else:
        _fight(state, params, stimulants, uses0, uses, bonus, spend, NO_PLAN, result, False,
               False)


@jit(inline="always")
def _fight(state, params, stimulants, uses0, uses, bonus, spend, plan, result, art, planned):
    """:func:`fight`, with ``art`` and ``planned`` constants: whether the fight has
    artefacts' code, and whether it follows a plan (or the thresholds).
    """
    health_max = params[S.P_HEALTH]
    stealth = params[S.P_STEALTH]
    stealth_on = params[S.P_STEALTH_ON]
    vigilance = params[S.P_VIGILANCE]
    wounds = params[S.P_WOUNDS]
    resist = params[S.P_RESIST]
    durability = params[S.P_DURABILITY]
    flee_at = params[S.P_FLEE_AT]
    heal_at = params[S.P_HEAL_AT]
    n_limited = params[S.P_N_LIMITED]
    n_stims = stimulants.shape[0] - 1
    tokens = params[S.P_TOKENS]
    health = params[S.P_START_HEALTH]
    if art:
        result[RESULT.R_OTHER] = params[S.P_OTHER]
        result[RESULT.R_RADIATION] = result[RESULT.R_ART_USES] = result[RESULT.R_SIDE_EFFECTS] = 0
    taken = stims = rounds = counts = 0
    for j in range(uses0.shape[0]):  # the weapons' uses, then a plan's kinds' doses left
        uses[j] = uses0[j]
    # Trait flees=N (P-22), folded into P_MAX_ROUNDS = N: a fight still undecided after
    # that round ends with the enemy fled instead of capped.
    outcome = OUTCOME.FLED if params[S.P_ENEMY_FLEES] != 0 else OUTCOME.CAPPED
    avoided = False
    n_combat = params[S.P_N_COMBAT_ART] if art else 0  # combat artefacts are artefacts
    # The plan's strides (sim.encounter.plan), read once: plans of several fights share
    # the array, this fight's starts at params[P_PLAN] - 1; at_round is the start of the
    # round's part, one stride further each round.
    at_round = params[S.P_PLAN] - 1
    per_round, per_health = params[S.P_PLAN_ROUND], params[S.P_PLAN_HEALTH]
    per_token, per_dose = params[S.P_PLAN_TOKENS], params[S.P_PLAN_STIMS]
    act_stage = params[S.P_PLAN_STAGE] if art else 0  # a heal/calm stage needs artefacts
    # A plan's kinds of dose (their doses left follow the uses): played by the variant with
    # artefacts' code (which, without artefacts, rolls exactly the dice of the other), so
    # the variant without keeps none of it.
    n_kinds = params[S.P_N_KINDS] if art else 0
    n_digits = n_limited + n_kinds
    # Without artefacts the entry's index is kept as the state changes (issue 24, section 4):
    # each round one stride on, and the moves of the doses (in the played entry) and of the
    # enemy's attack (wounds and tokens), instead of derived from every state variable.
    entry_at = 0
    if planned:
        if art:
            pass
        else:
            entry_at = at_round + health * per_health + tokens * per_token
    if params[S.P_SNEAK] != 0:  # 0 against an ambush too (P-22, folded into P_SNEAK)
        if params[S.P_AVOID_RULE] == S.AVOID_STEALTH:
            pool = stealth
            if art:  # P-16 with stealth artefacts (by the thresholds: those usable now)
                sneak_arts = params[S.P_SNEAK_ARTS]
                if not planned:
                    sneak_arts &= usable(params, S.P_SIZE, params[S.P_N_ART], health)
                extra, health = _test_dice(state, params, S.ART_STEALTH, sneak_arts, health,
                                           result)
                pool += extra
            avoided = pool_test(state, pool, stealth_on, vigilance)
        else:
            avoided = d6_at_least(state, params[S.P_ESCAPE_TARGET])
    if art and _down(params, health, result):
        outcome = OUTCOME.KNOCKED_OUT
    elif avoided:
        outcome = OUTCOME.AVOIDED
    else:
        for rnd in range(1, params[S.P_MAX_ROUNDS] + 1):
            rounds = rnd
            select = -1  # the artefacts used this round: all, unless a plan says
            tracks = 0
            allowed = -1
            if art:
                if not planned:  # policy.artifact_use, at the round's start (P-08)
                    select = usable(params, S.P_SIZE, params[S.P_N_ART], health)
                    allowed = _allowed(params, n_limited, select)
                else:
                    select = 0
                    if act_stage != 0:  # the round's heal/calm choice
                        at = (at_round + health * per_health
                              + tokens * per_token + stims * per_dose
                              + _tracked(params, result[RESULT.R_OTHER], counts))
                        select = _planned(plan, at, n_digits, uses0, uses) >> S.PLAN_ART_SHIFT
                health, counts = _restore(state, params, health, counts, select, result)
                if _down(params, health, result):
                    outcome = OUTCOME.KNOCKED_OUT
                    break
                tracks = _tracked(params, result[RESULT.R_OTHER], counts)
            if planned:
                if art:
                    at = (at_round + health * per_health + tokens * per_token
                          + stims * per_dose + tracks + act_stage)
                    at_round += per_round
                    decision = _planned(plan, at, n_digits, uses0, uses)
                    doses = decision & ((1 << S.PLAN_ACTION_SHIFT) - 1)
                    if n_kinds == 0:
                        for _ in range(doses):
                            health, stims = _dose(health, health_max, stimulants, stims)
                    else:
                        health, stims = _doses(doses, n_kinds, n_limited, health, health_max,
                                               stimulants, uses, stims)
                else:  # a played entry (played_entries)
                    decision = _planned(plan, entry_at, n_digits, uses0, uses)
                    entry_at += decision >> S.PLAN_ART_SHIFT  # the round's stride too
                    health += decision & GAIN_MASK
                    stims += decision >> GAIN_BITS & GAIN_MASK
                allowed = (decision >> S.PLAN_ACTION_SHIFT & S.PLAN_ACTION_BITS) - 1  # -1: flee
                flee = allowed < 0
                select = decision >> S.PLAN_ART_SHIFT
            else:
                while stims < n_stims and health <= heal_at and health < health_max:
                    health, stims = _dose(health, health_max, stimulants, stims)
                flee = rnd >= 2 and flee_at > 0 and health <= flee_at
            if flee:
                pool = stealth
                if art:
                    extra, health = _test_dice(state, params, S.ART_STEALTH, select, health,
                                               result)
                    pool += extra
                    if _down(params, health, result):
                        outcome = OUTCOME.KNOCKED_OUT
                        break
                if pool_test(state, pool, stealth_on, vigilance):
                    outcome = OUTCOME.FLED
                    break
            else:
                phase = 0 if rnd == 1 else 1
                mask, used = _loadout(n_limited, n_combat, uses, spend, phase, allowed)
                pool = params[S.P_COMBAT] + bonus[phase, mask]
                if art and used >> S.SPEND_ART_SHIFT != 0:
                    extra, health = _test_dice(state, params, S.ART_COMBAT,
                                               used >> S.SPEND_ART_SHIFT, health, result)
                    pool += extra
                    if _down(params, health, result):
                        outcome = OUTCOME.KNOCKED_OUT
                        break
                if pool_test(state, pool, params[S.P_SUCCESS_ON], params[S.P_ENDURANCE]):
                    outcome = OUTCOME.KILLED
                    break
            if art:
                through, tokens, health = _attack(state, params, health, tokens, select, result)
            else:
                through, after = armor_absorb(state, wounds, resist, durability, tokens)
                if planned:
                    entry_at += (after - tokens) * per_token - through * per_health
                tokens = after
            taken += through
            health -= through
            if exhausted(health) or (art and exhausted(result[RESULT.R_OTHER])):
                outcome = OUTCOME.KNOCKED_OUT
                break
    _finish(result, outcome, taken, rounds, tokens, stims, n_limited, uses0, uses, health)


@jit(inline="always")
def _finish(result, outcome, taken, rounds, tokens, stims, n_limited, uses0, uses, health):
    """Write the first fields of ``result`` (limited-use weapon uses spent among them)."""
    spent = 0
    for j in range(n_limited):
        spent += uses0[j] - uses[j]
    result[RESULT.R_OUTCOME] = outcome
    result[RESULT.R_WOUNDS] = taken
    result[RESULT.R_ROUNDS] = rounds
    result[RESULT.R_TOKENS] = tokens
    result[RESULT.R_STIMULANTS] = stims
    result[RESULT.R_SPENT] = spent
    result[RESULT.R_HEALTH] = health


@pjit
def combat_kernel(seed, n_trials, chunk_size, first_chunk, params, stimulants, uses0, bonus,
                  spend, plan, out):
    """Run ``n_trials`` fights; ``out`` has shape (n_chunks, width(durability)).

    ``plan`` is the fights' decision table (``params[P_PLAN]``), or :data:`NO_PLAN`.
    """
    for r in prange(out.shape[0]):
        c = first_chunk + r
        _chunk(seed, c * chunk_size, min((c + 1) * chunk_size, n_trials), params, stimulants,
               uses0, bonus, spend, plan, out[r])


@jit(inline="always")
def _chunk(seed, start, stop, params, stimulants, uses0, bonus, spend, plan, row):
    """Fights ``start .. stop - 1`` added to the aggregate ``row``.

    Sums are kept in local variables and written to ``row`` once, so that the
    loop over fights keeps them in registers (issue 13); the outcome and token
    histograms are counted in ``row`` directly.
    """
    durability = params[S.P_DURABILITY]
    start_tokens = params[S.P_TOKENS]
    has_art = params[S.P_N_ART] > 0
    state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
    uses = np.zeros(uses0.shape[0], dtype=np.int64)
    result = np.zeros(RESULT.RESULT_SIZE, dtype=np.int64)
    wounds = wounds_sq = rounds = rounds_sq = n_destroyed = stims = spent = 0
    art_uses = side_effects = side_radiation = 0
    for t in range(start, stop):
        rng.seed_stream(state, seed, t, rng.DICE)
        fight(state, params, stimulants, uses0, uses, bonus, spend, plan, result)
        outcome, taken = result[RESULT.R_OUTCOME], result[RESULT.R_WOUNDS]
        n_rounds, tokens = result[RESULT.R_ROUNDS], result[RESULT.R_TOKENS]
        wounds += taken
        wounds_sq += taken * taken
        rounds += n_rounds
        rounds_sq += n_rounds * n_rounds
        n_destroyed += destroyed(durability, start_tokens, tokens)
        stims += result[RESULT.R_STIMULANTS]
        spent += result[RESULT.R_SPENT]
        if has_art:  # kept out of fights without artefacts (speed)
            art_uses += result[RESULT.R_ART_USES]
            side_effects += result[RESULT.R_SIDE_EFFECTS]
            side_radiation += result[RESULT.R_RADIATION]
        row[outcome] += 1
        row[SUMS.TOKENS + tokens] += 1
    row[SUMS.SUM_WOUNDS] += wounds
    row[SUMS.SUM_WOUNDS_SQ] += wounds_sq
    row[SUMS.SUM_ROUNDS] += rounds
    row[SUMS.SUM_ROUNDS_SQ] += rounds_sq
    row[SUMS.DESTROYED] += n_destroyed
    row[SUMS.SUM_STIMULANTS] += stims
    row[SUMS.SUM_SPENT] += spent
    row[SUMS.SUM_ART_USES] += art_uses
    row[SUMS.SUM_SIDE_EFFECTS] += side_effects
    row[SUMS.SUM_SIDE_RADIATION] += side_radiation
