"""Before and after: a scenario against a baseline, cell by cell and number by number.

A designer copies a ruleset folder (or a scenario), changes a few cards and
asks what moved. :func:`baseline_scenario` reads the baseline (another
scenario, or a ruleset folder played with the changed scenario's stalker,
loadout and policy); :func:`changed_cells` lists every cell that differs
(file, card, column, old, new) from the two validated models; and
:func:`paired_differences` plays both on common random numbers, through the
experiments of :mod:`sim.workflows.compare`: every card of the enemy, anomaly
and event decks (P-14..P-36, Z-08..Z-10), each deck's count-weighted average
and the whole campaign (P-37..P-50), each number of the baseline and of the
changed scenario with its 95 % interval and their paired difference with its
interval (from the per-trial differences, so most of the noise cancels).

A difference has *moved beyond noise* when its 95 % interval excludes 0.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from sim.experiments import registry
from sim.experiments.base import Case, CompareInputError
from sim.experiments.setups import scenario_values
from sim.experiments.tables import cell_text
from sim.rules import Ruleset, load_ruleset
from sim.rules.loader import FILES
from sim.rules.scenario import Scenario, load_scenario, ruleset_refusal
from sim.rules.schema import MAP_COLUMNS, PARAMS, TABLES
from sim.workflows import compare

BASELINE = "baseline"
CHANGED = "changed"
CELL_COLUMNS = ("file", "card", "column", "old", "new")
"""Columns of :func:`changed_cells`: where the cell is, and its text before and after."""
DIFF_COLUMNS = ("section", "card", "metric", "kind", "baseline", "baseline_ci_low",
                "baseline_ci_high", "changed", "changed_ci_low", "changed_ci_high", "diff",
                "diff_ci_low", "diff_ci_high", "moved", "verdict")
"""Columns of :func:`paired_differences`, one row per number of both scenarios."""
DECKS = tuple((f"{e.card_key} deck", e.name, e.card_table) for e in registry.encounters())
"""Per deck: the section name, the experiment that plays it and its card table (every
encounter of :mod:`sim.experiments.registry`)."""
DECK = "deck"
"""The ``card`` of a deck's count-weighted average in :func:`paired_differences`."""
ABSENT = "(absent)"
"""``old`` or ``new`` of a card or hex that one side does not have."""
SCENARIO_FIELDS = ("ruleset", "stalker", "start", "stalkers", "armor", "weapons", "items",
                   "rubles", "artifacts", "variant", "targets")
"""Scenario keys compared by :func:`changed_cells` (plus every ``[policy]`` key)."""

Progress = Callable[[str], None]


def baseline_scenario(changed: Scenario, other: str | Path) -> Scenario:
    """The baseline of ``changed``: another scenario, or a ruleset folder with its setup.

    Parameters
    ----------
    changed : Scenario
        The scenario with the designer's changes.
    other : str or Path
        A folder holding a ruleset (``rules.toml`` and the card files): the
        changed scenario played on that ruleset; otherwise a scenario file or
        a bundled scenario's name.

    Raises
    ------
    CompareInputError
        An empty ``other``, or one naming a file of a ruleset folder (its
        ``rules.toml``, a card file) instead of the folder; a ruleset folder
        the scenario cannot be played on (every card, location or Secret
        Complex it names that the folder lacks, what a character cannot carry
        there: :func:`~sim.rules.scenario.ruleset_problems`, checked before
        anything plays); a multiplayer scenario on either side (the
        before-and-after comparison plays one stalker).
    RulesetError
        An invalid scenario or ruleset (every problem, with file, line and column).
    """
    expected = "give a scenario's name (base), a scenario .toml file or a ruleset folder"
    if not str(other).strip():
        raise CompareInputError(f"--baseline {str(other)!r} is empty: {expected}", "baseline")
    path = Path(other)
    if path.name in FILES and not path.is_dir():
        raise CompareInputError(
            f"--baseline {str(other)!r} is a file of a ruleset folder, not a scenario: give "
            f"the folder ({str(path.parent)!r}) to play the scenario on that ruleset, or "
            f"{expected.removeprefix('give ')}", "baseline")
    if path.is_dir():
        rs = load_ruleset(path)
        refused = ruleset_refusal(changed, rs, f"--baseline {str(other)!r}")
        if refused is not None:
            raise CompareInputError(refused, "baseline")
        base = dataclasses.replace(changed, ruleset=rs)
    else:
        base = load_scenario(other)
    for sc, side in ((changed, "the changed scenario"), (base, "the baseline")):
        if sc.multiplayer:
            raise CompareInputError(
                f"--baseline: {side} {sc.name!r} has several stalkers; the before-and-after "
                "comparison plays one stalker (compare seats with zonesim balance)", "baseline")
    return base


