"""The one place where numba options are set.

Every kernel module imports :func:`jit` (scalar helpers, inlined into callers)
or :func:`pjit` (parallel entry points with ``prange``); a kernel whose trial is
large (the campaign) is instead a plain-Python driver of serial compiled code, marked
with :func:`pool_kernel` and run on threads by the runner. ``cache=True`` keeps
compiled machine code between runs, each module's in the folder :func:`cache_name` names
(keyed by a digest of the kernel sources and patches the module imports,
:class:`.cachedirs.Sources`); ``fastmath`` stays off because
Monte Carlo counts are compared bit for bit across thread counts.

The numba compiler patches (:data:`PATCHES`: :mod:`.inlining`,
:mod:`.ssa`, :mod:`.literals`, the intrinsic :mod:`.views` and ``_nrt=False``) make compiles faster
and touch numba's internals: they are used only on the numba versions they were checked against
(:data:`CHECKED_NUMBA`), and not with ``ZONESIM_NUMBA_PATCHES=off``, where the views
are plain numpy slices and ``_nrt`` is left at numba's default; kernels give the
same numbers either way (``tests/jitting/test_other_numba.py``), so a numba upgrade
makes compiles slower, never impossible. The lock and seals of numba's cache files
(:mod:`.cachefiles`) are a correctness fix, used under every numba: under one they
were not checked against, they are tried on a temporary folder first, and where they
cannot work, kernels are not cached at all (compiled on every run, one warning),
never cached unlocked.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

import numba

from sim.jitting import cachedirs, cachefiles, inlining, ssa
from sim.jitting.literals import plain_calls

CHECKED_NUMBA = ("0.68",)
"""numba versions (major.minor) the compiler patches were written and tested against.

``pyproject.toml`` allows only these; under any other numba the patches stay off.
"""

PATCHES = ("inlining", "ssa", "literals", "views", "nrt")
"""The compiler patches, by name: the modules of this package that install one, the intrinsic
views (:mod:`.views`) and ``nrt`` (the campaign parts' ``_nrt=False``). Each saves at least
10 % of some kernel's cold compile (``benchmarks/bench_compile.py``, whose docstring gives the
table); ``untyped`` and ``flags`` saved less on every kernel and were removed (issue 45,
item 3)."""

VARIABLE = "ZONESIM_NUMBA_PATCHES"
"""The environment variable that turns the patches off: ``off``, or ``without:NAME,NAME`` for
some of :data:`PATCHES` (``benchmarks/bench_compile.py`` times each one off)."""

KERNELS = Path(__file__).parent.parent / "kernels"
"""The folder of every kernel source (its ``__pycache__`` is numba's own default cache place)."""

AREAS = (("sim.kernels", KERNELS), ("sim.jitting", Path(__file__).parent))
"""The packages whose modules name a kernel module's cache folder (:func:`cache_name`) when
it imports them: the kernels, and this package, whose patches change how kernels compile and
how their cache files look."""

SOURCES = cachedirs.Sources(AREAS)
"""The kernel sources of this process, read once (:func:`cache_name`)."""


def checked() -> bool:
    """Whether this numba is one of :data:`CHECKED_NUMBA`."""
    return ".".join(numba.__version__.split(".")[:2]) in CHECKED_NUMBA


def patches() -> tuple[str, ...]:
    """The compiler patches this process uses, of :data:`PATCHES`.

    ``ZONESIM_NUMBA_PATCHES=off`` turns them all off (plain numba: slower first
    compiles, the same numbers), ``without:NAME,NAME`` those named; they are
    all off as well under a numba version outside :data:`CHECKED_NUMBA`.

    Raises
    ------
    ValueError
        ``without:`` names something that is not a patch.
    """
    text = os.environ.get(VARIABLE, "on")
    if text == "off" or not checked():
        return ()
    off = set()
    if text.startswith("without:"):
        off = {name.strip() for name in text.removeprefix("without:").split(",")} - {""}
        if off - set(PATCHES):
            raise ValueError(f"environment variable {VARIABLE}={text!r} names no patch "
                             f"{', '.join(sorted(off - set(PATCHES)))}; the patches are "
                             f"{', '.join(PATCHES)}")
    return tuple(name for name in PATCHES if name not in off)


def patched() -> bool:
    """Whether this process uses every compiler patch (:func:`patches`)."""
    return patches() == PATCHES


def cache_name(module: str, path: Path | None = None,
               sources: cachedirs.Sources = SOURCES) -> str:
    """The name of the cache folder of ``module``'s compiled functions (``path``: its file,
    where it lies outside the kernels): ``zonesim-<module>-<digest>``.

    The digest covers the module's import closure in ``sources``
    (:meth:`.cachedirs.Sources.digest`: every file whose code its functions may
    compile to, and the patches that compile it), the numba version and which
    patches are on (they change how the kernels compile). An edit
    to a campaign part names new folders for the campaign modules only; one to
    ``rng.py``, for every module that imports it.
    """
    active = patches()
    flavour = numba.__version__ + (
        "" if active == PATCHES else "-unpatched" if not active else
        "-without-" + "-".join(name for name in PATCHES if name not in active))
    digest = hashlib.sha256((sources.digest(module, path) + flavour).encode()).hexdigest()[:16]
    return f"zonesim-{module}-{digest}"


def user_cache_home() -> Path:
    """The per-user cache folder for zonesim (where the package folder cannot be written)."""
    if sys.platform == "win32":
        root = os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
    elif sys.platform == "darwin":
        root = Path.home() / "Library" / "Caches"
    else:
        root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "zonesim"


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _choose_cache_base() -> Path | None:
    """The folder under which each kernel module's cache folder (:func:`cache_name`) is made.

    The base is ``NUMBA_CACHE_DIR`` when set, else ``__pycache__`` beside the
    kernel sources (numba's own default), else :func:`user_cache_home`: the
    first that can be written. Stale folders of zonesim's in it are removed, but
    not those of the kernels' sources as they are now (:mod:`.cachedirs`).
    numba is kept from caching anywhere else (``CACHE_LOCATOR_CLASSES``, unless
    the user chose locators), so that no cached kernel escapes the digest.
    Returns None (kernels compile on every run) when no base can be written, or
    when numba's cache files cannot be locked and sealed (:data:`_SAFE_FILES`).
    """
    if not _SAFE_FILES:
        return None
    asked = numba.config.CACHE_DIR
    bases = [Path(asked)] if asked else []
    bases += [KERNELS / "__pycache__", user_cache_home()]
    for base in bases:
        if _writable(base):
            cachedirs.prune(base, {cache_name(module) for module in SOURCES.modules()})
            if asked and base != Path(asked):
                print(f"zonesim: warning: NUMBA_CACHE_DIR {asked} cannot be written; kernels"
                      f" are cached in {base}", file=sys.stderr, flush=True)
            numba.config.CACHE_DIR = str(base)
            if not numba.config.CACHE_LOCATOR_CLASSES:
                numba.config.CACHE_LOCATOR_CLASSES = "UserProvidedCacheLocator"
            return base
    return None


def cache_folder(module: str, path: Path | None = None) -> str | None:
    """The cache folder of ``module``'s compiled functions (``path``: its file), made and
    marked (:func:`.cachedirs.use`) when first asked for; None where it cannot be made.
    """
    if module not in _folders:
        folder = None
        if _cache_base is not None:
            folder = _cache_base / cache_name(module, path)
            try:
                cachedirs.use(folder)
            except OSError:  # the base went away or cannot be written any more
                folder = None
        _folders[module] = None if folder is None else str(folder)
    return _folders[module]


def cache_base() -> str:
    """The base folder this process caches under ("" when kernels are not cached).

    A second process compiling kernels for this one (:mod:`sim.compiling`) is
    given it as ``NUMBA_CACHE_DIR``, so that both use the same cache folders.
    """
    return "" if _cache_base is None else str(_cache_base)


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


ACTIVE = patches()
"""The compiler patches this process uses (:func:`patches`)."""

_numba_without_scipy()
for _name, _patch in (("inlining", inlining), ("ssa", ssa)):
    if _name in ACTIVE:
        _patch.install()
_SAFE_FILES = cachefiles.install(tested=checked())
"""Whether numba's cache files are locked and sealed (else nothing is cached)."""

_cache_base = _choose_cache_base()
_locators = numba.config.CACHE_LOCATOR_CLASSES
_folders: dict[str, str | None] = {}
"""Each kernel module's cache folder, by module name (:func:`cache_folder`)."""

_uncached: list[str] = []
"""Kernels compiled without the on-disk cache because no cache folder is writable."""

_COMMON = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}


