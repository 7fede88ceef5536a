"""The report's first screen answers a designer's questions (issue 47 item 3, issue 46 item 5).

Built from hand-made sections (nothing simulated), so each rule of the first
screen is checked on its own: a PASS always names its nearest edge and every
imbalance flagged below it; each answer links to a section the page has; the
Sarcophagus line gives the assumed card and the range over every other card;
P(survive it) is the wins among the games that reached it.
"""

from __future__ import annotations

import pandas as pd
import pytest

from sim.experiments.campaign_metrics import REACH, SURVIVE_SARCOPHAGUS, WIN_RATE
from sim.report import labels, questions, verdict
from sim.report.tables import Section
from sim.rules.scenario import load_scenario
from sim.workflows.readings import RULE, SARCOPHAGUS, ReadingsResult


def _targets(value: float, low: float = 0.35, high: float = 0.55) -> Section:
    frame = pd.DataFrame([{"target": f"p_sarcophagus in {low}..{high}", "metric": WIN_RATE,
                           "low": low, "high": high, "value": value, "ci_low": value - 0.003,
                           "ci_high": value + 0.003, "verdict": "PASS", "note": ""}])
    return Section("targets", "Targets", tables={"targets": frame})


def _campaign(win: float = 0.36, reached: int = 740, won: int = 360) -> Section:
    share = {"mc": reached / 1000, "ci_low": reached / 1000 - 0.02,
             "ci_high": reached / 1000 + 0.02}
    survive = {"mc": won / reached, "ci_low": won / reached - 0.03,
               "ci_high": won / reached + 0.03}
    return Section("campaign", "Campaign", values={WIN_RATE: (win, win - 0.003, win + 0.003)},
                   data={"campaign": {REACH: share, SURVIVE_SARCOPHAGUS: survive}})


def _characters(spread: float) -> Section:
    rows = [{"variant": "Strelok (scenario)", "mc": 0.36, "ci_low": 0.35, "ci_high": 0.37,
             "diff": 0.0, "diff_ci_low": 0.0, "diff_ci_high": 0.0},
            {"variant": "Scar", "mc": 0.36 + spread, "ci_low": 0.35 + spread,
             "ci_high": 0.37 + spread, "diff": spread, "diff_ci_low": spread - 0.01,
             "diff_ci_high": spread + 0.01}]
    return Section("characters", "Characters", data={"characters": pd.DataFrame(rows)})


def _by_key(*sections: Section) -> dict[str, Section]:
    return {s.key: s for s in sections}


@pytest.mark.parametrize(("value", "words"), [
    (0.36, "near: 1.0 points above the lower edge (35 %)"),
    (0.45, "10.0 points above the lower edge (35 %)"),
    (0.54, "near: 1.0 points below the upper edge (55 %)"),
    (0.30, "5.0 points below the lower edge (35 %)"),
])
def test_the_distance_to_the_nearest_edge_is_named(value, words):
    row = {"metric": WIN_RATE, "value": value, "low": 0.35, "high": 0.55}
    assert labels.edge_words(row) == words


def test_a_metric_that_is_not_a_share_is_measured_in_its_own_units():
    row = {"metric": "days.median", "value": 14.0, "low": 10, "high": 16}
    assert labels.edge_words(row) == "2 below the upper edge (16)"
    assert labels.edge_words({**row, "value": 15.5}) == "near: 0.5 below the upper edge (16)"


def test_a_pass_names_its_near_edge_and_the_imbalance_flagged_below():
    """The trial that prompted the issue: PASS 1 point from the lower edge above a wide
    character spread; the first screen must say both (a guard: without the flags it would
    read as a plain PASS)."""
    sections = _by_key(_campaign(), _targets(0.36), _characters(0.38))
    line = verdict.win_rate(sections)
    assert "PASS" in line and "near: 1.0 points above the lower edge" in line
    assert "Flagged below: characters 38 points apart (wide)" in line
    answer = questions.answers(sections)[0]
    assert answer.question == "Is the win rate on target?" and answer.section == "targets"
    assert "but flagged below: characters 38 points apart (wide)" in answer.answer


