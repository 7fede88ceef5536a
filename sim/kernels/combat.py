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

from sim.kernels import layout as S
from sim.kernels import rng
from sim.kernels._jit import jit, pjit
from sim.kernels.dice import armor_absorb, d6_at_least, pool_test

AVOIDED = 0
KILLED = 1
FLED = 2
KNOCKED_OUT = 3
CAPPED = 4
N_OUTCOMES = 5
SUM_WOUNDS = 5
SUM_WOUNDS_SQ = 6
SUM_ROUNDS = 7
SUM_ROUNDS_SQ = 8
DESTROYED = 9
SUM_STIMULANTS = 10
SUM_SPENT = 11
RESULT_SIZE = 7  # length of the result buffer of fight()
TOKENS = 12  # histogram of tokens at the end: columns TOKENS .. TOKENS + durability


def width(durability: int) -> int:
    """Number of aggregate columns for an armour of ``durability``."""
    return TOKENS + max(durability, 0) + 1


@jit(inline="always")
def fight(state, params, stimulants, uses0, uses, bonus, spend, result):
    """Resolve one fight; fills ``result`` = (outcome, wounds, rounds, tokens, stims, spent,
    health at the end).

    The procedure follows P-16 (avoid by Stealth) or Z-15..Z-17 (by Reputation),
    P-18..P-21 (rounds, stalker first, flee from round 2), P-23/P-29 (loadout
    per round via the precomputed ``bonus``/``spend`` tables), P-02..P-05
    (armour tokens persist through the fight) and Z-12..Z-14 (stimulants in
    combat, capped at maximum Health).
    """
    health_max = params[S.P_HEALTH]
    success_on = params[S.P_SUCCESS_ON]
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
    taken = 0
    stims = 0
    for j in range(n_limited):
        uses[j] = uses0[j]
    outcome = CAPPED
    rounds = 0
    avoided = False
    if params[S.P_SNEAK] != 0:
        if params[S.P_AVOID_RULE] == S.AVOID_STEALTH:
            avoided = pool_test(state, stealth, stealth_on, vigilance)
        else:
            avoided = d6_at_least(state, params[S.P_ESCAPE_TARGET])
    if avoided:
        outcome = AVOIDED
    else:
        for rnd in range(1, params[S.P_MAX_ROUNDS] + 1):
            rounds = rnd
            while stims < n_stims and health <= heal_at and health < health_max:
                health = min(health_max, health + stimulants[stims])
                stims += 1
            if rnd >= 2 and flee_at > 0 and health <= flee_at:
                if pool_test(state, stealth, stealth_on, vigilance):
                    outcome = FLED
                    break
            else:
                phase = 0 if rnd == 1 else 1
                mask = 0
                for j in range(n_limited):
                    if uses[j] > 0:
                        mask |= 1 << j
                used = spend[phase, mask]
                for j in range(n_limited):
                    if used >> j & 1:
                        uses[j] -= 1
                pool = params[S.P_COMBAT] + bonus[phase, mask]
                if pool_test(state, pool, success_on, params[S.P_ENDURANCE]):
                    outcome = KILLED
                    break
            through, tokens = armor_absorb(state, wounds, resist, durability, tokens)
            taken += through
            health -= through
            if health <= 0:
                outcome = KNOCKED_OUT
                break
    spent = 0
    for j in range(n_limited):
        spent += uses0[j] - uses[j]
    result[0] = outcome
    result[1] = taken
    result[2] = rounds
    result[3] = tokens
    result[4] = stims
    result[5] = spent
    result[6] = health


@pjit
def combat_kernel(seed, n_trials, chunk_size, first_chunk, params, stimulants, uses0, bonus,
                  spend, out):
    """Run ``n_trials`` fights; ``out`` has shape (n_chunks, width(durability))."""
    durability = params[S.P_DURABILITY]
    start_tokens = params[S.P_TOKENS]
    for r in prange(out.shape[0]):
        c = first_chunk + r
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        uses = np.zeros(uses0.shape[0], dtype=np.int64)
        result = np.zeros(RESULT_SIZE, dtype=np.int64)
        row = out[r]
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            rng.seed_stream(state, seed, t, rng.DICE)
            fight(state, params, stimulants, uses0, uses, bonus, spend, result)
            row[result[0]] += 1
            row[SUM_WOUNDS] += result[1]
            row[SUM_WOUNDS_SQ] += result[1] * result[1]
            row[SUM_ROUNDS] += result[2]
            row[SUM_ROUNDS_SQ] += result[2] * result[2]
            if durability > 0 and result[3] >= durability and start_tokens < durability:
                row[DESTROYED] += 1
            row[SUM_STIMULANTS] += result[4]
            row[SUM_SPENT] += result[5]
            row[TOKENS + result[3]] += 1
