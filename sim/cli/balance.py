"""``zonesim balance``: balance questions of a multiplayer scenario (issue 12)."""

from __future__ import annotations

import click

from sim.cli import common
from sim.experiments.campaign_balance import balance_characters, balance_frame
from sim.rules.scenario import load_scenario, ruleset_refusal

DEFAULT_TRIALS = 20_000
SEAT_BUDGET = 100_000
"""Games of selection per seat's search under ``balance seats --best-play``."""
ROUNDS = 3
"""Rounds over the seats at most under ``balance seats --best-play``."""
BEST_PLAY_BUDGET = 1_000_000
"""Games of selection per character under ``--best-play`` (the example's minute on 2 cores)."""


@click.group(cls=common.Group)
def balance():
    """Character and seat balance of a multiplayer scenario (P-45).

    \b
    Example:
      zonesim balance characters four_stalkers --trials 20000
      zonesim balance characters base --best-play
      zonesim balance seats four_stalkers --edit rules.multiplayer.first_player=seat1
    """


@balance.command()
@click.argument("scenario")
@click.option("--best-play", is_flag=True,
              help="A one-stalker scenario: every stalker card under his own best policy "
                   "(zonesim optimize's search), beside the scenario's policy and the naive one.")
@click.option("--budget", type=click.IntRange(1, common.MAX_TRIALS), default=BEST_PLAY_BUDGET,
              show_default=True, help="--best-play: games of selection per character.")
@common.trials_option(DEFAULT_TRIALS)
@common.seed_option
@common.format_option
@common.threads_option
@common.quiet_option
def characters(scenario, best_play, budget, trials, seed, fmt, threads):
    """Every character in every seat against the scenario's field: win rates, first seat.

    SCENARIO is a multiplayer scenario (``[[players]]``; e.g. four_stalkers). Each
    character takes each seat in turn, the other seats as in the scenario, all on common
    random numbers; the table gives P(win) with its 95 % interval and the paired
    difference to the field's average win rate (``vs_field``), per seat and over all
    seats, and the first-seat advantage of the field (seat 1's wins minus the average).

    With --best-play, SCENARIO is a one-stalker scenario (e.g. base): each stalker card
    plays his own best policy and loadout (within his starting money at the cards'
    prices, the scenario's kit his starting kit), found as zonesim optimize finds it
    (--budget games of selection each, the same seed for all), and then the best,
    the scenario's policy and the naive one (never flee, no stimulants, sneak, nearest
    route) on --trials fresh games each, none of the selection's: P(win) under each with
    its 95 % interval, the best's paired difference to the scenario's policy and the skill
    gap (best minus naive), and the spread between characters (best minus worst) under
    best play beside the spread under the scenario's policy. With a multiplayer
    SCENARIO, --best-play gives its seats' characters under everyone's best play, as
    balance seats SCENARIO --best-play does (--budget games per seat's search).

    \b
    Example:
      zonesim balance characters four_stalkers --trials 20000
      zonesim balance characters base --best-play --trials 20000
    """
    chosen = load_scenario(scenario)
    if best_play:
        _best_play(chosen, budget, trials, seed, fmt, threads)
        return
    if not chosen.multiplayer:
        raise click.UsageError(f"{common.shown_path(chosen.path)} is a one-stalker scenario: "
                               "balance characters needs [[players]] or stalkers > 1 "
                               "(or --best-play)")
    data = balance_characters(chosen, trials=trials, seed=seed, threads=threads)
    title = (f"balance characters: {chosen.name} ({', '.join(data['seats'])}); {trials} games "
             f"per seating, seed {seed}; ci = 95% interval; vs_field = paired difference to "
             "the field's average win rate")
    common.emit_frame(balance_frame(data), fmt, data, title)


def _best_play(chosen, budget: int, trials: int, seed: int, fmt: str, threads) -> None:
    """``characters --best-play``: each card's own best policy, the skill gaps, the spreads."""
    from sim.cli.optimize import emit_characters
    from sim.workflows.best_characters import best_characters, characters_games, search_budget
    from sim.workflows.optimize import OptimizeError, check_games

    if chosen.multiplayer:  # the seats' characters under everyone's best play
        _seats_best_play(chosen, budget, ROUNDS, trials, seed, fmt, threads)
        return
    options = search_budget(budget, trials)
    try:
        check_games(options["budget"], options["fresh_trials"])
    except OptimizeError as error:
        raise click.BadParameter(str(error), param_hint={"budget": "--budget",
                                                         "fresh_trials": "--trials"}[error.field]
                                 ) from None
    common.bar().expect(characters_games(chosen, options["budget"], options["fresh_trials"],
                                         replicate=True))
    result = best_characters(chosen, seed=seed, threads=threads, replicate=True, **options)
    title = (f"balance characters --best-play: {chosen.name}, every character his own best "
             f"policy ({options['budget']:,} games of selection each, seed {seed}); P(win) on "
             f"{options['fresh_trials']:,} fresh games per policy, none of the selection's; "
             "95 % intervals; differences paired; second search: the best of a search on "
             "other selection games, minus the best (how far from converged)")
    emit_characters(result, fmt, title)


