"""The report against a baseline (``zonesim report SCENARIO --baseline OTHER``).

Three things on the first screen, in a designer's words
(:func:`before_after_section`):

1. every cell the designer changed (file, card, column, old -> new), from the
   two validated models (:func:`sim.workflows.baseline.changed_cells`);
2. what moved beyond noise, largest first: the paired differences of every
   deck card, deck average and campaign number, on common random numbers,
   with their 95 % intervals (:func:`sim.workflows.baseline.paired_differences`);
3. every verdict that flipped: targets (PASS/FAIL/UNDECIDED), dominated and
   overpriced items and armours, items, armours and artefacts far above or below
   the rest for the money, the readings of the rules that matter most, and the
   most lethal cards of each deck.

Then every table of the report shows baseline, changed and difference
(:func:`merge_sections`: a cell that moved reads ``baseline -> changed
(difference)``; one that did not shows its value once), and ``diff.csv``
(:func:`diff_table`) holds every number of both reports: the paired rows
with their intervals, then every number of every table, baseline, changed
and difference.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import pandas as pd

from sim.report import best_play, labels, outliers, readings, verdict
from sim.report.tables import KNOCKED_OUT, Section
from sim.rules.scenario import Scenario
from sim.workflows import baseline as workflow

SHOWN_MOVED = 60
"""Moved numbers in the page's table (all of them are in ``diff.csv``)."""
FIRST_SCREEN = 10
"""Moved numbers named in words on the first screen."""
DIFF_TABLE_COLUMNS = ("source", "table", "row", "column", "baseline", "changed", "difference",
                      "diff_ci_low", "diff_ci_high", "moved")
"""Columns of ``diff.csv``: ``source`` is ``paired`` (a paired difference with its interval)
or ``table`` (a number of a report table; its own interval columns are rows too)."""
ARROW = " -> "
_NUMBER = re.compile(r"^\s*([+-]?\d[\d,]*(?:\.\d+)?)(\s*%)?")


def _what(row: Mapping) -> str:
    """A paired row in words: the card (or deck average) and the metric's label."""
    name = labels.metric(row["metric"])
    if row["section"] == "campaign":
        return f"campaign: {name}"
    if row["card"] == workflow.DECK:
        return f"{row['section']} average: {name}"
    return f"{row['section']}: {row['card']}, {name}"


def _value(row: Mapping, side: str) -> str:
    args = (row[side], row[f"{side}_ci_low"], row[f"{side}_ci_high"])
    return labels.percent(*args) if row["kind"] == "proportion" else labels.number(*args)


def _difference(row: Mapping) -> str:
    if row["kind"] == "proportion":
        return (f"{100 * row['diff']:+.1f} pp ({100 * row['diff_ci_low']:+.1f} to "
                f"{100 * row['diff_ci_high']:+.1f})")
    return labels.number(row["diff"], row["diff_ci_low"], row["diff_ci_high"], signed=True)


def moved_shown(moved: pd.DataFrame) -> pd.DataFrame:
    """The moved numbers as a designer reads them: what, baseline, changed, difference."""
    seen, rows = set(), []
    for r in moved.to_dict("records"):  # p_final_emission and causes.final_emission: one line
        key = (_what(r), r["baseline"], r["changed"], r["diff"])
        if key not in seen:
            seen.add(key)
            rows.append(r)
    return pd.DataFrame({"what moved": [_what(r) for r in rows],
                         "baseline": [_value(r, "baseline") for r in rows],
                         "changed": [_value(r, "changed") for r in rows],
                         "difference (paired, 95 % interval)": [_difference(r) for r in rows]},
                        columns=["what moved", "baseline", "changed",
                                 "difference (paired, 95 % interval)"])


def cells_shown(cells: pd.DataFrame) -> pd.DataFrame:
    """The changed cells: file, card, column, ``old -> new``."""
    return pd.DataFrame({"file": cells["file"], "card": cells["card"], "column": cells["column"],
                         "old -> new": [f"{o or '(blank)'}{ARROW}{n or '(blank)'}" for o, n in
                                        zip(cells["old"], cells["new"], strict=True)]},
                        columns=["file", "card", "column", "old -> new"])


# --- flipped verdicts -------------------------------------------------------------------------

def _targets(sections: Mapping[str, Section]) -> dict[str, str]:
    frame = sections["targets"].tables.get("targets") if "targets" in sections else None
    return {} if frame is None else dict(zip(frame["target"], frame["verdict"], strict=True))


