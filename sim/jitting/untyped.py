"""Build an inlined part's untyped IR once per compile, not once per place it is inlined.

numba inlines a function compiled with ``inline="always"`` through
``InlineWorker.inline_function`` (``numba.core.inline_closurecall``), which
runs the whole untyped pipeline over the function's bytecode (bytecode to IR,
then the untyped passes, its own parts inlined in turn) at every call site,
before ``inline_ir`` copies the result into the caller. A part inlined at ten
places was translated ten times, and each of its own parts ten times as often.

:func:`install` keeps the IR of each inlined function while one compile runs
(``numba.core.compiler.compile_extra`` and every compile nested in it) and
gives each call site a copy with a fresh function identity, as a new
translation would have: ``inline_ir`` copies every block it changes, so the
kept IR stays as it was made. A function is kept under the compiler flags it
was translated with and the caller's declared local types, and nothing is kept
between compiles (a module global changed between two compiles is read
again). The compiled code is the same; only compile time changes. If numba
no longer has these functions, nothing is changed.
"""

from __future__ import annotations

_kept: dict = {}
_depth = [0]
_numba: dict = {}


def _key(worker, function) -> tuple:
    """What a translation depends on besides the function: the compiler flags (but
    ``enable_ssa``, which the translation sets itself) and the declared local types.
    """
    flags = worker.flags.values()
    return (function, repr([(k, v) for k, v in flags.items() if k != "enable_ssa"]),
            repr(worker.locals))


def _inline_function(self, caller_ir, block, i, function, arg_typs=None):
    """``InlineWorker.inline_function``, translating each function once per compile."""
    key = _key(self, function)
    kept = _kept.get(key)
    if kept is None:
        callee_ir = self.run_untyped_passes(function)
        _kept[key] = callee_ir
    else:
        self.flags.enable_ssa = False  # as run_untyped_passes leaves the caller's flags
        callee_ir = kept.copy()
        callee_ir.func_id = kept.func_id.derive()
    return self.inline_ir(caller_ir, block, i, callee_ir, function.__code__.co_freevars,
                          arg_typs=arg_typs)


def _compile_extra(*args, **kwargs):
    """``numba.core.compiler.compile_extra``, forgetting the kept IR when the outermost
    compile ends.
    """
    _depth[0] += 1
    try:
        return _numba["compile_extra"](*args, **kwargs)
    finally:
        _depth[0] -= 1
        if _depth[0] == 0:
            _kept.clear()


def install() -> None:
    """Keep inlined functions' untyped IR through each compile (idempotent)."""
    try:
        from numba.core import compiler, inline_closurecall
    except ImportError:  # pragma: no cover - numba reorganised: leave it alone
        return
    worker = getattr(inline_closurecall, "InlineWorker", None)
    if worker is None or not hasattr(compiler, "compile_extra"):
        return
    if worker.inline_function is _inline_function:
        return
    _numba["inline_function"] = worker.inline_function
    _numba["compile_extra"] = compiler.compile_extra
    worker.inline_function = _inline_function
    compiler.compile_extra = _compile_extra
