"""``zonesim event``: what an event card (or the whole deck) does to a stalker."""

from __future__ import annotations

import click

from sim.cli import common
from sim.cli.anomaly import state_options
from sim.encounter import anomaly as library
from sim.experiments import event as event_experiment
from sim.experiments.setups import best_objective


@click.command(cls=common.Command)
@click.option("--stalker", default=None,
              help="Stalker card name (required unless --scenario names one).")
@click.option("--event", "event_name", required=True,
              help="Event card name, or 'all' for the deck table.")
@click.option("--armor", default=None, help="Armour worn (default: none).")
@click.option("--item", "items", multiple=True, metavar="NAME",
              help="Event item carried (repeatable; effect event_avoid only, others are "
                   "refused): the best one counts, they never add up (Z-10).")
@common.artifact_options
@state_options
@common.best_play_options
@common.scenario_option
@common.trials_option()
@common.seed_option
@common.rules_option
@common.format_option
@common.threads_option
@common.quiet_option
def event(stalker, event_name, armor, items, artifacts, intellect, health, willpower, radiation,
          tokens, encounter_policy, objective, scenario, trials, seed, rules_dir, fmt, threads):
    """Draw one event card (or every card) many times: outcome probabilities.

    The avoidance roll is one d6 >= avoid_on minus the best item's shift
    (Bag of nuts +1, Dosimeter +2; the Torsion scanner avoids without a roll,
    Z-09); a card without avoid_on always happens. Outcomes: avoided,
    happened (took place, stalker still conscious), knocked_out (took place,
    Health or Willpower fell to 0); plus P(deformation) and mean health lost,
    radiation and psi after the armour, days lost and Emission tokens. Each
    cell is a Monte Carlo estimate with its 95 % interval and the exact value;
    with --event all, one row per card, most dangerous first. With --scenario,
    the stalker, armour and event items are the scenario's unless given.

    With --policy best each card is played by its exact best decisions for
    --objective: which resist artefacts to use against its damage (P-08). The
    event item is the best held under every objective (Z-10; docs/rules.md).

    \b
    Example:
      zonesim event --stalker Strelok --event all --item Dosimeter
      zonesim event --stalker Ghost --event "Radiation spike" --armor "SEVA suit" --format json
      zonesim event --scenario base --event all --item Dosimeter
      zonesim event --stalker Strelok --event Wildfire --artifact Fireball --health 2 --policy best
    """
    s, rs = common.setup_and_rules("event", scenario, rules_dir, {
        "stalker": stalker, "armor": armor, "items": items, "policy": encounter_policy,
        "objective": objective})
    stalker, armor, items = s["stalker"], s["armor"], s["items"]
    best = best_objective(s)
    state = library.StartState(health=health, willpower=willpower, radiation=radiation,
                               tokens=tokens)
    names = event_experiment.event_names(rs, event_name)
    common.bar().expect(len(names) * trials)
    result = event_experiment.event_table(rs, stalker, names, armor, items, state=state,
                                          trials=trials, seed=seed, threads=threads,
                                          artifacts=artifacts, intellect=intellect, best=best)
    item = result.rows[0]["item"]
    play = "" if best is None else f"best play ({best.name}); "
    title = (f"event: {stalker} vs {event_name}; armour {armor or 'none'}; item {item or 'none'}; "
             f"{play}{trials} trials, seed {seed}; cells: estimate ±95% half-width (exact)")
    common.emit_rows(result.to_frame, fmt, result.to_dict(), title, result.table_rows(),
                     result.decision_lines())
