"""Multiplayer games of a scenario and their summary: the library behind ``zonesim campaign``
on a scenario with ``[[players]]`` (P-44..P-50).

:func:`run_players` compiles the scenario's character slots
(:func:`sim.campaign.players.compile_game`), runs the campaign kernel, whose
per-chunk counts carry the multiplayer columns (``MP_*`` of
:mod:`sim.kernels.campaign`: memory flat in trials), and returns a
:class:`PlayersResult`: P(each seat wins), P(each character wins),
P(nobody wins) and P(the Final Emission took everyone), the game's length in
days (mean, median, p10, p90, histogram), deaths and new characters per
seat and Emissions drawn, every probability with its Wilson 95 % interval
and every mean with its normal 95 % interval, and the reading of the victory
conditions they were played under (:func:`victory_reading`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim import stats
from sim.campaign.players import compile_game
from sim.experiments import campaign_metrics as M
from sim.experiments.campaign import QUANTILES, day_quantiles, simulate
from sim.kernels import campaign as K
from sim.rules.scenario import Scenario


def victory_reading(scenario: Scenario) -> dict:
    """The reading of the open victory conditions the games are played under (P-45).

    The seeds leave the victory conditions open (Gap "The Sarcophagus"), so a
    result says which ``multiplayer.*`` keys decided it: competitive ties
    (``same_day_win``) and what follows a win (``after_win``); cooperative,
    how many must survive the Sarcophagus (``cooperative_needed``, 0: every
    seat still in the game) and what a seat out of the game means for the
    team (``cooperative_dead``). ``text`` says it in a sentence.
    """
    keys = scenario.ruleset.rules.multiplayer
    if scenario.variant == "cooperative":
        needed = keys.cooperative_needed
        who = ("every seat still in the game" if needed == 0 else
               f"{needed} stalker{'s' if needed > 1 else ''}")
        dead = {"ignored": "leaves the team without costing it the game (and does not share "
                           "its win)",
                "team_loses": "loses the game for the team"}[keys.cooperative_dead]
        return {"variant": "cooperative", "cooperative_needed": needed,
                "cooperative_dead": keys.cooperative_dead,
                "text": (f"cooperative: the team wins when {who} survived the Sarcophagus "
                         f"(multiplayer.cooperative_needed = {needed}); a seat out of the game "
                         f"(dead, no character left to come) {dead} "
                         f'(multiplayer.cooperative_dead = "{keys.cooperative_dead}")')}
    ties = {"first": "the first in turn order", "shared": "every stalker who survives that day"}
    after = {"end": "the game ends", "play_on": "the others play on"}
    return {"variant": "competitive", "same_day_win": keys.same_day_win,
            "after_win": keys.after_win,
            "text": (f"competitive: the first to survive the Sarcophagus wins; on one day, "
                     f'{ties[keys.same_day_win]} (multiplayer.same_day_win = '
                     f'"{keys.same_day_win}"); then {after[keys.after_win]} '
                     f'(multiplayer.after_win = "{keys.after_win}")')}


@dataclass(frozen=True)
class PlayersResult:
    """Aggregated multiplayer games of one scenario; every number from ``counts``."""

    scenario: str
    variant: str
    trials: int
    seed: int
    max_days: int
    seats: tuple[str, ...]
    characters: tuple[str, ...]
    counts: np.ndarray
    victory: dict  # the victory conditions' reading (:func:`victory_reading`)

    def _column(self, offset: int) -> int:
        return int(self.counts[int(K.mp_base(self.max_days)) + offset])

    def share(self, offset: int) -> dict:
        """Share of games counted at ``MP_*`` offset ``offset``, with its Wilson interval."""
        count = self._column(offset)
        low, high = stats.wilson(count, self.trials)
        return {"mc": count / self.trials, "ci_low": low, "ci_high": high}

    def mean(self, offset: int, offset_sq: int) -> dict:
        """Per-game mean of a summed counter, with its normal 95 % interval."""
        mean, low, high = stats.mean_interval(float(self._column(offset)),
                                              float(self._column(offset_sq)), self.trials)
        return {"mc": mean, "ci_low": low, "ci_high": high}

    def lengths(self) -> np.ndarray:
        """Games by the day they ended (the last simulated day for capped ones), days 0..max."""
        start = int(K.mp_base(self.max_days)) + K.MP_CHARACTER + len(self.characters)
        return self.counts[start:start + self.max_days + 1]

    def to_dict(self) -> dict:
        """The JSON document of ``zonesim campaign`` on a multiplayer scenario."""
        hist = self.lengths()
        seats = [{"seat": p + 1, "character": name, "win": self.share(K.MP_WINS + p),
                  "deaths": self.mean(K.MP_DEATHS + p, K.MP_DEATHS_SQ + p),
                  "new_characters": self.mean(K.MP_NEW + p, K.MP_NEW_SQ + p)}
                 for p, name in enumerate(self.seats)]
        characters = [{"character": name, "win": self.share(K.MP_CHARACTER + i)}
                      for i, name in enumerate(self.characters)]
        return {
            "scenario": self.scenario, "variant": self.variant, "victory": self.victory,
            "trials": self.trials, "seed": self.seed, "players": len(self.seats),
            "seats": seats, "characters": characters,
            M.NOBODY_WINS: self.share(K.MP_NOBODY),
            M.FINAL_EMISSION: self.share(K.MP_FINAL),
            M.CAPPED: self.share(K.MP_CAPPED),
            M.GAME_DAYS: {**self.mean(K.MP_LENGTH, K.MP_LENGTH_SQ),
                          **day_quantiles(hist), "histogram": [int(x) for x in hist]},
            M.EMISSIONS_DRAWN: self.mean(K.MP_DRAWN, K.MP_DRAWN_SQ),
        }

    def to_frame(self) -> pd.DataFrame:
        """The summary as rows ``metric, mc, ci_low, ci_high`` (table and CSV output)."""
        data = self.to_dict()
        rows = []
        for seat in data["seats"]:
            label = f"seat {seat['seat']} ({seat['character']})"
            rows.append({"metric": f"win: {label}", **seat["win"]})
            rows.append({"metric": f"deaths: {label}", **seat["deaths"]})
            rows.append({"metric": f"new characters: {label}", **seat["new_characters"]})
        for character in data["characters"]:
            rows.append({"metric": f"win: {character['character']}", **character["win"]})
        for key in M.GAME_SHARES:
            rows.append({"metric": key, **data[key]})
        days = data[M.GAME_DAYS]
        rows.append({"metric": "game days: mean", "mc": days["mc"], "ci_low": days["ci_low"],
                     "ci_high": days["ci_high"]})
        for key in QUANTILES:
            rows.append({"metric": f"game days: {key}", "mc": days[key],
                         "ci_low": days[f"{key}_ci_low"], "ci_high": days[f"{key}_ci_high"]})
        rows.append({"metric": "emissions drawn", **data[M.EMISSIONS_DRAWN]})
        return pd.DataFrame(rows)


def run_players(scenario: Scenario, *, trials: int, seed: int, threads: int | None = None,
                chunk_size: int | None = None) -> PlayersResult:
    """Compile ``scenario`` and play ``trials`` multiplayer games of it (P-44..P-50)."""
    arrays = compile_game(scenario)
    counts = simulate(arrays, trials, seed, threads, chunk_size)
    return PlayersResult(scenario.name, scenario.variant, trials, seed, arrays.max_days,
                         arrays.seats, arrays.characters, counts, victory_reading(scenario))
