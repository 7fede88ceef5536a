"""Plain words for the report's metric names, and the number formats of its sentences.

A designer reads "knocked out in the Sarcophagus", not
``causes.knocked_out_in_sarcophagus``. The metric names stay what they are in
the CSV files, the JSON and the targets (they are the tool's interface); the
pages show these labels beside them. A name without a label here is shown
with its underscores as spaces, so a new metric never breaks a page.
"""

from __future__ import annotations

import math

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

CAUSES = {
    "reached": "won (reached and survived the Sarcophagus)",
    "knocked_out_in_sarcophagus": "knocked out in the Sarcophagus",
    "concussion_in_sarcophagus": "concussed in the Sarcophagus",
    "fifth_deformation": "killed by a fifth Deformation",
    "knockout_and_concussion": "knocked out and concussed at once",
    "final_emission": "caught by the Final Emission",
    "capped": "still in the Zone after the last simulated day",
}
"""How a game ends (``sim.experiments.campaign.ENDS``)."""

CAMPAIGN = {
    "p_sarcophagus": "win (reach and survive the Sarcophagus)",
    "p_survive": "survive (win, or alive at the day cap)",
    "p_final_emission": "caught by the Final Emission",
    "p_capped": "still in the Zone at the day cap",
    "game_days": "days a game lasts", "knockouts": "knock-outs per game",
    "concussions": "concussions per game", "deformations": "deformations per game",
    "emissions": "Emissions per game", "emissions_suffered": "Emissions suffered per game",
    "items_used": "items used per game", "fights": "fights per game",
    "kills": "enemies killed per game", "anomalies_entered": "anomalies entered per game",
    "artifacts_found": "artefacts found per game", "events": "events per game",
    "complexes_explored": "Secret Complexes explored per game",
    "rubles_at_end": "rubles left at the end",
    "artifacts_used": "artefact uses per game", "side_effects": "artefact side effects per game",
    "exchanges": "artefacts bought with anomaly trophies per game",
    "days.median": "days to win, median", "days.mean": "days to win, mean",
    "days.p10": "days to win, 10th percentile", "days.p90": "days to win, 90th percentile",
}
"""Campaign metrics, named as in ``zonesim campaign``'s JSON."""

DECKS = {"enemies": "enemy deck", "anomalies": "anomaly deck", "events": "event deck"}


def metric(name: str) -> str:
    """The plain label of any report metric name (dotted or not)."""
    if name in CAMPAIGN:
        return CAMPAIGN[name]
    head, dot, tail = name.partition(".")
    if dot and head == "p_sarcophagus":
        return f"win, {tail}"
    if dot and head == "causes":
        return CAUSES.get(tail, tail.replace("_", " "))
    if dot and head in DECKS:
        return f"{ENCOUNTER.get(tail, tail.replace('_', ' '))} ({DECKS[head]} average)"
    return ENCOUNTER.get(name, name.replace("_", " "))


def cause(name: str, guardians: tuple[str, ...] = ()) -> str:
    """How a game ends, in words; Sarcophagus deaths name what waits there (P-50)."""
    text = CAUSES.get(name, name.replace("_", " "))
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
