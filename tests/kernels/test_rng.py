"""Counter-based streams: fair dice, independence of purposes, reproducibility."""

from __future__ import annotations

import numpy as np
import pytest
from numba import prange

from sim import runner
from sim.jitting.options import jit, pjit
from sim.kernels import rng
from tests.conftest import MC_TRIALS, assert_matches_exact


@pjit
def _face_kernel(seed, n_trials, chunk_size, first_chunk, purpose, out):
    for r in prange(out.shape[0]):
        c = first_chunk + r
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            rng.seed_stream(state, seed, t, purpose)
            out[r, rng.d6(state) - 1] += 1
            out[r, 6 + rng.below(state, 5)] += 1


@jit
def _first_draws(seed, trial, purpose, n):
    state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
    rng.seed_stream(state, seed, trial, purpose)
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        out[i] = rng.next_u64(state)
    return out


def test_d6_faces_and_below_are_uniform():
    counts = runner.run_counts(_face_kernel, 7, MC_TRIALS, (11,), rng.DICE)
    assert_matches_exact(counts[:6], MC_TRIALS, [1 / 6] * 6, labels=[1, 2, 3, 4, 5, 6])
    assert_matches_exact(counts[6:], MC_TRIALS, [1 / 5] * 5)


def test_two_consecutive_dice_are_independent():
    # 36 pairs of (first die, second die) must each have probability 1/36.
    @jit
    def pairs(seed, n):
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        out = np.zeros(36, dtype=np.int64)
        for t in range(n):
            rng.seed_stream(state, seed, t, rng.DICE)
            a = rng.d6(state)
            b = rng.d6(state)
            out[(a - 1) * 6 + b - 1] += 1
        return out

    assert_matches_exact(pairs(3, MC_TRIALS), MC_TRIALS, [1 / 36] * 36)


def test_streams_differ_by_seed_trial_and_purpose():
    base = _first_draws(1, 10, rng.DICE, 4)
    assert not np.array_equal(base, _first_draws(2, 10, rng.DICE, 4))
    assert not np.array_equal(base, _first_draws(1, 11, rng.DICE, 4))
    assert not np.array_equal(base, _first_draws(1, 10, rng.DECK, 4))
    assert np.array_equal(base, _first_draws(1, 10, rng.DICE, 4))


def test_counts_identical_for_any_threads_and_chunking():
    one = runner.run_counts(_face_kernel, 5, 200_000, (11,), rng.DICE, threads=1)
    two = runner.run_counts(_face_kernel, 5, 200_000, (11,), rng.DICE, threads=2)
    odd = runner.run_counts(_face_kernel, 5, 200_000, (11,), rng.DICE, chunk_size=777)
    assert np.array_equal(one, two)
    assert np.array_equal(one, odd)
    other = runner.run_counts(_face_kernel, 6, 200_000, (11,), rng.DICE, threads=2)
    assert not np.array_equal(one, other)


@pjit
def _below_kernel(seed, n_trials, chunk_size, first_chunk, n, buckets, out):
    for r in prange(out.shape[0]):
        c = first_chunk + r
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        for t in range(c * chunk_size, min((c + 1) * chunk_size, n_trials)):
            rng.seed_stream(state, seed, t, rng.DECK)
            out[r, rng.below(state, n) % buckets] += 1


@pytest.mark.parametrize(("n", "buckets"), [(3, 3), (7, 7), (1000, 10), (2**33 + 2, 2)])
def test_below_is_uniform_on_both_paths(n, buckets):
    # Lemire's method for n < 2**32, rejection with a modulo above; n is a multiple of
    # ``buckets`` in each case, so the buckets are equally likely.
    counts = runner.run_counts(_below_kernel, 13, MC_TRIALS, (buckets,), n, buckets)
    assert_matches_exact(counts, MC_TRIALS, [1 / buckets] * buckets)
