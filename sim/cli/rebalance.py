"""``zonesim rebalance``: the fewest card edits that meet every balance target (issue 48)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from sim.cli import INTERRUPTED, common
from sim.errors import visible
from sim.rules.scenario import load_scenario
from sim.workflows import rebalance as library

NOT_MET = 3
"""Exit status when no edit set found within the budget meets every target."""


@click.command(cls=common.Command)
@click.argument("scenario", required=False, default="base")
@click.option("--target", "targets", multiple=True, metavar="TEXT",
              help="A balance target (repeatable; default: the scenario's [targets]): "
                   "'METRIC in A..B', 'METRIC <= X' or 'METRIC >= X' over a campaign metric "
                   "(p_sarcophagus, days.median, ...), character_spread, or an encounter "
                   "metric of a card, e.g. 'combat:Chimera:knocked_out <= 0.8' (exact).")
@click.option("--lever", "levers", multiple=True, metavar="PATTERN",
              help="Values that may move (repeatable; default: every numeric card value and "
                   "rule key zonesim levers moves), e.g. 'stalkers.*.health', "
                   "'enemies.Bloodsucker.*', 'items.*.price'.")
@click.option("--max-edits", type=click.IntRange(1, 5), default=library.MAX_EDITS,
              show_default=True, help="Edits of a set at most.")
@click.option("--play", type=click.Choice(library.PLAYS), default="scenario",
              show_default=True,
              help="Judge the sets under the scenario's policy and loadout, or under best "
                   "play (the policy and loadout searched again for the edited cards).")
@click.option("--budget", type=click.IntRange(1, common.MAX_TRIALS), default=library.BUDGET,
              show_default=True, metavar="GAMES",
              help="Games the selection (screening and halving) may play in all.")
@common.trials_option(library.FRESH_TRIALS)
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the best-play searches' rungs on a Dask distributed cluster (e.g. "
                   "tcp://host:8786), as zonesim optimize; results do not depend on it.")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Write a folder: ruleset/ (the scenario's ruleset with the edits), "
                   "scenario.toml (the scenario on it), rebalance.csv, metadata.json.")
@common.seed_option
@common.format_option
@common.threads_option
@common.quiet_option
def rebalance(scenario, targets, levers, max_edits, play, budget, trials, scheduler, out, seed,
              fmt, threads):
    """Find the fewest card edits that meet every balance target, with honest intervals.

    SCENARIO (default: base) is a one-stalker scenario, or a multiplayer one
    (targets on seat_spread, p_nobody_wins and seat 1's campaign metrics;
    --play scenario). Every lever is moved
    one step each way on common random numbers (screening, as zonesim levers);
    sets of up to --max-edits edits that the one-step effects predict best are
    raced by successive halving, ranked by the targets not met (met: the whole
    95 % interval in the band; an encounter's exact value in it), then the
    distance outside the bands, then the number of edits, then their size
    relative to each lever's range. The chosen set, the runner-up, the Pareto
    alternatives (fewer edits meeting fewer targets) and the unchanged game
    are then played on --trials fresh games per character, none of the
    selection's, paired; only those numbers are reported, under the
    scenario's play and under best play (a smaller search under --play
    scenario). An edit the rules refuse is skipped and listed. Same seed,
    same result, for any --threads.

    Exit status: 0 when the chosen set meets every target on the fresh games,
    3 when no set found within the budget meets every target (the closest
    sets are printed with the targets they miss), 2 for bad input, 130 after
    Ctrl-C (the best so far is printed, marked as not re-evaluated).

    \b
    Example:
      zonesim rebalance base --target "combat:Bloodsucker:knocked_out in 0.2..0.4" \\
        --lever "enemies.Bloodsucker.*"
      zonesim rebalance base --target "p_sarcophagus in 0.40..0.50" \\
        --target "character_spread <= 0.05" --lever "stalkers.*.*" --budget 200000 \\
        --trials 20000
      zonesim rebalance base --target "p_sarcophagus >= 0.4" --play best --out fixed
      zonesim report fixed/scenario.toml --baseline base
    """
    if scheduler is not None:
        from sim.workflows.sweep import check_scheduler

        check_scheduler(scheduler)
    if out is not None:
        _check_out(out)
    chosen = load_scenario(scenario)
    bar = common.bar()
    result = library.rebalance(chosen, list(targets) or None, list(levers) or None,
                               max_edits=max_edits, play=play, budget=budget,
                               fresh_trials=trials, seed=seed, threads=threads,
                               scheduler=scheduler, progress=bar.note)
    written = None
    if out is not None and result.stopped != library.INTERRUPTED:
        from sim.report.rebalance import write_rebalance

        with common.writing_results():
            written = write_rebalance(result, chosen, out)
    doc = {**result.to_dict(), "out": None if written is None else str(written)}
    title = (f"rebalance {chosen.name}: {', '.join(str(g) for g in result.goals)}; "
             f"{library.PLAY_WORDS[play]}; seed {seed}; {result.played:,} games of "
             f"selection ({result.levers} levers, {result.screened} moves screened, "
             f"{result.inert} inert; {result.stopped}); common random numbers")
    if fmt == "table":
        click.echo(visible(title))
        for line in result.lines():
            click.echo(visible(line))
        if written is not None:
            click.echo(f"written to {common.shown_path(written)}")
    else:
        common.emit_frame(result.frame(), fmt, doc, title)
    if result.stopped == library.INTERRUPTED:
        click.echo("zonesim: interrupted; the best so far is printed, not re-evaluated, "
                   "nothing was written", err=True)
        sys.exit(INTERRUPTED)
    if not result.all_met:
        sys.exit(NOT_MET)


def _check_out(out: Path) -> None:
    """Refuse, before the search, an ``--out`` that exists or cannot be made."""
    from sim.report.staging import WriteError, probe
    from sim.report.writer import refuse_existing

    try:
        refuse_existing(out)
        probe(out)
    except (FileExistsError, WriteError) as error:
        raise click.BadParameter(str(error), param_hint="--out") from None