def _items(sections: Mapping[str, Section]) -> dict[tuple[str, str], str]:
    """``(category, card) -> dominated/overpriced`` of a report's item comparisons."""
    items = sections.get("items")
    values = items.data.get("item_values", {}) if items else {}
    return {(title, f["name"]): f["kind"] for title, value in values.items()
            for f in verdict.judge_items(value)}


def _far(sections: Mapping[str, Section]) -> dict[tuple[str, str], str]:
    """``(kind, card) -> far above/below`` of the items, armours and artefacts for the money
    (:mod:`sim.report.outliers`).
    """
    items = sections.get("items")
    values = items.data.get("item_values", {}) if items else {}
    out = {(title.lower(), f["name"]): f"far {f['side']}" for title, value in values.items()
           for f in outliers.far([r for r in value.to_dict("records")
                                  if r["variant"] != "none" and r["price"] > 0])}
    arts = sections.get("artifacts")
    frame = arts.data.get("artifacts") if arts else None
    if frame is not None and len(frame):
        out |= {("artefact", f["name"]): f"far {f['side']}"
                for f in outliers.far(outliers.artifact_rows(frame)[0])}
    return out


def _readings(sections: Mapping[str, Section]) -> tuple[str, ...]:
    """The readings of the rules that move the win rate most, as ``key = value``."""
    section = sections.get("readings")
    result = section.data.get("readings") if section else None
    return () if result is None else tuple(f"{r['key']} = {r['value']}"
                                            for r in result.top(readings.TOP))


def _lethal(sections: Mapping[str, Section]) -> dict[str, tuple[str, ...]]:
    """Per deck, the :data:`verdict.TOP_CARDS` cards most likely to knock the stalker out."""
    out = {}
    for key, table, column, *_ in verdict.DECKS:
        frame = sections[key].tables.get(table) if key in sections else None
        if frame is None or not len(frame) or not (frame[KNOCKED_OUT] > 0).any():
            continue
        top = frame.sort_values(KNOCKED_OUT, ascending=False, kind="stable")
        out[labels.DECKS[key]] = tuple(top[column].head(verdict.TOP_CARDS))
    return out


def flipped(base: Sequence[Section], changed: Sequence[Section]) -> list[str]:
    """One line per verdict that differs between the two reports."""
    b, c = {s.key: s for s in base}, {s.key: s for s in changed}
    lines = []
    old, new = _targets(b), _targets(c)
    for target in dict.fromkeys([*new, *old]):
        if old.get(target) != new.get(target):
            lines.append(f"target {target}: {old.get(target, 'not set')}{ARROW}"
                         f"{new.get(target, 'not set')}")
    old_items, new_items = _items(b), _items(c)
    for key in dict.fromkeys([*new_items, *old_items]):
        if old_items.get(key) != new_items.get(key):
            title, name = key
            lines.append(f"{name} ({title.lower()}): {old_items.get(key, 'fine')}{ARROW}"
                         f"{new_items.get(key, 'fine')}")
    old_far, new_far = _far(b), _far(c)
    for key in dict.fromkeys([*new_far, *old_far]):
        if old_far.get(key) != new_far.get(key):
            what, name = key
            lines.append(f"{name} ({what}) for the money: {old_far.get(key, 'with the rest')}"
                         f"{ARROW}{new_far.get(key, 'with the rest')}")
    old_read, new_read = _readings(b), _readings(c)
    if old_read != new_read:
        lines.append(f"readings of the rules that matter most: {', '.join(old_read) or 'none'}"
                     f"{ARROW}{', '.join(new_read) or 'none'}")
    old_lethal, new_lethal = _lethal(b), _lethal(c)
    for deck in dict.fromkeys([*new_lethal, *old_lethal]):
        if old_lethal.get(deck) != new_lethal.get(deck):
            lines.append(f"most lethal cards of the {deck}: "
                         f"{', '.join(old_lethal.get(deck, ())) or 'none'}{ARROW}"
                         f"{', '.join(new_lethal.get(deck, ())) or 'none'}")
    return lines


