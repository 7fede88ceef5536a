"""One search per set of arguments, for tests that run one command several times.

A test that prints one search in several formats, or runs two commands whose searches
start from the same scenario with the same options, asks the same question twice; the
answer is the same (same seed, any thread count: tests/workflows/test_optimize.py). The
wrapper keeps each answer by its arguments, so each distinct search runs once.
"""

from __future__ import annotations

from collections.abc import Callable


def once(real: Callable) -> Callable:
    """``real`` with its results kept by the ``repr`` of its arguments.

    ``calls`` on the wrapper lists each call's key, ``searched`` how many ran ``real``.
    """
    kept: dict[str, object] = {}

    def wrapper(*args, **options):
        key = repr((args, sorted(options.items())))
        wrapper.calls.append(key)
        if key not in kept:
            kept[key] = real(*args, **options)
        return kept[key]

    wrapper.calls = []
    wrapper.searched = lambda: len(kept)
    return wrapper
