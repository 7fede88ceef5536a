"""The one grid grammar of ``--vary``: which values a card cell or rule key takes.

``table.card.column=lo..hi`` (integers lo to hi), ``=lo..hi:step`` (numbers
from lo by step up to hi) or ``=a,b,c`` (the values as written). The path is
a card edit of :mod:`sim.rules.variants`. ``zonesim sweep`` runs every value;
``zonesim tune`` searches them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from sim.rules.variants import VariantError, parse_edit

_NUM = r"[+-]?(?:\d{1,18}\.?\d{0,18}|\.\d{1,18})(?:[eE][+-]?\d{1,3})?"
_RANGE = re.compile(rf"^\s*({_NUM})\s*\.\.\s*({_NUM})\s*(?::\s*({_NUM})\s*)?$")
_INT = re.compile(r"^[+-]?\d+$")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


@dataclass(frozen=True)
class Grid:
    """The values of one cell.

    Attributes
    ----------
    path : str
        ``table.card.column`` (or ``rules.section.key``).
    values : tuple of str
        The values in order, as they would be written in the CSV cell.
    integer_range : bool
        Whether they are a ``lo..hi`` integer range (step 1), the case a
        monotone search can bisect.
    """

    path: str
    values: tuple[str, ...]
    integer_range: bool = False


def number(text: str) -> int | float:
    """A grid value as a number: an int when written as one."""
    return int(text) if _INT.match(text) else float(text)


def _text(x: int | float) -> str:
    return str(x)


def parse_grid(text: str, max_values: int) -> Grid:
    """Parse ``path=lo..hi``, ``path=lo..hi:step`` or ``path=a,b,c``.

    Raises
    ------
    VariantError
        (field ``vary``) Malformed text, an unknown path, an empty range, a
        non-positive step, a repeated or empty value, or more than
        ``max_values`` values (counted before any is made).
    """
    path, eq, spec = text.partition("=")
    path = path.strip()
    if not eq or not spec.strip():
        raise VariantError(f"{text!r}: expected table.card.column=lo..hi, =lo..hi:step or "
                           "=a,b,c (e.g. enemies.Bloodsucker.endurance=2..6)", "vary")
    try:
        parse_edit(f"{path}=0")
    except VariantError as error:
        raise VariantError(f"{text!r}: {error}", "vary") from None
    if m := _RANGE.match(spec):
        _refuse_infinite(text, [g for g in m.groups() if g is not None])
        lo, hi = number(m.group(1)), number(m.group(2))
        step = 1 if m.group(3) is None else number(m.group(3))
        if step <= 0 or hi < lo:
            raise VariantError(f"{text!r}: empty range (need lo <= hi and step > 0)", "vary")
        span = (hi - lo) / step + 1e-9
        if math.isinf(span):  # -1e308..1e308, 0..1e300:1e-300: too many values to count
            raise VariantError(f"{text!r}: more than {max_values} values; at most "
                               f"{max_values} are allowed", "vary")
        n = math.floor(span) + 1
        if n > max_values:
            raise VariantError(f"{text!r}: {n} values; at most {max_values} are allowed", "vary")
        if all(isinstance(x, int) for x in (lo, hi, step)):
            values = tuple(_text(v) for v in range(int(lo), int(hi) + 1, int(step)))
        else:
            values = tuple(_text(round(lo + i * step, 12)) for i in range(n))
        integer = m.group(3) is None and isinstance(lo, int) and isinstance(hi, int)
        return Grid(path, values, integer_range=integer)
    if ".." in spec:
        raise VariantError(f"{text!r}: a range is lo..hi or lo..hi:step of numbers of at most "
                           "18 digits, e.g. 2..6", "vary")
    values = tuple(v.strip() for v in spec.split(","))
    if any(v == "" for v in values):
        raise VariantError(f"{text!r}: empty value in the list", "vary")
    if len(values) > max_values:
        raise VariantError(f"{text!r}: {len(values)} values; at most {max_values} are allowed",
                           "vary")
    if len(set(values)) != len(values):
        raise VariantError(f"{text!r}: a value is repeated", "vary")
    _refuse_infinite(text, [v for v in values if _NUMBER.fullmatch(v)])
    return Grid(path, values)


def _refuse_infinite(text: str, numbers: list[str]) -> None:
    """Refuse a number written past the float range (``1e400`` reads as infinity).

    No range of it can be counted, and a candidate of it would be tried as
    ``inf``, a value the user never wrote. Integers are exact at any length
    (their digits are checked where they are used).
    """
    for written in numbers:
        if not _INT.match(written) and math.isinf(float(written)):
            raise VariantError(f"{text!r}: {written} is out of the range of numbers (about "
                               "-1.8e308 to 1.8e308)", "vary")
