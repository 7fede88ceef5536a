"""``zonesim skirmish``: who wins a firefight between two groups (seed 003)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from sim.cli import common
from sim.experiments.skirmish import simulate
from sim.rules.errors import RulesetError
from sim.rules.skirmish_loader import load_scenario

DEFAULT_TRIALS = 200_000


@click.command(cls=common.Command)
@click.argument("scenario", required=False, type=click.Path(path_type=Path))
@common.trials_option(DEFAULT_TRIALS)
@common.seed_option
@common.threads_option
@common.quiet_option
@common.format_option
def skirmish(scenario: Path | None, trials: int, seed: int, threads: int | None,
             fmt: str) -> None:
    """Play a firefight scenario many times (S-07..S-43): wins, breaks, casualties, rounds.

    SCENARIO is a scenario file (default: the bundled
    configs/skirmish/street.toml); its rules come from its 'ruleset' key or
    the bundled configs/skirmish/rules.toml. Every number has a 95 %
    interval; a bad file prints every problem and exits with status 2.

    \b
    Example:
      zonesim skirmish configs/skirmish/duel.toml --trials 1000000 --format json
    """
    try:
        chosen = load_scenario(scenario)
    except RulesetError as error:
        for problem in error.problems:
            click.echo(str(problem), err=True)
        n = len(error.problems)
        click.echo(f"zonesim: {n} problem{'s' if n != 1 else ''} in the scenario", err=True)
        sys.exit(2)
    result = simulate(chosen, trials=trials, seed=seed, threads=threads)
    title = (f"{result.scenario} ({result.path}); {result.trials} fights, seed {result.seed}; "
             "ci = 95% interval (Wilson for p_*, normal for means)")
    common.emit_frame(result.to_frame(), fmt, result.to_dict(), title)
