"""Time parts of a run: functions of the library wrapped while a benchmark plays.

``bench_optimize.py`` and ``bench_rebalance.py`` split their wall time into the
kernel and the parts outside it; both wrap the same way, here once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType


def _timed(func: Callable, spent: dict, name: str) -> Callable:
    """``func`` adding its wall time to ``spent[name]``."""
    def timed(*a, **kw):
        start = time.perf_counter()
        try:
            return func(*a, **kw)
        finally:
            spent[name] += time.perf_counter() - start
    return timed


@contextmanager
def timing(parts: Sequence[tuple[ModuleType, str]]) -> Iterator[dict[str, float]]:
    """Wrap each ``(module, name)`` function while the block runs; yields the seconds spent
    in each, keyed ``module.name``, and puts every function back on the way out."""
    spent = {f"{m.__name__}.{n}": 0.0 for m, n in parts}
    real = [getattr(m, n) for m, n in parts]
    for (m, n), func in zip(parts, real, strict=True):
        setattr(m, n, _timed(func, spent, f"{m.__name__}.{n}"))
    try:
        yield spent
    finally:
        for (m, n), func in zip(parts, real, strict=True):
            setattr(m, n, func)
