"""The skirmish library: run firefights and single actions, return tidy results.

:func:`simulate` is what ``zonesim skirmish`` prints: it compiles a scenario,
runs :func:`sim.kernels.skirmish.firefight_kernel` and turns the summed
counts into a :class:`FightResult` with 95 % intervals (Wilson for
proportions, normal for means). The CLI only formats it. :func:`paired` plays
variants of one scenario (battlefield values varied, :mod:`sim.skirmish.vary`)
on common random numbers for ``zonesim compare skirmish`` and ``zonesim sweep
--experiment skirmish`` (:mod:`sim.workflows.battlefield`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim import runner, stats
from sim.experiments.base import Metric
from sim.kernels import paired as paired_kernels
from sim.kernels import skirmish as k
from sim.kernels import skirmish_layout as layout
from sim.rules.skirmish_model import Scenario
from sim.skirmish.compile import CompiledFight, compile_scenario


@dataclass(frozen=True)
class SideResult:
    """One side's wins, breaks, withdrawals, figure losses and comrades carried off (S-07)."""

    name: str
    figures: int
    wins: int
    broken: int
    withdrew: int
    shot: tuple[int, ...]
    lost: tuple[int, ...]
    carried_sum: int = 0
    carried_sq: int = 0
    surrendered_sum: int = 0
    surrendered_sq: int = 0


@dataclass(frozen=True)
class FightResult:
    """Outcome counts of ``trials`` firefights of one scenario, with their provenance.

    On a battlefield, ``surrendered`` (S-38, S-39) joins each side's figures, and
    ``grids`` holds per side where figures fell (``"fall"``) and last fired from
    (``"fire"``): arrays of counts, ``[row y, column x]``, cells of ``cell`` inches.
    """

    scenario: str
    path: str
    trials: int
    seed: int
    sides: tuple[SideResult, SideResult]
    draws: int
    capped: int
    rounds_sum: int
    rounds_sq: int
    rounds: tuple[int, ...]
    battlefield: bool = False
    grids: dict | None = None
    cell: float = 0.0

    def _p(self, count: int) -> dict:
        low, high = stats.wilson(count, self.trials)
        return {"mc": count / self.trials, "ci_low": low, "ci_high": high}

    def _dist(self, hist: Sequence[int]) -> dict:
        values = np.arange(len(hist))
        total = float(np.dot(values, hist))
        total_sq = float(np.dot(values * values, hist))
        return {**self._mean(total, total_sq),
                "distribution": [{"count": int(v), **self._p(int(n))}
                                 for v, n in zip(values, hist, strict=True)]}

    def _mean(self, total: int, total_sq: int) -> dict:
        mean, low, high = stats.mean_interval(total, total_sq, self.trials)
        return {"mean": mean, "ci_low": low, "ci_high": high}

    def to_dict(self) -> dict:
        """The JSON document of ``zonesim skirmish --format json``."""
        mean, low, high = stats.mean_interval(self.rounds_sum, self.rounds_sq, self.trials)
        return {
            "scenario": self.scenario,
            "file": self.path,
            "trials": self.trials,
            "seed": self.seed,
            "p_draw": self._p(self.draws),
            "sides": [
                {"name": s.name, "figures": s.figures, "p_win": self._p(s.wins),
                 "p_broken": self._p(s.broken), "p_withdrew": self._p(s.withdrew),
                 "casualties": self._dist(s.shot), "lost": self._dist(s.lost),
                 "carried_off": self._mean(s.carried_sum, s.carried_sq),
                 **({"surrendered": self._mean(s.surrendered_sum, s.surrendered_sq)}
                    if self.battlefield else {})}
                for s in self.sides
            ],
            "rounds": {"mean": mean, "ci_low": low, "ci_high": high,
                       "p_capped": self._p(self.capped),
                       "distribution": self._dist(self.rounds)["distribution"][1:]},
        }

    def to_frame(self) -> pd.DataFrame:
        """Tidy rows: side, quantity, value, mc, ci_low, ci_high."""
        doc = self.to_dict()
        rows = [{"side": "(fight)", "quantity": "p_draw", "value": "", **doc["p_draw"]},
                {"side": "(fight)", "quantity": "rounds_mean", "value": "",
                 **{x: doc["rounds"][x] for x in ("ci_low", "ci_high")},
                 "mc": doc["rounds"]["mean"]},
                {"side": "(fight)", "quantity": "p_capped", "value": "",
                 **doc["rounds"]["p_capped"]}]
        for side in doc["sides"]:
            for q in ("p_win", "p_broken", "p_withdrew"):
                rows.append({"side": side["name"], "quantity": q, "value": "", **side[q]})
            for q in ("carried_off", "surrendered")[:2 if self.battlefield else 1]:
                d = side[q]
                rows.append({"side": side["name"], "quantity": f"{q}_mean", "value": "",
                             "mc": d["mean"], "ci_low": d["ci_low"], "ci_high": d["ci_high"]})
            for q in ("casualties", "lost"):
                d = side[q]
                rows.append({"side": side["name"], "quantity": f"{q}_mean", "value": "",
                             "mc": d["mean"], "ci_low": d["ci_low"], "ci_high": d["ci_high"]})
                for cell in d["distribution"]:
                    rows.append({"side": side["name"], "quantity": q,
                                 "value": str(cell["count"]),
                                 **{x: cell[x] for x in ("mc", "ci_low", "ci_high")}})
        return pd.DataFrame(rows, columns=["side", "quantity", "value", "mc", "ci_low",
                                           "ci_high"])