def before_after_section(sc: Scenario, base: Sequence[Section],
                         changed: Sequence[Section], cells: pd.DataFrame, diffs: pd.DataFrame,
                         skipped: Sequence[str], baseline_name: str) -> Section:
    """The report's first section against a baseline: cells, moved numbers, flipped verdicts."""
    moved = workflow.moved(diffs)
    section = Section("before_after", "Before and after")
    section.tables = {"changed_cells": cells, "paired_differences": diffs}
    n = len(cells)
    head = f"{sc.name} against the baseline {baseline_name}: "
    section.text.append(head + (f"{n} changed cell{'' if n == 1 else 's'} (file, card, "
                                "column: old -> new):" if n else
                                "no cell differs (the two play the same rules and setup)."))
    if n:
        section.text.append([f"{r['file']}, {r['card'] or '(top level)'}, {r['column']}: "
                             f"{r['old'] or '(blank)'}{ARROW}{r['new'] or '(blank)'}"
                             for r in cells.to_dict("records")])
    numbers = len(diffs)
    shown = moved_shown(moved)
    section.text.append(
        f"Moved beyond noise: {len(moved)} of {numbers} numbers (every card of the three decks, "
        "each deck's average and the campaign, paired on common random numbers; moved: the "
        "95 % interval of the difference excludes 0), largest first"
        + (f", the first {FIRST_SCREEN} here (the rest in the table below, all in diff.csv):"
           if len(shown) > FIRST_SCREEN else ":") if len(moved) else
        f"Moved beyond noise: none of {numbers} numbers (every card of the three decks, each "
        "deck's average and the campaign, paired on common random numbers).")
    if len(moved):
        section.text.append([f"{r['what moved']}: {r['baseline']}{ARROW}{r['changed']}, "
                             f"difference {r['difference (paired, 95 % interval)']}"
                             for r in shown.head(FIRST_SCREEN).to_dict("records")])
    lines = flipped(base, changed)
    section.text += (["Verdicts that flipped (baseline -> changed):", lines] if lines
                     else ["No verdict flipped (targets, dominated or overpriced items and "
                           "armours, most lethal cards)."])
    section.text.append(
        "Probabilities come first, by the size of the difference (pp: percentage points), "
        "then means by their change relative to the baseline. Below: every table of the "
        "report shows baseline -> changed (difference) where a cell moved, its value once "
        "where it did not.")
    if len(shown) > FIRST_SCREEN:  # each listing once: the first ten are named above
        caption = (f"What else moved beyond noise, after the first {FIRST_SCREEN} (baseline, "
                   "changed, paired difference)")
        section.shown[caption] = shown.iloc[FIRST_SCREEN:SHOWN_MOVED]
    if skipped:
        section.text += ["Not compared:", list(skipped)]
    section.summary = [{"section": "before and after", "metric": "changed_cells", "mc": n,
                        "ci_low": None, "ci_high": None, "exact": None, "note": ""},
                       {"section": "before and after", "metric": "moved", "mc": len(moved),
                        "ci_low": None, "ci_high": None, "exact": None,
                        "note": f"of {numbers} paired numbers"}]
    section.data = {"moved": moved, "flipped": lines}
    return section


# --- every table: baseline, changed, difference -----------------------------------------------

def _number(text: object) -> tuple[float, int, bool] | None:
    """The leading number of a cell's text, its decimals and whether it is a percent."""
    if not isinstance(text, str):
        return None
    m = _NUMBER.match(text)
    if not m:
        return None
    digits = m.group(1).replace(",", "")
    decimals = len(digits.partition(".")[2])
    return float(digits), decimals, bool(m.group(2))


def merged_cell(old: object, new: object) -> object:
    """``baseline -> changed (difference)``, or the value once when it did not change."""
    if old == new or (old is None and new is None):
        return new
    a, b = _number(old), _number(new)
    text = f"{'' if old is None else old}{ARROW}{'' if new is None else new}"
    if a and b:
        decimals = max(a[1], b[1])
        unit = " pp" if a[2] and b[2] else ""
        text += f" ({b[0] - a[0]:+.{decimals}f}{unit})"
    return text


def _keys(frame: pd.DataFrame) -> list[tuple]:
    """A row's key: its first cell and how often that cell came before (duplicates)."""
    seen: dict = {}
    out = []
    for value in frame.iloc[:, 0]:
        seen[value] = seen.get(value, 0) + 1
        out.append((value, seen[value]))
    return out


