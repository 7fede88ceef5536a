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
and memory stays ``n_chunks * V * 4 * M`` whatever the number of trials. An
``out`` with more rows than these four (``N_SUMS + CARD_ROWS * K``) also gets
each card's own metrics, unweighted (issue 45, item 4: a per-card table reads
the deck's trials instead of playing the deck again)::

    out[r, v, N_SUMS + CARD_ROWS * k + CARD_SUM, m]    += metric_m(v, k)
    out[r, v, N_SUMS + CARD_ROWS * k + CARD_SUM_SQ, m] += metric_m(v, k) ** 2

A card's metrics are those its single-card kernel counts on the same trials
(same streams), so its sums are that kernel's counts. The
float sums are taken in trial order inside a chunk and chunks are summed in
order, so results are bit-identical for any thread count (chunking is planned
from the trial count only, :mod:`sim.kernels.chunks`).

The one-trial logic is the scalar functions of the single-variant kernels
(:func:`sim.kernels.combat.fight`, :func:`sim.kernels.anomaly.encounter`,
:func:`sim.kernels.event.resolve_event`): each rule is written once.
"""

from __future__ import annotations

import inspect

import numpy as np
from numba import prange

from sim.jitting.options import jit, pjit
from sim.kernels import anomaly as _anomaly
from sim.kernels import combat as _combat
from sim.kernels import event as _event
from sim.kernels import layout as S
from sim.kernels import rng
from sim.kernels.anomaly import encounter
from sim.kernels.combat import fight
from sim.kernels.dice import destroyed
from sim.kernels.event import resolve_event
from sim.kernels.records import Record

# Aggregate rows of ``out[c, v]`` (the module docstring's sums).
AGGREGATE = Record("paired aggregate rows", "N_SUMS", ("SUM", "SUM_SQ", "DIFF", "DIFF_SQ"))
globals().update(AGGREGATE.constants)
# Each card's own rows after them, where ``out`` has room (the module docstring).
CARD = Record("paired per-card rows", "CARD_ROWS", ("CARD_SUM", "CARD_SUM_SQ"))
globals().update(CARD.constants)

# The metric columns (the last axis of ``out``) of each kernel: the per-trial indicators of
# the encounter's outcomes first, in the columns its kernel counts them in (combat.OUTCOME,
# anomaly.OUTCOME, event.OUTCOME), then its own metrics.
COMBAT_METRIC = Record("paired combat metrics after the outcomes", "N_COMBAT_METRICS", (
    "C_WOUNDS",
    "C_ROUNDS",
    "C_DESTROYED",   # the armour destroyed (P-05)
    "C_STIMULANTS",
    "C_SPENT",       # limited-use weapon uses spent
), start=_combat.N_OUTCOMES)
globals().update(COMBAT_METRIC.constants)

ANOMALY_METRIC = Record("paired anomaly metrics after the outcomes", "N_ANOMALY_METRICS", (
    "A_ARTIFACT",     # an artefact found (P-35)
    "A_TROPHY",       # the anomaly's card kept (P-34)
    "A_DEFORMATION",  # a deformation (P-39)
    "A_PERCEIVED",    # the Perception test passed (P-31)
    "A_LOSS",         # points lost after the artefacts and armour
    "A_DESTROYED",    # the armour destroyed (P-05)
), start=_anomaly.N_OUTCOMES)
globals().update(ANOMALY_METRIC.constants)

EVENT_METRIC = Record("paired event metrics after the outcomes", "N_EVENT_METRICS", (
    "E_DEFORMATION",  # a deformation (P-39)
    "E_HEALTH",       # points lost on the card's track, by track
    "E_RADIATION",
    "E_PSI",
    "E_DAYS",         # days lost
    "E_TOKENS",       # Emission tokens
    "E_DESTROYED",    # the armour destroyed (P-05)
), start=_event.N_OUTCOMES)
globals().update(EVENT_METRIC.constants)


@jit
def accumulate(row, x):
    """Add one trial's metrics ``x`` (V, M) to a chunk's sums ``row`` (V, N_SUMS, M)."""
    for v in range(x.shape[0]):
        for m in range(x.shape[1]):
            a = x[v, m]
            row[v, AGGREGATE.SUM, m] += a
            row[v, AGGREGATE.SUM_SQ, m] += a * a
            if v > 0:
                d = a - x[0, m]
                row[v, AGGREGATE.DIFF, m] += d
                row[v, AGGREGATE.DIFF_SQ, m] += d * d


@jit
def add_card(row, x, y, v, k, w, per_card):
    """Add card ``k``'s metrics ``y[v]`` to the trial's ``x[v]`` at its weight ``w`` and,
    with ``per_card``, unweighted to the card's own rows of ``row``.

    ``x[v, m] += w * y[v, m]`` is what the trial added before it wrote into ``y``: each
    metric takes at most one term per card, and ``w * 0.0`` adds nothing.
    """
    for m in range(x.shape[1]):
        a = y[v, m]
        x[v, m] += w * a
        if per_card:
            base = AGGREGATE.N_SUMS + CARD.CARD_ROWS * k
            row[v, base + CARD.CARD_SUM, m] += a
            row[v, base + CARD.CARD_SUM_SQ, m] += a * a


def _paired_loop(seed, n_trials, chunk_size, first_chunk, *inputs, weights, out):
    """The one paired trial loop (the module docstring's); :func:`paired_kernel` makes each
    paired kernel of it.
    """
    n_var, n_cards = weights.shape
    per_card = out.shape[2] > AGGREGATE.N_SUMS
    for r in prange(out.shape[0]):
        c = first_chunk + r
        dice = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        (*work_arrays,) = work(*inputs)  # noqa: F821 (each kernel's own global, paired_kernel)
        x = np.zeros((n_var, out.shape[3]), dtype=np.float64)
        y = np.zeros((n_var, out.shape[3]), dtype=np.float64)  # one card's, unweighted
        row = out[r]
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            x[:, :] = 0.0
            for v in range(n_var):
                for k in range(n_cards):
                    w = weights[v, k]
                    if w == 0.0:
                        continue
                    rng.seed_stream(dice, seed, t, rng.DICE)
                    y[v, :] = 0.0
                    trial(dice, seed, t, v, k, 1.0, y, *work_arrays, *inputs)  # noqa: F821
                    add_card(row, x, y, v, k, w, per_card)
            accumulate(row, x)


FIXED = ("dice", "seed", "t", "v", "k", "w", "x")
"""The arguments every ``trial`` of :func:`paired_kernel` starts with."""


def paired_kernel(name, work, trial):
    """The paired kernel of one encounter: the one paired trial loop, around its ``trial``.

    The loop (:func:`_paired_loop`) is the module docstring's: chunks in
    ``prange``, every trial index ``t`` of a chunk, every variant ``v`` and card
    ``k`` of weight ``w > 0``, the DICE stream of (seed, t) seeded before each,
    the card played at weight 1 into a scratch row and added by :func:`add_card`,
    then :func:`accumulate`. The kernel is ``name(seed, n_trials, chunk_size,
    first_chunk, *inputs, weights, out)``, with ``inputs`` named as ``work``'s
    arguments, ``weights`` (V, K) and ``out`` (n_chunks, V, N_SUMS, M) last, as
    :func:`sim.runner.run_counts` passes them.

    Each kernel is the loop's source with the starred ``inputs`` and
    ``work_arrays`` written out as the names of ``work`` and ``trial``
    (compiled at the loop's own lines of this file, so numba caches it against
    this file and reports its lines), and ``work`` and ``trial`` as globals of
    its own. Named arrays, not tuples: an array taken out of a tuple for every
    card costs numba a reference count each time, 15 to 20 % of a paired run
    (measured on the event, anomaly and combat decks). Not a closure: numba
    caches a closure by pickling what it closes over, and the jitted functions
    a trial calls refer to records (:class:`sim.kernels.records.Record`),
    which do not pickle. ``trial`` is inlined into the loop, as the code of
    the three kernels was before they shared it.

    Parameters
    ----------
    name : str
        The kernel's name (its cache files, compile notices,
        :data:`sim.runner.COMPILE_SECONDS`).
    work : jitted function
        ``work(*inputs)``: the tuple of work arrays of one chunk, made once per
        chunk (one fight's or encounter's result, its scratch).
    trial : jitted function, inlined
        ``trial(dice, seed, t, v, k, w, x, *work_arrays, *inputs)``: play card
        ``k`` of variant ``v`` with the DICE stream ``dice`` (other streams of
        (seed, t) are its own to seed) and add ``w`` times its metrics to ``x``
        (V, M).
    """
    inputs = inspect.getfullargspec(work.py_func).args
    names = inspect.getfullargspec(trial.py_func).args
    work_arrays = names[len(FIXED):len(names) - len(inputs)]
    if tuple(names[:len(FIXED)]) != FIXED or names[len(FIXED) + len(work_arrays):] != inputs:
        raise TypeError(f"{name}: trial{tuple(names)} is not trial{FIXED} + work arrays"
                        f" + work's inputs {tuple(inputs)}")
    lines, first = inspect.getsourcelines(_paired_loop)
    source = ("".join(lines).replace("def _paired_loop(", f"def {name}(", 1)
              .replace("*work_arrays", ", ".join(work_arrays))
              .replace("*inputs", ", ".join(inputs)))
    namespace = {**globals(), "work": work, "trial": trial}
    exec(compile("\n" * (first - 1) + source, __file__, "exec"), namespace)
    return pjit(namespace[name])


@jit
def _combat_work(params, n_stims, stimulants, uses0, bonus, spend, plans):
    """A chunk's limited-weapon uses and fight result."""
    return (np.zeros(uses0.shape[2], dtype=np.int64),
            np.zeros(_combat.RESULT_SIZE, dtype=np.int64))