def fight_counts(fight: CompiledFight, *, trials: int, seed: int, threads: int | None = None,
                 chunk_size: int | None = None) -> np.ndarray:
    """Summed kernel row (layout :func:`sim.kernels.skirmish.row_layout`) of ``trials`` fights."""
    return runner.run_counts(k.firefight_kernel, seed, trials, (fight.width,),
                             *fight.kernel_args(), threads=threads, chunk_size=chunk_size)


def result_from_counts(scenario: Scenario, fight: CompiledFight, row: np.ndarray, trials: int,
                       seed: int) -> FightResult:
    """Turn a summed kernel row into a :class:`FightResult`."""
    n0, n1 = fight.sizes
    shot0, shot1, lost0, lost1, o_rounds, width = k.row_layout(
        n0, n1, int(fight.params[k.P_MAX_ROUNDS]))
    cut = [(shot0, shot1, lost0), (shot1, lost0, lost1)]
    sides = []
    for g, group in enumerate(scenario.groups):
        s_from, s_to, l_from = cut[g]
        n = len(group.figures)
        sides.append(SideResult(
            name=group.name, figures=n, wins=int(row[k.O_WIN + g]),
            broken=int(row[k.O_BROKEN + g]), withdrew=int(row[k.O_WITHDREW + g]),
            shot=tuple(int(x) for x in row[s_from:s_to]),
            lost=tuple(int(x) for x in row[l_from:l_from + n + 1]),
            carried_sum=int(row[k.O_CARRIED + g]), carried_sq=int(row[k.O_CARRIED_SQ + g]),
            surrendered_sum=int(row[k.O_SURR + g]), surrendered_sq=int(row[k.O_SURR_SQ + g])))
    grids = None
    if fight.field is not None:
        nx, ny = fight.grid
        offsets = k.grid_layout(width, nx, ny)
        block = [row[offsets[i]:offsets[i + 1]].reshape(ny, nx).astype(np.int64)
                 for i in range(4)]
        grids = {"fall": (block[0], block[1]), "fire": (block[2], block[3])}
    return FightResult(
        scenario=scenario.name, path=str(scenario.path), trials=trials, seed=seed,
        sides=(sides[0], sides[1]), draws=int(row[k.O_DRAW]), capped=int(row[k.O_CAPPED]),
        rounds_sum=int(row[k.O_ROUNDS_SUM]), rounds_sq=int(row[k.O_ROUNDS_SQ]),
        rounds=tuple(int(x) for x in row[o_rounds:width]), battlefield=grids is not None,
        grids=grids, cell=fight.field.cell if fight.field is not None else 0.0)


def simulate(scenario: Scenario, *, trials: int, seed: int, threads: int | None = None,
             chunk_size: int | None = None) -> FightResult:
    """Play ``trials`` firefights of a scenario (S-07..S-43) and summarise them.

    Parameters
    ----------
    scenario : Scenario
        A validated scenario (:func:`sim.rules.skirmish_loader.load_scenario`).
    trials : int
        Number of fights, ``>= 1``.
    seed : int
        Run seed; the result depends only on it, never on threads or chunking.
    threads, chunk_size : int, optional
        Execution settings that never change a result.
    """
    fight = compile_scenario(scenario)
    row = fight_counts(fight, trials=trials, seed=seed, threads=threads, chunk_size=chunk_size)
    return result_from_counts(scenario, fight, row, trials, seed)


def volley_counts(skill: int, alloc: Sequence[int], levels: Sequence[int],
                  need: Sequence[int], *, trials: int, seed: int,
                  threads: int | None = None) -> dict[tuple[int, ...], int]:
    """Monte Carlo joint hits per target of one volley (S-26, S-29, S-30)."""
    alloc_a = np.asarray(alloc, dtype=np.int64)
    counts = runner.run_counts(k.volley_kernel, seed, trials, (int(np.prod(alloc_a + 1)),),
                               skill, alloc_a, np.asarray(levels, dtype=np.int64),
                               np.asarray(need, dtype=np.int64), threads=threads)
    keys = np.ndindex(*(int(a) + 1 for a in alloc))
    return dict(zip(keys, (int(c) for c in counts), strict=True))


