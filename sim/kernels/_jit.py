"""The one place where numba options are set.

Every kernel module imports :func:`jit` (scalar helpers, inlined into callers)
or :func:`pjit` (parallel entry points with ``prange``). ``cache=True`` keeps
compiled machine code in ``NUMBA_CACHE_DIR`` between runs; ``fastmath`` stays
off because Monte Carlo counts are compared bit for bit across thread counts.
"""

from __future__ import annotations

import numba

_COMMON = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}


def jit(func=None, **overrides):
    """Compile a serial helper or kernel with the project's numba options."""
    options = {**_COMMON, **overrides}
    if func is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(func)


def pjit(func=None, **overrides):
    """Compile a parallel kernel (``prange`` over chunks of trials)."""
    return jit(func, parallel=True, **overrides)
