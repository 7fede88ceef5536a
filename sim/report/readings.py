"""The report's "Readings of the rules" section (issue 26 §2): which open rule decides the numbers.

Every documented reading of an open rule (each switch and each choice of a
``rules.toml`` key, :func:`sim.workflows.readings.find_readings`) is played
as one edit of the scenario's whole games against the unchanged ruleset on
common random numbers (:func:`sim.workflows.readings.run_readings`), and
ranked by the paired change of the win rate, largest first; the verdict's
first screen names the three largest and the value the report used
(:func:`top_lines`). Readings the rules refuse are listed with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from sim.report import labels
from sim.report.tables import Section
from sim.rules.scenario import Scenario
from sim.workflows import readings as workflow

TOP = 3
"""Readings named on the first screen."""


def change(row: Mapping, prefix: str = "") -> str:
    """A paired change of a probability as ``+56.8 pp (+56.0 to +57.5)``."""
    d, lo, hi = (row[f"{prefix}{k}"] for k in ("diff", "diff_ci_low", "diff_ci_high"))
    return f"{100 * d:+.1f} pp ({100 * lo:+.1f} to {100 * hi:+.1f})"


def reading_words(row: Mapping) -> str:
    """``dice.modifier = face (used: successes)``."""
    return f"{row['key']} = {row['value']} (used: {row['current']})"


def shown(result: workflow.ReadingsResult) -> pd.DataFrame:
    """The ranking as a designer reads it: reading (first, so that a report against a baseline
    merges the rows by it), rank, win rate, paired change, verdict, targets.
    """
    if result.metric == workflow.FIRST_SEAT:
        return _seat_shown(result)
    rows = []
    for r in result.rows:
        row = {"reading": reading_words(r), "rank": r["rank"],
               "win rate": labels.percent(r["mc"], r["ci_low"], r["ci_high"]),
               "change (paired, 95 % interval)": change(r), "verdict": r["verdict"]}
        for column, value in r.items():
            if column.startswith("target: "):
                row[column] = value
        rows.append(row)
    return pd.DataFrame(rows)


def _seat_shown(result: workflow.ReadingsResult) -> pd.DataFrame:
    """A multiplayer game's ranking (issue 47.7): the first-seat advantage and its paired
    change, then each seat's win and ``p_nobody_wins``, changed, in percentage points.
    """
    names = workflow.seat_names(len(result.baseline) - 2)[1:]
    rows = []
    for r in result.rows:
        row = {"reading": reading_words(r), "rank": r["rank"],
               "first-seat advantage": f"{100 * r['mc']:+.1f} pp",
               "change (paired, 95 % interval)": change(r)}
        for n in names:
            row[f"{n}: change"] = change(r, f"{n} ")
        row["verdict"] = r["verdict"]
        rows.append(row)
    return pd.DataFrame(rows)


def skipped_lines(result: workflow.ReadingsResult) -> list[str]:
    """One line per reading the rules refuse or whose game cannot be set up."""
    return [f"{s['key']} = {s['value']}: "
            f"{'the rules refuse it' if s['refused_by'] == 'rules' else 'no game'}: "
            f"{s['reason']}" for s in result.skipped]


def seats(result: workflow.ReadingsResult) -> bool:
    """Whether ``result`` is a multiplayer game's readings (every seat, issue 47.7)."""
    return result.metric == workflow.FIRST_SEAT


def measured(result: workflow.ReadingsResult) -> str:
    """The words of the ranked metric: ``win rate``, or a multiplayer game's
    ``first-seat advantage``.
    """
    return "first-seat advantage" if seats(result) else "win rate"


def top_lines(result: workflow.ReadingsResult, n: int = TOP) -> list[str]:
    """The ``n`` readings with the largest effect, each with the value the report used.

    In a multiplayer game: the first-seat advantage under the reading and its paired
    change, and the largest change of any seat's win or of ``p_nobody_wins`` (the rank).
    """
    if seats(result):
        return [f"{r['key']} = {r['value']} instead of {r['current']} (the value used here): "
                f"first-seat advantage {100 * r['mc']:+.1f} pp, {change(r)}; largest change "
                f"of a seat's win or of nobody winning {100 * r['effect']:.1f} pp "
                f"({r['rules']})" for r in result.top(n)]
    return [f"{r['key']} = {r['value']} instead of {r['current']} (the value used here): win "
            f"rate {labels.percent(r['mc'], r['ci_low'], r['ci_high'])}, "
            f"{change(r)} ({r['rules']})" for r in result.top(n)]