def group_reaction_counts(skills: Sequence[int], covering: Sequence[bool], extra: int, cap: int,
                          *, trials: int, seed: int,
                          threads: int | None = None) -> dict[tuple[int, ...], int]:
    """Monte Carlo joint dice passed per member of a group on shared dice (S-10, S-11, S-15)."""
    counts = runner.run_counts(k.group_reaction_kernel, seed, trials, ((cap + 1) ** len(skills),),
                               np.asarray(skills, dtype=np.int64),
                               np.asarray(covering, dtype=np.int64), extra, cap, threads=threads)
    keys = np.ndindex(*([cap + 1] * len(skills)))
    return dict(zip(keys, (int(c) for c in counts), strict=True))


PAIRED_METRICS: dict[str, Metric] = {
    "M_DRAW": Metric("p_draw", "proportion", label="draw"),
    "M_ROUNDS": Metric("rounds", label="rounds played"),
    "M_WIN": Metric("p_win", "proportion", label="won"),
    "M_BROKEN": Metric("p_broken", "proportion", label="broken"),
    "M_WITHDREW": Metric("p_withdrew", "proportion", label="withdrew"),
    "M_SHOT": Metric("casualties", label="figures shot"),
    "M_LOST": Metric("lost", label="figures lost"),
    "M_SURR": Metric("surrendered", label="figures surrendered (S-38, S-39)"),
}
"""The metric of each column of the paired kernel (``skirmish_layout.PAIRED``), named as in
``zonesim skirmish``'s JSON; the two-wide columns are one per side. None has a better
direction: a higher value is better for one side and worse for the other."""
FIGHT = "(fight)"
"""The side column of a metric of the whole fight (a draw, the rounds)."""


def paired_columns(sides: Sequence[str]) -> list[tuple[str, Metric]]:
    """``(side, metric)`` of each column of the paired kernel's output, in column order."""
    out = []
    for slot in layout.PAIRED.slots:
        width = layout.PAIRED.width[slot]
        out += [(FIGHT if width == 1 else sides[g], PAIRED_METRICS[slot]) for g in range(width)]
    return out


@dataclass(frozen=True)
class PairedFights:
    """Variants of one fight played on common random numbers.

    ``sums`` (V, N_SUMS, N_PAIRED) are :mod:`sim.kernels.paired`'s sums per
    variant (rows ``AGGREGATE``: sum, sum of squares, paired difference to
    variant 0 and its square) of the columns :func:`paired_columns` names.
    """

    trials: int
    seed: int
    sides: tuple[str, str]
    sums: np.ndarray

    @property
    def columns(self) -> list[tuple[str, Metric]]:
        """``(side, metric)`` of each column of ``sums``."""
        return paired_columns(self.sides)


def paired(scenarios: Sequence[Scenario], *, trials: int, seed: int,
           threads: int | None = None, chunk_size: int | None = None) -> PairedFights:
    """Play the variants ``scenarios`` of one fight on the same dice (common random numbers).

    Every variant has the same figures (only battlefield values differ,
    :func:`sim.skirmish.vary.variants`); trial ``t`` of each plays on the (seed, t)
    streams, so a change that never acts leaves every fight, and the paired
    difference, exactly 0 (:func:`sim.kernels.skirmish.paired_firefight_kernel`).
    """
    fights = [compile_scenario(s) for s in scenarios]
    if len({f.fig.shape for f in fights}) != 1:
        raise ValueError("the variants of a paired skirmish differ in their figures")
    args = [f.kernel_args() for f in fights]
    fig, grp, distance, need, damage, params, xy0, bld, opn, cov, lit, fp = (
        list(a) for a in zip(*args, strict=True))
    parts = (bld, opn, cov, lit)
    cuts = np.zeros((len(fights) + 1, len(parts)), dtype=np.int64)
    for j, part in enumerate(parts):
        cuts[1:, j] = np.cumsum([len(a) for a in part])
    sums = runner.run_counts(
        k.paired_firefight_kernel, seed, trials,
        (len(fights), paired_kernels.N_SUMS, layout.N_PAIRED),
        np.stack(fig), np.stack(grp), np.asarray(distance, dtype=np.int64), np.stack(need),
        np.stack(damage), np.stack(params), np.stack(xy0).astype(np.float64),
        *(np.ascontiguousarray(np.concatenate(part)) for part in parts), np.stack(fp), cuts,
        threads=threads, chunk_size=chunk_size, dtype=np.float64)
    names = scenarios[0].groups
    return PairedFights(trials=trials, seed=seed, sides=(names[0].name, names[1].name),
                        sums=sums)
