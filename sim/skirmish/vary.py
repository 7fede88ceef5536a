"""Vary one battlefield value of a skirmish scenario, like a card value (issue 50).

``KEY=V1,V2,...`` names a value of the scenario's battlefield by the object's name:

- ``buildings.NAME.floors``: a building's storeys (whole number >= 1);
- ``buildings.NAME.openings.N``: its N-th door or window (doors first, then
  windows, in file order, from 1) made a ``door``, a ``window`` (on its floor) or
  ``none`` (walled up);
- ``cover.NAME.units``: a cover object's units of cover (1..4, S-23);
- ``cover.NAME.kind``: ``cover`` or ``partial`` (S-31).

``a..b`` stands for the whole numbers ``a`` to ``b`` (``cover.Wall.units=1..3``).
Each variant is checked as the file would be (a figure on a floor the building no
longer has is refused); :func:`variants` returns the scenarios in value order, and
:func:`grid` the cross product of several keys (``zonesim skirmish --vary``,
``zonesim compare skirmish``, ``zonesim sweep --experiment skirmish``).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Sequence

from sim.errors import InputError
from sim.rules.skirmish_model import Battlefield, Opening, Scenario

KEYS = ("buildings.NAME.floors", "buildings.NAME.openings.N", "cover.NAME.units",
        "cover.NAME.kind")


class VaryError(InputError):
    """A --vary text that names no battlefield value, or a value it cannot take."""


_RANGE = re.compile(r"(\d+)\.\.(\d+)")


def parse(text: str) -> tuple[str, list[str]]:
    """``KEY=V1,V2`` -> ``(KEY, [V1, V2])``; ``KEY=a..b`` -> ``(KEY, [a, ..., b])``."""
    key, sep, values = text.partition("=")
    items = [v.strip() for v in values.split(",") if v.strip()]
    span = _RANGE.fullmatch(items[0]) if len(items) == 1 else None
    if span is not None and int(span[1]) <= int(span[2]):
        items = [str(n) for n in range(int(span[1]), int(span[2]) + 1)]
    if not sep or not key.strip() or not items:
        raise VaryError(f"option '--vary': {text!r} is not KEY=V1,V2,... "
                        f"(keys: {', '.join(KEYS)})")
    return key.strip(), items


def _whole(key: str, value: str, low: int, high: int) -> int:
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or not low <= number <= high:
        raise VaryError(f"option '--vary': {key}={value!r} is not a whole number in "
                        f"{low}..{high}")
    return number


def _index(names, name: str, what: str, key: str) -> int:
    if name not in names:
        raise VaryError(f"option '--vary': {key}: no {what} named {name!r} on the "
                        f"battlefield (names: {', '.join(names)})")
    return names.index(name)


def _edit(field: Battlefield, key: str, value: str) -> Battlefield:
    section, _, rest = key.partition(".")
    name, _, attr = rest.rpartition(".")
    if section == "buildings" and name.rpartition(".")[2] == "openings":
        name, attr = name.rpartition(".")[0], f"openings.{attr}"
    if section == "buildings":
        i = _index([b.name for b in field.buildings], name, "building", key)
        b = field.buildings[i]
        if attr == "floors":
            b = dataclasses.replace(b, floors=_whole(key, value, 1, 10))
            if any(o.floor >= b.floors for o in b.openings):
                raise VaryError(f"option '--vary': {key}={value}: building {name!r} has a "
                                "window above that floor")
        elif attr.startswith("openings."):
            n = _whole(key, attr.partition(".")[2], 1, len(b.openings))
            if value not in ("door", "window", "none"):
                raise VaryError(f"option '--vary': {key}={value!r} is not one of door, "
                                "window, none")
            old = b.openings[n - 1]
            new = () if value == "none" else (Opening(value, old.x, old.y,
                                                      0 if value == "door" else old.floor),)
            b = dataclasses.replace(b, openings=b.openings[:n - 1] + new + b.openings[n:])
        else:
            raise VaryError(f"option '--vary': {key!r} is not a battlefield value "
                            f"(keys: {', '.join(KEYS)})")
        return dataclasses.replace(field, buildings=field.buildings[:i] + (b,)
                                   + field.buildings[i + 1:])
    if section == "cover":
        i = _index([c.name for c in field.cover], name, "cover object", key)
        c = field.cover[i]
        if attr == "units":
            c = dataclasses.replace(c, units=_whole(key, value, 1, 4))
        elif attr == "kind" and value in ("cover", "partial"):
            c = dataclasses.replace(c, kind=value)
        else:
            raise VaryError(f"option '--vary': {key}={value!r} is not a battlefield value "
                            f"(keys: {', '.join(KEYS)})")
        return dataclasses.replace(field, cover=field.cover[:i] + (c,) + field.cover[i + 1:])
    raise VaryError(f"option '--vary': {key!r} is not a battlefield value "
                    f"(keys: {', '.join(KEYS)})")


def variants(scenario: Scenario, key: str, values: list[str]) -> list[Scenario]:
    """The scenario with ``key`` set to each value, checked like the file."""
    if scenario.battlefield is None:
        raise VaryError(f"option '--vary': {scenario.path} has no [battlefield]")
    out = []
    for value in values:
        field = _edit(scenario.battlefield, key, value)
        for group in scenario.groups:
            for x, y, floor in group.positions:
                top = max((b.floors - 1 for b in field.buildings
                           if b.x < x < b.x + b.width and b.y < y < b.y + b.depth), default=0)
                if floor > top:
                    raise VaryError(f"option '--vary': {key}={value}: a figure of "
                                    f"{group.name!r} stands on floor {floor}")
        out.append(dataclasses.replace(scenario, battlefield=field))
    return out


def grid(scenario: Scenario, texts: Sequence[str]) -> list[tuple[tuple[str, ...], Scenario]]:
    """Every point of the cross product of the ``KEY=V1,V2`` texts (the first varies slowest).

    Returns ``(values, scenario)`` per point, ``values`` in the order of ``texts``;
    every point is checked as :func:`variants` checks one value.

    Raises
    ------
    VaryError
        A text that is not ``KEY=V1,V2``, a key given twice, or a value a point
        cannot take.
    """
    parsed = [parse(t) for t in texts]
    keys = [key for key, _ in parsed]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:
        raise VaryError(f"option '--vary': {', '.join(twice)} is varied twice")
    out = []
    for values in itertools.product(*(items for _, items in parsed)):
        point = scenario
        for key, value in zip(keys, values, strict=True):
            point = variants(point, key, [value])[0]
        out.append((values, point))
    return out
