"""Kernels run on the runner's thread pool (``pool_kernel``, issue 13).

A pool kernel's chunks run as separate tasks on ``threads`` threads; like a
``prange`` kernel's, its results may not depend on the thread count, the
chunk size or the batching (same seed -> bit-identical results), and a
failing task stops the run (Ctrl-C is such a failure, raised in the caller).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from sim import runner
from sim.jitting.options import pool_kernel


def _toy(seed, n_trials, chunk_size, first_chunk, out):
    """A kernel with the runner's convention: chunk ``c`` counts its trials and sums them."""
    for r in range(out.shape[0]):
        c = first_chunk + r
        trials = np.arange(c * chunk_size, min((c + 1) * chunk_size, n_trials))
        out[r, 0] += trials.size
        out[r, 1] += int(((trials * 2654435761 + seed) % 1000).sum())


pool_kernel(_toy)


@pytest.mark.parametrize("threads, chunk_size", [(1, None), (2, 7), (3, 1000), (4, 1)])
def test_pool_kernel_results_do_not_depend_on_threads_or_chunks(threads, chunk_size):
    expected = runner.run_counts(_toy, 5, 10_007, (2,), threads=1, chunk_size=10_007)
    got = runner.run_counts(_toy, 5, 10_007, (2,), threads=threads, chunk_size=chunk_size)
    assert np.array_equal(got, expected)
    assert got[0] == 10_007


def test_a_failing_task_cancels_the_rest_and_is_raised():
    ran = []

    def task(i):
        if i == 0:
            raise KeyboardInterrupt
        time.sleep(0.01)
        ran.append(i)

    with ThreadPoolExecutor(1) as pool, pytest.raises(KeyboardInterrupt):
        runner.run_tasks(pool, task, 50)
    assert len(ran) < 49


def test_without_a_pool_tasks_run_here_in_order():
    seen = []
    runner.run_tasks(None, seen.append, 5)
    assert seen == [0, 1, 2, 3, 4]
    with runner.thread_pool(1) as pool:
        assert pool is None


def test_the_pool_is_kept_for_the_process():
    """A report runs the campaign kernel thousands of times: each run started two threads
    and stopped them again, more than many runs' own time (issue 45, item 4)."""
    with runner.thread_pool(2) as first:
        pass
    with runner.thread_pool(2) as again:
        assert again is first is not None
    expected = runner.run_counts(_toy, 5, 10_007, (2,), threads=1, chunk_size=10_007)
    for _ in range(3):  # the kept pool runs every task of every run, as a new one did
        got = runner.run_counts(_toy, 5, 10_007, (2,), threads=2, chunk_size=7)
        assert np.array_equal(got, expected)
