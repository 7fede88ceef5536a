"""The report does each piece of work once (issue 45, item 4).

A profile of a cached ``zonesim report`` showed the same exact twins solved again and again:
each enemy card's Markov chain by the deck table and by the deck comparison beside it (under
the scenario's policy and under best play), and the same dice-pool probabilities tens of
thousands of times (a quarter of the report's CPU time). Each is now computed once per
process and read back after.
"""

from __future__ import annotations

from collections import Counter

from sim.exact import dice
from sim.experiments import combat as combat_experiment
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
