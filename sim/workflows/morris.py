"""Morris screening of the levers with SALib: which values matter, and which interact.

The one-at-a-time lever finder (:mod:`sim.workflows.levers`) moves one value
with every other value at its current setting, so it cannot see that a value
matters only when another one has moved too. Morris' elementary-effects
screening (Morris 1991; Campolongo et al. 2007), as implemented by SALib,
moves the values along ``trajectories`` random paths through the grid of
every value's range and reports per value ``mu`` (mean effect), ``mu_star``
(mean absolute effect: how much it matters) and ``sigma`` (spread of its
effects: large against ``mu_star`` means the effect depends on where the
other values are, i.e. interactions or a curved response).

Each value's range is one step down to one step up from its current value
(one side where the rules refuse the other), on SALib's 4-level grid, whose
jumps of 2/3 of the range are, after rounding to the value's steps, exactly
one step; the effects are reported per step (SALib's effects times 2/3), in
the metric's units, so ``mu_star`` reads like the one-at-a-time differences.
Every point of every trajectory runs on the same seed (common random
numbers), in one paired batch per trajectory, here, on a process pool or on
Dask. ``sigma`` also holds the Monte Carlo noise of the paired one-step
differences; more trials shrink that part.

SALib is an optional dependency (``pip install 'zonesim[levers]'``); without
it :func:`run_morris` raises a :class:`~sim.workflows.levers.LeverError`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from sim.experiments.registry import experiment as find_experiment
from sim.kernels.paired import AGGREGATE
from sim.rules import Ruleset
from sim.rules.variants import VariantError, apply_edits
from sim.workflows.batches import run_batches
from sim.workflows.levers import Lever, LeverError, changing, check_metric, find_levers, plan_steps

LEVELS = 4
"""SALib's grid levels per value."""

DELTA = LEVELS / (2 * (LEVELS - 1))
"""SALib's jump as a share of a value's range (2/3): one step here."""

DEFAULT_TRAJECTORIES = 10
"""Trajectories: (values + 1) runs each."""

MORRIS_COLUMNS = ("rank", "path", "current", "low", "high", "mu", "mu_star", "mu_star_conf",
                  "sigma")
"""Columns of :meth:`MorrisResult.ranking`."""


def _salib():
    """SALib's Morris sampler and analyser, or a LeverError saying how to install it."""
    try:
        from SALib.analyze import morris as analyze
        from SALib.sample import morris as sample
    except ImportError:
        raise LeverError("--method morris needs SALib, which is not installed: "
                         "pip install 'zonesim[levers]'", "method") from None
    return sample, analyze


@dataclass(frozen=True)
class MorrisResult:
    """A finished Morris screening.

    Attributes
    ----------
    experiment, metric : str
        What was run and screened.
    setup : dict
        The experiment's base setup.
    trials, seed, trajectories : int
        Trials per point, the common seed, SALib's trajectories.
    rows : tuple of dict
        Per value: ``path``, ``current``, ``low``, ``high`` (its range) and
        the per-step ``mu``, ``mu_star``, ``mu_star_conf`` (95 % bootstrap
        half-width) and ``sigma``.
    evaluations : int
        Points run (trajectories x (values + 1)).
    skipped : tuple of str
        Values left out: no valid step, or no effect on the compiled inputs.
    backend : str
        ``serial``, ``processes:N`` or ``dask:ADDRESS``.
    wall_s : float
        Seconds the runs took.
    """

    experiment: str
    metric: str
    setup: dict
    trials: int
    seed: int
    trajectories: int
    rows: tuple[dict, ...]
    evaluations: int
    skipped: tuple[str, ...] = ()
    backend: str = "serial"
    wall_s: float = 0.0

    def ranking(self) -> pd.DataFrame:
        """One row per value (:data:`MORRIS_COLUMNS`), largest ``mu_star`` first."""
        frame = pd.DataFrame(list(self.rows))
        frame = frame.sort_values("mu_star", ascending=False, kind="stable")
        frame.insert(0, "rank", np.arange(1, len(frame) + 1))
        return frame[list(MORRIS_COLUMNS)].reset_index(drop=True)

    def to_dict(self, top: int | None = None) -> dict:
        """JSON document: provenance and ``levers`` (the ranking)."""
        ranking = self.ranking()
        if top:
            ranking = ranking.head(top)
        return {"method": "morris", "experiment": self.experiment, "metric": self.metric,
                "trials": self.trials, "seed": self.seed, "trajectories": self.trajectories,
                "levels": LEVELS, "evaluations": self.evaluations, "setup": self.setup,
                "backend": self.backend, "wall_s": self.wall_s,
                "levers": ranking.to_dict(orient="records"), "skipped": list(self.skipped)}


