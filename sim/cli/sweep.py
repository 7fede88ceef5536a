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
from sim.report.staging import probe
from sim.rules.tomlfile import suggest
from sim.workflows.sweep import EXPERIMENTS, run_sweep

DEFAULT_TRIALS = 100_000
def _params(experiment, stalker, enemy, anomaly, event, armor, weapons, items, sneak, flee_at,
            heal_at, enter, scenario, artifacts=(), intellect=None) -> dict:
    if experiment == "campaign":
        return {"scenario": scenario}
    if stalker is None:
        raise click.UsageError(f"--stalker is required for the {experiment} experiment")
    params: dict = {"stalker": stalker, "armor": armor}
    if experiment == "combat":
        params.update(enemy=enemy, weapons=list(weapons), items=list(items), sneak=sneak,
                      flee_at=flee_at, heal_at=heal_at)
    elif experiment == "anomaly":
        params.update(anomaly=anomaly, enter=enter)
    else:
        params.update(event=event, items=list(items))
    if artifacts:  # P-08..P-10; absent keys keep the points' parameters as before
        params["artifacts"] = list(artifacts)
    if intellect is not None:
        params["intellect"] = intellect
    return params


@click.command(cls=common.Command)
@click.option("--vary", "varies", multiple=True, required=True, metavar="CELL=VALUES",
              help="A card cell and its values: table.card.column=a..b (integers a to b "
                   "inclusive) or table.card.column=v1,v2,... (repeatable; the grid is the "
                   "cross product). rules.section.key=... varies a rules.toml key.")
@click.option("--experiment", type=click.Choice(list(EXPERIMENTS)), default="combat",
              show_default=True, help="What to run at each grid point.")
@click.option("--stalker", default=None, help="Stalker card name (combat, anomaly, event).")
@click.option("--enemy", default="all", show_default=True,
              help="Enemy card, or 'all' (combat).")
@click.option("--anomaly", "anomaly_name", default="all", show_default=True,
              help="Anomaly card, or 'all' (anomaly).")
@click.option("--event", "event_name", default="all", show_default=True,
              help="Event card, or 'all' (event).")
@common.loadout_options
@common.artifact_options
@common.fight_policy_options
@click.option("--enter", is_flag=True, default=False,
              help="Enter anomalies on purpose after noticing them (anomaly).")
@click.option("--scenario", default="base", show_default=True,
              help="Scenario name or file (campaign); its ruleset is the one varied.")
@click.option("--metric", default=None,
              show_default="knocked_out; p_sarcophagus for --experiment campaign",
              help="Metric printed and plotted (checked before the first point runs).")
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
def sweep(varies, experiment, stalker, enemy, anomaly_name, event_name, armor, weapons, items,
          artifacts, intellect, sneak, flee_at, heal_at, enter, scenario, metric, out, workers,
          scheduler, trials, seed, rules_dir, fmt, threads):
    """Vary card values over a grid and run an experiment at every point.

    Each --vary names one cell, table.card.column, and its values: a..b for
    the integers a to b inclusive, or a comma list. The grid is the cross
    product of all --vary (the first varies slowest); every point runs on
    the same seed (common random numbers), so differences between points are
    the card changes, not noise. Prints one row per point and card with the
    --metric; writes the whole tidy table (every metric with _ci_low,
    _ci_high and _exact columns) as sweep.csv and sweep.parquet, a line plot
    (one --vary) or heatmaps (two), and metadata.json into --out.

    \b
    Example:
      zonesim sweep --stalker Strelok --enemy Bloodsucker --weapon AK-74 \\
        --vary enemies.Bloodsucker.endurance=2..6 --vary "armor.Ecolog suit.durability=3,4,5" \\
        --armor "Ecolog suit"
      zonesim sweep --experiment event --stalker Ghost --item Dosimeter \\
        --vary "events.Radiation spike.avoid_on=3..6" --metric avoided --format json
      zonesim sweep --stalker Strelok --enemy all --weapon AK-74 --artifact Crystal \
        --heal-at 3 --vary artifacts.Crystal.value=1..4
    """
    rs = common.load_rules_or_exit(rules_dir)
    if experiment == "campaign":
        from sim.rules.scenario import load_scenario
        rs = load_scenario(scenario).ruleset
    if metric is None:
        metric = "p_sarcophagus" if experiment == "campaign" else "knocked_out"
    known = registry.experiment(experiment).sweep_metrics
    if metric not in known:
        raise click.BadParameter(f"{metric!r} is not a {experiment} metric"
                                 + suggest(metric, known) + f" (known: {', '.join(known)})",
                                 param_hint="--metric")
    params = _params(experiment, stalker, enemy, anomaly_name, event_name, armor, weapons, items,
                     sneak, flee_at, heal_at, enter, scenario, artifacts, intellect)
    from sim.report.writer import RESULTS_DIR, default_folder, refuse_existing, write_sweep
    folder = out if out is not None else default_folder("sweep", RESULTS_DIR)
    with common.writing_results():
        try:
            refuse_existing(folder)
        except FileExistsError as error:
            raise click.ClickException(str(error)) from None
        probe(folder)
        bar = common.bar()
        with runner.reporting(None):  # one bar over the grid's points, not one per point
            result = run_sweep(rs, varies, experiment, params, trials=trials, seed=seed,
                               workers=workers, scheduler=scheduler, threads=threads,
                               progress=bar.points if bar.enabled else None)
        if metric not in result.metrics:
            raise click.BadParameter(f"{metric!r} is not a metric of this sweep "
                                     f"(known: {', '.join(result.metrics)})",
                                     param_hint="--metric")
        written = write_sweep(result, folder, metric)
    if written != folder:
        click.echo(f"zonesim sweep: {folder} was taken meanwhile; written beside it", err=True)
    _emit(result, metric, fmt, written)


def _emit(result, metric: str, fmt: str, folder: Path) -> None:
    frame = result.frame
    keys = ["point", *result.parameter_columns,
            *[c for c in ("enemy", "anomaly", "event") if c in frame.columns]]
    chosen = frame[[*keys, metric, f"{metric}_ci_low", f"{metric}_ci_high", f"{metric}_exact"]]
    if fmt == "json":
        doc = result.to_dict()
        doc["folder"] = str(folder)
        click.echo(common.dumps(doc))
        return
    if fmt == "csv":
        click.echo(frame.to_csv(index=False, float_format="%.6g"), nl=False)
        click.echo(f"zonesim sweep: written to {folder}", err=True)
        return
    rows = []
    for record in chosen.to_dict(orient="records"):
        cell = {key: None if pd.isna(record[column]) else record[column]
                for key, column in (("mc", metric), ("ci_low", f"{metric}_ci_low"),
                                    ("ci_high", f"{metric}_ci_high"),
                                    ("exact", f"{metric}_exact"))}
        rows.append(compact({**{k: record[k] for k in keys}, metric: cell}, tuple(keys)))
    title = (f"sweep: {result.experiment}, {len(result.points)} points, {result.trials} trials "
             f"per point, seed {result.seed} at every point; {result.backend}, "
             f"{result.wall_s:.1f} s; cells: estimate ±95% half-width (exact)")
    common.emit_frame(chosen, fmt, {}, title, pd.DataFrame(rows))
    click.echo(f"written to {folder}")
