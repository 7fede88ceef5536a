"""Recover (S-41, S-42) on the plain-Python reference, with the dice set by hand.

The Monte Carlo check of the same rule against an exact chain written from the text is
``test_kernel_matches_exact_small_fight[2v1]`` in tests/skirmish/test_skirmish_oracles.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.kernels import skirmish as k
from sim.reference.skirmish import Fight, Stream
from sim.rules.skirmish_loader import load_scenario
from sim.skirmish.compile import compile_scenario

TWO_V_ONE = load_scenario(Path(__file__).parents[1] / "data" / "skirmish" / "two_v_one.toml")


class _Scripted(Stream):
    """A dice stream that yields the given dice first, then the stream's own."""

    def __init__(self, dice, seed=1, trial=0):
        super().__init__(seed, trial, 0)
        self.script = list(dice)

    def d6(self):
        return self.script.pop(0) if self.script else super().d6()


@pytest.mark.parametrize(("dice", "acts"), [((2, 6), False), ((6, 2), False), ((1, 2), True)])
@pytest.mark.parametrize("distance", [10, 20])
def test_recover_result_decides_who_acts_s42(dice, acts, distance):
    # S-41, S-42 on the plain-Python reference, dice chosen by hand: the Skill 2 loner
    # cowers in cover next to its Skill 3 friend. Rolling a 2 and a 6 it passes one die:
    # it returns but takes no action (at 10 inches it does not fire with its friend; at
    # 20 inches, out of range, it does not advance with its group, S-09). Rolling 1 and 2
    # it passes both and acts at once.
    fight = Fight(compile_scenario(TWO_V_ONE), seed=1, trial=0)
    fight.dice = _Scripted(dice)
    friend, cowering = fight.groups[0]
    cowering.status = k.COWER
    fight.distance = distance
    fight.activate(0)
    assert cowering.status != k.LOST
    if distance == 10:
        assert friend.fired and cowering.fired == acts
    else:
        assert friend.moved and cowering.moved == acts
