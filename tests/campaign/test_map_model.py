"""The map model (rs.map), its compiled arrays (HexMap) and the bundled example map.

Z-18 to Z-26 (map, terrain, roads), Z-03 (Epicentre), P-37 (bunkers), P-50
(Secret Complexes and the Sarcophagus).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.campaign.hexmap import KINDS, HexMap, compile_map
from sim.campaign.route import nearest, nearest_table, plan_route, route_costs
from sim.rules import Ruleset, default_rules, load_ruleset
from sim.rules.model import Hex, Map
from sim.rules.schema import DIRECTIONS

OBJECTIVES = ("complex", "bunker", "base", "sarcophagus")


@pytest.fixture(scope="module")
def rs() -> Ruleset:
    return load_ruleset()


@pytest.fixture(scope="module")
def hm(rs) -> HexMap:
    return compile_map(rs)


# --- the bundled example map ------------------------------------------------------------------


def test_base_map_size_and_locations(rs):
    m = rs.map
    assert len(m) >= 150
    assert m.named("Cordon").location == "open"  # the start hex, named by scenarios
    assert {h.name for h in m.of_kind("complex")} == {"Lab X-18", "Lab X-16", "Lab X-10"}  # P-50
    assert len(m.of_kind("bunker")) >= 3  # P-37
    assert {h.faction: h.name for h in m.of_kind("base")} == {
        "duty": "Rostok (Duty)",
        "freedom": "Army Warehouses (Freedom)",
        "ecologists": "Ecologists' Bunker",
        "military": "Military base",
    }
    assert len(m.of_kind("sarcophagus")) == 1
    assert len(m.of_kind("open")) >= 3 and len(m.of_kind("secret")) >= 3
    assert "example" in m.hexes[0].notes


def test_base_map_terrain_roads_and_epicentre(rs):
    m = rs.map
    assert {h.terrain for h in m.hexes} == {1, 2, 3, 4, 5, 6}  # Z-21: mixed terrain
    assert any(len(seg) >= 3 for h in m.hexes for seg in h.roads)  # a junction (Z-26)
    assert any(len(h.roads) >= 2 for h in m.hexes)  # a crossing without a junction (Z-26)
    sarc = m.of_kind("sarcophagus")[0]
    around = [m.at(*sarc.neighbour(d)) for d in range(6)]
    assert all(h is not None and h.location == "epicentre" for h in around)  # Z-03
    assert len(m.of_kind("epicentre")) >= 6
    assert all(h.terrain == 1 for h in m.hexes if h.roads)


def test_every_objective_reachable_from_every_other(rs, hm):
    mv = rs.rules.movement
    goals = np.concatenate([hm.of_kind(k) for k in OBJECTIVES])
    start = hm.index_of("Cordon")
    for allowance in (6, 7, 8, 9):
        days, left = route_costs(hm, np.append(goals, start), goals, [allowance], mv)
        assert (days >= 0).all(), allowance
        assert (days[np.arange(len(goals)), np.arange(len(goals))] == 0).all()


def test_nearest_bunker_p37(rs, hm):
    mv = rs.rules.movement
    table = nearest_table(hm, "bunker", mv)
    bunkers = set(hm.of_kind("bunker").tolist())
    assert set(table.tolist()) <= bunkers
    for b in bunkers:
        assert table[b] == b  # a bunker is its own nearest
    cordon = hm.index_of("Cordon")
    assert table[cordon] == hm.index_of("Sidorovich's Bunker")
    assert nearest(hm, cordon, "bunker", mv) == table[cordon]
    # Nearest = fewest days, then most steps left, then lowest index, with the base allowance.
    days, left = route_costs(hm, np.arange(hm.n), hm.of_kind("bunker"), [6], mv)
    for h in range(hm.n):
        ranked = sorted(zip(days[h, :, 0], -left[h, :, 0], hm.of_kind("bunker"), strict=True))
        assert table[h] == ranked[0][2]


def test_ruleset_map_is_frozen(rs):
    with pytest.raises(dataclasses.FrozenInstanceError):
        rs.map.hexes[0].terrain = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rs.map = Map()  # type: ignore[misc]
    assert isinstance(rs.map.hexes, tuple)


# --- HexMap arrays ----------------------------------------------------------------------------


def tiny() -> Map:
    """A crossing at (0, 0): a west-east road and a road ending north; an Epicentre hex east."""
    return Map(
        (
            Hex(-1, 0, 1, roads=((0,),)),
            Hex(0, 0, 1, roads=((0, 3), (2,))),
            Hex(1, 0, 1, "open", "East", roads=((3,),)),
            Hex(0, -1, 1, "bunker", "North", roads=((5,),)),
            Hex(0, 1, 4, "epicentre"),
            Hex(1, -1, 3, "sarcophagus", "Sarcophagus"),
        )
    )


def test_compile_arrays():
    hm = compile_map(tiny())
    assert len(hm) == hm.n == 6
    assert hm.neighbours.shape == (6, 6) and hm.neighbours.dtype == np.int32
    assert hm.neighbours[1].tolist() == [2, 5, 3, 0, -1, 4]
    assert hm.neighbours[0].tolist() == [1, 3, -1, -1, -1, -1]
    assert hm.road_seg[1].tolist() == [0, -1, 1, 0, -1, -1]
    assert hm.n_segs.tolist() == [1, 2, 1, 1, 0, 0] and hm.max_segs == 2
    assert hm.cost.tolist() == [1, 1, 1, 1, 5, 5]  # Epicentre and Sarcophagus: epicentre_cost
    assert hm.epicentre.tolist() == [False, False, False, False, True, True]
    assert [KINDS[k] for k in hm.kind] == ["", "", "open", "bunker", "epicentre", "sarcophagus"]
    assert hm.location(3) == "bunker"
    assert hm.of_kind("bunker").tolist() == [3]
    assert hm.index_of("North") == 3 and hm.index_at(1, -1) == 5 and hm.index_at(9, 9) == -1
    for a in (hm.neighbours, hm.cost, hm.road_seg, hm.kind):
        assert not a.flags.writeable
    for i in range(hm.n):
        for d, (dq, dr) in enumerate(DIRECTIONS):
            j = hm.neighbours[i, d]
            if j >= 0:
                assert (hm.q[j] - hm.q[i], hm.r[j] - hm.r[i]) == (dq, dr)
                assert hm.neighbours[j, (d + 3) % 6] == i


def test_compile_uses_the_movement_epicentre_cost():
    mv = dataclasses.replace(default_rules().movement, epicentre_cost=6)
    hm = compile_map(tiny(), mv)
    assert hm.cost.tolist() == [1, 1, 1, 1, 6, 6] and hm.epicentre_cost == 6
    with pytest.raises(ValueError, match="compiled with 6"):
        plan_route(hm, 0, 2, 6, default_rules().movement)


def test_index_of_unknown_name_suggests():
    hm = compile_map(tiny())
    with pytest.raises(KeyError, match="did you mean 'North'"):
        hm.index_of("Nort")
    with pytest.raises(KeyError):
        hm.index_of("")
    with pytest.raises(ValueError, match="unknown location kind"):
        hm.of_kind("castle")


def test_compile_rejects_a_one_sided_road():
    bad = Map((Hex(0, 0, 1, roads=((0,),)), Hex(1, 0, 2)))
    with pytest.raises(ValueError, match=r"hex \(0, 0\): the road leaving by 0 has no other end"):
        compile_map(bad)
    with pytest.raises(ValueError, match="no hexes"):
        compile_map(Map())


def test_map_model_helpers():
    m = tiny()
    assert m.at(0, -1).name == "North" and m.at(5, 5) is None
    assert m.named("East").q == 1
    with pytest.raises(KeyError):
        m.named("West")
    assert m.at(1, -1).epicentre and m.at(0, 1).epicentre and not m.at(0, 0).epicentre
    assert m.at(0, 0).neighbour(5) == (0, 1)
