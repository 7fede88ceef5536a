"""A skirmish battlefield as data (issue 50, S-01..S-03, S-19..S-23): bundled files load, and
every bad battlefield is refused at once with file, line, key and value."""

from __future__ import annotations

import pytest

from sim.rules.errors import RulesetError
from sim.rules.skirmish_loader import load_scenario, skirmish_root


def test_bundled_battlefields_load():
    street = load_scenario(skirmish_root() / "street_buildings.toml")
    assert [b.name for b in street.battlefield.buildings] == ["Shop", "Flats"]
    shop = street.battlefield.buildings[0]
    assert shop.floors == 2 and shop.stairs
    assert [(o.kind, o.floor) for o in shop.openings][:3] == [("door", 0), ("window", 0),
                                                             ("window", 1)]
    assert street.groups[0].positions[1] == (18.0, 11.0, 1)
    assert street.groups[0].movement == "hold" and street.groups[1].movement == "advance"
    field = load_scenario(skirmish_root() / "field_cover.toml")
    assert [(c.units, c.kind) for c in field.battlefield.cover] == [(1, "cover"), (1, "partial"),
                                                                    (2, "cover")]
    assert load_scenario(skirmish_root() / "street.toml").battlefield is None


BAD = """\
name = "bad field"

[battlefield]
width = 40
depth = 30

[[battlefield.buildings]]
name = "A"
x = 2
y = 2
width = 10
depth = 10
floors = 2
doors = [[5, 7]]
windows = [[12, 5, 2]]

[[battlefield.buildings]]
name = "B"
x = 8
y = 8
width = 6
depth = 6

[[battlefield.cover]]
from = [20, 5]
to = [20, 50]
units = 0

[groups.a]
figures = 2
skill = 3
weapon = "pistol"
positions = [[2, 6], [30, 20]]

[groups.b]
figures = 1
skill = 3
weapon = "pistol"
positions = [[35, 25, 1]]
"""


def test_every_battlefield_problem_at_once(tmp_path):
    path = tmp_path / "x.toml"
    path.write_text(BAD)
    with pytest.raises(RulesetError) as info:
        load_scenario(path)
    problems = [str(p) for p in info.value.problems]
    w = str(path)
    assert f"{w}:14: key 'battlefield.buildings[1].doors': [5, 7] door is on no wall of " \
        "building 'A'" in problems
    assert f"{w}:15: key 'battlefield.buildings[1].windows': [12, 5, 2] window is on floor 2, " \
        "but building 'A' has floors 0..1" in problems
    assert f"{w}:17: key 'battlefield.buildings[2]': 'B' overlaps building 'A' " \
        "(battlefield.buildings[1])" in problems
    assert f"{w}:27: key 'battlefield.cover[1].units': 0 is not a whole number of units in " \
        "1..4" in problems
    assert f"{w}:33: key 'groups.a.positions': [2, 6] is inside a wall of building 'A'" \
        in problems
    assert f"{w}:39: key 'groups.b.positions': [35, 25, 1] is on floor 1, but outside a " \
        "building only floor 0 exists" in problems
    assert len(problems) == 6, problems


def test_no_line_between_the_sides(tmp_path):
    text = """\
[battlefield]
width = 40
depth = 30

[[battlefield.buildings]]
name = "Wall of flats"
x = 0
y = 10
width = 40
depth = 5

[groups.a]
figures = 1
skill = 3
weapon = "pistol"
positions = [[20, 5]]
movement = "hold"

[groups.b]
figures = 1
skill = 3
weapon = "pistol"
positions = [[20, 25]]
movement = "hold"
"""
    path = tmp_path / "walled.toml"
    path.write_text(text)
    with pytest.raises(RulesetError) as info:
        load_scenario(path)
    problems = [str(p) for p in info.value.problems]
    assert len(problems) == 1 and problems[0].startswith(
        f"{path}:1: key 'battlefield': has no line between the sides")
    path.write_text(text.replace('movement = "hold"\n\n[groups.b]', '\n[groups.b]'))
    assert load_scenario(path).groups[0].movement == "advance"   # one side may walk round


def test_positions_need_a_battlefield(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text('distance = 10\n[groups.a]\nfigures = 1\nskill = 3\nweapon = "pistol"\n'
                    'positions = [[1, 1]]\n[groups.b]\nfigures = 1\nskill = 3\n'
                    'weapon = "pistol"\n')
    with pytest.raises(RulesetError) as info:
        load_scenario(path)
    assert [str(p) for p in info.value.problems] == [
        f"{path}:6: key 'groups.a.positions': [[1, 1]] needs a [battlefield] to place the "
        "figures on"]
