"""Counter-based random streams keyed by (seed, trial index, purpose).

This module is the only entry point for randomness in kernels. A stream is a
SplitMix64 sequence (Steele, Lea and Flood 2014) whose starting point is a hash
of the triple (seed, trial, purpose). Because every trial derives its own
streams from its index, a result never depends on which thread ran the trial
or how trials were split into chunks; because each purpose (dice, deck draws,
policy decisions, ...) has its own stream, changing how many dice one part of a
trial rolls does not reshuffle the decks (common random numbers across
variants).

A stream lives in a small ``uint64`` array of :data:`STATE_SIZE` words:
``state[0]`` is the SplitMix64 counter, ``state[1]`` a buffer of unused random
bytes and ``state[2]`` how many bytes remain in it. Dice are cut from that
byte buffer with rejection (bytes 252..255 are discarded), so every face has
probability exactly 1/6: no modulo bias, eight dice per 64-bit draw.
"""

from __future__ import annotations

import numpy as np

from sim.jitting.options import jit

STATE_SIZE = 3

# Purposes: one independent stream per kind of randomness within a trial.
DICE = 1
DECK = 2
POLICY = 3
EVENTS = 4
ENVIRONMENT = 5
DEFORMATIONS = 6  # the campaign's Deformation deck, shuffled once a game (P-39)
ZONE_CARDS = 7  # the campaign's Zone deck, drawn each Zone phase (P-30, P-47)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)
_TRIAL_MUL = np.uint64(0xD6E8FEB86659FD93)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S8 = np.uint64(8)
_S11 = np.uint64(11)
_BYTE = np.uint64(0xFF)
_ACCEPT = np.uint64(252)
_SIX = np.uint64(6)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_S32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_EIGHT = np.uint64(8)
_INV53 = 1.0 / 9007199254740992.0


@jit
def mix64(z):
    """SplitMix64 output function: a bijective avalanche hash of a ``uint64``."""
    z = np.uint64(z)
    z = (z ^ (z >> _S30)) * _MUL1
    z = (z ^ (z >> _S27)) * _MUL2
    return z ^ (z >> _S31)


@jit
def seed_stream(state, seed, trial, purpose):
    """Point ``state`` at the start of the stream for (seed, trial, purpose).

    Parameters
    ----------
    state : ndarray of uint64, shape (STATE_SIZE,)
        Filled in place.
    seed, trial, purpose : int
        Non-negative integers; ``purpose`` is one of the module constants.
    """
    key = mix64(np.uint64(seed) + _GOLDEN * np.uint64(purpose + 1))
    state[0] = mix64(key ^ mix64(np.uint64(trial) * _TRIAL_MUL + _GOLDEN))
    state[1] = _ZERO
    state[2] = _ZERO


@jit
def next_u64(state):
    """Next 64 uniformly random bits of the stream."""
    state[0] = state[0] + _GOLDEN
    return mix64(state[0])


@jit
def uniform(state):
    """A float uniform on [0, 1) with 53 random bits."""
    return np.float64(next_u64(state) >> _S11) * _INV53


@jit
def below(state, n):
    """An integer uniform on ``0 .. n-1`` without modulo bias (``n >= 1``).

    For ``n < 2**32`` this is Lemire's multiply-and-shift method (2019): a
    32-bit draw times ``n``, keeping the high word, with the rare draws that
    would bias the result rejected, so a division is needed only on the
    rejection path. Larger ``n`` reject draws below ``2**64 mod n``.
    """
    un = np.uint64(n)
    if un <= _MASK32:
        m = (next_u64(state) >> _S32) * un
        low = m & _MASK32
        if low < un:
            threshold = (_TWO32 - un) % un
            while low < threshold:
                m = (next_u64(state) >> _S32) * un
                low = m & _MASK32
        return np.int64(m >> _S32)
    threshold = (_ZERO - un) % un
    while True:
        x = next_u64(state)
        if x >= threshold:
            return np.int64(x % un)


@jit
def _die(counter, buffer, left):
    """One fair d6 from register-held stream words: ``(face, counter, buffer, left)``.

    Kernels that roll many dice in a row (pools, armour) load the state once,
    roll through this function and store it back, so that the stream words
    stay in registers instead of making a round trip to memory per die.
    """
    while True:
        if left == _ZERO:
            counter = counter + _GOLDEN
            buffer = mix64(counter)
            left = _EIGHT
        b = buffer & _BYTE
        buffer = buffer >> _S8
        left = left - _ONE
        if b < _ACCEPT:
            return np.int64(b % _SIX) + 1, counter, buffer, left


@jit
def d6(state):
    """One fair six-sided die, a face in ``1 .. 6`` with probability exactly 1/6."""
    face, state[0], state[1], state[2] = _die(state[0], state[1], state[2])
    return face


@jit
def count_at_least(state, n, face):
    """Roll ``n`` d6 and count the dice showing ``face`` or more (a dice pool)."""
    counter, buffer, left = state[0], state[1], state[2]
    hits = 0
    for _ in range(n):
        die, counter, buffer, left = _die(counter, buffer, left)
        hits += np.int64(die >= face)  # branch-free: the comparison is a coin flip
    state[0], state[1], state[2] = counter, buffer, left
    return hits


@jit
def count_at_most(state, n, face):
    """Roll ``n`` d6 and count the dice showing ``face`` or less (roll-under tests)."""
    counter, buffer, left = state[0], state[1], state[2]
    hits = 0
    for _ in range(n):
        die, counter, buffer, left = _die(counter, buffer, left)
        hits += np.int64(die <= face)
    state[0], state[1], state[2] = counter, buffer, left
    return hits


@jit
def pool_reaches(state, n, face, need):
    """Whether ``n`` d6 give at least ``need`` dice showing ``face`` or more.

    Rolling stops as soon as the answer is settled (enough successes, or too
    few dice left), which draws fewer random numbers without changing the
    probability. ``need <= 0`` passes without rolling.
    """
    if need <= 0:
        return True
    counter, buffer, left = state[0], state[1], state[2]
    hits = 0
    remaining = n
    passed = False
    while hits + remaining >= need:
        if hits >= need:
            passed = True
            break
        remaining -= 1
        die, counter, buffer, left = _die(counter, buffer, left)
        hits += np.int64(die >= face)
    state[0], state[1], state[2] = counter, buffer, left
    return passed


@jit
def count_at_least_capped(state, n, face, cap):
    """Count dice showing ``face`` or more among ``n``, stopping once ``cap`` is reached."""
    counter, buffer, left = state[0], state[1], state[2]
    hits = 0
    for _ in range(n):
        if hits >= cap:
            break
        die, counter, buffer, left = _die(counter, buffer, left)
        hits += np.int64(die >= face)
    state[0], state[1], state[2] = counter, buffer, left
    return hits


def new_state() -> np.ndarray:
    """An empty stream state, for kernels that allocate one per chunk."""
    return np.zeros(STATE_SIZE, dtype=np.uint64)