def merge_shown(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """One readable table of both reports: rows by their first cell, cells merged.

    A row only the changed report has is marked ``(new)``; one only the
    baseline has comes last, marked ``(baseline only)``.
    """
    if not len(new.columns):
        return new
    columns = list(dict.fromkeys([*new.columns, *old.columns]))
    old_rows = dict(zip(_keys(old), old.to_dict("records"), strict=True)) if len(old.columns) \
        else {}
    rows = []
    for key, row in zip(_keys(new), new.to_dict("records"), strict=True):
        before = old_rows.pop(key, None)
        if before is None:
            rows.append({**row, columns[0]: f"{row[columns[0]]} (new)"})
            continue
        rows.append({c: row.get(c) if c == columns[0] else merged_cell(before.get(c), row.get(c))
                     for c in columns})
    for row in old_rows.values():
        rows.append({**row, columns[0]: f"{row[columns[0]]} (baseline only)"})
    return pd.DataFrame(rows, columns=columns)


def merge_sections(base: Sequence[Section], changed: Sequence[Section]) -> None:
    """Every readable table of ``changed`` (in place) as baseline, changed and difference."""
    by_key = {s.key: s for s in base}
    for section in changed:
        other = by_key.get(section.key)
        if other is None:
            continue
        if section.key == "best_play":  # two searches: differences paired, with intervals
            best_play.before_after(other, section)
            continue
        section.shown = {caption: merge_shown(other.shown.get(caption, pd.DataFrame()), frame)
                         for caption, frame in section.shown.items()}


def _tidy_keys(frame: pd.DataFrame) -> list[str]:
    """Key columns of a tidy table: its leading text columns, else its first column."""
    keys = []
    for column in frame.columns:
        if frame[column].dtype != object:
            break
        keys.append(column)
    return keys or list(frame.columns[:1])


def _finite(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def table_numbers(name: str, old: pd.DataFrame, new: pd.DataFrame) -> list[dict]:
    """Every number of one table in both reports, row by row and column by column."""
    keys = [k for k in _tidy_keys(new) if k in old.columns]
    index_old = {tuple(r[k] for k in keys): r for r in old.to_dict("records")}
    rows = []
    for r in new.to_dict("records"):
        key = tuple(r[k] for k in keys)
        before = index_old.get(key, {})
        for column, value in r.items():
            if column in keys:
                continue
            b = before.get(column)
            if not (_finite(value) or _finite(b)):
                continue
            rows.append({"source": "table", "table": name,
                         "row": " / ".join(str(k) for k in key), "column": column,
                         "baseline": b if _finite(b) else None,
                         "changed": value if _finite(value) else None,
                         "difference": value - b if _finite(value) and _finite(b) else None,
                         "diff_ci_low": None, "diff_ci_high": None, "moved": None})
    return rows


def diff_table(base: Sequence[Section], changed: Sequence[Section],
               diffs: pd.DataFrame) -> pd.DataFrame:
    """``diff.csv``: the paired rows, then every number of every table of both reports."""
    rows = [{"source": "paired", "table": r["section"], "row": r["card"], "column": r["metric"],
             "baseline": r["baseline"], "changed": r["changed"], "difference": r["diff"],
             "diff_ci_low": r["diff_ci_low"], "diff_ci_high": r["diff_ci_high"],
             "moved": r["moved"]} for r in diffs.to_dict("records")]
    old_tables = {name: frame for s in base for name, frame in s.tables.items()}
    for s in changed:
        for name, frame in s.tables.items():
            if name in old_tables:
                rows += table_numbers(name, old_tables[name], frame)
    return pd.DataFrame(rows, columns=list(DIFF_TABLE_COLUMNS))


__all__ = ["before_after_section", "diff_table", "flipped", "merge_sections", "merge_shown",
           "merged_cell", "moved_shown"]


WHY_GAMES = 2_000
"""Games of the two campaigns whose changed ones the report traces to say why the win rate
moved (:func:`sim.workflows.explain.explain_games`; about 15 ms a changed game, twice)."""


def why_part(section: Section, why) -> None:
    """Add the paths of the win rate's paired difference (:class:`sim.workflows.explain.
    Explanation`) under the paired results of ``section``: a paragraph, a list of the
    paths with their games and shares, and the table ``win_rate_paths``.
    """
    section.text.append(
        f"Why the win rate moved: on {why.trials} games of each (common random numbers), "
        f"{why.changed} ended otherwise; the difference {why.diff:+.4f} (95 % "
        f"{why.diff_ci_low:+.4f} .. {why.diff_ci_high:+.4f}) splits into these paths, each "
        "named by where the two games first parted and what followed, largest first; their "
        "shares add up to the difference (zonesim explain says the same for any variant):")
    section.text.append([f"{p['what']}: {p['games']} game(s), share {p['share']:+.4f} "
                         f"({p['share_ci_low']:+.4f} .. {p['share_ci_high']:+.4f})"
                         for p in why.paths] or ["no game ended otherwise"])
    section.tables["win_rate_paths"] = pd.DataFrame(
        why.paths, columns=["what", "games", "share", "share_ci_low", "share_ci_high",
                            "example_game"])