def readings_section(sc: Scenario, trials: int, seed: int) -> Section:
    """Every documented reading of an open rule against the ruleset's own, in whole games.

    A multiplayer or cooperative scenario plays every seat of each reading on the same
    games (:func:`sim.workflows.readings.run_seat_readings`, issue 47.7): the rows rank
    the readings by the largest change of a seat's win or of ``p_nobody_wins``, and give
    the first-seat advantage's paired change.
    """
    section = Section("readings", "Readings of the rules")
    result = workflow.run_readings(sc, trials=trials, seed=seed)
    if seats(result):
        return _seats_section(section, sc, result, trials, seed)
    base = result.baseline[workflow.METRIC]
    section.text.append(
        f"Each documented reading of an open rule (docs/rules.md: every switch and every "
        f"choice of a rules.toml key) is played as one edit of {sc.name}'s whole games, "
        f"{trials} games each (a modest share of the report's games), seed {seed}, on the "
        "same games as the ruleset's own reading (common random numbers), so each change is "
        "paired. Win rate with the ruleset as it is: "
        f"{labels.percent(base['mc'], base['ci_low'], base['ci_high'])}. Largest absolute "
        "change first; 'no effect' marks a reading that leaves the compiled game unchanged "
        "(not played). zonesim readings gives the same with more games.")
    if result.unpaired:
        section.text.append("Targets without a per-game metric, not judged per reading: "
                            + ", ".join(result.unpaired) + ".")
    skipped = skipped_lines(result)
    if skipped:
        section.text += ["Readings skipped, not played:", skipped]
    frame = result.ranking()
    section.tables["readings"] = frame
    section.shown["Readings of the rules, largest change of the win rate first"] = shown(result)
    section.data["readings"] = result
    return section


def _seats_section(section: Section, sc: Scenario, result: workflow.ReadingsResult,
                   trials: int, seed: int) -> Section:
    """The section of a multiplayer game's readings (:func:`readings_section`)."""
    base = result.baseline
    wins = "; ".join(f"seat {k} {labels.percent(c['mc'], c['ci_low'], c['ci_high'])}"
                     for k, c in enumerate((base[n] for n in workflow.seat_names(
                         len(base) - 2)[1:-1]), start=1))
    nobody = base[workflow.seat_names(len(base) - 2)[-1]]
    none = labels.percent(nobody["mc"], nobody["ci_low"], nobody["ci_high"])
    first = base[workflow.FIRST_SEAT]
    section.text.append(
        f"Each documented reading of an open rule (docs/rules.md: every switch and every "
        f"choice of a rules.toml key) is played as one edit of {sc.name}'s whole games, every "
        f"seat, {trials} games each, seed {seed}, on the same games as the ruleset's own "
        "reading (common random numbers), so each change is paired. With the ruleset as it "
        f"is: {wins}; nobody wins {none}; first-seat advantage (seat 1's win minus the "
        "other seats' mean) "
        f"{100 * first['mc']:+.1f} pp ({100 * first['ci_low']:+.1f} to "
        f"{100 * first['ci_high']:+.1f}). Largest absolute change of a seat's win or of "
        "nobody winning first; the turn-order and first-player readings act here; 'no "
        "effect' marks a reading that leaves the compiled game unchanged (not played). "
        "zonesim readings gives the same with more games.")
    skipped = skipped_lines(result)
    if skipped:
        section.text += ["Readings skipped, not played:", skipped]
    section.tables["readings"] = result.ranking()
    section.shown["Readings of the rules, largest change of a seat's win first"] = shown(result)
    section.data["readings"] = result
    return section


def verdict_lines(sections: Mapping[str, Section]) -> list:
    """The first screen's heading and lines: the readings with the largest effect.

    Empty when the report ran no readings (a multiplayer scenario).
    """
    section = sections.get("readings")
    result = section.data.get("readings") if section else None
    if result is None or not result.rows:
        return []
    what = "a seat's win" if seats(result) else "the win rate"
    return [f"Readings of the rules that move {what} most ({result.trials} games per "
            "reading, paired on the same games; every reading in 'Readings of the rules'):",
            top_lines(result)]
