"""Paired kernels: V variants on the same trials, aggregated per chunk (common random numbers).

Each kernel runs, for every trial index ``t``, every variant ``v`` and every
card ``k`` of a deck on the streams of (seed, t, purpose): the stream state
is re-seeded before each (variant, card), so all of them see the same dice
and the same deck draws. The per-trial metric of a variant is the weighted
sum over cards ``x[v, m] = sum_k weights[v, k] * metric_m(v, k)`` (a single
card has weight 1; a deck table uses ``count / total count``, so ``x`` is the
deck average of that trial). The kernels then accumulate, per chunk ``c``
(row ``r = c - first_chunk`` of ``out``)::

    out[r, v, SUM, m]     += x[v, m]
    out[r, v, SUM_SQ, m]  += x[v, m] ** 2
    out[r, v, DIFF, m]    += x[v, m] - x[0, m]          (zero for v = 0)
    out[r, v, DIFF_SQ, m] += (x[v, m] - x[0, m]) ** 2

so a mean and the paired difference to variant 0 both come with an interval,
and memory stays ``n_chunks * V * 4 * M`` whatever the number of trials. The
float sums are taken in trial order inside a chunk and chunks are summed in
order, so results are bit-identical for any thread count (chunking is planned
from the trial count only, :mod:`sim.kernels.chunks`).

The one-trial logic is the scalar functions of the single-variant kernels
(:func:`sim.kernels.combat.fight`, :func:`sim.kernels.anomaly.encounter`,
:func:`sim.kernels.event.resolve_event`): each rule is written once.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from sim.jitting.options import jit, pjit
from sim.kernels import anomaly as _anomaly
from sim.kernels import combat as _combat
from sim.kernels import event as _event
from sim.kernels import layout as S
from sim.kernels import rng
from sim.kernels.anomaly import encounter
from sim.kernels.combat import CAPPED, fight
from sim.kernels.dice import destroyed
from sim.kernels.event import resolve_event

# Aggregate rows of ``out[c, v]``.
SUM = 0
SUM_SQ = 1
DIFF = 2
DIFF_SQ = 3
N_SUMS = 4

# Combat metrics (per-trial values): outcome indicators AVOIDED..CAPPED (the
# column numbers of sim.kernels.combat), then:
C_WOUNDS = CAPPED + 1
C_ROUNDS = C_WOUNDS + 1
C_DESTROYED = C_ROUNDS + 1
C_STIMULANTS = C_DESTROYED + 1
C_SPENT = C_STIMULANTS + 1
COMBAT_METRICS = C_SPENT + 1

# Anomaly metrics: outcome indicators 0..3 (sim.kernels.anomaly), then:
A_ARTIFACT = 4
A_TROPHY = 5
A_DEFORMATION = 6
A_PERCEIVED = 7
A_LOSS = 8
A_DESTROYED = 9
ANOMALY_METRICS = 10

# Event metrics: outcome indicators 0..2 (sim.kernels.event), then:
E_DEFORMATION = 3
E_HEALTH = 4
E_RADIATION = 5
E_PSI = 6
E_DAYS = 7
E_TOKENS = 8
E_DESTROYED = 9
EVENT_METRICS = 10

@jit
def accumulate(row, x):
    """Add one trial's metrics ``x`` (V, M) to a chunk's sums ``row`` (V, N_SUMS, M)."""
    for v in range(x.shape[0]):
        for m in range(x.shape[1]):
            a = x[v, m]
            row[v, SUM, m] += a
            row[v, SUM_SQ, m] += a * a
            if v > 0:
                d = a - x[0, m]
                row[v, DIFF, m] += d
                row[v, DIFF_SQ, m] += d * d


@pjit
def paired_combat_kernel(seed, n_trials, chunk_size, first_chunk, params, n_stims, stimulants,
                         uses0, bonus, spend, plans, weights, out):
    """Run ``n_trials`` fights of V variants x K cards on common random numbers.

    Parameters
    ----------
    params : ndarray of int64, shape (V, K, P_SIZE)
        :meth:`~sim.encounter.spec.CombatSpec.pack` params per variant and card.
    n_stims : ndarray of int64, shape (V, K)
        Stimulant doses per variant and card.
    stimulants : ndarray of int64, shape (V, K, S + 1)
        Doses, zero-padded (only the first ``n_stims + 1`` entries are read).
    uses0 : ndarray of int64, shape (V, K, L + 1)
        Uses of each limited weapon, zero-padded.
    bonus, spend : ndarray of int64, shape (V, K, 2, 2**L)
        Loadout tables, zero-padded (a variant reads only its own masks).
    plans : ndarray of int64
        The plans of the fights played by one (``params[v, k, P_PLAN]``: 1 + where
        each starts), one after another; :data:`~sim.kernels.combat.NO_PLAN` when none is.
    weights : ndarray of float64, shape (V, K)
        Card weights; 0 skips the card.
    out : ndarray of float64, shape (n_chunks, V, N_SUMS, COMBAT_METRICS)
        Per-chunk sums (see the module docstring).
    """
    n_var = params.shape[0]
    n_cards = params.shape[1]
    for r in prange(out.shape[0]):
        c = first_chunk + r
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        uses = np.zeros(uses0.shape[2], dtype=np.int64)
        result = np.zeros(_combat.RESULT_SIZE, dtype=np.int64)
        x = np.zeros((n_var, out.shape[3]), dtype=np.float64)
        row = out[r]
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            x[:, :] = 0.0
            for v in range(n_var):
                for k in range(n_cards):
                    w = weights[v, k]
                    if w == 0.0:
                        continue
                    p = params[v, k]
                    rng.seed_stream(state, seed, t, rng.DICE)
                    fight(state, p, stimulants[v, k, :n_stims[v, k] + 1], uses0[v, k], uses,
                          bonus[v, k], spend[v, k], plans, result)
                    x[v, result[_combat.R_OUTCOME]] += w
                    x[v, C_WOUNDS] += w * result[_combat.R_WOUNDS]
                    x[v, C_ROUNDS] += w * result[_combat.R_ROUNDS]
                    durability = p[S.P_DURABILITY]
                    if destroyed(durability, p[S.P_TOKENS], result[_combat.R_TOKENS]):
                        x[v, C_DESTROYED] += w
                    x[v, C_STIMULANTS] += w * result[_combat.R_STIMULANTS]
                    x[v, C_SPENT] += w * result[_combat.R_SPENT]
            accumulate(row, x)


@pjit
def paired_anomaly_kernel(seed, n_trials, chunk_size, first_chunk, params, deck, weights, out):
    """Run ``n_trials`` anomaly encounters of V variants x K cards on common random numbers.

    Parameters
    ----------
    params : ndarray of int64, shape (V, K, A_SIZE)
        :meth:`~sim.encounter.spec.AnomalySpec.pack` params per variant and card.
    deck : ndarray of int64, shape (V, K, n_types)
        Artefact cards per type, zero-padded.
    weights : ndarray of float64, shape (V, K)
        Card weights; 0 skips the card.
    out : ndarray of float64, shape (n_chunks, V, N_SUMS, ANOMALY_METRICS)
        Per-chunk sums (see the module docstring).
    """
    n_var = params.shape[0]
    n_cards = params.shape[1]
    for r in prange(out.shape[0]):
        c = first_chunk + r
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        deck_state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        scratch = np.zeros(deck.shape[2], dtype=np.int64)
        result = np.zeros(_anomaly.SHORT_RESULT, dtype=np.int64)
        x = np.zeros((n_var, out.shape[3]), dtype=np.float64)
        row = out[r]
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            x[:, :] = 0.0
            for v in range(n_var):
                for k in range(n_cards):
                    w = weights[v, k]
                    if w == 0.0:
                        continue
                    p = params[v, k]
                    rng.seed_stream(state, seed, t, rng.DICE)
                    rng.seed_stream(deck_state, seed, t, rng.DECK)
                    encounter(state, deck_state, p, deck[v, k], scratch, result)
                    outcome = result[_anomaly.R_OUTCOME]
                    x[v, outcome] += w
                    x[v, A_ARTIFACT] += w * result[_anomaly.R_FOUND]
                    if _anomaly.keeps_trophy(outcome):  # P-34
                        x[v, A_TROPHY] += w
                    x[v, A_DEFORMATION] += w * result[_anomaly.R_DEFORMATION]
                    x[v, A_PERCEIVED] += w * result[_anomaly.R_PERCEIVED]
                    x[v, A_LOSS] += w * result[_anomaly.R_LOST]
                    durability = p[S.A_DURABILITY]
                    if destroyed(durability, p[S.A_TOKENS], result[_anomaly.R_TOKENS]):
                        x[v, A_DESTROYED] += w
            accumulate(row, x)


@pjit
def paired_event_kernel(seed, n_trials, chunk_size, first_chunk, params, weights, out):
    """Run ``n_trials`` event draws of V variants x K cards on common random numbers.

    Parameters
    ----------
    params : ndarray of int64, shape (V, K, E_SIZE)
        :meth:`~sim.encounter.spec.EventSpec.pack` params per variant and card.
    weights : ndarray of float64, shape (V, K)
        Card weights; 0 skips the card.
    out : ndarray of float64, shape (n_chunks, V, N_SUMS, EVENT_METRICS)
        Per-chunk sums (see the module docstring).
    """
    n_var = params.shape[0]
    n_cards = params.shape[1]
    for r in prange(out.shape[0]):
        c = first_chunk + r
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        result = np.zeros(_event.RESULT_SIZE, dtype=np.int64)
        x = np.zeros((n_var, out.shape[3]), dtype=np.float64)
        row = out[r]
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            x[:, :] = 0.0
            for v in range(n_var):
                for k in range(n_cards):
                    w = weights[v, k]
                    if w == 0.0:
                        continue
                    p = params[v, k]
                    rng.seed_stream(state, seed, t, rng.DICE)
                    resolve_event(state, p, result)
                    x[v, result[_event.R_OUTCOME]] += w
                    target = p[S.E_TARGET]
                    col = E_HEALTH
                    if target == S.TARGET_RADIATION:
                        col = E_RADIATION
                    elif target == S.TARGET_WILLPOWER:
                        col = E_PSI
                    x[v, col] += w * result[_event.R_LOST]
                    x[v, E_DEFORMATION] += w * result[_event.R_DEFORMATION]
                    x[v, E_DESTROYED] += w * result[_event.R_DESTROYED]
                    x[v, E_DAYS] += w * result[_event.R_DAYS]
                    x[v, E_TOKENS] += w * result[_event.R_TOKENS]
            accumulate(row, x)