# --- changed cells ----------------------------------------------------------------------------

def text(value: object) -> str:
    """A cell as a designer wrote it: lists joined by commas, flags as 0/1, None as blank."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return ", ".join(text(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k} = {text(v)}" for k, v in value.items())
    return str(value)


def _cards(table: str, before: dict, after: dict, file: str) -> list[dict]:
    """Changed cells of one card table: cards added or removed, then cell by cell."""
    rows = []
    columns = [c.name for c in TABLES[table] if c.name != "name"] if table in TABLES else None
    for name in [*after, *(n for n in before if n not in after)]:
        if name not in before or name not in after:
            rows.append({"file": file, "card": name, "column": "(card)",
                         "old": ABSENT if name not in before else "present",
                         "new": ABSENT if name not in after else "present"})
            continue
        old, new = _asdict(before[name]), _asdict(after[name])
        for column in columns or [k for k in new if k != "line"]:
            if old.get(column) != new.get(column):
                rows.append({"file": file, "card": name, "column": column,
                             "old": text(old.get(column)), "new": text(new.get(column))})
    return rows


def _asdict(card) -> dict:
    return dataclasses.asdict(card) if dataclasses.is_dataclass(card) else dict(card)


def _map_cells(before: Ruleset, after: Ruleset) -> list[dict]:
    """Changed cells of ``map.csv``, each hex named by its axial ``q,r``."""
    def hexes(rs: Ruleset) -> dict:
        return {f"{h.q},{h.r}": h for h in rs.map.hexes}

    old, new = hexes(before), hexes(after)
    rows = []
    columns = [c.name for c in MAP_COLUMNS if c.name not in ("q", "r")]
    for key in [*new, *(k for k in old if k not in new)]:
        if key not in old or key not in new:
            rows.append({"file": "map.csv", "card": key, "column": "(hex)",
                         "old": ABSENT if key not in old else "present",
                         "new": ABSENT if key not in new else "present"})
            continue
        for column in columns:
            a, b = getattr(old[key], column, None), getattr(new[key], column, None)
            if a != b:
                rows.append({"file": "map.csv", "card": key, "column": column,
                             "old": text(a), "new": text(b)})
    return rows


def _scenario_values(sc: Scenario) -> dict[tuple[str, str], object]:
    """``(table, key) -> value`` of a scenario: its top-level keys, loadout and policy."""
    loadout = {"armor", "weapons", "items", "rubles", "artifacts"}
    out: dict[tuple[str, str], object] = {}
    for key in SCENARIO_FIELDS:
        value = str(sc.ruleset.path) if key == "ruleset" else getattr(sc, key)
        out[("loadout" if key in loadout else "", key)] = value
    for f in dataclasses.fields(sc.policy):
        out[("policy", f.name)] = getattr(sc.policy, f.name)
    return out


def changed_cells(before: Scenario, after: Scenario) -> pd.DataFrame:
    """Every cell that differs between two scenarios and their rulesets.

    Card tables (``<table>.csv``: a card added or removed, then each column
    of the schema), ``map.csv`` (hexes by ``q,r``), ``rules.toml`` (every key,
    defaults included, so a key set to its default is no change) and the
    scenario files (top-level keys, ``[loadout]``, ``[policy]``, targets). A
    ``notes`` column is a cell too. Two ruleset folders with the same cells
    and nothing else changed give one row, the ``ruleset`` key of the scenario.

    Returns
    -------
    DataFrame
        Columns :data:`CELL_COLUMNS`, in file order, then card order of the
        changed side (cards only the baseline has last).
    """
    a, b = before.ruleset, after.ruleset
    rows = []
    for table in TABLES:
        rows += _cards(table, dict(getattr(a, table)), dict(getattr(b, table)), f"{table}.csv")
    rows += _map_cells(a, b)
    for p in PARAMS:
        old, new = a.param(p.section, p.key), b.param(p.section, p.key)
        if old != new:
            rows.append({"file": "rules.toml", "card": p.section, "column": p.key,
                         "old": text(old), "new": text(new)})
    old_sc, new_sc = _scenario_values(before), _scenario_values(after)
    file = after.path.name if after.path.name == before.path.name \
        else f"{before.path.name} -> {after.path.name}"
    for (section, key), value in new_sc.items():
        if key != "ruleset" and old_sc[(section, key)] != value:
            rows.append({"file": file, "card": section, "column": key,
                         "old": text(old_sc[(section, key)]), "new": text(value)})
    if not rows and a.path.resolve() != b.path.resolve():  # two folders, the same cells
        rows.append({"file": file, "card": "", "column": "ruleset",
                     "old": str(a.path), "new": str(b.path)})
    return pd.DataFrame(rows, columns=list(CELL_COLUMNS))


# --- paired differences -----------------------------------------------------------------------

def _pair(exp_name: str, cases: Sequence[Case], *, trials: int, seed: int,
          threads: int | None) -> list[dict]:
    """Baseline and changed rows of one experiment (:func:`compare.paired_rows`)."""
    exp = registry.experiment(exp_name)
    return compare.paired_rows(exp.run(list(cases), trials=trials, seed=seed, threads=threads),
                               [BASELINE, CHANGED])


def _rows(section: str, card: str, exp_name: str, rows: Sequence[dict]) -> list[dict]:
    """One :data:`DIFF_COLUMNS` row per metric from a two-variant comparison's rows."""
    kinds = {m.name: m.kind for m in registry.experiment(exp_name).metrics}
    by = {(r["variant"], r["metric"]): r for r in rows}
    out = []
    for metric in dict.fromkeys(r["metric"] for r in rows):
        b, c = by[(BASELINE, metric)], by[(CHANGED, metric)]
        moved = not c["diff_ci_low"] <= 0.0 <= c["diff_ci_high"]
        out.append({"section": section, "card": card, "metric": metric, "kind": kinds[metric],
                    "baseline": b["mc"], "baseline_ci_low": b["ci_low"],
                    "baseline_ci_high": b["ci_high"], "changed": c["mc"],
                    "changed_ci_low": c["ci_low"], "changed_ci_high": c["ci_high"],
                    "diff": c["diff"], "diff_ci_low": c["diff_ci_low"],
                    "diff_ci_high": c["diff_ci_high"], "moved": moved,
                    "verdict": c["verdict"]})
    return out


