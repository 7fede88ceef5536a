"""Loading and validating a skirmish scenario's ``[battlefield]`` (seed 003, S-01..S-23).

The battlefield is a plane in inches (origin at a table corner): buildings with
their footprint, floors, stairs, doors and windows on their walls; cover objects
(segments with their units of cover, S-23, and whether they stop bullets or only
hide, S-31); well-lit areas (S-20); and each figure's start position (the
groups' ``positions``). Every problem is collected on the scenario's
:class:`~sim.rules.tomlfile.TomlFile`, naming file, line, key and value, so that
the loader reports them all at once.

The geometry used here is only what validation needs (does a point lie on a
wall, do two footprints overlap, does a straight line between the sides cross a
building); the fight's geometry is :mod:`sim.kernels.skirmish_geometry`.
"""

from __future__ import annotations

from sim.rules.skirmish_model import Area, Battlefield, Building, CoverObject, Opening
from sim.rules.tomlfile import TomlFile, suggest

MAX_INCHES = 1000.0
MAX_FLOORS = 10
WALL_INCHES = 0.25
"""A figure closer than this to a wall line stands inside the wall (a bad position)."""

FIELD_KEYS = ("width", "depth", "opening_width", "walls", "buildings", "cover", "lit")
BUILDING_KEYS = ("name", "x", "y", "width", "depth", "floors", "stairs", "doors", "windows")
COVER_KEYS = ("name", "from", "to", "units", "kind")
AREA_KEYS = ("x", "y", "width", "depth")
COVER_KINDS = ("cover", "partial")
MOVEMENT_POLICIES = ("advance", "hold")
WALL_READINGS = ("round", "stop")
"""``battlefield.walls``: a figure whose straight move meets a wall with no opening goes
round the building (``round``, the default) or stops at the wall (``stop``)."""


def _number(file: TomlFile, table: dict, key: str, full: str, low: float, high: float,
            default: float | None = None) -> float | None:
    if key not in table:
        if default is None:
            file.problem(full, None, "is missing")
        return default
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        file.problem(full, value, "is not a number")
        return None
    if not low <= value <= high:
        file.problem(full, value, f"is not in {low:g}..{high:g}")
        return None
    return float(value)


def _point(file: TomlFile, value, full: str, size: tuple[int, ...] = (2,)) -> tuple | None:
    """``[x, y]`` (or ``[x, y, floor]`` where 3 is in ``size``) as floats and an int floor."""
    if (not isinstance(value, list) or len(value) not in size
            or any(isinstance(v, bool) or not isinstance(v, int | float) for v in value)):
        what = " or ".join(("[x, y]", "[x, y, floor]")[n - 2] for n in size)
        file.problem(full, value, f"is not a point {what}")
        return None
    if len(value) == 3 and (not isinstance(value[2], int) or value[2] < 0):
        file.problem(full, value, "has a floor that is not a whole number >= 0")
        return None
    return (float(value[0]), float(value[1]), int(value[2]) if len(value) == 3 else 0)


def _tables(file: TomlFile, table: dict, key: str) -> list[tuple[str, dict]]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        file.problem(f"battlefield.{key}", value, "is not an array of tables [[...]]")
        return []
    return [(f"battlefield.{key}[{i}]", v) for i, v in enumerate(value, start=1)]


def _unknown(file: TomlFile, table: dict, known, prefix: str) -> None:
    for key in table:
        if key not in known:
            file.problem(f"{prefix}.{key}", None, f"unknown key{suggest(key, known)}")


def _inside_table(file: TomlFile, full: str, value, x0, y0, x1, y1, width, depth) -> bool:
    if min(x0, x1) < 0 or min(y0, y1) < 0 or max(x0, x1) > width or max(y0, y1) > depth:
        file.problem(full, value, f"is not on the {width:g} x {depth:g} inch table")
        return False
    return True


def wall_of(b: Building, x: float, y: float, eps: float = 1e-9) -> str | None:
    """The wall of ``b`` that the point lies on, away from the corners, or None."""
    x1, y1 = b.x + b.width, b.y + b.depth
    if b.x < x < x1:
        if abs(y - b.y) <= eps:
            return "south"
        if abs(y - y1) <= eps:
            return "north"
    if b.y < y < y1:
        if abs(x - b.x) <= eps:
            return "west"
        if abs(x - x1) <= eps:
            return "east"
    return None


def _openings(file: TomlFile, b: Building, table: dict, prefix: str):
    out = []
    for kind, key in (("door", "doors"), ("window", "windows")):
        raw = table.get(key, [])
        full = f"{prefix}.{key}"
        if not isinstance(raw, list):
            file.problem(full, raw, "is not a list of points")
            continue
        for item in raw:
            point = _point(file, item, full, (2,) if kind == "door" else (2, 3))
            if point is None:
                continue
            x, y, floor = point
            if wall_of(b, x, y) is None:
                file.problem(full, item, f"{kind} is on no wall of building '{b.name}'")
            elif floor >= b.floors:
                file.problem(full, item, f"window is on floor {floor}, but building "
                             f"'{b.name}' has floors 0..{b.floors - 1}")
            else:
                out.append(Opening(kind=kind, x=x, y=y, floor=floor))
    return tuple(out)


