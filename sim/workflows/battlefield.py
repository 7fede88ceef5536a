"""Compare and sweep battlefield values of a skirmish scenario, like card values (issue 50).

``zonesim compare skirmish`` and ``zonesim sweep --experiment skirmish`` read
``--vary KEY=V1,V2`` with the one parser of ``zonesim skirmish --vary``
(:func:`sim.skirmish.vary.grid`: the cross product of the keys), play every point
on common random numbers (:func:`sim.experiments.skirmish.paired`) and shape one
row per point, side and metric: the estimate with its 95 % interval (Wilson for
a proportion, normal for a mean), the paired difference to the first point with
its normal interval, and the verdict of :func:`sim.workflows.compare.verdict`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sim import stats
from sim.experiments import tables
from sim.experiments.skirmish import PAIRED_METRICS, PairedFights, paired
from sim.kernels.paired import AGGREGATE
from sim.rules.skirmish_model import Scenario
from sim.skirmish.vary import VaryError, grid
from sim.workflows.compare import BASELINE, verdict

METRICS: tuple[str, ...] = tuple(dict.fromkeys(m.name for m in PAIRED_METRICS.values()))
"""The metric names a row may have, in the kernel's column order."""
ROW_KEYS = ("variant", "side", "metric", "mc", "ci_low", "ci_high", "diff", "diff_ci_low",
            "diff_ci_high", "verdict")


@dataclass(frozen=True)
class BattlefieldComparison:
    """The points of a battlefield grid on common random numbers, with their rows."""

    scenario: Scenario
    keys: tuple[str, ...]
    points: tuple[tuple[str, ...], ...]
    result: PairedFights

    @property
    def labels(self) -> list[str]:
        """Each point as ``KEY=V; KEY2=V2``."""
        return ["; ".join(f"{k}={v}" for k, v in zip(self.keys, p, strict=True))
                for p in self.points]

    def rows(self, metrics: Sequence[str] | None = None) -> list[dict]:
        """One row per point, side and metric (keys :data:`ROW_KEYS`), points in grid order.

        The difference is the paired one to the first point, on the same trials:
        its interval is exactly ``[0, 0]`` when the point played every fight as the
        first did (a value that never reached the fight).
        """
        res = self.result
        n = res.trials
        rows = []
        for v, label in enumerate(self.labels):
            for m, (side, metric) in enumerate(res.columns):
                if metrics is not None and metric.name not in metrics:
                    continue
                sums = res.sums[v, :, m]
                s, s2 = float(sums[AGGREGATE.SUM]), float(sums[AGGREGATE.SUM_SQ])
                cell = (tables.proportion(round(s), n) if metric.kind == "proportion"
                        else tables.mean(s, s2, n))
                row = {"variant": label, "side": side, "metric": metric.name,
                       **{x: cell[x] for x in ("mc", "ci_low", "ci_high")}}
                if v == 0:
                    row.update(diff=0.0, diff_ci_low=0.0, diff_ci_high=0.0, verdict=BASELINE)
                else:
                    diff, low, high = stats.mean_interval(float(sums[AGGREGATE.DIFF]),
                                                          float(sums[AGGREGATE.DIFF_SQ]), n)
                    row.update(diff=diff, diff_ci_low=low, diff_ci_high=high,
                               verdict=verdict(metric, diff, low, high))
                rows.append(row)
        return rows

    def to_dict(self, metrics: Sequence[str] | None = None) -> dict:
        """The JSON document: the scenario, the grid, the trials and seed, every row."""
        return {"scenario": self.scenario.name, "file": str(self.scenario.path),
                "vary": list(self.keys), "trials": self.result.trials,
                "seed": self.result.seed, "baseline": self.labels[0],
                "points": [dict(zip(self.keys, p, strict=True)) for p in self.points],
                "rows": self.rows(metrics)}


def check_metrics(metrics: Sequence[str]) -> None:
    """Refuse a metric name that no row has (before any fight is played)."""
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise VaryError(f"option '--metric': {', '.join(map(repr, unknown))} is not a "
                        f"skirmish metric (known: {', '.join(METRICS)})")


def compare_battlefield(scenario: Scenario, varies: Sequence[str], *, trials: int, seed: int,
                        threads: int | None = None) -> BattlefieldComparison:
    """Play every point of the ``--vary`` grid of a battlefield scenario on the same dice.

    Raises
    ------
    VaryError
        A ``--vary`` text the grid refuses (:func:`sim.skirmish.vary.grid`), or a grid
        of one point (nothing to compare).
    """
    points = grid(scenario, varies)
    if len(points) < 2:
        raise VaryError("option '--vary': give at least two values to compare")
    keys = tuple(text.partition("=")[0].strip() for text in varies)
    result = paired([s for _, s in points], trials=trials, seed=seed, threads=threads)
    return BattlefieldComparison(scenario=scenario, keys=keys,
                                 points=tuple(values for values, _ in points), result=result)
