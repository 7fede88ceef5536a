"""``zonesim optimize``: the best policy over whole games, re-evaluated on fresh games."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from sim.cli import INTERRUPTED, common
from sim.rules.scenario import load_scenario
from sim.workflows import optimize as library
from sim.workflows.policy_space import KEYS, in_words
from sim.workflows.scenario_toml import write_scenario
from sim.workflows.sweep import check_scheduler


@click.command(cls=common.Command)
@click.argument("scenario", required=False, default="base")
@click.option("--metric", default=None, show_default=library.METRIC,
              help="The per-game campaign metric to maximise (or minimise, by its direction).")
@click.option("--constraint", multiple=True, metavar="TEXT",
              help="A target the best must not fail, e.g. 'days.median <= 16' or "
                   "'p_final_emission <= 0.1' (a FAIL: its whole 95 % interval outside); "
                   "one at most.")
@click.option("--stalker", default=None, metavar="NAME|all",
              help="Play this stalker card instead of the scenario's (his Health, his money); "
                   "all: each card with his own best policy, and the spread between them.")
@click.option("--seat", type=common.small_int(1), default=None, metavar="N",
              help="A multiplayer scenario's seat whose policy and loadout are searched (the "
                   "other seats play theirs); its metrics: seat_win (default), seat_deaths.")
@click.option("--keys", default=None, metavar="K1,K2",
              help=f"Policy keys to search (default all: {', '.join(KEYS)}).")
@click.option("--trials", type=click.IntRange(1, common.MAX_TRIALS), default=library.TRIALS,
              show_default=True, help="Games per candidate at a race's first rung (doubled "
                                      f"at each rung, {library.RUNGS} rungs at most).")
@click.option("--budget", type=click.IntRange(1, common.MAX_TRIALS), default=library.BUDGET,
              show_default=True, help="Games the selection may play in all (at most "
                                      f"{library.MAX_BUDGET:.0e}: each game's values are kept).")
@click.option("--fresh-trials", type=click.IntRange(1, common.MAX_TRIALS),
              default=library.FRESH_TRIALS, show_default=True,
              help="Fresh games of the best, the runner-up, the scenario's policy and the "
                   "naive one (never flee, no stimulants, sneak, nearest route); at most "
                   f"{library.MAX_FRESH_TRIALS:.0e}.")
@click.option("--passes", type=common.small_int(1), default=library.PASSES,
              show_default=True, help="Passes over the keys at most.")
@click.option("--replicate/--no-replicate", default=True, show_default=True,
              help="Search again with the same budget on selection games of its own and "
                   "play its best on the same fresh games: how far the search is from "
                   "converged (twice the games of selection).")
@click.option("--top", type=common.small_int(1), default=10, show_default=True,
              help="Candidates listed.")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write the best policy as a scenario file (comments say what changed).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Play each rung's candidates on a Dask distributed cluster (e.g. "
                   "tcp://host:8786), one task per candidate; results do not depend on it.")
@common.seed_option
@common.format_option
@common.threads_option
@common.quiet_option
def optimize(scenario, metric, constraint, stalker, seat, keys, trials, budget, fresh_trials,
             passes, replicate, top, out, scheduler, seed, fmt, threads):
    """Search the scenario's policy and loadout for the best win rate over whole games.

    SCENARIO (default: base) is a one-stalker scenario, or a multiplayer one
    with --seat N: seat N's policy and loadout are searched while the other
    seats play theirs, for that seat's win (P-45). Its {searched}, a changed
    kit paid for or refunded at the cards' prices out of the starting money
    and never beyond it, are searched one at a time, each
    key's values racing on common random numbers by successive halving
    (clearly worse ones dropped when their paired 95 % interval to the
    leader lies below 0), until a pass over the keys changes nothing. The
    best policy, the runner-up, the scenario's own and a naive one (never
    flee, no stimulants, sneak, nearest route) are then played on fresh
    games, never used in the selection, and those numbers are reported: no
    winner's curse. A second search on selection games of its own
    (--replicate, the default) plays its best on the same fresh games: the
    same policy, or its paired difference to the best, says how far the
    search is from converged at this budget. Same seed, same result, for
    any --threads.
    A value that plays the incumbent's very games on a race's first rung
    has no effect and plays no more; a small --budget plays every race's
    first rung on fewer than --trials games (at least 100) so that every
    key is raced, and a race never spends the first rungs of the keys
    after it. Keys the budget still left unraced are named on the table's
    first line and in the JSON's "not_searched" (the exit status stays 0:
    the best found among the keys raced is still reported).
    Ctrl-C prints the best so far (not re-evaluated) and exits with 130.

    \b
    Example:
      zonesim optimize base --keys medkit_at,retreat_at --trials 500 --budget 50000 \\
        --fresh-trials 5000
      zonesim optimize base --out best.toml && zonesim report best.toml
      zonesim optimize base --stalker Ghost
      zonesim optimize base --stalker all --budget 200000 --fresh-trials 20000
      zonesim optimize base --constraint "days.median <= 16" --format json
      zonesim optimize four_stalkers --seat 2 --keys flee_at,heal_at --budget 100000 \\
        --fresh-trials 20000
    """
    if len(constraint) > 1:
        raise click.BadParameter(f"given {len(constraint)} times "
                                 f"({', '.join(map(repr, constraint))}): the search judges "
                                 "one constraint; give one", param_hint="--constraint")
    constraint = constraint[0] if constraint else None
    library.check_games(budget, fresh_trials)
    if scheduler is not None:
        check_scheduler(scheduler)
    if out is not None:
        _check_out(out)
    chosen = load_scenario(scenario)
    if seat is not None and chosen.multiplayer and (out is not None or stalker == ALL):
        raise click.BadParameter("with --seat, --out and --stalker all are not available yet: "
                                 "the seat's best policy is printed", param_hint="--seat")
    bar = common.bar()
    options = {"metric": metric, "constraint": constraint, "keys": keys, "trials": trials,
               "budget": budget, "fresh_trials": fresh_trials, "passes": passes, "seed": seed,
               "threads": threads, "top": top, "scheduler": scheduler, "replicate": replicate}
    if stalker == ALL:
        if out is not None:
            raise click.BadParameter("--out writes one scenario: give one --stalker",
                                     param_hint="--out")
        _characters(chosen, bar, options, fmt)
        return
    bar.expect(library.most_games(budget, fresh_trials, replicate))
    result = library.optimize(chosen, metric=metric, constraint=constraint, keys=keys,
                              trials=trials, budget=budget, fresh_trials=fresh_trials,
                              passes=passes, seed=seed, threads=threads, top=top,
                              scheduler=scheduler, stalker=stalker, seat=seat,
                              replicate=replicate)
    if out is not None and result.stopped != "interrupted":
        write_scenario(chosen, dict(result.winner.overrides), out, result.toml_header(),
                       stalker)
    doc = {**result.to_dict(), "out": None if out is None else str(out)}
    who = result.stalker if result.seat is None else f"seat {result.seat}, {result.stalker}"
    title = (f"optimize {result.objective.metric.name} of {chosen.name} ({who}): "
             f"seed {seed}, "
             f"{result.played:,} games of selection in {result.races} races "
             f"({result.stopped}), common random numbers")
    if fmt == "table":
        if result.budget_line() is not None:
            click.echo(result.budget_line())
        click.echo(title)
        for line in result.lines():
            click.echo(line)
        click.echo("keys:")
        click.echo(result.keys_frame().to_string(index=False, float_format=lambda x: f"{x:.4f}"))
        if result.top:
            click.echo("top candidates (selection games, biased upward; minus the best: "
                       "paired):")
            click.echo(result.top_table().to_string(index=False))
        if out is not None and result.stopped != "interrupted":
            click.echo(f"written to {out}")
    else:
        common.emit_frame(result.to_frame(), fmt, doc, title)
    if result.stopped == "interrupted":
        click.echo("zonesim: interrupted; the best so far is printed, nothing was written",
                   err=True)
        sys.exit(INTERRUPTED)


optimize.help = optimize.help.replace("{searched}", in_words())

ALL = "all"
"""``--stalker all``: every stalker card of the ruleset."""


def _check_out(out: Path) -> None:
    """Refuse, before the search, an ``--out`` that exists (a dangling link included), whose
    folder is missing, or where no file can be made: as ``report``, ``sweep`` and ``levers``
    refuse theirs, a scenario is never overwritten.
    """
    from sim.report.staging import WriteError, probe
    from sim.report.writer import refuse_existing

    if not out.parent.is_dir():
        raise click.BadParameter(f"{str(out)!r}: folder {str(out.parent)!r} does not exist",
                                 param_hint="--out")
    try:
        refuse_existing(out)
        probe(out)
    except (FileExistsError, WriteError) as error:
        raise click.BadParameter(str(error), param_hint="--out") from None


def _characters(chosen, bar, options: dict, fmt: str) -> None:
    """``--stalker all``: each character's best play, then the spreads."""
    from sim.workflows.best_characters import best_characters, characters_games

    bar.expect(characters_games(chosen, options["budget"], options["fresh_trials"],
                                options["replicate"]))
    result = best_characters(chosen, **options)
    title = (f"optimize {options['metric'] or library.METRIC} of {chosen.name}, every "
             f"character his own best policy: seed {options['seed']}; fresh games, 95 % "
             "intervals")
    emit_characters(result, fmt, title)


def emit_characters(result, fmt: str, title: str) -> None:
    """Every character's best play (a :class:`~sim.workflows.best_characters.Characters`).

    The table, JSON or CSV, the spreads under it; exit 130 after a Ctrl-C.
    """
    common.emit_rows(result.to_frame, fmt, result.to_dict(), title, result.table_rows(),
                     result.spread_lines())
    if result.interrupted:
        click.echo("zonesim: interrupted; the characters before it are printed", err=True)
        sys.exit(INTERRUPTED)