def _ranges(rs: Ruleset, name: str, setup: Mapping[str, Any], levers: Sequence[Lever],
            backend: dict) -> tuple[list[tuple[Lever, int, int]], list[str]]:
    """Each value's range in steps ``(lever, low, high)``, and the values left out."""
    moves, _ = plan_steps(rs, levers, 1)
    moves, _, _ = changing(rs, name, setup, moves, **backend)
    valid = {(m.lever.path, m.steps) for m in moves}
    kept, skipped = [], []
    for lever in levers:
        low = -1 if (lever.path, -1) in valid else 0
        high = 1 if (lever.path, 1) in valid else 0
        if low < high:
            kept.append((lever, low, high))
        else:
            skipped.append(lever.path)
    return kept, skipped


def _edits(point: np.ndarray, ranges: Sequence[tuple[Lever, int, int]]) -> tuple[str, ...]:
    """The edits of one sample point (unit coordinates rounded to whole steps)."""
    out = []
    for x, (lever, low, high) in zip(point, ranges, strict=True):
        k = low + int(round(float(x) * (high - low)))
        if k:
            out.append(lever.edit(k))
    return tuple(out)


def run_morris(rs: Ruleset, name: str, setup: Mapping[str, Any], *, trials: int, seed: int,
               metric: str | None = None, tables: Sequence[str] | None = None,
               cards: Sequence[str] | None = None,
               trajectories: int = DEFAULT_TRAJECTORIES, workers: int = 1,
               scheduler: Any = None, threads: int | None = None,
               progress: Callable[[int, int], None] | None = None) -> MorrisResult:
    """Morris screening of every numeric value (filtered like :func:`~sim.workflows.levers.
    run_levers`), one step either side of its current value.

    Raises
    ------
    LeverError
        SALib missing, unknown metric, table or card, no value to screen, or a
        combination of steps the rules refuse.
    """
    sample, analyze = _salib()
    exp = find_experiment(name)
    metric = check_metric(exp, metric, setup)
    if trajectories < 2:
        raise LeverError("Morris screening needs at least 2 trajectories", "trajectories")
    backend = {"workers": workers, "scheduler": scheduler, "threads": threads}
    ranges, skipped = _ranges(rs, name, setup, find_levers(rs, tables, cards), backend)
    if not ranges:
        raise LeverError("no value has a valid step that changes the game")
    problem = {"num_vars": len(ranges), "names": [lv.path for lv, _, _ in ranges],
               "bounds": [[0.0, 1.0]] * len(ranges)}
    x = sample.sample(problem, N=trajectories, num_levels=LEVELS, seed=seed % 2**32)
    points = [_edits(row, ranges) for row in x]
    for edits in points:
        try:
            apply_edits(rs, edits)
        except VariantError as error:
            raise LeverError(f"Morris point refused by the rules: {error}") from None
    size = len(ranges) + 1
    batches = [tuple(points[i:i + size]) for i in range(0, len(points), size)]
    start = time.perf_counter()
    outputs, used = run_batches(rs, name, setup, batches, trials=trials, seed=seed,
                                progress=progress, **backend)
    wall = time.perf_counter() - start
    m = [mt.name for mt in exp.metrics].index(metric)
    y = np.concatenate([sums.sums[:, AGGREGATE.SUM, m] / trials for sums in outputs])
    found = analyze.analyze(problem, x, y, num_levels=LEVELS, num_resamples=1000,
                            conf_level=0.95, seed=seed % 2**32)
    rows = tuple({"path": lv.path, "current": lv.current, "low": lv.value(low),
                  "high": lv.value(high),
                  **{k: float(found[k][i]) * DELTA for k in ("mu", "mu_star", "mu_star_conf",
                                                             "sigma")}}
                 for i, (lv, low, high) in enumerate(ranges))
    return MorrisResult(name, metric, dict(setup), trials, seed, trajectories, rows, len(points),
                        tuple(skipped), used, round(wall, 3))


__all__ = ["DEFAULT_TRAJECTORIES", "DELTA", "LEVELS", "MORRIS_COLUMNS", "MorrisResult",
           "run_morris"]
