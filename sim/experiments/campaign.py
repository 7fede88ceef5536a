"""Run whole campaigns and summarise them: the library behind ``zonesim campaign``.

:func:`run_campaign` compiles a scenario, runs the campaign kernel and
returns a :class:`CampaignResult` whose numbers all carry 95 % intervals:
the win rate (reached and survived the Sarcophagus), P(reached it, survived
or not), P(survived), P(killed by the Final Emission), the
table of how games end, days to the Sarcophagus (mean, median, 10th and 90th
percentile, histogram), a Kaplan-Meier survival curve by day (games are cut
off by reaching the Sarcophagus, which censors them), and per-game means of
knock-outs, Emissions, items used and more. Every metric is declared once, in
:data:`METRICS` (name, kind, which way is better, plain label); every output
reads its label from there (:func:`label`).
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numba
import numpy as np
import pandas as pd

from sim import runner, stats
from sim.campaign.compile import CampaignArrays
from sim.campaign.players import compile_scenario
from sim.experiments.campaign_metrics import (  # noqa: F401 - the campaign's metric names
    CAPPED,
    CAUSE_LABELS,
    DAY_LABELS,
    DAYS_MEAN,
    DEATHS,
    ENDS,
    FINAL_EMISSION,
    FRAME_METRICS,
    GAME_DAYS,
    LABELS,
    MEAN_NAMES,
    METRICS,
    PROBABILITIES,
    QUANTILES,
    REACH,
    SURVIVE,
    SURVIVE_SARCOPHAGUS,
    WIN_RATE,
    economy_lines,
    label,
)
from sim.experiments.naming import DAY_STATS
from sim.kernels import campaign as K
from sim.kernels.campaign.game import campaign_kernel, count_games, play_games
from sim.rules.scenario import Scenario

RENAMED = {"G_EMISSIONS_HIT": "emissions_suffered", "G_ANOMALIES": "anomalies_entered",
           "G_ARTIFACTS": "artifacts_found", "G_COMPLEXES": "complexes_explored",
           "G_RUBLES": "rubles_at_end", "G_ART_USES": "artifacts_used",
           "G_TROPHIES": "trophies_found"}
"""The result columns whose metric is named otherwise than the column (``G_KILLS`` is
``kills``; :func:`column_name`)."""


def column_name(slot: str) -> str:
    """The metric name of a result column of the kernel's records: ``G_KILLS`` -> ``kills``."""
    return RENAMED.get(slot, slot.removeprefix("G_").lower())


def counted(rows: Sequence = (K.ONE_STALKER, K.GAME),
            sums=K.SUMS) -> dict[str, tuple[int, int]]:
    """Each per-game counter: its column in a result row (``G_X``) and of its sum (``SUM_X``).

    Read from the kernel's declarations (:data:`sim.kernels.campaign.ONE_STALKER`,
    ``GAME``, ``SUMS``): a result column is a counter when the counts sum it.
    """
    columns = {name: index for record in rows for name, index in record.constants.items()}
    return {column_name(slot): (columns[slot], sums.constants["SUM_" + slot.removeprefix("G_")])
            for record in rows for slot in record.slots
            if "SUM_" + slot.removeprefix("G_") in sums.slots}


_COUNTED = counted()
COUNTERS = {name: _COUNTED[name][0] for name in MEAN_NAMES}
"""Per-game counters: the column of each in a game's result row (kernel ``G_*``)."""
MEANS = {name: _COUNTED[name][1] for name in MEAN_NAMES}
"""The same counters: the column of each one's sum in the kernel's counts (``SUM_*``)."""

assert set(_COUNTED) == set(MEAN_NAMES)  # the kernel's counters are the declared means



def simulate(arrays: CampaignArrays, trials: int, seed: int, threads: int | None = None,
             chunk_size: int | None = None) -> np.ndarray:
    """Kernel aggregates of ``trials`` games (columns of :mod:`sim.kernels.campaign`).

    ``arrays`` is a compiled scenario, one-stalker (:class:`CampaignArrays`) or
    multiplayer (:class:`sim.campaign.players.GameArrays`).
    """
    width = int(K.count_width(arrays.max_days, arrays.n_characters))
    return runner.run_counts(campaign_kernel, seed, trials, (width,), arrays.pack(),
                             threads=threads, chunk_size=chunk_size)


