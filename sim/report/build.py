"""``zonesim report``: the standard battery on a scenario, written as one results folder.

:func:`run_report` runs, in order, the enemy, anomaly and event deck tables,
the item comparisons, the artefacts compared, the campaign statistics, the
characters, the readings of the rules, best play and the scenario's targets,
and writes ``results/<scenario>-<timestamp>/``:

- ``report.md`` and ``report.html`` (self-contained: figures embedded as
  base64 PNG);
- every table as ``<name>.csv`` and ``<name>.parquet`` (``summary`` holds the
  headline numbers);
- every figure as ``<name>.png``;
- ``metadata.json``: seed, trials, ruleset digest, package versions, timings
  per section, command line, file list.

The folder is built under a hidden temporary name beside its final place and
renamed at the end, so a run that fails half-way leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from sim import compiling
from sim.campaign.compile import compile_campaign
from sim.experiments.registry import canonical_metric, metrics
from sim.report import (
    artifacts,
    before_after,
    best_play,
    html,
    labels,
    markdown,
    players,
    plots,
    readings,
    tables,
    verdict,
    writer,
)
from sim.rules import RulesetError
from sim.rules.scenario import Scenario, load_scenario
from sim.rules.tomlfile import TomlFile, suggest
from sim.workflows import baseline as baseline_workflow
from sim.workflows.explain import explain_games
from sim.workflows.targets import Target, out_of_range

DEFAULT_TRIALS = 500_000
"""Trials per encounter table: a card's 95 % half-width is then at most 0.0014."""
DEFAULT_CAMPAIGN_TRIALS = 200_000
"""Games: the win rate, P(win), to within +-0.002 (95 %); about a second of kernel time."""
CHARACTER_SHARE = 4
"""Each character plays ``campaign_trials // CHARACTER_SHARE`` paired games: +-0.004 on a win
rate at the default, and the differences between characters tighter still (common random
numbers), for about a quarter of the campaign's time per character."""
ARTIFACT_SHARE = 10
"""Each artefact and the no-artefact baseline play ``trials // ARTIFACT_SHARE`` trials per card
of the enemy and anomaly decks: one variant per artefact card (14 on the base set) times every
card is about 80 s at the full count on two cores, while a paired change is tight already at a
tenth of it (most trials play out the same with and without the artefact: about +-0.0005 on
Stone blood's change in P(knocked out) at the default), for about 10 s."""

READINGS_SHARE = 10
"""Each documented reading of an open rule plays ``campaign_trials // READINGS_SHARE`` paired
games (:mod:`sim.report.readings`): 20,000 at the default, a change in the win rate to within
about +-0.01 (tighter where the reading changes few games), for the 34 readings of the base set
about 3 s on two cores."""

BEST_PLAY_SHARE = 1
"""The best-play search (:mod:`sim.report.best_play`) plays a selection of
``campaign_trials // BEST_PLAY_SHARE`` games (200,000 at the default, a tenth of zonesim
optimize's budget), then the best, the scenario's and the naive policy on half as many fresh
games each (the win rate to within about +-0.003)."""

SUMMARY_COLUMNS = ["section", "metric", "mc", "ci_low", "ci_high", "exact", "note"]

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Report:
    """A written report.

    Attributes
    ----------
    folder : Path
        The results folder.
    summary : DataFrame
        Headline rows (columns :data:`SUMMARY_COLUMNS`).
    sections : tuple of Section
        The battery's sections, in order (figures already written and dropped).
    metadata : dict
        The contents of ``metadata.json``.
    before_after : dict, optional
        Against a baseline: ``cells`` (the changed cells), ``moved`` (what
        moved beyond noise) as readable frames, ``flipped`` (lines), and the
        tidy ``cells_rows`` and ``moved_rows``; None without one.
    """

    folder: Path
    summary: pd.DataFrame
    sections: tuple
    metadata: dict
    before_after: dict | None = None

    def to_dict(self) -> dict:
        """JSON document: folder, provenance and the summary rows."""
        meta = self.metadata
        return writer.clean_json({
            "folder": str(self.folder), "scenario": meta["scenario"], "seed": meta["seed"],
            "trials": meta["trials"], "campaign_trials": meta["campaign_trials"],
            "ruleset_digest": meta["ruleset_digest"], "wall_s": meta["wall_s"],
            "summary": self.summary.astype(object).where(self.summary.notna(), None)
            .to_dict(orient="records"),
            **({} if self.before_after is None else {
                "baseline": meta["baseline"]["given"],
                "changed_cells": self.before_after["cells_rows"].to_dict(orient="records"),
                "moved": self.before_after["moved_rows"].to_dict(orient="records"),
                "flipped": self.before_after["flipped"]})})


