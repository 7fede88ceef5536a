"""Plain-Python battlefield geometry (seed 003): the independent twin of the kernel's.

Written from the rules and docs/skirmish.md on the scenario model
(:class:`~sim.rules.skirmish_model.Battlefield`), not on the kernel's arrays,
and by another method: a building is its four wall segments, and every
question is answered by intersecting the line with those walls (the kernel
clips the line against the footprint). Tests compare the two on random
battlefields: line of sight (S-19), units of cover crossed and the cover level
(S-23, S-31, S-01), move costs through doors, windows and floors (S-02, S-03),
and encirclement (S-39).
"""

from __future__ import annotations

import math

from sim.rules.skirmish_model import Battlefield, Building

TINY = 1e-9
PAST = 0.01  # inches past a wall after a door or a window (docs/skirmish.md)


def inside(b: Building, x: float, y: float) -> bool:
    """Strictly inside the footprint (S-01)."""
    return b.x < x < b.x + b.width and b.y < y < b.y + b.depth


def home(field: Battlefield, x: float, y: float) -> int:
    """Index of the building holding the point, -1 outside."""
    return next((i for i, b in enumerate(field.buildings) if inside(b, x, y)), -1)


def walls(b: Building) -> list[tuple[float, float, float, float]]:
    """The four wall segments: south, north, west, east."""
    x0, y0, x1, y1 = b.x, b.y, b.x + b.width, b.y + b.depth
    return [(x0, y0, x1, y0), (x0, y1, x1, y1), (x0, y0, x0, y1), (x1, y0, x1, y1)]


def intersect(p, q, w) -> float | None:
    """Parameter along p..q where it meets wall segment ``w``, by Cramer's rule; None if not."""
    rx, ry = q[0] - p[0], q[1] - p[1]
    sx, sy = w[2] - w[0], w[3] - w[1]
    den = rx * sy - ry * sx
    if abs(den) < 1e-15:
        return None
    qpx, qpy = w[0] - p[0], w[1] - p[1]
    t = (qpx * sy - qpy * sx) / den
    u = (qpx * ry - qpy * rx) / den
    if -TINY <= t <= 1 + TINY and -TINY <= u <= 1 + TINY:
        return t
    return None


def crossings(field: Battlefield, p, q) -> list[tuple[float, int]]:
    """Every (parameter, building) where p..q meets a building's wall, nearest first."""
    out = []
    for i, b in enumerate(field.buildings):
        for w in walls(b):
            t = intersect(p, q, w)
            if t is not None:
                out.append((t, i))
    return sorted(out)


def gap(field: Battlefield, i: int, x: float, y: float, floor: int) -> str | None:
    """Kind of the opening of building ``i`` on ``floor`` whose gap holds the point, or None."""
    half = field.opening_width / 2
    for o in field.buildings[i].openings:
        if o.floor == floor and abs(o.x - x) <= half + TINY and abs(o.y - y) <= half + TINY:
            return o.kind
    return None


def blocked(field: Battlefield, a, b) -> bool:
    """S-19: is the line of sight between figures ``a`` and ``b`` ((x, y, floor)) blocked?"""
    ia, ib = home(field, a[0], a[1]), home(field, b[0], b[1])
    if ia >= 0 and ia == ib:
        return a[2] != b[2]
    for t, i in crossings(field, a, b):
        if i not in (ia, ib):
            return True
        floor = a[2] if i == ia else b[2]
        x, y = a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])
        if gap(field, i, x, y, floor) is None:
            return True
    return False


def _point_to_segment(px, py, x0, y0, x1, y1) -> float:
    length2 = (x1 - x0) ** 2 + (y1 - y0) ** 2
    if length2 == 0:
        return math.hypot(px - x0, py - y0)
    t = ((px - x0) * (x1 - x0) + (py - y0) * (y1 - y0)) / length2
    if t <= 0:
        return math.hypot(px - x0, py - y0)
    if t >= 1:
        return math.hypot(px - x1, py - y1)
    return abs((x1 - x0) * (y0 - py) - (x0 - px) * (y1 - y0)) / math.sqrt(length2)


def cover(field: Battlefield, a, b, *, entering=False, contact=1.0, shooter_counted=False,
          height_clears=True) -> tuple[int, int]:
    """S-23, S-31, S-01: ``(units, level)`` of the line of fire a -> b (see the kernel's doc)."""
    ia, ib = home(field, a[0], a[1]), home(field, b[0], b[1])
    units, level = 0, 0
    if ib >= 0 and ib != ia and not entering:
        units, level = units + 1, 2
    if ia >= 0 and ia != ib and shooter_counted:
        units, level = units + 1, 2
    if height_clears and (a[2] > 0 or b[2] > 0):
        return units, level
    for c in field.cover:
        if intersect(a, b, (c.x0, c.y0, c.x1, c.y1)) is None:
            continue
        if not shooter_counted and _point_to_segment(a[0], a[1], c.x0, c.y0, c.x1,
                                                     c.y1) <= contact:
            continue
        units += c.units
        level = max(level, 2 if c.kind == "cover" else 1)
    return units, level


def fire_level(field: Battlefield, a, b, *, block_units=2, **options) -> int:
    """-1 if a cannot fire at b (S-19 sight blocked, S-23 units), else the cover level."""
    if blocked(field, a, b):
        return -1
    units, level = cover(field, a, b, **options)
    return -1 if units >= block_units else level


