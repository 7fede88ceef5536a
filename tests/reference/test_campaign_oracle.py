"""The campaign reference's own footing: independence, movement, hand-computed days.

The reference (sim/reference/campaign.py, sim/reference/route.py) is the
oracle the kernel is checked against (tests/kernels/campaign/test_campaign_reference.py), so it
must not lean on the code it checks: it reads only the validated model. Its
route search is checked here against a brute-force walker that knows no
labels (every walk, with optional rests), and its games against days worked
out by hand on tiny maps (Z-19..Z-26, P-50).
"""

from __future__ import annotations

import ast
import math
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from sim.reference import campaign as reference
from sim.reference.route import Terrain
from sim.rules import load_ruleset
from sim.rules.model import Hex, Map
from sim.rules.scenario import load_scenario
from sim.rules.schema import DIRECTIONS
from tests.kernels.campaign.test_campaign import QUIET, ROAD_CHANGE_MAP, line_map, make_scenario

RS = load_ruleset(None)
REFERENCE = Path(reference.__file__).parent
FORBIDDEN = ("sim.kernels", "sim.campaign.compile", "sim.campaign.route",
             "sim.campaign.hexmap", "sim.experiments.campaign", "sim.encounter", "sim.exact")
SHARED = ("sim.encounter", "sim.encounter.artifact", "sim.encounter.damage",
          "sim.encounter.loadout", "sim.encounter.modifier", "sim.encounter.spec", "sim.kernels",
          "sim.kernels.layout", "sim.kernels.records")
"""What every plain-Python reference reads of one encounter (docs/rules.md "Artefacts in the
campaign"): the artefact cards resolved into specs (P-07..P-10; a side effect's track from
``sim.encounter.damage``, P-09), the round's weapons and
combat artefacts within the hands (P-23), the test terms and the code constants they use
(``layout``, whose records ``sim.kernels.records`` declares: plain Python and numpy); no
kernel, no compiled table, no numba."""


def forbidden(modules: list[str]) -> list[str]:
    """The modules of ``modules`` the campaign reference must not use."""
    return [m for m in modules if m.startswith(FORBIDDEN) and m not in SHARED]


@pytest.mark.subprocess
def test_reference_imports_nothing_of_the_kernel_or_the_compile_step():
    # Statically: no import statement of the two modules names a forbidden module...
    for path in (REFERENCE / "campaign.py", REFERENCE / "route.py"):
        tree = ast.parse(path.read_text())
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not forbidden(names), (path, names)
    # ... and at run time nothing forbidden is loaded behind its back (a fresh interpreter).
    code = ("import sys, sim.reference.campaign; "
            "print('\\n'.join(m for m in sys.modules if m.startswith(('sim.', 'numba'))))")
    loaded = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                            text=True).stdout.split()
    assert "sim.reference.campaign" in loaded
    assert not forbidden(loaded) and "numba" not in loaded, loaded


# --- movement: the reference's Dijkstra against a brute-force walker --------------------------


def random_map(rand: random.Random, radius: int = 2) -> Map:
    """A radius-``radius`` hexagon with random terrain, Epicentre hexes and roads.

    Roads are random edges between terrain-1 hexes, both ends listing the
    direction; each hex splits its road directions into one or two segments
    at random (junctions and crossings without a junction, Z-26).
    """
    cells = [(q, r) for q in range(-radius, radius + 1) for r in range(-radius, radius + 1)
             if abs(q + r) <= radius]
    terrain = {c: rand.choice((1, 1, 1, 2, 3, 4, 5, 6)) for c in cells}
    epicentre = {c for c in cells if terrain[c] != 1 and rand.random() < 0.15}
    ends: dict = {c: [] for c in cells}
    for c in cells:
        for d, (dq, dr) in enumerate(DIRECTIONS[:3]):
            n = (c[0] + dq, c[1] + dr)
            if n in terrain and terrain[c] == terrain[n] == 1 and c not in epicentre \
                    and n not in epicentre and rand.random() < 0.6:
                ends[c].append(d)
                ends[n].append(d + 3)
    hexes = []
    for c in cells:
        dirs = sorted(ends[c])
        rand.shuffle(dirs)
        cut = rand.randint(1, len(dirs) - 1) if len(dirs) >= 2 and rand.random() < 0.5 \
            else len(dirs)
        roads = tuple(tuple(sorted(s)) for s in (dirs[:cut], dirs[cut:]) if s)
        hexes.append(Hex(q=c[0], r=c[1], terrain=terrain[c],
                         location="epicentre" if c in epicentre else "", roads=roads))
    return Map(tuple(hexes))


def check_search_against_walker(terrain: Terrain, n_hexes: int, allowance: int,
                                rand: random.Random, pairs: int) -> None:
    for _ in range(pairs):
        start, target = rand.randrange(n_hexes), rand.randrange(n_hexes)
        search = terrain.search(start, allowance)
        walked = terrain.walk(start, target, allowance)
        planned = (0, allowance) if start == target else terrain.costs(search, target)
        assert planned == walked, (start, target, allowance)
        first = terrain.first_day(search, target)
        if walked[0] <= 0:
            assert first == ()
            continue
        # The first day is a legal day's walk, and the rest of an optimal route is optimal
        # from where it ends (so re-planning each morning is optimal, docs/rules.md).
        used, seg, here = 0, -1, start
        for h in first:
            move = next(m for m in terrain.moves(here, seg, used, allowance) if m[0] == h)
            assert move[2] is not None, (start, target, first)
            here, seg, used = h, move[1], move[2]
        rest = terrain.walk(here, target, allowance)
        assert rest[0] == walked[0] - 1 and (rest[1] == walked[1] or walked[0] == 1), \
            (start, target, first, walked, rest)


