"""``zonesim explain``: why a paired difference, as paths of the games that changed."""

from __future__ import annotations

import click

from sim.cli import common

DEFAULT_TRIALS = 5_000
"""Games of each variant: the win rate's paired difference to within about +-0.02 (95 %);
each changed game is then played again, twice, with a trace log (some 15 ms a game)."""


@click.command(cls=common.Command)
@click.argument("scenario", required=False, default="base")
@click.option("--variant", required=True, metavar="SPEC",
              help="The variant, in the compare grammar ('item+=Jetpack', "
                   "'edit=enemies.Bloodsucker.endurance=6', 'artifacts=Jellyfish').")
@click.option("--baseline", default="", metavar="SPEC",
              help="The baseline, same grammar ('' = the scenario as it is, the default).")
@click.option("--metric", default="p_sarcophagus", show_default=True,
              type=click.Choice(["p_sarcophagus", "p_reach_sarcophagus", "p_final_emission",
                                 "game_days"]),
              help="The per-game metric whose difference is explained.")
@common.trials_option(DEFAULT_TRIALS)
@common.seed_option
@common.format_option
@common.threads_option
@common.quiet_option
def explain(scenario, variant, baseline, metric, trials, seed, fmt, threads):
    """Explain a paired difference: where the games that changed diverged, and what followed.

    Baseline and variant play the same --trials games (game t of each on the
    random numbers of (seed, t)). Every game whose metric differs is played
    again with a trace log (as `zonesim campaign --trace t`) under both, and
    the first event that differs is found: the route, a fight and with which
    card, an anomaly, an event card, an Emission, or only the day count. Games
    that diverged alike and ended alike form a path; each path's share is its
    games' paired differences over all games, with its 95 % interval, largest
    first, and the shares add up to the paired difference (diff). The
    example_game column is a game to trace (--trace N, with and without the
    variant) to see the path happen.

    \b
    Example:
      zonesim explain base --variant "item+=Jetpack" --trials 5000
      zonesim explain base --variant "artifacts=Jellyfish" --trials 5000 --format json
      zonesim explain base --variant "item+=Jetpack" --metric game_days --trials 2000
    """
    import pandas as pd

    from sim.errors import visible
    from sim.rules.scenario import load_scenario
    from sim.workflows.explain import explain as run

    chosen = load_scenario(scenario)
    result = run(chosen, variant, baseline, metric=metric, trials=trials, seed=seed,
                 threads=threads)
    data = {"scenario": chosen.name, **result.to_dict()}
    frame = pd.DataFrame(result.paths, columns=["what", "games", "share", "share_ci_low",
                                                "share_ci_high", "example_game"])
    title = (f"explain: {chosen.name}; {metric}, variant {result.labels[1]!r} minus baseline "
             f"{result.labels[0]!r}: diff {result.diff:+.4f} "
             f"(95% {result.diff_ci_low:+.4f} .. {result.diff_ci_high:+.4f}); "
             f"{result.changed} of {trials} games changed, seed {seed}; paths largest first, "
             "their shares add up to diff")
    if fmt == "table":
        shown = frame.copy()
        for column in ("share", "share_ci_low", "share_ci_high"):
            shown[column] = [f"{x:+.4f}" for x in frame[column]]
        click.echo(visible(title))
        click.echo(shown.to_string(index=False))
        click.echo(f"\nthe {result.changed} changed games, per game (seat 1):")
        followed = pd.DataFrame(result.followed)[["what", "baseline", "variant", "diff"]]
        click.echo(followed.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
        return
    common.emit_frame(frame, fmt, data, title)
