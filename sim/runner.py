"""Orchestration of kernel runs: chunks, threads, seeds and compile notices.

Kernels share one calling convention::

    kernel(seed, n_trials, chunk_size, *params, out)

where ``out`` is an ``int64`` (or ``float64``) array of shape
``(n_chunks, ...)`` that the kernel fills with per-chunk aggregates. This
module plans the chunks, sets the thread count, announces a first-time
compile on stderr, and sums the chunk rows. Chunking and thread count never
change a result, because each trial's random streams are keyed by its index.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from contextlib import contextmanager

import numba
import numpy as np

from sim.kernels import chunks

_announced: set[str] = set()


def _is_cached(kernel) -> bool:
    """Whether numba's on-disk cache already holds an index for ``kernel``."""
    cache = getattr(kernel, "_cache", None)
    cache_file = getattr(cache, "_cache_file", None)
    index_path = getattr(cache_file, "_index_path", None)
    return index_path is None or os.path.exists(index_path)


def announce_compile(kernel) -> None:
    """Say on stderr that a kernel is being compiled (first run only).

    Compiling a parallel kernel takes seconds; without a notice a designer's
    first command looks hung. Compiled code is cached on disk (``cache=True``),
    so later runs are silent.
    """
    name = getattr(kernel, "__name__", repr(kernel))
    if kernel.signatures or name in _announced or _is_cached(kernel):
        return
    _announced.add(name)
    where = cache_folder(kernel)
    note = "not cached: no writable cache folder" if where is None else \
        f"first run only; cached in {where}"
    print(f"zonesim: compiling kernel {name} ({note})", file=sys.stderr, flush=True)


def cache_folder(kernel) -> str | None:
    """The folder numba actually caches ``kernel`` in, or None when it is not cached.

    ``NUMBA_CACHE_DIR`` may be unwritable, in which case numba quietly falls back
    to ``__pycache__`` beside the source or a per-user folder; the notice names
    the folder in use, not the one asked for.
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
        Kernel parameters between ``chunk_size`` and ``out``.
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
    n_chunks, size = chunks.plan(n_trials, chunk_size)
    out = np.zeros((n_chunks, *shape), dtype=dtype)
    announce_compile(kernel)
    with thread_count(threads):
        kernel(seed, n_trials, size, *params, out)
    return out.sum(axis=0)
