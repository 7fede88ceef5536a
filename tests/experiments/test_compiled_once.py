"""A scenario compiled and packed once per process (issue 45, item 4).

A cached report compiled whole games 4,011 times for about 1,600 distinct setups (each
search's incumbent and finalists again, each search again on other games, the scenario's own
in every section), and packed a compiled game's tables again for every run of a few thousand
games. :func:`sim.experiments.campaign_paired.compile_cases` now hands out the arrays it
compiled before for the same ruleset and setup (read-only), and
:func:`sim.experiments.campaign.packed` packs a compiled game once.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.campaign import players
from sim.experiments import campaign, campaign_paired
from sim.experiments.base import Case, CompareInputError
from sim.rules.scenario import load_scenario


def _counting(monkeypatch) -> list:
    calls = []
    real = players.compile_scenario

    def counting(scenario):
        calls.append(scenario.stalker)
        return real(scenario)

    monkeypatch.setattr(campaign_paired, "compile_scenario", counting)
    campaign_paired._compiled.cache_clear()
    return calls


def test_a_setup_compiled_before_is_not_compiled_again(monkeypatch):
    calls = _counting(monkeypatch)
    sc = load_scenario(None)
    base = campaign_paired.scenario_setup(sc)
    first, = campaign_paired.compile_cases([Case(sc.ruleset, base)])
    again, other = campaign_paired.compile_cases(
        [Case(sc.ruleset, dict(base)), Case(sc.ruleset, {**base, "flee_at": 1})])
    campaign_paired._compiled.cache_clear()
    assert again is first and other is not first
    assert len(calls) == 2  # before: 3, the equal setup compiled again
    assert not any(getattr(first, f.name).flags.writeable for f in dataclasses.fields(first))
    fresh = players.compile_scenario(sc)  # the same tables as a compile of its own
    for f in dataclasses.fields(first):
        np.testing.assert_array_equal(getattr(first, f.name), getattr(fresh, f.name))


def test_a_ruleset_edited_in_memory_compiles_afresh(monkeypatch):
    """An edit makes a new ruleset object: its games are its own, never the old ones."""
    from sim.rules.variants import apply_edits

    calls = _counting(monkeypatch)
    sc = load_scenario(None)
    base = campaign_paired.scenario_setup(sc)
    edited = apply_edits(sc.ruleset, ["enemies.Bloodsucker.endurance=6"])
    a, = campaign_paired.compile_cases([Case(sc.ruleset, base)])
    b, = campaign_paired.compile_cases([Case(edited, base)])
    campaign_paired._compiled.cache_clear()
    assert len(calls) == 2 and a is not b
    assert not np.array_equal(campaign.packed(a), campaign.packed(b))


def test_a_bad_setup_is_still_refused_each_time(monkeypatch):
    _counting(monkeypatch)
    sc = load_scenario(None)
    bad = {**campaign_paired.scenario_setup(sc), "start": "Nowhere"}
    for _ in range(2):
        with pytest.raises(CompareInputError, match="Nowhere"):
            campaign_paired.compile_cases([Case(sc.ruleset, bad)])
    campaign_paired._compiled.cache_clear()


def test_a_compiled_game_is_packed_once_and_the_kernel_leaves_it_as_it_was():
    arrays = players.compile_scenario(load_scenario(None))
    tables = campaign.packed(arrays)
    assert campaign.packed(arrays) is tables  # before: packed again for every run
    np.testing.assert_array_equal(tables, arrays.pack())
    kept = tables.copy()
    rows = campaign.simulate_trials(arrays, 7, 0, 300)
    np.testing.assert_array_equal(tables, kept)  # the kernel only reads it
    np.testing.assert_array_equal(rows, campaign.simulate_trials(arrays, 7, 0, 300))