def _building(file: TomlFile, prefix: str, table: dict,
              field: tuple[float, float]) -> Building | None:
    _unknown(file, table, BUILDING_KEYS, prefix)
    name = table.get("name", prefix)
    if not isinstance(name, str):
        file.problem(f"{prefix}.name", name, "is not a string")
        name = prefix
    x = _number(file, table, "x", f"{prefix}.x", 0, MAX_INCHES)
    y = _number(file, table, "y", f"{prefix}.y", 0, MAX_INCHES)
    w = _number(file, table, "width", f"{prefix}.width", 0.5, MAX_INCHES)
    d = _number(file, table, "depth", f"{prefix}.depth", 0.5, MAX_INCHES)
    floors = table.get("floors", 1)
    if isinstance(floors, bool) or not isinstance(floors, int) or not 1 <= floors <= MAX_FLOORS:
        file.problem(f"{prefix}.floors", floors, f"is not a whole number in 1..{MAX_FLOORS}")
        floors = None
    stairs = table.get("stairs", True)
    if not isinstance(stairs, bool):
        file.problem(f"{prefix}.stairs", stairs, "is not true or false")
    if None in (x, y, w, d, floors) or not isinstance(stairs, bool):
        return None
    if not _inside_table(file, prefix, name, x, y, x + w, y + d, *field):
        return None
    b = Building(name=name, x=x, y=y, width=w, depth=d, floors=floors, stairs=stairs)
    openings = _openings(file, b, table, prefix)
    return Building(name=name, x=x, y=y, width=w, depth=d, floors=floors, stairs=stairs,
                    openings=openings)


def _cover(file: TomlFile, prefix: str, table: dict, field) -> CoverObject | None:
    _unknown(file, table, COVER_KEYS, prefix)
    name = table.get("name", prefix)
    if not isinstance(name, str):
        file.problem(f"{prefix}.name", name, "is not a string")
        name = prefix
    ends = []
    for key in ("from", "to"):
        if key not in table:
            file.problem(prefix, None, f"cover object '{name}' has no '{key}'")
            ends.append(None)
        else:
            ends.append(_point(file, table[key], f"{prefix}.{key}"))
    units = table.get("units", 1)
    if isinstance(units, bool) or not isinstance(units, int) or not 1 <= units <= 4:
        file.problem(f"{prefix}.units", units, "is not a whole number of units in 1..4")
        units = None
    kind = table.get("kind", "cover")
    if kind not in COVER_KINDS:
        file.problem(f"{prefix}.kind", kind, f"is not one of {', '.join(COVER_KINDS)}")
        kind = None
    if None in ends or units is None or kind is None:
        return None
    (x0, y0, _), (x1, y1, _) = ends
    if not _inside_table(file, prefix, name, x0, y0, x1, y1, *field):
        return None
    return CoverObject(name=name, x0=x0, y0=y0, x1=x1, y1=y1, units=units, kind=kind)


def _area(file: TomlFile, prefix: str, table: dict, field) -> Area | None:
    _unknown(file, table, AREA_KEYS, prefix)
    x = _number(file, table, "x", f"{prefix}.x", 0, MAX_INCHES)
    y = _number(file, table, "y", f"{prefix}.y", 0, MAX_INCHES)
    w = _number(file, table, "width", f"{prefix}.width", 0.5, MAX_INCHES)
    d = _number(file, table, "depth", f"{prefix}.depth", 0.5, MAX_INCHES)
    if None in (x, y, w, d) or not _inside_table(file, prefix, [x, y], x, y, x + w, y + d,
                                                   *field):
        return None
    return Area(x=x, y=y, width=w, depth=d)


