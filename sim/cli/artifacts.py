"""``zonesim artifacts``: what each artefact changes in single encounters, per 1,000 rubles."""

from __future__ import annotations

import click

from sim.cli import common

DEFAULT_TRIALS = 100_000
"""Trials per deck and artefact: a change's 95 % half-width is then about 0.003."""


@click.command(cls=common.Command)
@click.argument("scenario", required=False, default="base")
@click.option("--artifact", "names", multiple=True, metavar="NAME",
              help="Compare only this artefact (repeatable; default: every artefact card).")
@click.option("--intellect", type=common.small_int(0), default=None,
              help="Intellect for the activation tests (P-10); default: the stalker card's.")
@common.trials_option(DEFAULT_TRIALS)
@common.seed_option
@common.threads_option
@common.quiet_option
@common.format_option
def artifacts(scenario, names, intellect, trials, seed, threads, fmt):
    """Compare each artefact with carrying none: enemy and anomaly decks, per 1,000 rubles.

    SCENARIO (default: base) gives the ruleset, stalker, loadout and policy.
    Each artefact is carried alone (P-08..P-10) and plays the same trials as
    carrying none (common random numbers): the paired change in P(knocked
    out) on the enemy deck and in the anomaly deck's outcomes, with 95 %
    intervals, the exact change, the price (P-11) and the change per 1,000
    rubles. The table leaves out artefacts that change nothing; JSON and CSV
    keep every row. Campaign effects of artefacts are not simulated yet.

    \b
    Example:
      zonesim artifacts base --trials 200000 --seed 7
      zonesim artifacts --artifact "Stone blood" --artifact Crystal --format json
    """
    from sim.experiments.artifacts import artifacts_compared, scenario_setup
    from sim.report import artifacts as shown
    from sim.rules.scenario import load_scenario

    sc = load_scenario(scenario)
    unknown = [n for n in names if n not in sc.ruleset.artifacts]
    if unknown:
        raise click.BadParameter(f"unknown artefact '{unknown[0]}'; known: "
                                 + ", ".join(sc.ruleset.artifacts), param_hint="'--artifact'")
    frame = artifacts_compared(sc.ruleset, scenario_setup(sc, intellect), trials=trials,
                               seed=seed, names=names or None, threads=threads)
    doc = {"scenario": sc.name, "stalker": sc.stalker, "trials": trials, "seed": seed,
           "ruleset_digest": sc.ruleset.digest(), "campaign": shown.CAMPAIGN_NOTE,
           "rows": frame.astype(object).where(frame.notna(), None).to_dict(orient="records")}
    kept = shown.nonzero(frame)
    title = (f"artefacts against carrying none: {sc.name}, {sc.stalker}; {trials} trials per "
             f"deck, seed {seed}; change ±95 % half-width (exact). {shown.CAMPAIGN_NOTE}")
    if fmt == "table" and kept.empty:
        click.echo(f"{title}\nNo artefact compared changes anything in these encounters.")
        return
    common.emit_frame(frame, fmt, doc, title, shown.readable(kept))