def paired_differences(before: Scenario, after: Scenario, *, trials: int,
                       campaign_trials: int, seed: int, threads: int | None = None,
                       progress: Progress | None = None) -> tuple[pd.DataFrame, list[str]]:
    """Every deck card, deck average and campaign number of both scenarios, paired.

    Each pair plays on common random numbers (the same seed, trial and
    purpose streams): card ``k`` of the baseline and of the changed scenario
    meet the same dice, and the two campaigns the same games.

    Parameters
    ----------
    before, after : Scenario
        The baseline and the changed scenario (one stalker each).
    trials : int
        Trials per card and per deck average.
    campaign_trials : int
        Games per campaign.
    seed : int
        The one seed of every pair.
    threads : int, optional
        Worker threads; results do not depend on it.
    progress : callable, optional
        Called with one line per deck and the campaign.

    Returns
    -------
    (DataFrame, list of str)
        Rows with columns :data:`DIFF_COLUMNS` (card :data:`DECK` for a deck's
        average, ``""`` for the campaign), and one line per card that only one
        side has or that cannot be played (with its reason), skipped.
    """
    say = progress or (lambda line: None)
    rows: list[dict] = []
    skipped: list[str] = []
    run = {"trials": trials, "seed": seed, "threads": threads}
    for section, exp_name, table in DECKS:
        say(f"before and after: {section}")
        key = registry.experiment(exp_name).card_key
        setups = [scenario_values(exp_name, sc) for sc in (before, after)]
        old, new = getattr(before.ruleset, table), getattr(after.ruleset, table)
        for card in [*new, *(n for n in old if n not in new)]:
            if card not in old or card not in new:
                skipped.append(f"{section}: {card}: only in the "
                               f"{'changed scenario' if card in new else 'baseline'}")
                continue
            cases = [Case(sc.ruleset, {**s, key: card})
                     for sc, s in zip((before, after), setups, strict=True)]
            try:
                pair = _pair(exp_name, cases, **run)
            except CompareInputError as error:
                skipped.append(f"{section}: {card}: {error}")
                continue
            rows += _rows(section, card, exp_name, pair)
        cases = [Case(sc.ruleset, {**s, key: "all"})
                 for sc, s in zip((before, after), setups, strict=True)]
        rows += _rows(section, DECK, exp_name, _pair(exp_name, cases, **run))
    say("before and after: campaign")
    cases = [Case(sc.ruleset, scenario_values("campaign", sc)) for sc in (before, after)]
    rows += _rows("campaign", "", "campaign",
                  _pair("campaign", cases, trials=campaign_trials, seed=seed, threads=threads))
    return pd.DataFrame(rows, columns=list(DIFF_COLUMNS)), skipped