@balance.command()
@click.argument("scenario")
@click.option("--character", default=None, metavar="NAME",
              help="Stalker card in every seat (default: seat 1's).")
@click.option("--best-play", is_flag=True,
              help="Every seat's policy and loadout searched in turn against the others' "
                   "current best, until no seat gains beyond noise (or --rounds); each seat's "
                   "win under everyone's best play beside the scenario's, on fresh games.")
@click.option("--budget", type=click.IntRange(1, common.MAX_TRIALS), default=SEAT_BUDGET,
              show_default=True, help="--best-play: games of selection per seat's search.")
@click.option("--rounds", type=common.small_int(1), default=ROUNDS, show_default=True,
              help="--best-play: rounds over the seats at most.")
@click.option("--edit", "edits", multiple=True, metavar="TABLE.CARD.COLUMN=VALUE",
              help="A card or rule edit (repeatable), e.g. rules.multiplayer.first_player=seat1.")
@common.trials_option(DEFAULT_TRIALS)
@common.seed_option
@common.format_option
@common.threads_option
@common.quiet_option
def seats(scenario, character, edits, best_play, budget, rounds, trials, seed, fmt, threads):
    """The same character in every seat: P(seat k wins) and paired seat differences.

    SCENARIO is a multiplayer scenario ([[players]]; e.g. four_stalkers). Every
    seat becomes a copy of seat 1 (loadout and policy) played by one character
    (--character, default seat 1's, with his card's money), so the seats differ
    only in their place in the turn order (multiplayer.turn_order,
    multiplayer.first_player). Prints P(seat k wins) with its Wilson 95 %
    interval, each seat against the seats' average in the same game and every
    seat against every other: paired differences on common random numbers,
    with normal 95 % intervals. Warns (on stderr; "warnings" in JSON) when the
    rules draw the turn order by lot, so seat numbers are no places in it.

    With --best-play, the seats keep their own characters: each seat's policy
    and loadout is searched in turn (zonesim optimize --seat, --budget games
    each, the seat's win) against the others' current best; a seat changes
    only when its best beats its current policy beyond noise on the search's
    fresh games, and rounds repeat until none changes (or --rounds). Each
    seat's P(win) under everyone's best play and under the scenario's is then
    played on --trials games none of the searches used, paired, with the
    spread between seats under each.

    \b
    Example:
      zonesim balance seats four_stalkers --trials 20000
      zonesim balance seats four_stalkers --character Ghost \\
        --edit rules.multiplayer.first_player=seat1 --format json
      zonesim balance seats three_stalkers --best-play --budget 20000 --rounds 2 \\
        --trials 5000
    """
    from dataclasses import replace

    from sim.experiments.campaign_seats import balance_seats, seats_frame
    from sim.rules.variants import VariantError, apply_edits

    chosen = load_scenario(scenario)
    if best_play:
        if character is not None or edits:
            raise click.BadParameter("--best-play plays the scenario's seats as they are: "
                                     "no --character or --edit", param_hint="--best-play")
        _seats_best_play(chosen, budget, rounds, trials, seed, fmt, threads)
        return
    if edits:
        try:
            edited = apply_edits(chosen.ruleset, list(edits))
        except VariantError as error:
            raise click.BadParameter(str(error), param_hint="'--edit'") from None
        given = ", ".join(repr(e) for e in edits)
        refused = ruleset_refusal(chosen, edited, f"edit{'s' if len(edits) > 1 else ''} {given}")
        if refused is not None:  # edits pass the checks a scenario file passes
            raise click.BadParameter(refused, param_hint="'--edit'")
        chosen = replace(chosen, ruleset=edited)
    data = balance_seats(chosen, trials=trials, seed=seed, character=character,
                         threads=threads)
    for line in data["warnings"]:
        click.echo(f"zonesim balance seats: warning: {line}", err=True)
    title = (f"balance seats: {chosen.name}, {data['character']} in all "
             f"{len(data['seats'])} seats ({data['variant']}; first_player "
             f"{data['first_player']}, turn_order {data['turn_order']}); {trials} games, "
             f"seed {seed}; ci = 95% interval; differences paired on the same games")
    common.emit_frame(seats_frame(data), fmt, data, title)


def _seats_best_play(chosen, budget: int, rounds: int, trials: int, seed: int, fmt: str,
                     threads) -> None:
    """``seats --best-play`` (and ``characters --best-play`` of a multiplayer scenario)."""
    from sim.workflows.best_characters import search_budget
    from sim.workflows.best_seats import best_seats
    from sim.workflows.optimize import OptimizeError

    options = search_budget(budget, trials)
    try:
        result = best_seats(chosen, rounds=rounds, games=trials, seed=seed, threads=threads,
                            **options)
    except OptimizeError as error:
        raise click.BadParameter(str(error), param_hint="--best-play") from None
    title = (f"balance seats --best-play: {chosen.name}, every seat under everyone's best play "
             f"({options['budget']:,} games of selection per seat's search, {result.rounds} "
             f"round(s), seed {seed}); P(seat wins) on {trials:,} fresh games (none of the "
             "searches'), 95 % intervals; differences paired")
    common.emit_rows(result.to_frame, fmt, result.to_dict(), title, result.table_rows(),
                     result.notes())
