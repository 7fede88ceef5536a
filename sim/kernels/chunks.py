"""How trials are split into chunks for ``prange``.

Chunking never changes a result (each trial's stream depends only on its
index); it bounds memory: kernels keep one row of counts per chunk, and the
number of chunks is capped, so memory is flat in the number of trials.
"""

from __future__ import annotations

MIN_CHUNK = 4096
MAX_CHUNKS = 256


def plan(n_trials: int, chunk_size: int | None = None) -> tuple[int, int]:
    """Return ``(n_chunks, chunk_size)`` covering ``n_trials`` trials.

    Parameters
    ----------
    n_trials : int
        Number of trials, ``>= 1``.
    chunk_size : int, optional
        Force a chunk size (tests use this to show results do not depend on it).
    """
    if n_trials < 1:
        raise ValueError("n_trials must be >= 1")
    if chunk_size is None:
        chunk_size = max(MIN_CHUNK, -(-n_trials // MAX_CHUNKS))
    chunk_size = max(1, min(chunk_size, n_trials))
    return -(-n_trials // chunk_size), chunk_size
