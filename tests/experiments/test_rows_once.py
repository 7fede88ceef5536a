"""Every listing once, and no row that repeats another (issue 46, item 6).

A metric that equals another in every game of a run (``p_survive`` is the win rate
when no game reaches the day cap; ``causes.final_emission`` is ``p_final_emission``
under its other name) is shown once in the tables a designer reads, with a note
naming the other; the JSON and CSV keep every key. The report's before/after
section names each changed cell once (in words on the first screen, not again as a
table) and each moved number once (the first ten in words, the rest in the table).
"""

from __future__ import annotations

import json

import pandas as pd
from click.testing import CliRunner

from sim.cli import main
from sim.experiments.campaign import CampaignResult, run_campaign
from sim.experiments.campaign_metrics import CAPPED, SURVIVE, WIN_RATE
from sim.kernels import campaign as K
from sim.report import before_after, tables
from sim.rules.scenario import load_scenario

ARGS = ["campaign", "--trials", "2000", "--seed", "7", "--quiet"]


def test_the_campaign_table_shows_p_survive_once_when_no_game_reached_the_day_cap():
    table = CliRunner().invoke(main, ARGS)
    data = json.loads(CliRunner().invoke(main, [*ARGS, "--format", "json"]).stdout)
    assert data[CAPPED]["mc"] == 0 and data[SURVIVE] == data[WIN_RATE]  # base: never capped
    lines = table.stdout.splitlines()
    assert not any(line.split()[0] == SURVIVE for line in lines[1:])
    win = next(line for line in lines if line.split()[0] == WIN_RATE)
    assert SURVIVE in win and "day cap" in win
    assert not any(line.split()[0] == "causes.final_emission" for line in lines[1:])
    assert data["same_as"] == {SURVIVE: WIN_RATE, "causes.final_emission": "p_final_emission"}
    csv = CliRunner().invoke(main, [*ARGS, "--format", "csv"]).stdout
    assert f"\n{SURVIVE}," in csv  # the CSV keeps every metric


def test_p_survive_differs_from_the_win_rate_once_a_game_is_capped():
    result = run_campaign(load_scenario("base"), trials=200, seed=7)
    counts = result.counts.copy()
    counts[K.CAPPED] += 1
    counts[K.REACHED] -= 1
    capped = CampaignResult(result.scenario, result.trials, result.seed, result.max_days,
                            counts, result.squares, result.entered).to_dict()
    assert SURVIVE not in capped["same_as"]


def _diffs(n: int) -> pd.DataFrame:
    rows = [{"section": "enemy deck", "card": f"Card {i}", "metric": "knocked_out",
             "kind": "proportion", "baseline": 0.5, "baseline_ci_low": 0.49,
             "baseline_ci_high": 0.51, "changed": 0.5 + 0.01 * (n - i),
             "changed_ci_low": 0.49, "changed_ci_high": 0.51, "diff": 0.01 * (n - i),
             "diff_ci_low": 0.01 * (n - i) - 0.001, "diff_ci_high": 0.01 * (n - i) + 0.001,
             "moved": True, "verdict": "worse"} for i in range(n)]
    return pd.DataFrame(rows)


def _listed(section) -> str:
    """Everything the section shows: its text (lines and bullets) and its shown tables."""
    parts = [t if isinstance(t, str) else "\n".join(t) for t in section.text]
    parts += [frame.to_string() for frame in section.shown.values()]
    return "\n".join(parts)


def test_before_after_lists_each_changed_cell_and_each_moved_number_once():
    cells = pd.DataFrame([{"file": "enemies.csv", "card": "Bloodsucker", "column": "endurance",
                           "old": "4", "new": "5"}])
    section = before_after.before_after_section(load_scenario("base"), [], [], cells,
                                                _diffs(15), [], "base")
    shown = _listed(section)
    assert shown.count("Bloodsucker") == 1
    for i in range(15):
        assert shown.count(f"Card {i},") + shown.count(f"Card {i} ") == 1, i


def test_the_report_shows_p_survive_once_with_the_win_rate():
    section = tables.campaign_section(load_scenario("base"), 2000, 7)
    statistics = section.shown["Campaign statistics"]
    assert SURVIVE not in set(statistics["name"])
    win = statistics[statistics["name"] == WIN_RATE]["metric"].item()
    assert f"also {SURVIVE}" in win
    assert [r["metric"] for r in section.summary].count(SURVIVE) == 0
    assert SURVIVE in section.values  # still a metric a target may name
