"""``zonesim sweep``: vary card values over a grid and run one experiment per point."""

from __future__ import annotations

import os
from pathlib import Path

import click
import pandas as pd

from sim import runner
from sim.cli import common
from sim.experiments import registry
from sim.experiments.tables import compact
from sim.rules.tomlfile import suggest
from sim.workflows.sweep import check_scheduler, run_sweep

DEFAULT_TRIALS = 100_000
SKIRMISH = "skirmish"
"""The experiment of battlefield values (:mod:`sim.workflows.battlefield`), outside the registry:
its points are edits of a skirmish scenario's battlefield, not of a ruleset's cards."""
SKIRMISH_METRIC = "p_win"


def _params(exp, scenario, rules_dir):
    """The sweep's parameters and base ruleset: the options over the ``--scenario``.

    An encounter takes the experiment's ``option_keys`` that the sweep has options
    for, in that order; whole games take the scenario by name.
    """
    if exp.card_key is None:
        from sim.rules.scenario import load_scenario, ruleset_refusal
        chosen = load_scenario(scenario)
        rs = chosen.ruleset if rules_dir is None else common.load_rules_or_exit(rules_dir)
        refused = None if rules_dir is None else ruleset_refusal(chosen, rs,
                                                                 f"ruleset {rules_dir!r}")
        if refused is not None:  # before any point plays
            raise click.BadParameter(refused, param_hint="--rules")
        return {"scenario": scenario or "base"}, rs
    setup, rs = common.setup_and_rules(exp.name, scenario, rules_dir,
                                       common.option_values(exp.option_keys))
    return {k: list(v) if isinstance(v, tuple) else v for k, v in setup.items()}, rs


@click.command(cls=common.Command)
@click.option("--vary", "varies", multiple=True, required=True, metavar="CELL=VALUES",
              help="A card cell and its values: table.card.column=a..b (integers a to b "
                   "inclusive) or table.card.column=v1,v2,... (repeatable; the grid is the "
                   "cross product). rules.section.key=... varies a rules.toml key.")
@click.option("--experiment", type=click.Choice((*registry.NAMES, SKIRMISH)), default="combat",
              show_default=True, help="What to run at each grid point (skirmish: the "
                                      "battlefield of the --scenario file).")
@click.option("--stalker", default=None, help="Stalker card name (combat, anomaly, event).")
@common.card_options("all", lambda e: f"{e.card_key.capitalize()} card, or 'all' ({e.name}).")
@common.loadout_options
@common.artifact_options
@common.fight_policy_options
@common.setting_option("--enter",
                       help="Enter anomalies on purpose after noticing them (anomaly).")
@click.option("--scenario", default=None, metavar="FILE|NAME",
              help="Scenario (default for campaign: base): its ruleset is the one varied; "
                   "for combat, anomaly and event its stalker, loadout and policy are used "
                   "unless given as options.")
@click.option("--metric", default=None,
              show_default="; ".join([*(f"{e.default_metric} ({e.name})"
                                        for e in registry.experiments()),
                                      f"{SKIRMISH_METRIC} (skirmish)"]),
              help="Metric printed and plotted (checked before the first point runs).")
@click.option("--target", "target_text", default=None, metavar="TEXT",
              help="Balance target on the metric, e.g. 'p_sarcophagus in 0.35..0.55': shown "
                   "as a band on the plot (outlined cells on heatmaps) and judged per row; "
                   "its metric is the --metric when that is not given.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Results folder to create (default: results/sweep-<timestamp>/).")
@click.option("--workers", type=common.small_int(1), default=os.cpu_count() or 1,
              show_default="the number of cores",
              help="Local worker processes; results do not depend on it.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the grid on a Dask distributed cluster (e.g. tcp://host:8786), "
                   "one task per point; results do not depend on it.")
