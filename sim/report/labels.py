"""Plain words for the report's metric names, and the number formats of its sentences.

A designer reads "knocked out in the Sarcophagus", not
``causes.knocked_out_in_sarcophagus``. The metric names stay what they are in
the CSV files, the JSON and the targets (they are the tool's interface); the
pages show these labels beside them. A name without a label here is shown
with its underscores as spaces, so a new metric never breaks a page.
"""

from __future__ import annotations

import math

from sim.experiments import campaign_metrics as campaign

ENCOUNTER = {
    "avoided": "avoided", "killed": "enemy killed", "fled": "fled", "knocked_out": "knocked out",
    "capped": "fight cut off at the round cap", "mean_wounds": "wounds taken",
    "mean_rounds": "combat rounds", "armor_destroyed": "armour destroyed",
    "mean_stimulants": "stimulants used", "mean_limited_spent": "limited-use items spent",
    "unharmed": "unharmed", "damaged": "damaged", "artifact": "artefact found",
    "trophy": "kept as a trophy", "deformation": "deformation", "perceived": "noticed",
    "mean_loss": "Health lost", "happened": "event happened", "health_lost": "Health lost",
    "radiation": "radiation doses", "psi": "psi damage", "days_lost": "days lost",
    "emission_tokens": "Emission tokens",
}
"""Encounter metrics (enemy, anomaly and event cards)."""

DECKS = {"enemies": "enemy deck", "anomalies": "anomaly deck", "events": "event deck"}


def metric(name: str) -> str:
    """The plain label of any report metric name (dotted or not).

    Campaign metrics and causes read the labels declared with them
    (:data:`sim.experiments.campaign_metrics.LABELS`, ``CAUSE_LABELS``).
    """
    if name in campaign.LABELS:
        return campaign.LABELS[name]
    head, dot, tail = name.partition(".")
    if dot and head == campaign.WIN_RATE:
        return f"win, {tail}"
    if dot and head == "causes":
        return campaign.CAUSE_LABELS.get(tail, tail.replace("_", " "))
    if dot and head in DECKS:
        return f"{ENCOUNTER.get(tail, tail.replace('_', ' '))} ({DECKS[head]} average)"
    return ENCOUNTER.get(name, name.replace("_", " "))


def cause(name: str, guardians: tuple[str, ...] = ()) -> str:
    """How a game ends, in words; Sarcophagus deaths name what waits there (P-50)."""
    text = campaign.CAUSE_LABELS.get(name, name.replace("_", " "))
    if guardians and name in ("knocked_out_in_sarcophagus", "concussion_in_sarcophagus"):
        text += " by " + " and ".join(dict.fromkeys(guardians))
    return text


def _finite(x) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


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
