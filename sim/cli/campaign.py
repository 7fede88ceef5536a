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
@click.option("--trace", "trace", type=common.small_int(0), default=None, metavar="N",
              help="Tell game N (0-based) day by day instead: the game the Monte Carlo plays "
                   "as trial N with this --seed (--trials is not read).")
@click.option("--variant", default=None, metavar="SPEC",
              help="With --trace: the same game under a variant in the compare grammar "
                   "('item+=Jetpack', 'edit=enemies.Bloodsucker.endurance=6').")
@common.quiet_option
def campaign(scenario, trials, seed, fmt, threads, trace, variant):
    """Play whole games of a scenario: win rate, P(reach the Sarcophagus), days.

    SCENARIO is a scenario file or the name of a bundled one (default: base,
    configs/scenarios/base.toml). Every probability comes with its 95 %
    interval. A win is reaching and surviving the Sarcophagus (P-50); the
    reach, P(reach the Sarcophagus), counts every game that got there,
    survived or not. Days to win are given for the games won, and the
    survival curve is a Kaplan-Meier estimate (a won game, or one still in
    the Zone at the day cap, is censored). JSON has the full histogram and
    curve. A part of the economy that never acts in these games (no trophy or
    artefact sold, no ruble spent) is one line under the table instead of rows
    of zeros (JSON: economy).

    On a multiplayer scenario ([[players]], P-45) it prints P(each seat wins),
    P(each character wins), P(nobody wins) and P(Final Emission), the game's
    length in days, deaths and new characters per seat and Emissions drawn.

    --trace N tells one game day by day: the route and the policy key that
    chose its objective, each hex entered, each encounter (a fight with its
    rounds, wounds and stimulants, an anomaly, an event card and the item used),
    trade, the tracks, items used and money after each step, the Zone phase and
    the Emission Track, each Emission, and the end. Game N is trial N of the
    Monte Carlo with the same --seed, so `--trials K` wins exactly as many
    games as the traces of games 0..K-1 say. --variant plays the same game
    under a variant (compare grammar). JSON: game, won, reached, days, cause,
    days_log (a list of days, each with its events); CSV: one row per event.

    \b
    Example:
      zonesim campaign --trials 1000000
      zonesim campaign configs/scenarios/base.toml --seed 7 --format json
      zonesim campaign four_stalkers --trials 100000
      zonesim campaign base --trace 3 --seed 7
      zonesim campaign base --trace 3 --seed 7 --variant "item+=Jetpack"
    """
    chosen = load_scenario(scenario)
    if variant is not None and trace is None:
        raise click.UsageError("--variant needs --trace N (zonesim compare campaign compares "
                               "variants over many games)")
    if trace is not None:
        _trace(chosen, trace, seed, fmt, variant)
        return
    if chosen.multiplayer:
        _players(chosen, trials, seed, fmt, threads)
        return
    result = run_campaign(chosen, trials=trials, seed=seed, threads=threads)
    data = result.to_dict()
    title = (f"campaign: {chosen.name} ({chosen.stalker} from {chosen.start}); {trials} games, "
             f"seed {seed}; ci = 95% interval")
    frame = _summary(data)
    zero = {m for part in data["economy"] for m in part["zero"]}
    table = pd.DataFrame(in_words(fold_same([r for r in frame.to_dict("records")
                                             if r["metric"] not in zero], data["same_as"])))
    common.emit_frame(frame, fmt, data, title, table=table,
                      notes=[part["text"] for part in data["economy"] if part["text"]])


def _players(chosen, trials, seed, fmt, threads):
    """Play and print a multiplayer scenario (seats, characters, game length)."""
    result = run_players(chosen, trials=trials, seed=seed, threads=threads)
    seats = ", ".join(chosen.players[p].stalker for p in range(len(chosen.players)))
    title = (f"campaign: {chosen.name} ({chosen.variant}: {seats} from {chosen.start}); "
             f"{trials} games, seed {seed}; ci = 95% interval; {result.victory['text']}")
    common.emit_frame(result.to_frame(), fmt, result.to_dict(), title)


def _trace(chosen, game, seed, fmt, variant):
    """Tell game ``game`` of ``chosen`` (under ``variant``, compare grammar) day by day."""
    from sim.campaign.players import compile_game
    from sim.experiments.campaign_trace import events_frame, trace_game, trace_text
    from sim.workflows.explain import variant_games

    if variant is None:
        compiled, rs, label = compile_game(chosen), chosen.ruleset, "as the scenario is"
    else:
        games, rulesets, labels = variant_games(chosen, [variant])
        compiled, rs, label = games[0], rulesets[0], labels[0]
    data = trace_game(compiled, rs, seed=seed, game=game)
    data = {"scenario": chosen.name, "variant": label, **data}
    title = (f"campaign: {chosen.name} ({label}); game {game} of seed {seed}, the Monte "
             "Carlo's trial of that index; [policy key that decided]")
    if fmt == "table":
        click.echo(trace_text(data, title))
    else:
        common.emit_frame(events_frame(data), fmt, data, title)
