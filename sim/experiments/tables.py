"""Turning kernel counts and exact values into result rows.

Every estimate is reported with its 95 % interval and, where one exists, the
exact value: ``{"mc", "ci_low", "ci_high", "exact"}``. These helpers are the
only place where encounter results are shaped, so every command and report
prints the same keys.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sim import stats

if TYPE_CHECKING:  # imported where a frame is built: an encounter's JSON and table need none
    import pandas as pd

    from sim.experiments.base import MetricNames


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def cell_text(mc, low=None, high=None, exact=None, digits: int = 4, signed: bool = False) -> str:
    """``estimate ±half-width (exact)``, the one readable form of a result cell.

    The half-width is half the 95 % interval ``low..high``; missing parts (None
    or NaN) are left out, and a missing estimate gives ``""``. ``signed``
    writes a difference with its sign (``+0.0123``).
    """
    if _missing(mc):
        return ""
    form = f"+.{digits}f" if signed else f".{digits}f"
    text = format(mc, form)
    if not (_missing(low) or _missing(high)):
        text += f" ±{(high - low) / 2:.{digits}f}"
    if not _missing(exact):
        text += f" ({format(exact, form)})"
    return text


def proportion(count: int, trials: int, exact: float | None = None) -> dict:
    """A probability estimate with its Wilson interval and exact value."""
    low, high = stats.wilson(int(count), trials)
    return {"mc": int(count) / trials, "ci_low": low, "ci_high": high,
            "exact": None if exact is None else float(exact)}


def mean(total: int, total_sq: int, trials: int, exact: float | None = None) -> dict:
    """A mean estimate with its normal interval and exact value."""
    value, low, high = stats.mean_interval(float(total), float(total_sq), trials)
    return {"mc": value, "ci_low": low, "ci_high": high,
            "exact": None if exact is None else float(exact)}


def flatten(row: dict, keys: tuple[str, ...]) -> dict:
    """One flat table row: nested ``{"mc", ...}`` cells become ``name``, ``name_ci_low``..."""
    flat = {k: row[k] for k in keys}
    for name, cell in row.get("outcomes", {}).items():
        flat.update(_cell(name, cell))
    for name, cell in row.items():
        if name not in keys and name != "outcomes" and isinstance(cell, dict):
            flat.update(_cell(name, cell))
    return flat


def compact(row: dict, keys: tuple[str, ...]) -> dict:
    """One readable table row: each cell as ``estimate ±half-width (exact)``.

    The half-width is half the 95 % interval; CSV and JSON keep the exact
    bounds.
    """
    flat = {k: row[k] for k in keys}
    cells = dict(row.get("outcomes", {}))
    cells.update({k: v for k, v in row.items()
                  if k not in keys and k != "outcomes" and isinstance(v, dict)})
    for name, cell in cells.items():
        flat[name] = cell_text(cell["mc"], cell.get("ci_low"), cell.get("ci_high"),
                               cell.get("exact"))
    return flat


def _cell(name: str, cell: dict) -> dict:
    return {name: cell["mc"], f"{name}_ci_low": cell.get("ci_low"),
            f"{name}_ci_high": cell.get("ci_high"), f"{name}_exact": cell.get("exact")}


@dataclass(frozen=True)
class HazardTable:
    """Rows of ``zonesim anomaly`` or ``zonesim event``: one per card, most dangerous first.

    ``card`` is the row key naming the card (``"anomaly"`` or ``"event"``).
    """

    trials: int
    seed: int
    card: str
    rows: tuple[dict, ...]

    def to_dict(self) -> dict:
        """The issue's JSON: ``{"trials", "seed", "rows": [...]}``."""
        return {"trials": self.trials, "seed": self.seed, "rows": list(self.rows)}

    def to_frame(self) -> pd.DataFrame:
        """One flat row per card: each cell as estimate, interval bounds and exact value."""
        import pandas as pd

        keys = tuple(k for k in self.rows[0] if not isinstance(self.rows[0][k], dict))
        return pd.DataFrame([flatten(r, keys) for r in self.rows])

    def to_table(self) -> pd.DataFrame:
        """Readable rows: each cell as ``estimate ±half-width (exact)``."""
        import pandas as pd

        return pd.DataFrame(self.table_rows())

    def table_rows(self) -> list[dict]:
        """The rows of :meth:`to_table` as text cells, without pandas."""
        return [compact(r, (self.card,)) for r in self.rows]


def danger_key(names: MetricNames, lost: Sequence[str]) -> Callable[[dict], tuple]:
    """Sort key of an encounter's rows, most dangerous first: exact P(knocked out),
    P(deformation), mean points lost after the armour, then P(not avoided).

    ``names`` are the experiment's metric names (its ``knocked_out``, ``deformation``
    and ``avoided``) and ``lost`` its metrics of points lost (the anomaly's ``mean_loss``;
    the event's Health, radiation and psi), read from the experiment's declaration.
    """

    def key(row: dict) -> tuple:
        out = row["outcomes"]
        return (-out[names.knocked_out]["exact"], -row[names.deformation]["exact"],
                -sum(row[k]["exact"] for k in lost), -(1.0 - out[names.avoided]["exact"]))

    return key


def in_deck_order(frame: pd.DataFrame, key: str, names: Sequence[str]) -> pd.DataFrame:
    """Rows in deck (file) order instead of danger order, so every point lists cards alike."""
    rank = {name: i for i, name in enumerate(names)}
    return frame.sort_values(key, key=lambda s: s.map(rank), kind="stable").reset_index(drop=True)
