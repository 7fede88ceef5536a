"""Variable liveness of numba IR with bit masks: numba's ``compute_live_map``, faster.

numba finds the variables live at the entry of each block
(``numba.core.analysis.compute_live_map``) with two fix-point passes over
Python sets. The first unions, into every block, every variable used or
defined on any path to it, so a function of ``b`` blocks and ``v`` variables
costs about ``b * v`` set insertions per pass. The campaign game body (the
parts of :mod:`sim.kernels.campaign` inlined into one function) is such a
function, and numba asks for its liveness about a thousand times while it
compiles it.

:func:`install` replaces that function, in the two numba modules that call
it on every compile, by the same computation on Python integers used as bit
masks (one bit per variable name), whose unions and intersections handle 64
variables per machine word. The passes, their order and their fixed point
are numba's, so the live sets, and the compiled code, are the same; only
compile time changes. If numba no longer has that function, nothing is
changed.
"""

from __future__ import annotations

import numpy as np


def compute_live_map(cfg, blocks, var_use_map, var_def_map):
    """The variables live at the entry of each block, as numba's ``compute_live_map``.

    Parameters
    ----------
    cfg : numba.core.controlflow.CFGraph
        The control-flow graph of ``blocks``.
    blocks : dict
        Block offset -> ``ir.Block``.
    var_use_map, var_def_map : dict
        Block offset -> set of names used before any definition in the
        block, and defined in it (``compute_use_defs``).

    Returns
    -------
    dict
        Block offset -> set of the names live at the block's entry.
    """
    names = list(dict.fromkeys(n for m in (var_use_map, var_def_map) for s in m.values()
                               for n in s))
    index = {name: i for i, name in enumerate(names)}
    width = (len(names) + 7) // 8

    def mask(members) -> int:
        buffer = bytearray(width)
        for name in members:
            i = index[name]
            buffer[i >> 3] |= 1 << (i & 7)
        return int.from_bytes(buffer, "little")

    use = {b: mask(s) for b, s in var_use_map.items()}
    define = {b: mask(s) for b, s in var_def_map.items()}
    topo_order = cfg.topo_order()
    succs = {b: [d for d, _ in cfg.successors(b)] for b in topo_order}
    reach = dict.fromkeys(blocks, 0)
    changed = True
    while changed:  # every name used or defined on some path to a block
        changed = False
        for b in topo_order:
            here = reach.get(b, 0) | define.get(b, 0) | use.get(b, 0)
            if here != reach.get(b, 0):
                reach[b] = here
                changed = True
            for d in succs[b]:
                joined = reach.get(d, 0) | here
                if joined != reach.get(d, 0):
                    reach[d] = joined
                    changed = True
    live = {b: use.get(b, 0) for b in blocks}
    preds = {b: [p for p, _ in cfg.predecessors(b)] for b in topo_order}
    changed = True
    while changed:  # push uses back to the predecessors that can reach them
        changed = False
        for b in reversed(topo_order):
            here = live[b]
            for p in preds[b]:
                joined = live[p] | (here & reach.get(p, 0) & ~define.get(p, 0))
                if joined != live[p]:
                    live[p] = joined
                    changed = True
    return {b: _members(m, names, width) for b, m in live.items()}


def _members(value: int, names: list, width: int) -> set:
    """The names whose bits are set in ``value``."""
    if value == 0:
        return set()
    bits = np.unpackbits(np.frombuffer(value.to_bytes(width, "little"), dtype=np.uint8),
                         bitorder="little")
    return {names[i] for i in np.flatnonzero(bits)}


numba_compute_live_map = None
"""numba's own function, kept by :func:`install` (the tests compare the two)."""


def install() -> None:
    """Use :func:`compute_live_map` in numba's IR passes (idempotent)."""
    global numba_compute_live_map
    try:
        from numba.core import analysis, ir_utils, postproc
    except ImportError:  # pragma: no cover - numba reorganised: leave it alone
        return
    original = getattr(analysis, "compute_live_map", None)
    if original is None or original is compute_live_map or postproc.analysis is not analysis:
        return
    numba_compute_live_map = original
    analysis.compute_live_map = compute_live_map
    if hasattr(ir_utils, "compute_live_map"):
        ir_utils.compute_live_map = compute_live_map
