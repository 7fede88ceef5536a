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
        text = f"{cell['mc']:.4f}"
        if cell.get("ci_low") is not None:
            text += f" ±{(cell['ci_high'] - cell['ci_low']) / 2:.4f}"
        if cell.get("exact") is not None:
            text += f" ({cell['exact']:.4f})"
        flat[name] = text
    return flat


def _cell(name: str, cell: dict) -> dict:
    return {name: cell["mc"], f"{name}_ci_low": cell.get("ci_low"),
            f"{name}_ci_high": cell.get("ci_high"), f"{name}_exact": cell.get("exact")}
