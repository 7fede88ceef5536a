"""Checks on parsed ruleset data: cells, rows (several columns) and tables.

The functions here take text already read by :mod:`sim.rules.loader` and
return typed values plus :class:`~sim.rules.errors.Problem` objects; they
never stop at the first problem.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sim.rules.errors import Problem
from sim.rules.schema import AUTO, HEALTH_DAMAGE, Column

_INT = re.compile(r"[+-]?\d+")


@dataclass
class Row:
    """One data row: physical line, typed values and the raw cells by column."""

    line: int
    values: dict[str, object]
    cells: dict[str, str]


def show(text: str) -> str:
    """Render a raw cell for a message: integers bare, anything else quoted."""
    return text if _INT.fullmatch(text) else repr(text)


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest choice, or an empty string."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def parse_cell(col: Column, text: str) -> tuple[object, str | None]:
    """Typed value of one cell, or ``(None, message)`` if it is invalid.

    Parameters
    ----------
    col : Column
        The column spec.
    text : str
        The stripped cell text.
    """
    if text == "":
        if col.blank:
            return col.default, None
        if col.kind == "name":
            return None, "name is empty"
        if col.kind == "text":
            return "", None
        return None, f"empty cell; expected {_expected(col)}"
    if col.kind in ("name", "text"):
        return text, None
    if col.kind == "enum":
        if text in col.choices:
            return text, None
        return None, f"{show(text)} is not one of {', '.join(col.choices)}" + suggest(
            text, col.choices
        )
    if col.kind == "flag":
        if text in ("0", "1"):
            return text == "1", None
        return None, f"{show(text)} is not 0 or 1"
    if col.kind == "int_or_auto" and text == AUTO:
        return AUTO, None
    if not _INT.fullmatch(text):
        what = _expected(col) if col.kind != "int" else "an integer"
        return None, f"{show(text)} is not {what}"
    value = int(text)
    lo, hi = (2, 6) if col.kind == "die" else (col.lo, col.hi)
    if not lo <= value <= hi:
        what = "a die face" if col.kind == "die" else "in"
        return None, f"{value} is not {what} {lo}..{hi}"
    return value, None


def _expected(col: Column) -> str:
    if col.kind == "die":
        return "a die face 2..6"
    if col.kind == "enum":
        return "one of " + ", ".join(col.choices)
    if col.kind == "flag":
        return "0 or 1"
    if col.kind == "int_or_auto":
        return f"an integer {col.lo}..{col.hi} or 'auto'"
    return f"an integer {col.lo}..{col.hi}"


# --- row checks: several columns of one card -------------------------------------------------

RowCheck = Callable[[Row], list[tuple[str, str]]]
"""A row check returns ``(column, message)`` pairs."""

_ITEM_VALUE_RANGE = {
    "event_avoid": (1, 5),  # Z-09 shift of the avoid roll
    "escape": (1, 5),  # Z-15 Reputation reduction
    "medkit": (1, 30),  # Z-11 health restored
    "stimulant": (1, 30),
    "movement": (1, 30),  # Z-03 steps added per day
    "location_movement": (0, 30),  # Z-07 not simulated yet
}


def _item(row: Row) -> list[tuple[str, str]]:
    effect, value, raw = row.values.get("effect"), row.values.get("value"), row.cells.get("value")
    if effect is None or raw is None or (value is None and raw != ""):
        return []  # already reported
    if effect == "none":
        return [] if value is None else [("value", f"{show(raw)} must be empty for effect 'none'")]
    if value is None:
        return [("value", f"empty cell; effect '{effect}' needs a value")]
    if value == AUTO:
        if effect == "event_avoid":
            return []
        return [("value", f"'auto' is only allowed for effect 'event_avoid', not '{effect}'")]
    lo, hi = _ITEM_VALUE_RANGE[str(effect)]
    assert isinstance(value, int)
    if not lo <= value <= hi:
        return [("value", f"{value} is not in {lo}..{hi} for effect '{effect}'")]
    return []


def _enemy(row: Row) -> list[tuple[str, str]]:
    if row.values.get("kind") == "animal" and row.values.get("habitat") not in (None, "open"):
        habitat = row.cells["habitat"]
        return [("habitat", f"{show(habitat)} is not allowed for kind 'animal' (P-28: open only)")]
    return []


def _event(row: Row) -> list[tuple[str, str]]:
    effect, dtype = row.values.get("effect"), row.cells.get("damage_type", "")
    if effect == "wounds" and dtype == "":
        need = ", ".join(HEALTH_DAMAGE)
        return [("damage_type", f"empty cell; effect 'wounds' needs one of {need}")]
    if effect not in (None, "wounds") and dtype != "":
        return [("damage_type", f"{show(dtype)} must be empty for effect '{effect}'")]
    return []


def _artifact(row: Row) -> list[tuple[str, str]]:
    out = []
    v = row.values
    etype = row.cells.get("effect_type", "")
    if v.get("effect") == "resist" and etype == "":
        out.append(("effect_type", "empty cell; effect 'resist' needs a damage type"))
    elif v.get("effect") not in (None, "resist") and etype != "":
        out.append(("effect_type", f"{show(etype)} must be empty unless effect is 'resist'"))
    need = row.cells.get("intellect_need", "")
    if v.get("activation") == "auto" and need not in ("", "0"):
        out.append(("intellect_need", f"{show(need)} must be empty or 0 for activation 'auto'"))
    return out


ROW_CHECKS: dict[str, RowCheck] = {
    "items": _item,
    "enemies": _enemy,
    "events": _event,
    "artifacts": _artifact,
}


# --- table checks ----------------------------------------------------------------------------


def duplicate_names(file: str, rows: list[Row]) -> list[Problem]:
    """Every name must be unique within its table."""
    seen: dict[str, int] = {}
    out = []
    for row in rows:
        name = row.values.get("name")
        if not isinstance(name, str):
            continue
        if name in seen:
            msg = f"{show(name)} duplicates the name on line {seen[name]}"
            out.append(Problem(file, row.line, "name", name, msg))
        else:
            seen[name] = row.line
    return out


def emission_order(file: str, rows: list[Row]) -> list[Problem]:
    """Orders are unique and 1..N; exactly one card is final and it is last (P-49)."""
    out = []
    seen: dict[int, int] = {}
    for row in rows:
        order = row.values.get("order")
        if isinstance(order, int):
            if order in seen:
                msg = f"{order} duplicates the order on line {seen[order]}"
                out.append(Problem(file, row.line, "order", str(order), msg))
            else:
                seen[order] = row.line
            if order > len(rows):
                msg = f"{order} is not in 1..{len(rows)} (orders must be 1..number of emissions)"
                out.append(Problem(file, row.line, "order", str(order), msg))
    finals = [r for r in rows if r.values.get("final") is True]
    if rows and not finals and all(isinstance(r.values.get("final"), bool) for r in rows):
        out.append(Problem(file, None, "final", None, "no card has final=1 (P-49: Final Emission)"))
    for row in finals[1:]:
        msg = f"1 is a second final card (first on line {finals[0].line})"
        out.append(Problem(file, row.line, "final", "1", msg))
    if len(finals) == 1 and finals[0].values.get("order") not in (None, len(rows)):
        row = finals[0]
        msg = f"{row.values['order']} is not the last order {len(rows)}; the final card comes last"
        out.append(Problem(file, row.line, "order", str(row.values["order"]), msg))
    return out


def artifact_types(file: str, anomalies: list[Row], types: set[str], ref: str) -> list[Problem]:
    """Each non-empty anomaly ``artifact_type`` must be the type of some artefact (P-35).

    An empty ``artifact_type`` means the anomaly yields no artefact; a name that
    matches no artefact is almost always a typo, so it is an error.
    """
    out = []
    for row in anomalies:
        t = row.values.get("artifact_type")
        if isinstance(t, str) and t and t not in types:
            msg = f"{show(t)} is not the type of any artifact in {ref}" + suggest(t, types)
            out.append(Problem(file, row.line, "artifact_type", t, msg))
    return out