@jit(inline="always")
def _combat_trial(dice, seed, t, v, k, w, x, uses, result, params, n_stims, stimulants, uses0,
                  bonus, spend, plans):
    """One fight (:func:`sim.kernels.combat.fight`) and its metrics."""
    p = params[v, k]
    fight(dice, p, stimulants[v, k, :n_stims[v, k] + 1], uses0[v, k], uses, bonus[v, k],
          spend[v, k], plans, result)
    x[v, result[_combat.R_OUTCOME]] += w
    x[v, COMBAT_METRIC.C_WOUNDS] += w * result[_combat.R_WOUNDS]
    x[v, COMBAT_METRIC.C_ROUNDS] += w * result[_combat.R_ROUNDS]
    if destroyed(p[S.P_DURABILITY], p[S.P_TOKENS], result[_combat.R_TOKENS]):
        x[v, COMBAT_METRIC.C_DESTROYED] += w
    x[v, COMBAT_METRIC.C_STIMULANTS] += w * result[_combat.R_STIMULANTS]
    x[v, COMBAT_METRIC.C_SPENT] += w * result[_combat.R_SPENT]


paired_combat_kernel = paired_kernel("paired_combat_kernel", _combat_work, _combat_trial)
"""``paired_combat_kernel(seed, n_trials, chunk_size, first_chunk, params, n_stims, stimulants,
uses0, bonus, spend, plans, weights, out)``: fights of V variants x K cards on common random
numbers.

``params`` (V, K, P_SIZE): :meth:`~sim.encounter.spec.CombatSpec.pack` per variant and card;
``n_stims`` (V, K) stimulant doses; ``stimulants`` (V, K, S + 1) the doses, zero-padded (the
first ``n_stims + 1`` entries are read); ``uses0`` (V, K, L + 1) uses of each limited weapon,
zero-padded; ``bonus``, ``spend`` (V, K, 2, 2**L) the loadout tables, zero-padded (a variant
reads only its own masks); ``plans`` the plans of the fights played by one (``params[v, k,
P_PLAN]``: 1 + where each starts), one after another, :data:`~sim.kernels.combat.NO_PLAN` when
none is; ``weights`` (V, K) card weights, 0 skips the card; ``out`` (n_chunks, V, N_SUMS,
N_COMBAT_METRICS) per-chunk sums (see the module docstring).
"""


