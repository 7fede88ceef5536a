"""Orchestration of kernel runs: chunks, threads, seeds, progress and compile notices.

Kernels share one calling convention::

    kernel(seed, n_trials, chunk_size, first_chunk, *params, out)

where ``out`` is an ``int64`` (or ``float64``) array of shape
``(n, ...)`` whose row ``r`` the kernel fills with the aggregates of chunk
``first_chunk + r`` (trials ``c * chunk_size`` up to ``(c + 1) * chunk_size``,
at most ``n_trials``). This module plans the chunks, sets the thread count,
announces a first-time compile on stderr, runs the plan in batches of chunks
and sums the chunk rows. Chunking, batching and thread count never change a
result, because each trial's random streams are keyed by its index, integer
counts add up exactly in any grouping, and float rows (the paired kernels)
are kept one per chunk and summed in chunk order, as in a single call.

Running in batches is what makes long runs observable and stoppable: between
two batches a :class:`Progress` installed with :func:`reporting` hears how
many trials are done, and a pending ``KeyboardInterrupt`` (Ctrl-C) is raised,
since Python delivers signals only between calls into compiled code.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from typing import Protocol

import numba
import numpy as np

from sim import compiling
from sim.kernels import chunks

_announced: set[str] = set()

BATCH_SECONDS = 0.5
"""Kernel time aimed at per batch of chunks: Ctrl-C and progress wait at most about this."""

STOP_CHUNK = 8192
"""Most trials per chunk of an integer kernel: a batch is at least one chunk per thread,
so this bounds the wait for Ctrl-C on slow trials (a whole campaign is milliseconds).
Integer counts add up exactly in any grouping, so the finer plan changes no result."""

FIRST_TRIALS = 131_072
"""Trials in the first batch of a run: milliseconds for a fight, under a second for whole
campaigns, so that a short run needs few batches and a slow one is soon stoppable."""

GROWTH = 8
"""Most a batch may grow over the one before (while the timing is still uncertain)."""

COMPILE_SECONDS = {
    "combat_kernel": 30, "anomaly_kernel": 5, "event_kernel": 2, "paired_combat_kernel": 25,
    "paired_anomaly_kernel": 5, "paired_event_kernel": 15, "campaign_kernel": 25,
    "play_games": 25, "firefight_kernel": 40, "volley_kernel": 5,
    "group_reaction_kernel": 5, "pool_kernel": 2, "armor_kernel": 2, "threshold_kernel": 2,
    "reaction_kernel": 2,
}
"""Rough first-compile time of each kernel, in seconds, measured on two cores at load 1 to 2
(``benchmarks/bench_startup.py --compile`` and a cold run of the kernel alone); only the
compile notice reads it."""


class Progress(Protocol):
    """What a kernel run tells whoever watches it (see :func:`reporting`)."""

    def started(self, trials: int) -> None:
        """A kernel run of ``trials`` trials begins."""

    def advanced(self, trials: int) -> None:
        """``trials`` more trials of the current run are done."""


_progress: ContextVar[Progress | None] = ContextVar("zonesim_progress", default=None)


def started(trials: int) -> None:
    """Tell the watching :class:`Progress`, if any, that a run of ``trials`` trials begins.

    :func:`run_counts` calls it; so does an experiment that drives a kernel
    itself, block by block (the per-game campaign kernel).
    """
    progress = _progress.get()
    if progress is not None:
        progress.started(trials)


def advanced(trials: int) -> None:
    """Tell the watching :class:`Progress`, if any, that ``trials`` more trials are done."""
    progress = _progress.get()
    if progress is not None:
        progress.advanced(trials)


@contextmanager
def reporting(progress: Progress | None) -> Iterator[None]:
    """Tell ``progress`` about every kernel run in the enclosed block (None: nobody).

    The library itself prints nothing; the command line installs a progress
    bar here. Results never depend on whether anyone watches.
    """
    token = _progress.set(progress)
    try:
        yield
    finally:
        _progress.reset(token)


def _is_cached(kernel) -> bool:
    """Whether numba's on-disk cache already holds an index for ``kernel``."""
    cache = getattr(kernel, "_cache", None)
    cache_file = getattr(cache, "_cache_file", None)
    index_path = getattr(cache_file, "_index_path", None)
    return index_path is None or os.path.exists(index_path)


