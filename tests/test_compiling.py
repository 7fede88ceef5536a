"""First compiles across processes (issue 13): numba's cache index written by one process at a
time."""

from __future__ import annotations

import subprocess
import sys
import time

SAVER = """
import sys
from numba.core.caching import IndexDataCacheFile
import sim.kernels._jit  # installs the index lock
cache = IndexDataCacheFile(sys.argv[1], "helper-1.py311", ("stamp", 1))
sys.stdin.readline()  # both processes start saving together
for i in range(int(sys.argv[3])):
    cache.save((sys.argv[2], i), (sys.argv[2], i))
"""


def test_index_saves_from_two_processes_keep_every_entry_with_its_own_data(tmp_path):
    """Unlocked, two processes adding signatures to one index lose entries or give two of them
    the same data file (which then holds the other's machine code)."""
    n = 60
    procs = [subprocess.Popen([sys.executable, "-c", SAVER, str(tmp_path), name, str(n)],
                              stdin=subprocess.PIPE, text=True) for name in ("a", "b")]
    time.sleep(1.5)  # both have imported numba
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    assert [proc.wait(timeout=60) for proc in procs] == [0, 0]
    for proc in procs:
        proc.stdin.close()
    from numba.core.caching import IndexDataCacheFile

    cache = IndexDataCacheFile(str(tmp_path), "helper-1.py311", ("stamp", 1))
    keys = [(name, i) for name in ("a", "b") for i in range(n)]
    assert sorted(cache._load_index()) == sorted(keys)
    assert all(cache.load(key) == key for key in keys)
