"""``zonesim balance``: balance questions of a multiplayer scenario (issue 12)."""

from __future__ import annotations

import click

from sim.cli import common
from sim.experiments.campaign_balance import balance_characters, balance_frame
from sim.rules.scenario import load_scenario

DEFAULT_TRIALS = 20_000


@click.group(cls=common.Group)
def balance():
    """Character and seat balance of a multiplayer scenario (P-45).

    \b
    Example:
      zonesim balance characters four_stalkers --trials 20000
    """


@balance.command()
@click.argument("scenario")
@common.trials_option(DEFAULT_TRIALS)
@common.seed_option
@common.format_option
@common.threads_option
@common.quiet_option
def characters(scenario, trials, seed, fmt, threads):
    """Every character in every seat against the scenario's field: win rates, first seat.

    SCENARIO is a multiplayer scenario (``[[players]]``; e.g. four_stalkers). Each
    character takes each seat in turn, the other seats as in the scenario, all on common
    random numbers; the table gives P(win) with its 95 % interval and the paired
    difference to the field's average win rate (``vs_field``), per seat and over all
    seats, and the first-seat advantage of the field (seat 1's wins minus the average).

    \b
    Example:
      zonesim balance characters four_stalkers --trials 20000
    """
    chosen = load_scenario(scenario)
    if not chosen.multiplayer:
        raise click.UsageError(f"{chosen.path} is a one-stalker scenario: balance characters "
                               "needs [[players]] or stalkers > 1")
    data = balance_characters(chosen, trials=trials, seed=seed, threads=threads)
    title = (f"balance characters: {chosen.name} ({', '.join(data['seats'])}); {trials} games "
             f"per seating, seed {seed}; ci = 95% interval; vs_field = paired difference to "
             "the field's average win rate")
    common.emit_frame(balance_frame(data), fmt, data, title)
