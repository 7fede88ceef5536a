"""Battlefield geometry (issue 50): the kernel's numba functions against the independent
plain-Python reference on random battlefields, and hand-worked cases per rule ID
(S-01, S-02, S-03, S-14, S-19, S-23, S-25, S-39)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sim.kernels import skirmish_geometry as g
from sim.reference import skirmish_geometry as ref
from sim.rules.skirmish_model import Battlefield, Building, CoverObject, Opening
from sim.skirmish.compile import compile_field


def _building(name, x, y, w, d, floors=2, stairs=True, openings=()):
    return Building(name=name, x=x, y=y, width=w, depth=d, floors=floors, stairs=stairs,
                    openings=tuple(openings))


# A hand-drawn street: the Shop 0..10 x 0..10 with a door in its north wall at (5, 10),
# a ground-floor window in its east wall at (10, 5) and an upper window at (2, 10) floor 1;
# a low wall (1 unit) from (20, 0) to (20, 10); a wreck (2 units) from (30, 20) to (34, 20);
# a hedge (partial) from (14, 14) to (14, 20).
SHOP = _building("Shop", 0, 0, 10, 10, floors=2, openings=[
    Opening("door", 5, 10), Opening("window", 10, 5), Opening("window", 2, 10, 1)])
FIELD = Battlefield(width=48, depth=36, buildings=(SHOP,), cover=(
    CoverObject("wall", 20, 0, 20, 10, 1, "cover"),
    CoverObject("wreck", 30, 20, 34, 20, 2, "cover"),
    CoverObject("hedge", 14, 14, 14, 20, 1, "partial")), opening_width=2)
C = compile_field(FIELD)


def _level(a, b, entering=False, counted=False, height=True):
    return g.fire_line(C.bld, C.opn, C.cov, C.half, a[0], a[1], a[2], b[0], b[1], b[2],
                       entering, 1.0, counted, height, 2)


def test_s19_buildings_block_sight_except_through_openings():
    # Inside at (9, 5) looking out of the east window at (10, 5): clear to (16, 5).
    assert not g.sight_blocked(C.bld, C.opn, C.half, 9, 5, 0, 16, 5, 0)
    # The same figure looking through the solid south wall: blocked.
    assert g.sight_blocked(C.bld, C.opn, C.half, 9, 5, 0, 9, -1 + 1e-3, 0)
    # A line through the whole building between two figures outside: blocked.
    assert g.sight_blocked(C.bld, C.opn, C.half, 5, -0.5, 0, 5, 12, 0)
    # The upper window (2, 10) opens on floor 1 only.
    assert not g.sight_blocked(C.bld, C.opn, C.half, 2, 9, 1, 2, 20, 0)
    assert g.sight_blocked(C.bld, C.opn, C.half, 2, 9, 0, 2, 20, 0)
    # Same building, different floors: no sight (the floor between them).
    assert g.sight_blocked(C.bld, C.opn, C.half, 2, 2, 0, 8, 8, 1)
    assert not g.sight_blocked(C.bld, C.opn, C.half, 2, 2, 1, 8, 8, 1)


def test_s23_two_units_cannot_be_fired_along_and_s31_levels():
    assert _level((16, 5, 0), (24, 5, 0)) == 2          # across the 1-unit wall: in cover
    assert _level((16, 5, 0), (19.5, 5, 0)) == 0        # the wall is behind the target
    assert _level((32, 16, 0), (32, 24, 0)) == -1       # across the 2-unit wreck (S-23)
    assert _level((12, 17, 0), (16, 17, 0)) == 1        # across the hedge: partial cover
    assert _level((19.5, 5, 0), (24, 5, 0)) == 0        # the shooter's own wall is ignored
    assert _level((19.5, 5, 0), (24, 5, 0), counted=True) == 2
    # A target inside the Shop seen through the window: in cover (S-01), 1 unit.
    assert _level((16, 5, 0), (9, 5, 0)) == 2
    # ... but not while it is only entering (S-01: counts as in the open).
    assert _level((16, 5, 0), (9, 5, 0), entering=True) == 0
    # The Shop's wall (1 unit) and the low wall (1 unit): 2 units, no shot (S-23).
    assert _level((24, 5, 0), (9, 5, 0)) == -1
    # From the upper floor the low cover is fired over (height_clears_cover).
    assert _level((2, 9, 1), (2, 20, 0)) == 0


def test_s01_inside_outside():
    assert g.building_at(C.bld, 5, 5) == 0
    assert g.building_at(C.bld, 11, 5) == g.OUTSIDE
    assert g.building_at(C.bld, 10, 5) == g.OUTSIDE  # on the wall line: not inside


def test_s03_doors_cost_two_inches_windows_end_the_move():
    # From (5, 14) to a goal inside at (5, 2), 8 inches: 4 to the door (and 0.01 past the
    # wall line), 2 for the door, the 1.99 left inside: it ends at y = 8.
    x, y, how = g.move_toward(C.bld, C.opn, C.half, 2.0, 5, 14, 0, 5, 2, 8.0, 0.0)
    assert how == g.MOVE_FREE and x == pytest.approx(5) and y == pytest.approx(8)
    # Through the east window: the move ends just inside, whatever is left.
    x, y, how = g.move_toward(C.bld, C.opn, C.half, 2.0, 13, 5, 0, 2, 5, 8.0, 0.0)
    assert how == g.MOVE_WINDOW and x == pytest.approx(10 - 0.01)
    # Against the solid south wall: stops just before it.
    x, y, how = g.move_toward(C.bld, C.opn, C.half, 2.0, 5, -4, 0, 5, 5, 8.0, 0.0)
    assert how == g.MOVE_WALL and y == pytest.approx(-0.01)
    # Open ground: the full 8 inches, stopping `stop` inches short of the goal.
    x, y, how = g.move_toward(C.bld, C.opn, C.half, 2.0, 40, 30, 0, 40, 20, 8.0, 3.0)
    assert (x, y, how) == (40, pytest.approx(23), g.MOVE_FREE)


def test_the_way_into_a_building_is_its_nearest_door():
    # Nearest door of the Shop to a figure at (30, 30): the door (5, 10) on the north wall,
    # 1 inch inside it (the waypoint of the movement policy), or 1 inch outside.
    assert g.entry_point(C.bld, C.opn, 0, 30, 30, 1.0) == (5.0, 9.0, True)
    assert g.entry_point(C.bld, C.opn, 0, 30, 30, -1.0) == (5.0, 11.0, True)
    hut = compile_field(Battlefield(48, 36, (_building("Hut", 0, 0, 5, 5, openings=[
        Opening("window", 5, 2)]),)))
    assert g.entry_point(hut.bld, hut.opn, 0, 9, 2, 1.0) == (4.0, 2.0, True)  # a window
    bare = compile_field(Battlefield(48, 36, (_building("Bunker", 0, 0, 5, 5),)))
    assert g.entry_point(bare.bld, bare.opn, 0, 9, 2, 1.0)[2] is False


def test_s02_stairs_take_a_turn_a_floor():
    assert g.stairs_turn(C.bld, 0, 0, 1) == 1
    assert g.stairs_turn(C.bld, 0, 1, 0) == 0
    no_stairs = compile_field(Battlefield(48, 36, (_building("Hut", 0, 0, 5, 5, stairs=False),)))
    assert g.stairs_turn(no_stairs.bld, 0, 0, 1) == 0
    assert g.stairs_turn(C.bld, g.OUTSIDE, 0, 1) == 0


def test_s14_comes_into_sight():
    assert g.comes_into_sight(False, False, True, False)   # round the corner, out of range
    assert g.comes_into_sight(True, False, True, True)     # seen, now into range
    assert not g.comes_into_sight(True, True, True, True)  # already seen and in range
    assert not g.comes_into_sight(False, False, False, True)


def test_s25_spread():
    assert g.within_spread(10, 10, 13, 14, 5)
    assert not g.within_spread(10, 10, 13, 14, 4.9)


def test_s39_surrounded():
    # Four enemies, each 3 inches off one of the four runs to an edge.
    ex = np.array([27.0, 21.0, 17.0, 31.0])
    ey = np.array([11.0, 25.0, 15.0, 21.0])
    assert g.surrounded(24, 18, ex, ey, 4, 48, 36, 6)
    assert not g.surrounded(24, 18, ex, ey, 3, 48, 36, 6)    # the east run is free
    assert not g.surrounded(24, 18, ex, ey, 4, 48, 36, 2.9)  # every run stays 3 inches off


def _random_field(rng: random.Random) -> Battlefield:
    buildings = []
    for _ in range(rng.randint(1, 4)):
        for _try in range(20):
            w, d = rng.uniform(4, 12), rng.uniform(4, 12)
            x, y = rng.uniform(0, 48 - w), rng.uniform(0, 36 - d)
            if all(x + w < b.x or b.x + b.width < x or y + d < b.y or b.y + b.depth < y
                   for b in buildings):
                break
        else:
            continue
        floors = rng.randint(1, 3)
        openings = []
        for _o in range(rng.randint(1, 5)):
            wall = rng.randrange(4)
            t = rng.uniform(1.2, 0.0 + (w if wall < 2 else d) - 1.2)
            ox, oy = ((x + t, y) if wall == 0 else (x + t, y + d) if wall == 1
                      else (x, y + t) if wall == 2 else (x + w, y + t))
            kind = rng.choice(("door", "window"))
            openings.append(Opening(kind, ox, oy, 0 if kind == "door"
                                    else rng.randrange(floors)))
        buildings.append(_building(f"b{len(buildings)}", x, y, w, d, floors, True, openings))
    cover = tuple(CoverObject(f"c{i}", *(rng.uniform(0, 48), rng.uniform(0, 36),
                                         rng.uniform(0, 48), rng.uniform(0, 36)),
                              rng.randint(1, 2), rng.choice(("cover", "partial")))
                  for i in range(rng.randint(0, 5)))
    return Battlefield(48, 36, tuple(buildings), cover, opening_width=rng.choice((1.5, 2.0, 3.0)))


def _random_figure(rng: random.Random, field: Battlefield):
    x, y = rng.uniform(0, 48), rng.uniform(0, 36)
    i = ref.home(field, x, y)
    floor = rng.randrange(field.buildings[i].floors) if i >= 0 and rng.random() < 0.5 else 0
    return (x, y, floor)


@pytest.mark.parametrize("seed", range(8))
def test_kernel_geometry_equals_the_reference_on_random_battlefields(seed):
    rng = random.Random(seed)
    checked = {"blocked": 0, "clear": 0, "free": 0, "window": 0, "wall": 0}
    for _ in range(25):
        field = _random_field(rng)
        c = compile_field(field)
        for _pair in range(40):
            a, b = _random_figure(rng, field), _random_figure(rng, field)
            entering, counted, height = (rng.random() < 0.3, rng.random() < 0.3,
                                         rng.random() < 0.5)
            got = g.fire_line(c.bld, c.opn, c.cov, c.half, *a, *b, entering, 1.0, counted,
                              height, 2)
            want = ref.fire_level(field, a, b, entering=entering, contact=1.0,
                                  shooter_counted=counted, height_clears=height)
            assert got == want, (seed, field, a, b)
            assert g.sight_blocked(c.bld, c.opn, c.half, *a, *b) == ref.blocked(field, a, b)
            checked["blocked" if got < 0 else "clear"] += 1
            units = g.cover_crossed(c.bld, c.cov, *a, *b, entering, 1.0, counted, height)
            assert units == ref.cover(field, a, b, entering=entering, contact=1.0,
                                      shooter_counted=counted, height_clears=height)
            start = (a[0], a[1], 0)
            inches = rng.uniform(1, 14)
            x, y, how = g.move_toward(c.bld, c.opn, c.half, 2.0, *start, b[0], b[1], inches, 0.5)
            rx, ry, rhow = ref.move(field, start, b, inches, door=2.0, stop=0.5)
            assert (x, y) == (pytest.approx(rx, abs=1e-7), pytest.approx(ry, abs=1e-7))
            assert ("free", "window", "wall")[how] == rhow
            checked[rhow] += 1
            enemies = [(rng.uniform(0, 48), rng.uniform(0, 36)) for _ in range(rng.randint(1, 6))]
            ex = np.array([e[0] for e in enemies])
            ey = np.array([e[1] for e in enemies])
            inches = rng.uniform(2, 14)
            assert g.surrounded(a[0], a[1], ex, ey, len(enemies), 48, 36, inches) == \
                ref.is_surrounded(field, a[:2], enemies, inches)
    # The draw reaches every case it checks.
    assert min(checked.values()) >= 3, checked
