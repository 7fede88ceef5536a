"""Dice-test primitives (scalar, inlined into bigger kernels) and their kernels.

Scalar primitives take a stream state (see :mod:`sim.kernels.rng`) and return
the outcome of one test; the ``*_kernel`` functions run many independent
trials of one primitive in parallel and count outcomes per chunk, for
``zonesim prob`` and for the Monte Carlo vs exact tests. Exact twins live in
:mod:`sim.exact.dice`.
"""

from __future__ import annotations

from math import comb

import numpy as np
from numba import prange

from sim.jitting.options import jit, pjit
from sim.kernels import rng

MAX_TABLE_DICE = 40
"""Largest pool sampled from the tables; bigger pools roll die by die."""

_TWO64 = 1 << 64


def _binomial_tables(max_dice: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact 64-bit thresholds of pool outcomes, by success face and pool size.

    ``cdf[face, n, k] = floor(P(S <= k) * 2**64)`` and
    ``tail[face, n, need] = floor(P(S >= need) * 2**64)``, where ``S`` is the
    number of successes among ``n`` d6 succeeding on ``face`` or more. A draw
    ``x`` uniform on ``0 .. 2**64 - 1`` then gives ``S = min{k : x < cdf[k]}``
    and a pass iff ``x < tail[need]``: each outcome has its exact probability
    up to 2**-64 (integer arithmetic, no floating point).
    """
    cdf = np.zeros((8, max_dice + 1, max_dice + 1), dtype=np.uint64)
    tail = np.zeros((8, max_dice + 1, max_dice + 2), dtype=np.uint64)
    for face in range(8):
        good = min(max(7 - face, 0), 6)
        for n in range(max_dice + 1):
            # Number of the 6**n equally likely rolls with exactly k successes.
            ways = [comb(n, k) * good**k * (6 - good) ** (n - k) for k in range(n + 1)]
            total = 6**n
            below = 0
            for k in range(n + 1):
                below += ways[k]
                cdf[face, n, k] = min(below * _TWO64 // total, _TWO64 - 1)
            above = 0
            for need in range(n, -1, -1):
                above += ways[need]
                tail[face, n, need] = min(above * _TWO64 // total, _TWO64 - 1)
    return cdf, tail


POOL_CDF, POOL_TAIL = _binomial_tables(MAX_TABLE_DICE)


@jit
def _face(face):
    return min(max(face, 0), 7)


@jit(inline="always")
def pool_successes(state, n_dice, success_on):
    """Successes of a pool of ``n_dice`` d6 (P-19, P-31, P-32), one draw per pool.

    A die succeeds when it shows ``success_on`` or more (``dice.success_on``).
    The count is sampled by inverting its exact distribution with one 64-bit
    draw, which is as exact as rolling the dice (up to 2**-64) and keeps the
    stream aligned between variants that roll different pool sizes (common
    random numbers). Pools above ``MAX_TABLE_DICE`` roll die by die.

    The count is ``min{k : x < cdf[k]}``, taken as the number of thresholds
    at or below ``x`` (the thresholds rise with ``k``): the same number,
    counted without a branch that depends on the dice (issue 13: a fight
    with armour ran a fifth faster).
    """
    if n_dice <= 0:
        return 0
    if n_dice > MAX_TABLE_DICE:
        return rng.count_at_least(state, n_dice, success_on)
    x = rng.next_u64(state)
    row = POOL_CDF[_face(success_on), n_dice]
    k = 0
    for j in range(n_dice):
        k += x >= row[j]
    return k


@jit
def pool_test(state, n_dice, success_on, need):
    """Pass/fail of a pool test: at least ``need`` successes (P-16, P-19, P-31, P-32).

    ``need <= 0`` passes and a pool smaller than ``need`` fails, both without
    drawing; otherwise one 64-bit draw against the exact pass probability.
    """
    if need <= 0:
        return True
    if n_dice < need:
        return False
    if n_dice > MAX_TABLE_DICE:
        return rng.pool_reaches(state, n_dice, success_on, need)
    return rng.next_u64(state) < POOL_TAIL[_face(success_on), n_dice, need]


@jit(inline="always")
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
        ``(wounds_through, tokens_after)``. All ``wounds`` dice count even
        when fewer tokens fit (P-06); absorbed = min(successes, D - tokens).
    """
    if wounds <= 0:
        return 0, tokens
    if resist <= 0 or tokens >= durability:
        return wounds, tokens
    hits = pool_successes(state, wounds, resist)
    room = durability - tokens
    absorbed = hits if hits < room else room
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
def pool_kernel(seed, n_trials, chunk_size, first_chunk, n_dice, success_on, out):
    """Histogram of pool successes; ``out`` has shape (n_chunks, n_dice + 1)."""
    for r in prange(out.shape[0]):
        c = first_chunk + r
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        start = c * chunk_size
        stop = min(start + chunk_size, n_trials)
        for t in range(start, stop):
            rng.seed_stream(state, seed, t, rng.DICE)
            out[r, pool_successes(state, n_dice, success_on)] += 1


@pjit
def armor_kernel(seed, n_trials, chunk_size, first_chunk, wounds, resist, durability, tokens, out):
    """Histogram of wounds through (0..W) plus destruction count in column W + 1."""
    for r in prange(out.shape[0]):
        c = first_chunk + r
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        start = c * chunk_size
        stop = min(start + chunk_size, n_trials)
        for t in range(start, stop):
            rng.seed_stream(state, seed, t, rng.DICE)
            through, after = armor_absorb(state, wounds, resist, durability, tokens)
            out[r, through] += 1
            if resist > 0 and destroyed(durability, tokens, after):
                out[r, wounds + 1] += 1


@jit(inline="always")
def intact(durability, tokens):
    """Whether the armour worn is still whole with ``tokens`` damage tokens on it (P-05): it
    has room for another (``tokens < durability``); no armour (durability 0) never is.
    """
    return tokens < durability


@jit(inline="always")
def destroyed(durability, start, end):
    """Whether the armour was destroyed during one encounter (P-05): :func:`intact` at the
    start and not at the end; no armour (durability 0) is never destroyed.
    """
    return intact(durability, start) and not intact(durability, end)


@pjit
def threshold_kernel(seed, n_trials, chunk_size, first_chunk, target, automatic, out):
    """Count of d6 >= ``target`` passes (event avoidance, escape); ``out`` (n_chunks, 1).

    ``automatic`` (the Torsion scanner, Z-09) passes without a roll.
    """
    for r in prange(out.shape[0]):
        c = first_chunk + r
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        start = c * chunk_size
        stop = min(start + chunk_size, n_trials)
        for t in range(start, stop):
            if automatic:
                out[r, 0] += 1
                continue
            rng.seed_stream(state, seed, t, rng.DICE)
            if d6_at_least(state, target):
                out[r, 0] += 1


@pjit
def reaction_kernel(seed, n_trials, chunk_size, first_chunk, skill, n_dice, cap, out):
    """Histogram of reaction-test results 0..cap; ``out`` (n_chunks, cap + 1)."""
    for r in prange(out.shape[0]):
        c = first_chunk + r
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        start = c * chunk_size
        stop = min(start + chunk_size, n_trials)
        for t in range(start, stop):
            rng.seed_stream(state, seed, t, rng.DICE)
            out[r, reaction_passes(state, skill, n_dice, cap)] += 1
