"""Plain words for the report's metric names, and the number formats of its sentences.

A designer reads "knocked out in the Sarcophagus", not
``causes.knocked_out_in_sarcophagus``. The metric names stay what they are in
the CSV files, the JSON and the targets (they are the tool's interface); the
pages show these labels beside them. The labels are declared with the metrics
(an experiment's :class:`~sim.experiments.base.Metric`, the campaign's
:mod:`sim.experiments.campaign_metrics`), not listed here again; a name declared
without one is shown with its underscores as spaces, so a new metric never
breaks a page.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from sim.experiments import campaign_metrics as campaign
from sim.experiments import registry

DECKS = {"enemies": "enemy deck", "anomalies": "anomaly deck", "events": "event deck"}

GLOSSARY: tuple[tuple[str, str], ...] = (
    ("win", "the stalker reaches the Sarcophagus and survives what waits there (P-50); "
            "the win rate is P(win), p_sarcophagus"),
    ("reach", "the stalker gets to the Sarcophagus, survives it or not: P(reach the "
              "Sarcophagus), p_reach_sarcophagus, is never below the win rate"),
    ("knock-out", "Health at 0 (P-37): the stalker wakes in a bunker with half his items and "
                  "plays on; it is not a death, except in the Sarcophagus or with a "
                  "concussion at once (P-43)"),
    ("lost", "a game that ends without a win: a death (P-43) or the Final Emission (P-49)"),
)
"""The words every page, table and chart uses for the one thing each means (issue 47, item 4),
as the glossary at the top of report.md and report.html gives them."""


def metric(name: str) -> str:
    """The plain label of any report metric name (dotted or not).

    Campaign metrics and causes read the labels declared with them
    (:data:`sim.experiments.campaign_metrics.LABELS`, ``CAUSE_LABELS``), encounter
    metrics their experiment's (:func:`declared`).
    """
    if name in campaign.LABELS:
        return campaign.LABELS[name]
    head, dot, tail = name.partition(".")
    if dot and head == campaign.WIN_RATE:
        return f"win, {tail}"
    if dot and head == "causes":
        return campaign.CAUSE_LABELS.get(tail, tail.replace("_", " "))
    if dot and head in DECKS:
        return f"{declared(tail)} ({DECKS[head]} average)"
    return declared(name)


def declared(name: str) -> str:
    """The label of a metric as its experiment declares it (:attr:`~sim.experiments.base.
    Metric.label`, :func:`sim.experiments.registry.metrics`); a name no experiment
    declares, or one declared without words, with its underscores as spaces.
    """
    found = registry.metrics().get(name)
    return found.label if found is not None and found.label else name.replace("_", " ")


def cause(name: str, guardians: tuple[str, ...] = ()) -> str:
    """How a game ends, in words; Sarcophagus deaths name what waits there (P-50)."""
    text = campaign.CAUSE_LABELS.get(name, name.replace("_", " "))
    if guardians and name in campaign.IN_SARCOPHAGUS:
        text += " by " + " and ".join(dict.fromkeys(guardians))
    return text


def _finite(x) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


NEAR_EDGE = 0.02
"""An estimate within 2 percentage points of a probability band's edge is called near it."""


def is_share(metric: str) -> bool:
    """Whether a target's metric is a probability (shown in percent and points of it)."""
    found = registry.metrics().get(metric.rpartition(".")[2] if "." in metric else metric)
    if found is not None:
        return found.kind == "proportion"
    return metric.rpartition(".")[2].startswith("p_") or metric.startswith("causes.")


def edge_words(row: Mapping) -> str:
    """How far a target's estimate is from the nearest edge of its band.

    ``row`` is a row of the targets table (``metric``, ``value``, ``low``,
    ``high``): ``"6.1 points above the lower edge (35 %)"`` for a probability,
    ``"2.0 below the upper edge (16)"`` for any other metric, led by ``near:``
    when within :data:`NEAR_EDGE` of a probability's edge (a tenth of the band
    for another metric).
    """
    value, low, high = row["value"], row["low"], row["high"]
    if value is None or value != value:
        return ""
    to_low, to_high = value - low, high - value
    if abs(to_low) <= abs(to_high):
        side, gap, edge, which = ("above" if to_low >= 0 else "below"), abs(to_low), low, "lower"
    else:
        side, gap, edge, which = ("below" if to_high >= 0 else "above"), abs(to_high), high, \
            "upper"
    if is_share(str(row.get("metric", campaign.WIN_RATE))):
        near = "near: " if gap <= NEAR_EDGE else ""
        return f"{near}{100 * gap:.1f} points {side} the {which} edge ({100 * edge:g} %)"
    near = "near: " if gap <= (high - low) / 10 else ""
    return f"{near}{gap:.3g} {side} the {which} edge ({edge:g})"


def percent(mc, low=None, high=None, *, signed: bool = False) -> str:
    """A probability as ``38.7 % (38.5-38.9)``: percent with its 95 % interval."""
    sign = "+" if signed else ""
    text = f"{100 * mc:{sign}.1f} %"
    if _finite(low) and _finite(high):
        text += f" ({100 * low:{sign}.1f} to {100 * high:{sign}.1f})"
    return text


def number(mc, low=None, high=None, *, signed: bool = False, digits: int = 2) -> str:
    """A mean as ``1.45 (1.44 to 1.46)``: estimate with its 95 % interval."""
    sign = "+" if signed else ""
    text = f"{mc:{sign}.{digits}f}"
    if _finite(low) and _finite(high):
        text += f" ({low:{sign}.{digits}f} to {high:{sign}.{digits}f})"
    return text