def move(field: Battlefield, start, goal, inches: float, *, door=2.0, stop=0.0):
    """S-03: where a straight move from ``start`` ((x, y, floor)) towards ``goal`` ends.

    Returns ``(x, y, how)``, ``how`` in ``free``, ``window``, ``wall``.
    """
    x, y, floor = start
    dist = math.hypot(goal[0] - x, goal[1] - y)
    left = min(inches, dist - stop)
    if left <= 0:
        return x, y, "free"
    ux, uy = (goal[0] - x) / dist, (goal[1] - y) / dist
    while left > 0:
        end = (x + ux * left, y + uy * left)
        hits = [(t, i) for t, i in crossings(field, (x, y), end) if t * left > TINY]
        if not hits:
            return end[0], end[1], "free"
        t, i = hits[0]
        px, py = x + ux * t * left, y + uy * t * left
        kind = gap(field, i, px, py, floor)
        if kind is None or floor > 0:
            back = max(t * left - PAST, 0.0)
            return x + ux * back, y + uy * back, "wall"
        used = t * left + PAST
        if kind == "window":
            return x + ux * used, y + uy * used, "window"
        x, y, left = x + ux * used, y + uy * used, left - used - door
    return x, y, "free"


def is_surrounded(field: Battlefield, at, enemies, inches: float) -> bool:
    """S-39: every straight run to the nearest point of each table edge passes within
    ``inches`` of an enemy.
    """
    x, y = at
    goals = [(x, 0.0), (x, field.depth), (0.0, y), (field.width, y)]
    return all(any(_point_to_segment(ex, ey, x, y, gx, gy) <= inches for ex, ey in enemies)
               for gx, gy in goals)


ROUND = 1.0  # inches outside a corner a figure going round a building passes (docs/skirmish.md)


def _misses(b: Building, p, q) -> bool:
    """Whether segment p..q stays out of the footprint of ``b`` (touching it is allowed)."""
    ts = sorted({0.0, 1.0, *(t for w in walls(b) if (t := intersect(p, q, w)) is not None)})
    for t0, t1 in zip(ts, ts[1:], strict=False):
        t = (t0 + t1) / 2
        if t1 - t0 > TINY and inside(b, p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])):
            return False
    return True


def way_round(b: Building, start, goal) -> list[tuple[float, float]]:
    """The corners of the shortest way from ``start`` to ``goal`` round building ``b``.

    A shortest path in the visibility graph of the start, the goal and the four
    corners ``ROUND`` inches out (Dijkstra; an edge is a segment that misses ``b``).
    """
    corners = [(b.x - ROUND, b.y - ROUND), (b.x + b.width + ROUND, b.y - ROUND),
               (b.x + b.width + ROUND, b.y + b.depth + ROUND), (b.x - ROUND, b.y + b.depth + ROUND)]
    nodes = [tuple(start[:2]), *corners, tuple(goal[:2])]
    dist = {0: 0.0}
    prev: dict[int, int] = {}
    todo = set(range(len(nodes)))
    while todo:
        u = min((n for n in todo if n in dist), key=dist.get, default=None)
        if u is None:
            break
        todo.discard(u)
        for v in todo:
            if _misses(b, nodes[u], nodes[v]):
                d = dist[u] + math.dist(nodes[u], nodes[v])
                if d < dist.get(v, math.inf) - 1e-12:
                    dist[v], prev[v] = d, u
    path, n = [], len(nodes) - 1
    while n in prev:
        n = prev[n]
        if n != 0:
            path.append(nodes[n])
    return path[::-1]


def move_round(field: Battlefield, start, goal, inches: float, *, door=2.0, stop=0.0,
               legs: int = 8):
    """:func:`move`, going round a building whose wall stops the figure (``walls = "round"``).

    A figure outside on the ground floor that a wall stops walks instead, from where
    it started, to the first corner of :func:`way_round` (if that leg crosses no
    building), then on towards the goal; again while walls stop it (``legs`` times).
    Returns ``(x, y, how, rest)``: ``rest`` the inches left at the start of the last
    straight leg less its length (negative when the move ends short of the goal).
    """
    x, y, how = move(field, start, goal, inches, door=door, stop=stop)
    here, left = tuple(start), inches
    for _ in range(legs):
        if how != "wall" or here[2] > 0 or home(field, here[0], here[1]) >= 0:
            break
        ahead = (goal[0] - here[0], goal[1] - here[1])
        norm = math.hypot(*ahead)
        b = home(field, x + ahead[0] / norm * 2 * PAST, y + ahead[1] / norm * 2 * PAST)
        if b < 0:
            break
        way = [c for c in way_round(field.buildings[b], here, goal)
               if math.dist(c, here[:2]) > PAST]
        if not way or not all(_misses(o, here, way[0]) for o in field.buildings):
            break
        leg = math.dist(here[:2], way[0])
        if leg >= left:
            f = left / leg
            return (here[0] + (way[0][0] - here[0]) * f, here[1] + (way[0][1] - here[1]) * f,
                    "free", -1.0)
        left -= leg
        here = (*way[0], here[2])
        x, y, how = move(field, here, goal, left, door=door, stop=stop)
    return x, y, how, left - math.dist(here[:2], goal[:2])