@common.trials_option(DEFAULT_TRIALS)
@common.seed_option
@common.rules_option
@common.format_option
@common.threads_option
@common.quiet_option
def sweep(varies, experiment, artifacts, intellect, scenario, metric, target_text, out, workers,
          scheduler, trials, seed, rules_dir, fmt, threads, **setup_options):
    """Vary card values over a grid and run an experiment at every point.

    Each --vary names one cell, table.card.column, and its values: a..b for
    the integers a to b inclusive, or a comma list. The grid is the cross
    product of all --vary (the first varies slowest); every point runs on
    the same seed (common random numbers), so differences between points are
    the card changes, not noise. Prints one row per point and card with the
    --metric; writes the whole tidy table (every metric with _ci_low,
    _ci_high and _exact columns) as sweep.csv and sweep.parquet, a line plot
    (one --vary) or heatmaps (two), and metadata.json into --out. With
    --target, the plot shows the target band (heatmaps outline the cells
    that meet it) and each row its PASS/FAIL/UNDECIDED. --experiment
    campaign plots the win rate unless --metric is given; campaign metrics
    are named as in zonesim campaign's JSON (days.median, causes.final_emission;
    the older days_median, death_final_emission are still read).

    \b
    Example:
      zonesim sweep --stalker Strelok --enemy Bloodsucker --weapon AK-74 \\
        --vary enemies.Bloodsucker.endurance=2..6 --vary "armor.Ecolog suit.durability=3,4,5" \\
        --armor "Ecolog suit"
      zonesim sweep --experiment event --stalker Ghost --item Dosimeter \\
        --vary "events.Radiation spike.avoid_on=3..6" --metric avoided --format json
      zonesim sweep --experiment campaign --vary enemies.Bloodsucker.endurance=2..6 \\
        --target "p_sarcophagus in 0.35..0.55" --trials 20000
      zonesim sweep --stalker Strelok --enemy all --weapon AK-74 --artifact "Stone flower" \\
        --vary "artifacts.Stone flower.value=1..3"
      zonesim sweep --experiment skirmish --scenario configs/skirmish/field_cover.toml \\
        --vary "cover.Stone wall.units=1..3" --trials 2000

    --experiment skirmish varies battlefield values of the skirmish scenario
    --scenario (KEY=V1,V2 or KEY=a..b, keys as in 'zonesim skirmish --vary') and
    prints, per point and side, the --metric (default p_win) with its interval and
    the paired difference to the first point on common random numbers; it writes
    no results folder.
    """
    if experiment == SKIRMISH:
        _sweep_skirmish(varies, scenario, metric, trials, seed, fmt, threads)
        return
    if scheduler is not None:
        check_scheduler(scheduler)
    target = None if target_text is None else _target(target_text, metric)
    exp = registry.experiment(experiment)
    if metric is None:
        metric = target.metric if target is not None else exp.default_metric
    metric = registry.canonical_metric(metric)
    known = exp.sweep_metrics
    if metric not in known:
        raise click.BadParameter(f"{metric!r} is not a {experiment} metric"
                                 + suggest(metric, known) + f" (known: {', '.join(known)})",
                                 param_hint="--metric")
    encounter = exp.card_key is not None
    common.refuse_options_of_others(exp, "sweep", None if encounter else (),
                                    () if encounter else ("artifacts", "intellect"))
    params, rs = _params(exp, scenario, rules_dir)  # the setup options, by the experiment's keys
    if encounter and artifacts:  # P-08..P-10; without them, params as before
        params["artifacts"] = list(artifacts)
    if encounter and intellect is not None:
        params["intellect"] = intellect
    from sim.report.writer import write_sweep
    with common.results_folder(out, "sweep") as (folder, bar):
        with runner.reporting(None):  # one bar over the grid's points, not one per point
            result = run_sweep(rs, varies, experiment, params, trials=trials, seed=seed,
                               workers=workers, scheduler=scheduler, threads=threads,
                               progress=bar.points if bar.enabled else None)
        if metric not in result.metrics:
            raise click.BadParameter(f"{metric!r} is not a metric of this sweep "
                                     f"(known: {', '.join(result.metrics)})",
                                     param_hint="--metric")
        written = write_sweep(result, folder, metric, target=target)
    if written != folder:
        click.echo(f"zonesim sweep: {common.shown_path(folder)} was taken meanwhile; written "
                   "beside it", err=True)
    _emit(result, metric, fmt, written, target)


