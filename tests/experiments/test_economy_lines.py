"""An economy that never acts gets one line, not rows of zeros (issue 46, item 6).

``zonesim campaign`` counts per game the trophies taken (P-19, P-34) and sold (P-26..P-28),
the artefacts sold (P-11), the rubles each sale brought and the rubles spent (P-13, P-37),
each with its interval. A part of the economy that never acts in a run (no trophy sold in
any game, no ruble spent) is one line under the table, with the counts per game; its rows
of zeros are left out of the table (the JSON and CSV keep them). One that sells under 1 in
100 of what it finds hardly acts, and its line says so too.
"""

from __future__ import annotations

import json

from sim.experiments.campaign_metrics import (
    ARTIFACT_RUBLES,
    ARTIFACTS_SOLD,
    ECONOMY,
    LABELS,
    MEAN_NAMES,
    RUBLES_SPENT,
    TROPHIES_FOUND,
    TROPHIES_SOLD,
    TROPHY_RUBLES,
    economy_lines,
)
from tests.hostile import edited_scenario, run

ARGS = ["--trials", "2000", "--seed", "7", "--quiet"]


def cell(mc: float, low: float | None = None, high: float | None = None) -> dict:
    return {"mc": mc, "ci_low": mc if low is None else low, "ci_high": mc if high is None
            else high}


MEANS = {TROPHIES_FOUND: cell(6.099, 6.071, 6.126), TROPHIES_SOLD: cell(0.0),
         TROPHY_RUBLES: cell(0.0), "artifacts_found": cell(0.84, 0.83, 0.85),
         "exchanges": cell(0.135, 0.13, 0.14), ARTIFACTS_SOLD: cell(0.80, 0.79, 0.82),
         ARTIFACT_RUBLES: cell(808.0, 794.0, 822.0), RUBLES_SPENT: cell(1286.0, 1277.0, 1295.0),
         "rubles_at_end": cell(522.0, 512.0, 532.0)}


def test_the_economy_counters_are_declared_once_beside_the_other_campaign_metrics():
    assert set(ECONOMY) <= set(MEAN_NAMES)
    assert all(LABELS[m].endswith("per game") or "per game (" in LABELS[m] for m in ECONOMY)


def test_a_trade_that_never_acts_is_one_line_with_the_counts_per_game():
    parts = {p["part"]: p for p in economy_lines(MEANS)}
    trade = parts["trophy trade"]
    assert trade["acts"] == "never" and trade["zero"] == [TROPHIES_SOLD, TROPHY_RUBLES]
    assert trade["text"] == (
        "trophy trade: never acts: no trophy taken is sold in any game, so the trophy prices "
        "and lots do not matter here (per game: 6.099 trophies taken (6.071 to 6.126), 0 sold, "
        "0 rubles from them)")
    assert parts["artefact sale"] == {"part": "artefact sale", "acts": "yes", "zero": [],
                                      "text": None}
    assert parts["spending"]["acts"] == "yes"


def test_a_trade_that_sells_under_1_in_100_of_its_finds_hardly_acts():
    means = {**MEANS, TROPHIES_SOLD: cell(0.001, -0.0001, 0.002),
             TROPHY_RUBLES: cell(0.075, -0.01, 0.16)}
    trade = economy_lines(means)[0]
    assert trade["acts"] == "hardly" and trade["zero"] == []
    assert trade["text"].startswith("trophy trade: hardly acts: under 1 in 100 trophies taken "
                                    "is sold")
    assert "0.001 sold (0.000 to 0.002)" in trade["text"]
    means[TROPHIES_SOLD] = cell(0.1, 0.05, 0.15)  # 1 in 60 of 6.1 taken: it acts
    assert economy_lines(means)[0]["acts"] == "yes"


def test_the_campaign_table_says_in_one_line_that_nothing_is_spent(tmp_path):
    """Guard: a scenario that buys nothing and never pays to heal spends no ruble in any game;
    the table has one line for it and no row of zeros, the JSON and CSV keep the counter."""
    path = edited_scenario(tmp_path, 'pay_heal = true           # pay 100 rubles a wound at '
                           'bunkers (P-37)\nshopping = ["Medkit", "Stimulant"]',
                           "pay_heal = false\nshopping = []")
    table = run("campaign", str(path), *ARGS).stdout
    data = json.loads(run("campaign", str(path), *ARGS, "--format", "json").stdout)
    csv = run("campaign", str(path), *ARGS, "--format", "csv").stdout
    assert data["means"][RUBLES_SPENT] == {"mc": 0.0, "ci_low": 0.0, "ci_high": 0.0}
    spending = next(p for p in data["economy"] if p["part"] == "spending")
    assert spending["acts"] == "never"
    lines = table.splitlines()
    assert spending["text"] in lines
    assert not any(line.split()[0] == RUBLES_SPENT for line in lines[1:] if line.strip())
    assert f"\n{RUBLES_SPENT}," in csv
    for name in ECONOMY:  # every counter, with its interval
        assert set(data["means"][name]) == {"mc", "ci_low", "ci_high"}


def test_the_base_campaign_counts_the_economy_with_intervals():
    data = json.loads(run("campaign", *ARGS, "--format", "json").stdout)
    means = data["means"]
    assert means[TROPHIES_FOUND]["mc"] > means["kills"]["mc"] > 0  # anomaly trophies too
    assert means[ARTIFACTS_SOLD]["mc"] > 0 and means[RUBLES_SPENT]["mc"] > 0
    assert means[ARTIFACT_RUBLES]["ci_low"] < means[ARTIFACT_RUBLES]["mc"] \
        < means[ARTIFACT_RUBLES]["ci_high"]
    trade = next(p for p in data["economy"] if p["part"] == "trophy trade")
    assert trade["acts"] in ("never", "hardly") and trade["text"].startswith("trophy trade: ")