@jit
def _anomaly_work(params, deck):
    """A chunk's DECK stream, artefact-search scratch and encounter result."""
    return (np.zeros(rng.STATE_SIZE, dtype=np.uint64), np.zeros(deck.shape[2], dtype=np.int64),
            np.zeros(_anomaly.SHORT_RESULT, dtype=np.int64))


@jit(inline="always")
def _anomaly_trial(dice, seed, t, v, k, w, x, deck_state, scratch, result, params, deck):
    """One anomaly encounter (:func:`sim.kernels.anomaly.encounter`, its DECK stream of
    (seed, t)) and its metrics.
    """
    p = params[v, k]
    rng.seed_stream(deck_state, seed, t, rng.DECK)
    encounter(dice, deck_state, p, deck[v, k], scratch, result)
    outcome = result[_anomaly.R_OUTCOME]
    x[v, outcome] += w
    x[v, ANOMALY_METRIC.A_ARTIFACT] += w * result[_anomaly.R_FOUND]
    if _anomaly.keeps_trophy(outcome):  # P-34
        x[v, ANOMALY_METRIC.A_TROPHY] += w
    x[v, ANOMALY_METRIC.A_DEFORMATION] += w * result[_anomaly.R_DEFORMATION]
    x[v, ANOMALY_METRIC.A_PERCEIVED] += w * result[_anomaly.R_PERCEIVED]
    x[v, ANOMALY_METRIC.A_LOSS] += w * result[_anomaly.R_LOST]
    if destroyed(p[S.A_DURABILITY], p[S.A_TOKENS], result[_anomaly.R_TOKENS]):
        x[v, ANOMALY_METRIC.A_DESTROYED] += w


