"""Carrying a comrade (S-04..S-06) and carrying him off the table (S-07).

On the plain-Python reference with the dice set by hand: picking up ends the carrier's
turn (S-04), a lone carrier moves at normal speed and not fast while two may move fast
(S-05). The kernel equals the reference bit for bit on withdrawing fights where
comrades are carried, and a guard shows a reference that lets a lone carrier move fast
no longer agrees. Without movement (S-04, S-06, S-07), the kernel against the exact
chain :func:`sim.exact.skirmish.small_fight` at 1e6 trials (|z| < 4.5), with a guard
that the chain of a carrier who fires as usual (no S-06) fails that check.
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
from sim.rules.skirmish_loader import load_scenario
from sim.skirmish.compile import compile_scenario
from tests.conftest import MC_TRIALS, Z_TOL, assert_matches_exact
from tests.rules.test_skirmish_loader import _problems
from tests.skirmish.test_skirmish_oracles import SEED, _observed_and_exact
from tests.skirmish.test_skirmish_recover import _Scripted

DATA = Path(__file__).parents[1] / "data" / "skirmish"
ASSAULT = load_scenario(DATA / "assault.toml")
STREET = load_scenario("configs/skirmish/street.toml")
CARRY_OUT = load_scenario(DATA / "carry_out.toml")
CARRY_OUT = dataclasses.replace(CARRY_OUT, rules=dataclasses.replace(CARRY_OUT.rules,
                                                                     activation_max_rounds=8))


def _groups(scenario, g0=None, g1=None):
    a, b = scenario.groups
    return dataclasses.replace(scenario, groups=(dataclasses.replace(a, **(g0 or {})),
                                                 dataclasses.replace(b, **(g1 or {}))))


@pytest.mark.parametrize("carriers", [1, 2])
def test_picking_up_ends_the_turn_and_a_lone_carrier_does_not_move_fast(carriers):
    # The four stalkers (8 inches a move) are out of range at 40 inches; the first is
    # out of the fight. S-04: picking him up ends the carriers' turn, so only the
    # figures left advance (with a fast-move roll of 1, 1: +4 inches).
    scenario = _groups(STREET, g0={"carriers": carriers})
    fight = ref.Fight(compile_scenario(scenario), seed=1, trial=0)
    fight.dice = _Scripted((1, 1) * 4)
    hurt, *others = fight.groups[0]
    hurt.status = k.OUT
    fight.distance = 40
    fight.recover(0)
    fight.pick_up(0)
    carriers_now = fight.carriers_of(hurt)
    assert carriers_now == others[:carriers]
    assert all(c.waiting and not c.moved for c in carriers_now)
    assert fight.acting(0) == others[carriers:]
    fight.move(0)
    assert fight.distance == 40 - 12                    # the free figure moves fast
    # Next activation: everybody moves; a lone carrier moves at normal speed (S-05),
    # so the group keeps to 8 inches; two carriers may move fast (+4 inches).
    for f in fight.groups[0]:
        f.waiting = False
    fight.move(0)
    assert fight.distance == 28 - (12 if carriers == 2 else 8)
    assert all(c.fast == (carriers == 2) for c in carriers_now)


def test_a_carrier_that_cowers_drops_his_comrade():
    scenario = _groups(ASSAULT, g0={"carriers": 1})
    fight = ref.Fight(compile_scenario(scenario), seed=1, trial=0)
    hurt, carrier, _ = fight.groups[0]
    hurt.status = k.OUT
    fight.pick_up(0)
    assert carrier.carrying is hurt
    carrier.status = k.COWER
    assert carrier.carrying is None and fight.carriers_of(hurt) == []


VARIANTS = {
    "street_carry_withdraw": _groups(STREET, g0={"carriers": 1, "withdraw_at": 2}),
    "street_two_carriers_both": _groups(STREET, g0={"carriers": 2, "withdraw_at": 1},
                                        g1={"carriers": 1, "withdraw_at": 3}),
    "assault_carry_night": dataclasses.replace(
        _groups(ASSAULT, g0={"carriers": 1, "withdraw_at": 1},
                g1={"carriers": 2, "withdraw_at": 2}), light="night"),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_kernel_equals_reference_when_carrying(variant):
    fight = compile_scenario(VARIANTS[variant])
    kernel = api.fight_counts(fight, trials=2000, seed=3)
    assert np.array_equal(ref.run_reference(fight, 3, 2000), kernel)
    assert kernel[k.O_CARRIED] + kernel[k.O_CARRIED + 1] > 0   # comrades were carried off


def test_guard_lone_carrier_moving_fast_is_detected(monkeypatch):
    # Carriers move only in a group still advancing: the stalkers' pistol is out of
    # range while their rifles shoot, so they advance carrying their casualties.
    fight = compile_scenario(VARIANTS["street_two_carriers_both"])
    kernel = api.fight_counts(fight, trials=2000, seed=3)
    monkeypatch.setattr(ref.Fight, "carriers_of",
                        lambda self, x: [c for c in self.groups[x.group] if c.carrying is x] * 2)
    assert not np.array_equal(ref.run_reference(fight, 3, 2000), kernel)


def test_no_carriers_changes_nothing():
    # carriers = 0 (the default) plays the fight exactly as before: nothing carried.
    plain = api.fight_counts(compile_scenario(_groups(STREET, g0={"withdraw_at": 2})),
                             trials=2000, seed=3)
    assert plain[k.O_CARRIED] == plain[k.O_CARRIED + 1] == 0


def test_bad_carriers_value_is_reported(tmp_path):
    problems = _problems(tmp_path, 'distance = 5\n[groups.a]\nfigures = 2\nskill = 3\n'
                         'weapon = "pistol"\ncarriers = 3\n[groups.b]\nfigures = 1\n'
                         'skill = 3\nweapon = "pistol"\n')
    assert any("groups.a.carriers" in p and "is not in 0..2" in p for p in problems)


def _carried_z(result, exact):
    """z of the mean comrades carried off by side 0 against its exact value."""
    side = result.sides[0]
    n = result.trials
    mean = side.carried_sum / n
    var = side.carried_sq / n - mean * mean
    return (mean - float(exact)) / np.sqrt(var / n)


def test_carrying_matches_exact_small_fight():
    # S-04 (the carrier does not fire in the activation it picks up), S-06 (its fire
    # sees every target in cover) and S-07 (carried comrades are kept at the exit).
    observed, exact, labels = _observed_and_exact(CARRY_OUT)
    assert_matches_exact(observed, MC_TRIALS, exact, labels=labels)
    r = api.simulate(CARRY_OUT, trials=MC_TRIALS, seed=SEED)
    assert abs(_carried_z(r, ex.small_fight(CARRY_OUT).carried[0])) < Z_TOL


def test_guard_exact_check_fails_without_s06(monkeypatch):
    # The exact chain with carriers firing as usual: the kernel's wins disagree.
    right = ex._SmallFight.p_hit
    monkeypatch.setattr(ex._SmallFight, "p_hit",
                        lambda self, s, skill, t, carrying=False: right(self, s, skill, t))
    wrong = ex.small_fight(CARRY_OUT)
    r = api.simulate(CARRY_OUT, trials=MC_TRIALS, seed=SEED)
    with pytest.raises(pytest.fail.Exception):
        assert_matches_exact([r.sides[0].wins, r.sides[1].wins], MC_TRIALS, wrong.p_win)
