"""``zonesim combat``: how dangerous an enemy (or the whole deck) is for a stalker."""

from __future__ import annotations

import click

from sim.cli import common
from sim.encounter import combat as library
from sim.experiments import combat as combat_experiment
from sim.experiments.setups import best_objective


@click.command(cls=common.Command)
@click.option("--stalker", default=None,
              help="Stalker card name (required unless --scenario names one).")
@click.option("--enemy", required=True, help="Enemy card name, or 'all' for the deck table.")
@common.loadout_options
@common.artifact_options
@common.fight_policy_options
@common.best_play_options
@common.scenario_option
@common.trials_option()
@common.seed_option
@common.rules_option
@common.format_option
@common.threads_option
@common.quiet_option
def combat(stalker, enemy, armor, weapons, items, artifacts, intellect, encounter_policy,
           objective, scenario, trials, seed, rules_dir, fmt, threads, **fight_policy):
    """Fight one enemy card (or every card) many times: outcome probabilities.

    Prints P(avoided), P(killed), P(fled), P(knocked out) (and P(capped), the
    safety cap on rounds) as Monte Carlo estimates with 95 % intervals next to
    their exact values from a Markov chain, plus mean wounds taken and mean
    rounds fought. With --enemy all, one row per card, most dangerous first.
    With --policy best each card is played by its exact optimal plan (for
    --objective), printed in words beside its outcomes.

    \b
    Example:
      zonesim combat --stalker Strelok --enemy all --armor "Ecolog suit" --weapon AK-74
      zonesim combat --stalker Scar --enemy Bloodsucker --sneak never --flee-at 2 --format json
      zonesim combat --scenario base --enemy all --armor "SEVA suit"
      zonesim combat --stalker Strelok --enemy all --weapon AK-74 --artifact "Stone flower"
      zonesim combat --scenario base --enemy all --policy best
    """
    s, rs = common.setup_and_rules("combat", scenario, rules_dir, {
        "stalker": stalker, "armor": armor, "weapons": weapons, "items": items,
        **common.option_values(tuple(common.FIGHT_POLICY_OPTIONS)), "policy": encounter_policy,
        "objective": objective})
    stalker, armor, weapons, items = s["stalker"], s["armor"], s["weapons"], s["items"]
    policy = library.CombatPolicy.from_setup(s)
    names = combat_experiment.deck_names(rs, enemy)
    best = best_objective(s)
    common.bar().expect(len(names) * trials)
    result = combat_experiment.combat_table(rs, stalker, names, armor, weapons, items, policy,
                                            trials=trials, seed=seed, threads=threads,
                                            artifacts=artifacts, intellect=intellect, best=best)
    play = "" if best is None else f"best play ({best.name}); "
    title = (f"combat: {stalker} vs {enemy}; armour {armor or 'none'}; {play}{trials} trials, "
             f"seed {seed}; cells: estimate ±95% half-width (exact, Markov chain)")
    common.emit_rows(result.to_frame, fmt, result.to_dict(), title, result.table_rows(),
                     result.decision_lines())
