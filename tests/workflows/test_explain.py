"""``zonesim explain``: a paired difference split into paths that add up to it (issue 47)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sim.cli import main as cli
from sim.experiments.campaign_trace import Names, events_of, play_logged
from sim.rules.scenario import load_scenario
from sim.workflows.explain import divergence, explain, variant_games

TRIALS = 300


UNUSED = "artifacts=Jellyfish;artifact_use=Jellyfish:never"
"""An artefact carried and never used (P-08: the policy never uses it)."""


@pytest.mark.parametrize("variant", ["item+=Jetpack", UNUSED])
def test_the_paths_add_up_to_the_paired_difference(variant):
    result = explain(load_scenario("base"), variant, trials=TRIALS, seed=3)
    assert result.changed > 0
    assert sum(p["games"] for p in result.paths) == result.changed
    assert sum(p["share"] for p in result.paths) == pytest.approx(result.diff, abs=1e-12)
    assert result.diff_ci_low <= result.diff <= result.diff_ci_high
    shares = [abs(p["share"]) for p in result.paths]
    assert shares == sorted(shares, reverse=True) or result.paths[-1]["what"] == "other paths"
    for p in result.paths:
        assert p["share_ci_low"] <= p["share"] <= p["share_ci_high"]


def test_the_game_days_difference_is_split_too():
    result = explain(load_scenario("base"), "item+=Jetpack", metric="game_days",
                     trials=100, seed=5)
    assert sum(p["share"] for p in result.paths) == pytest.approx(result.diff, abs=1e-9)
    assert result.diff < 0  # the Jetpack shortens games (Z-03: 9 steps a day)


def test_a_variant_that_changes_no_game_has_no_path():
    result = explain(load_scenario("base"), "label=same", trials=50, seed=1)
    assert result.changed == 0 and result.paths == [] and result.diff == 0


def test_an_unused_artefact_parts_games_only_where_a_knock_out_halves_the_belongings():
    """An artefact never used changes nothing until a knock-out takes half his belongings,
    artefacts alike (P-37): every game it changes parts there, on a knock-out day."""
    chosen = load_scenario("base")
    games, rulesets, _ = variant_games(chosen, ["", UNUSED])
    names = Names.of(rulesets[0], games[0])
    parted = 0
    for t in range(30):
        traced = [events_of(g, names, play_logged(g, seed=2, game=t)[1]) for g in games]
        where, day = divergence(traced[0], traced[1], names)
        if day < 0:
            continue
        parted += 1
        assert where == "the belongings lost on a knock-out (P-37)", (t, where)
        states = [e for e in traced[0] if e["kind"] == "state" and e["seat"] == 1]
        knocked = {e["day"] for e, before in zip(states[1:], states, strict=False)
                   if e["knockouts"] > before["knockouts"]}
        assert day in knocked, (t, day, knocked)
    assert parted > 0


def test_the_explain_json_has_the_issue_keys():
    out = CliRunner().invoke(cli, ["explain", "base", "--variant", "item+=Jetpack",
                                   "--trials", "60", "--seed", "2", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert {"diff", "diff_ci_low", "diff_ci_high", "paths"} <= set(data)
    for path in data["paths"]:
        assert {"what", "games", "share", "share_ci_low", "share_ci_high"} <= set(path)
    bad = CliRunner().invoke(cli, ["explain", "base", "--variant", "item+=Nope"])
    assert bad.exit_code == 2 and "Nope" in bad.output
