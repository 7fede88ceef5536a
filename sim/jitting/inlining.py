"""Copy an inlined function's IR once, not once per block (numba issue #8989).

numba inlines a function compiled with ``inline="always"`` by copying the
callee's IR in ``numba.core.inline_closurecall.InlineWorker.inline_ir``, one
``copy.deepcopy`` per block, each with a fresh memo. Every variable refers to
the function's one scope, which holds every variable, so each block copies the
whole scope again: a callee of ``b`` blocks and ``v`` variables costs ``b * v``
copies. The campaign game body (:mod:`sim.kernels.campaign`, parts inlined into
one function, nested four deep) spent over 80 % of its compile time there.

:func:`install` gives the deep copies of one IR a shared memo, so the scope is
copied once per IR, as one ``copy.deepcopy`` of the whole IR would. It replaces
the ``copy`` module that ``inline_closurecall`` calls (its only use is that
loop) by a stand-in whose ``deepcopy`` shares the memo between consecutive
blocks of one scope, and starts a new memo when a block comes round again (the
next copy of the same IR) or another scope begins. The compiled code is the
same; only compile time changes. If numba no longer has that module global,
nothing is changed.
"""

from __future__ import annotations

import copy
import types

_state: dict = {"scope": None, "memo": {}}


def _deepcopy(value, memo=None):
    """``copy.deepcopy``, sharing one memo between the blocks of one IR copy."""
    if memo is not None or not hasattr(value, "scope") or not hasattr(value, "body"):
        return copy.deepcopy(value, memo)
    if value.scope is not _state["scope"] or id(value) in _state["memo"]:
        _state["scope"] = value.scope
        _state["memo"] = {}
    return copy.deepcopy(value, _state["memo"])


def install() -> None:
    """Patch numba's IR inliner to share the copy memo (idempotent)."""
    try:
        from numba.core import inline_closurecall
    except ImportError:  # pragma: no cover - numba reorganised: leave it alone
        return
    if getattr(inline_closurecall, "copy", None) is not copy:
        return
    stand_in = types.ModuleType("copy")
    stand_in.__dict__.update(copy.__dict__)
    stand_in.deepcopy = _deepcopy
    inline_closurecall.copy = stand_in
