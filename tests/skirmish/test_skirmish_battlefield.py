"""The firefight kernel on a battlefield (issue 50): each rule ID shown on whole fights.

Where the battlefield reduces to the abstract battlefield, the kernel must give
bit-identical counts to the abstract scenario that says the same in words (a
figure inside a building is a figure in cover, S-01; a line across one unit of
cover puts the target in cover, S-23/S-31; a figure coming into range takes In
Sight, S-14). Where the battlefield forbids a shot (a building or two units of
cover between the figures, S-19/S-23) nobody can fire and every fight is a
capped draw, which the abstract battlefield never gives.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from sim.experiments import skirmish as api
from sim.rules.skirmish_loader import load_scenario
from sim.skirmish.compile import compile_scenario

TRIALS = 20_000
SEED = 77

GROUPS = """
[groups.stalker]
figures = 1
skill = 4
weapon = "assault_rifle"
{a}

[groups.bandit]
figures = 1
skill = 3
weapon = "{bandit_weapon}"
{b}
"""


def _scenario(tmp_path, name, head, a, b, bandit_weapon="smg", rules=None):
    path = tmp_path / f"{name}.toml"
    path.write_text(head + GROUPS.format(a=a, b=b, bandit_weapon=bandit_weapon))
    scenario = load_scenario(path)
    if rules:
        scenario = dataclasses.replace(
            scenario, rules=dataclasses.replace(scenario.rules, **rules))
    return scenario


def _row(scenario, trials=TRIALS):
    fight = compile_scenario(scenario)
    row = api.fight_counts(fight, trials=trials, seed=SEED)
    return fight, row


def _abstract_part(fight, row):
    """The counts both battlefields have (the row before the position grids)."""
    from sim.kernels import skirmish as k
    n0, n1 = fight.sizes
    return row[:k.row_layout(n0, n1, int(fight.params[k.P_MAX_ROUNDS]))[-1]]


FIELD = """
[battlefield]
width = 40
depth = 30
{objects}
"""
SHOP = """
[[battlefield.buildings]]
name = "Shop"
x = 4
y = 4
width = 8
depth = 8
floors = 2
windows = [[12, 8]{more}]
"""


def _abstract(tmp_path, name, a, b, distance=10, **kw):
    return _scenario(tmp_path, name, f"distance = {distance}\n", a, b, **kw)


def test_s01_s19_inside_a_building_is_in_cover_seen_through_its_window(tmp_path):
    # The stalker stands inside the Shop at its east window; the bandit 10 inches east.
    field = _scenario(tmp_path, "f", FIELD.format(objects=SHOP.format(more="")),
                      'positions = [[11, 8]]\nmovement = "hold"',
                      'positions = [[21, 8]]\nmovement = "hold"')
    same = _abstract(tmp_path, "a", 'cover = "cover"', 'cover = "open"', distance=10)
    fight, row = _row(field)
    abstract, arow = _row(same)
    assert np.array_equal(_abstract_part(fight, row), arow)
    # Guard: read as standing in the open, the same fight gives other numbers.
    _, open_row = _row(_abstract(tmp_path, "o", 'cover = "open"', 'cover = "open"'))
    assert not np.array_equal(arow, open_row)


def test_s19_walls_block_the_line_and_nobody_can_fire(tmp_path):
    # The same stalker, but the window is on the north wall: the east wall is solid.
    shop = SHOP.replace("windows = [[12, 8]{more}]", "windows = [[8, 12]]")
    field = _scenario(tmp_path, "f", FIELD.format(objects=shop),
                      'positions = [[11, 8]]\nmovement = "hold"',
                      'positions = [[21, 8]]\nmovement = "hold"')
    fight, row = _row(field)
    from sim.kernels import skirmish as k
    assert row[k.O_CAPPED] == TRIALS and row[k.O_DRAW] == TRIALS


def test_s23_one_unit_is_cover_two_units_cannot_be_fired_along(tmp_path):
    wall = """
[[battlefield.cover]]
name = "wall"
from = [15, 2]
to = [15, 14]
units = {units}
"""
    a = 'positions = [[10, 8]]\nmovement = "hold"'
    b = 'positions = [[20, 8]]\nmovement = "hold"'
    one = _scenario(tmp_path, "one", FIELD.format(objects=wall.format(units=1)), a, b)
    fight, row = _row(one)
    # Both fire across the wall, 5 inches from each: both targets are in cover (S-31).
    same = _abstract(tmp_path, "a", 'cover = "cover"', 'cover = "cover"')
    assert np.array_equal(_abstract_part(fight, row), _row(same)[1])
    two = _scenario(tmp_path, "two", FIELD.format(objects=wall.format(units=2)), a, b)
    from sim.kernels import skirmish as k
    assert _row(two)[1][k.O_CAPPED] == TRIALS


def test_s14_s09_an_advance_into_range_is_the_abstract_advance(tmp_path):
    # Open ground: a bandit (12-inch shotgun) 30 inches from a stalker (24-inch rifle) walks
    # in, acting first every round (activation.order = "fixed", the bandit listed first).
    # His first move brings him into the rifle's range: the stalker takes In Sight (S-14)
    # and may fire at once, exactly as on the abstract battlefield. (The battlefield's
    # figure halts at its range while the abstract group walks its full move, so S-38's
    # surrender on approach is left out; nothing else reads the distance.)
    rules = {"surrender_when": "never", "activation_order": "fixed"}
    text = """
