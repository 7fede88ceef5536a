"""Battlefield geometry of the skirmish (seed 003), once, as single numba functions.

Every question the firefight kernel asks about the table is answered here and
nowhere else: is a figure inside a building (S-01), what a straight move costs
through doors, windows and floors (S-02, S-03), whether a line of sight is
blocked by a building and how many units of cover a line of fire crosses (S-19,
S-23), whether a figure came into sight (S-14), whether a second target is
within a weapon's spread (S-25), and whether a fleeing figure is surrounded
(S-39). The plain-Python twin, written independently (wall segments instead of
clipping), is :mod:`sim.reference.skirmish_geometry`; tests compare the two on
random battlefields.

Arrays (float64, built by :mod:`sim.skirmish.compile` from the scenario's battlefield):

bld : (n_buildings, B_COLS)
    ``x0, y0, x1, y1, floors, stairs`` of each footprint (axis-aligned).
opn : (n_openings, O_COLS)
    ``building, kind (DOOR | WINDOW), x, y, floor`` of each door and window; a
    point on its building's wall, ``half`` inches each side of it open.
cov : (n_cover, V_COLS)
    ``x0, y0, x1, y1, units, kind (HARD | SOFT)`` of each cover object (a segment).
"""

from __future__ import annotations

import numpy as np

from sim.jitting.options import jit

B_X0, B_Y0, B_X1, B_Y1, B_FLOORS, B_STAIRS, B_COLS = 0, 1, 2, 3, 4, 5, 6
O_BUILDING, O_KIND, O_X, O_Y, O_FLOOR, O_COLS = 0, 1, 2, 3, 4, 5
V_X0, V_Y0, V_X1, V_Y1, V_UNITS, V_KIND, V_COLS = 0, 1, 2, 3, 4, 5, 6
DOOR, WINDOW = 0, 1
HARD, SOFT = 0, 1
"""Cover that stops bullets (S-31 "cover") and cover that only hides ("partial cover")."""
OUTSIDE = -1
EPS = 1e-9
STEP = 0.01
"""How far past a wall line a figure stands after going through a door or window."""

# Results of a move (:func:`move_toward`).
MOVE_FREE, MOVE_WINDOW, MOVE_WALL = 0, 1, 2


@jit
def building_at(bld, x, y):
    """Index of the building that holds ``(x, y)`` strictly inside, or ``OUTSIDE`` (S-01)."""
    for i in range(bld.shape[0]):
        if bld[i, B_X0] < x < bld[i, B_X1] and bld[i, B_Y0] < y < bld[i, B_Y1]:
            return i
    return OUTSIDE


@jit
def clip(bld, i, ax, ay, bx, by):
    """Parameters ``(t0, t1)`` of the part of segment a..b inside building ``i``'s footprint.

    Liang-Barsky clipping; ``t1 - t0 <= EPS`` means the segment misses it.
    """
    t0 = 0.0
    t1 = 1.0
    dx = bx - ax
    dy = by - ay
    for k in range(4):
        if k == 0:
            p, q = -dx, ax - bld[i, B_X0]
        elif k == 1:
            p, q = dx, bld[i, B_X1] - ax
        elif k == 2:
            p, q = -dy, ay - bld[i, B_Y0]
        else:
            p, q = dy, bld[i, B_Y1] - ay
        if p == 0.0:
            if q <= 0.0:
                return 1.0, 0.0
            continue
        r = q / p
        if p < 0.0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
    return t0, t1


@jit
def opening_at(opn, i, x, y, floor, half):
    """Index of an opening of building ``i`` on ``floor`` whose gap holds ``(x, y)``, or -1.

    Doors open on the ground floor (0) only; windows on their floor (S-03).
    """
    for j in range(opn.shape[0]):
        if (opn[j, O_BUILDING] == i and opn[j, O_FLOOR] == floor
                and abs(opn[j, O_X] - x) <= half + EPS and abs(opn[j, O_Y] - y) <= half + EPS):
            return j
    return -1


