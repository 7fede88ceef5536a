"""``zonesim report``: the standard battery on a scenario, written as one results folder."""

from __future__ import annotations

from pathlib import Path

import click

from sim.cli import common
from sim.report import build


@click.command(cls=common.Command)
@click.argument("scenario", required=False)
@common.trials_option(build.DEFAULT_TRIALS)
@click.option("--campaign-trials", type=click.IntRange(min=1, max=common.MAX_TRIALS),
              default=build.DEFAULT_CAMPAIGN_TRIALS, show_default=True,
              help="Games for the campaign statistics.")
@common.seed_option
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Results folder to create (default: results/<scenario>-<timestamp>/).")
@click.option("--baseline", default=None, metavar="SCENARIO|DIR",
              help="Report against a baseline: another scenario (file or bundled name), or a "
                   "ruleset folder played with SCENARIO's stalker, loadout and policy. The "
                   "first section lists every changed cell, what moved beyond noise (paired "
                   "differences on common random numbers) and the flipped verdicts; every "
                   "table shows baseline -> changed (difference); diff.csv holds every number.")
@common.format_option
@common.quiet_option
def report(scenario, trials, campaign_trials, seed, out, baseline, fmt):
    """Run the standard battery on a scenario and write a report folder.

    SCENARIO is a bundled scenario name or a scenario file (default: the
    bundled base scenario). The battery: the enemy, anomaly and event deck
    tables for the scenario's stalker, loadout and policy; item comparisons
    (event items on the event deck, escape items and armours on the enemy
    deck, on common random numbers); the campaign statistics; every
    documented reading of an open rule against the ruleset's own, on
    --campaign-trials / 10 paired games each (the first screen names the
    three that move the win rate most); and each target of the scenario
    judged PASS, FAIL or UNDECIDED on its 95 % interval. --trials counts
    trials per encounter table, --campaign-trials games. Writes
    results/<scenario>-<timestamp>/ (report.md, a self-contained
    report.html, tables as CSV and Parquet, PNG plots, metadata.json) all
    at once: a failed run leaves no folder. Prints the
    headline numbers; progress goes to stderr when it is a terminal.

    With --baseline OTHER the battery runs on both with the same seed and
    the report compares them (before and after); the printed lines are the
    changed cells and what moved.

    \b
    Example:
      zonesim report
      zonesim report configs/scenarios/base.toml --seed 7 --campaign-trials 50000 --format json
      zonesim report base --baseline configs/base --trials 20000 --campaign-trials 20000
    """
    bar = common.bar()
    progress = (lambda line: bar.note(f"zonesim report: {line}")) if bar.enabled else None
    try:
        with common.writing_results():
            result = build.run_report(scenario, trials=trials, campaign_trials=campaign_trials,
                                      seed=seed, out=out, progress=progress, baseline=baseline)
    except FileExistsError as error:
        raise click.ClickException(str(error)) from None
    if fmt == "table" and result.before_after is not None:
        click.echo("changed cells:")
        click.echo(result.before_after["cells"].to_string(index=False))
        click.echo("moved beyond noise (paired, largest first):")
        click.echo(result.before_after["moved"].to_string(index=False))
    shown = build.readable_summary(result.summary)
    title = (f"report: {result.metadata['scenario']}; seed {seed}; {trials} trials per table, "
             f"{campaign_trials} games; {result.metadata['wall_s']:.1f} s")
    common.emit_frame(result.summary, fmt, result.to_dict(), title, shown)
    if fmt == "table":
        click.echo(f"written to {common.shown_path(result.folder)}")
    elif fmt == "csv":
        click.echo(f"zonesim report: written to {common.shown_path(result.folder)}", err=True)