[groups.bandit]
figures = 1
skill = 3
weapon = "shotgun"
{b}

[groups.stalker]
figures = 1
skill = 4
weapon = "assault_rifle"
{a}
"""
    rows = []
    for name, head, a, b in (
            ("f", FIELD.format(objects=""), 'positions = [[5, 15]]\nmovement = "hold"',
             "positions = [[35, 15]]"),
            ("a", "distance = 30\n", "", "")):
        path = tmp_path / f"{name}.toml"
        path.write_text(head + text.format(a=a, b=b))
        scenario = load_scenario(path)
        scenario = dataclasses.replace(
            scenario, rules=dataclasses.replace(scenario.rules, **rules))
        rows.append(_row(scenario))
    (fight, row), (_, abstract) = rows
    assert np.array_equal(_abstract_part(fight, row), abstract)


def test_s25_a_second_target_only_within_the_spread(tmp_path):
    head = FIELD.format(objects="")
    two = """
[groups.stalker]
figures = 1
skill = 4
weapon = "assault_rifle"
positions = [[5, 15]]
movement = "hold"

[groups.bandits]
figures = 2
skill = 3
weapon = "pistol"
positions = [[20, {y1}], [20, {y2}]]
movement = "hold"
"""
    rules = load_scenario.__globals__["load_rules"]()
    spread = rules.weapons["assault_rifle"].spread
    rows = {}
    for name, gap in (("far", spread + 2), ("near", spread - 1)):
        for targets in (1, 2):
            path = tmp_path / f"{name}{targets}.toml"
            path.write_text(head + two.format(y1=15 - gap / 2, y2=15 + gap / 2))
            s = load_scenario(path)
            s = dataclasses.replace(s, rules=dataclasses.replace(
                s.rules, shooting_targets_per_shooter=targets))
            rows[name, targets] = _row(s)[1]
    # Beyond the spread a second target is never named: the same fights as one target.
    assert np.array_equal(rows["far", 1], rows["far", 2])
    # Within it the dice are split (S-25, S-26): other fights.
    assert not np.array_equal(rows["near", 1], rows["near", 2])


def test_s39_the_surrounded_surrender_instead_of_fleeing(tmp_path):
    # A lone bandit in the middle with four stalkers round him, each 3 inches off one of
    # his runs to the edges; whenever he flees he is surrounded and surrenders.
    head = FIELD.format(objects="")
    text = """
[groups.stalkers]
figures = 4
skill = 4
weapon = "pistol"
positions = [[23, 8], [17, 22], [13, 12], [27, 18]]
movement = "hold"

[groups.bandit]
figures = 1
skill = 2
weapon = "pistol"
positions = [[20, 15]]
movement = "hold"
"""
    path = tmp_path / "ring.toml"
    path.write_text(head + text)
    ring = load_scenario(path)
    result = api.simulate(ring, trials=TRIALS, seed=SEED)
    surrendered = result.to_dict()["sides"][1]["surrendered"]
    assert surrendered["mean"] > 0.05
    off = dataclasses.replace(ring, rules=dataclasses.replace(ring.rules,
                                                              flee_surrounded="never"))
    assert api.simulate(off, trials=TRIALS, seed=SEED).to_dict()["sides"][1][
        "surrendered"]["mean"] == 0


def test_s02_s03_attackers_come_through_the_door_and_fire_from_inside(tmp_path):
    # The stalker holds the upper floor of the Shop; the bandits must come in by the
    # south door (the only way in), and the fire grid shows them firing from inside.
    shop = """
[[battlefield.buildings]]
name = "Shop"
x = 10
y = 10
width = 10
depth = 10
floors = 2
doors = [[15, 10]]
windows = [[15, 20, 1]]
"""
    s = _scenario(tmp_path, "door", FIELD.format(objects=shop),
                  'positions = [[15, 15, 1]]\nmovement = "hold"',
                  'positions = [[15, 2]]', bandit_weapon="shotgun")
    result = api.simulate(s, trials=2000, seed=SEED)
    grids = result.grids
    inside = grids["fire"][1][5:10, 5:10].sum()     # cells 10..20 inches: inside the Shop
    assert inside > 0
    assert grids["fire"][1].sum() == inside         # nobody fires through the walls
    assert result.to_dict()["sides"][1]["p_win"]["mc"] > 0
