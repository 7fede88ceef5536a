"""Correctness outside the speed gate: under a numba other than the checked one (issue 45,
item 2).

The lock and seals of numba's cache files switched off with the speed patches under any
numba but 0.68, so the index race they fix came back exactly when an upgrade makes things
uncertain; the intrinsic views and ``_nrt=False`` were not gated at all, so a changed numba
could stop the campaign kernel compiling. Now the cache files are locked and sealed under
every numba (tried on a temporary folder first), and the views and ``_nrt`` fall back to
plain numpy slices and numba's defaults. The "other numba" is forced here by setting
``numba.__version__`` before the package loads; ``tests/jitting/test_cache_faults.py`` runs
the kernels so, against the checkout's numbers.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numba
import numpy as np
import pytest

from sim.jitting import cachefiles, options, views
from tests.jitting.test_compiling import save_at_once

OTHER_NUMBA = "0.99.0"
"""A numba version the patches were not checked against."""

SAVER = f"""
import sys
import numba
numba.__version__ = {OTHER_NUMBA!r}  # the "other numba" path, before the package loads
from numba.core.caching import IndexDataCacheFile
from sim.jitting import options
assert options.ACTIVE == () and options._SAFE_FILES, (options.ACTIVE, options._SAFE_FILES)
cache = IndexDataCacheFile(sys.argv[1], "helper-1.py311", ("stamp", 1))
sys.stdin.readline()  # both processes start saving together
for i in range(int(sys.argv[3])):
    cache.save((sys.argv[2], i), (sys.argv[2], i))
"""


@pytest.mark.subprocess
def test_under_another_numba_two_processes_saving_at_once_lose_no_entry(tmp_path,
                                                                       monkeypatch):
    """The guard: with the lock off under another numba, two processes adding signatures to
    one index lost entries or gave two of them one data file."""
    n = 60
    save_at_once(SAVER, tmp_path, n)
    from numba.core.caching import IndexDataCacheFile

    [index] = tmp_path.glob("*.nbi")
    assert index.read_bytes().startswith(cachefiles.MAGIC)  # sealed
    monkeypatch.setattr(numba, "__version__", OTHER_NUMBA)  # the index names the savers' numba
    cache = IndexDataCacheFile(str(tmp_path), "helper-1.py311", ("stamp", 1))
    keys = [(name, i) for name in ("a", "b") for i in range(n)]
    assert sorted(cache._load_index()) == sorted(keys)
    assert all(cache.load(key) == key for key in keys)


def test_under_another_numba_the_patches_are_off_and_the_cache_files_safe(monkeypatch):
    monkeypatch.setattr(numba, "__version__", OTHER_NUMBA)
    assert options.patches() == () and not options.checked()
    assert cachefiles.install(tested=options.checked())  # installed already: still safe


def _fake_caching(init):
    """A stand-in for ``numba.core.caching`` whose index file class is built by ``init``."""
    def method(self, *args):
        raise AssertionError("numba's own method is not called in a round trip")

    files = type("IndexDataCacheFile", (), {
        "__init__": init, **{name: method for name in (
            "save", "_load_index", "_save_index", "_load_data", "_save_data")}})
    cache = type("Cache", (), {"load_overload": method, "save_overload": method})
    return SimpleNamespace(IndexDataCacheFile=files, Cache=cache)


def test_a_numba_whose_cache_files_differ_is_left_alone_and_nothing_is_cached(monkeypatch):
    """Under an unchecked numba whose index file class keeps other attributes, the round
    trip fails: numba's methods are put back, and :func:`install` says the files are not
    safe (the kernels are then compiled uncached)."""
    def init(self, cache_path, filename_base, source_stamp):
        self.path = cache_path  # none of the attributes the seals read

    fake = _fake_caching(init)
    originals = {name: getattr(fake.IndexDataCacheFile, name) for name in
                 ("save", "_load_index", "_save_index", "_load_data", "_save_data")}
    monkeypatch.setitem(sys.modules, "numba.core.caching", fake)
    assert not cachefiles.install(tested=False)
    assert {name: getattr(fake.IndexDataCacheFile, name) for name in originals} == originals
    assert cachefiles.install(tested=True)  # a checked numba is trusted without a trip


def test_without_the_nrt_patch_numbas_default_holds(monkeypatch):
    def f(x):
        return x + 1

    monkeypatch.setattr(options, "ACTIVE", ())
    assert "_nrt" not in options.jit(_nrt=False)(f).targetoptions
    monkeypatch.setattr(options, "ACTIVE", options.PATCHES)
    assert options.jit(_nrt=False)(f).targetoptions["_nrt"] is False


SHAPES = [
    ("one fixed width", 2, ((3,),), None),
    ("two named", 2, (4, 5), None),
    ("three mixed", 2, (4, (2,), 5), None),
    ("four", 2, (4, 5, (2,), 4), None),
    ("a seat's row", 2, (5,), 4),
]


def _reader(view, *extra):
    """A jitted copy of what ``view(base, ...)`` reads, ``extra`` its further arguments."""
    if len(extra) == 2:
        def read(base, header, p):
            return view(base, header, p).copy()
    elif len(extra) == 1:
        def read(base, header):
            return view(base, header).copy()
    else:
        def read(base):
            return view(base).copy()
    return numba.njit(read)


@pytest.mark.parametrize("start, dims, row", [case[1:] for case in SHAPES],
                         ids=[case[0] for case in SHAPES])
def test_the_plain_views_read_what_the_intrinsics_read(start, dims, row):
    """The fallback views (:func:`sim.jitting.views._plain_accessor`) give the same arrays
    as the intrinsics (a table from element 11, dimensions 3 and 2 in header slots 4, 5)."""
    base = np.arange(100, dtype=np.int64) * 7
    header = np.array([0, 0, 11, 0, 3, 2], dtype=np.int64)
    args = (base, header) if row is None else (base, header, 2)
    got = [_reader(make(start, dims, row), *args[1:])(*args)
           for make in (views.accessor, views._plain_accessor)]
    assert got[0].shape == got[1].shape and (got[0] == got[1]).all()


@pytest.mark.parametrize("rows", [True, False])
def test_the_plain_stretches_read_what_the_intrinsics_read(rows):
    base = np.arange(60, dtype=np.int64)
    got = []
    for make in (views.stretch, views._plain_stretch):
        if rows:
            view = make(5, 7, True)
            got.append(numba.njit(lambda b: view(b, 3).copy())(base))  # noqa: B023
        else:
            got.append(_reader(make(5, 7, False))(base))
    assert (got[0] == got[1]).all() and len(got[0]) == 7
