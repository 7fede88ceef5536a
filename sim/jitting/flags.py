"""Compiler flags compared in a few microseconds: numba's ``TargetConfig.values``, faster.

While typing a function, numba looks every call's implementation up in a cache
keyed by the compiler flags (``numba.core.typing.templates``, ``_get_impl``);
each lookup hashes the flags and compares them with a stored key, and both
build ``TargetConfig.values()``: a dict of every option read through its
property, about 40 Python calls. The campaign game body makes about 100,000
such lookups while it compiles.

:func:`install` gives ``TargetConfig`` a ``values`` that builds the same dict
(the same keys in the same order, the same values) from the class's defaults
and the options set on the instance, which is what each property returns. If
numba's ``TargetConfig`` no longer keeps its options that way, nothing is
changed.
"""

from __future__ import annotations


def _values(self) -> dict:
    """Every option's value, in the order of ``options`` (``TargetConfig.values``)."""
    cls = type(self)
    defaults = cls.__dict__.get("_zonesim_defaults")
    if defaults is None:
        defaults = {name: option.default for name, option in cls.options.items()}
        cls._zonesim_defaults = defaults
    out = dict(defaults)
    out.update(self._values)
    return out


numba_values = None
"""numba's own ``TargetConfig.values``, kept by :func:`install` (the tests compare the two)."""


def install() -> None:
    """Use :func:`_values` for numba's compiler flags (idempotent)."""
    global numba_values
    try:
        from numba.core import targetconfig
    except ImportError:  # pragma: no cover - numba reorganised: leave it alone
        return
    config = getattr(targetconfig, "TargetConfig", None)
    if config is None or config.values is _values or not hasattr(config, "options"):
        return
    numba_values = config.values
    config.values = _values
