"""``zonesim levers``: which card value or rule key moves a metric most (issue 15 §3)."""

from __future__ import annotations

import os
from pathlib import Path

import click
import pandas as pd

from sim import runner
from sim.cli import common
from sim.experiments import registry
from sim.experiments.setups import base_setup
from sim.experiments.tables import cell_text
from sim.rules.scenario import load_scenario
from sim.workflows import levers as library
from sim.workflows.sweep import check_scheduler

TRIALS = {"campaign": 20_000}
"""Default trials per variant: whole games are slow, encounters fast."""
ENCOUNTER_TRIALS = 100_000


def _split(text: str | None) -> list[str] | None:
    return None if text is None else [t.strip() for t in text.split(",") if t.strip()]


@click.command(cls=common.Command)
@click.argument("scenario", required=False, default="base")
@click.option("--experiment", type=click.Choice(registry.NAMES),
              default="campaign", show_default=True,
              help="What to run: whole games of the scenario, or its stalker and loadout "
                   "meeting --card (" + ", ".join(e.name for e in registry.encounters()) + ").")
@click.option("--card", default="all", show_default=True,
              help="The card met, or 'all' (the deck by count): " + "; ".join(
                  f"{e.name}: one of its {e.card_table}" for e in registry.encounters()) + ".")
@click.option("--metric", default=None,
              show_default="; ".join(f"{e.default_metric} ({e.name})"
                                     for e in registry.experiments()),
              help="The metric whose change ranks the values.")
@click.option("--tables", default=None, metavar="T1,T2",
              help="Only values of these tables (enemies, items, ..., rules for rules.toml).")
@click.option("--cards", default=None, metavar="C1,C2",
              help="Only values of these cards (a rules.toml section counts as a card).")
@click.option("--target", "target_text", default=None, metavar="TEXT",
              help="Mark the single-value changes that reach it, e.g. "
                   "'p_sarcophagus in 0.45..0.55' (smallest change first).")
@click.option("--max-steps", type=click.IntRange(1, 50), default=1, show_default=True,
              help="With --target: steps tried each way per value.")
@click.option("--method", type=click.Choice(["steps", "morris"]), default="steps",
              show_default=True,
              help="steps: one value at a time, one step down and up; morris: SALib's Morris "
                   "screening of all values together (interactions; needs zonesim[levers]).")
@click.option("--trajectories", type=click.IntRange(2, 1000), default=10, show_default=True,
              help="Morris trajectories (each runs values + 1 points).")
@click.option("--top", type=click.IntRange(0, 100_000), default=20, show_default=True,
              help="Rows printed of each ranking (card values, rule keys) and levers "
                   "drawn (0: all); the folder has every row.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Results folder to create (default: results/levers-<timestamp>/).")
@click.option("--workers", type=common.small_int(1), default=os.cpu_count() or 1,
              show_default="the number of cores",
              help="Local worker processes; results do not depend on it.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the batches on a Dask distributed cluster (e.g. tcp://host:8786).")
@click.option("--trials", type=click.IntRange(min=1, max=common.MAX_TRIALS), default=None,
              show_default="20000 for campaign, 100000 otherwise",
              help="Monte Carlo trials of every variant.")
@common.seed_option
@click.option("--rules", "rules_dir", type=click.Path(), default=None,
              help="Ruleset folder to use instead of the scenario's.")
