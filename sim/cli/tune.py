"""``zonesim tune``: search one card value to hit a balance target."""

from __future__ import annotations

import click

from sim.cli import common
from sim.cli.anomaly import state_options
from sim.cli.compare import CAMPAIGN_TRIALS, common_options
from sim.experiments import registry
from sim.rules.scenario import load_scenario
from sim.workflows import compare as compare_lib
from sim.workflows import targets as targets_lib
from sim.workflows import tune as library

WHOLE_GAMES = "campaign"
"""The experiment ``tune campaign [SCENARIO]`` plays; the others meet a card option."""


@click.command(cls=common.Command)
@click.argument("experiment_name", required=False, metavar="[campaign [SCENARIO]]")
@click.argument("scenario", required=False, metavar="")
@click.option("--stalker", default=None, help="Stalker card name (required for encounters).")
@common.card_options(None, lambda e: f"{e.card_key.capitalize()} card (or 'all'): tune the "
                     f"{e.name} experiment.")
@common.loadout_options
@common.fight_policy_options
@common.setting_option("--enter",
                       help="Anomaly: enter on purpose even after noticing it (P-36).")
@state_options
@common.scenario_option(dest="scenario_option")
@click.option("--edit", "edits", multiple=True, metavar="EDIT",
              help="Further card edit applied to every candidate (table.card.column=value).")
@click.option("--vary", required=True, metavar="CELL=RANGE",
              help="The cell and its candidates: table.card.column=lo..hi (integers), "
                   "=lo..hi:step, or =a,b,c.")
@click.option("--target", "target_text", required=True, metavar="TEXT",
              help="What the metric should be: 'knocked_out in 0.2..0.3', "
                   "'knocked_out <= 0.25', ...")
@click.option("--method", type=click.Choice(library.METHODS), default="auto",
              show_default=True,
              help="bisect (monotone metric, integer range; auto picks it for lo..hi) or "
                   "scan (every candidate).")
@common_options
def tune(experiment_name, scenario, scenario_option, edits, vary, target_text, method, trials,
         seed, rules_dir, fmt, threads, **setup_options):
    """Search one card value so that a metric meets a target.

    Give exactly one of --enemy, --anomaly, --event, or 'campaign [SCENARIO]'
    to tune whole games of a scenario (default: base; --stalker, --armor,
    --weapon, --item, --sneak, --flee-at, --heal-at then override the
    scenario's when given; --trials defaults to 200000). An encounter tune
    with --scenario takes the stalker, loadout and policy from it likewise. Every candidate runs on
    the same seed (common random numbers). Prints each evaluated candidate's
    estimate, 95 % interval, exact value and verdict (PASS: interval inside
    the target, FAIL: outside, UNDECIDED: straddles a bound), then the chosen
    value: a PASS candidate closest to the target's middle (or bound), played
    again beside the current value on as many fresh games (another seed, none
    of the search's dice), whose estimate, verdict and paired difference are
    the answer.

    \b
    Example:
      zonesim tune --stalker Strelok --enemy Bloodsucker \\
        --vary enemies.Bloodsucker.endurance=1..8 --target "knocked_out in 0.2..0.3"
      zonesim tune --stalker Strelok --event "Radiation spike" \\
        --vary "events.Radiation spike.avoid_on=2..6" --target "avoided >= 0.5" --method scan
      zonesim tune campaign base --vary enemies.Bloodsucker.endurance=2..6 \\
        --target "p_sarcophagus in 0.35..0.55"
      zonesim tune --scenario base --enemy all --vary enemies.Bloodsucker.endurance=2..6 \\
        --target "knocked_out <= 0.2"
      zonesim tune campaign four_stalkers --vary rules.multiplayer.new_character_items=0..3 \\
        --target "first_seat_advantage in -0.02..0.02" --trials 20000

    A multiplayer or cooperative scenario plays every seat (the multiplayer experiment
    of zonesim compare campaign): its targets are on first_seat_advantage, seat_win.K,
    p_nobody_wins or (cooperative) p_team_wins.
    """
    cards = [e for e in registry.encounters()
             if setup_options[common.param_of(e.card_key)] is not None]
    if experiment_name is not None:
        if experiment_name != WHOLE_GAMES:
            raise click.UsageError(f"unknown experiment {experiment_name!r}: give "
                                   f"'{WHOLE_GAMES} [SCENARIO]', or {_card_options()}")
        if scenario is not None and scenario_option is not None:
            raise click.UsageError("give the scenario once: as SCENARIO or as --scenario")
        chosen = scenario or scenario_option or "base"
        exp = registry.for_scenario(WHOLE_GAMES, load_scenario(chosen))
        if not common.given("trials"):
            trials = CAMPAIGN_TRIALS
    else:
        if scenario is not None:
            raise click.UsageError(f"unexpected argument {scenario!r}")
        if len(cards) != 1:
            raise click.UsageError(f"give exactly one of {_card_options()}")
        (exp,), chosen = cards, scenario_option
    common.refuse_options_of_others(exp, "tune")
    base, rs = common.setup_and_rules(exp.name, chosen, rules_dir,
                                      common.option_values(exp.option_keys))
    _search(exp.name, rs, base, edits, vary, target_text, method, trials, seed, fmt, threads)


def _card_options() -> str:
    """``--enemy, --anomaly, --event``: the card options, one per encounter experiment."""
    return ", ".join(f"--{e.card_key}" for e in registry.encounters())


def _search(name, rs, base, edits, vary, target_text, method, trials, seed, fmt,
            threads) -> None:
    target = common.target(target_text)
    result = library.tune(name, rs, base, vary, target, trials=trials, seed=seed,
                          threads=threads, method=method,
                          variant=compare_lib.Variant("base", (), tuple(edits)))
    title = (f"tune {result.path} (now {result.current}) for {target} by {result.method}: "
             f"{trials} trials per candidate, seed {seed}, common random numbers")
    if fmt == "table":
        footer = (f"chosen: {result.path}={result.chosen} ({result.verdict})"
                  if result.verdict == targets_lib.PASS else
                  f"no candidate passes; closest: {result.path}={result.chosen} "
                  f"({result.verdict})")
        common.emit_frame(result.to_frame(), fmt, result.to_dict(), title)
        click.echo(footer)
        click.echo(library.fresh_line(result))
        click.echo(result.note)
        if result.skipped:
            click.echo(f"{len(result.skipped)} candidates skipped, not played:")
        for sk in result.skipped:
            why = ("the rules refuse it" if sk["refused_by"] == "rules"
                   else "the game cannot be set up")
            click.echo(f"  {result.path}={sk['value']}: {why}: {sk['reason']}")
    else:
        common.emit_frame(result.to_frame(), fmt, result.to_dict(), title)
