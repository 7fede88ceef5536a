"""Run whole campaigns and summarise them: the library behind ``zonesim campaign``.

:func:`run_campaign` compiles a scenario, runs the campaign kernel and
returns a :class:`CampaignResult` whose numbers all carry 95 % intervals:
P(reached the Sarcophagus), P(survived), P(killed by the Final Emission), the
table of how games end, days to the Sarcophagus (mean, median, 10th and 90th
percentile, histogram), a Kaplan-Meier survival curve by day (games are cut
off by reaching the Sarcophagus, which censors them), and per-game means of
knock-outs, Emissions, items used and more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np
import pandas as pd

from sim import runner, stats
from sim.campaign.compile import CampaignArrays, compile_campaign
from sim.experiments.naming import DAY_STATS
from sim.kernels import campaign as K
from sim.rules.scenario import Scenario

ENDS = ("reached", "knocked_out_in_sarcophagus", "concussion_in_sarcophagus",
        "fifth_deformation", "knockout_and_concussion", "final_emission", "capped")
"""How a game ends, in kernel order (:mod:`sim.kernels.campaign`)."""

DEATHS = ENDS[1:6]

MEANS = {"knockouts": K.SUM_KNOCKOUTS, "concussions": K.SUM_CONCUSSIONS,
         "deformations": K.SUM_DEFORMATIONS, "emissions": K.SUM_EMISSIONS,
         "emissions_suffered": K.SUM_EMISSIONS_HIT, "items_used": K.SUM_ITEMS_USED,
         "fights": K.SUM_FIGHTS, "kills": K.SUM_KILLS, "anomalies_entered": K.SUM_ANOMALIES,
         "artifacts_found": K.SUM_ARTIFACTS, "events": K.SUM_EVENTS,
         "complexes_explored": K.SUM_COMPLEXES, "rubles_at_end": K.SUM_RUBLES,
         "artifacts_used": K.SUM_ART_USES, "side_effects": K.SUM_SIDE_EFFECTS,
         "exchanges": K.SUM_EXCHANGES}

PROBABILITIES = ("p_sarcophagus", "p_survive", "p_final_emission", "p_capped")
FRAME_METRICS = (*PROBABILITIES, *(f"days.{k}" for k in DAY_STATS),
                 *(f"causes.{c}" for c in DEATHS), *MEANS)
"""Metric columns of :meth:`CampaignResult.to_frame`, known before any game is played,
named in the one scheme of :mod:`sim.experiments.naming`."""


def simulate(arrays: CampaignArrays, trials: int, seed: int, threads: int | None = None,
             chunk_size: int | None = None) -> np.ndarray:
    """Kernel aggregates of ``trials`` games (columns of :mod:`sim.kernels.campaign`).

    ``arrays`` is a compiled scenario, one-stalker (:class:`CampaignArrays`) or
    multiplayer (:class:`sim.campaign.players.GameArrays`).
    """
    width = int(K.count_width(arrays.max_days, arrays.n_characters))
    return runner.run_counts(K.campaign_kernel, seed, trials, (width,), arrays.pack(),
                             threads=threads, chunk_size=chunk_size)


TRIAL_COLUMNS = ("end", "day", "knockouts", "concussions", "deformations",
                 "emissions_suffered", "emissions", "items_used", "fights", "kills",
                 "anomalies_entered", "artifacts_found", "events", "complexes_explored",
                 "rubles_at_end")
"""Columns of :func:`simulate_trials` (the kernel's ``G_*`` order)."""
assert len(TRIAL_COLUMNS) == K.G_SIZE

TRIAL_CHUNK = 1024
"""Games per task of :func:`simulate_trials` on the runner's threads (any value: same rows)."""


def simulate_trials(arrays: CampaignArrays, seed: int, first: int, n_trials: int,
                    threads: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Per-game results of trials ``first .. first + n_trials - 1`` of a run with ``seed``.

    Game ``t`` plays on the streams of ``(seed, t)``, exactly as in
    :func:`simulate`, so the rows of trials ``0 .. n - 1`` add up to
    ``simulate(arrays, n, seed)`` bit for bit; two scenarios played over the
    same trial indices share their dice, deck and environment streams (common
    random numbers).

    Parameters
    ----------
    arrays : CampaignArrays
        A compiled scenario.
    seed, first, n_trials : int
        Run seed (``>= 0``), first trial index (``>= 0``) and number of games (``>= 1``).
    threads : int, optional
        Kernel threads; never changes a row.
    out : ndarray of int64, shape (>= n_trials, G_ROW), optional
        A buffer to fill (its first ``n_trials`` rows), reused across blocks.

    Returns
    -------
    ndarray of int64, shape (n_trials, G_ROW)
        One row per game, first columns :data:`TRIAL_COLUMNS`: end code
        (``ENDS`` order), the day it ended, then the game's counters; then
        the game's and every seat's multiplayer columns (``G_WINNERS`` ..).
    """
    if seed < 0 or first < 0:
        raise ValueError("seed and first must be >= 0")
    if n_trials < 1:
        raise ValueError("n_trials must be >= 1")
    if out is None:
        out = np.empty((n_trials, K.G_ROW), dtype=np.int64)
    rows = out[:n_trials]
    tables = arrays.pack()
    runner.announce_compile(K.play_games)

    def play(c: int) -> None:
        lo = c * TRIAL_CHUNK
        K.play_games(seed, first + lo, min(TRIAL_CHUNK, n_trials - lo), tables, rows, lo)

    with runner.thread_count(threads), runner.thread_pool(numba.get_num_threads()) as pool:
        runner.run_tasks(pool, play, -(-n_trials // TRIAL_CHUNK))
    return rows


def _percentile(hist: np.ndarray, q: float) -> float | None:
    """The smallest day by which a fraction ``q`` of the histogram's games ended."""
    total = hist.sum()
    if total == 0:
        return None
    return float(np.searchsorted(np.cumsum(hist), q * total))


def kaplan_meier(deaths: np.ndarray, ended: np.ndarray, trials: int) -> list[dict]:
    """Kaplan-Meier survival by day with Greenwood 95 % intervals.

    Parameters
    ----------
    deaths : ndarray of int, shape (max_days + 1,)
        Games ended by a death on each day.
    ended : ndarray of int, shape (max_days + 1,)
        Games ended on each day for any reason (deaths, and the censored ones
        that reached the Sarcophagus or were cut off).
    trials : int
        Games at the start.

    Returns
    -------
    list of dict
        ``{"day", "survival", "ci_low", "ci_high", "at_risk"}`` for days 1..max_days.
    """
    curve, survival, greenwood = [], 1.0, 0.0
    at_risk = trials - int(ended[0])
    for day in range(1, len(deaths)):
        d = int(deaths[day])
        if at_risk > 0 and d > 0:
            survival *= 1.0 - d / at_risk
            if at_risk > d:
                greenwood += d / (at_risk * (at_risk - d))
        half = stats.Z95 * survival * math.sqrt(greenwood)
        curve.append({"day": day, "survival": survival, "ci_low": max(0.0, survival - half),
                      "ci_high": min(1.0, survival + half), "at_risk": at_risk})
        at_risk -= int(ended[day])
    return curve


@dataclass(frozen=True)
class CampaignResult:
    """Aggregated games of one scenario; every number from ``counts``."""

    scenario: str
    trials: int
    seed: int
    max_days: int
    counts: np.ndarray

    def histogram(self, end: int) -> np.ndarray:
        """Games with ``end`` (a kernel code) by the day they ended, days 0..max_days."""
        start = K.HIST + end * (self.max_days + 1)
        return self.counts[start:start + self.max_days + 1]

    def _share(self, count: int) -> dict:
        low, high = stats.wilson(int(count), self.trials)
        return {"mc": int(count) / self.trials, "ci_low": low, "ci_high": high}

    def to_dict(self) -> dict:
        """The JSON document of ``zonesim campaign`` (keys as in the campaign issue)."""
        ends = self.counts[:K.N_ENDS]
        reached = self.histogram(K.REACHED)
        days = np.arange(self.max_days + 1)
        n_reached = int(reached.sum())
        deaths = sum(self.histogram(e) for e in range(1, 6))
        ended = sum(self.histogram(e) for e in range(K.N_ENDS))
        mean_days = float((reached * days).sum() / n_reached) if n_reached else None
        means = {}
        for name, column in MEANS.items():
            means[name] = float(self.counts[column]) / self.trials
        return {
            "scenario": self.scenario,
            "trials": self.trials,
            "seed": self.seed,
            "p_sarcophagus": self._share(ends[K.REACHED]),
            "p_survive": self._share(ends[K.REACHED] + ends[K.CAPPED]),
            "p_final_emission": self._share(ends[K.DEATH_FINAL_EMISSION]),
            "p_capped": self._share(ends[K.CAPPED]),
            "days": {
                "mean": mean_days,
                "median": _percentile(reached, 0.5),
                "p10": _percentile(reached, 0.1),
                "p90": _percentile(reached, 0.9),
                "histogram": [int(x) for x in reached],
            },
            "causes": [{"cause": name, **self._share(ends[i])}
                       for i, name in enumerate(ENDS) if name in DEATHS],
            "ends": [{"end": name, **self._share(ends[i])} for i, name in enumerate(ENDS)],
            "survival": kaplan_meier(deaths, ended, self.trials),
            "game_days": stats.mean_interval(float(self.counts[K.SUM_DAYS]),
                                             float(self.counts[K.SUM_DAYS_SQ]), self.trials)[0],
            **means,
        }

    def outcomes_by_day(self) -> list[dict]:
        """Where the games stand at the end of each day: won, dead or still in the Zone.

        The three shares add up to 1 every day (a game capped after the last
        day counts as still in the Zone), so they stack into one chart; each
        carries its Wilson 95 % interval.

        Returns
        -------
        list of dict
            ``{"day", "won", "won_ci_low", "won_ci_high", "dead", ..., "in_zone", ...}``
            for days 0..max_days.
        """
        won = np.cumsum(self.histogram(K.REACHED))
        dead = np.cumsum(sum(self.histogram(e) for e in range(1, 6)))
        rows = []
        for day in range(self.max_days + 1):
            row: dict = {"day": day}
            counts = (("won", won[day]), ("dead", dead[day]),
                      ("in_zone", self.trials - won[day] - dead[day]))
            for key, count in counts:
                share = self._share(count)
                row.update({key: share["mc"], f"{key}_ci_low": share["ci_low"],
                            f"{key}_ci_high": share["ci_high"]})
            rows.append(row)
        return rows

    def to_frame(self) -> pd.DataFrame:
        """One flat row: each probability with its interval, the day statistics and means."""
        data = self.to_dict()
        row = {"scenario": self.scenario, "trials": self.trials, "seed": self.seed}
        for key in PROBABILITIES:
            row[key] = data[key]["mc"]
            row[f"{key}_ci_low"] = data[key]["ci_low"]
            row[f"{key}_ci_high"] = data[key]["ci_high"]
        for key in DAY_STATS:
            row[f"days.{key}"] = data["days"][key]
        for cause in data["causes"]:
            row[f"causes.{cause['cause']}"] = cause["mc"]
        for key in MEANS:
            row[key] = data[key]
        return pd.DataFrame([row])


def run_campaign(scenario: Scenario, *, trials: int, seed: int, threads: int | None = None,
                 chunk_size: int | None = None) -> CampaignResult:
    """Compile ``scenario`` and run ``trials`` games of it (P-37..P-50, Z-18..Z-26)."""
    arrays = compile_campaign(scenario)
    counts = simulate(arrays, trials, seed, threads, chunk_size)
    return CampaignResult(scenario.name, trials, seed, arrays.max_days, counts)
