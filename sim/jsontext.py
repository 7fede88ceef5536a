"""Strict JSON text of results: never ``NaN`` or ``Infinity`` (issue 43).

JSON has no NaN and no infinities; Python's :mod:`json` writes them as ``NaN``
and ``-Infinity`` unless told not to, and strict readers (JavaScript's
``JSON.parse``, Go, jq) then refuse the whole document. Every JSON document the
tool prints or writes (``--format json``, ``metadata.json``) goes through
:func:`finite`: a number that is not available (NaN: an exact value where there
is none, a change per 1,000 rubles of a card priced 0) or not finite is
``null``, the one JSON value for "no number here"; the document is then
dumped with ``allow_nan=False``, so a non-finite number that slipped past would
be an error, never invalid JSON.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable


def finite(obj):
    """``obj`` with numpy scalars as Python numbers and every non-finite float as None,
    recursively through dicts, lists and tuples (tuples become lists, as JSON has them).
    """
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite(v) for v in obj]
    if hasattr(obj, "item") and not isinstance(obj, str):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def dumps(obj, default: Callable | None = None, indent: int | None = 2, **options) -> str:
    """Strict JSON text of ``obj`` (:func:`finite`), indented by ``indent`` (None: one line);
    ``default`` converts what JSON has no type for and ``options`` go on, as
    :func:`json.dumps` takes them.
    """
    return json.dumps(finite(obj), indent=indent, default=default, allow_nan=False,
                      **options)
