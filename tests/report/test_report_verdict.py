"""The report's first screen answers in plain words (issue 15, part 1), and prices every item.

One real, small report of the bundled base scenario (the campaign kernels
included, no fake) is read as a designer reads it: the first section of
report.md must hold the win rate, the top cause of loss and the most lethal
enemy card, and each must agree with the tables written beside it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from sim.experiments.campaign import run_campaign
from sim.report import labels, verdict
from sim.rules.scenario import load_scenario


@pytest.fixture(scope="module")
def report(base_report):
    """The session's whole report of the base scenario (tests/report/conftest.py)."""
    return base_report


def _first_section(markdown: str) -> str:
    """The text between the first and the second ``## `` heading."""
    parts = markdown.split("\n## ")
    assert parts[1].startswith("Verdict"), parts[1][:40]
    return parts[1]


def test_first_section_has_win_rate_top_cause_and_most_lethal_card(report):
    first = _first_section((report.folder / "report.md").read_text(encoding="utf-8"))
    summary = pd.read_csv(report.folder / "campaign_summary.csv").set_index("metric")
    win = summary.loc["p_sarcophagus"]
    assert (f"Win rate under the scenario's policy: "
            f"{labels.percent(win['value'], win['ci_low'], win['ci_high'])}") in first
    targets = pd.read_csv(report.folder / "targets.csv").set_index("metric")
    assert f"target 35-55 %: {targets.loc['p_sarcophagus', 'verdict']}" in first

    causes = pd.read_csv(report.folder / "campaign_causes.csv")
    top = causes.loc[causes["mc"].idxmax()]
    words = labels.cause(top["cause"], load_scenario().ruleset.sarcophagus_deck())
    assert words == "knocked out in the Sarcophagus by Monolith fighter"
    assert f"- {labels.percent(top['mc'], top['ci_low'], top['ci_high'])} {words}" in first
    assert first.index(words) < first.index("caught by the Final Emission")  # largest first

    enemies = pd.read_csv(report.folder / "enemy_deck.csv")
    lethal = enemies.loc[enemies["knocked_out"].idxmax(), "enemy"]
    assert f"enemy deck: {lethal} knocks Strelok out in" in first
    assert "Win rate by character" in first and "Strelok (scenario)" in first


def test_the_first_screen_says_how_much_good_play_matters(report):
    """The win rate under the best policy found and the scenario's, from the Best play
    section's fresh games (best_play.csv), with the paired difference and the skill gap."""
    first = _first_section((report.folder / "report.md").read_text(encoding="utf-8"))
    rows = pd.read_csv(report.folder / "best_play.csv").set_index("policy")
    best, scenario = rows.loc["best"], rows.loc["scenario"]
    line = next(t for t in first.split("\n") if t.startswith("Good play ("))
    assert (f"win rate under best play: "
            f"{labels.percent(best['mc'], best['ci_low'], best['ci_high'])}") in line
    assert (f"under the scenario's policy: "
            f"{labels.percent(scenario['mc'], scenario['ci_low'], scenario['ci_high'])}") in line
    assert "best minus the scenario's (paired): " in line and "Skill gap" in line


def test_the_page_opens_with_the_verdict_and_leaves_zero_rows_out(report):
    markdown = (report.folder / "report.md").read_text(encoding="utf-8")
    assert markdown.index("## Verdict") < markdown.index("## Enemy deck") \
        < markdown.index("## Summary") < markdown.index("## Provenance")
    page = (report.folder / "report.html").read_text(encoding="utf-8")
    assert page.index('<nav class="contents">') < page.index('id="verdict"') \
        < page.index('id="provenance"')  # the contents at the top (issue 47 item 3)
    # the stalker never flees (flee_at = 0): P(fled) is 0 on every card, in no page table
    assert (pd.read_csv(report.folder / "enemy_deck.csv")["fled"] == 0).all()
    enemy_table = markdown.split("**Enemy cards**")[1].split("\n\n")[1]
    assert "| fled |" not in enemy_table and "| knocked out |" in enemy_table
    summary_table = markdown.split("## Summary")[1]
    assert "enemies.fled" not in summary_table and "enemies.knocked\\_out" in summary_table
    assert "enemies.fled" in set(pd.read_csv(report.folder / "summary.csv")["metric"])