def announce_compile(kernel) -> None:
    """Wait while another process compiles ``kernel``; then, if it still has to be compiled
    here, say so on stderr (first run only).

    For callers that run a kernel themselves, just before its first call; runs
    through :func:`run_counts` use :func:`first_run`, which also keeps other
    processes from compiling the same kernel meanwhile.
    """
    with first_run(kernel):
        pass


@contextmanager
def first_run(kernel) -> Iterator[None]:
    """Around a run of ``kernel``: one process at a time compiles it (:mod:`sim.compiling`),
    and a compile here is announced on stderr (:func:`notice`).
    """
    with compiling.first_run(kernel):
        notice(kernel)
        yield


def notice(kernel) -> None:
    """Say on stderr that a kernel is being compiled (first run only).

    Compiling a parallel kernel takes seconds; without a notice a designer's
    first command looks hung. Compiled code is cached on disk (``cache=True``),
    so later runs are silent; a kernel another process compiled is loaded.
    """
    name = getattr(kernel, "__name__", repr(kernel))
    compiled = compiling.compiled(kernel)
    if name in _announced or all(k.signatures or _is_cached(k) for k in compiled):
        return
    _announced.add(name)
    where = cache_folder(compiled[0])
    note = "not cached: no writable cache folder" if where is None else \
        f"first run only; cached in {where}"
    seconds = COMPILE_SECONDS.get(name)
    took = "" if seconds is None else \
        f", about {seconds} s" if seconds < 90 else f", about {round(seconds / 60)} min"
    process = ", in a second process" if compiling.is_ahead() else ""
    compiling.say(f"zonesim: compiling kernel {name}{took}{process} ({note})")


def cache_folder(kernel) -> str | None:
    """The folder numba actually caches ``kernel`` in, or None when it is not cached.

    ``NUMBA_CACHE_DIR`` may be unwritable, in which case the kernels are cached
    in the next place :mod:`sim.jitting.options` tries; the notice names the folder
    in use, not the one asked for.
    """
    cache = getattr(kernel, "_cache", None)
    path = getattr(cache, "_cache_path", None)
    return None if path is None else str(path)


@contextmanager
def thread_count(threads: int | None):
    """Run the enclosed kernels on ``threads`` threads (None: numba's default)."""
    if threads is None:
        yield
        return
    previous = numba.get_num_threads()
    numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(previous)