@jit
def sight_blocked(bld, opn, half, ax, ay, afl, bx, by, bfl):
    """Whether buildings block the line of sight from a to b (S-19).

    A figure inside a building sees out, and is seen, only through a door or
    window of its floor where the line crosses the wall; two figures inside the
    same building see each other on the same floor only; a line through a
    building that holds neither figure is blocked (walls, S-19).
    """
    ia = building_at(bld, ax, ay)
    ib = building_at(bld, bx, by)
    if ia != OUTSIDE and ia == ib:
        return afl != bfl
    for i in range(bld.shape[0]):
        t0, t1 = clip(bld, i, ax, ay, bx, by)
        if t1 - t0 <= EPS:
            continue
        if i == ia:
            t, fl = t1, afl
        elif i == ib:
            t, fl = t0, bfl
        else:
            return True
        if opening_at(opn, i, ax + t * (bx - ax), ay + t * (by - ay), fl, half) < 0:
            return True
    return False


@jit
def segment_distance(px, py, ax, ay, bx, by):
    """Distance from point p to segment a..b."""
    dx = bx - ax
    dy = by - ay
    n = dx * dx + dy * dy
    t = 0.0
    if n > 0.0:
        t = min(1.0, max(0.0, ((px - ax) * dx + (py - ay) * dy) / n))
    ex = ax + t * dx - px
    ey = ay + t * dy - py
    return np.sqrt(ex * ex + ey * ey)


@jit
def segments_cross(ax, ay, bx, by, cx, cy, dx, dy):
    """Whether segments a..b and c..d cross (touching ends count)."""
    d1 = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx)
    d2 = (dx - cx) * (by - cy) - (dy - cy) * (bx - cx)
    d3 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    d4 = (bx - ax) * (dy - ay) - (by - ay) * (dx - ax)
    return d1 * d2 <= 0.0 and d3 * d4 <= 0.0 and not (d1 == 0.0 and d2 == 0.0)


@jit
def cover_crossed(bld, cov, ax, ay, afl, bx, by, bfl, b_entering, contact, shooter_counted,
                  height_clears):
    """Units of cover the line of fire a -> b crosses (S-23) and the best kind among them.

    Returns ``(units, level)``: ``level`` 2 if any crossed cover stops bullets,
    1 if only partial cover is crossed, 0 if none (the hit-table level, S-31).
    Counted: each cover object the line crosses, its ``units`` (none when
    either figure is on an upper floor and ``height_clears``); the wall of the
    target's building, 1 unit of cover (S-01; none while the target is only
    entering it, ``b_entering``); cover the shooter stands in (a cover object
    within ``contact`` inches of him, the wall of his own building) only when
    ``shooter_counted``.
    """
    units = 0
    level = 0
    ia = building_at(bld, ax, ay)
    ib = building_at(bld, bx, by)
    if ib != OUTSIDE and ib != ia and not b_entering:
        units += 1
        level = 2
    if ia != OUTSIDE and ia != ib and shooter_counted:
        units += 1
        level = 2
    if height_clears and (afl > 0 or bfl > 0):
        return units, level
    for j in range(cov.shape[0]):
        x0 = cov[j, V_X0]
        y0 = cov[j, V_Y0]
        x1 = cov[j, V_X1]
        y1 = cov[j, V_Y1]
        if not segments_cross(ax, ay, bx, by, x0, y0, x1, y1):
            continue
        if not shooter_counted and segment_distance(ax, ay, x0, y0, x1, y1) <= contact:
            continue
        units += np.int64(cov[j, V_UNITS])
        level = max(level, 2 if cov[j, V_KIND] == HARD else 1)
    return units, level