def _target(text: str, metric: str | None):
    """The ``--target``, on the ``--metric`` when both are given."""
    target = common.target(text)
    if metric is not None and target.metric != registry.canonical_metric(metric):
        raise click.BadParameter(f"the target is on {target.metric!r}, the --metric is "
                                 f"{metric!r}: give one metric", param_hint="--target")
    return target


def _emit(result, metric: str, fmt: str, folder: Path, target=None) -> None:
    frame = result.frame
    keys = ["point", *result.parameter_columns,
            *[e.card_key for e in registry.encounters() if e.card_key in frame.columns]]
    chosen = frame[[*keys, metric, f"{metric}_ci_low", f"{metric}_ci_high", f"{metric}_exact"]]
    if fmt == "json":
        doc = result.to_dict()
        doc["folder"] = str(folder)
        click.echo(common.dumps(doc))
        return
    if fmt == "csv":
        click.echo(common.csv_text(frame), nl=False)
        for line in _skipped_lines(result):
            click.echo(f"zonesim sweep: {line}", err=True)
        click.echo(f"zonesim sweep: written to {common.shown_path(folder)}", err=True)
        return
    rows = []
    for record in chosen.to_dict(orient="records"):
        cell = {key: None if pd.isna(record[column]) else record[column]
                for key, column in (("mc", metric), ("ci_low", f"{metric}_ci_low"),
                                    ("ci_high", f"{metric}_ci_high"),
                                    ("exact", f"{metric}_exact"))}
        row = compact({**{k: record[k] for k in keys}, metric: cell}, tuple(keys))
        if target is not None:
            row["target"] = "" if cell["mc"] is None else target.judge(
                cell["mc"], cell["ci_low"], cell["ci_high"])
        rows.append(row)
    title = (f"sweep: {result.experiment}, {len(result.points)} points, {result.trials} trials "
             f"per point, seed {result.seed} at every point; {result.backend}, "
             f"{result.wall_s:.1f} s; cells: estimate ±95% half-width (exact)")
    common.emit_frame(chosen, fmt, {}, title, pd.DataFrame(rows))
    for line in _skipped_lines(result):
        click.echo(line)
    click.echo(f"written to {common.shown_path(folder)}")


def _skipped_lines(result) -> list[str]:
    """A heading and one line per skipped point: its edits, who refused it and why."""
    if not result.skipped:
        return []
    return [f"{len(result.skipped)} points skipped, not played:",
            *(f"  point {s['point']} ({'; '.join(s['edits'])}): {WHY[s['refused_by']]}: "
              f"{s['reason']}" for s in result.skipped)]


WHY = {"rules": "the rules refuse it", "compile": "the game cannot be set up"}
"""Who refused a skipped point, in words."""


def _sweep_skirmish(varies, scenario, metric, trials, seed, fmt, threads) -> None:
    """``--experiment skirmish``: every point of a battlefield grid on common random numbers."""
    from sim.cli.battlefield import emit_battlefield, load_or_exit
    from sim.workflows.battlefield import check_metrics, compare_battlefield

    ctx = click.get_current_context()
    others = [p.opts[0] for p in ctx.command.params
              if p.name not in ("varies", "experiment", "scenario", "metric", "trials", "seed",
                                "fmt", "threads", "quiet") and common.given(p.name, ctx)]
    if others:
        raise click.UsageError(f"{', '.join(others)}: not an option of 'sweep' for the "
                               "skirmish experiment (it plays the --scenario file's figures)")
    if scenario is None:
        raise click.UsageError("--experiment skirmish needs --scenario, a skirmish scenario "
                               "file with a [battlefield]")
    metric = metric or SKIRMISH_METRIC
    check_metrics([metric])
    chosen = load_or_exit(Path(scenario))
    comparison = compare_battlefield(chosen, varies, trials=trials, seed=seed, threads=threads)
    title = (f"{chosen.name} ({chosen.path}); {trials} fights per point, seed {seed}, the same "
             f"dice for every point; {metric} per point and side; diff = paired difference to "
             "the first point; ci = 95% interval")
    emit_battlefield(comparison, [metric], fmt, title)
