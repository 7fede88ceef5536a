"""``zonesim artifacts``: what each artefact changes in encounters and whole games, per price."""

from __future__ import annotations

import click

from sim.cli import common

DEFAULT_TRIALS = 100_000
"""Trials per deck and artefact: a change's 95 % half-width is then about 0.003."""
DEFAULT_GAMES = 20_000
"""Whole games per artefact: a change in the win rate is then within about ±0.007."""


@click.command(cls=common.Command)
@click.argument("scenario", required=False, default="base")
@click.option("--artifact", "names", multiple=True, metavar="NAME",
              help="Compare only this artefact (repeatable; default: every artefact card).")
@click.option("--intellect", type=common.small_int(0), default=None,
              help="Intellect for the activation tests (P-10); default: the stalker card's.")
@click.option("--games", type=click.IntRange(min=0, max=common.MAX_TRIALS), default=DEFAULT_GAMES,
              show_default=True,
              help="Whole games per artefact for the change in the win rate, p_sarcophagus "
                   "(reach and survive the Sarcophagus); 0 skips them (one-stalker "
                   "scenarios only).")
@common.best_play_options
@common.trials_option(DEFAULT_TRIALS)
@common.seed_option
@common.threads_option
@common.quiet_option
@common.format_option
def artifacts(scenario, names, intellect, games, encounter_policy, objective, trials, seed,
              threads, fmt):
    """Compare each artefact with carrying none: decks and whole games, per 1,000 rubles.

    SCENARIO (default: base) gives the ruleset, stalker, loadout and policy.
    Each artefact is carried alone (P-08..P-10) and plays the same trials as
    carrying none (common random numbers): the paired change in P(knocked
    out) on the enemy deck and in the anomaly deck's outcomes, with 95 %
    intervals, the exact change, and the change in the win rate,
    p_sarcophagus (reach and survive the Sarcophagus), over whole games (the
    artefact carried besides the loadout's, with the stalker card's
    Intellect), the price (P-11) and the change per 1,000 rubles. The table
    leaves out artefacts that change nothing; JSON and CSV keep every row.

    With --policy best every encounter, with and without the artefact, is
    played by its exact optimal plan (for --objective), which uses the
    artefact only where a use pays (P-08): the change is then what the
    artefact is worth to a player who plays it well, never below 0 in the
    exact column. Whole games then give the artefact's best use too
    (column best_use_p_sarcophagus): always, never or at a Health or less,
    the one with the highest win rate on the --games games, played again
    against carrying none more on as many fresh games (other trials of the
    seed), whose paired change is shown. The same for the items whose use a
    [policy] Health threshold decides (medkits: medkit_at; stimulants: heal_at,
    stimulant_at; the Helicopter call: helicopter_at): one card more than the
    loadout's, the thresholds searched in turn (0 = never .. the stalker's
    Health), its change under the best ones and under the scenario's, each
    against the same thresholds without the card, on fresh games (a second
    table; JSON: items; CSV: rows with an item column).

    \b
    Example:
      zonesim artifacts base --trials 200000 --seed 7
      zonesim artifacts base --policy best --games 2000 --trials 20000
      zonesim artifacts --artifact "Stone blood" --artifact Crystal --format json
    """
    import pandas as pd

    from sim.experiments.artifacts import artifacts_compared, scenario_setup
    from sim.report import artifacts as shown
    from sim.rules.scenario import load_scenario
    from sim.workflows.best_use import item_best_uses, with_best_uses

    sc = load_scenario(scenario)
    unknown = [n for n in names if n not in sc.ruleset.artifacts]
    if unknown:
        raise click.BadParameter(f"unknown artefact '{unknown[0]}'; known: "
                                 + ", ".join(sc.ruleset.artifacts), param_hint="'--artifact'")
    twice = [n for n in dict.fromkeys(names) if names.count(n) > 1]
    if twice:
        raise click.BadParameter(f"'{twice[0]}' is given twice; each artefact is compared once",
                                 param_hint="'--artifact'")
    setup = scenario_setup(sc, intellect)
    setup["policy"] = (encounter_policy if common.given("encounter_policy")
                       else sc.policy.encounters)
    setup["objective"] = objective if common.given("objective") else sc.policy.objective
    common.refuse_inert(setup, [k for k in ("objective",) if common.given(k)], sc)
    best = setup["policy"] == "best"
    played = (f"best play ({setup['objective']})" if best
              else "the scenario's thresholds")
    frame = artifacts_compared(sc.ruleset, setup, trials=trials,
                               seed=seed, names=names or None, threads=threads,
                               campaign=sc if games else None, campaign_trials=games)
    games = games if not sc.multiplayer else 0
    items = None
    if best and games:
        frame = with_best_uses(frame, sc, trials=games, seed=seed, threads=threads)
        items = item_best_uses(sc, trials=games, seed=seed, threads=threads)
    campaign = ("whole games not compared" if not games
                else f"{games} whole games per artefact and use, as many fresh games"
                if best else f"{games} whole games per artefact")
    doc = {"scenario": sc.name, "stalker": sc.stalker, "trials": trials, "seed": seed,
           "policy": setup["policy"], "objective": setup["objective"],
           "ruleset_digest": sc.ruleset.digest(), "campaign": campaign, "games": games,
           "rows": frame.astype(object).where(frame.notna(), None).to_dict(orient="records")}
    if items is not None:
        doc["items"] = items.astype(object).where(items.notna(), None).to_dict(orient="records")
    kept = shown.nonzero(frame)
    title = (f"artefacts against carrying none: {sc.name}, {sc.stalker}, encounters played by "
             f"{played}; {trials} trials per deck, {campaign}, seed {seed}; change in "
             "percentage points (pp) ±95 % half-width (exact)")
    if fmt == "table" and kept.empty:
        click.echo(f"{title}\nNo artefact compared changes anything in these encounters.")
    elif items is None or fmt != "csv":
        common.emit_frame(frame, fmt, doc, title, shown.readable(kept))
    else:  # one CSV: the artefacts' rows, then the items' (columns item, effect, ...)
        common.emit_frame(pd.concat([frame, items], ignore_index=True), fmt, doc)
    if items is not None and fmt == "table":
        click.echo(f"\nitems under a use policy, one card more than the loadout's: "
                   f"{games} whole games per threshold, as many fresh games, seed {seed}")
        click.echo(shown.readable_items(items).to_string(index=False))
