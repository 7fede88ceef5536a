"""Event kernel (Z-08..Z-10): many independent draws of one event card, counts per chunk.

One trial: the avoidance roll (one d6 >= ``avoid_target``; none when the card
has no roll; the Torsion scanner avoids without one, Z-09), then, if the
event happens, its effect: damage through the armour to Health, radiation or
Willpower (:func:`sim.kernels.anomaly.take_damage`), days lost or Emission
tokens. Exact twin: :mod:`sim.exact.event`. All dice come from the trial's
DICE stream.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from sim.encounter import spec as S
from sim.kernels import rng
from sim.kernels._jit import pjit
from sim.kernels.anomaly import take_damage
from sim.kernels.dice import d6_at_least

# Columns of ``out``: outcomes first (mutually exclusive), then counts and sums.
AVOIDED = 0
HAPPENED = 1       # the event took place and the stalker is still conscious
KNOCKED_OUT = 2
N_OUTCOMES = 3
DEFORMATION = 3
SUM_HEALTH = 4
SUM_HEALTH_SQ = 5
SUM_RADIATION = 6
SUM_RADIATION_SQ = 7
SUM_PSI = 8
SUM_PSI_SQ = 9
SUM_DAYS = 10
SUM_DAYS_SQ = 11
SUM_TOKENS = 12
SUM_TOKENS_SQ = 13
DESTROYED = 14
WIDTH = 15


@pjit
def event_kernel(seed, n_trials, chunk_size, params, out):
    """Run ``n_trials`` draws of one event; ``out`` has shape (n_chunks, WIDTH).

    Parameters
    ----------
    params : ndarray of int64, shape (E_SIZE,)
        From :meth:`sim.encounter.spec.EventSpec.pack`.
    out : ndarray of int64, shape (n_chunks, WIDTH)
        Per-chunk counts (columns: the module constants).
    """
    effect = params[S.E_EFFECT]
    value = params[S.E_VALUE]
    target = params[S.E_TARGET]
    durability = params[S.E_DURABILITY]
    start_tokens = params[S.E_TOKENS]
    for c in prange(out.shape[0]):
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        row = out[c]
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            rng.seed_stream(state, seed, t, rng.DICE)
            if params[S.E_ROLLS] != 0:
                if params[S.E_AUTOMATIC] != 0 or d6_at_least(state, params[S.E_AVOID_TARGET]):
                    row[AVOIDED] += 1
                    continue
            if effect == S.EFFECT_DAMAGE:
                through, after, knocked_out, deformation = take_damage(
                    state, value, target, params[S.E_RESIST], durability, start_tokens,
                    params[S.E_HEALTH], params[S.E_RADIATION], params[S.E_RADIATION_MAX],
                    params[S.E_WILLPOWER])
                row[KNOCKED_OUT if knocked_out else HAPPENED] += 1
                row[DEFORMATION] += deformation
                col = SUM_HEALTH
                if target == S.TARGET_RADIATION:
                    col = SUM_RADIATION
                elif target == S.TARGET_WILLPOWER:
                    col = SUM_PSI
                row[col] += through
                row[col + 1] += through * through
                if durability > 0 and start_tokens < durability and after >= durability:
                    row[DESTROYED] += 1
            else:
                row[HAPPENED] += 1
                if effect == S.EFFECT_LOST_DAY:
                    row[SUM_DAYS] += value
                    row[SUM_DAYS_SQ] += value * value
                elif effect == S.EFFECT_EMISSION_TOKENS:
                    row[SUM_TOKENS] += value
                    row[SUM_TOKENS_SQ] += value * value
