"""The report's deck and artefact sections under both policies (issue 24, section 2: "Both
columns in the report"): the scenario's policy beside best play, and what good play is
worth against each card."""

from __future__ import annotations

import pytest

from sim.report.artifacts import artifacts_section
from sim.report.tables import anomaly_deck, event_deck
from sim.rules.scenario import load_scenario


@pytest.fixture(scope="module")
def base():
    return load_scenario("base")


def test_the_anomaly_deck_shows_each_card_under_best_play(base):
    """Every anomaly card with P(knocked out) under the policy and under best play (P-36,
    P-08), the exact difference never negative, the decisions in words."""
    section = anomaly_deck(base, 2000, 7)
    best = section.tables["anomaly_best_play"]
    assert list(best["anomaly"]) == list(section.tables["anomaly_deck"]["anomaly"])
    assert (best["good_play_worth"] >= 0).all()
    assert (best["knocked_out_best_exact"] <= best["knocked_out_policy_exact"] + 1e-12).all()
    assert best["decisions"].str.contains("when noticed").all()
    assert any(t.startswith("Under best play (survive)") for t in section.text)
    assert "Under best play (each card's exact best decisions)" in section.shown


def test_the_event_deck_says_best_play_changes_nothing(base):
    assert any("Best play changes nothing here" in t for t in event_deck(base, 2000, 7).text)


def test_the_artefacts_section_compares_them_played_well(base):
    """Each artefact against carrying none under best play too: no exact change in
    P(knocked out) on the enemy deck above 0, where the policy's changes for Crystal,
    Sparkler and Stone flower are, and the sentence names those three."""
    section = artifacts_section(base, 2000, 7)
    best = section.tables["artifacts_best_play"]
    assert len(best) == len(base.ruleset.artifacts)
    assert (best["combat_knocked_out_exact"] <= 1e-12).all()
    policy = section.tables["artifacts"].set_index("artifact")["combat_knocked_out_exact"]
    assert (policy[["Crystal", "Sparkler", "Stone flower"]] > 0).all()
    [sentence] = [t for t in section.text if t.startswith("Under best play")]
    assert "no artefact raises P(knocked out)" in sentence
    assert all(name in sentence for name in ("Crystal", "Sparkler", "Stone flower"))
    assert "Artefacts against carrying none, both played well (best play)" in section.shown
