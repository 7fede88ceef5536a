"""The compile-time replacements of numba functions give numba's own results.

sim/jitting/ssa.py replaces a numba function
by a faster one with the same results (issue 13: the campaign kernel's cold
compile). Each test runs numba's function and the replacement on the same
input and asserts equal outputs, so a replacement that drifts from numba's
behaviour fails here, not in a kernel's numbers. literals.py compiles one
version of a helper for all the constants it is called with (last test).
"""

from __future__ import annotations

import copy
import random

import pytest
from numba.core import compiler, ssa
from numba.core.controlflow import CFGraph

import sim.jitting.options  # noqa: F401  (installs the replacements)
from sim.jitting import ssa as _ssa


def test_the_replacement_is_installed():
    assert ssa._run_ssa is _ssa.run_ssa


def _random_function(rng: random.Random):
    """A random control-flow graph with random use and definition sets per block."""
    n = rng.randint(1, 30)
    cfg = CFGraph()
    for b in range(n):
        cfg.add_node(b)
    for b in range(n - 1):
        cfg.add_edge(b, b + 1)
        for _ in range(rng.randint(0, 2)):  # branches and loops (back edges)
            cfg.add_edge(b, rng.randrange(n))
    cfg.set_entry_point(0)
    cfg.process()
    names = [f"v{i}" for i in range(rng.randint(1, 80))]
    use = {b: set(rng.sample(names, rng.randint(0, min(6, len(names))))) for b in range(n)}
    define = {b: set(rng.sample(names, rng.randint(0, min(6, len(names))))) for b in range(n)}
    return cfg, dict.fromkeys(range(n)), use, define


def _redefining(n, flag):
    """Variables assigned in branches and loops: SSA has work to do."""
    total = 0
    x = 1
    for i in range(n):
        if i % 3 == 0:
            x = x + i
        elif flag:
            x = 2 * x
            total = total - x
        else:
            total = total + x
        while x > 100:
            x = x // 2
    y = x if flag else total
    return total + y


def _ssa_form(blocks) -> dict:
    return {label: [str(stmt) for stmt in block.body] for label, block in blocks.items()}


@pytest.mark.parametrize("func", [_redefining, _random_function])
def test_ssa_is_numbas(func):
    blocks = compiler.run_frontend(func).blocks
    theirs = _ssa.numba_run_ssa(copy.deepcopy(blocks))
    ours = _ssa.run_ssa(copy.deepcopy(blocks))
    assert _ssa_form(ours) == _ssa_form(theirs)
    assert _ssa_form(theirs) != _ssa_form(blocks)  # SSA renamed something: the test can fail


def _callee(x, k):
    return x * k


def _callers(callee):
    import numba

    @numba.njit(cache=False)
    def twice(x):
        return callee(x, 2)

    @numba.njit(cache=False)
    def thrice(x):
        return callee(x, 3)

    return twice, thrice


def test_constant_arguments_share_one_compiled_version():
    """sim/jitting/literals.py: a helper called with 2 and with 3 is compiled once, for int64.

    numba alone compiles it once per constant (the second half shows that it
    does, so the first half can fail).
    """
    import numba

    from sim.jitting.literals import plain_calls

    plain = plain_calls(numba.njit(cache=False)(_callee))
    twice, thrice = _callers(plain)
    assert (twice(5), thrice(5)) == (10, 15)
    assert [str(sig) for sig in plain.signatures] == ["(int64, int64)"]
    literal = numba.njit(cache=False)(_callee)
    twice, thrice = _callers(literal)
    assert (twice(5), thrice(5)) == (10, 15)
    assert len(literal.signatures) == 2


@pytest.mark.subprocess
def test_kernels_load_without_importing_scipy_linalg():
    """sim/jitting/options.py: numba's array implementations load without scipy.linalg (0.2 s).

    In a fresh interpreter, a kernel runs without ``scipy.linalg`` being imported,
    numba uses its own inner-product loop (no BLAS), and scipy still imports
    afterwards for anyone who wants it.
    """
    import subprocess
    import sys

    code = ("import sys\n"
            "import numpy as np\n"
            "from sim.kernels import rng\n"
            "rng.seed_stream(np.zeros(rng.STATE_SIZE, np.uint64), 1, 2, rng.DICE)\n"
            "import numba.np.arraymath as a\n"
            "print('scipy.linalg' in sys.modules, a._HAVE_BLAS)\n"
            "import scipy.linalg\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]
