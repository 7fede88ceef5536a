"""Surrender of cowering figures (S-38) when an armed enemy comes within 6 inches.

On the plain-Python reference with the dice set by hand; the kernel against the reference
bit for bit on fights where it happens, with a guard that a reference without the rule no
longer agrees; and, for the ``within`` reading (the one a fight without movement can
show), the kernel against the exact chain written from the text (|z| < 4.5), with a guard
that the check fails when the kernel plays the other reading.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from sim.exact import skirmish as ex
from sim.experiments import skirmish as api
from sim.kernels import skirmish as k
from sim.reference import skirmish as ref
from sim.rules.errors import RulesetError
from sim.rules.skirmish_loader import load_scenario
from sim.skirmish.compile import compile_scenario
from tests.conftest import MC_TRIALS, assert_matches_exact
from tests.skirmish.test_skirmish_oracles import _observed_and_exact
from tests.skirmish.test_skirmish_recover import _Scripted

DATA = Path(__file__).parents[1] / "data" / "skirmish"
TWO_V_ONE = load_scenario(DATA / "two_v_one.toml")
ASSAULT = load_scenario(DATA / "assault.toml")


def _rules(scenario, **rules):
    return dataclasses.replace(scenario, rules=dataclasses.replace(scenario.rules, **rules))


@pytest.mark.parametrize(("distance", "when", "sight", "surrenders"), [
    (14, "approach", 6, True),      # 14 - 8 = 6 inches: within 6 (S-38)
    (15, "approach", 6, False),     # 7 inches
    (14, "never", 6, False),
    (14, "approach", 5, False),     # within 6 but out of sight (S-21: 5" here)
])
def test_enemy_coming_within_6_inches_takes_the_cowering_prisoner(distance, when, sight,
                                                                  surrenders):
    # The bandit (Skill 4, 8 inches a move, no fast move) advances on the loners; the
    # Skill 2 loner cowers in cover (S-38).
    scenario = _rules(TWO_V_ONE, surrender_when=when, fast_move_attempt=False,
                      visibility_reduced_day_inches=sight)
    if sight < 6:
        g0, g1 = scenario.groups
        scenario = dataclasses.replace(scenario, groups=(g0, dataclasses.replace(
            g1, terrain="woods")))
    fight = ref.Fight(compile_scenario(scenario), seed=1, trial=0)
    friend, cowering = fight.groups[0]
    cowering.status = k.COWER
    fight.distance = distance
    fight.move(1)
    assert fight.distance == distance - 8
    assert cowering.status == (k.LOST if surrenders else k.COWER)
    assert friend.status == k.ACTIVE


@pytest.mark.parametrize(("when", "status"), [("within", k.LOST), ("approach", k.COWER)])
def test_cowering_within_6_inches(when, status):
    # Fired upon at 5 inches, the Skill 2 loner in cover rolls 6, 6 on Received Fire: it
    # cowers (S-36). Under "within" it surrenders at once to the bandit 5 inches away.
    fight = ref.Fight(compile_scenario(_rules(TWO_V_ONE, surrender_when=when)), 1, 0)
    fight.dice = _Scripted((6, 6))
    fight.distance = 5
    _, loner = fight.groups[0]
    loner.testing, loner.attacker = True, fight.groups[1][0].index
    fight.received_fire(0, True)
    assert loner.status == status


VARIANTS = {
    "assault": ASSAULT,
    "assault_within_no_recover": _rules(ASSAULT, surrender_when="within", recover_attempt=False,
                                        end_of_fight_cowering="kept"),
    "assault_short_no_fast": dataclasses.replace(
        _rules(ASSAULT, recover_attempt=False, end_of_fight_cowering="kept",
               fast_move_attempt=False), distance=22),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_kernel_equals_reference_with_surrender(variant):
    scenario = VARIANTS[variant]
    fight = compile_scenario(scenario)
    kernel = api.fight_counts(fight, trials=3000, seed=5)
    assert np.array_equal(ref.run_reference(fight, 5, 3000), kernel)
    if variant != "assault":
        # The rule acts in these fights: without it the kernel counts otherwise.
        off = compile_scenario(_rules(scenario, surrender_when="never"))
        assert not np.array_equal(api.fight_counts(off, trials=3000, seed=5), kernel)


def test_guard_reference_without_surrender_is_detected(monkeypatch):
    fight = compile_scenario(VARIANTS["assault_short_no_fast"])
    kernel = api.fight_counts(fight, trials=3000, seed=5)
    monkeypatch.setattr(ref.Fight, "surrender", lambda self, g, enemies: None)
    assert not np.array_equal(ref.run_reference(fight, 5, 3000), kernel)


# Two loners cower often at 6 inches from the bandit: under "within" each cowering is a
# surrender, and Recover (S-41) never gets a cowering figure back.
WITHIN = dataclasses.replace(_rules(TWO_V_ONE, surrender_when="within"), distance=6)


def test_within_reading_matches_exact_small_fight():
    observed, exact, labels = _observed_and_exact(WITHIN)
    assert_matches_exact(observed, MC_TRIALS, exact, labels=labels)


def test_guard_exact_check_fails_on_the_other_reading():
    # The kernel playing "approach" (nobody moves: no surrender) against the exact
    # "within" chain: the check fails.
    r = api.simulate(_rules(WITHIN, surrender_when="approach"), trials=MC_TRIALS, seed=4242)
    e = ex.small_fight(WITHIN)
    with pytest.raises(pytest.fail.Exception):
        assert_matches_exact([r.sides[0].wins, r.sides[1].wins], MC_TRIALS, e.p_win)


def test_bad_surrender_keys_are_reported(tmp_path):
    path = tmp_path / "rules.toml"
    path.write_text('[surrender]\nwhen = "later"\ninches = -1\n')
    from sim.rules.skirmish_loader import load_rules
    with pytest.raises(RulesetError) as info:
        load_rules(path)
    text = "\n".join(str(p) for p in info.value.problems)
    assert "surrender.when" in text and "later" in text and "surrender.inches" in text