def load_battlefield(file: TomlFile, raw) -> Battlefield | None:
    """The scenario's ``[battlefield]`` table, validated (problems go to ``file``).

    None if its size is unusable; otherwise the objects that passed.
    """
    if not isinstance(raw, dict):
        file.problem("battlefield", raw, "is not a table")
        return None
    _unknown(file, raw, FIELD_KEYS, "battlefield")
    width = _number(file, raw, "width", "battlefield.width", 1, MAX_INCHES)
    depth = _number(file, raw, "depth", "battlefield.depth", 1, MAX_INCHES)
    opening = _number(file, raw, "opening_width", "battlefield.opening_width", 0.1, 20, 2.0)
    walls = raw.get("walls", WALL_READINGS[0])
    if walls not in WALL_READINGS:
        file.problem("battlefield.walls", walls, f"is not one of {', '.join(WALL_READINGS)}")
        walls = None
    if None in (width, depth, opening, walls):
        return None
    field = (width, depth)
    buildings = [(p, _building(file, p, t, field))
                 for p, t in _tables(file, raw, "buildings")]
    for j, (pj, b) in enumerate(buildings):
        for pi, a in buildings[:j]:
            if a is not None and b is not None and _overlap(a, b):
                file.problem(pj, b.name, f"overlaps building '{a.name}' ({pi})")
    cover = [_cover(file, p, t, field) for p, t in _tables(file, raw, "cover")]
    lit = [_area(file, p, t, field) for p, t in _tables(file, raw, "lit")]
    # The objects that passed, so that the figures' positions are still checked on them;
    # the file has problems (and loads nothing) if any object was dropped.
    return Battlefield(width=width, depth=depth,
                       buildings=tuple(b for _, b in buildings if b is not None),
                       cover=tuple(c for c in cover if c is not None),
                       lit=tuple(a for a in lit if a is not None), opening_width=opening,
                       walls=walls)


def _overlap(a: Building, b: Building) -> bool:
    """Whether two footprints share more than a wall line."""
    return (a.x < b.x + b.width and b.x < a.x + a.width
            and a.y < b.y + b.depth and b.y < a.y + a.depth)


def building_at(field: Battlefield, x: float, y: float) -> int:
    """Index of the building whose footprint holds the point strictly inside, or -1."""
    for i, b in enumerate(field.buildings):
        if b.x < x < b.x + b.width and b.y < y < b.y + b.depth:
            return i
    return -1


def _near_wall(b: Building, x: float, y: float) -> bool:
    x1, y1 = b.x + b.width, b.y + b.depth
    near_x = b.x - WALL_INCHES < x < x1 + WALL_INCHES
    near_y = b.y - WALL_INCHES < y < y1 + WALL_INCHES
    return ((near_x and (abs(y - b.y) < WALL_INCHES or abs(y - y1) < WALL_INCHES))
            or (near_y and (abs(x - b.x) < WALL_INCHES or abs(x - x1) < WALL_INCHES)))


def positions(file: TomlFile, field: Battlefield, table: dict, prefix: str,
              n: int) -> tuple[tuple[float, float, int], ...] | None:
    """A group's ``positions`` on the battlefield: one ``[x, y]`` or ``[x, y, floor]`` a figure."""
    full = f"{prefix}.positions"
    raw = table.get("positions")
    if raw is None:
        file.problem(prefix, None, "has no 'positions' (every figure needs a place on the "
                     "battlefield)")
        return None
    if not isinstance(raw, list) or len(raw) != n:
        file.problem(full, raw, f"is not a list of {n} points (one a figure)")
        return None
    out = []
    for item in raw:
        point = _point(file, item, full, (2, 3))
        if point is None:
            return None
        x, y, floor = point
        if not (0 <= x <= field.width and 0 <= y <= field.depth):
            file.problem(full, item, f"is not on the {field.width:g} x {field.depth:g} inch table")
            return None
        wall = next((b for b in field.buildings if _near_wall(b, x, y)), None)
        if wall is not None:
            file.problem(full, item, f"is inside a wall of building '{wall.name}'")
            return None
        inside = building_at(field, x, y)
        top = field.buildings[inside].floors - 1 if inside >= 0 else 0
        if floor > top:
            where = (f"building '{field.buildings[inside].name}' has floors 0..{top}"
                     if inside >= 0 else "outside a building only floor 0 exists")
            file.problem(full, item, f"is on floor {floor}, but {where}")
            return None
        out.append((x, y, floor))
    return tuple(out)


def _crosses(b: Building, p: tuple, q: tuple) -> bool:
    """Whether the segment p..q passes through the inside of ``b`` (Liang-Barsky clip)."""
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for edge_p, edge_q in ((-dx, p[0] - b.x), (dx, b.x + b.width - p[0]),
                           (-dy, p[1] - b.y), (dy, b.y + b.depth - p[1])):
        if edge_p == 0:
            if edge_q <= 0:
                return False
            continue
        r = edge_q / edge_p
        if edge_p < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
    return t1 - t0 > 1e-9


def check_line_between(file: TomlFile, field: Battlefield, groups: list, places: list) -> None:
    """Refuse a battlefield where no straight line joins the sides and nobody moves.

    A line joins two figures unless it passes through a building that holds
    neither of them (S-19: buildings block sight). If every line is blocked
    and both groups ``hold``, the fight can never start.
    """
    if any(g.movement == "advance" for g in groups):
        return
    for p in places[0]:
        for q in places[1]:
            mine = {building_at(field, p[0], p[1]), building_at(field, q[0], q[1])}
            if not any(_crosses(b, p, q) for i, b in enumerate(field.buildings)
                       if i not in mine):
                return
    file.problem("battlefield", None, "has no line between the sides: every line from one "
                 "group to the other crosses a building and both groups hold (movement = "
                 "'hold'), so the fight could never start")
