"""Route planning: movement rules on hand-made maps, and exactness against brute force.

Z-01 to Z-03 (movement items, Epicentre), Z-19 (6 steps a day), Z-21 to Z-24
(terrain costs, no borrowing), Z-25 and Z-26 (roads and road changes).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.campaign import route as route_mod
from sim.campaign.hexmap import compile_map
from sim.campaign.route import Route, day_paths, plan_route, route_costs
from sim.rules import default_rules, load_ruleset
from sim.rules.model import Hex, Map
from sim.rules.schema import DIRECTIONS

BASE = 6  # Z-19
JETPACK = 9  # Z-03: base 6 + 3


def movement(**kw):
    return dataclasses.replace(default_rules().movement, **kw)


MV = movement()


def line(terrains, road=False, locations=None) -> Map:
    """Hexes (0, 0), (1, 0), ... along direction 0; with ``road`` a road runs along all of them."""
    n = len(terrains)
    hexes = []
    for i, t in enumerate(terrains):
        roads = ()
        if road:
            seg = tuple(d for d, ok in ((0, i < n - 1), (3, i > 0)) if ok)
            roads = (seg,)
        loc = (locations or {}).get(i, "")
        hexes.append(Hex(i, 0, 1 if road else t, loc, roads=roads))
    return Map(tuple(hexes))


def plan(m: Map, start: int, target: int, allowance: int, mv=MV, **kw) -> Route:
    return plan_route(compile_map(m, mv), start, target, allowance, mv, **kw)


# --- terrain and days (Z-19, Z-21, Z-22, Z-23) ------------------------------------------------


@settings(deadline=None)  # the first example loads the compiled search
@given(st.integers(1, 20))
def test_straight_road_takes_ceil_l_over_6_days_z25(length):
    m = line([1] * (length + 1), road=True)
    r = plan(m, 0, length, BASE)
    assert r.days == math.ceil(length / 6)
    assert r.steps_left == 6 * r.days - length
    assert r.hexes == tuple(range(1, length + 1))
    assert all(len(day) == 6 for day in r.days_path[:-1])
    j = plan(m, 0, length, JETPACK)  # Z-03: the jetpack gives 9 steps a day
    assert j.days == math.ceil(length / 9) and j.steps_left == 9 * j.days - length


@settings(deadline=None)
@given(st.integers(1, 20))
def test_fields_three_per_day_z21(length):
    r = plan(line([2] * (length + 1)), 0, length, BASE)
    assert r.days == math.ceil(2 * length / 6)
    assert all(len(day) == 3 for day in r.days_path[:-1])
    assert r.steps_left == 6 - 2 * len(r.days_path[-1])


@pytest.mark.parametrize(
    "terrain, allowance, left",
    [(5, BASE, 1), (6, BASE, 0), (5, JETPACK, 4), (6, JETPACK, 3), (4, BASE, 2)],
)
def test_one_heavy_hex_per_day_z21(terrain, allowance, left):
    # Mountains (5) and impassable mountains (6): one a day, even with the jetpack (5 + 5 > 9);
    # swamps (4): 4 + 4 > 6.
    r = plan(line([2] + [terrain] * 4), 0, 4, allowance)
    assert (r.days, r.steps_left) == (4, left)
    assert r.days_path == ((1,), (2,), (3,), (4,))


def test_cost_above_the_allowance_cannot_be_entered_z23():
    m = line([2, 5, 2])
    assert plan(m, 0, 2, 4) == Route(-1, 0, ())
    assert not plan(m, 0, 2, 4).reachable
    assert plan(m, 0, 2, 5).days == 2


def test_no_borrowing_z23():
    # A forest (3), then a swamp (4): 3 + 4 > 6, so the swamp waits for the next day and the
    # 3 steps left are lost (Gap: unused steps, assumption).
    r = plan(line([2, 3, 4]), 0, 2, BASE)
    assert r.days_path == ((1,), (2,)) and r.steps_left == 2


def test_mountain_to_road_costs_1_z24():
    m = Map((Hex(0, 0, 5), Hex(1, 0, 1, roads=((0,),)), Hex(2, 0, 1, roads=((3,),))))
    r = plan(m, 0, 1, BASE)
    assert (r.days, r.steps_left) == (1, 5)
    r = plan(m, 0, 2, BASE)  # off the road onto it (1), then along it (1)
    assert (r.days, r.steps_left) == (1, 4)


def test_start_equals_target():
    assert plan(line([2, 2]), 1, 1, BASE) == Route(0, BASE, ())
    table, lengths = day_paths(compile_map(line([2, 2])), [1], [1], [BASE], MV)
    assert lengths[0, 0, 0] == 0 and (table[0, 0, 0] == -1).all()


# --- roads (Z-25, Z-26) -----------------------------------------------------------------------


def crossing(centre_roads) -> Map:
    """West (0), centre (1), north-east (2) along a road; south (3) off the centre by direction 5.

    South is a neighbour of neither west nor north-east, so every route from west to south
    enters the centre.
    """
    return Map(
        (
            Hex(-1, 0, 1, roads=((0,),)),
            Hex(0, 0, 1, roads=centre_roads),
            Hex(1, -1, 1, roads=((4,),)),
            Hex(0, 1, 1, roads=((2,),)),
        )
    )


def test_changing_roads_costs_2_more_z26():
    m = crossing(((1, 3), (5,)))  # two roads, no junction
    assert plan(m, 0, 3, BASE).steps_left == BASE - (1 + 1 + 2)
    assert plan(m, 0, 2, BASE).steps_left == BASE - 2  # straight on: no change
    assert plan(m, 0, 3, BASE, movement(road_change_cost=0)).steps_left == BASE - 2


def test_a_junction_costs_nothing_extra_z26():
    m = crossing(((1, 3, 5),))
    assert plan(m, 0, 3, BASE).steps_left == BASE - 2
    assert plan(m, 0, 2, BASE).steps_left == BASE - 2


def test_change_waits_for_a_new_day_that_starts_off_the_road():
    # With a change cost of 5 the turn (1 + 5) does not fit after 1 step; the next day starts
    # on no segment, so the move costs 1 (documented assumption).
    mv = movement(road_change_cost=5)
    r = plan(crossing(((1, 3), (5,))), 0, 3, BASE, mv)
    assert r.days_path == ((1,), (3,)) and r.steps_left == BASE - 1


def test_arriving_off_road_puts_you_on_no_segment():
    # From a field onto the crossing (no segment), then out along either road: no change cost.
    m = Map((*crossing(((1, 3), (5,))).hexes, Hex(0, -1, 2)))
    assert plan(m, 4, 3, BASE).steps_left == BASE - 2


# --- the Epicentre (Z-03) ---------------------------------------------------------------------


def test_two_epicentre_hexes_never_in_one_day_z03():
    m = line([2, 3, 3], locations={1: "epicentre", 2: "epicentre"})
    for allowance in (BASE, JETPACK, 12):
        r = plan(m, 0, 2, allowance)
        assert r.days_path == ((1,), (2,)), allowance
        assert r.steps_left == allowance - 5


def test_jetpack_steps_do_not_help_in_the_epicentre_z03():
    # Two road hexes (2 steps), then an Epicentre hex (5): 7 > 6 base steps.
    m = Map(
        (
            Hex(0, 0, 1, roads=((0,),)),
            Hex(1, 0, 1, roads=((0, 3),)),
            Hex(2, 0, 1, roads=((3,),)),
            Hex(3, 0, 3, "epicentre"),
        )
    )
    assert plan(m, 0, 3, BASE).days == 2
    assert plan(m, 0, 3, JETPACK).days == 2
    assert plan(m, 0, 3, JETPACK, epicentre_allowance=JETPACK).days == 1
    r = plan(m, 0, 3, JETPACK, movement(items_in_epicentre=True))
    assert (r.days, r.steps_left) == (1, 2)


def test_leaving_the_epicentre_uses_the_whole_allowance():
    # An Epicentre hex (5), then 4 road hexes: 9 steps, one day with the jetpack.
    m = Map(
        (
            Hex(-1, 0, 3),
            Hex(0, 0, 3, "epicentre"),
            Hex(1, 0, 1, roads=((0,),)),
            Hex(2, 0, 1, roads=((0, 3),)),
            Hex(3, 0, 1, roads=((0, 3),)),
            Hex(4, 0, 1, roads=((3,),)),
        )
    )
    r = plan(m, 0, 5, JETPACK)
    assert (r.days, r.steps_left) == (1, 0)
    assert plan(m, 0, 5, BASE).days == 2


# --- exactness against brute force -------------------------------------------------------------


def _segment(h: Hex, d: int):
    for seg in h.roads:
        if d in seg:
            return seg
    return None


def brute_force(m: Map, start: int, target: int, allowance: int, mv, max_moves: int):
    """Smallest (day, steps used) over every walk of up to ``max_moves`` moves.

    Written from the rules, independently of the planner: every move may also be made after
    resting to the next day (which starts on no road segment), whether or not it fits. Two
    prunings keep it exhaustive: a walk's (day, used) never decreases, so a walk already at
    or above the best target label cannot beat it; and a state seen after fewer moves has
    every continuation that it has after more.
    """
    index = {(h.q, h.r): i for i, h in enumerate(m.hexes)}
    states = {(start, None, 1, 0)}
    seen = set(states)
    best = None
    for _ in range(max_moves):
        nxt = set()
        for i, seg, day, used in states:
            if best is not None and (day, used) >= best:
                continue
            h = m.hexes[i]
            for d in range(6):
                j = index.get(h.neighbour(d))
                if j is None:
                    continue
                n = m.hexes[j]
                cost = mv.epicentre_cost if n.epicentre else n.terrain
                limit = allowance
                if n.epicentre and not mv.items_in_epicentre:
                    limit = min(allowance, mv.base_steps)
                out = _segment(h, d)
                change = mv.road_change_cost if out is not None and seg not in (None, out) else 0
                arrive = _segment(n, (d + 3) % 6) if out is not None else None
                if used + cost + change <= limit:
                    nxt.add((j, arrive, day, used + cost + change))
                if cost <= limit:
                    nxt.add((j, arrive, day + 1, cost))
        nxt -= seen
        seen |= nxt
        for j, _, day, used in nxt:
            if j == target and (best is None or (day, used) < best):
                best = (day, used)
        states = nxt
    return best


def replay(m: Map, start: int, r: Route, allowance: int, mv) -> tuple[int, int]:
    """Check a route move by move; return (days, steps used on the last day)."""
    index = {(h.q, h.r): i for i, h in enumerate(m.hexes)}
    here, seg, used = start, None, 0
    for day in r.days_path:
        assert day, "a day that enters no hex"
        seg, used = None, 0  # a new day starts off any road segment
        for nxt in day:
            h, n = m.hexes[here], m.hexes[nxt]
            (d,) = [d for d in range(6) if index.get(h.neighbour(d)) == nxt]
            cost = mv.epicentre_cost if n.epicentre else n.terrain
            limit = allowance
            if n.epicentre and not mv.items_in_epicentre:
                limit = min(allowance, mv.base_steps)
            out = _segment(h, d)
            change = mv.road_change_cost if out is not None and seg not in (None, out) else 0
            used += cost + change
            assert used <= limit
            seg = _segment(n, (d + 3) % 6) if out is not None else None
            here = nxt
    return len(r.days_path), used


RING2 = [(q, r) for q in range(-2, 3) for r in range(-2, 3) if max(abs(q), abs(r), abs(q + r)) == 2]
CORE = [(q, r) for q in range(-1, 2) for r in range(-1, 2) if abs(q + r) <= 1]


@st.composite
def small_maps(draw):
    coords = CORE + [c for c in RING2 if draw(st.booleans())]
    on = set(coords)
    edges = {}
    for q, r in coords:
        for d in range(3):
            n = (q + DIRECTIONS[d][0], r + DIRECTIONS[d][1])
            if n in on and draw(st.integers(0, 9)) < 6:
                edges.setdefault((q, r), []).append(d)
                edges.setdefault(n, []).append(d + 3)
    hexes = []
    for q, r in coords:
        dirs = sorted(edges.get((q, r), []))
        groups: dict[int, list[int]] = {}
        for d in dirs:  # split the road edges of the hex into segments at random
            groups.setdefault(draw(st.integers(0, 2)), []).append(d)
        roads = tuple(tuple(g) for _, g in sorted(groups.items()))
        terrain = 1 if roads else draw(st.integers(1, 6))
        loc = "epicentre" if draw(st.integers(0, 9)) < 2 else ""
        hexes.append(Hex(q, r, terrain, loc, roads=roads))
    mv = movement(
        base_steps=draw(st.integers(3, 7)),
        epicentre_cost=draw(st.integers(2, 6)),
        road_change_cost=draw(st.integers(0, 6)),
        items_in_epicentre=draw(st.booleans()),
    )
    n = len(hexes)
    start, target = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
    allowance = draw(st.integers(1, 10))
    return Map(tuple(hexes)), mv, start, target, allowance


@settings(max_examples=300, deadline=None)
@given(small_maps())
def test_plan_route_matches_brute_force(case):
    m, mv, start, target, allowance = case
    hm = compile_map(m, mv)
    r = plan_route(hm, start, target, allowance, mv)
    if start == target:
        assert r == Route(0, allowance, ())
        return
    # Dijkstra visits each (hex, segment) state at most once, so an optimal walk has fewer
    # moves than there are states: the brute force below sees every candidate.
    best = brute_force(m, start, target, allowance, mv, hm.n * (hm.max_segs + 1))
    if best is None:
        assert not r.reachable and r == Route(-1, 0, ())
        return
    assert (r.days, allowance - r.steps_left) == best
    assert replay(m, start, r, allowance, mv) == best
    table, lengths = day_paths(hm, [start], [target], [allowance], mv)
    first = r.days_path[0]
    assert lengths[0, 0, 0] == len(first)
    assert tuple(table[0, 0, 0, : len(first)]) == first
    assert (table[0, 0, 0, len(first) :] == -1).all()


# --- tables for the kernel ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def base():
    rs = load_ruleset()
    hm = compile_map(rs)
    goals = np.concatenate([hm.of_kind(k) for k in ("complex", "bunker", "base", "sarcophagus")])
    return rs.rules.movement, hm, goals[:10]


def test_replanning_each_morning_is_optimal(base):
    # The kernel follows the first day, then looks the table up again from where it stands.
    mv, hm, goals = base
    allowances = [6, 7, 8, 9]
    table, lengths = day_paths(hm, np.arange(hm.n), goals, allowances, mv)
    days, left = route_costs(hm, np.arange(hm.n), goals, allowances, mv)
    assert table.shape == (hm.n, len(goals), 4, 9) and table.dtype == np.int32
    assert (days > 0).sum() == (lengths > 0).sum()
    for s in range(0, hm.n, 3):
        for t, goal in enumerate(goals):
            for a in range(4):
                here, n_days = s, 0
                while here != goal:
                    k = lengths[here, t, a]
                    assert 0 < k <= allowances[a]
                    last = here
                    here = int(table[here, t, a, k - 1])
                    n_days += 1
                assert n_days == days[s, t, a]
                if n_days:
                    assert left[last, t, a] == left[s, t, a]


def test_day_paths_agree_with_plan_route(base):
    mv, hm, goals = base
    table, lengths = day_paths(hm, np.arange(0, hm.n, 7), goals, [6, 9], mv)
    for i, s in enumerate(range(0, hm.n, 7)):
        for t, goal in enumerate(goals):
            for a, allowance in enumerate((6, 9)):
                r = plan_route(hm, s, int(goal), allowance, mv)
                first = r.days_path[0] if r.days_path else ()
                assert tuple(table[i, t, a, : lengths[i, t, a]]) == first


def test_plain_python_search_gives_the_same_tables(base, monkeypatch):
    mv, hm, goals = base
    starts = np.arange(0, hm.n, 11)
    jitted = day_paths(hm, starts, goals[:4], [6, 9], mv)
    for name in ("_push", "_pop", "_search", "_best_state", "_day_paths"):
        monkeypatch.setattr(route_mod, name, getattr(route_mod, name).py_func)
    monkeypatch.setattr(route_mod, "_searches", type(route_mod._searches)())  # search again
    plain = day_paths(hm, starts, goals[:4], [6, 9], mv)
    for x, y in zip(jitted, plain, strict=True):
        np.testing.assert_array_equal(x, y)


def test_remembered_tables_are_the_searched_ones_and_private_copies(base, monkeypatch):
    mv, hm, goals = base
    monkeypatch.setattr(route_mod, "_searches", type(route_mod._searches)())
    searched = day_paths(hm, np.arange(hm.n), goals, [6, 9], mv)
    searched[0][:] = 0  # a caller's copy: changing it changes nothing remembered

    def no_search(*args):
        raise AssertionError("searched again for the same inputs")

    monkeypatch.setattr(route_mod, "_search_all", no_search)
    again = day_paths(hm, np.arange(hm.n), goals, [6, 9], mv)
    monkeypatch.undo()
    monkeypatch.setattr(route_mod, "_searches", type(route_mod._searches)())
    fresh = day_paths(hm, np.arange(hm.n), goals, [6, 9], mv)
    for x, y in zip(again, fresh, strict=True):
        np.testing.assert_array_equal(x, y)
    assert (fresh[0] != 0).any()
    monkeypatch.setattr(route_mod, "_search_all", no_search)
    with pytest.raises(AssertionError, match="searched again"):  # Z-26: another change cost
        day_paths(hm, np.arange(hm.n), goals, [6, 9], movement(road_change_cost=3))


def test_bad_inputs():
    hm = compile_map(line([2, 2]))
    with pytest.raises(ValueError, match="allowance 0 is not >= 1"):
        plan_route(hm, 0, 1, 0, MV)
    with pytest.raises(ValueError, match="hex index 2 is not in 0..1"):
        plan_route(hm, 0, 2, 6, MV)
    with pytest.raises(ValueError, match="shape of allowances"):
        day_paths(hm, [0], [1], [6, 9], MV, epicentre_allowances=[6])
