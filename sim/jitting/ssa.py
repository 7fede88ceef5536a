"""SSA reconstruction that visits only the blocks naming a variable: numba's, faster.

numba turns a function's IR into SSA form (``numba.core.ssa._run_ssa``) one
variable at a time: for each variable assigned more than once it rewrites
every statement of every block twice (fresh names for its definitions, then
each use tied to the definition that reaches it). A statement that does not
name the variable comes out unchanged, so a function of ``b`` blocks with
``v`` such variables costs ``v`` walks over the whole function. The campaign
game body (the parts of :mod:`sim.kernels.campaign` inlined into one
function) has hundreds of them.

:func:`install` replaces ``_run_ssa`` by the same algorithm, numba's own
handlers and phi placement, run only on the blocks whose statements name the
variable; every other block keeps its statements, as numba's walk would have
left them. The SSA form, and the compiled code, are the same; only compile
time changes. If numba no longer has these functions, nothing is changed.
"""

from __future__ import annotations

from collections import defaultdict

_NEEDED = ("_run_ssa", "_run_ssa_block_pass", "_iterated_domfronts", "_find_defs_violators",
           "_CacheListVars", "_make_states", "_FreshVarHandler", "_FixSSAVars",
           "_compute_phi_locations", "compute_cfg_from_blocks")

numba_run_ssa = None
"""numba's own ``_run_ssa``, kept by :func:`install` (the tests compare the two)."""


def run_ssa(blocks):
    """SSA reconstruction of ``blocks`` (label -> ``ir.Block``), as numba's ``_run_ssa``."""
    from numba.core import errors, ssa

    if not blocks:
        return {}
    cfg = ssa.compute_cfg_from_blocks(blocks)
    df_plus = ssa._iterated_domfronts(cfg)
    violators = ssa._find_defs_violators(blocks, cfg)
    cache_list_vars = ssa._CacheListVars()
    naming = defaultdict(set)  # variable name -> labels of the blocks that name it
    for label, block in blocks.items():
        for stmt in block.body:
            for var in stmt.list_vars():
                naming[var.name].add(label)
    for name in violators:
        labels = naming[name]
        states = ssa._make_states(blocks)
        states.update(varname=name, defmap=defaultdict(list))
        blocks = _rewrite(blocks, states, ssa._FreshVarHandler(), labels)
        defmap = states["defmap"]
        states = ssa._make_states(blocks)
        states.update(varname=name, defmap=defmap, phimap=defaultdict(list), cfg=cfg,
                      phi_locations=ssa._compute_phi_locations(df_plus, defmap))
        blocks = _rewrite(blocks, states, ssa._FixSSAVars(cache_list_vars), labels)
        for label, phis in states["phimap"].items():
            blocks[label].body = phis + blocks[label].body
    if ssa.compute_cfg_from_blocks(blocks) != cfg:
        raise errors.CompilerError("CFG mutated in SSA pass")
    return blocks


def _rewrite(blocks, states, handler, labels):
    """Rewrite the blocks in ``labels`` as numba's ``_run_block_rewrite`` does; copy the rest."""
    from numba.core import ir, ssa

    out = {}
    for label, block in blocks.items():
        new = ir.Block(scope=block.scope, loc=block.loc)
        if label in labels:
            states["label"] = label
            states["block"] = block
            new.body = list(ssa._run_ssa_block_pass(states, block, handler))
        else:
            new.body = list(block.body)
        out[label] = new
    return out


def install() -> None:
    """Use :func:`run_ssa` for numba's SSA reconstruction (idempotent)."""
    global numba_run_ssa
    try:
        from numba.core import ssa
    except ImportError:  # pragma: no cover - numba reorganised: leave it alone
        return
    if not all(hasattr(ssa, name) for name in _NEEDED) or ssa._run_ssa is run_ssa:
        return
    numba_run_ssa = ssa._run_ssa
    ssa._run_ssa = run_ssa
