"""The report's first screen names ``zonesim rebalance`` where it flags a failed target or a
wide character spread (issue 48)."""

from __future__ import annotations

import pandas as pd

from sim.report import verdict
from sim.report.rebalance import command_line
from sim.report.tables import Section
from sim.rules.scenario import load_scenario

WIDE = [{"variant": "Strelok (scenario)", "mc": 0.40, "ci_low": 0.39, "ci_high": 0.41,
         "diff": 0.0, "diff_ci_low": 0.0, "diff_ci_high": 0.0},
        {"variant": "Scar", "mc": 0.58, "ci_low": 0.57, "ci_high": 0.59, "diff": 0.18,
         "diff_ci_low": 0.17, "diff_ci_high": 0.19}]


def _targets(verdicts: dict[str, str]) -> Section:
    rows = [{"metric": m, "low": 0.35, "high": 0.55, "verdict": v} for m, v in verdicts.items()]
    return Section("targets", "Targets", tables={"targets": pd.DataFrame(rows)})


def test_failed_target_and_wide_spread_name_the_command():
    sections = {"targets": _targets({"p_sarcophagus": "FAIL", "p_reach_sarcophagus": "PASS"}),
                "characters": Section("characters", "Characters",
                                      data={"characters": pd.DataFrame(WIDE)})}
    line = command_line(load_scenario("base"), sections)
    assert line == ("To look for the fewest card edits that fix this: zonesim rebalance base "
                    "--target 'p_sarcophagus in 0.35..0.55' --target 'character_spread <= 0.1' "
                    "(the report does not run it).")
    page = verdict.verdict_section(load_scenario("base"), list(sections.values()))
    assert line in page.text


def test_nothing_flagged_names_nothing():
    """Guard: a report whose targets pass and whose spread is narrow names no command."""
    narrow = [WIDE[0], {**WIDE[1], "mc": 0.42, "diff": 0.02, "diff_ci_low": 0.01,
                        "diff_ci_high": 0.03}]
    sections = {"targets": _targets({"p_sarcophagus": "PASS"}),
                "characters": Section("characters", "Characters",
                                      data={"characters": pd.DataFrame(narrow)})}
    assert command_line(load_scenario("base"), sections) is None
    page = verdict.verdict_section(load_scenario("base"), list(sections.values()))
    assert not any("zonesim rebalance" in str(t) for t in page.text)
