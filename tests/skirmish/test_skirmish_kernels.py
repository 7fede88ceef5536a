"""Skirmish Monte Carlo kernels against their exact twins and the plain-Python reference.

Statistical cases run 1e6 trials at a fixed seed and require |z| < 4.5 on every
outcome (tests/conftest.py explains the tolerance).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.exact import skirmish as ex
from sim.experiments import skirmish as api
from sim.reference.skirmish import Stream, run_reference
from sim.rules.skirmish_loader import load_scenario
from sim.skirmish.compile import compile_scenario
from tests.conftest import MC_TRIALS, assert_matches_exact

SEED = 4242
NEED = (8, 9, 10)


def _compare(counts: dict, exact: dict) -> None:
    keys = sorted(counts)
    assert set(exact) <= set(counts)
    assert_matches_exact([counts[key] for key in keys], MC_TRIALS,
                         [exact.get(key, 0) for key in keys], labels=keys)


@pytest.mark.parametrize("skill", range(0, 7))
@pytest.mark.parametrize(("level", "order"), [(0, 0), (1, 0), (2, 0), (0, 1), (0, 2)])
def test_hit_probability_per_skill_and_condition(skill, level, order):
    # S-30, S-31: one die; the target's order is simulated by announcing no dice at the
    # earlier targets.
    alloc = [0] * order + [1]
    levels = [0] * order + [level]
    counts = api.volley_counts(skill, alloc, levels, NEED, trials=MC_TRIALS, seed=SEED)
    p = ex.hit_probability(skill, level, order)
    hit = sum(c for key, c in counts.items() if key[-1] == 1)
    assert_matches_exact([MC_TRIALS - hit, hit], MC_TRIALS, [1 - p, p])


@pytest.mark.parametrize(("skill", "alloc", "levels"),
                         [(4, [2, 1], [0, 0]), (3, [3], [1]), (2, [2, 2, 2], [0, 0, 1]),
                          (5, [1, 1, 1, 1], [0, 1, 2, 0]), (4, [6], [2])])
def test_volley_distribution(skill, alloc, levels):
    # S-26: dice sorted high to low, allocated as announced.
    counts = api.volley_counts(skill, alloc, levels, NEED, trials=MC_TRIALS, seed=SEED)
    _compare(counts, ex.volley_distribution(skill, alloc, levels))


@pytest.mark.parametrize("skill", range(0, 7))
@pytest.mark.parametrize("covering", [False, True])
def test_reaction_test_per_skill(skill, covering):
    # S-11, S-15: 2d6 (+1d6 Covering), dice passed capped at 2.
    counts = api.group_reaction_counts([skill], [covering], 1, 2, trials=MC_TRIALS, seed=SEED)
    _compare(counts, ex.group_reaction_distribution([skill], [covering], 1, 2))


def test_group_reaction_on_shared_dice():
    # S-10..S-12: one roll for the group, each member against its own Skill.
    args = ([4, 2, 5], [False, True, False], 1, 2)
    counts = api.group_reaction_counts(*args, trials=MC_TRIALS, seed=SEED)
    _compare(counts, ex.group_reaction_distribution(*args))


DUEL = load_scenario("configs/skirmish/duel.toml")


def _variant(rules=None, **group0):
    scenario = DUEL
    if rules:
        scenario = dataclasses.replace(scenario,
                                       rules=dataclasses.replace(scenario.rules, **rules))
    if group0:
        g0 = dataclasses.replace(scenario.groups[0], **group0)
        scenario = dataclasses.replace(scenario, groups=(g0, scenario.groups[1]))
    return scenario


VARIANTS = {
    "bundled": _variant(),
    "not_hit_trigger": _variant({"received_fire_trigger": "not_hit"}),
    "flanked_flank_first": _variant({"received_fire_precedence": "flank_first"}, flanked=True),
    "flanked_text_order": _variant({"reaction_partial_cover_is": "open"}, flanked=True),
    "no_return_fire": _variant({"received_fire_max_chain": 1, "activation_order": "alternate"}),
    "suppression_ge_capped": _variant({"suppression_compare": "greater_or_equal",
                                       "activation_max_rounds": 2, "activation_order": "fixed",
                                       "damage_faces": ("none",) * 5 + ("out",)}),
    "cowards_kept": _variant({"end_of_fight_cowering": "kept", "hit_need": (9, 10, 11)}),
}


@pytest.mark.parametrize("name", VARIANTS)
def test_duel_matches_markov_chain(name):
    # S-07..S-43 on one figure a side: every output of the firefight kernel against the
    # exact Markov chain of sim.exact.skirmish.duel.
    scenario = VARIANTS[name]
    fight = compile_scenario(scenario)
    d = ex.duel(fight)
    r = api.simulate(scenario, trials=MC_TRIALS, seed=SEED)
    observed = [r.sides[0].wins, r.sides[1].wins, r.draws, r.capped,
                r.sides[0].broken, r.sides[1].broken,
                *r.sides[0].shot, *r.sides[1].shot, *r.sides[0].lost, *r.sides[1].lost,
                *r.rounds[1:]]
    exact = [*d.p_win, d.p_draw, d.p_capped, *d.p_broken, *d.shot[0], *d.shot[1],
             *d.lost[0], *d.lost[1], *d.rounds[1:]]
    assert_matches_exact(observed, MC_TRIALS, exact)


def test_wrong_rule_is_detected_by_the_duel_test():
    # Guard: the tolerance catches a one-rule change (9 on partial cover no longer hits).
    fight = compile_scenario(VARIANTS["bundled"])
    wrong = ex.duel(compile_scenario(_variant({"hit_need": (8, 10, 10)})))
    r = api.simulate(VARIANTS["bundled"], trials=MC_TRIALS, seed=SEED)
    assert ex.duel(fight).p_win != wrong.p_win
    with pytest.raises(pytest.fail.Exception):
        assert_matches_exact([r.sides[0].wins, r.sides[1].wins], MC_TRIALS, wrong.p_win)


STREET = load_scenario("configs/skirmish/street.toml")


def test_firefight_identical_for_threads_and_chunks():
    fight = compile_scenario(STREET)
    one = api.fight_counts(fight, trials=60_000, seed=7, threads=1)
    two = api.fight_counts(fight, trials=60_000, seed=7, threads=2)
    odd = api.fight_counts(fight, trials=60_000, seed=7, threads=2, chunk_size=777)
    assert np.array_equal(one, two) and np.array_equal(one, odd)
    assert not np.array_equal(one, api.fight_counts(fight, trials=60_000, seed=8))


@pytest.mark.parametrize("variant", ["street", "hidden_leader", "hidden_hold_best",
                                     "spread_fire", "duel"])
def test_kernel_equals_plain_python_reference(variant):
    # The reference draws the same streams in the same order: counts are bit-identical.
    scenario = STREET
    if variant == "hidden_leader":
        g0 = dataclasses.replace(STREET.groups[0], hidden=True, flanked=True)
        scenario = dataclasses.replace(STREET, groups=(g0, STREET.groups[1]))
    elif variant == "hidden_hold_best":
        g0 = dataclasses.replace(STREET.groups[0], hidden=True, leader=False, withdraw_at=2)
        rules = dataclasses.replace(STREET.rules, in_sight_leader_choice="hold",
                                    recover_skill="best_in_group", covering_when="always",
                                    in_sight_open_one_pass="cover",
                                    received_fire_trigger="not_hit")
        scenario = dataclasses.replace(STREET, rules=rules, groups=(g0, STREET.groups[1]))
    elif variant == "spread_fire":
        rules = dataclasses.replace(STREET.rules, shooting_targets_per_shooter=3,
                                    activation_order="alternate", fast_move_attempt=False)
        scenario = dataclasses.replace(STREET, rules=rules)
    elif variant == "duel":
        scenario = DUEL
    fight = compile_scenario(scenario)
    assert np.array_equal(run_reference(fight, 99, 1500),
                          api.fight_counts(fight, trials=1500, seed=99))


def test_reference_stream_is_the_kernel_stream():
    from sim.kernels import rng
    state = rng.new_state()
    rng.seed_stream(state, 123, 45, rng.POLICY)
    ours = Stream(123, 45, rng.POLICY)
    assert [rng.d6(state) for _ in range(50)] == [ours.d6() for _ in range(50)]
    assert [rng.below(state, 7) for _ in range(20)] == [ours.below(7) for _ in range(20)]


def test_result_tables_are_consistent():
    r = api.simulate(STREET, trials=20_000, seed=3)
    assert sum(s.wins for s in r.sides) + r.draws == r.trials
    for s in r.sides:
        assert sum(s.shot) == r.trials and sum(s.lost) == r.trials
    assert sum(r.rounds) == r.trials
    doc = r.to_dict()
    assert doc["sides"][0]["p_win"]["ci_low"] <= doc["sides"][0]["p_win"]["mc"]
    frame = r.to_frame()
    assert list(frame.columns) == ["side", "quantity", "value", "mc", "ci_low", "ci_high"]