@common.format_option
@common.threads_option
@common.quiet_option
def levers(scenario, experiment, card, metric, tables, cards, target_text, max_steps, method,
           trajectories, top, out, workers, scheduler, trials, seed, rules_dir, fmt, threads):
    """Rank every numeric card value and rule key by how much one step moves a metric.

    SCENARIO (default: base) gives the ruleset, stalker, loadout and policy.
    Each numeric value (card cells; rules.toml keys; a step is 1, 100
    rubles for money, 1/20 of the range for a real key) is moved one step
    down and one step up, and each edit plays the same trials on the same
    seed as the unchanged ruleset (common random numbers), so each
    difference has a paired 95 % interval. Steps the rules refuse, or
    whose game cannot be set up (a map edit after which some hex cannot
    reach a bunker), are skipped, counted on one line and listed with the
    edit and the reason in refused.csv; they never stop the run. Edits that
    leave the compiled game unchanged are marked "no effect" without
    running. Prints the card values' ranking, then the rule keys' (largest
    effect first, --top rows each), then the five top levers and the first
    five changes reaching --target played again on fresh games (another
    seed, none of the ranking's dice): the figures to act on. Writes
    levers.csv, steps.csv, refused.csv, fresh.csv, a tornado chart and
    metadata.json into --out.

    \b
    Example:
      zonesim levers base --metric p_sarcophagus --tables enemies,items
      zonesim levers base --target "p_sarcophagus in 0.45..0.55" --max-steps 3
      zonesim levers base --experiment combat --card all --metric knocked_out --top 10
      zonesim levers base --method morris --cards Bloodsucker,Strelok --trajectories 20
      zonesim levers four_stalkers --tables rules --cards multiplayer --top 10

    A multiplayer or cooperative scenario plays every seat of the whole game (the
    multiplayer experiment of zonesim compare campaign); the default metric is then
    first_seat_advantage, and seat_win.K, p_nobody_wins (cooperative: p_team_wins)
    may be ranked or targeted.
    """
    if scheduler is not None:
        check_scheduler(scheduler)
    chosen = load_scenario(scenario)
    trials = trials or TRIALS.get(experiment, ENCOUNTER_TRIALS)
    exp = registry.for_scenario(experiment, chosen)  # a multiplayer game: every seat
    experiment = exp.name
    if exp.card_key is None and card != "all":
        raise click.UsageError("--card is for --experiment "
                               + ", ".join(e.name for e in registry.encounters()))
    rs = chosen.ruleset if rules_dir is None else common.load_rules_or_exit(rules_dir)
    setup = base_setup(experiment, chosen, card)
    if rules_dir is not None:
        common.rules_lack(rs, setup, rules_dir)
    target = _target(target_text)
    if method == "morris" and target is not None:
        raise click.UsageError("--target is for --method steps")
    if method != "morris" and common.given("trajectories"):
        raise click.UsageError("--trajectories is for --method morris")
    if target is None and common.given("max_steps"):
        raise click.UsageError("--max-steps is for --target: the steps tried each way "
                               "toward it (without a target every value moves one step)")
    kw = {"trials": trials, "seed": seed, "metric": metric, "tables": _split(tables),
          "cards": _split(cards), "workers": workers, "scheduler": scheduler,
          "threads": threads}
    library.check_metric(exp, metric or (target.metric if target else None), setup)
    from sim.report.levers import write_levers
    with common.results_folder(out, "levers") as (folder, bar):
        with runner.reporting(None):  # one bar over the batches, not one per kernel run
            kw["progress"] = bar.points if bar.enabled else None
            if method == "morris":
                from sim.workflows.morris import run_morris
                result = run_morris(rs, experiment, setup, trajectories=trajectories, **kw)
            else:
                result = library.run_levers(rs, experiment, setup, target=target,
                                            max_steps=max_steps, **kw)
        written = write_levers(result, folder, top)
    _emit(result, fmt, top, written)


def _target(text: str | None):
    return None if text is None else common.target(text)


