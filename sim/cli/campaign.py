"""``zonesim campaign``: whole games of a scenario, from the start to the Sarcophagus."""

from __future__ import annotations

import click
import pandas as pd

from sim.cli import common
from sim.experiments.campaign import (
    MEANS,
    PROBABILITIES,
    QUANTILES,
    SURVIVE_SARCOPHAGUS,
    label,
    run_campaign,
)
from sim.experiments.campaign_metrics import DAYS_MEAN, GAME_DAYS, fold_same, in_words
from sim.experiments.campaign_players import run_players
from sim.rules.scenario import load_scenario

DEFAULT_TRIALS = 200_000


def _summary(data: dict) -> pd.DataFrame:
    """The table: each metric under its name in the one scheme (as in the JSON, the sweep
    columns and targets), its plain label (declared with the metric) and its 95 % interval.
    """
    rows = []
    for key in (*PROBABILITIES, SURVIVE_SARCOPHAGUS):
        cell = data[key]
        rows.append({"metric": key, "mc": cell["mc"], "ci_low": cell["ci_low"],
                     "ci_high": cell["ci_high"]})
    for cause in data["causes"]:
        rows.append({"metric": f"causes.{cause['cause']}", "mc": cause["mc"],
                     "ci_low": cause["ci_low"], "ci_high": cause["ci_high"]})
    days = data["days"]
    rows.append({"metric": DAYS_MEAN, "mc": days["mean"], "ci_low": days["mean_ci_low"],
                 "ci_high": days["mean_ci_high"]})
    for key in QUANTILES:
        rows.append({"metric": f"days.{key}", "mc": days[key], "ci_low": days[f"{key}_ci_low"],
                     "ci_high": days[f"{key}_ci_high"]})
    for key in (GAME_DAYS, *MEANS):
        rows.append({"metric": key, **data["means"][key]})
    frame = pd.DataFrame(rows)
    frame.insert(1, "what", [label(m) for m in frame["metric"]])
    return frame


@click.command(cls=common.Command)
@click.argument("scenario", required=False)
@common.trials_option(DEFAULT_TRIALS)
@common.seed_option
@common.format_option
@common.threads_option
@common.quiet_option
def campaign(scenario, trials, seed, fmt, threads):
    """Play whole games of a scenario: win rate, P(reach the Sarcophagus), days.

    SCENARIO is a scenario file or the name of a bundled one (default: base,
    configs/scenarios/base.toml). Every probability comes with its 95 %
    interval. A win is reaching and surviving the Sarcophagus (P-50); the
    reach, P(reach the Sarcophagus), counts every game that got there,
    survived or not. Days to win are given for the games won, and the
    survival curve is a Kaplan-Meier estimate (a won game, or one still in
    the Zone at the day cap, is censored). JSON has the full histogram and
    curve.

    On a multiplayer scenario ([[players]], P-45) it prints P(each seat wins),
    P(each character wins), P(nobody wins) and P(Final Emission), the game's
    length in days, deaths and new characters per seat and Emissions drawn.

    \b
    Example:
      zonesim campaign --trials 1000000
      zonesim campaign configs/scenarios/base.toml --seed 7 --format json
      zonesim campaign four_stalkers --trials 100000
    """
    chosen = load_scenario(scenario)
    if chosen.multiplayer:
        _players(chosen, trials, seed, fmt, threads)
        return
    result = run_campaign(chosen, trials=trials, seed=seed, threads=threads)
    data = result.to_dict()
    title = (f"campaign: {chosen.name} ({chosen.stalker} from {chosen.start}); {trials} games, "
             f"seed {seed}; ci = 95% interval")
    frame = _summary(data)
    table = pd.DataFrame(in_words(fold_same(frame.to_dict("records"), data["same_as"])))
    common.emit_frame(frame, fmt, data, title, table=table)


def _players(chosen, trials, seed, fmt, threads):
    """Play and print a multiplayer scenario (seats, characters, game length)."""
    result = run_players(chosen, trials=trials, seed=seed, threads=threads)
    seats = ", ".join(chosen.players[p].stalker for p in range(len(chosen.players)))
    title = (f"campaign: {chosen.name} ({chosen.variant}: {seats} from {chosen.start}); "
             f"{trials} games, seed {seed}; ci = 95% interval; {result.victory['text']}")
    common.emit_frame(result.to_frame(), fmt, result.to_dict(), title)