TRIAL_COLUMNS = tuple(column_name(slot) for slot in K.ONE_STALKER.slots)
"""The one-stalker columns of :func:`simulate_trials` (the kernel's ``G_*`` order,
:data:`sim.kernels.campaign.ONE_STALKER`): ``end``, ``day``, then the counters."""

_PACKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def packed(arrays: CampaignArrays) -> np.ndarray:
    """``arrays.pack()``, packed once per compiled scenario object (the kernel only reads it).

    A search plays one compiled candidate in many runs of a few thousand games (each
    rung, each block); packing its tables again for each run was a large part of the
    report's time outside the kernels (issue 45, item 4). Kept while ``arrays`` lives.
    """
    tables = _PACKED.get(arrays)
    if tables is None:
        tables = _PACKED[arrays] = arrays.pack()
    return tables


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
    tables = packed(arrays)
    runner.announce_compile(play_games)

    def play(c: int) -> None:
        lo = c * TRIAL_CHUNK
        play_games(seed, first + lo, min(TRIAL_CHUNK, n_trials - lo), tables, rows, lo)

    with runner.thread_count(threads), runner.thread_pool(numba.get_num_threads()) as pool:
        runner.run_tasks(pool, play, -(-n_trials // TRIAL_CHUNK))
    return rows


BLOCK = 65_536
"""Games per block of :func:`game_blocks` (any value gives the same sums); the paired
campaign comparison plays every variant's block before the next one starts
(:mod:`sim.experiments.campaign_paired`)."""


def game_blocks(variants: Sequence[CampaignArrays], *, seed: int, trials: int, first: int = 0,
                threads: int | None = None,
                block: int = BLOCK) -> Iterator[tuple[int, int, np.ndarray]]:
    """Games ``first .. first + trials - 1`` of every variant, block by block, paired.

    The one loop of every caller that plays per-game rows (:func:`simulate_trials`):
    for each block of at most ``block`` trials, each variant in turn plays the same
    trial indices on the streams of ``(seed, t)`` (common random numbers), and the
    rows are yielded as ``(lo, v, rows)``: the block's first trial relative to
    ``first``, the variant's index and its rows (``len(rows)`` games). Memory stays
    one block whatever the number of trials: ``rows`` is a view of one reused buffer,
    valid until the next item is drawn (copy what is kept). The watching progress
    (:mod:`sim.runner`) hears of ``trials * len(variants)`` games.

    Parameters
    ----------
    variants : sequence of CampaignArrays
        Compiled scenarios (one-stalker or multiplayer), the baseline first.
    seed, trials, first : int
        Run seed, number of games and the first trial index.
    threads : int, optional
        Kernel threads; never changes a row.
    block : int
        Trials per block (``>= 1``); never changes a row.
    """
    if block < 1:
        raise ValueError("block must be >= 1")
    buffer = np.empty((min(block, trials), K.G_ROW), dtype=np.int64)
    runner.started(trials * len(variants))
    for lo in range(0, trials, block):
        n = min(block, trials - lo)
        for v, arrays in enumerate(variants):
            yield lo, v, simulate_trials(arrays, seed, first + lo, n, threads, out=buffer)
            runner.advanced(n)


def exact_sums(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column sums and sums of squares of an integer block, exactly (as Python ints)."""
    if x.size and np.abs(x).max() >= 2**23:  # x * x * BLOCK could overflow int64
        x = x.astype(object)
    return x.sum(axis=0).astype(object), (x * x).sum(axis=0).astype(object)


@dataclass(frozen=True)
class GameSums:
    """What :func:`play_blocks` adds up over the games, memory independent of their number.

    Attributes
    ----------
    counts : ndarray of int64
        :func:`simulate`'s counts (the kernel's ``SUM_*``, histogram and ``MP_*`` columns).
    squares : dict of str to int
        Per counter of :data:`COUNTERS`: the sum over games of its square.
    entered : int
        Games in which the stalker entered the Sarcophagus (P-50), survived or not.
    """

    counts: np.ndarray
    squares: dict[str, int]
    entered: int


def play_blocks(arrays: CampaignArrays, trials: int, seed: int, threads: int | None = None,
                block: int | None = None) -> GameSums:
    """The counts of :func:`simulate`, and the sums of squares of every per-game counter.

    The games are played in blocks of ``block`` (:func:`game_blocks`, one
    row per game in one reused buffer); the kernel's own aggregation
    (:func:`sim.kernels.campaign.game.count_games`) adds each block to the counts,
    so they equal :func:`simulate`'s bit for bit, and numpy adds the squares
    of each counter and the games that entered the Sarcophagus (exact
    integers: any thread count or block size gives the same sums).
    """
    counts = np.zeros(int(K.count_width(arrays.max_days, arrays.n_characters)), dtype=np.int64)
    squares = np.zeros(len(COUNTERS), dtype=object)
    entered = 0
    columns = list(COUNTERS.values())
    for _, _, rows in game_blocks([arrays], seed=seed, trials=trials, threads=threads,
                                  block=block or BLOCK):
        count_games(rows, len(rows), counts, int(arrays.max_days), int(arrays.n_characters))
        squares += exact_sums(rows[:, columns])[1]
        entered += int(rows[:, K.G_SARCOPHAGUS].sum())
    return GameSums(counts, {name: int(v) for name, v in zip(COUNTERS, squares, strict=True)},
                    entered)


def day_quantiles(hist: np.ndarray, prefix: str = "") -> dict:
    """The median, 10th and 90th percentile of a day histogram, each with its 95 % interval.

    ``{"median", "median_ci_low", "median_ci_high", "p10", ...}`` (keys after
    ``prefix``), from :func:`sim.stats.histogram_quantile`; None for each when no
    game is counted.
    """
    cells = {}
    for key, q in QUANTILES.items():
        estimate, low, high = stats.histogram_quantile(hist, q) or (None, None, None)
        cells.update({f"{prefix}{key}": estimate, f"{prefix}{key}_ci_low": low,
                      f"{prefix}{key}_ci_high": high})
    return cells


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
    squares: Mapping[str, int]
    """Per counter of :data:`COUNTERS`: the sum over games of its square (intervals)."""
    entered: int
    """Games that entered the Sarcophagus, survived or not (``p_reach_sarcophagus``)."""

    def histogram(self, end: int) -> np.ndarray:
        """Games with ``end`` (a kernel code) by the day they ended, days 0..max_days."""
        start = K.HIST + end * (self.max_days + 1)
        return self.counts[start:start + self.max_days + 1]

    def _share(self, count: int, of: int | None = None) -> dict:
        """``count`` games as a share of ``of`` (default: every game), Wilson 95 %; no
        estimate (None) of no game.
        """
        n = self.trials if of is None else int(of)
        if n == 0:
            return {"mc": None, "ci_low": None, "ci_high": None}
        low, high = stats.wilson(int(count), n)
        return {"mc": int(count) / n, "ci_low": low, "ci_high": high}

    def _mean(self, total: int, total_sq: int) -> dict:
        """A mean per game with its normal 95 % interval: ``{"mc", "ci_low", "ci_high"}``."""
        _, low, high = stats.mean_interval(float(total), float(total_sq), self.trials)
        return {"mc": float(total) / self.trials, "ci_low": low, "ci_high": high}

    def same_as(self) -> dict[str, str]:
        """The metrics equal to another in every game of this run: ``{metric: the other}``.

        ``causes.final_emission`` is always ``p_final_emission`` under its other
        name; ``p_survive`` (won, or still in the Zone at the day cap) is the win rate in every
        game when no game lasted to the day cap (``p_capped`` 0). Tables show each
        pair once, with a note (issue 46, item 6); the JSON and CSV keep both.
        """
        same = {f"causes.{ENDS[K.DEATH_FINAL_EMISSION]}": FINAL_EMISSION}
        if self.counts[K.CAPPED] == 0:
            same = {SURVIVE: WIN_RATE, **same}
        return same

    def to_dict(self) -> dict:
        """The JSON document of ``zonesim campaign`` (keys as in the campaign issue).

        Every share is ``{"mc", "ci_low", "ci_high"}`` (Wilson 95 %). Every mean
        per game (``game_days``, ``knockouts``, ...) is a number under its name
        and, with its normal 95 % interval, the cell ``means[name]``; each day
        statistic of the games that reached the Sarcophagus has its interval
        beside it: ``days.mean_ci_low`` and ``days.mean_ci_high`` (normal),
        ``days.median_ci_low``, ``days.p10_ci_low``, ... (order statistics of
        the day histogram, :func:`day_quantiles`). ``same_as`` names the metrics
        equal to another in every game (:meth:`same_as`); ``economy`` says which part of the
        economy never acts in these games, in one line each
        (:func:`sim.experiments.campaign_metrics.economy_lines`).
        """
        ends = self.counts[:K.N_ENDS]
        reached = self.histogram(K.REACHED)
        days = np.arange(self.max_days + 1)
        n_reached = int(reached.sum())
        deaths = sum(self.histogram(e) for e in range(1, 6))
        ended = sum(self.histogram(e) for e in range(K.N_ENDS))
        mean_days = float((reached * days).sum() / n_reached) if n_reached else None
        day_low = day_high = None
        if n_reached:
            _, day_low, day_high = stats.mean_interval(
                float((reached * days).sum()), float((reached * days * days).sum()), n_reached)
        means = {GAME_DAYS: self._mean(int(self.counts[K.SUM_DAYS]),
                                         int(self.counts[K.SUM_DAYS_SQ]))}
        for name, column in MEANS.items():
            means[name] = self._mean(int(self.counts[column]), self.squares[name])
        return {
            "scenario": self.scenario,
            "trials": self.trials,
            "seed": self.seed,
            WIN_RATE: self._share(ends[K.REACHED]),
            REACH: self._share(self.entered),
            SURVIVE: self._share(ends[K.REACHED] + ends[K.CAPPED]),
            FINAL_EMISSION: self._share(ends[K.DEATH_FINAL_EMISSION]),
            CAPPED: self._share(ends[K.CAPPED]),
            SURVIVE_SARCOPHAGUS: self._share(ends[K.REACHED], self.entered),
            "days": {
                "mean": mean_days,
                "mean_ci_low": day_low,
                "mean_ci_high": day_high,
                **day_quantiles(reached),
                "histogram": [int(x) for x in reached],
            },
            "causes": [{"cause": name, **self._share(ends[i])}
                       for i, name in enumerate(ENDS) if name in DEATHS],
            "ends": [{"end": name, **self._share(ends[i])} for i, name in enumerate(ENDS)],
            "survival": kaplan_meier(deaths, ended, self.trials),
            **{name: cell["mc"] for name, cell in means.items()},
            "means": means,
            "same_as": self.same_as(),
            "economy": economy_lines(means),
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
        """One flat row: each probability, cause, mean and day statistic with its interval
        (``_ci_low``, ``_ci_high``).
        """
        data = self.to_dict()
        row = {"scenario": self.scenario, "trials": self.trials, "seed": self.seed}
        days = data["days"]
        cells = [*((key, data[key]) for key in PROBABILITIES),
                 (DAYS_MEAN, {"mc": days["mean"], "ci_low": days["mean_ci_low"],
                                "ci_high": days["mean_ci_high"]}),
                 *((f"days.{key}", {"mc": days[key], "ci_low": days[f"{key}_ci_low"],
                                    "ci_high": days[f"{key}_ci_high"]})
                   for key in DAY_STATS[1:]),
                 *((f"causes.{c['cause']}", c) for c in data["causes"]),
                 *((key, data["means"][key]) for key in MEANS)]
        for key, cell in cells:
            row[key] = cell["mc"]
            if "ci_low" in cell:
                row[f"{key}_ci_low"] = cell["ci_low"]
                row[f"{key}_ci_high"] = cell["ci_high"]
        return pd.DataFrame([row])


def run_campaign(scenario: Scenario, *, trials: int, seed: int, threads: int | None = None,
                 chunk_size: int | None = None) -> CampaignResult:
    """Compile ``scenario`` and run ``trials`` games of it (P-37..P-50, Z-18..Z-26).

    ``chunk_size`` is the games per block of :func:`play_blocks` (default
    :data:`BLOCK`); neither it nor ``threads`` changes a number.
    """
    arrays = compile_scenario(scenario)  # every slot under a new-character reading (P-44)
    sums = play_blocks(arrays, trials, seed, threads, chunk_size)
    return CampaignResult(scenario.name, trials, seed, arrays.max_days, sums.counts,
                          sums.squares, sums.entered)
