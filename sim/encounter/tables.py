"""Turning kernel counts and exact values into result rows.

Every estimate is reported with its 95 % interval and, where one exists, the
exact value: ``{"mc", "ci_low", "ci_high", "exact"}``. These helpers are the
only place where encounter results are shaped, so every command and report
prints the same keys.
"""

from __future__ import annotations

from sim import stats


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


def _cell(name: str, cell: dict) -> dict:
    return {name: cell["mc"], f"{name}_ci_low": cell.get("ci_low"),
            f"{name}_ci_high": cell.get("ci_high"), f"{name}_exact": cell.get("exact")}
