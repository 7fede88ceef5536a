"""``zonesim compare skirmish``: battlefield values of a skirmish scenario on common random numbers.

The sweep's ``--experiment skirmish`` (:mod:`sim.cli.sweep`) prints through
:func:`emit_battlefield` too; the arithmetic is :mod:`sim.workflows.battlefield`'s.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from sim.cli import common
from sim.rules.errors import RulesetError
from sim.rules.skirmish_loader import load_scenario


def load_or_exit(scenario: Path | None):
    """The validated scenario, or every problem of the file on stderr and exit status 2."""
    try:
        return load_scenario(scenario)
    except RulesetError as error:
        for problem in error.problems:
            click.echo(str(problem), err=True)
        n = len(error.problems)
        click.echo(f"zonesim: {n} problem{'s' if n != 1 else ''} in the scenario", err=True)
        sys.exit(2)


VARY_HELP = ("A battlefield value and its values: KEY=V1,V2,... or KEY=a..b, KEY one of "
             "buildings.NAME.floors, buildings.NAME.openings.N, cover.NAME.units, "
             "cover.NAME.kind, as in 'zonesim skirmish --vary' (repeatable; the grid is the "
             "cross product, the first point the baseline).")
PAIRED_TRIALS = 20_000


def emit_battlefield(comparison, metrics, fmt: str, title: str) -> None:
    """Print a :class:`~sim.workflows.battlefield.BattlefieldComparison` (table, CSV or JSON)."""
    import pandas as pd

    from sim.workflows.battlefield import ROW_KEYS
    rows = comparison.rows(metrics or None)
    frame = pd.DataFrame(rows, columns=list(ROW_KEYS))
    common.emit_frame(frame, fmt, comparison.to_dict(metrics or None), title)


@click.command("skirmish", cls=common.Command)
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option("--vary", "varies", multiple=True, required=True, metavar="KEY=VALUES",
              help=VARY_HELP)
@click.option("--metric", "metrics", multiple=True, metavar="NAME",
              help="Show only this metric (repeatable): p_draw, rounds, p_win, p_broken, "
                   "p_withdrew, casualties, lost, surrendered (default: all).")
@common.trials_option(PAIRED_TRIALS)
@common.seed_option
@common.format_option
@common.threads_option
@common.quiet_option
def compare_skirmish(scenario: Path, varies: tuple[str, ...], metrics: tuple[str, ...],
                     trials: int, seed: int, fmt: str, threads: int | None) -> None:
    """Compare battlefield values of a skirmish scenario on common random numbers.

    Each --vary names a battlefield value as 'zonesim skirmish --vary' does;
    every point of their grid plays the same fights on the same dice, so the
    paired difference to the first point (the baseline) has a tight 95 %
    interval, and a value that never reaches the fight differs by exactly 0.
    Rows: point, side, metric, estimate with interval, difference to the
    baseline with interval, and a verdict (higher / lower, or "no detectable
    difference" when the interval contains 0).

    \b
    Example:
      zonesim compare skirmish configs/skirmish/field_cover.toml \
        --vary "cover.Stone wall.units=1,2" --trials 2000 --metric p_win
      zonesim compare skirmish configs/skirmish/street_buildings.toml \
        --vary buildings.Shop.floors=2..3 --vary "buildings.Shop.openings.3=window,none"
    """
    from sim.workflows.battlefield import check_metrics, compare_battlefield
    check_metrics(metrics)
    chosen = load_or_exit(scenario)
    comparison = compare_battlefield(chosen, varies, trials=trials, seed=seed, threads=threads)
    title = (f"{chosen.name} ({chosen.path}); {trials} fights per point, seed {seed}, the same "
             "dice for every point; diff = paired difference to the first point; ci = 95% "
             "interval")
    emit_battlefield(comparison, metrics, fmt, title)