@pytest.mark.parametrize("seed", range(12))
def test_route_search_matches_the_walker_on_random_small_maps(seed):
    # Z-19..Z-26, Z-03: days and steps left of the Dijkstra equal the exhaustive walker's,
    # for base 6 (items 0..3: allowances 6..9) and the default Epicentre cost 5.
    rand = random.Random(seed)
    hexmap = random_map(rand)
    for allowance in (6, 7, 9):
        terrain = Terrain(hexmap, RS.rules.movement)
        check_search_against_walker(terrain, len(hexmap), allowance, rand, pairs=15)


@pytest.mark.parametrize("allowance", [6, 9])
def test_route_search_matches_the_walker_on_the_base_map(allowance):
    terrain = Terrain(RS.map, RS.rules.movement)
    check_search_against_walker(terrain, len(RS.map), allowance, random.Random(allowance),
                                pairs=25)


def test_walker_hand_cases():
    # Z-22/Z-24: destination costs; Z-23: no borrowing; Z-03: two Epicentre hexes (5 + 5)
    # never in one day, even with the jetpack's 9 steps.
    row = [Hex(q, 0, t) for q, t in enumerate((1, 5, 1, 2))]
    epi = Map(tuple(Hex(q, 0, 3, location="epicentre" if q else "") for q in range(3)))
    movement = RS.rules.movement
    terrain = Terrain(Map(tuple(row)), movement)
    assert terrain.walk(0, 1, 6) == (1, 1)  # mountains: 5 of 6 steps
    assert terrain.walk(0, 2, 6) == (1, 0)  # then a road: 1 step (Z-24)
    assert terrain.walk(0, 3, 6) == (2, 4)  # the field does not fit: next day (Z-23)
    assert Terrain(epi, movement).walk(0, 1, 9) == (1, 4)  # 5 of the 6 usable steps
    assert Terrain(epi, movement).walk(0, 2, 9) == (2, 4)  # Z-03: the second on day 2


# --- whole reference games on hand-made maps ---------------------------------------------------


def reference_days(path: Path, trials: int = 50) -> dict:
    return dict(Counter((row["end"], row["day"])
                        for row in reference.play(load_scenario(path), trials, 1)))


@pytest.mark.parametrize("length", [1, 5, 6, 7, 12, 13])
def test_reference_straight_road_takes_ceil_l_over_6_days(tmp_path, length):
    # Z-19, Z-25: 6 road hexes a day; reaching the complex ends the day (P-50); the
    # Sarcophagus (Epicentre cost 5) is entered the next day.
    days = reference_days(make_scenario(tmp_path, line_map(length)))
    assert days == {("reached", math.ceil(length / 6) + 1): 50}


@pytest.mark.parametrize(("items", "terrain", "per_day"), [(("Jetpack",), 1, 9), ((), 2, 3)])
def test_reference_jetpack_and_fields(tmp_path, items, terrain, per_day):
    # Z-03: the jetpack gives 9 steps a day outside the Epicentre; Z-21: fields cost 2.
    days = reference_days(make_scenario(tmp_path, line_map(10, terrain), items=items))
    assert days == {("reached", math.ceil(10 / per_day) + 1): 50}


@pytest.mark.parametrize(("change_cost", "days"), [(2, 3), (0, 2)])
def test_reference_road_change_costs_two_steps(tmp_path, change_cost, days):
    # Z-26, worked out in tests/kernels/campaign/test_campaign.py:
    # 3 days with the change cost, 2 without.
    rules = QUIET + f"[movement]\nroad_change_cost = {change_cost}\n"
    assert reference_days(make_scenario(tmp_path, ROAD_CHANGE_MAP, rules=rules)) == {
        ("reached", days): 50}


def test_reference_final_emission_on_day_one(tmp_path):
    # P-48, P-49: five tokens on day 1 and a deck holding only the Final Emission.
    rules = QUIET.replace("environment_change_chance = 0.0", "environment_change_chance = 1.0")
    path = make_scenario(tmp_path, line_map(20), rules=rules + "[emission]\n"
                         "tokens_per_environment = 5\n")
    (tmp_path / "rules" / "emissions.csv").write_text(
        "name,order,wounds,radiation,psi,final,notes\nFinal Emission,1,0,0,0,1,\n")
    assert reference_days(path) == {("final_emission", 1): 50}


def test_a_shorter_run_is_the_head_of_a_longer_one():
    """:func:`reference.play` plays its games in turn from one seed's streams, so the first
    ``n`` games of a longer run are the ``n``-game run: the kernel comparisons share one
    sample among the tests that ask for fewer games
    (tests/kernels/campaign/test_campaign_reference.py ``reference_sample``)."""
    scenario = load_scenario("base")
    assert reference.play(scenario, 40, 17)[:15] == reference.play(scenario, 15, 17)
