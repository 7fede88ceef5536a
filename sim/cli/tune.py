"""``zonesim tune``: search one card value to hit a balance target."""

from __future__ import annotations

import click
from click.core import ParameterSource

from sim.cli import common
from sim.cli.anomaly import state_options
from sim.cli.compare import CAMPAIGN_TRIALS, common_options
from sim.experiments.campaign_paired import scenario_setup
from sim.rules.scenario import load_scenario
from sim.workflows import compare as compare_lib
from sim.workflows import targets as targets_lib
from sim.workflows import tune as library

# Options a campaign tune takes as overrides of the scenario (when given), and setup keys.
_CAMPAIGN_OVERRIDES = {"stalker": "stalker", "armor": "armor", "weapons": "weapons",
                       "items": "items", "sneak": "sneak", "flee_at": "flee_at",
                       "heal_at": "heal_at"}
_ENCOUNTER_ONLY = ("enemy", "anomaly_name", "event_name", "enter", "health", "willpower",
                   "radiation", "tokens")


def _given(ctx: click.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source not in (ParameterSource.DEFAULT,
                                                 ParameterSource.DEFAULT_MAP)


def _campaign_base(ctx: click.Context, scenario, values: dict):
    """Base setup and ruleset of a campaign tune: the scenario, with the options given."""
    for name in _ENCOUNTER_ONLY:
        if _given(ctx, name):
            option = "--" + name.removesuffix("_name").replace("_", "-")
            raise click.UsageError(f"{option} is for encounters, not for 'tune campaign'")
    chosen = load_scenario(scenario)
    base = scenario_setup(chosen)
    for option, key in _CAMPAIGN_OVERRIDES.items():
        if _given(ctx, option):
            value = values[option]
            if option == "armor" and str(value).lower() == "none":
                value = None
            base[key] = tuple(value) if isinstance(value, tuple) else value
    return base, chosen.ruleset


@click.command(cls=common.Command)
@click.argument("experiment_name", required=False, metavar="[campaign [SCENARIO]]")
@click.argument("scenario", required=False, metavar="")
@click.option("--stalker", default=None, help="Stalker card name (required for encounters).")
@click.option("--enemy", default=None, help="Enemy card (or 'all'): tune a fight.")
@click.option("--anomaly", "anomaly_name", default=None,
              help="Anomaly card (or 'all'): tune an anomaly encounter.")
@click.option("--event", "event_name", default=None,
              help="Event card (or 'all'): tune an event draw.")
@common.loadout_options
@common.fight_policy_options
@click.option("--enter", is_flag=True, default=False,
              help="Anomaly: enter on purpose even after noticing it (P-36).")
@state_options
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
@click.pass_context
def tune(ctx, experiment_name, scenario, stalker, enemy, anomaly_name, event_name, armor,
         weapons, items, sneak, flee_at, heal_at, enter, health, willpower, radiation, tokens,
         edits, vary, target_text, method, trials, seed, rules_dir, fmt, threads):
    """Search one card value so that a metric meets a target.

    Give exactly one of --enemy, --anomaly, --event, or 'campaign [SCENARIO]'
    to tune whole games of a scenario (default: base; --stalker, --armor,
    --weapon, --item, --sneak, --flee-at, --heal-at then override the
    scenario's when given; --trials defaults to 200000). Every candidate runs on
    the same seed (common random numbers). Prints each evaluated candidate's
    estimate, 95 % interval, exact value and verdict (PASS: interval inside
    the target, FAIL: outside, UNDECIDED: straddles a bound), then the chosen
    value: a PASS candidate closest to the target's middle (or bound).

    \b
    Example:
      zonesim tune --stalker Strelok --enemy Bloodsucker \\
        --vary enemies.Bloodsucker.endurance=1..8 --target "knocked_out in 0.2..0.3"
      zonesim tune --stalker Strelok --event "Radiation spike" \\
        --vary "events.Radiation spike.avoid_on=2..6" --target "avoided >= 0.5" --method scan
      zonesim tune campaign base --vary enemies.Bloodsucker.endurance=2..6 \\
        --target "p_sarcophagus in 0.35..0.55"
    """
    if experiment_name is not None:
        if experiment_name != "campaign":
            raise click.UsageError(f"unknown experiment {experiment_name!r}: give 'campaign "
                                   "[SCENARIO]', or --enemy/--anomaly/--event")
        values = {"stalker": stalker, "armor": armor, "weapons": weapons, "items": items,
                  "sneak": sneak, "flee_at": flee_at, "heal_at": heal_at}
        base, rs = _campaign_base(ctx, scenario, values)
        if rules_dir is not None:
            rs = common.load_rules_or_exit(rules_dir)
        if not _given(ctx, "trials"):
            trials = CAMPAIGN_TRIALS
        _search("campaign", rs, base, edits, vary, target_text, method, trials, seed, fmt,
                threads)
        return
    if scenario is not None:
        raise click.UsageError(f"unexpected argument {scenario!r}")
    if stalker is None:
        raise click.UsageError("Missing option '--stalker'.")
    given = [(n, v) for n, v in (("enemy", enemy), ("anomaly", anomaly_name),
                                 ("event", event_name)) if v is not None]
    if len(given) != 1:
        raise click.UsageError("give exactly one of --enemy, --anomaly, --event")
    name, card = given[0]
    base: dict = {"stalker": stalker, name: card, "armor": armor, "items": tuple(items)}
    if name == "enemy":
        name = "combat"
        base.update(weapons=tuple(weapons), sneak=sneak, flee_at=flee_at, heal_at=heal_at)
    else:
        base.update(health=health, willpower=willpower, radiation=radiation, tokens=tokens)
        if name == "anomaly":
            base["enter"] = enter
    rs = common.load_rules_or_exit(rules_dir)
    _search(name, rs, base, edits, vary, target_text, method, trials, seed, fmt, threads)


def _search(name, rs, base, edits, vary, target_text, method, trials, seed, fmt,
            threads) -> None:
    try:
        target = targets_lib.parse_target(target_text)
    except targets_lib.TargetError as error:
        raise click.BadParameter(str(error), param_hint="--target") from None
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
        click.echo(result.note)
    else:
        common.emit_frame(result.to_frame(), fmt, result.to_dict(), title)