def run_counts(
    kernel: Callable,
    seed: int,
    n_trials: int,
    shape: tuple[int, ...],
    *params,
    threads: int | None = None,
    chunk_size: int | None = None,
    dtype=np.int64,
) -> np.ndarray:
    """Run ``kernel`` over ``n_trials`` trials and return its summed aggregates.

    Parameters
    ----------
    kernel : numba dispatcher
        A kernel with the calling convention of this module.
    seed : int
        Non-negative run seed.
    n_trials : int
        Number of trials, ``>= 1``.
    shape : tuple of int
        Shape of one chunk's aggregate row (e.g. ``(n_outcomes,)``).
    *params
        Kernel parameters between ``first_chunk`` and ``out``.
    threads : int, optional
        Number of threads; results are identical for any value.
    chunk_size : int, optional
        Trials per chunk; results are identical for any value.
    dtype : numpy dtype
        Aggregate dtype.

    Returns
    -------
    ndarray of shape ``shape``
    """
    if seed < 0:
        raise ValueError("seed must be >= 0")
    exact = np.issubdtype(dtype, np.integer)
    n_chunks, size = chunks.plan(n_trials, chunk_size)
    if exact and chunk_size is None and size > STOP_CHUNK:
        n_chunks, size = chunks.plan(n_trials, STOP_CHUNK)
    # Integer rows are summed batch by batch (memory stays flat); float rows keep one
    # row per chunk until the end, so their sum is taken in the same order, and rounds
    # the same way, as in one call.
    out = None if exact else np.zeros((n_chunks, *shape), dtype=dtype)
    total = np.zeros(shape, dtype=dtype)
    with first_run(kernel), thread_count(threads):
        started(n_trials)
        n_threads = numba.get_num_threads()
        pooled = hasattr(kernel, "pool_compiled")
        with thread_pool(n_threads if pooled else 1) as pool:
            for first, stop in batches(n_chunks, n_threads, max(1, FIRST_TRIALS // size)):
                rows = np.zeros((stop - first, *shape), dtype=dtype) if exact \
                    else out[first:stop]
                if pooled:  # one task per chunk, each filling its own row
                    run_tasks(pool, lambda r, rows=rows, first=first: kernel(
                        seed, n_trials, size, first + r, *params, rows[r:r + 1]),
                        stop - first)
                else:
                    kernel(seed, n_trials, size, first, *params, rows)
                if exact:
                    total += rows.sum(axis=0)
                advanced(min(stop * size, n_trials) - min(first * size, n_trials))
    return total if exact else out.sum(axis=0)


_pools: dict[tuple[int, int], ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def thread_pool(threads: int):
    """A context holding a pool of ``threads`` threads for :func:`run_tasks` (1: None, no pool).

    Kernels marked ``pool_kernel`` (:mod:`sim.jitting.options`) are serial
    compiled code that releases the GIL: their chunks run in parallel on
    these threads, as a ``prange`` kernel's run on numba's. The pool is kept for the
    process (one per thread count, and per process id, so a forked child starts its
    own): a report runs the campaign kernel thousands of times, and starting two threads
    for each run cost more than many of those runs (issue 45, item 4). Which thread
    plays a task never changes a result (:func:`run_tasks`).
    """
    if threads <= 1:
        return nullcontext(None)
    key = (os.getpid(), threads)
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None:
            pool = _pools[key] = ThreadPoolExecutor(threads, "zonesim")
    return nullcontext(pool)


def run_tasks(pool: ThreadPoolExecutor | None, task: Callable[[int], None], n_tasks: int) -> None:
    """Run ``task(i)`` for ``i`` in ``range(n_tasks)`` on ``pool`` (None: here, in order).

    Tasks write to disjoint outputs, so their order never changes a result.
    The first exception (Ctrl-C too) cancels the tasks not yet started and
    is raised once the running ones end (one chunk each).
    """
    if pool is None:
        for i in range(n_tasks):
            task(i)
        return
    futures = [pool.submit(task, i) for i in range(n_tasks)]
    try:
        for future in futures:
            future.result()
    except BaseException:
        for future in futures:
            future.cancel()
        raise


def batches(n_chunks: int, threads: int, first_size: int = 1,
            clock: Callable[[], float] = time.perf_counter) -> Iterator[tuple[int, int]]:
    """Yield ``(first, stop)`` chunk ranges covering ``range(n_chunks)``, in order.

    The first batch is ``first_size`` chunks, in whole rounds of ``threads``
    (one chunk per thread at least). Each later one is sized from the time
    the previous one took (which, for the first, includes any compile) so
    that it lasts about :data:`BATCH_SECONDS`, in whole rounds, at most
    :data:`GROWTH` times the previous one; a remainder under half a batch
    joins the batch before it. Few batches keep the cost small:
    each call wakes the kernel's threads, which takes milliseconds on a busy
    machine. Only the batching, never a result, depends on the timing. The
    caller runs each range before asking for the next.

    Parameters
    ----------
    n_chunks : int
        Chunks of the plan (:func:`sim.kernels.chunks.plan`).
    threads : int
        Threads the kernel runs on (``>= 1``).
    first_size : int
        Chunks wanted in the first batch.
    clock : callable
        Seconds as a float (tests pass a fake one).
    """
    threads = max(1, threads)
    first, size = 0, threads * max(1, -(-first_size // threads))
    while first < n_chunks:
        stop = first + size
        if n_chunks - stop < size // 2:  # a short remainder joins this batch: one call fewer
            stop = n_chunks
        start = clock()
        yield first, stop
        per_round = (clock() - start) * threads / (stop - first)
        rounds = int(BATCH_SECONDS / per_round) if per_round > 0 else GROWTH * size
        size = max(threads, min(GROWTH * size, rounds * threads))
        first = stop
