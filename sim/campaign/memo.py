"""Tables of one ruleset remembered across compiles, read-only (a bounded per-process memo).

``zonesim optimize`` compiles a couple of hundred candidate policies of one scenario, and
most of them share the inputs of the costly tables: the enemy fights depend on the
stalker, armour, weapons, artefact slots, the fight policy and the Intellect, not on the
route, shopping list or bunker thresholds. :func:`per_ruleset` remembers such a table
builder's results by the ruleset's *identity* (its id, with a weak reference that must
still name the same object, so an id reused after the ruleset is gone never matches, and
the memo keeps no ruleset alive; a ruleset edited by :mod:`sim.rules.variants` is a new
object and compiles afresh) and the builder's other arguments, which are the whole of its
inputs. Every remembered array is made read-only, and a remembered dict is handed out as
a new dict of those arrays, so no caller can change a table another candidate reads.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np


def frozen(value: Any) -> Any:
    """``value`` with every array in it (dict values, tuple items) made read-only."""
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif isinstance(value, dict):
        for item in value.values():
            frozen(item)
    elif isinstance(value, tuple):
        for item in value:
            frozen(item)
    return value


def _handed(value: Any) -> Any:
    return dict(value) if isinstance(value, dict) else value


def per_ruleset(maxsize: int) -> Callable[[Callable], Callable]:
    """Remember ``build(rs, *args)`` by ``rs``'s identity and ``args`` (hashable), LRU.

    The decorated function has ``cache_clear()`` and ``cache_len()``. Thread-safe; two
    threads missing the same key both build it (the same value) and one is kept.
    """
    def wrap(build: Callable) -> Callable:
        cache: OrderedDict[tuple, tuple[weakref.ref, Any]] = OrderedDict()
        lock = threading.Lock()

        @functools.wraps(build)
        def get(rs, *args):
            key = (id(rs), *args)
            with lock:
                hit = cache.get(key)
                if hit is not None and hit[0]() is rs:
                    cache.move_to_end(key)
                    return _handed(hit[1])
            value = frozen(build(rs, *args))
            with lock:
                cache[key] = (weakref.ref(rs), value)
                cache.move_to_end(key)
                while len(cache) > maxsize:
                    cache.popitem(last=False)
            return _handed(value)

        def cache_clear() -> None:
            with lock:
                cache.clear()

        get.cache_clear = cache_clear
        get.cache_len = lambda: len(cache)
        return get
    return wrap
