"""Figures for reports and sweeps, drawn with matplotlib's object API (no pyplot).

Every function takes tidy tables (or the campaign's result dictionary) and
returns a :class:`matplotlib.figure.Figure`; nothing here runs a simulation
or touches global plotting state, so figures can be made from worker threads
and in tests. Intervals are drawn as error bars or bands, exact values (where
known) as open diamonds. Every figure is a :class:`Figure`, whose texts are
drawn as written, never as mathtext (names are data).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import matplotlib.figure
import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from sim.experiments import registry

CARD_COLUMNS = ("enemy", "anomaly", "event", "variant", "card")
DPI = 100


class Figure(matplotlib.figure.Figure):
    """A matplotlib figure that draws every text as written, never as mathtext.

    Card, stalker, scenario and file names come from the designer's files, and
    matplotlib reads the text between two ``$`` as TeX maths: a card named
    ``$x$`` would be drawn as an italic x, one named ``$5 offer`` beside a
    ``$`` elsewhere in the same label as maths, and ``$^$`` stops the figure
    with a parse error. So before the figure measures its texts (its layout,
    :meth:`tight_layout`) or draws them, every text it holds (titles, axis
    and tick labels, legend entries, annotations, a colour bar's label) is
    set to plain text (:meth:`matplotlib.text.Text.set_parse_math`). This is
    the one place: every figure of the reports, ``levers`` and ``sweep`` is
    one of these, so no caller escapes a ``$``. No figure here draws maths.
    """

    def _as_text(self) -> None:
        """Switch mathtext off on every text the figure holds (tick labels made now)."""
        for text in self.findobj(Text):
            text.set_parse_math(False)

    def tight_layout(self, *args, **kwargs) -> None:
        """Matplotlib's tight layout, its texts measured as plain text."""
        self._as_text()
        super().tight_layout(*args, **kwargs)

    def draw(self, renderer) -> None:
        """Draw the figure, its texts as plain text (called by every save)."""
        self._as_text()
        super().draw(renderer)


def png_bytes(figure: Figure) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    return buffer.getvalue()


def save(figure: Figure, path: Path) -> bytes:
    """Write the figure as a PNG file and return its bytes (to embed the same image)."""
    data = png_bytes(figure)
    Path(path).write_bytes(data)
    return data


def _errors(frame: pd.DataFrame, metric: str) -> np.ndarray:
    """Asymmetric error bar lengths ``(2, n)`` from ``metric_ci_low/high`` (NaN -> 0)."""
    mc = frame[metric].to_numpy(float)
    low = frame[f"{metric}_ci_low"].to_numpy(float)
    high = frame[f"{metric}_ci_high"].to_numpy(float)
    return np.nan_to_num(np.clip(np.vstack([mc - low, high - mc]), 0.0, None))


def label(metric: str) -> str:
    """Axis label of a metric column: a share as ``P(...)``, a mean as it is.

    The kind is the metric's declaration's (:attr:`~sim.experiments.base.Metric.kind`,
    :func:`sim.experiments.registry.metric`): ``knocked_out``, a proportion, is
    ``P(knocked out)``; ``mean_wounds`` and ``game_days``, means, are ``mean wounds`` and
    ``game days``; a share whose name says so already is written with the head of its
    declared label: ``p_sarcophagus`` is ``P(win)``, ``p_reach_sarcophagus``
    ``P(reach the Sarcophagus)`` (the words of the glossary, issue 47, item 4).

    Raises
    ------
    CompareInputError
        If no experiment declares the metric.
    """
    declared = registry.metric(metric)
    if declared.kind != "proportion":
        return metric.replace("_", " ")
    if metric.startswith("p_") and declared.label:
        return f"P({declared.label.split(' (')[0]})"
    return f"P({metric.replace('_', ' ')})"


def bars(frame: pd.DataFrame, name_col: str, metric: str, title: str,
         xlabel: str | None = None) -> Figure:
    """Horizontal bars of ``metric`` per row with 95 % intervals and exact markers.

    Rows are drawn top to bottom in the frame's order (put the most dangerous
    first). ``xlabel`` names the axis in words (default :func:`label`).
    """
    n = len(frame)
    figure = Figure(figsize=(7.0, 0.9 + 0.32 * max(n, 1)))
    ax = figure.add_subplot()
    y = np.arange(n)[::-1]
    ax.barh(y, frame[metric].to_numpy(float), xerr=_errors(frame, metric), color="#c8553d",
            alpha=0.8, ecolor="#333333", capsize=2, label="Monte Carlo, 95 % interval")
    exact = f"{metric}_exact"
    if exact in frame and frame[exact].notna().any():
        ax.plot(frame[exact].to_numpy(float), y, "D", mfc="none", mec="black", ms=5,
                label="exact")
    ax.set_yticks(y, [str(v) for v in frame[name_col]])
    ax.set_xlabel(xlabel or label(metric))
    ax.set_title(title)
    ax.set_xlim(left=0)
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    return figure


def win_rates(frame: pd.DataFrame, title: str) -> Figure:
    """Win rates with 95 % intervals, one row per character and one marker per play.

    ``frame`` has ``character``, ``play`` (words: "the scenario's play", "best
    play"), ``mc``, ``ci_low`` and ``ci_high``. Characters are drawn top to bottom
    by their first win rate, highest first; each play has its own colour and a
    small vertical offset, so two intervals of one character never hide each
    other. The axis is the share of games won (a win: reach and survive the
    Sarcophagus).
    """
    order = list(dict.fromkeys(frame.sort_values("mc", ascending=False,
                                                 kind="stable")["character"]))
    plays = list(dict.fromkeys(frame["play"]))
    figure = Figure(figsize=(7.0, 1.1 + 0.42 * max(len(order), 1)))
    ax = figure.add_subplot()
    y = {name: len(order) - 1 - i for i, name in enumerate(order)}
    colours = ("#c8553d", "#2d6a4f", "#1d3557", "#6c757d")
    for k, play in enumerate(plays):
        part = frame[frame["play"] == play]
        offset = 0.15 * (k - (len(plays) - 1) / 2)
        mc = part["mc"].to_numpy(float)
        err = np.clip(np.vstack([mc - part["ci_low"].to_numpy(float),
                                 part["ci_high"].to_numpy(float) - mc]), 0, None)
        ax.errorbar(mc, [y[c] - offset for c in part["character"]], xerr=err, fmt="o",
                    color=colours[k % len(colours)], capsize=3, label=play)
    ax.set_yticks(list(y.values()), list(y.keys()))
    ax.set_xlabel("win rate (reach and survive the Sarcophagus), share of games")
    ax.set_title(title)
    ax.set_xlim(0, 1)
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    return figure


def signed_bars(frame: pd.DataFrame, name_col: str, panels: Sequence[Sequence], title: str,
                columns: int = 2) -> Figure:
    """Horizontal bars of paired changes (either sign), one panel per column group.

    ``panels`` holds ``(value, ci_low, ci_high, exact, xlabel)`` column names
    per panel (``exact`` may be None), optionally followed by ``"higher"``
    when a change above zero is the good one (default: below zero is); the
    panels share the rows, drawn top to bottom in the frame's order,
    ``columns`` panels to a row of the grid. A change below zero is drawn to
    the left of the zero line, green when it is the good direction, with its
    95 % interval as an error bar and the exact change as an open diamond.
    """
    n = len(frame)
    rows = max(1, -(-len(panels) // columns))
    figure = Figure(figsize=(4.2 * columns, rows * (1.1 + 0.32 * max(n, 1))))
    axes = figure.subplots(rows, columns, sharey=True, squeeze=False).ravel()
    y = np.arange(n)[::-1]
    for ax, panel in zip(axes, panels, strict=False):
        value, low, high, exact, xlabel = panel[:5]
        mc = frame[value].to_numpy(float)
        errors = np.vstack([mc - frame[low].to_numpy(float), frame[high].to_numpy(float) - mc])
        good = mc > 0 if panel[5:] == ("higher",) else mc < 0
        colours = np.where(good, "#2a9d8f", "#c8553d")
        ax.barh(y, mc, xerr=np.nan_to_num(np.clip(errors, 0.0, None)), color=colours,
                alpha=0.8, ecolor="#333333", capsize=2, label="Monte Carlo, 95 % interval")
        if exact is not None and frame[exact].notna().any():
            ax.plot(frame[exact].to_numpy(float), y, "D", mfc="none", mec="black", ms=5,
                    label="exact")
        ax.axvline(0.0, color="black", lw=0.8)
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", alpha=0.3)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    axes[0].set_yticks(y, [str(v) for v in frame[name_col]])
    handles, names = axes[0].get_legend_handles_labels()
    figure.legend(handles, names, loc="lower center", ncol=2, fontsize="small", frameon=False)
    figure.suptitle(title)
    figure.tight_layout(rect=(0.0, 0.04 / rows, 1.0, 1.0))
    return figure


def comparison(frame: pd.DataFrame, metrics: Sequence[str], title: str,
               name_col: str = "variant") -> Figure:
    """Item effectiveness: one panel per metric, one point with its interval per variant."""
    metrics = [m for m in metrics if m in frame]
    n = len(frame)
    figure = Figure(figsize=(3.4 * max(len(metrics), 1), 0.9 + 0.35 * max(n, 1)))
    axes = figure.subplots(1, max(len(metrics), 1), sharey=True, squeeze=False)[0]
    y = np.arange(n)[::-1]
    for ax, metric in zip(axes, metrics, strict=False):
        ax.errorbar(frame[metric].to_numpy(float), y, xerr=_errors(frame, metric), fmt="o",
                    color="#1f77b4", capsize=3, label="Monte Carlo, 95 % interval")
        exact = f"{metric}_exact"
        if exact in frame and frame[exact].notna().any():
            ax.plot(frame[exact].to_numpy(float), y, "D", mfc="none", mec="black", ms=6,
                    label="exact")
        ax.set_xlabel(label(metric))
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y, [str(v) for v in frame[name_col]])
    axes[0].legend(loc="best", fontsize="x-small")
    figure.suptitle(title)
    figure.tight_layout()
    return figure


OUTCOME_COLOURS = {"won": "#2a9d8f", "in_zone": "#d9d9d9", "dead": "#c8553d"}
OUTCOME_WORDS = {"won": "won (reached and survived the Sarcophagus)",
                 "in_zone": "still in the Zone", "dead": "lost (all causes)"}
"""The three ways a game stands at the end of a day (:meth:`sim.experiments.campaign.
CampaignResult.outcomes_by_day`), in the words and colours of every chart of them. A game
is lost in several ways (a knock-out in the Sarcophagus, a fifth Deformation, a knock-out
and a concussion at once, the Final Emission): "lost", not "dead" (issue 47, item 4)."""


def _while_playing(frame: pd.DataFrame) -> pd.DataFrame:
    """The days of ``frame`` (games by day) up to the day after the last game ended."""
    frame = frame.reset_index(drop=True)
    if len(frame) and (frame["in_zone"] > 0).any():
        frame = frame.iloc[:int(frame.index[frame["in_zone"] > 0].max()) + 2]
    return frame


def won_and_lost_by_day(frame: pd.DataFrame,
                        title: str = "Games won and lost by the end of each day") -> Figure:
    """Cumulative shares of games won and lost by each day, each with its 95 % band.

    ``frame`` is :meth:`sim.experiments.campaign.CampaignResult.outcomes_by_day`
    as a table (``day``, ``won``, ``dead`` and their ``_ci_low``/``_ci_high``).
    It replaces the Kaplan-Meier survival curve of the reports (issue 47, item 5):
    that curve treats a won game as censored, so it falls to 0 although a third of
    the games are won, and reads as "everyone dies". Here the won line climbs to
    the win rate and the lost line to its complement (less the games still in the
    Zone at the day cap), in percent of all games; each line ends with its value
    and interval written beside it. The days after every game has ended are cut off.
    """
    frame = _while_playing(frame)
    figure = Figure(figsize=(7.0, 4.0))
    ax = figure.add_subplot()
    for key in ("won", "dead") if len(frame) else ():
        colour, words = OUTCOME_COLOURS[key], OUTCOME_WORDS[key]
        share = 100 * frame[key].to_numpy(float)
        ax.step(frame["day"], share, where="post", color=colour, lw=2, label=words)
        ax.fill_between(frame["day"], 100 * frame[f"{key}_ci_low"].to_numpy(float),
                        100 * frame[f"{key}_ci_high"].to_numpy(float), step="post",
                        color=colour, alpha=0.3, lw=0)
        end = frame.iloc[-1]
        ax.annotate(f"{share[-1]:.1f} % ({100 * end[f'{key}_ci_low']:.1f} to "
                    f"{100 * end[f'{key}_ci_high']:.1f})", (end["day"], share[-1]),
                    xytext=(-4, 6), textcoords="offset points", ha="right",
                    fontsize="small", color=colour)
    ax.set_xlabel("day")
    ax.set_ylabel("share of all games (%), 95 % bands")
    ax.set_ylim(0, 100)
    ax.set_title(title)
    ax.legend(fontsize="small", loc="upper left")
    ax.grid(alpha=0.3)
    figure.tight_layout()
    return figure


def outcomes_by_day(frame: pd.DataFrame,
                    title: str = "Where the games stand at the end of each day") -> Figure:
    """Stacked shares of games won, still in the Zone and lost, by day.

    ``frame`` has ``day``, ``won``, ``in_zone``, ``dead`` (shares adding up to
    1). The days after every game has ended are cut off. The per-day 95 %
    intervals (in the table) are narrower than a line at the report's game
    counts, so they are not drawn.
    """
    frame = _while_playing(frame)
    figure = Figure(figsize=(7.0, 4.0))
    ax = figure.add_subplot()
    if len(frame):
        keys = ("won", "in_zone", "dead")
        ax.stackplot(frame["day"], *(100 * frame[k].to_numpy(float) for k in keys),
                     labels=[OUTCOME_WORDS[k] for k in keys],
                     colors=[OUTCOME_COLOURS[k] for k in keys], step="post")
    ax.set_xlabel("day")
    ax.set_ylabel("share of games (%)")
    ax.set_ylim(0, 100)
    ax.set_title(title)
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3)
    ax.grid(alpha=0.3)
    figure.tight_layout()
    return figure


def days_histogram(days: dict, title: str = "Days to win (the games won, by the day they "
                   "ended)", ylabel: str = "games won") -> Figure:
    """Bars of games by the day they ended, with mean and median marked.

    ``days`` is the ``days`` block of ``zonesim campaign``'s JSON: the games won
    (reached and survived the Sarcophagus, P-50) by day, whence the default title
    and axis; a game that reached it and fell there is not counted (issue 47,
    item 4). A caller that passes another histogram names it in ``title`` and
    ``ylabel``.
    """
    counts = np.asarray(days.get("histogram", []), dtype=float)
    if counts.any():
        counts = counts[:np.flatnonzero(counts).max() + 2]  # the empty tail says nothing
    figure = Figure(figsize=(7.0, 4.0))
    ax = figure.add_subplot()
    ax.bar(np.arange(len(counts)), counts, color="#457b9d", width=0.9)
    for key, style in (("median", "-"), ("mean", "--")):
        value = days.get(key)
        if value is not None and np.isfinite(value):
            ax.axvline(value, color="black", ls=style, lw=1, label=f"{key} {value:.1f}")
    ax.set_xlabel("day")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    return figure


def _card_column(frame: pd.DataFrame) -> str | None:
    return next((c for c in CARD_COLUMNS if c in frame.columns), None)


def sweep_figure(result, metric: str, target=None) -> Figure | None:
    """The sweep's ``metric`` against the varied cells.

    One varied cell: a line per card with its 95 % band. Two: a heatmap per
    card (first cell down, second across). More than two: None (no plot).
    ``target`` (a :class:`~sim.workflows.targets.Target` on ``metric``) is
    drawn as a shaded band on the line plot and outlines the heatmap cells
    whose estimate meets it. Integer-valued cells get integer ticks.
    """
    params = result.parameter_columns
    frame = result.frame
    card = _card_column(frame)
    groups = [(None, frame)] if card is None else list(frame.groupby(card, sort=False))
    if len(params) == 1:
        return _sweep_lines(groups, params[0], metric, target)
    if len(params) == 2:
        return _sweep_heatmaps(groups, params, metric, target)
    return None


def _tick(value) -> str:
    """A tick label: integer-valued numbers without a decimal point."""
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return str(value)


def _positions(values: Sequence) -> tuple[np.ndarray, list[str]]:
    return np.arange(len(values), dtype=float), [_tick(v) for v in values]


def _target_band(ax, target) -> None:
    """Shade the target range of a line plot (an open side reaches the plot's edge)."""
    low, high = ax.get_ylim()
    lo = target.low if np.isfinite(target.low) else low
    hi = target.high if np.isfinite(target.high) else high
    ax.axhspan(lo, hi, color="#2a9d8f", alpha=0.15, label=f"target: {target}")
    ax.set_ylim(min(low, lo), max(high, hi))


def _sweep_lines(groups, param: str, metric: str, target=None) -> Figure:
    figure = Figure(figsize=(8.0, 4.5))
    ax = figure.add_subplot()
    levels = list(dict.fromkeys(groups[0][1][param]))
    numeric = all(isinstance(v, int | float | np.integer | np.floating) and not isinstance(
        v, bool) for v in levels)
    for name, sub in groups:
        x = sub[param].to_numpy(float) if numeric else np.asarray(
            [levels.index(v) for v in sub[param]], dtype=float)
        line = ax.plot(x, sub[metric].to_numpy(float), marker="o", ms=3,
                       label=str(name) if name is not None else metric)[0]
        ax.fill_between(x, sub[f"{metric}_ci_low"].to_numpy(float),
                        sub[f"{metric}_ci_high"].to_numpy(float), color=line.get_color(),
                        alpha=0.2)
    if not numeric:
        ax.set_xticks(*_positions(levels))
    elif all(float(v).is_integer() for v in levels) and len(levels) <= 30:
        ax.set_xticks([float(v) for v in levels], [_tick(float(v)) for v in levels])
    if target is not None:
        _target_band(ax, target)
    ax.set_xlabel(param)
    ax.set_ylabel(label(metric))
    ax.set_title(f"{label(metric)} against {param} (bands: 95 % intervals)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    figure.tight_layout()
    return figure


def _sweep_heatmaps(groups, params: list[str], metric: str, target=None,
                    limit: int = 16) -> Figure:
    groups = groups[:limit]
    cols = min(4, len(groups))
    rows = -(-len(groups) // cols)
    figure = Figure(figsize=(max(3.6 * cols, 6.0), max(3.0 * rows + 0.6, 4.5)))
    axes = figure.subplots(rows, cols, squeeze=False)
    first, second = params
    values = np.concatenate([g[metric].to_numpy(float) for _, g in groups])
    vmin, vmax = float(np.nanmin(values)), float(np.nanmax(values))
    image = None
    for ax, (name, sub) in zip(axes.flat, groups, strict=False):
        table = sub.pivot_table(index=first, columns=second, values=metric, sort=False)
        grid = table.to_numpy(float)
        image = ax.imshow(grid, aspect="auto", origin="lower", cmap="magma_r",
                          vmin=vmin, vmax=vmax)
        if grid.size <= 64:  # small grids: write each value in its cell
            middle = (vmin + vmax) / 2
            for (i, j), value in np.ndenumerate(grid):
                ax.text(j, i, f"{value:.3f}", ha="center", va="center", fontsize="x-small",
                        color="white" if value > middle else "black")
        if target is not None:  # outline the cells whose estimate meets the target
            for (i, j), value in np.ndenumerate(grid):
                if np.isfinite(value) and target.contains(value):
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                                           edgecolor="#2a9d8f", linewidth=2))
        ax.set_yticks(*_positions(list(table.index)))
        ax.set_xticks(*_positions(list(table.columns)))
        ax.set_title(str(name) if name is not None else metric, fontsize="small")
        ax.set_ylabel(first, fontsize="x-small")
        ax.set_xlabel(second, fontsize="x-small")
    for ax in list(axes.flat)[len(groups):]:
        ax.set_visible(False)
    if image is not None:
        figure.colorbar(image, ax=axes.ravel().tolist(), label=label(metric), shrink=0.8)
    figure.suptitle(f"{label(metric)} over {first} x {second}"
                    + (f" (outlined: {target})" if target is not None else ""))
    return figure


def battlefield_figure(scenario, result) -> Figure:
    """The battlefield of a skirmish scenario with where figures fell and fired from.

    Buildings (with their floors), doors (brown) and windows (blue, upper floors
    hollow), cover objects (solid: cover, dashed: partial cover, with their
    units), well-lit areas (yellow) and each side's start positions; over them,
    per side, the share of fights in which a figure fell in a cell (filled
    circles, area by count) and fired last from it (crosses). ``result`` is a
    :class:`sim.experiments.skirmish.FightResult` of a battlefield scenario.
    """
    field = scenario.battlefield
    fig = Figure(figsize=(9, 9 * field.depth / field.width + 1))
    ax = fig.add_subplot()
    ax.add_patch(Rectangle((0, 0), field.width, field.depth, fill=False, color="black"))
    for area in field.lit:
        ax.add_patch(Rectangle((area.x, area.y), area.width, area.depth, color="gold",
                               alpha=0.25, lw=0))
    for b in field.buildings:
        ax.add_patch(Rectangle((b.x, b.y), b.width, b.depth, color="0.6", alpha=0.6))
        ax.text(b.x + b.width / 2, b.y + b.depth / 2, f"{b.name}\n{b.floors} floor(s)",
                ha="center", va="center", fontsize=8)
        for o in b.openings:
            ax.plot([o.x], [o.y], marker="s", ms=7, ls="none",
                    mfc=("saddlebrown" if o.kind == "door" else "royalblue") if o.floor == 0
                    else "none", mec="saddlebrown" if o.kind == "door" else "royalblue")
    for c in field.cover:
        ax.plot([c.x0, c.x1], [c.y0, c.y1], color="darkgreen", lw=2 + 2 * c.units,
                ls="-" if c.kind == "cover" else "--")
        ax.text((c.x0 + c.x1) / 2, (c.y0 + c.y1) / 2, f" {c.name} ({c.units})", fontsize=7)
    colours = ("tab:blue", "tab:red")
    cell = result.cell
    for g, group in enumerate(scenario.groups):
        xs = [p[0] for p in group.positions]
        ys = [p[1] for p in group.positions]
        ax.plot(xs, ys, marker="^", ls="none", color=colours[g], ms=8,
                label=f"{group.name}: start")
        for kind, marker, what in (("fall", "o", "fell"), ("fire", "x", "fired from")):
            grid = result.grids[kind][g]
            rows, cols = np.nonzero(grid)
            if len(rows) == 0:
                continue
            share = grid[rows, cols] / result.trials
            ax.scatter((cols + 0.5) * cell, (rows + 0.5) * cell, s=400 * share, marker=marker,
                       color=colours[g], alpha=0.5 if kind == "fall" else 0.9,
                       label=f"{group.name}: {what} (area: share of fights)")
    ax.set_xlim(-1, field.width + 1)
    ax.set_ylim(-1, field.depth + 1)
    ax.set_aspect("equal")
    ax.set_xlabel("inches")
    ax.set_title(f"{scenario.name}: where figures fell and fired from "
                 f"({result.trials} fights, {cell:g}-inch cells)", fontsize=9)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=2)
    fig.tight_layout()
    return fig
