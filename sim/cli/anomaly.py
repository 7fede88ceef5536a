"""``zonesim anomaly``: what an anomaly card (or the whole deck) does to a stalker."""

from __future__ import annotations

from collections.abc import Callable

import click

from sim.cli import common
from sim.encounter import anomaly as library
from sim.experiments import anomaly as anomaly_experiment
from sim.experiments.setups import best_objective

STATE_OPTIONS: dict[str, Callable] = {
    "health": click.option("--health", type=common.small_int(1), default=None,
                           help="Health at the start (default: the stalker's maximum)."),
    "willpower": click.option("--willpower", type=common.small_int(1), default=None,
                              help="Willpower at the start (default: the stalker's maximum)."),
    "radiation": click.option("--radiation", type=common.small_int(0), default=0,
                              show_default=True, help="Radiation doses already taken."),
    "tokens": click.option("--tokens", type=common.small_int(0), default=0, show_default=True,
                           help="Damage tokens already on the armour."),
}
"""The option of each starting-state setup key (``--health``, ``--willpower``, ...)."""


def state_options(func: Callable) -> Callable:
    """``--health``, ``--willpower``, ``--radiation``, ``--tokens``: the starting state."""
    for option in reversed(STATE_OPTIONS.values()):
        func = option(func)
    return func


@click.command(cls=common.Command)
@click.option("--stalker", default=None,
              help="Stalker card name (required unless --scenario names one).")
@click.option("--anomaly", "anomaly_name", required=True,
              help="Anomaly card name, or 'all' for the deck table.")
@click.option("--armor", default=None, help="Armour worn (default: none).")
@click.option("--item", "items", multiple=True, metavar="NAME",
              help="Item carried (repeatable). No item acts inside an anomaly (medkits and "
                   "stimulants are not used there, event items act on events only), so any "
                   "item is refused with exit status 2.")
@common.setting_option("--enter", help=(
    "Enter the anomaly on purpose even after noticing it (P-36): +anomaly.voluntary_bonus_dice "
    "Agility dice after a passed Perception test."))
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
def anomaly(stalker, anomaly_name, armor, items, enter, artifacts, intellect, health, willpower,
            radiation, tokens, encounter_policy, objective, scenario, trials, seed, rules_dir,
            fmt, threads):
    """Meet one anomaly card (or every card) many times: outcome probabilities.

    Perception test (P-31): a pass goes around the anomaly (avoided) unless
    --enter; a failure falls in. Agility test (P-32): a failure deals the
    card's damage through the armour. Outcomes: avoided, unharmed, damaged,
    knocked_out (Health <= 0, P-37, or Willpower <= 0, P-40); plus
    P(artefact found) (P-35), P(trophy kept) (P-34), P(deformation: radiation
    above the maximum, P-39), P(perceived), mean points lost after the armour,
    P(armour destroyed) and mean cards drawn per artefact search. Each cell is
    a Monte Carlo estimate with its 95 % interval and the exact value; with
    --anomaly all, one row per card, most dangerous (exact P(knocked out))
    first, every card on the same seed. With --scenario, the stalker, armour
    and enter_anomalies policy are the scenario's unless given (its items are
    left behind: none acts inside an anomaly).

    With --policy best each card is played by its exact best decisions for
    --objective, printed in words beside its outcomes, in place of --enter and
    of using every artefact: enter on purpose after noticing it or go around
    (P-36), and which resist artefacts to use against its damage (P-08). There
    survive = P(not knocked out) and kill = P(artefact found), the anomaly's
    prize (P-35).

    \b
    Example:
      zonesim anomaly --stalker Strelok --anomaly all --armor "Ecolog suit"
      zonesim anomaly --stalker Ghost --anomaly Burner --enter --health 2 --format json
      zonesim anomaly --scenario base --anomaly all
      zonesim anomaly --stalker Strelok --anomaly Electro --artifact Flash
      zonesim anomaly --scenario base --anomaly all --policy best --objective kill
    """
    s, rs = common.setup_and_rules("anomaly", scenario, rules_dir, {
        "stalker": stalker, "armor": armor, "items": items, "enter": enter,
        "policy": encounter_policy, "objective": objective})
    stalker, armor, items, enter = s["stalker"], s["armor"], s["items"], s["enter"]
    best = best_objective(s)
    state = library.StartState(health=health, willpower=willpower, radiation=radiation,
                               tokens=tokens)
    names = anomaly_experiment.anomaly_names(rs, anomaly_name)
    common.bar().expect(len(names) * trials)
    result = anomaly_experiment.anomaly_table(rs, stalker, names, armor, items, enter=enter,
                                              state=state, trials=trials, seed=seed,
                                              threads=threads, artifacts=artifacts,
                                              intellect=intellect, best=best)
    play = (f"best play ({best.name})" if best is not None
            else 'enter' if enter else 'go around if noticed')
    title = (f"anomaly: {stalker} vs {anomaly_name}; armour {armor or 'none'}; "
             f"{play}; {trials} trials, seed {seed}; "
             "cells: estimate ±95% half-width (exact)")
    common.emit_rows(result.to_frame, fmt, result.to_dict(), title, result.table_rows(),
                     result.decision_lines())