def steps(trials: int, campaign_trials: int,
          multiplayer: bool = False) -> list[tuple[str, Callable, int]]:
    """The battery in order: ``(name, section function, trials)`` per section.

    The report runs them first to last; :mod:`sim.report.ahead` runs them last
    to first, with few trials, to compile their kernels ahead.
    """
    if multiplayer:  # issue 12: seat 1's decks, then the game of every seat
        return [("enemy deck", tables.enemy_deck, trials),
                ("anomaly deck", tables.anomaly_deck, trials),
                ("event deck", tables.event_deck, trials),
                ("seats", players.seats_section, campaign_trials),
                ("characters", players.characters_section, campaign_trials),
                ("readings", readings.readings_section,
                 max(1, campaign_trials // READINGS_SHARE))]
    return [("enemy deck", tables.enemy_deck, trials),
            ("anomaly deck", tables.anomaly_deck, trials),
            ("event deck", tables.event_deck, trials),
            ("item comparisons", tables.items_section, trials),
            ("artefacts", artifacts.artifacts_section, max(1, trials // ARTIFACT_SHARE)),
            ("campaign", tables.campaign_section, campaign_trials),
            ("characters", tables.characters_section,
             max(1, campaign_trials // CHARACTER_SHARE)),
            ("readings", readings.readings_section,
             max(1, campaign_trials // READINGS_SHARE)),
            ("best play", best_play.best_play_section,
             max(1, campaign_trials // BEST_PLAY_SHARE))]


def run_report(scenario: str | Path | Scenario | None = None, *, trials: int = DEFAULT_TRIALS,
               campaign_trials: int = DEFAULT_CAMPAIGN_TRIALS, seed: int,
               out: Path | None = None, results_dir: Path = writer.RESULTS_DIR,
               progress: Progress | None = None,
               command: list[str] | None = None,
               baseline: str | Path | Scenario | None = None) -> Report:
    """Run the standard battery on ``scenario`` and write its results folder.

    Parameters
    ----------
    scenario : str, Path, Scenario or None
        A bundled scenario name, a scenario file, a loaded scenario, or None
        for the bundled base scenario.
    trials : int
        Trials per encounter table and item comparison.
    campaign_trials : int
        Games for the campaign statistics.
    seed : int
        One seed for every section (common random numbers within each).
    out : Path, optional
        The folder to write (must not exist); default
        ``results_dir/<scenario>-<timestamp>``.
    progress : callable, optional
        Called with one line per section as it starts.
    command : list of str, optional
        The command line to record (default ``sys.argv``).
    baseline : str, Path or Scenario, optional
        The report against a baseline (:mod:`sim.report.before_after`): a
        scenario, or a ruleset folder played with ``scenario``'s setup
        (:func:`sim.workflows.baseline.baseline_scenario`). The battery runs
        on both with the same seed, every deck card, deck average and campaign
        number is paired on common random numbers, the first section lists
        the changed cells, what moved and the flipped verdicts, every table
        shows baseline, changed and difference, and ``diff.csv`` holds every
        number.

    Returns
    -------
    Report

    Raises
    ------
    RulesetError
        The scenario or its ruleset is invalid, or a target names an unknown metric.
    FileExistsError
        ``out`` exists already.
    """
    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    _check_targets(sc)
    base_sc = None
    if baseline is not None:
        base_sc = baseline if isinstance(baseline, Scenario) \
            else baseline_workflow.baseline_scenario(sc, baseline)
        _check_targets(base_sc)
    folder = Path(out) if out is not None else writer.default_folder(sc.name, results_dir)
    say = progress or (lambda line: None)
    watch = writer.Stopwatch()
    sections: list[tables.Section] = []
    images: dict[str, bytes] = {}
    files: list[str] = []
    battery = steps(trials, campaign_trials, sc.multiplayer)
    total = len(battery) + 1
    with writer.atomic_folder(folder) as staged, \
            compiling.ahead("sim.report.ahead", str(sc.path)):
        temp = staged.temp
        values: dict[str, tuple] = {}
        for i, (name, func, n) in enumerate(battery, start=1):
            say(f"[{i}/{total}] {name} ({n} trials)")
            with watch.section(name):
                section = func(sc, n, seed)
                files += _write_section(section, temp, images)
            values.update(section.values)
            sections.append(section)
        first: list[tables.Section] = []
        if base_sc is not None:
            with watch.section("baseline"):
                compared = _against(base_sc, sc, sections, battery, seed, trials,
                                    campaign_trials, say, str(baseline), values)
                files += _write_section(compared, temp, images)
                files += [p.name for p in writer.write_table(
                    compared.data["diff"], temp, "diff")]
            first.append(compared)
        say(f"[{total}/{total}] targets and pages")
        with watch.section("targets and pages"):
            section = tables.targets_section(sc, values)
            files += _write_section(section, temp, images)
            sections.append(section)
            if first:
                before_after.merge_sections(first[0].data["sections"], sections[-1:])
            first_screen = verdict.verdict_section(sc, sections)
            files += _write_section(first_screen, temp, images)
            pages = [*first, first_screen, *sections]
            summary = pd.DataFrame([row for s in [*first, *sections] for row in s.summary],
                                   columns=SUMMARY_COLUMNS)
            files += [p.name for p in writer.write_table(summary, temp, "summary")]
            meta = writer.manifest(
                command, kind="report", scenario=sc.name, scenario_path=str(sc.path),
                seed=seed, trials=trials, campaign_trials=campaign_trials,
                ruleset_path=str(sc.ruleset.path), ruleset_digest=sc.ruleset.digest(),
                campaign_available=tables.load_run_campaign() is not None)
            meta["targets"] = {r["target"]: r["verdict"]
                               for r in section.tables["targets"].to_dict(orient="records")}
            if base_sc is not None:
                meta["baseline"] = {"given": str(baseline), "scenario_path": str(base_sc.path),
                                    "ruleset_path": str(base_sc.ruleset.path),
                                    "ruleset_digest": base_sc.ruleset.digest()}
            meta["wall_s"] = watch.total()
            title = f"zonesim report: {sc.name}" + (
                "" if base_sc is None else f" against {baseline}")
            shown = page_summary(summary)
            if first:  # the summary of both reports: the first section's own rows are above
                shown = before_after.merge_shown(page_summary(first[0].data["summary"]),
                                                 page_summary(summary[len(first[0].summary):]))
            files += _write_pages(temp, title, meta, pages, shown, images)
        meta["timings"] = dict(watch.sections)
        meta["wall_s"] = watch.total()
        meta["files"] = sorted([*files, "metadata.json"])
        writer.write_json(writer.clean_json(meta), temp / "metadata.json")
    for section in sections:
        section.figures = dict.fromkeys(section.figures)  # drop the figures, keep the names
    told = None
    if first:
        data = first[0].data
        told = {"cells": before_after.cells_shown(first[0].tables["changed_cells"]),
                "moved": before_after.moved_shown(data["moved"]),
                "cells_rows": first[0].tables["changed_cells"], "moved_rows": data["moved"],
                "flipped": data["flipped"]}
    return Report(staged.path, summary, tuple(sections), meta, told)


def _against(base_sc: Scenario, sc: Scenario, sections: list, battery: list, seed: int,
             trials: int, campaign_trials: int, say: Progress, name: str,
             values: dict) -> tables.Section:
    """The baseline's battery (same seed), the paired differences and the first section.

    The changed report's sections gain the baseline's values in their
    readable tables (in place; its targets section, made later, is merged by
    the caller). The returned section's data holds ``diff`` (every number of
    both, for ``diff.csv``), the baseline's ``sections`` and its ``summary``.
    """
    base_sections = []
    base_values: dict[str, tuple] = {}
    for step, func, n in battery:
        say(f"baseline: {step} ({n} trials)")
        part = func(base_sc, n, seed)
        part.figures = {}
        base_values.update(part.values)
        base_sections.append(part)
    base_sections.append(tables.targets_section(base_sc, base_values))
    diffs, skipped = baseline_workflow.paired_differences(
        base_sc, sc, trials=trials, campaign_trials=campaign_trials, seed=seed, progress=say)
    cells = baseline_workflow.changed_cells(base_sc, sc)
    changed = [*sections, tables.targets_section(sc, values)]
    section = before_after.before_after_section(sc, base_sections, changed, cells, diffs,
                                                skipped, name)
    if not sc.multiplayer and not base_sc.multiplayer:  # why the win rate moved (issue 47)
        say("before and after: why the win rate moved")
        games = min(campaign_trials, before_after.WHY_GAMES)
        why = explain_games([compile_campaign(base_sc), compile_campaign(sc)],
                            [base_sc.ruleset, sc.ruleset], (name, sc.name), trials=games,
                            seed=seed)
        before_after.why_part(section, why)
    section.data["diff"] = before_after.diff_table(base_sections, changed, diffs)
    section.data["sections"] = base_sections
    section.data["summary"] = pd.DataFrame(
        [row for s in base_sections for row in s.summary], columns=SUMMARY_COLUMNS)
    before_after.merge_sections(base_sections, sections)
    for part in sections:  # the changed sections are written already: their tidy rows here
        if "before_after" in part.data:
            section.tables[f"{part.key}_before_after"] = part.data["before_after"]
    return section


def _write_pages(temp: Path, title: str, meta: dict, pages: list, shown_summary: pd.DataFrame,
                 images: dict[str, bytes]) -> list[str]:
    """Write report.md (plots as PNG files beside it) and report.html (plots embedded)."""
    pngs = {name: f"{name}.png" for name in images}
    (temp / "report.md").write_text(
        markdown.render(title, meta, pages, shown_summary, pngs), encoding="utf-8")
    (temp / "report.html").write_text(
        html.render(title, meta, pages, shown_summary, images), encoding="utf-8")
    return ["report.md", "report.html"]


def _check_targets(sc: Scenario) -> None:
    """Refuse, before any run, a target whose metric the report does not produce, or whose
    bound lies outside the values its metric can take (``p_sarcophagus = [0.35, 55]``,
    :func:`sim.workflows.targets.out_of_range`).
    """
    known = players.player_metrics(sc) if sc.multiplayer else tables.target_metrics()
    unknown = [m for m in sc.targets if canonical_metric(m) not in known]
    outside = {m: why for m, (low, high) in sc.targets.items() if m not in unknown
               and (why := _outside(canonical_metric(m), low, high))}
    if not unknown and not outside:
        return
    toml = TomlFile(sc.path)
    for metric in unknown:
        toml.problem(f"targets.{metric}", None,
                     f"unknown metric '{metric}'" + suggest(metric, known))
    for metric, why in outside.items():
        toml.problem(f"targets.{metric}", list(sc.targets[metric]), f"is refused: {why}")
    raise RulesetError(toml.problems)


def _outside(metric: str, low: float, high: float) -> str | None:
    """Why a scenario target's bound lies outside its metric's values (None: it does not)."""
    declared = metrics().get(metric)
    return None if declared is None else out_of_range(Target(metric, low, high), declared)


def _write_section(section: tables.Section, folder: Path, images: dict[str, bytes]) -> list[str]:
    """Write a section's tables (CSV, Parquet) and figures (PNG); return the file names."""
    names = []
    for name, frame in section.tables.items():
        names += [p.name for p in writer.write_table(frame, folder, name)]
    for name, figure in section.figures.items():
        images[name] = plots.save(figure, folder / f"{name}.png")
        names.append(f"{name}.png")
    return names


def page_summary(summary: pd.DataFrame) -> pd.DataFrame:
    """The summary for the pages: plain labels first, rows estimated as exactly 0 left out.

    A row that is 0 with an exact value of 0 (or none), such as the P(fled)
    of a stalker who never flees, says nothing; ``summary.csv`` keeps it.
    """
    rows = []
    for r in summary.to_dict(orient="records"):
        exact = r["exact"]
        if r["mc"] == 0 and (exact is None or pd.isna(exact) or exact == 0):
            continue
        rows.append({"what": labels.metric(r["metric"]), "section": r["section"],
                     "name": r["metric"],
                     "estimate": tables.cell_text(r["mc"], r["ci_low"], r["ci_high"],
                                                  r["exact"]),
                     "note": r["note"] if isinstance(r["note"], str) else ""})
    return pd.DataFrame(rows, columns=["what", "section", "name", "estimate", "note"])


def readable_summary(summary: pd.DataFrame) -> pd.DataFrame:
    """The summary with each number as ``estimate ±half-width (exact)``, for printing."""
    return pd.DataFrame([{"section": r["section"], "metric": r["metric"],
                          "estimate": tables.cell_text(r["mc"], r["ci_low"], r["ci_high"],
                                                       r["exact"]),
                          "note": r["note"] if isinstance(r["note"], str) else ""}
                         for r in summary.to_dict(orient="records")])
