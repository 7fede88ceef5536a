"""``zonesim skirmish``: who wins a firefight between two groups (seed 003)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import pandas as pd

from sim.cli import common
from sim.cli.battlefield import load_or_exit
from sim.experiments.skirmish import simulate
from sim.skirmish.vary import parse as parse_vary
from sim.skirmish.vary import variants

DEFAULT_TRIALS = 200_000


@click.command(cls=common.Command)
@click.argument("scenario", required=False, type=click.Path(path_type=Path))
@common.trials_option(DEFAULT_TRIALS)
@common.seed_option
@common.threads_option
@common.quiet_option
@common.format_option
@click.option("--plot", "plot", type=click.Path(path_type=Path), default=None,
              help="On a battlefield scenario: write a PNG of the battlefield with where "
                   "figures fell and fired from.")
@click.option("--vary", "vary", default=None, metavar="KEY=V1,V2,...",
              help="On a battlefield scenario: play it once per value of one battlefield "
                   "value (buildings.NAME.floors, buildings.NAME.openings.N, "
                   "cover.NAME.units, cover.NAME.kind), on the same seed.")
def skirmish(scenario: Path | None, trials: int, seed: int, threads: int | None,
             fmt: str, plot: Path | None, vary: str | None) -> None:
    """Play a firefight scenario many times (S-07..S-43): wins, breaks, casualties, rounds.

    SCENARIO is a scenario file (default: the bundled
    configs/skirmish/street.toml); its rules come from its 'ruleset' key or
    the bundled configs/skirmish/rules.toml. Every number has a 95 %
    interval; a bad file prints every problem and exits with status 2. On a
    scenario with a [battlefield] each side also reports the figures that
    surrendered (S-38, S-39), and --plot draws the table.

    \b
    Example:
      zonesim skirmish configs/skirmish/duel.toml --trials 1000000 --format json
      zonesim skirmish configs/skirmish/street_buildings.toml --plot street.png
      zonesim skirmish configs/skirmish/field_cover.toml --vary "cover.Stone wall.units=1,2"
    """
    chosen = load_or_exit(scenario)
    if plot is not None and chosen.battlefield is None:
        click.echo(f"zonesim: option '--plot': {chosen.path} has no [battlefield] to draw",
                   err=True)
        sys.exit(2)
    if vary is not None:
        key, values = parse_vary(vary)
        runs = [(v, simulate(s, trials=trials, seed=seed, threads=threads))
                for v, s in zip(values, variants(chosen, key, values), strict=True)]
        frame = pd.concat([r.to_frame().assign(variant=f"{key}={v}") for v, r in runs])
        frame = frame[["variant", *frame.columns[:-1]]]
        title = (f"{chosen.name} ({chosen.path}); {trials} fights per value of {key}, seed "
                 f"{seed} (the same dice for every value); ci = 95% interval")
        common.emit_frame(frame, fmt, {"vary": key, "variants": [
            {"value": v, **r.to_dict()} for v, r in runs]}, title)
        return
    result = simulate(chosen, trials=trials, seed=seed, threads=threads)
    title = (f"{result.scenario} ({result.path}); {result.trials} fights, seed {result.seed}; "
             "ci = 95% interval (Wilson for p_*, normal for means)")
    common.emit_frame(result.to_frame(), fmt, result.to_dict(), title)
    if plot is not None:
        from sim.report import plots  # matplotlib only when a plot is asked for

        plots.save(plots.battlefield_figure(chosen, result), plot)