def moved(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`paired_differences` that moved beyond noise, largest first.

    Probabilities first, by the size of the difference (percentage points);
    then per-game and per-encounter means, by the size of the difference
    relative to the baseline's value (a mean of days and a mean of wounds
    have no common unit).
    """
    out = frame[frame["moved"]].copy()
    size = out["diff"].abs()
    relative = size / out["baseline"].abs().where(out["baseline"] != 0, 1.0)
    out["_kind"] = (out["kind"] != "proportion").astype(int)
    out["_size"] = size.where(out["kind"] == "proportion", relative)
    out = out.sort_values(["_kind", "_size"], ascending=[True, False], kind="stable")
    return out.drop(columns=["_kind", "_size"]).reset_index(drop=True)


@dataclass(frozen=True)
class BeforeAfter:
    """Two scenarios compared (:func:`before_after`): the changed cells and every number.

    Attributes
    ----------
    scenario, baseline : str
        The changed scenario's file and the baseline as given.
    trials, campaign_trials, seed : int
        Trials per card and deck, games per campaign, the one seed.
    cells : DataFrame
        :func:`changed_cells`.
    rows : DataFrame
        :func:`paired_differences`.
    skipped : tuple of str
        Cards not compared, with the reason.
    """

    scenario: str
    baseline: str
    trials: int
    campaign_trials: int
    seed: int
    cells: pd.DataFrame
    rows: pd.DataFrame
    skipped: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """JSON document: provenance, ``changed_cells``, ``moved`` (largest first), ``rows``."""
        def records(frame: pd.DataFrame) -> list[dict]:
            return frame.astype(object).where(frame.notna(), None).to_dict(orient="records")

        return {"scenario": self.scenario, "baseline": self.baseline, "trials": self.trials,
                "campaign_trials": self.campaign_trials, "seed": self.seed,
                "changed_cells": records(self.cells), "moved": records(moved(self.rows)),
                "skipped": list(self.skipped), "rows": records(self.rows)}

    def to_table(self) -> pd.DataFrame:
        """What moved beyond noise, largest first: estimates and difference with intervals."""
        frame = moved(self.rows)
        return pd.DataFrame({
            "section": frame["section"], "card": frame["card"], "metric": frame["metric"],
            "baseline": [cell_text(*x) for x in zip(frame["baseline"], frame["baseline_ci_low"],
                                                    frame["baseline_ci_high"], strict=True)],
            "changed": [cell_text(*x) for x in zip(frame["changed"], frame["changed_ci_low"],
                                                   frame["changed_ci_high"], strict=True)],
            "diff": [cell_text(*x, signed=True) for x in zip(
                frame["diff"], frame["diff_ci_low"], frame["diff_ci_high"], strict=True)]})


def before_after(changed: Scenario, other: str | Path, *, trials: int, campaign_trials: int,
                 seed: int, threads: int | None = None,
                 progress: Progress | None = None) -> BeforeAfter:
    """``changed`` against its baseline ``other``: changed cells and paired differences.

    The library behind ``zonesim compare scenarios``; the report against a
    baseline (:mod:`sim.report.before_after`) adds the tables and verdicts.
    Raises as :func:`baseline_scenario`.
    """
    base = baseline_scenario(changed, other)
    rows, skipped = paired_differences(base, changed, trials=trials,
                                       campaign_trials=campaign_trials, seed=seed,
                                       threads=threads, progress=progress)
    return BeforeAfter(str(changed.path), str(other), trials, campaign_trials, seed,
                       changed_cells(base, changed), rows, tuple(skipped))


__all__ = ["BASELINE", "CELL_COLUMNS", "CHANGED", "DECK", "DIFF_COLUMNS", "BeforeAfter",
           "baseline_scenario", "before_after", "changed_cells", "moved", "paired_differences"]
