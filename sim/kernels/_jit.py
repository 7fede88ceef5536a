"""The one place where numba options are set.

Every kernel module imports :func:`jit` (scalar helpers, inlined into callers)
or :func:`pjit` (parallel entry points with ``prange``). ``cache=True`` keeps
compiled machine code in ``NUMBA_CACHE_DIR`` between runs; ``fastmath`` stays
off because Monte Carlo counts are compared bit for bit across thread counts.
"""

from __future__ import annotations

import sys

import numba

from sim.kernels import _inlining

_inlining.install()

_uncached: list[str] = []
"""Kernels compiled without the on-disk cache because no cache folder is writable."""

_COMMON = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}


def jit(func=None, **overrides):
    """Compile a serial helper or kernel with the project's numba options."""
    options = {**_COMMON, **overrides}
    if func is None:
        return lambda f: _njit(f, options)
    return _njit(func, options)


def _njit(func, options):
    """``numba.njit``; with no writable cache location, without the cache (one warning)."""
    try:
        return numba.njit(**options)(func)
    except RuntimeError:  # numba found no writable cache folder: run, but compile every time
        if not _uncached:
            print("zonesim: warning: no writable numba cache folder (set NUMBA_CACHE_DIR to one);"
                  " kernels are compiled on every run", file=sys.stderr, flush=True)
        _uncached.append(func.__name__)
        return numba.njit(**{**options, "cache": False})(func)


def pjit(func=None, **overrides):
    """Compile a parallel kernel (``prange`` over chunks of trials)."""
    return jit(func, parallel=True, **overrides)
