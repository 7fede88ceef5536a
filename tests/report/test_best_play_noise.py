"""One best-play figure per stalker, and best play that tells its own noise (issue 46 items 3, 10).

Item 3: the report's "Best play" and "Characters under best play" gave the scenario's
stalker two figures from two searches of different budgets (53.4 % and 48.6 % in one
report) with no word on why; the characters' table now reuses the section's own search
for him, and says the budgets. Item 10: every best-play figure comes with a second search
on selection games of its own, played on the same fresh games (how far the search is from
converged), and every best-play figure against a baseline carries its paired interval.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.report import best_play
from sim.rules.scenario import load_scenario
from sim.workflows import optimize as workflow

BUDGET = 2_000


@pytest.fixture(scope="module")
def section():
    return best_play.best_play_section(load_scenario(), BUDGET, 3)


def test_the_scenarios_stalker_has_one_best_play_figure(section):
    own = section.data["best_play"]
    chars = {r.stalker: r for r in section.data["characters"].finished}
    assert chars[own.stalker] is own  # the section's search, reused
    row = section.tables["best_play_characters"].set_index("stalker").loc[own.stalker]
    assert row["best_mc"] == own.reevaluation["winner_estimate"]["mc"]
    shown = section.shown["Characters under best play (fresh games)"].set_index("stalker")
    first = section.shown["Best play against the scenario's policy (fresh games)"]
    assert shown.loc[own.stalker, "best play"] == first.iloc[0]["win rate"]
    assert shown.loc[own.stalker, "search (games)"] == f"{own.budget:,}"
    others = [r for r in chars.values() if r is not own]
    assert others and all(r.budget < own.budget for r in others)
    assert any(f"{own.stalker}'s row is the search above" in t for t in section.text
               if isinstance(t, str))


def test_every_best_play_figure_says_how_far_the_search_is_from_converged(section):
    for r in section.data["characters"].finished:
        again = r.reevaluation["replicate"]
        assert {"winner", "same_policy", "estimate", "vs_winner", "played"} <= set(again)
        first_end = max(f + n for f, n in r.selection_trials)
        assert all(first_end <= f and f + n <= workflow.FRESH_FIRST
                   for f, n in again["selection_trials"])  # its own selection games
    words = best_play.good_play_words(section.data["best_play"].reevaluation)
    assert "A second search, on selection games of its own" in words
    shown = section.shown["Characters under best play (fresh games)"]
    assert shown["second search minus the best"].str.len().gt(0).all()
    assert "second search" in set(section.tables["best_play"]["policy"])


def test_the_optimize_command_gives_the_second_search():
    result = CliRunner().invoke(main, [
        "optimize", "base", "--keys", "medkit_at,route", "--trials", "200", "--budget",
        "6000", "--fresh-trials", "1000", "--seed", "2", "--format", "json"])
    assert result.exit_code == 0, result.output
    again = json.loads(result.stdout)["reevaluation"]["replicate"]
    assert {"diff", "diff_ci_low", "diff_ci_high"} <= set(again["vs_winner"])
    table = CliRunner().invoke(main, [
        "optimize", "base", "--keys", "medkit_at,route", "--trials", "200", "--budget",
        "6000", "--fresh-trials", "1000", "--seed", "2"])
    assert "a second search on other selection games" in table.output
    alone = CliRunner().invoke(main, [
        "optimize", "base", "--keys", "medkit_at", "--trials", "200", "--budget", "3000",
        "--fresh-trials", "500", "--no-replicate", "--format", "json"])
    assert json.loads(alone.stdout)["reevaluation"].get("replicate") is None


def test_a_best_play_difference_against_a_baseline_carries_its_interval(section):
    changed = best_play.best_play_section(load_scenario(), BUDGET, 3)
    best_play.before_after(section, changed)
    shown = changed.shown[best_play.BEFORE_AFTER]
    assert list(changed.shown)[0] == best_play.BEFORE_AFTER
    rows = changed.data["before_after"]
    stalkers = {r.stalker for r in section.data["characters"].finished}
    assert set(rows["stalker"]) == stalkers and len(rows) == 2 * len(stalkers)
    assert (rows["diff_ci_low"] <= rows["diff"]).all() and (rows["diff"] <= rows[
        "diff_ci_high"]).all()
    # the same rules and seed: the scenario's policy plays the very same fresh games
    same = rows[rows["policy"] == "scenario"]
    assert (same["diff"] == 0).all() and (same["diff_ci_high"] == 0).all()
    assert shown["changed minus baseline (paired)"].str.contains(r"\(.* to .*\)").all()
