"""The way round a wall (issue 50): ``battlefield.walls = "round"`` against ``"stop"``.

A figure advancing in a straight line on a target behind a building with no
opening on that line used to stop at the wall and stay there. The reading
``walls = "round"`` (the default, docs/skirmish.md) takes it round the building
by its corners (:func:`sim.kernels.skirmish_geometry.move_round`); ``"stop"`` keeps
the old movement. The kernel's function is checked against the independent
plain-Python reference (a shortest path in the visibility graph of the corners)
on random battlefields, by hand, and on whole fights.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from sim.experiments import skirmish as api
from sim.kernels import skirmish as k
from sim.kernels import skirmish_geometry as g
from sim.reference import skirmish_geometry as ref
from sim.rules.skirmish_loader import load_scenario
from sim.skirmish.compile import compile_field, compile_scenario
from tests.skirmish.test_skirmish_geometry import _random_field, _random_figure

BLOCK = np.array([[10.0, 10.0, 20.0, 20.0, 1.0, 0.0]])  # a building with no opening
NO_OPENING = np.zeros((0, g.O_COLS))


def _round(x, y, tx, ty, inches, stop=0.0, go_round=True):
    return g.move_round(BLOCK, NO_OPENING, 1.0, 2.0, x, y, 0, tx, ty, inches, stop, go_round)


def test_a_straight_move_stops_at_the_wall_unless_it_goes_round():
    # From (15, 5) to (15, 25) straight through the block: stopped 0.01 before the wall.
    x, y, how, _ = _round(15, 5, 15, 25, 30.0, go_round=False)
    assert (x, y, how) == (15.0, pytest.approx(9.99), g.MOVE_WALL)
    # Round it: to the south-west corner (9, 9), up the west side to (9, 21), then to the
    # goal: 7.211 + 12 + 7.211 = 26.42 inches, 3.58 left.
    x, y, how, rest = _round(15, 5, 15, 25, 30.0)
    assert (x, y, how) == (pytest.approx(15.0), pytest.approx(25.0), g.MOVE_FREE)
    assert rest == pytest.approx(30 - 2 * np.hypot(6, 4) - 12)
    # With 22 inches: past the north-west corner, 2.79 inches towards the goal.
    x, y, how, rest = _round(15, 5, 15, 25, 22.0)
    step = 22 - np.hypot(6, 4) - 12
    assert (x, y) == (pytest.approx(9 + 6 * step / np.hypot(6, 4)),
                      pytest.approx(21 + 4 * step / np.hypot(6, 4)))
    assert how == g.MOVE_FREE and rest < 0
    # A goal inside the block (no way in): no way round either, it stops as before.
    assert _round(15, 5, 15, 15, 30.0)[:3] == _round(15, 5, 15, 15, 30.0, go_round=False)[:3]


@pytest.mark.parametrize("seed", range(4))
def test_the_way_round_equals_the_reference_on_random_battlefields(seed):
    rng = random.Random(seed)
    moved = same = 0
    for _ in range(25):
        field = _random_field(rng)
        c = compile_field(field)
        for _pair in range(40):
            a, b = _random_figure(rng, field), _random_figure(rng, field)
            inches = rng.uniform(1, 30)
            x, y, how, _ = g.move_round(c.bld, c.opn, c.half, 2.0, a[0], a[1], 0, b[0], b[1],
                                        inches, 0.5, True)
            rx, ry, rhow, _ = ref.move_round(field, (a[0], a[1], 0), b, inches, door=2.0,
                                          stop=0.5)
            assert (x, y) == (pytest.approx(rx, abs=1e-7), pytest.approx(ry, abs=1e-7))
            assert ("free", "window", "wall")[how] == rhow
            straight = g.move_toward(c.bld, c.opn, c.half, 2.0, a[0], a[1], 0, b[0], b[1],
                                     inches, 0.5)
            if (x, y, how) == straight:
                same += 1
            else:
                moved += 1
                assert straight[2] == g.MOVE_WALL  # only a figure a wall stopped moves otherwise
    assert moved >= 10 and same >= 10, (moved, same)


STUCK = """
[battlefield]
width = 40
depth = 30
walls = "{walls}"

[[battlefield.buildings]]
name = "Block"
x = 14
y = 10
width = 12
depth = 10
floors = 1

[groups.stalker]
figures = 1
skill = 4
weapon = "assault_rifle"
positions = [[20, 5]]
movement = "hold"

[groups.bandit]
figures = 1
skill = 3
weapon = "smg"
positions = [[20, 25]]
movement = "advance"
"""


def test_a_figure_behind_a_building_goes_round_it_and_the_fight_happens(tmp_path):
    """Guard: with walls = "stop" (the old movement) the bandit stays at the wall and every
    fight is a capped draw; going round, the two meet and fight."""
    rows = {}
    for walls in ("stop", "round"):
        path = tmp_path / f"{walls}.toml"
        path.write_text(STUCK.format(walls=walls))
        fight = compile_scenario(load_scenario(path))
        rows[walls] = api.fight_counts(fight, trials=2000, seed=3)
    assert rows["stop"][k.O_CAPPED] == 2000
    assert rows["round"][k.O_CAPPED] < 200
    assert rows["round"][k.O_WIN] + rows["round"][k.O_WIN + 1] > 1800


def test_walls_is_read_and_checked(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(STUCK.format(walls="climb"))
    from sim.rules.errors import RulesetError
    with pytest.raises(RulesetError) as error:
        load_scenario(path)
    assert any("battlefield.walls" in str(p) and "climb" in str(p)
               for p in error.value.problems)
    path.write_text(STUCK.replace('walls = "{walls}"\n', ""))
    assert load_scenario(path).battlefield.walls == "round"
