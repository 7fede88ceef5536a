"""Outliers of the verdict (issue 26): help per 1,000 rubles far from the rest, and the
spread between characters; the artefact rows they are judged on (:func:`artifact_rows`).

A card is *far above* (or *far below*) the rest of its kind when the whole 95 %
interval of its help per 1,000 rubles lies above ``median + K x MAD`` (below
``median - K x MAD``) of the other cards of its kind: the median and the median
absolute deviation (scaled by :data:`MAD_SCALE`, so that it estimates a standard
deviation) are robust to the outliers themselves, and asking for the whole
interval keeps Monte Carlo noise from flagging a card when the others agree
exactly (MAD 0). At least :data:`MIN_OTHERS` other cards are needed to call
anything far.

The characters' spread is the best minus the worst win rate with the scenario's
loadout and policy. Both are paired to the scenario's stalker on the same games,
so the spread is the difference of their two paired differences; its interval
adds the two half-widths (conservative: at least 90 % coverage by the union bound,
exactly the paired interval when one of them is the scenario's stalker). It is
flagged as wide above :data:`WIDE_SPREAD` when that interval lies wholly above it.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

import pandas as pd

K = 3.0
"""How many (scaled) MADs from the median of the rest is far."""
MAD_SCALE = 1.4826
"""MAD x this estimates the standard deviation of normal data."""
MIN_OTHERS = 3
"""Fewest other cards of a kind against which a card can be far above or below."""
WIDE_SPREAD = 0.10
"""A spread of the characters' win rates above 10 percentage points is flagged."""


def band(values: Sequence[float]) -> tuple[float, float, float]:
    """``(median, low, high)``: the median and the band ``median -+ K x scaled MAD``."""
    median = statistics.median(values)
    mad = MAD_SCALE * statistics.median(abs(v - median) for v in values)
    return median, median - K * mad, median + K * mad


def far(rows: Sequence[Mapping], value: str = "per_1000") -> list[dict]:
    """The rows whose ``value`` interval lies wholly outside the band of the other rows.

    Parameters
    ----------
    rows : sequence of mapping
        One per card, with ``name``, ``value``, ``value_ci_low`` and ``value_ci_high``
        for the column stem ``value``; rows whose estimate is missing (NaN) are left out.
    value : str
        The column stem.

    Returns
    -------
    list of dict
        ``{"name", "side" ("above" or "below"), "row", "median", "low", "high"}``,
        in the order of ``rows``.
    """
    kept = [r for r in rows if r[value] == r[value]]
    out = []
    for r in kept:
        others = [o[value] for o in kept if o is not r]
        if len(others) < MIN_OTHERS:
            continue
        median, low, high = band(others)
        side = ("above" if r[f"{value}_ci_low"] > high else
                "below" if r[f"{value}_ci_high"] < low else None)
        if side is not None:
            out.append({"name": r["name"], "side": side, "row": r, "median": median,
                        "low": low, "high": high})
    return out


def spread(rows: Sequence[Mapping]) -> dict | None:
    """The best and worst character and the spread of their win rates, with its interval.

    ``rows`` are the characters section's rows (``variant``, ``mc``, ``diff``,
    ``diff_ci_low``, ``diff_ci_high``: paired to the scenario's stalker, 0 for it).
    Returns ``{"best", "worst", "spread", "low", "high", "wide"}`` or None for
    fewer than two characters.
    """
    if len(rows) < 2:
        return None
    best = max(rows, key=lambda r: r["mc"])
    worst = min(rows, key=lambda r: r["mc"])
    width = sum((r["diff_ci_high"] - r["diff_ci_low"]) / 2 for r in (best, worst))
    gap = best["diff"] - worst["diff"]
    return {"best": best, "worst": worst, "spread": gap, "low": gap - width,
            "high": gap + width, "wide": gap - width > WIDE_SPREAD}


ARTIFACT_HELP = (("best_use_p_sarcophagus", 1, "the win rate under its best use (whole games)"),
                 ("campaign_p_sarcophagus", 1, "the win rate (whole games)"),
                 ("combat_knocked_out", -1, "knock-outs prevented on the enemy deck"))
"""Per artefact, the help judged: the change of the win rate under the artefact's best use
(issue 46.2, :mod:`sim.workflows.best_use`) when it was measured, else when whole games
were played as the scenario uses it, else knock-outs prevented on the enemy deck (column
stem, sign that makes helping positive, words)."""


SCENARIO_USE = "campaign_p_sarcophagus"
"""The column stem of the win rate's change with the artefact used as the scenario uses it."""


def _as_used(row: Mapping, stem: str) -> dict:
    """Beside a best-use figure: the use chosen and the scenario's own figure, as context.

    ``use`` and ``scenario`` (percentage points: estimate, interval); nothing beside
    any other figure or when the scenario's figure was not measured.
    """
    mc = row.get(f"{SCENARIO_USE}_mc")
    if stem == SCENARIO_USE or "best_use" not in row or mc is None or mc != mc:
        return {}
    return {"use": row["best_use"],
            "scenario": tuple(100 * row[f"{SCENARIO_USE}{end}"]
                              for end in ("_mc", "_ci_low", "_ci_high"))}


def artifact_rows(frame: pd.DataFrame) -> tuple[list[dict], str]:
    """The artefacts as rows of :func:`sim.report.outliers.far` (help in points of percent)."""
    for stem, sign, words in ARTIFACT_HELP:
        if f"{stem}_mc" not in frame or frame[f"{stem}_mc"].isna().all():
            continue
        rows = []
        for r in frame.to_dict("records"):
            if not r["price"] > 0:
                continue
            value = sorted(100 * sign * r[f"{stem}{end}"] for end in ("_ci_low", "_ci_high"))
            per = sorted(100 * sign * r[f"{stem}_per_1000_rubles{end}"]
                         for end in ("_ci_low", "_ci_high"))
            rows.append({"name": r["artifact"], "price": r["price"], "help": words,
                         "value": 100 * sign * r[f"{stem}_mc"], "value_ci_low": value[0],
                         "value_ci_high": value[1],
                         "per_1000": 100 * sign * r[f"{stem}_per_1000_rubles"],
                         "per_1000_ci_low": per[0], "per_1000_ci_high": per[1],
                         **_as_used(r, stem)})
        return rows, words
    return [], ""
