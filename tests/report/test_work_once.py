"""The report does each piece of work once (issue 45, item 4).

A profile of a cached ``zonesim report`` showed the same exact twins solved again and again:
each enemy card's Markov chain by the deck table and by the deck comparison beside it (under
the scenario's policy and under best play), and the same dice-pool probabilities tens of
thousands of times (a quarter of the report's CPU time). Each is now computed once per
process and read back after. The enemy deck itself was played three times (the per-card table,
the paired deck comparison, the per-card table again under best play); it is now played once
per policy, the per-card tables reading the paired run's cards.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from sim.exact import dice
from sim.exact.best_combat import objective
from sim.experiments import combat as combat_experiment
from sim.experiments.setups import base_setup
from sim.report import tables
from sim.rules.scenario import load_scenario


def test_the_enemy_deck_solves_each_fights_exact_twin_once(monkeypatch):
    """The deck table, the best-play table and the paired deck comparison ask for the same
    fights' twins; before, each fight's chain was solved twice (once per question)."""
    solved = Counter()
    real = combat_experiment.combat_exact

    def counting(spec, plan=None):
        solved[spec, None if plan is None else plan.entries.tobytes()] += 1
        return real(spec, plan)

    combat_experiment._exact.cache_clear()
    monkeypatch.setattr(combat_experiment, "combat_exact", counting)
    section = tables.enemy_deck(load_scenario(None), 2000, 7)
    combat_experiment._exact.cache_clear()
    cards = len(section.tables["enemy_deck"])
    assert len(solved) > cards  # the policy's fights and best play's (some cards coincide)
    assert set(solved.values()) == {1}


def test_a_dice_pool_probability_is_computed_once(monkeypatch):
    """``pool_pass`` was asked for the same few hundred tests tens of thousands of times."""
    calls = []
    real = dice.binomial

    def counting(n, p):
        calls.append((n, p))
        return real(n, p)

    dice.pool_pass.cache_clear()
    monkeypatch.setattr(dice, "binomial", counting)
    first = dice.pool_pass(5, 4, 2)
    assert dice.pool_pass(5, 4, 2) == first == 1 - (dice.SIXTH * 3) ** 5 - 5 * (
        dice.SIXTH * 3) ** 5
    dice.pool_pass.cache_clear()
    assert len(calls) == 1


def test_the_enemy_deck_is_played_once_per_policy(monkeypatch):
    """Before, the section played every card alone twice (``combat_table`` by the policy and
    by best play) besides the paired deck run; now only the paired run plays: one run, two
    variants (the scenario's policy and best play)."""
    alone, paired_runs = [], []
    simulate, run_paired = combat_experiment.simulate, combat_experiment.run_paired

    def fight_alone(spec, *args, **kwargs):
        alone.append(spec.enemy)
        return simulate(spec, *args, **kwargs)

    def paired_run(kernel, width, trials, seed, threads, *params, **kwargs):
        paired_runs.append(params[-1].shape[0])  # the variants (weights' rows)
        return run_paired(kernel, width, trials, seed, threads, *params, **kwargs)

    monkeypatch.setattr(combat_experiment, "simulate", fight_alone)
    monkeypatch.setattr(combat_experiment, "run_paired", paired_run)
    section = tables.enemy_deck(load_scenario(None), 2000, 7)
    assert alone == []
    assert paired_runs == [2]
    assert len(section.tables["enemy_deck"]) == len(section.tables["enemy_best_play"]) > 1


def test_a_card_read_from_the_deck_run_is_the_card_played_alone():
    """The paired run's per-card sums are the combat kernel's counts bit for bit, under the
    policy and under best play (same streams): the rows do not change."""
    sc = load_scenario(None)
    rs, setup = sc.ruleset, base_setup("combat", sc)
    policy = combat_experiment.CombatPolicy.from_setup(setup)
    names = combat_experiment.deck_names(rs, "all")
    deck = tables._deck_and_best_play("combat", sc, setup, 1500, 11, tables.COMBAT_SHOWN,
                                      cards=True)
    for best in (None, objective(sc.policy.objective, sc.policy.weights)):
        args = (rs, sc.stalker, names, sc.armor, sc.weapons, sc.items, policy)
        read = combat_experiment.combat_table(*args, trials=1500, seed=11, best=best,
                                              played=deck.cards)
        alone = combat_experiment.combat_table(*args, trials=1500, seed=11, best=best)
        assert read.rows == alone.rows
        for enemy in names:
            spec = combat_experiment.compile_combat(rs, sc.stalker, enemy, sc.armor,
                                                    sc.weapons, sc.items, policy)
            plan = None if best is None else combat_experiment.solve_combat(spec, best)
            counts = combat_experiment.played_counts(deck.cards, spec, plan, 1500, 11)
            played = combat_experiment.simulate(spec, 1500, 11, None, plan)
            sums = combat_experiment.kernel.TOKENS  # outcomes and sums; no token histogram
            assert counts is not None
            np.testing.assert_array_equal(counts[:sums], played[:sums])
    assert combat_experiment.played_counts(deck.cards, spec, None, 1500, 12) is None


def test_the_artefacts_section_plays_each_game_once(monkeypatch):
    """The artefacts are compared carried (used always) on the games their best use is then
    chosen on, and every artefact and item with the scenario's own games on the same fresh
    trials: before, the section played those games again for the best uses, for every
    item (twice each) and for an item whose best use is the scenario's thresholds."""
    from sim.experiments import campaign_paired
    from sim.report import artifacts

    played = Counter()
    real = campaign_paired.trial_values

    def counting(arrays, metrics, *, seed, first, trials, **kwargs):
        played[campaign_paired.packed(arrays).tobytes(), seed, first, trials] += 1
        return real(arrays, metrics, seed=seed, first=first, trials=trials, **kwargs)

    campaign_paired._played.clear()
    monkeypatch.setattr(campaign_paired, "trial_values", counting)
    sc = load_scenario(None)
    section = artifacts.artifacts_section(sc, 300, 7)
    campaign_paired._played.clear()
    assert len(section.tables["artifacts_items_best_use"]) > 1
    assert len(played) > len(sc.ruleset.artifacts) + 1
    assert set(played.values()) == {1}
    monkeypatch.setattr(campaign_paired, "trial_values", real)
    again = artifacts.artifacts_section(sc, 300, 7)  # nothing kept: the same numbers
    campaign_paired._played.clear()
    for name, frame in section.tables.items():
        pd.testing.assert_frame_equal(again.tables[name], frame)


def test_each_reading_s_ruleset_is_edited_and_compiled_once(monkeypatch):
    """The readings are compiled to tell which change nothing, then played: before, each
    stage edited the ruleset afresh, so every fight table and game was built twice."""
    from sim.experiments import campaign_paired
    from sim.report import readings
    from sim.workflows import batches

    edits, compiled = Counter(), Counter()
    real_edit, real_compile = batches.apply_edits, campaign_paired.compile_scenario

    def edit(rs, changes):
        edits[tuple(changes)] += 1
        return real_edit(rs, changes)

    def compile_scenario(scenario):
        compiled[id(scenario.ruleset)] += 1
        return real_compile(scenario)

    batches.edited.cache_clear()
    campaign_paired._compiled.cache_clear()
    monkeypatch.setattr(batches, "apply_edits", edit)
    monkeypatch.setattr(campaign_paired, "compile_scenario", compile_scenario)
    section = readings.readings_section(load_scenario(None), 200, 7)
    batches.edited.cache_clear()
    campaign_paired._compiled.cache_clear()
    assert len(section.tables["readings"]) > 10
    assert len(edits) > 10 and set(edits.values()) == {1}
    assert set(compiled.values()) == {1}