paired_anomaly_kernel = paired_kernel("paired_anomaly_kernel", _anomaly_work, _anomaly_trial)
"""``paired_anomaly_kernel(seed, n_trials, chunk_size, first_chunk, params, deck, weights,
out)``: anomaly encounters of V variants x K cards on common random numbers.

``params`` (V, K, A_SIZE): :meth:`~sim.encounter.spec.AnomalySpec.pack` per variant and card;
``deck`` (V, K, n_types) artefact cards per type, zero-padded; ``weights`` (V, K) card
weights, 0 skips the card; ``out`` (n_chunks, V, N_SUMS, N_ANOMALY_METRICS) per-chunk sums.
"""


@jit
def _event_work(params):
    """A chunk's event result."""
    return (np.zeros(_event.RESULT_SIZE, dtype=np.int64),)


@jit(inline="always")
def _event_trial(dice, seed, t, v, k, w, x, result, params):
    """One event draw (:func:`sim.kernels.event.resolve_event`) and its metrics."""
    p = params[v, k]
    resolve_event(dice, p, result)
    x[v, result[_event.R_OUTCOME]] += w
    target = p[S.E_TARGET]
    col = EVENT_METRIC.E_HEALTH
    if target == S.TARGET_RADIATION:
        col = EVENT_METRIC.E_RADIATION
    elif target == S.TARGET_WILLPOWER:
        col = EVENT_METRIC.E_PSI
    x[v, col] += w * result[_event.R_LOST]
    x[v, EVENT_METRIC.E_DEFORMATION] += w * result[_event.R_DEFORMATION]
    x[v, EVENT_METRIC.E_DESTROYED] += w * result[_event.R_DESTROYED]
    x[v, EVENT_METRIC.E_DAYS] += w * result[_event.R_DAYS]
    x[v, EVENT_METRIC.E_TOKENS] += w * result[_event.R_TOKENS]


paired_event_kernel = paired_kernel("paired_event_kernel", _event_work, _event_trial)
"""``paired_event_kernel(seed, n_trials, chunk_size, first_chunk, params, weights, out)``:
event draws of V variants x K cards on common random numbers.

``params`` (V, K, E_SIZE): :meth:`~sim.encounter.spec.EventSpec.pack` per variant and card;
``weights`` (V, K) card weights, 0 skips the card; ``out`` (n_chunks, V, N_SUMS,
N_EVENT_METRICS) per-chunk sums.
"""