@jit
def fire_line(bld, opn, cov, half, ax, ay, afl, bx, by, bfl, b_entering, contact,
              shooter_counted, height_clears, block_units):
    """Hit-table level of the line of fire a -> b, or -1 if it cannot be fired along.

    -1 when a building blocks the line of sight (S-19) or the line crosses
    ``block_units`` (2) units of cover (S-23); else the cover level of
    :func:`cover_crossed` (S-31; a target inside a building is in cover, S-01).
    """
    if sight_blocked(bld, opn, half, ax, ay, afl, bx, by, bfl):
        return -1
    units, level = cover_crossed(bld, cov, ax, ay, afl, bx, by, bfl, b_entering, contact,
                                 shooter_counted, height_clears)
    if units >= block_units:
        return -1
    return level


@jit
def move_toward(bld, opn, half, door_cost, x, y, floor, tx, ty, inches, stop):
    """Move straight from ``(x, y)`` towards ``(tx, ty)`` with ``inches`` (S-03).

    The figure stops ``stop`` inches short of the goal. Crossing a wall through
    a door costs ``door_cost`` inches (S-03); through a window the move ends
    just past the wall (S-03; the figure may still fire); a wall with no
    opening where the line meets it (or an opening of another floor) stops the
    figure just before it. A figure above the ground floor cannot leave its
    building this way (it takes the stairs first, :func:`stairs_turn`).
    Returns ``(x, y, how)`` with ``how`` one of ``MOVE_FREE``, ``MOVE_WINDOW``,
    ``MOVE_WALL``.
    """
    dx = tx - x
    dy = ty - y
    dist = np.sqrt(dx * dx + dy * dy)
    left = min(inches, dist - stop)
    if left <= 0.0:
        return x, y, MOVE_FREE
    ux = dx / dist
    uy = dy / dist
    while left > 0.0:
        ex = x + ux * left
        ey = y + uy * left
        first = 2.0
        wall_b = -1
        for i in range(bld.shape[0]):
            t0, t1 = clip(bld, i, x, y, ex, ey)
            if t1 - t0 <= EPS:
                continue
            # The wall met first: leaving the building the step starts in, or entering another.
            if t0 <= EPS:
                if t1 >= 1.0 - EPS:
                    continue  # the whole step stays inside this building
                t = t1
            else:
                t = t0
            if t < first:
                first = t
                wall_b = i
        if wall_b < 0:
            return ex, ey, MOVE_FREE
        px = x + (ex - x) * first
        py = y + (ey - y) * first
        j = opening_at(opn, wall_b, px, py, floor, half)
        if j < 0 or floor > 0:
            back = max(first * left - STEP, 0.0)
            return x + ux * back, y + uy * back, MOVE_WALL
        used = first * left + STEP
        if opn[j, O_KIND] == WINDOW:
            return x + ux * used, y + uy * used, MOVE_WINDOW
        left -= used + door_cost
        x += ux * used
        y += uy * used
    return x, y, MOVE_FREE


ROUND = 1.0
"""How far outside a building's corner a figure going round it passes (inches, each axis)."""
MAX_LEGS = 8
"""Legs of one move at most when going round walls (each corner is a leg)."""


@jit
def _clear(bld, ax, ay, bx, by):
    """Whether the segment a..b passes through no building's footprint."""
    for i in range(bld.shape[0]):
        t0, t1 = clip(bld, i, ax, ay, bx, by)
        if t1 - t0 > EPS:
            return False
    return True


@jit
def _corner(bld, b, k):
    """Corner ``k`` (0..3, anticlockwise from the south-west) of building ``b``, ``ROUND``
    inches outside it on each axis.
    """
    x = bld[b, B_X0] - ROUND if k == 0 or k == 3 else bld[b, B_X1] + ROUND
    y = bld[b, B_Y0] - ROUND if k <= 1 else bld[b, B_Y1] + ROUND
    return x, y


