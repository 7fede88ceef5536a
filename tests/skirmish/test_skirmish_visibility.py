"""Night, woods and bad weather (S-19..S-22): sight limits applied to the weapons' ranges.

The limits are worked out by hand from the text for every kind of case, and held against
the kernel's rule (:func:`sim.kernels.skirmish.sight_inches`, as the fight's state gets
it), the plain-Python reference's and the exact module's, each written separately. The
firefight with the limits is held against the reference bit for bit, and a guard shows
that check fails when the reference gets the S-20 exception wrong.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.exact import skirmish as ex
from sim.experiments import skirmish as api
from sim.kernels import skirmish as k
from sim.reference import skirmish as ref
from sim.rules.errors import RulesetError
from sim.rules.skirmish_loader import load_scenario
from sim.skirmish.compile import compile_scenario

DUEL = load_scenario("configs/skirmish/duel.toml")
STREET = load_scenario("configs/skirmish/street.toml")
NIGHT = load_scenario("configs/skirmish/street_night.toml")


def _conditions(scenario, *, light="day", weather="clear", terrain=("open", "open"),
                lit=(False, False), night_vision=False, lift="night_limit"):
    """``scenario`` under the given conditions; ``night_vision`` for side 0's figures."""
    g0, g1 = scenario.groups
    figs = tuple(dataclasses.replace(f, night_vision=night_vision) for f in g0.figures)
    g0 = dataclasses.replace(g0, terrain=terrain[0], lit=lit[0], figures=figs)
    g1 = dataclasses.replace(g1, terrain=terrain[1], lit=lit[1])
    rules = dataclasses.replace(scenario.rules, visibility_exceptions_lift=lift)
    return dataclasses.replace(scenario, light=light, weather=weather, groups=(g0, g1),
                               rules=rules)


# (conditions, sight of side 0's figure, of side 1's figure), worked out from the text;
# None: no limit (S-19).
CASES = {
    "day": ({}, None, None),
    "night": ({"light": "night"}, 12, 12),                                          # S-20
    "night_vision": ({"light": "night", "night_vision": True}, None, 12),            # S-20
    "lit_enemy": ({"light": "night", "lit": (False, True)}, None, 12),               # S-20
    "woods_day": ({"terrain": ("woods", "open")}, 12, 12),                          # S-21
    "woods_night": ({"light": "night", "terrain": ("open", "woods")}, 6, 6),         # S-21
    "woods_edge_day": ({"terrain": ("woods", "wood_edge")}, None, None),             # S-21
    "woods_edge_night": ({"light": "night", "terrain": ("wood_edge", "woods")}, 12, 12),
    "woods_night_vision": ({"light": "night", "terrain": ("woods", "woods"),
                            "night_vision": True}, 6, 6),
    "woods_night_vision_lifted": ({"light": "night", "terrain": ("woods", "woods"),
                                   "night_vision": True, "lift": "all_night_limits"}, 12, 6),
    "bad_weather_day": ({"weather": "bad"}, 12, 12),                                 # S-22
    "bad_weather_night": ({"light": "night", "weather": "bad"}, 6, 6),               # S-22
    "bad_weather_edge": ({"weather": "bad", "terrain": ("wood_edge", "open")}, 12, 12),
    "bad_weather_lit_lifted": ({"light": "night", "weather": "bad", "lit": (True, False),
                                "lift": "all_night_limits"}, 6, 12),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_sight_limits_from_the_text(case):
    conditions, want0, want1 = CASES[case]
    scenario = _conditions(DUEL, **conditions)
    fight = compile_scenario(scenario)
    st = k._static_state(fight.fig, fight.grp, fight.need, fight.params)
    kernel = [int(st[k._f(k.C_SIGHT, f)]) for f in range(2)]
    kernel = [None if s == k.NO_LIMIT else s for s in kernel]
    reference = [f.sight for f in ref.Fight(fight, 0, 0).figures]
    exact = [ex.sight(scenario, g, scenario.groups[g].figures[0].night_vision)
             for g in range(2)]
    assert kernel == reference == exact == [want0, want1]
    # Every range the fight reads is the weapon's, within sight (S-19).
    for f, weapon in enumerate(g.figures[0].weapon for g in scenario.groups):
        seen = kernel[f] if kernel[f] is not None else weapon.range
        assert st[k._f(k.C_RANGE, f)] == min(weapon.range, seen)


def test_day_open_clear_keeps_the_weapons_ranges():
    fight = compile_scenario(STREET)
    st = k._static_state(fight.fig, fight.grp, fight.need, fight.params)
    ranges = [st[k._f(k.C_RANGE, f)] for f in range(fight.fig.shape[0])]
    assert ranges == list(fight.fig[:, k.F_RANGE])


VARIANTS = {
    "street_night": NIGHT,
    "woods_night_edge_lifted": _conditions(STREET, light="night", terrain=("wood_edge", "woods"),
                                           night_vision=True, lift="all_night_limits"),
    "bad_weather_lit": _conditions(STREET, light="night", weather="bad", lit=(False, True)),
    "woods_day": _conditions(STREET, terrain=("woods", "open")),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_kernel_equals_reference_under_sight_limits(variant):
    fight = compile_scenario(VARIANTS[variant])
    assert np.array_equal(ref.run_reference(fight, 5, 1500),
                          api.fight_counts(fight, trials=1500, seed=5))


def test_guard_wrong_night_vision_rule_is_detected(monkeypatch):
    # A reference that forgets the night-vision exception of S-20 no longer agrees.
    fight = compile_scenario(NIGHT)
    kernel = api.fight_counts(fight, trials=1500, seed=5)
    right = ref.Fight.sight
    monkeypatch.setattr(ref.Fight, "sight", lambda self, g, nv: right(self, g, False))
    assert not np.array_equal(ref.run_reference(fight, 5, 1500), kernel)


def test_night_changes_the_street_fight():
    # The rifles lose their reach at night (S-20): the stalkers win less often.
    day = api.simulate(STREET, trials=100_000, seed=11)
    night = api.simulate(NIGHT, trials=100_000, seed=11)
    assert night.sides[0].wins < day.sides[0].wins


def test_exact_small_fight_needs_figures_in_sight():
    scenario = _conditions(DUEL, light="night", terrain=("woods", "open"))   # 6 < 10 inches
    with pytest.raises(ValueError, match="in sight"):
        ex.small_fight(scenario)
    with pytest.raises(ValueError, match="day, clear weather"):
        ex.duel(compile_scenario(_conditions(DUEL, light="night")))


def test_bad_conditions_are_reported(tmp_path):
    path = tmp_path / "x.toml"
    path.write_text('distance = 5\nlight = "dusk"\nweather = "fog"\n'
                    '[groups.a]\nfigures = 1\nskill = 3\nweapon = "pistol"\n'
                    'terrain = "forest"\nnight_vision = [true, false]\n'
                    '[groups.b]\nfigures = 1\nskill = 3\nweapon = "pistol"\nlit = 1\n')
    with pytest.raises(RulesetError) as info:
        load_scenario(path)
    text = "\n".join(str(p) for p in info.value.problems)
    for needle in ("light", "dusk", "weather", "fog", "groups.a.terrain", "forest",
                   "groups.a.night_vision", "groups.b.lit"):
        assert needle in text
