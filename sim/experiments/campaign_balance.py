"""Character balance of a multiplayer scenario (issue 12): every character in every seat.

:func:`balance_characters` plays the scenario (the *field*) and, for every stalker card
``c`` and seat ``s``, the scenario with seat ``s``'s character replaced by ``c`` (his
card's money, the seat's loadout and policy), all on the same trial indices: common
random numbers (the same dice, decks and board draws), so that differences are paired.
Per trial it keeps ``x = 1`` when the seat won and the field's share of wins
``f = winners / n`` of the same trial of the field, and reports P(win) with its Wilson
95 % interval and the paired difference ``x - f`` (mean and normal 95 % interval): how
much better than the field average the character does in that seat. The first-seat
advantage is the field's ``1[seat 1 won] - f``. Per-trial rows come in blocks
(:func:`sim.experiments.campaign.game_blocks`), so memory stays flat in trials.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from sim import stats
from sim.campaign.players import compile_game
from sim.experiments.campaign import game_blocks
from sim.kernels import campaign as K
from sim.rules.scenario import Scenario


def _with_character(scenario: Scenario, seat: int, character: str) -> Scenario:
    """``scenario`` with seat ``seat`` played by ``character`` (his card's money)."""
    players = list(scenario.players)
    money = scenario.ruleset.stalkers[character].rubles
    players[seat] = replace(players[seat], stalker=character, rubles=money)
    return replace(scenario, players=tuple(players),
                   stalker=players[0].stalker)


def _cell(total: float, total_sq: float, trials: int) -> dict:
    mean, low, high = stats.mean_interval(total, total_sq, trials)
    return {"mc": mean, "ci_low": low, "ci_high": high}


def _share(count: int, trials: int) -> dict:
    low, high = stats.wilson(count, trials)
    return {"mc": count / trials, "ci_low": low, "ci_high": high}


def balance_characters(scenario: Scenario, *, trials: int, seed: int,
                       threads: int | None = None) -> dict:
    """Win rates of every character in every seat against the scenario's field (P-45).

    Returns
    -------
    dict
        ``{"scenario", "trials", "seed", "seats", "field", "first_seat_advantage",
        "characters": [{"character", "seats": [{"seat", "win", "vs_field"}], "win",
        "vs_field"}]}``: cells ``{"mc", "ci_low", "ci_high"}``; a character's overall
        ``win`` and ``vs_field`` average his seats (each seat equally likely).
    """
    n = len(scenario.players)
    names = list(scenario.ruleset.stalkers)
    field = compile_game(scenario)
    variants = {(c, s): compile_game(_with_character(scenario, s, c))
                for c in names for s in range(n)}
    field_wins = np.zeros(n, dtype=np.int64)
    first = np.zeros(2)
    wins = {key: 0 for key in variants}
    diff = {key: np.zeros(2) for key in variants}
    mean_diff = {c: np.zeros(2) for c in names}
    keys = list(variants)
    for _, v, rows in game_blocks([field, *variants.values()], seed=seed, trials=trials,
                                  threads=threads):
        winners = rows[:, K.G_WINNERS]
        if v == 0:
            m = len(rows)
            seats = (winners[:, None] >> np.arange(n)) & 1
            share = seats.sum(axis=1) / n
            field_wins += seats.sum(axis=0)
            d = seats[:, 0] - share
            first += (d.sum(), (d * d).sum())
            per_character = {c: np.zeros(m) for c in names}
            continue
        c, s = keys[v - 1]
        x = (winners >> s) & 1
        wins[(c, s)] += int(x.sum())
        d = x - share
        diff[(c, s)] += (d.sum(), (d * d).sum())
        per_character[c] += d / n
        if v == len(keys):  # the block's last variant: each character's mean over seats
            for c in names:
                d = per_character[c]
                mean_diff[c] += (d.sum(), (d * d).sum())
    characters = []
    for c in names:
        seat_cells = [{"seat": s + 1, "win": _share(wins[(c, s)], trials),
                       "vs_field": _cell(*diff[(c, s)], trials)} for s in range(n)]
        total = sum(wins[(c, s)] for s in range(n))
        characters.append({"character": c, "seats": seat_cells,
                           "win": {"mc": total / (n * trials)},
                           "vs_field": _cell(*mean_diff[c], trials)})
    return {
        "scenario": scenario.name, "trials": trials, "seed": seed,
        "seats": [p.stalker for p in scenario.players],
        "field": [{"seat": s + 1, "character": scenario.players[s].stalker,
                   "win": _share(int(field_wins[s]), trials)} for s in range(n)],
        "first_seat_advantage": _cell(*first, trials),
        "characters": characters,
    }


def balance_frame(data: dict) -> pd.DataFrame:
    """One row per character and seat (and the field, and the first-seat advantage)."""
    rows = []
    for cell in data["field"]:
        rows.append({"character": f"field: {cell['character']}", "seat": cell["seat"],
                     "win": cell["win"]["mc"], "win_ci_low": cell["win"]["ci_low"],
                     "win_ci_high": cell["win"]["ci_high"]})
    for entry in data["characters"]:
        for cell in entry["seats"]:
            rows.append({"character": entry["character"], "seat": cell["seat"],
                         "win": cell["win"]["mc"], "win_ci_low": cell["win"]["ci_low"],
                         "win_ci_high": cell["win"]["ci_high"],
                         "vs_field": cell["vs_field"]["mc"],
                         "vs_field_ci_low": cell["vs_field"]["ci_low"],
                         "vs_field_ci_high": cell["vs_field"]["ci_high"]})
        rows.append({"character": entry["character"], "seat": "all",
                     "win": entry["win"]["mc"], "vs_field": entry["vs_field"]["mc"],
                     "vs_field_ci_low": entry["vs_field"]["ci_low"],
                     "vs_field_ci_high": entry["vs_field"]["ci_high"]})
    adv = data["first_seat_advantage"]
    rows.append({"character": "first-seat advantage", "seat": 1, "vs_field": adv["mc"],
                 "vs_field_ci_low": adv["ci_low"], "vs_field_ci_high": adv["ci_high"]})
    return pd.DataFrame(rows)
