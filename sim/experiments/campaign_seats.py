"""Seat balance apart from characters (issue 26): the same character in every seat.

In ``four_stalkers`` the field's first-seat advantage
(:func:`sim.experiments.campaign_balance.balance_characters`) mixes the seat
with the character who sits in it (Strelok is strong). :func:`balance_seats`
seats one character in every seat, each seat a copy of seat 1 (its loadout
and policy; the character card's money), so that the seats differ only in
their place in the turn order (P-45, docs/rules.md ``multiplayer.turn_order``
and ``multiplayer.first_player``). It plays the games in blocks
(:func:`sim.experiments.campaign.game_blocks`) and gives P(seat k wins)
with its Wilson 95 % interval, each seat against the seats' average win in
the same game (``1[k won] - winners / n``), and every seat against every
other on the same games (``1[j won] - 1[k won]``): paired differences on
common random numbers, each a mean with its normal 95 % interval. Memory
does not grow with trials: per block only the sums and sums of squares are
kept.

:func:`order_warnings` says when the rules make the turn order a lottery
(``first_player = "random"``: the seat that moves first is drawn each game;
``turn_order = "simultaneous"``: a random order each day), so that seat
numbers are no places in the order, or when the team wins together
(cooperative, P-45).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from sim import stats
from sim.campaign.players import compile_game
from sim.errors import InputError
from sim.experiments.campaign import exact_sums, game_blocks
from sim.kernels import campaign as K
from sim.rules.scenario import Scenario


class SeatsInputError(InputError):
    """A seat comparison that cannot be run (one-stalker scenario, unknown character)."""


def same_character(scenario: Scenario, character: str | None = None) -> Scenario:
    """``scenario`` with every seat a copy of seat 1, played by ``character``.

    ``character`` defaults to seat 1's; its card's money is every seat's
    starting money (as :func:`sim.experiments.campaign_balance.balance_characters`
    seats a character).

    Raises
    ------
    SeatsInputError
        A one-stalker scenario, or a character the ruleset does not hold.
    """
    if not scenario.multiplayer:
        raise SeatsInputError(f"{scenario.path} is a one-stalker scenario: balance seats "
                              "needs [[players]] or stalkers > 1", "scenario")
    seat1 = scenario.players[0]
    name = seat1.stalker if character is None else character
    if name not in scenario.ruleset.stalkers:
        raise SeatsInputError(f"character {name!r} is not a stalker card of the ruleset "
                              f"(known: {', '.join(scenario.ruleset.stalkers)})", "character")
    player = replace(seat1, stalker=name, rubles=scenario.ruleset.stalkers[name].rubles)
    return replace(scenario, players=(player,) * len(scenario.players), stalker=name)


def order_warnings(scenario: Scenario) -> list[str]:
    """Why seat numbers may not be places in the turn order (P-45; the rules' Gap keys)."""
    rules = scenario.ruleset.rules.multiplayer
    out = []
    if rules.first_player == "random":
        out.append("multiplayer.first_player is 'random': the seat that moves first is drawn "
                   "by lot each game, so seat k is no place in the turn order and every seat "
                   "plays the same game (differences near 0); edit "
                   "rules.multiplayer.first_player=seat1 to measure the order")
    if rules.turn_order == "simultaneous":
        out.append("multiplayer.turn_order is 'simultaneous': a random order each day, so "
                   "seat k is no place in the turn order")
    if scenario.variant == "cooperative":
        out.append("a cooperative scenario: the team wins or loses together, so every seat "
                   "has the same win rate")
    return out


def _cell(total, total_sq, trials: int) -> dict:
    mean, low, high = stats.mean_interval(float(total), float(total_sq), trials)
    return {"mc": mean, "ci_low": low, "ci_high": high}


def _share(count: int, trials: int) -> dict:
    low, high = stats.wilson(count, trials)
    return {"mc": count / trials, "ci_low": low, "ci_high": high}


def balance_seats(scenario: Scenario, *, trials: int, seed: int, character: str | None = None,
                  threads: int | None = None) -> dict:
    """P(seat k wins) with one character in every seat, and paired seat differences (P-45).

    Parameters
    ----------
    scenario : Scenario
        A multiplayer scenario (``[[players]]``).
    trials, seed : int
        Games and their seed; game ``t`` plays on the streams of ``(seed, t)``.
    character : str, optional
        The stalker card in every seat (default: seat 1's).
    threads : int, optional
        Kernel threads; never changes a number.

    Returns
    -------
    dict
        ``{"scenario", "trials", "seed", "character", "variant", "first_player",
        "turn_order", "warnings", "seats": [{"seat", "win", "vs_average"}],
        "pairs": [{"seat", "against", "diff"}], "nobody"}``; every cell
        ``{"mc", "ci_low", "ci_high"}``: ``win`` and ``nobody`` Wilson 95 %,
        the paired differences normal 95 % intervals.
    """
    seated = same_character(scenario, character)
    n = len(seated.players)
    arrays = compile_game(seated)
    pairs = [(j, k) for j in range(n) for k in range(j + 1, n)]
    wins = np.zeros(n, dtype=object)
    nobody = 0
    vs_average = np.zeros((2, n), dtype=object)
    against = np.zeros((2, len(pairs)), dtype=object)
    for _, _, rows in game_blocks([arrays], seed=seed, trials=trials, threads=threads):
        winners = rows[:, K.G_WINNERS]
        won = (winners[:, None] >> np.arange(n)) & 1  # (m, n): 1 where seat k won
        wins += won.sum(axis=0)
        nobody += int((winners == 0).sum())
        # 1[k won] - winners / n, in units of 1 / n so that the sums stay exact integers
        vs_average += np.asarray(exact_sums(n * won - won.sum(axis=1, keepdims=True)))
        diff = np.stack([won[:, j] - won[:, k] for j, k in pairs], axis=1)
        against += np.asarray(exact_sums(diff))
    return {
        "scenario": scenario.name, "trials": trials, "seed": seed,
        "character": seated.players[0].stalker, "variant": seated.variant,
        "first_player": seated.ruleset.rules.multiplayer.first_player,
        "turn_order": seated.ruleset.rules.multiplayer.turn_order,
        "warnings": order_warnings(seated),
        "seats": [{"seat": k + 1, "win": _share(int(wins[k]), trials),
                   "vs_average": _cell(vs_average[0, k] / n, vs_average[1, k] / (n * n),
                                       trials)} for k in range(n)],
        "pairs": [{"seat": j + 1, "against": k + 1,
                   "diff": _cell(against[0, i], against[1, i], trials)}
                  for i, (j, k) in enumerate(pairs)],
        "nobody": _share(nobody, trials),
    }


def seats_frame(data: dict) -> pd.DataFrame:
    """One row per seat (P(win), against the average), per pair of seats, and nobody."""
    rows = []
    for s in data["seats"]:
        rows.append({"row": f"seat {s['seat']} wins", **s["win"]})
    for s in data["seats"]:
        rows.append({"row": f"seat {s['seat']} - average of the seats", **s["vs_average"]})
    for p in data["pairs"]:
        rows.append({"row": f"seat {p['seat']} - seat {p['against']}", **p["diff"]})
    rows.append({"row": "nobody wins", **data["nobody"]})
    return pd.DataFrame(rows, columns=["row", "mc", "ci_low", "ci_high"])


__all__ = ["SeatsInputError", "balance_seats", "order_warnings", "same_character",
           "seats_frame"]