def _emit(result, fmt: str, top: int, folder: Path) -> None:
    frame = result.ranking().head(top or None)
    if fmt == "json":
        doc = result.to_dict(top)
        doc["folder"] = str(folder)
        click.echo(common.dumps(doc))
        return
    if fmt == "csv":
        click.echo(common.csv_text(frame), nl=False)
        click.echo(f"zonesim levers: written to {common.shown_path(folder)}", err=True)
        return
    if hasattr(result, "trajectories"):
        click.echo(f"Morris screening of {result.metric} ({result.experiment}): "
                   f"{result.trajectories} trajectories, {result.evaluations} runs of "
                   f"{result.trials} trials, seed {result.seed}; effects per step")
        click.echo(frame.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    else:
        _print_steps(result, top, folder)
    click.echo(f"written to {common.shown_path(folder)}")


def _print_steps(result, top: int, folder: Path) -> None:
    """The answer first: the card values' ranking, then the rule keys', ``top`` rows each;
    then the baseline and the run, the values that act in no game, one line counting the
    refused steps (listed in the folder's refused.csv) and the target's changes.
    """
    from sim.report.levers import REFUSED
    b = result.baseline
    ranking = result.ranking()
    for kind, words in library.KINDS.items():
        frame = ranking[ranking["kind"] == kind]
        if frame.empty:
            continue
        shown = frame.head(top or None)
        click.echo(f"{words} that move {result.metric} most, one step each way "
                   f"({len(shown)} of {len(frame)}):")
        rows = [{"rank": r["kind_rank"], "value": r["path"], "now": f"{r['current']:g}",
                 "one step down": _side(r, "down"), "one step up": _side(r, "up")}
                for r in shown.to_dict(orient="records")]
        click.echo(pd.DataFrame(rows).to_string(index=False))
    click.echo(f"baseline {result.metric} ({result.experiment}) "
               f"{cell_text(b['mc'], b['ci_low'], b['ci_high'], b.get('exact'))}; "
               f"{result.levers} values, {len(result.steps)} steps, {result.trials} trials, "
               f"seed {result.seed}, common random numbers; {result.backend}, "
               f"{result.wall_s:.1f} s")
    inert = result.inert()
    if inert:
        click.echo(f"{len(inert)} value{'s' if len(inert) > 1 else ''} changed no game's "
                   f"{result.metric} in {result.trials} paired games either way: in this "
                   f"scenario they do not act on it ({', '.join(inert)})")
    if result.skipped:
        by_rules = sum(s.get("refused_by") == "rules" for s in result.skipped)
        click.echo(f"{len(result.skipped)} step{'s' if len(result.skipped) > 1 else ''} "
                   f"refused, not played ({by_rules} by the rules, "
                   f"{len(result.skipped) - by_rules} whose game cannot be set up): listed in "
                   f"{common.shown_path(folder / REFUSED)}")
    if result.target is not None:
        reach = result.reaching()
        click.echo(f"changes that reach {result.target} (PASS), smallest first: "
                   f"{len(reach)}")
        for r in reach.head(20).to_dict(orient="records"):
            click.echo(f"  {r['path']}: {r['current']} -> {r['value']} ({r['steps']:+d} "
                       f"steps): {cell_text(r['mc'], r['ci_low'], r['ci_high'], None)}")
        for jump in result.jumps_over():
            click.echo(f"  one step of {jump['path']} from {jump['from']:g} to {jump['to']:g} "
                       f"jumps over the target band {result.target.low:g}.."
                       f"{result.target.high:g}")
    _print_fresh(result)


def _print_fresh(result) -> None:
    """The ranking's top and the first reaching changes on fresh games: the figures to act on."""
    fresh = result.fresh
    if fresh is None:
        return
    click.echo(f"played again on {fresh['trials']:,} fresh games (seed {fresh['seed']}, none "
               f"of the ranking's dice), paired with the unchanged rules: the figures to act on")
    for r in fresh["rows"]:
        diff = cell_text(r["diff"], r["diff_ci_low"], r["diff_ci_high"], None, signed=True)
        verdict = "" if r["target_verdict"] is None else f", {r['target_verdict']}"
        click.echo(f"  {r['role']}: {r['path']} -> {r['value']:g} ({r['steps']:+d} "
                   f"step{'s' if abs(r['steps']) > 1 else ''}): {result.metric} {diff}"
                   f"{verdict}")


def _side(row: dict, side: str) -> str:
    value = row[f"{side}_value"]
    if value is None or pd.isna(value):
        return "refused" if row["skipped"].startswith(side) else ""
    diff = cell_text(row[f"{side}_diff"], row[f"{side}_diff_ci_low"],
                     row[f"{side}_diff_ci_high"], None, signed=True)
    verdict = row[f"{side}_verdict"]
    words = {library.NO_EFFECT: "no effect", library.NO_GAME_CHANGED: "no game changed"}
    return f"{value:g}: {words.get(verdict, diff)}"
