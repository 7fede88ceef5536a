"""Dice-test primitives (scalar, inlined into bigger kernels) and their kernels.

Scalar primitives take a stream state (see :mod:`sim.kernels.rng`) and return
the outcome of one test; the ``*_kernel`` functions run many independent
trials of one primitive in parallel and count outcomes per chunk, for
``zonesim prob`` and for the Monte Carlo vs exact tests. Exact twins live in
:mod:`sim.exact.dice`.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from sim.kernels import rng
from sim.kernels._jit import jit, pjit


@jit
def pool_successes(state, n_dice, success_on):
    """Roll a pool of ``n_dice`` d6 and count successes (P-19, P-31, P-32).

    A die succeeds when it shows ``success_on`` or more (the ruleset's
    ``dice.success_on``). A pool of zero or fewer dice rolls nothing.
    """
    return rng.count_at_least(state, n_dice, success_on)


@jit
def pool_test(state, n_dice, success_on, need):
    """Pass/fail of a pool test: at least ``need`` successes (P-16, P-19, P-31, P-32).

    ``need <= 0`` passes and a pool smaller than ``need`` fails without
    rolling. Dice are rolled one at a time and rolling stops as soon as the
    result is settled (enough successes, or too few dice left): the pass
    probability is that of the full pool, and fewer random numbers are drawn.
    """
    if need <= 0:
        return True
    hits = 0
    left = n_dice
    while hits + left >= need:
        if hits >= need:
            return True
        left -= 1
        if rng.d6(state) >= success_on:
            hits += 1
    return False


@jit
def armor_absorb(state, wounds, resist, durability, tokens):
    """Roll the armour against ``wounds`` incoming wounds (P-02..P-06).

    Parameters
    ----------
    state : ndarray of uint64
        Stream state.
    wounds : int
        Incoming wounds (or radiation doses) of one damage type.
    resist : int
        Die face that absorbs (2..6); 0 means no protection against the type.
    durability : int
        Armour durability D.
    tokens : int
        Damage tokens already on the armour, ``0 <= tokens <= D``; ``tokens == D``
        means the armour is destroyed (or none is worn).

    Returns
    -------
    tuple of int
        ``(wounds_through, tokens_after)``. All ``wounds`` dice are rolled even
        when fewer tokens fit (P-06); absorbed = min(successes, D - tokens).
    """
    if wounds <= 0:
        return 0, tokens
    if resist <= 0 or tokens >= durability:
        return wounds, tokens
    room = durability - tokens
    absorbed = 0
    for _ in range(wounds):
        # Successes beyond the remaining durability absorb nothing (P-06), so
        # rolling stops once the armour is full.
        if absorbed == room:
            break
        if rng.d6(state) >= resist:
            absorbed += 1
    return wounds - absorbed, tokens + absorbed


@jit
def d6_at_least(state, target):
    """One d6 roll-over: pass on a face ``>= target`` (Z-09, Z-16).

    A target of 1 or less always passes and a target above 6 never does; the
    die is rolled either way so that the stream position does not depend on
    the target.
    """
    return rng.d6(state) >= target


@jit
def reaction_passes(state, skill, n_dice, cap):
    """Reaction test (S-11, S-15): dice passed (face <= Skill) among ``n_dice``, capped."""
    passed = rng.count_at_most(state, n_dice, skill)
    return passed if passed < cap else cap


@pjit
def pool_kernel(seed, n_trials, chunk_size, n_dice, success_on, out):
    """Histogram of pool successes; ``out`` has shape (n_chunks, n_dice + 1)."""
    for c in prange(out.shape[0]):
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        start = c * chunk_size
        stop = min(start + chunk_size, n_trials)
        for t in range(start, stop):
            rng.seed_stream(state, seed, t, rng.DICE)
            out[c, pool_successes(state, n_dice, success_on)] += 1


@pjit
def armor_kernel(seed, n_trials, chunk_size, wounds, resist, durability, tokens, out):
    """Histogram of wounds through (0..W) plus destruction count in column W + 1."""
    for c in prange(out.shape[0]):
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        start = c * chunk_size
        stop = min(start + chunk_size, n_trials)
        for t in range(start, stop):
            rng.seed_stream(state, seed, t, rng.DICE)
            through, after = armor_absorb(state, wounds, resist, durability, tokens)
            out[c, through] += 1
            if after >= durability and tokens < durability and resist > 0:
                out[c, wounds + 1] += 1


@pjit
def threshold_kernel(seed, n_trials, chunk_size, target, automatic, out):
    """Count of d6 >= ``target`` passes (event avoidance, escape); ``out`` (n_chunks, 1).

    ``automatic`` (the Torsion scanner, Z-09) passes without a roll.
    """
    for c in prange(out.shape[0]):
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        start = c * chunk_size
        stop = min(start + chunk_size, n_trials)
        for t in range(start, stop):
            if automatic:
                out[c, 0] += 1
                continue
            rng.seed_stream(state, seed, t, rng.DICE)
            if d6_at_least(state, target):
                out[c, 0] += 1


@pjit
def reaction_kernel(seed, n_trials, chunk_size, skill, n_dice, cap, out):
    """Histogram of reaction-test results 0..cap; ``out`` (n_chunks, cap + 1)."""
    for c in prange(out.shape[0]):
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        start = c * chunk_size
        stop = min(start + chunk_size, n_trials)
        for t in range(start, stop):
            rng.seed_stream(state, seed, t, rng.DICE)
            out[c, reaction_passes(state, skill, n_dice, cap)] += 1