def jit(func=None, **overrides):
    """Compile a serial helper or kernel with the project's numba options.

    ``_nrt`` (a private numba option) is passed only with the ``nrt`` patch; else numba's
    default holds.
    """
    if "nrt" not in ACTIVE:
        overrides.pop("_nrt", None)
    options = {**_COMMON, **overrides}
    if func is None:
        return lambda f: _njit(f, options)
    return _njit(func, options)


def _njit(func, options):
    """``numba.njit`` with one version for all constant arguments (:mod:`.literals`).

    numba picks a function's cache folder when it wraps it, from its
    configuration, which it reloads whenever a ``NUMBA_*`` variable changed:
    the folder of the function's module (:func:`cache_folder`) is set each time. With no
    writable cache folder, the function is compiled without the cache (one warning).
    """
    folder = cache_folder(func.__module__, Path(func.__code__.co_filename))
    if folder is not None:
        numba.config.CACHE_DIR, numba.config.CACHE_LOCATOR_CLASSES = folder, _locators
        try:
            return _calls(numba.njit(**options)(func))
        except RuntimeError:  # the folder went away or cannot be written any more
            pass
    if not _uncached:
        why = "no writable numba cache folder (set NUMBA_CACHE_DIR to one)" if _SAFE_FILES \
            else f"numba {numba.__version__}'s cache files cannot be locked and sealed"
        print(f"zonesim: warning: {why}; kernels are compiled on every run", file=sys.stderr,
              flush=True)
    _uncached.append(func.__name__)
    return _calls(numba.njit(**{**options, "cache": False})(func))


def _calls(dispatcher):
    """``dispatcher`` with :func:`.literals.plain_calls` when that patch is on."""
    return plain_calls(dispatcher) if "literals" in ACTIVE else dispatcher


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