def test_a_pass_with_nothing_flagged_says_only_its_edge():
    sections = _by_key(_campaign(0.45), _targets(0.45), _characters(0.02))
    line = verdict.win_rate(sections)
    assert "10.0 points above the lower edge" in line and "Flagged" not in line


def test_reach_and_survive_multiply_to_the_win_rate():
    answer = questions._reach(_by_key(_campaign()))
    assert answer.answer.startswith("reaches it in 74.0 % (72.0 to 76.0) of games; survives "
                                    "it in 48.6 % (45.6 to 51.6) of those")


def _readings(rows: list[dict]) -> Section:
    result = ReadingsResult("base", 1000, 5, {WIN_RATE: {"mc": 0.36, "ci_low": 0.35,
                                                         "ci_high": 0.37}}, tuple(rows))
    return Section("readings", "Readings of the rules", data={"readings": result})


def _reading(key: str, value: str, current: str, mc: float, kind: str) -> dict:
    return {"key": key, "value": value, "current": current, "mc": mc, "ci_low": mc - 0.01,
            "ci_high": mc + 0.01, "diff": mc - 0.36, "diff_ci_low": mc - 0.37,
            "diff_ci_high": mc - 0.35, "rules": "P-50", "kind": kind}


def test_the_sarcophagus_line_gives_the_assumption_and_the_range_over_every_card():
    guardian = "sarcophagus.Guardian.enemy"
    section = _readings([
        _reading(guardian, "Blind dog", "Monolith fighter", 0.73, SARCOPHAGUS),
        _reading("dice.modifier", "face", "successes", 0.95, RULE),
        _reading(guardian, "Chimera", "Monolith fighter", 0.15, SARCOPHAGUS)])
    found = {a.question: a for a in questions.answers(_by_key(section))}
    sarcophagus = found["What does the Sarcophagus hold?"]
    assert sarcophagus.section == "readings"
    assert sarcophagus.answer.startswith("assumed: Monolith fighter (no rule text names it")
    assert "in the readings' 1,000 games" in sarcophagus.answer
    assert "from 15.0 % (14.0 to 16.0) (Chimera) to 73.0 % (72.0 to 74.0) (Blind dog)" \
        in sarcophagus.answer
    reading = found["Which reading of the rules matters most?"]  # a rule key, not the card
    assert reading.answer.startswith("dice.modifier = face instead of successes: +59.0 points")


def test_every_answer_links_to_a_section_of_the_page():
    sections = _by_key(_campaign(), _targets(0.36), _characters(0.38), _readings([
        _reading("dice.modifier", "face", "successes", 0.95, RULE)]))
    page = verdict.verdict_section(load_scenario(), list(sections.values()))
    assert [a.question for a in page.answers] == [
        "Is the win rate on target?", "Does the stalker reach the Sarcophagus, and survive it?",
        "Are the characters balanced?", "Which reading of the rules matters most?"]
    assert {a.section for a in page.answers} <= set(sections)
    assert "win_rates" in page.figures  # the characters' chart with intervals


def test_the_chart_sits_under_the_answers_on_both_pages():
    from sim.report import html, markdown
    from sim.report.questions import Answer

    section = Section("verdict", "Verdict", text=["the verdict's paragraphs"],
                      answers=[Answer("Is the win rate on target?", "36 %", "verdict")],
                      figures={"win_rates": None})
    page = html.render("t", {}, [section], pd.DataFrame(), {"win_rates": b"png"})
    assert page.index('class="answers"') < page.index("<figure") \
        < page.index("the verdict&#x27;s paragraphs")
    text = markdown.render("t", {}, [section], pd.DataFrame(), {"win_rates": "win_rates.png"})
    assert text.index("| Is the win rate on target? |") < text.index("(win_rates.png)") \
        < text.index("the verdict's paragraphs")
    assert text.index("Contents: [Verdict](#verdict)") < text.index("## Verdict")