def test_item_tables_carry_price_and_change_per_1000_rubles(report):
    rs = load_scenario().ruleset
    armor = pd.read_csv(report.folder / "items_armor.csv")
    row = armor[(armor["variant"] == "SEVA suit") & (armor["metric"] == "knocked_out")].iloc[0]
    assert row["price"] == rs.armor["SEVA suit"].price == 5000
    assert row["diff_per_1000"] == pytest.approx(row["diff"] / 5)
    assert row["diff_per_1000_ci_low"] == pytest.approx(row["diff_ci_low"] / 5)
    assert math.isnan(armor[armor["variant"] == "none"]["price"].iloc[0])
    event = pd.read_csv(report.folder / "items_event.csv")
    nuts = event[event["variant"] == "Bag of nuts (loadout)"]
    assert (nuts["price"] == rs.items["Bag of nuts"].price).all()
    markdown = (report.folder / "report.md").read_text(encoding="utf-8")
    assert "| variant | price (rubles) | knock-outs prevented per 1,000 rubles" in markdown


def test_characters_play_paired_games(report):
    frame = pd.read_csv(report.folder / "characters.csv")
    rs = load_scenario().ruleset
    assert list(frame["stalker"]) == ["Strelok", *(n for n in rs.stalkers if n != "Strelok")]
    assert frame["diff"].iloc[0] == 0
    others = frame.iloc[1:]
    # paired: the interval of a difference is narrower than twice that of an estimate
    assert ((others["diff_ci_high"] - others["diff_ci_low"])
            < (others["ci_high"] - others["ci_low"]) * 2).all()


def test_outcomes_by_day_add_up_and_match_the_result():
    result = run_campaign(load_scenario(), trials=3000, seed=2)
    rows = pd.DataFrame(result.outcomes_by_day())
    assert np.allclose(rows["won"] + rows["dead"] + rows["in_zone"], 1.0)
    assert (np.diff(rows["won"]) >= 0).all() and (np.diff(rows["dead"]) >= 0).all()
    data = result.to_dict()
    last = rows.iloc[-1]
    assert last["won"] == pytest.approx(data["p_sarcophagus"]["mc"])
    assert last["in_zone"] == pytest.approx(data["p_capped"]["mc"])
    assert (rows["won_ci_low"] <= rows["won"]).all() and (rows["won"] <= rows["won_ci_high"]).all()


def _value(name, price, value, half=0.1):
    return {"variant": name, "name": name, "price": float(price), "help": "x",
            "value": value, "value_ci_low": value - half, "value_ci_high": value + half,
            "per_1000": value * 1000 / price if price else math.nan,
            "per_1000_ci_low": math.nan, "per_1000_ci_high": math.nan}


def test_dominated_and_overpriced_items():
    frame = pd.DataFrame([
        {**_value("none", 1, 0.0), "price": math.nan},
        _value("Cheap", 100, 5.0),        # 50 per 1,000 rubles
        _value("Costly", 1000, 4.0),      # costs more, helps less: dominated by Cheap
        _value("Fair", 400, 10.0),        # 25 per 1,000 rubles
        _value("Luxury", 4000, 12.0),     # 3 per 1,000 rubles: far below the others
        _value("Useless", 50, 0.05),      # no detectable help
    ])
    found = {f["name"]: f for f in verdict.judge_items(frame)}
    assert found["Costly"]["kind"] == "dominated" and found["Costly"]["by"] == "Cheap"
    assert found["Luxury"]["kind"] == "overpriced"
    assert found["Useless"]["kind"] == "overpriced"
    assert "Cheap" not in found and "Fair" not in found
