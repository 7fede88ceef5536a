"""``zonesim readings``: which documented reading of an open rule moves the win rate most."""

from __future__ import annotations

import click

from sim.cli import common
from sim.experiments.campaign_metrics import WIN_RATE

DEFAULT_GAMES = 50_000
"""Games per reading: a change in the win rate to within about +-0.006 (95 %, paired), for the
34 readings of the base set about 10 s on two cores."""


@click.command(cls=common.Command)
@click.argument("scenario", required=False, default="base")
@common.trials_option(DEFAULT_GAMES)
@common.seed_option
@common.threads_option
@common.quiet_option
@common.format_option
def readings(scenario, trials, seed, threads, fmt):
    """Rank the documented readings of the open rules by how much they move the win rate.

    SCENARIO (default: base; a bundled name or a scenario file) gives the
    ruleset, stalker, loadout and policy. Every switch and every choice of a
    rules.toml key documented in docs/rules.md ("Assumptions" and the key
    tables) is set to each of its other documented values, one at a time,
    and plays --trials whole games (per reading) on the same seed as the
    unchanged ruleset (common random numbers), so each change of the win
    rate, p_sarcophagus (reach and survive the Sarcophagus), has a paired
    95 % interval; each scenario target on a per-game metric is judged
    under each reading. Largest absolute change first. Readings the rules
    refuse, or whose game cannot be set up, are listed with the reason and
    never stop the run; readings that leave the compiled game unchanged are
    marked "no effect" without being played. Results do not depend on
    --threads.

    A multiplayer or cooperative scenario plays every seat: each reading
    gives the paired change of the first-seat advantage (seat 1's win minus
    the others' mean), of each seat's win (seat_win) and of p_nobody_wins,
    ranked by the largest of them; the turn-order and first-player readings
    act there.

    \b
    Example:
      zonesim readings
      zonesim readings base --trials 200000 --seed 7 --format json
      zonesim readings configs/scenarios/base.toml --format csv > readings.csv
      zonesim readings three_stalkers --trials 5000
    """
    from sim.report import labels
    from sim.report import readings as shown
    from sim.rules.scenario import load_scenario
    from sim.workflows.readings import run_readings

    sc = load_scenario(scenario)
    bar = common.bar()
    result = run_readings(sc, trials=trials, seed=seed, threads=threads,
                          progress=bar.points if bar.enabled else None)
    if result.metric == WIN_RATE:
        base = result.baseline[WIN_RATE]
        measured = (f"win rate as the ruleset is "
                    f"{labels.percent(base['mc'], base['ci_low'], base['ci_high'])}")
    else:
        measured = "as the ruleset is: " + ", ".join(
            f"{name} {labels.percent(c['mc'], c['ci_low'], c['ci_high'])}"
            for name, c in result.baseline.items())
    title = (f"readings of the rules: {sc.name}; {measured}; "
             f"{trials} games per reading, seed {seed}, common random numbers; "
             f"{len(result.rows)} readings, {len(result.skipped)} skipped; "
             f"{result.wall_s:.1f} s")
    common.emit_frame(result.ranking(), fmt, result.to_dict(), title, shown.shown(result))
    if fmt == "table":
        for line in shown.skipped_lines(result):
            click.echo(f"skipped: {line}")
        if result.unpaired:
            click.echo("targets without a per-game metric (not judged per reading): "
                       + ", ".join(result.unpaired))
