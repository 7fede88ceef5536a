"""The one place where numba options are set.

Every kernel module imports :func:`jit` (scalar helpers, inlined into callers)
or :func:`pjit` (parallel entry points with ``prange``); a kernel whose trial is
large (the campaign) is instead a plain-Python driver of serial compiled code, marked
with :func:`pool_kernel` and run on threads by the runner. ``cache=True`` keeps
compiled machine code in ``NUMBA_CACHE_DIR`` between runs; ``fastmath`` stays
off because Monte Carlo counts are compared bit for bit across thread counts.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import numba

from sim.kernels import _cachefiles, _flags, _inlining, _liveness, _ssa
from sim.kernels._literals import plain_calls


def _key_cache_on_sources() -> None:
    """Cache compiled kernels in a folder named by a digest of every kernel source file.

    numba checks a cached kernel only against the timestamp of the file that
    defines it: a campaign kernel compiled with an older fight rule
    (``sim/kernels/combat.py``) would still be loaded after ``combat.py``
    changed, and run the old rule. Kernels import only each other, numpy and
    numba, so a digest of ``sim/kernels/*.py`` names every version of their
    code: with ``NUMBA_CACHE_DIR`` set, kernels are cached in
    ``NUMBA_CACHE_DIR/zonesim-<digest>``, and any change compiles afresh.
    Without it numba caches beside the sources (an installed package, whose
    files change only together).
    """
    base = numba.config.CACHE_DIR
    if base:
        folder = "zonesim-" + source_digest(Path(__file__).parent)
        numba.config.CACHE_DIR = os.path.join(base, folder)


def cache_base() -> str:
    """The ``NUMBA_CACHE_DIR`` this process caches under ("" for numba's default places).

    A second process compiling kernels for this one (:mod:`sim.compiling`) is
    given it, so that both use the same cache folder.
    """
    return os.path.dirname(numba.config.CACHE_DIR) if numba.config.CACHE_DIR else ""


def source_digest(folder: Path) -> str:
    """Digest of the names and contents of the ``*.py`` files in ``folder`` (16 hex digits)."""
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _numba_without_scipy() -> None:
    """Load numba's array implementations without importing scipy (0.2 s per command).

    numba imports ``numba.np.arraymath`` when it first compiles or loads a
    kernel, and that module imports ``scipy.linalg`` only to learn whether a
    BLAS is there for ``np.dot``-style inner products; no kernel here uses
    one (without BLAS numba uses its own loop). Where scipy is installed (the
    ``levers`` and ``test`` extras bring it), that import cost every command
    0.2 s. So ``arraymath`` is imported here with ``scipy.linalg`` hidden,
    unless it or ``arraymath`` is loaded already.
    """
    if "scipy.linalg" in sys.modules or "numba.np.arraymath" in sys.modules:
        return
    sys.modules["scipy.linalg"] = None  # makes ``import scipy.linalg...`` fail at once
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules["scipy.linalg"]


_numba_without_scipy()
_inlining.install()
_liveness.install()
_flags.install()
_ssa.install()
_cachefiles.install()
_key_cache_on_sources()

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
    """``numba.njit`` with one version for all constant arguments (:mod:`._literals`).

    With no writable cache location, without the cache (one warning).
    """
    try:
        return plain_calls(numba.njit(**options)(func))
    except RuntimeError:  # numba found no writable cache folder: run, but compile every time
        if not _uncached:
            print("zonesim: warning: no writable numba cache folder (set NUMBA_CACHE_DIR to one);"
                  " kernels are compiled on every run", file=sys.stderr, flush=True)
        _uncached.append(func.__name__)
        return plain_calls(numba.njit(**{**options, "cache": False})(func))


def pjit(func=None, **overrides):
    """Compile a parallel kernel (``prange`` over chunks of trials)."""
    return jit(func, parallel=True, **overrides)


def pool_kernel(driver, *compiled):
    """Mark ``driver``, a plain-Python kernel calling the ``compiled`` functions, as run
    on a pool of threads.

    A parallel kernel links in every compiled function it calls and LLVM
    optimises that code again inside it (and in its ``prange`` body): the game
    body of the campaign cost its compile time three times over, once more for
    each kernel calling it. A driver calls compiled functions from Python
    instead, so each is compiled once; since they release the GIL
    (``nogil``), :func:`sim.runner.run_counts` runs the driver's chunks on
    threads. ``compiled`` names what a first run compiles (compile notice).
    """
    driver.pool_compiled = compiled
    return driver
