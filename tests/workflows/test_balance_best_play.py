"""``zonesim balance characters SCENARIO --best-play`` (issue 25, section 3).

Every stalker card under his own best policy, beside the scenario's policy and the naive
one, on fresh games; the spreads between characters under each; the skill gap per
character. A small budget: the columns and the fresh estimates' intervals, not the numbers.
"""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.rules.scenario import load_scenario
from sim.workflows import best_characters
from sim.workflows.optimize import FRESH_FIRST
from tests.workflows.once import once

SMALL = ["balance", "characters", "base", "--best-play", "--budget", "3000", "--trials",
         "1000", "--seed", "3"]
POLICIES = ("best", "scenario", "naive")
GAPS = ("vs_scenario", "skill_gap")


@pytest.fixture(scope="module")
def outputs() -> dict[str, str]:
    """The small run's output in each format.

    The three runs are one command with one seed, so they search once: the first run's
    :func:`~sim.workflows.best_characters.best_characters` result is printed by the other
    two (their arguments equal: tests/workflows/once.py), each format on the same numbers.
    """
    search = once(best_characters.best_characters)
    out = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(best_characters, "best_characters", search)
        for fmt in ("table", "json", "csv"):
            result = CliRunner().invoke(main, [*SMALL, "--format", fmt])
            assert result.exit_code == 0, result.output
            out[fmt] = result.stdout
    assert len(search.calls) == 3 and search.searched() == 1
    return out


def test_every_character_gets_each_fresh_estimate_with_its_interval(outputs):
    frame = pd.read_csv(io.StringIO(outputs["csv"]))
    assert list(frame["stalker"]) == list(load_scenario("base").ruleset.stalkers)
    assert "best_policy" in frame
    for name in POLICIES:
        mc, low, high = (frame[f"{name}_{part}"] for part in ("mc", "ci_low", "ci_high"))
        assert ((low <= mc) & (mc <= high) & (low < high)).all(), name
    for name in GAPS:
        diff, low, high = (frame[f"{name}_{part}"] for part in ("diff", "diff_ci_low",
                                                                 "diff_ci_high"))
        assert ((low <= diff) & (diff <= high)).all(), name
        # a paired difference of two fresh estimates on the same games
    gap = frame["best_mc"] - frame["naive_mc"]
    assert frame["skill_gap_diff"].to_numpy() == pytest.approx(gap.to_numpy())


def test_the_json_gives_each_search_its_fresh_games_and_the_spreads(outputs):
    doc = json.loads(outputs["json"])
    for search in doc["characters"]:
        fresh = search["reevaluation"]
        assert fresh["trials"] == 1000 and fresh["first_trial"] == FRESH_FIRST
        assert search["budget"] == 3000 and search["seed"] == 3
        assert all(first < FRESH_FIRST for first, _ in search["selection_trials"])
    spreads = {s["policy"]: s for s in doc["spreads"]}
    assert set(spreads) == set(POLICIES)
    for s in spreads.values():
        assert s["ci_low"] <= s["spread"] <= s["ci_high"]


def test_the_table_sets_the_spread_under_best_play_beside_the_scenario_s(outputs):
    text = outputs["table"]
    for column in ("best", "scenario's policy", "naive", "skill gap", "best policy"):
        assert column in text
    assert "spread (best)" in text and "spread (scenario)" in text
    assert "fresh games" in text


def test_a_one_stalker_scenario_needs_best_play_and_the_help_has_the_example():
    """(A multiplayer scenario under --best-play is played since issue 46 item 9:
    tests/workflows/test_best_seats.py.)"""
    plain = CliRunner().invoke(main, ["balance", "characters", "base"])
    assert plain.exit_code == 2 and "--best-play" in plain.output
    helped = CliRunner().invoke(main, ["balance", "characters", "--help"])
    assert "zonesim balance characters base --best-play" in helped.output
    bad = CliRunner().invoke(main, [*SMALL[:4], "--budget", "0"])
    assert bad.exit_code == 2 and "--budget" in bad.output
