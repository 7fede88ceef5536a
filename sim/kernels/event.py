"""Event rule and kernel (Z-08..Z-10): one draw of an event card, and many of them.

:func:`event_avoided` is the avoidance rule and :func:`event_effect` one
whole draw, the one home of the event rule: :func:`resolve_event` (the event
kernel and the paired kernel, :mod:`sim.kernels.paired`) and the campaign's
event card (:func:`sim.kernels.campaign.movement._event`) both call it, each
writing the result where it keeps it. One draw: the avoidance roll (one d6
>= ``avoid_on`` minus the best event item's shift; none when the card has no
roll; the Torsion scanner avoids without one, Z-09), then, if the event
happens, its effect: damage through the armour to Health, radiation or
Willpower (:func:`sim.kernels.anomaly.take_damage`), days lost, Emission
tokens, or an encounter the caller resolves (an enemy, P-16, or an anomaly,
P-30). Resist artefacts of the damage's type act on the damage (P-08,
:func:`sim.kernels.artifact.absorb`); artefact types do not change the
avoidance roll (P-12 names no effect: ``artifacts.event_phase = "none"``).
Exact twin: :mod:`sim.exact.event`. All dice come from the trial's DICE
stream.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from sim.jitting.options import jit, pjit
from sim.kernels import layout as S
from sim.kernels import rng
from sim.kernels.anomaly import take_damage
from sim.kernels.artifact import usable
from sim.kernels.dice import d6_at_least, destroyed
from sim.kernels.records import Record

# How a draw ends: each outcome is at once the code resolve_event() writes in R_OUTCOME and
# the column of ``out`` that counts it (``row[outcome] += 1``): one declaration for both.
OUTCOME = Record("event outcomes", "N_OUTCOMES", (
    "AVOIDED",      # the avoidance roll avoided the card (Z-09, Z-10)
    "HAPPENED",     # the event took place and the stalker is still conscious
    "KNOCKED_OUT",  # it took place: Health or Willpower at 0 (P-37, P-40)
))
globals().update(OUTCOME.constants)  # AVOIDED .. KNOCKED_OUT, N_OUTCOMES

# Columns of ``out`` after the outcome counts: counts and sums per chunk of the draws that
# happened.
SUMS = Record("event count columns after the outcomes", "WIDTH", (
    "DEFORMATION",       # a deformation (P-39)
    "SUM_HEALTH",        # points lost on the card's track, after the armour
    "SUM_HEALTH_SQ",
    "SUM_RADIATION",
    "SUM_RADIATION_SQ",
    "SUM_PSI",
    "SUM_PSI_SQ",
    "SUM_DAYS",          # days lost (EFFECT_LOST_DAY)
    "SUM_DAYS_SQ",
    "SUM_TOKENS",        # Emission tokens (EFFECT_EMISSION_TOKENS)
    "SUM_TOKENS_SQ",
    "DESTROYED",         # draws that destroyed the armour (P-05)
    "SUM_ART_USES",      # artefact uses (P-08..P-10)
    "SUM_SIDE_EFFECTS",  # side effects suffered (P-09)
    "SUM_SIDE_POINTS",   # their points, every track together (P-09)
), start=OUTCOME.N_OUTCOMES)
globals().update(SUMS.constants)  # DEFORMATION .. SUM_SIDE_POINTS, WIDTH (the row's width)

# Fields of resolve_event's ``result``.
RESULT = Record("event results", "RESULT_SIZE", (
    "R_OUTCOME",        # AVOIDED, HAPPENED or KNOCKED_OUT
    "R_LOST",           # points taken after the armour on the card's track
    "R_DEFORMATION",    # a deformation (P-39)
    "R_DESTROYED",      # the armour was destroyed by this draw (P-05)
    "R_DAYS",           # days lost (EFFECT_LOST_DAY)
    "R_TOKENS",         # Emission tokens (EFFECT_EMISSION_TOKENS)
    "R_ART_USES",       # artefacts used against the damage (P-08..P-10)
    "R_SIDE_EFFECTS",   # side effects suffered (P-09)
    "R_SIDE_HEALTH",    # side-effect points per track
    "R_SIDE_RADIATION",
    "R_SIDE_WILLPOWER",
))
globals().update(RESULT.constants)  # R_OUTCOME .. RESULT_SIZE, as other kernels read them


@jit
def event_avoided(state, avoid_on, shift):
    """The avoidance roll of an event card (Z-09, Z-10).

    Parameters
    ----------
    state : ndarray of uint64
        DICE stream state.
    avoid_on : int
        The card's ``avoid_on``; 0 = the card has no roll and always happens.
    shift : int
        Shift of the best event item held (Bag of nuts 1, Dosimeter 2;
        0 = none). :data:`sim.encounter.spec.AUTO_SHIFT` or more is the
        Torsion scanner, which avoids without a roll; since it is the largest
        shift, "the best item" is always the item with the largest shift.

    Returns
    -------
    bool
        True when the event is avoided: one d6 >= ``avoid_on - shift``.
    """
    if avoid_on <= 0:
        return False
    if shift >= S.AUTO_SHIFT:
        return True
    return d6_at_least(state, avoid_on - shift)


@jit
def event_effect(state, avoid_on, shift, effect, value, target, resist, recs, base, n_art,
                 fail_rule, order, durability, tokens, health, radiation, radiation_max,
                 willpower, select):
    """One event card drawn (Z-08..Z-10): the avoidance roll, then the card's effect.

    The one home of the event rule: :func:`resolve_event` (the ``zonesim event``
    and paired kernels) and the campaign's event card
    (:func:`sim.kernels.campaign.movement._event`) both call it and keep to
    themselves only what is theirs (which item gives ``shift``, whether it is used
    up, where the result is written).

    Parameters
    ----------
    state : ndarray of uint64
        DICE stream state (the avoidance roll, then the damage's dice).
    avoid_on, shift : int
        The card's ``avoid_on`` (0: no roll) and the best event item's shift
        (:func:`event_avoided`).
    effect, value : int
        ``EFFECT_*`` code of the card and its value (points, days or tokens).
    target, resist : int
        The damage's track (``TARGET_*``) and the armour's absorbing face (0: the
        armour does not roll against it).
    recs, base, n_art, fail_rule, order, select :
        The held resist artefacts of the damage's type (P-08..P-10): records from
        ``recs[base]``, their number, ``FAIL_*`` and ``RESIST_*`` codes and the bit
        mask of those used (:func:`sim.kernels.anomaly.take_damage`).
    durability, tokens, health, radiation, radiation_max, willpower : int
        The armour and the stalker's tracks before the card.

    Returns
    -------
    tuple
        ``(outcome, through, tokens_after, deformation, health_side, radiation_side,
        willpower_side, uses, side_effects, days, emission_tokens, day_lost, encounter)``:
        ``AVOIDED``, ``HAPPENED`` or ``KNOCKED_OUT``; then what
        :func:`~sim.kernels.anomaly.take_damage` returns for a damage card (zeros and
        ``tokens`` otherwise); the days of a ``lost_day`` card and whether it was
        one (his movement stops for today), and the Emission tokens of an
        ``emission_tokens`` card; ``encounter``, the ``EFFECT_ENEMY`` or ``EFFECT_ANOMALY``
        of a card that brings an encounter (else ``EFFECT_NONE``): the caller draws the
        enemy (P-16; it goes back into the pool unless killed) or the anomaly (P-30) and
        meets it, which :func:`resolve_event` does not model (its ``HAPPENED`` is the chance
        of the encounter). A ``none`` card happens and does nothing.
    """
    through, after, down, deformation = 0, tokens, False, False
    h = r = w = uses = suffered = days = emission = 0
    day_lost, encounter = False, S.EFFECT_NONE
    if event_avoided(state, avoid_on, shift):
        return (OUTCOME.AVOIDED, through, after, deformation, h, r, w, uses, suffered, days,
                emission, day_lost, encounter)
    if effect == S.EFFECT_DAMAGE:
        through, after, down, deformation, h, r, w, uses, suffered = take_damage(
            state, recs, base, n_art, fail_rule, order, value, target, resist, durability,
            tokens, health, radiation, radiation_max, willpower, select)
    elif effect == S.EFFECT_LOST_DAY:
        days, day_lost = value, True
    elif effect == S.EFFECT_EMISSION_TOKENS:
        emission = value
    elif effect == S.EFFECT_ENEMY or effect == S.EFFECT_ANOMALY:
        encounter = effect
    outcome = OUTCOME.KNOCKED_OUT if down else OUTCOME.HAPPENED
    return (outcome, through, after, deformation, h, r, w, uses, suffered, days, emission,
            day_lost, encounter)


@jit
def resolve_event(state, params, result):
    """Resolve one draw of an event card (Z-08..Z-10); fills ``result`` (``R_*`` fields).

    ``params`` is :meth:`sim.encounter.spec.EventSpec.pack`; the rule is
    :func:`event_effect`, with the event item's shift and the artefacts left
    unused (P-08) that the spec packed.
    """
    durability, start_tokens = params[S.E_DURABILITY], params[S.E_TOKENS]
    (outcome, through, after, deformation, h, r, w, uses, suffered, days, emission,
     _, _) = event_effect(
        state, params[S.E_AVOID_ON], params[S.E_SHIFT], params[S.E_EFFECT], params[S.E_VALUE],
        params[S.E_TARGET], params[S.E_RESIST], params, S.E_SIZE, params[S.E_N_ART],
        params[S.E_ART_FAIL], params[S.E_RESIST_ORDER], durability, start_tokens,
        params[S.E_HEALTH], params[S.E_RADIATION], params[S.E_RADIATION_MAX],
        params[S.E_WILLPOWER],
        ~params[S.E_ART_UNUSED] & usable(params, S.E_SIZE, params[S.E_N_ART], params[S.E_HEALTH]))
    result[RESULT.R_OUTCOME] = outcome
    result[RESULT.R_LOST] = through
    result[RESULT.R_DEFORMATION] = deformation
    result[RESULT.R_DESTROYED] = destroyed(durability, start_tokens, after)
    result[RESULT.R_DAYS] = days
    result[RESULT.R_TOKENS] = emission
    result[RESULT.R_ART_USES] = uses
    result[RESULT.R_SIDE_EFFECTS] = suffered
    result[RESULT.R_SIDE_HEALTH] = h
    result[RESULT.R_SIDE_RADIATION] = r
    result[RESULT.R_SIDE_WILLPOWER] = w


@pjit
def event_kernel(seed, n_trials, chunk_size, first_chunk, params, out):
    """Run ``n_trials`` draws of one event; ``out`` has shape (n_chunks, WIDTH).

    Parameters
    ----------
    params : ndarray of int64, shape (E_SIZE,)
        From :meth:`sim.encounter.spec.EventSpec.pack`.
    out : ndarray of int64, shape (n_chunks, WIDTH)
        Per-chunk counts (columns: the module constants).
    """
    target = params[S.E_TARGET]
    for r in prange(out.shape[0]):
        c = first_chunk + r
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        result = np.zeros(RESULT.RESULT_SIZE, dtype=np.int64)
        row = out[r]
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            rng.seed_stream(state, seed, t, rng.DICE)
            resolve_event(state, params, result)
            row[result[RESULT.R_OUTCOME]] += 1
            if result[RESULT.R_OUTCOME] == OUTCOME.AVOIDED:
                continue
            if params[S.E_EFFECT] == S.EFFECT_DAMAGE:
                row[SUMS.DEFORMATION] += result[RESULT.R_DEFORMATION]
                col, col_sq = SUMS.SUM_HEALTH, SUMS.SUM_HEALTH_SQ
                if target == S.TARGET_RADIATION:
                    col, col_sq = SUMS.SUM_RADIATION, SUMS.SUM_RADIATION_SQ
                elif target == S.TARGET_WILLPOWER:
                    col, col_sq = SUMS.SUM_PSI, SUMS.SUM_PSI_SQ
                lost = result[RESULT.R_LOST]
                row[col] += lost
                row[col_sq] += lost * lost
                row[SUMS.DESTROYED] += result[RESULT.R_DESTROYED]
                row[SUMS.SUM_ART_USES] += result[RESULT.R_ART_USES]
                row[SUMS.SUM_SIDE_EFFECTS] += result[RESULT.R_SIDE_EFFECTS]
                row[SUMS.SUM_SIDE_POINTS] += (result[RESULT.R_SIDE_HEALTH]
                                         + result[RESULT.R_SIDE_RADIATION]
                                         + result[RESULT.R_SIDE_WILLPOWER])
            row[SUMS.SUM_DAYS] += result[RESULT.R_DAYS]
            row[SUMS.SUM_DAYS_SQ] += result[RESULT.R_DAYS] * result[RESULT.R_DAYS]
            row[SUMS.SUM_TOKENS] += result[RESULT.R_TOKENS]
            row[SUMS.SUM_TOKENS_SQ] += result[RESULT.R_TOKENS] * result[RESULT.R_TOKENS]
