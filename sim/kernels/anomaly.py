"""Anomaly kernel (P-30..P-36): many independent anomaly encounters, counts per chunk.

One trial is one stalker meeting one anomaly card, resolved as in
:mod:`sim.exact.anomaly` (its exact twin) and :mod:`sim.reference.anomaly`
(the readable executable spec):

1. Perception test (P-31): pool = Perception, need = the anomaly's eye value.
   A pass means the stalker goes around it, unless the policy enters anyway
   (P-36), which adds ``bonus_dice`` to the Agility pool.
2. Agility test (P-32, made exactly once, P-33): need = the skull value; a
   failure deals the anomaly's damage through the armour (P-02..P-06) to
   Health, the radiation track or Willpower (:func:`take_damage`).
3. Anyone inside who is not knocked out keeps the trophy (P-34); if he also
   passes the find test (P-07, P-35: "a chance to find"), he searches the
   artefact deck for the anomaly's type (P-35, :func:`draw_until`).

Tests and armour use the trial's DICE stream; the artefact search uses its
DECK stream, so a policy that rolls more dice does not reshuffle the deck
(common random numbers). Per-chunk aggregates are integer counts and sums,
so results do not depend on chunking or threads.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from sim.jitting.options import jit, pjit
from sim.kernels import layout as S
from sim.kernels import rng
from sim.kernels.artifact import absorb, usable
from sim.kernels.dice import armor_absorb, destroyed, pool_test
from sim.kernels.records import Record
from sim.kernels.tracks import deformed, exhausted, onto

# How an encounter ends: each outcome is at once the code encounter() writes in R_OUTCOME
# and the column of ``out`` that counts it (``row[outcome] += 1``): one declaration for both.
OUTCOME = Record("anomaly outcomes", "N_OUTCOMES", (
    "AVOIDED",      # noticed and gone around (P-31, P-36)
    "UNHARMED",     # inside, the Agility test passed or no point got through (P-32)
    "DAMAGED",      # inside, harmed but conscious
    "KNOCKED_OUT",  # Health or Willpower at 0 (P-37, P-40)
))
globals().update(OUTCOME.constants)  # AVOIDED .. KNOCKED_OUT, N_OUTCOMES

# Columns of ``out`` after the outcome counts: counts and sums per chunk.
SUMS = Record("anomaly count columns after the outcomes", "WIDTH", (
    "PERCEIVED",         # the Perception test passed (P-31)
    "DEFORMATION",       # a deformation (P-39)
    "ARTIFACT",          # an artefact found (P-35)
    "SEARCHES",          # the artefact deck searched (P-07, P-35)
    "SUM_DRAWS",
    "SUM_DRAWS_SQ",
    "SUM_LOSS",
    "SUM_LOSS_SQ",
    "DESTROYED",         # encounters that destroyed the armour (P-05)
    "SUM_ART_USES",      # artefact uses (P-08..P-10)
    "SUM_SIDE_EFFECTS",  # side effects suffered (P-09)
    "SUM_SIDE_POINTS",   # their points, every track together (P-09)
), start=OUTCOME.N_OUTCOMES)
globals().update(SUMS.constants)  # PERCEIVED .. SUM_SIDE_POINTS, WIDTH (the row's width)


@jit(inline="always")
def keeps_trophy(outcome):
    """Whether the stalker keeps the anomaly's card as a trophy (P-34): he was inside and
    came out conscious (unharmed or damaged, not knocked out).
    """
    return outcome == OUTCOME.UNHARMED or outcome == OUTCOME.DAMAGED


# Fields of encounter()'s ``result``; callers with a SHORT_RESULT buffer get the fields
# before R_ART_USES only, the artefact fields when the buffer has room for them.
RESULT = Record("anomaly results", "RESULT_SIZE", (
    "R_OUTCOME",        # AVOIDED .. KNOCKED_OUT
    "R_PERCEIVED",      # the Perception test passed (P-31)
    "R_LOST",           # points lost after the artefacts and armour
    "R_TOKENS",         # armour tokens at the end
    "R_DEFORMATION",    # a deformation (P-39)
    "R_SEARCHED",       # the artefact deck was searched (P-35)
    "R_DRAWS",          # cards drawn in the search
    "R_FOUND",          # an artefact found
    "R_ART_USES",       # artefact uses against the damage (P-08..P-10)
    "R_SIDE_EFFECTS",   # side effects suffered (P-09)
    "R_SIDE_HEALTH",    # side-effect points per track (P-09)
    "R_SIDE_RADIATION",
    "R_SIDE_WILLPOWER",
))
globals().update(RESULT.constants)  # R_OUTCOME .. RESULT_SIZE, as other kernels read them
SHORT_RESULT = RESULT.R_ART_USES
"""Length of a result buffer without the artefact fields (outcome .. artefact found)."""


@jit
def take_damage(state, params, base, n_art, fail_rule, order, damage, target, resist,
                durability, tokens, health, radiation, radiation_max, willpower, select):
    """Deal ``damage`` points through resist artefacts and the armour to one track.

    P-02..P-06 (armour), P-08..P-10 (resist artefacts of the damage's type,
    :func:`sim.kernels.artifact.absorb`), P-37..P-40 (the tracks).

    Parameters
    ----------
    state : ndarray of uint64
        DICE stream state (activation tests, then the armour roll).
    params : ndarray of int64
        The encounter's params; its artefact records start at ``base``.
    n_art, fail_rule, order : int
        Number of artefact records, ``FAIL_*`` and ``RESIST_*`` codes.
    damage : int
        Incoming wounds, doses or disturbances.
    target : int
        ``TARGET_HEALTH``, ``TARGET_RADIATION`` or ``TARGET_WILLPOWER``.
    resist : int
        Absorbing die face, 0 if the armour does not roll against this damage.
    durability, tokens : int
        Armour durability (0 = none) and tokens already on it.
    health, radiation, radiation_max, willpower : int
        The stalker's state before the damage.
    select : int
        Bit mask of the artefact records the player uses against this damage
        (-1: all; P-08: he may leave an artefact unused).

    Returns
    -------
    tuple
        ``(through, tokens_after, knocked_out, deformation, health_side,
        radiation_side, willpower_side, uses, side_effects)``: points taken
        on ``target`` after the artefacts and armour; Health <= 0 (P-37) or
        Willpower <= 0 (P-40, a concussion) is a knock-out; radiation above
        the maximum is a deformation (P-39), not a knock-out; then the side
        effects of the artefacts used (P-09), which count in both.
    """
    if n_art == 0:
        through, after = armor_absorb(state, damage, resist, durability, tokens)
        h = r = w = uses = suffered = 0
    else:
        through, after, h, r, w, uses, suffered = absorb(
            state, params, base, n_art, fail_rule, order, damage, resist, durability, tokens,
            select)
    dh, dr, dw = onto(target, through)
    lost_h, lost_r, lost_w = h + dh, r + dr, w + dw
    down = exhausted(health - lost_h) or exhausted(willpower - lost_w)
    deformation = deformed(radiation + lost_r, radiation_max)
    return through, after, down, deformation, h, r, w, uses, suffered


@jit
def draw_until(state, deck, scratch, want):
    """Draw artefact cards until one of type ``want`` turns up (P-35).

    Cards are drawn one at a time, uniformly from those left, without
    replacement; a card of another type is set aside (Gap: what happens to it;
    the caller decides whether set-aside cards go back).

    Parameters
    ----------
    state : ndarray of uint64
        DECK stream state.
    deck : ndarray of int64, shape (n_types,)
        Cards of each artefact type in the deck before the search.
    scratch : ndarray of int64, shape (n_types,)
        Work space; on return, the cards of each type still in the deck
        (the found card and the set-aside cards removed).
    want : int
        Index of the wanted type, ``0 <= want < n_types``.

    Returns
    -------
    tuple
        ``(draws, found)``; with no card of the type left the whole deck is
        drawn and ``found`` is False.
    """
    left = 0
    for i in range(deck.shape[0]):
        scratch[i] = deck[i]
        left += deck[i]
    draws = 0
    while left > 0:
        j = rng.below(state, left)
        draws += 1
        t = 0
        while j >= scratch[t]:
            j -= scratch[t]
            t += 1
        scratch[t] -= 1
        left -= 1
        if t == want:
            return draws, True
    return draws, False


@jit
def encounter(state, deck_state, params, deck, scratch, result):
    """Resolve one anomaly encounter (P-31..P-36); fills ``result``.

    ``result`` (int64, length ``SHORT_RESULT`` or ``RESULT_SIZE``) = (outcome, perceived,
    points lost after the artefacts and armour, tokens after, deformation,
    searched (passed the find test and drew), cards drawn, artefact found),
    then the ``R_*`` artefact fields when there is room.
    """
    seen = pool_test(state, params[S.A_PERCEPTION], params[S.A_PERCEPTION_ON],
                     params[S.A_PERCEPTION_NEED])
    for i in range(result.shape[0]):
        result[i] = 0
    result[RESULT.R_PERCEIVED] = seen
    result[RESULT.R_TOKENS] = params[S.A_TOKENS]
    # P-36: after noticing, enter on purpose or go around (A_ENTER: the policy's
    # enter_anomalies, or best play's decision, sim.exact.best_hazard).
    if seen and params[S.A_ENTER] == 0:
        result[RESULT.R_OUTCOME] = OUTCOME.AVOIDED
        return
    # P-36: preparation after a passed Perception test on a voluntary entry.
    pool = params[S.A_AGILITY] + (params[S.A_BONUS_DICE] if seen else 0)
    knocked_out = harmed = False
    if not pool_test(state, pool, params[S.A_AGILITY_ON], params[S.A_AGILITY_NEED]):
        through, after, knocked_out, deformation, h, r, w, uses, suffered = take_damage(
            state, params, S.A_SIZE, params[S.A_N_ART], params[S.A_ART_FAIL],
            params[S.A_RESIST_ORDER], params[S.A_DAMAGE], params[S.A_TARGET],
            params[S.A_RESIST], params[S.A_DURABILITY], params[S.A_TOKENS], params[S.A_HEALTH],
            params[S.A_RADIATION], params[S.A_RADIATION_MAX], params[S.A_WILLPOWER],
            # P-08: the records the player leaves unused, and those his use policy keeps
            # for a lower Health (policy.artifact_use)
            ~params[S.A_ART_UNUSED] & usable(params, S.A_SIZE, params[S.A_N_ART],
                                             params[S.A_HEALTH]))
        result[RESULT.R_LOST] = through
        result[RESULT.R_TOKENS] = after
        result[RESULT.R_DEFORMATION] = deformation
        harmed = through + h + r + w > 0  # side effects harm too (P-09)
        if result.shape[0] >= RESULT.RESULT_SIZE:
            result[RESULT.R_ART_USES] = uses
            result[RESULT.R_SIDE_EFFECTS] = suffered
            result[RESULT.R_SIDE_HEALTH] = h
            result[RESULT.R_SIDE_RADIATION] = r
            result[RESULT.R_SIDE_WILLPOWER] = w
    if knocked_out:
        result[RESULT.R_OUTCOME] = OUTCOME.KNOCKED_OUT
    elif harmed:
        result[RESULT.R_OUTCOME] = OUTCOME.DAMAGED
    else:
        result[RESULT.R_OUTCOME] = OUTCOME.UNHARMED
    want = params[S.A_ARTIFACT]
    # P-07, P-35: a chance to find, decided by the find test (DICE stream)
    # before the deck is searched (DECK stream).
    if (not knocked_out and want >= 0
            and pool_test(state, params[S.A_FIND_POOL], params[S.A_FIND_ON],
                          params[S.A_FIND_NEED])):
        draws, found = draw_until(deck_state, deck, scratch, want)
        result[RESULT.R_SEARCHED] = 1
        result[RESULT.R_DRAWS] = draws
        result[RESULT.R_FOUND] = found


@pjit
def anomaly_kernel(seed, n_trials, chunk_size, first_chunk, params, deck, out):
    """Run ``n_trials`` encounters; ``out`` has shape (n_chunks, WIDTH).

    Parameters
    ----------
    params : ndarray of int64, shape (A_SIZE,)
        From :meth:`sim.encounter.spec.AnomalySpec.pack`.
    deck : ndarray of int64, shape (n_types,)
        Artefact cards per type.
    out : ndarray of int64, shape (n_chunks, WIDTH)
        Per-chunk counts (columns: the module constants).
    """
    durability = params[S.A_DURABILITY]
    start_tokens = params[S.A_TOKENS]
    for r in prange(out.shape[0]):
        c = first_chunk + r
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        deck_state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        scratch = np.zeros(deck.shape[0], dtype=np.int64)
        result = np.zeros(RESULT.RESULT_SIZE, dtype=np.int64)
        row = out[r]
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            rng.seed_stream(state, seed, t, rng.DICE)
            rng.seed_stream(deck_state, seed, t, rng.DECK)
            encounter(state, deck_state, params, deck, scratch, result)
            row[result[RESULT.R_OUTCOME]] += 1
            row[SUMS.PERCEIVED] += result[RESULT.R_PERCEIVED]
            row[SUMS.SUM_LOSS] += result[RESULT.R_LOST]
            row[SUMS.SUM_LOSS_SQ] += result[RESULT.R_LOST] * result[RESULT.R_LOST]
            if destroyed(durability, start_tokens, result[RESULT.R_TOKENS]):
                row[SUMS.DESTROYED] += 1
            row[SUMS.DEFORMATION] += result[RESULT.R_DEFORMATION]
            row[SUMS.SEARCHES] += result[RESULT.R_SEARCHED]
            row[SUMS.SUM_DRAWS] += result[RESULT.R_DRAWS]
            row[SUMS.SUM_DRAWS_SQ] += result[RESULT.R_DRAWS] * result[RESULT.R_DRAWS]
            row[SUMS.ARTIFACT] += result[RESULT.R_FOUND]
            row[SUMS.SUM_ART_USES] += result[RESULT.R_ART_USES]
            row[SUMS.SUM_SIDE_EFFECTS] += result[RESULT.R_SIDE_EFFECTS]
            row[SUMS.SUM_SIDE_POINTS] += (result[RESULT.R_SIDE_HEALTH]
                                          + result[RESULT.R_SIDE_RADIATION]
                                          + result[RESULT.R_SIDE_WILLPOWER])
