"""The report's "Best play" section (issue 25 §3): the win rate under best play against the
scenario's, on fresh games only, what the best policy changes, the characters under best
play, and the first screen's line when best play changes a target's verdict."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from sim.report import best_play
from sim.rules.scenario import load_scenario
from sim.workflows import optimize as workflow

BUDGET = 400


@pytest.fixture(scope="module")
def base():
    return load_scenario()


@pytest.fixture(scope="module")
def section(base):
    return best_play.best_play_section(base, BUDGET, 3)


def test_tables_have_their_columns(section):
    frame = section.tables["best_play"]
    assert list(frame.columns) == [*best_play.COLUMNS, "skill_gap"]
    assert list(frame["policy"])[:3] == ["best", "scenario", "naive"]
    assert list(section.tables["best_play_changes"].columns) == best_play.CHANGE_COLUMNS
    chars = section.tables["best_play_characters"]
    assert list(chars["stalker"]) == list(load_scenario().ruleset.stalkers)
    assert {"best_mc", "scenario_mc", "naive_mc", "skill_gap_diff"} <= set(chars.columns)


def test_the_best_is_reevaluated_on_fresh_games_never_reported_from_the_selection(section):
    result = section.data["best_play"]
    opts = best_play.budgets(BUDGET)
    assert result.budget == opts["budget"] and result.trials == opts["trials"]
    assert all(first + n <= workflow.selection_games(result.trials)
               for first, n in result.selection_trials)
    assert all(first >= workflow.FRESH_FIRST for first, _ in result.fresh_range)
    frame = section.tables["best_play"]
    assert (frame["first_trial"] == workflow.FRESH_FIRST).all()
    assert (frame["trials"] == opts["fresh_trials"]).all()
    fresh = result.reevaluation
    best = frame[frame["policy"] == "best"].iloc[0]
    assert best["mc"] == fresh["winner_estimate"]["mc"]
    assert best["diff_vs_scenario"] == fresh["vs_scenario"]["diff"]
    assert best["skill_gap"] == fresh["skill_gap"]["diff"]
    scenario = frame[frame["policy"] == "scenario"].iloc[0]
    assert scenario["mc"] == fresh["scenario_estimate"]["mc"]
    text = " ".join(t for t in section.text if isinstance(t, str))
    assert f"{opts['fresh_trials']:,} fresh games" in text and "budget" in text


def test_the_changed_keys_are_listed(section):
    result = section.data["best_play"]
    changes = section.tables["best_play_changes"].to_dict(orient="records")
    assert [c["key"] for c in changes] == [c["key"] for c in result.changes()]
    lines = [x for t in section.text if isinstance(t, list) for x in t]
    for c in changes:
        assert f"{c['key']}: {c['from']} -> {c['to']}" in lines
    if not changes:
        assert any("no key changed" in t for t in section.text if isinstance(t, str))


def test_a_multiplayer_scenario_is_skipped_with_a_note(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("no search on a multiplayer scenario")

    monkeypatch.setattr(workflow, "optimize", refuse)
    sc = load_scenario("four_stalkers")
    assert sc.multiplayer
    section = best_play.best_play_section(sc, BUDGET, 3)
    assert not section.tables and "multiplayer" in section.text[0]
    assert best_play.verdict_lines({"best_play": section}) == []


def _fake(scenario_cell, best_cell):
    fresh = {"scenario_estimate": scenario_cell, "winner_estimate": best_cell}
    objective = SimpleNamespace(metric=SimpleNamespace(name="p_sarcophagus"))
    return SimpleNamespace(reevaluation=fresh, objective=objective)


def test_a_changed_verdict_is_named_on_the_first_screen(base):
    sc = dataclasses.replace(base, targets={"p_sarcophagus": (0.35, 0.55),
                                            "days.median": (10.0, 16.0)})
    fails = {"mc": 0.30, "ci_low": 0.29, "ci_high": 0.31}
    passes = {"mc": 0.45, "ci_low": 0.44, "ci_high": 0.46}
    found = best_play.flipped(sc, _fake(fails, passes))
    assert [(f["target"], f["scenario"], f["best"]) for f in found] == [
        ("p_sarcophagus in 0.35..0.55", "FAIL", "PASS")]
    assert best_play.flipped(sc, _fake(passes, passes)) == []
    too_good = {"mc": 0.60, "ci_low": 0.59, "ci_high": 0.61}
    assert [f["best"] for f in best_play.flipped(sc, _fake(passes, too_good))] == ["FAIL"]
    section = SimpleNamespace(data={"flipped": found})
    lines = best_play.verdict_lines({"best_play": section})
    assert len(lines) == 1 and "FAIL under the scenario's policy" in lines[0]
    assert "PASS under best play" in lines[0]


def test_no_line_when_no_verdict_changes(section):
    assert section.data["flipped"] == [] or best_play.verdict_lines({"best_play": section})
    assert best_play.verdict_lines({}) == []


def test_the_line_is_on_the_first_screen_right_after_the_win_rate(base):
    from sim.report import verdict
    from sim.report.tables import Section

    section = Section("best_play", "Best play")
    section.data["flipped"] = best_play.flipped(base, _fake(
        {"mc": 0.30, "ci_low": 0.29, "ci_high": 0.31},
        {"mc": 0.45, "ci_low": 0.44, "ci_high": 0.46}))
    text = verdict.verdict_section(base, [section]).text
    assert text[1].startswith("Best play changes a verdict: p_sarcophagus in 0.35..0.55 is FAIL")
    quiet = Section("best_play", "Best play", data={"flipped": []})
    assert not any("Best play changes" in str(t) for t in verdict.verdict_section(
        base, [quiet]).text)