@jit
def round_corner(bld, b, x, y, tx, ty):
    """The next corner on the shortest way from ``(x, y)`` round building ``b`` to ``(tx, ty)``.

    The way runs from ``(x, y)`` to a corner it sees past ``b`` (the segment misses
    ``b``), then from corner to corner (``ROUND`` inches out, :func:`_corner`) in one
    direction until a corner sees the goal past ``b``, then to the goal; of the
    start corners and both directions, the shortest. Returns the first corner of
    that way more than ``STEP`` from ``(x, y)``; ``(x, y, False)`` if there is none (the
    goal inside the building: no way round leads to it).
    """
    best = -1.0
    bx = x
    by = y
    for k in range(4):
        cx, cy = _corner(bld, b, k)
        t0, t1 = clip(bld, b, x, y, cx, cy)
        if t1 - t0 > EPS:
            continue
        for step in (1, 3):
            length = np.sqrt((cx - x) ** 2 + (cy - y) ** 2)
            first = k
            near = length <= STEP
            j = k
            px = cx
            py = cy
            seen = False
            for _ in range(4):
                t0, t1 = clip(bld, b, px, py, tx, ty)
                if t1 - t0 <= EPS:
                    seen = True
                    break
                j = (j + step) % 4
                qx, qy = _corner(bld, b, j)
                length += np.sqrt((qx - px) ** 2 + (qy - py) ** 2)
                if near:
                    first = j
                    near = False
                px = qx
                py = qy
            if near or not seen:
                continue  # no corner to go to, or the goal is inside the building
            length += np.sqrt((tx - px) ** 2 + (ty - py) ** 2)
            if best < 0.0 or length < best:
                best = length
                bx, by = _corner(bld, b, first)
    return bx, by, best >= 0.0


@jit
def move_round(bld, opn, half, door_cost, x, y, floor, tx, ty, inches, stop, go_round):
    """:func:`move_toward`, going round a wall that stops the figure (``battlefield.walls``).

    With ``go_round`` false this is :func:`move_toward`: a figure outside on the
    ground floor whose straight line meets a wall with no opening stops just
    before it (and, the goal unchanged, stays there). With ``go_round`` (the
    reading ``walls = "round"``) such a figure instead walks round that building:
    from where it started, along the shortest way past the building's corners
    (:func:`round_corner`, each leg clear of every building), then on towards the
    goal with the inches left, as often as walls stop it (``MAX_LEGS`` legs). A
    leg to a corner that would cross another building is not taken (the figure
    stops at the wall as without the reading), nor is a way round to a goal inside
    the building. Only stopped figures move differently; doors and windows on the
    straight line are used as before (S-03).

    Returns ``(x, y, how, rest)``: :func:`move_toward`'s result and the inches
    left once the goal is reached (the inches at the start of the last straight
    leg less its length; negative when the move ends short of it).
    """
    nx, ny, how = move_toward(bld, opn, half, door_cost, x, y, floor, tx, ty, inches, stop)
    left = inches
    if go_round:
        for _ in range(MAX_LEGS):
            if how != MOVE_WALL or floor > 0 or building_at(bld, x, y) != OUTSIDE:
                break
            dx = tx - x
            dy = ty - y
            dist = np.sqrt(dx * dx + dy * dy)
            b = building_at(bld, nx + dx / dist * 2.0 * STEP, ny + dy / dist * 2.0 * STEP)
            if b == OUTSIDE:
                break
            cx, cy, found = round_corner(bld, b, x, y, tx, ty)
            if not found or not _clear(bld, x, y, cx, cy):
                break
            leg = np.sqrt((cx - x) ** 2 + (cy - y) ** 2)
            if leg >= left:
                return x + (cx - x) * left / leg, y + (cy - y) * left / leg, MOVE_FREE, -1.0
            left -= leg
            x = cx
            y = cy
            nx, ny, how = move_toward(bld, opn, half, door_cost, x, y, floor, tx, ty, left,
                                      stop)
    return nx, ny, how, left - np.sqrt((tx - x) ** 2 + (ty - y) ** 2)


