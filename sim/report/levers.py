"""The lever finder's outputs: a tornado chart, a Morris chart and the results folder.

:func:`tornado` draws, per lever, the paired difference of one step down
and one step up with their 95 % intervals, largest effect on top (the
designer's "which value moves the win rate most"); :func:`morris_chart`
draws Morris' ``mu_star`` with its interval and ``sigma``. :func:`write_levers`
writes the folder all or nothing, like :func:`sim.report.writer.write_sweep`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from sim.report import plots
from sim.report.plots import Figure
from sim.report.writer import atomic_folder, clean_json, manifest, to_csv, write_json, write_table

DOWN, UP = "#457b9d", "#c8553d"
REFUSED = "refused.csv"
"""The file of a one-step search's folder that lists every step skipped, not played: the
rules refuse it or its game cannot be set up (``path``, ``steps``, ``value``,
``refused_by``, ``reason``); the table says only how many (issue 47, item 6)."""
REFUSED_COLUMNS = ("path", "steps", "value", "refused_by", "reason")
FRESH = "fresh.csv"
"""The file of a one-step search's folder with the ranking's top and the first reaching
changes played again on fresh games (``role`` and :data:`sim.workflows.levers.FRESH_COLUMNS`;
:attr:`~sim.workflows.levers.LeverResult.fresh`)."""


def _half(frame: pd.DataFrame, side: str) -> np.ndarray:
    """Error bar lengths ``(2, n)`` of one side's difference (0 where it did not run)."""
    diff = frame[f"{side}_diff"].astype(float).to_numpy()
    low = frame[f"{side}_diff_ci_low"].astype(float).to_numpy()
    high = frame[f"{side}_diff_ci_high"].astype(float).to_numpy()
    return np.nan_to_num(np.clip(np.vstack([diff - low, high - diff]), 0.0, None))


def _value(x: float) -> str:
    """A step's value for a label; a refused step is a dash."""
    return "\u2013" if pd.isna(x) else f"{x:g}"


def tornado(frame: pd.DataFrame, metric: str, baseline: float | None = None,
            title: str | None = None) -> Figure:
    """Horizontal bars of the one-step-down and one-step-up differences per lever.

    ``frame`` is the ranking (:meth:`sim.workflows.levers.LeverResult.ranking`)
    in the order to draw, top to bottom; a refused side has no bar.
    """
    n = len(frame)
    figure = Figure(figsize=(8.0, 1.2 + 0.34 * max(n, 1)))
    ax = figure.add_subplot()
    y = np.arange(n)[::-1]
    for side, colour, offset in (("down", DOWN, 0.18), ("up", UP, -0.18)):
        diff = np.nan_to_num(frame[f"{side}_diff"].astype(float).to_numpy())
        ax.barh(y + offset, diff, height=0.36, xerr=_half(frame, side), color=colour,
                ecolor="#333333", capsize=2, label=f"one step {side}")
    labels = [f"{p} ({c:g} \u2192 {_value(d)} / {_value(u)})"
              for p, c, d, u in zip(frame["path"], frame["current"].astype(float),
                                    frame["down_value"].astype(float),
                                    frame["up_value"].astype(float), strict=True)]
    ax.set_yticks(y, labels, fontsize="small")
    ax.axvline(0.0, color="black", lw=0.8)
    ax.set_xlabel(f"change of {plots.label(metric)} (95 % paired intervals)")
    base = "" if baseline is None else f" (baseline {baseline:.4g})"
    ax.set_title(title or f"Levers on {plots.label(metric)}{base}")
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    return figure


def morris_chart(frame: pd.DataFrame, metric: str) -> Figure:
    """Morris' ``mu_star`` per value (bar, 95 % bootstrap interval) and ``sigma`` (diamond)."""
    n = len(frame)
    figure = Figure(figsize=(8.0, 1.2 + 0.3 * max(n, 1)))
    ax = figure.add_subplot()
    y = np.arange(n)[::-1]
    ax.barh(y, frame["mu_star"].to_numpy(float), xerr=frame["mu_star_conf"].to_numpy(float),
            color=UP, alpha=0.8, ecolor="#333333", capsize=2, label="mu* (mean |effect|)")
    ax.plot(frame["sigma"].to_numpy(float), y, "D", mfc="none", mec="black", ms=5,
            label="sigma (spread: interactions, noise)")
    ax.set_yticks(y, [str(p) for p in frame["path"]], fontsize="small")
    ax.set_xlabel(f"effect of one step on {plots.label(metric)}")
    ax.set_title(f"Morris screening of {plots.label(metric)}")
    ax.set_xlim(left=0)
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    return figure


def write_levers(result, folder: Path, top: int = 20, command: list[str] | None = None) -> Path:
    """Write a lever search's folder atomically; return where it went.

    One-step search (:class:`~sim.workflows.levers.LeverResult`): ``levers.csv``
    / ``.parquet`` (the whole ranking), ``steps.csv`` / ``.parquet`` (every
    move), :data:`REFUSED` (every step skipped, header only when none),
    ``reaching.csv`` with a target, :data:`FRESH` (the top moves played again on fresh
    games), ``tornado-<metric>.png`` (the top
    ``top`` levers) and ``metadata.json``. Morris (:class:`~sim.workflows.
    morris.MorrisResult`): ``morris.csv`` / ``.parquet``, ``morris-<metric>.png``
    and ``metadata.json``.
    """
    morris = hasattr(result, "trajectories")
    with atomic_folder(folder) as staged:
        temp = staged.temp
        if morris:
            ranking = result.ranking()
            write_table(ranking, temp, "morris")
            figure = morris_chart(ranking.head(top or None), result.metric)
            files = ["morris.csv", "morris.parquet", f"morris-{result.metric}.png"]
        else:
            ranking = result.ranking()
            write_table(ranking, temp, "levers")
            write_table(pd.DataFrame(list(result.steps)), temp, "steps")
            to_csv(pd.DataFrame(list(result.skipped), columns=list(REFUSED_COLUMNS)),
                   temp / REFUSED)
            files = ["levers.csv", "levers.parquet", "steps.csv", "steps.parquet", REFUSED]
            if result.target is not None:
                to_csv(result.reaching(), temp / "reaching.csv")
                files.append("reaching.csv")
            if result.fresh is not None:
                to_csv(pd.DataFrame(result.fresh["rows"]), temp / FRESH)
                files.append(FRESH)
            figure = tornado(ranking.head(top or None), result.metric, result.baseline.get("mc"))
            files.append(f"tornado-{result.metric}.png")
        plots.save(figure, temp / files[-1])
        doc = result.to_dict()
        doc.pop("steps", None)
        meta = manifest(command=command, kind="levers", **clean_json(doc))
        meta["files"] = files + ["metadata.json"]
        write_json(meta, temp / "metadata.json")
    return staged.path