@jit
def stairs_turn(bld, b, floor, goal_floor):
    """The floor a figure in building ``b`` reaches in one turn towards ``goal_floor`` (S-02).

    Moving between floors by the stairs takes a whole turn (one floor a turn);
    a building without stairs keeps the figure on its floor.
    """
    if b == OUTSIDE or bld[b, B_STAIRS] == 0.0 or goal_floor == floor:
        return floor
    return floor + 1 if goal_floor > floor else floor - 1


@jit
def comes_into_sight(seen_before, in_range_before, seen_now, in_range_now):
    """Whether an enemy's move makes a figure take the In Sight test (S-14).

    It started its move out of the figure's sight and moved into it, or it
    started out of the figure's firing range and moved into it (within sight).
    """
    return seen_now and ((not seen_before) or (in_range_now and not in_range_before))


@jit
def within_spread(fx, fy, x, y, spread):
    """Whether a further target at ``(x, y)`` is within the spread of a volley at ``(fx, fy)``.

    S-25: several targets in one volley only "within the spread" of the weapon;
    read as within ``spread`` inches of the first target.
    """
    return (x - fx) * (x - fx) + (y - fy) * (y - fy) <= spread * spread + EPS


@jit
def surrounded(x, y, ex, ey, n_enemies, width, depth, inches):
    """Whether a fleeing figure at ``(x, y)`` is surrounded (S-39).

    "Those surrounded, who cannot move so as to stay more than 6 inches from
    the enemy along their whole path, surrender." Read as: each straight run to
    the nearest point of one of the four table edges is a path; a path is
    closed when it passes within ``inches`` of an enemy (``ex[:n], ey[:n]``,
    in normal condition); the figure is surrounded when every path is closed.
    """
    for edge in range(4):
        if edge == 0:
            gx, gy = x, 0.0
        elif edge == 1:
            gx, gy = x, depth
        elif edge == 2:
            gx, gy = 0.0, y
        else:
            gx, gy = width, y
        closed = False
        for e in range(n_enemies):
            if segment_distance(ex[e], ey[e], x, y, gx, gy) <= inches:
                closed = True
                break
        if not closed:
            return False
    return True


@jit
def entry_point(bld, opn, b, x, y, inward):
    """A point ``inward`` inches inside (negative: outside) the way in of building ``b``
    nearest to ``(x, y)``: its nearest door, else its nearest ground-floor window.

    The movement policy's waypoint into or out of a building (S-03: through a door
    costs 2 inches, through a window ends the move). Returns ``(px, py, found)``.
    """
    best = -1
    best_d = 0.0
    for kind in (DOOR, WINDOW):
        for j in range(opn.shape[0]):
            if opn[j, O_BUILDING] != b or opn[j, O_KIND] != kind or opn[j, O_FLOOR] != 0:
                continue
            d = (opn[j, O_X] - x) ** 2 + (opn[j, O_Y] - y) ** 2
            if best < 0 or d < best_d:
                best = j
                best_d = d
        if best >= 0:
            break
    if best < 0:
        return x, y, False
    ox = opn[best, O_X]
    oy = opn[best, O_Y]
    nx = 0.0
    ny = 0.0
    if abs(oy - bld[b, B_Y0]) <= EPS:
        ny = 1.0
    elif abs(oy - bld[b, B_Y1]) <= EPS:
        ny = -1.0
    elif abs(ox - bld[b, B_X0]) <= EPS:
        nx = 1.0
    else:
        nx = -1.0
    return ox + nx * inward, oy + ny * inward, True


@jit
def in_area(lit, x, y):
    """Whether ``(x, y)`` lies in one of the rectangles ``lit`` (a well-lit area, S-20)."""
    for i in range(lit.shape[0]):
        if lit[i, 0] <= x <= lit[i, 2] and lit[i, 1] <= y <= lit[i, 3]:
            return True
    return False
