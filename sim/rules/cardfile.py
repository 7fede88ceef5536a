"""Writing cells back into a card file: the one place that edits a ruleset's CSV text.

``zonesim rebalance --out`` and the studio's export write a copy of the
scenario's ruleset with a few cells changed. Every other byte of the file is
the designer's own and is kept as the file writes it, names included: a card
name is the ruleset's data, so it is not neutralised as an output table's
cells are (:func:`sim.report.writer.to_csv` is for tables the tool writes).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

ROW_KEYS = {"map": ("q", "r")}
"""The columns that name a row of a table with no ``name`` key, joined by commas
(``map.csv``'s hex ``0,-5``); every other table's rows are named by ``name``."""


def row_key(header: list[str], row: list[str], by: tuple[str, ...] = ("name",)) -> str:
    """The name of ``row`` (its ``by`` cells joined by commas; a missing cell is empty)."""
    cells = [row[header.index(c)] if header.index(c) < len(row) else "" for c in by]
    return ",".join(cells)


def with_cells(text: str, cells: Iterable[tuple[str, str, str]],
               by: tuple[str, ...] = ("name",)) -> str:
    """The card file ``text`` with each ``(card, column, value)`` cell set.

    The row is the one :func:`row_key` names ``card`` (its ``name``; a hex of
    ``map.csv`` by ``by=ROW_KEYS["map"]``, ``0,-5``); a row shorter than the header
    is padded. Raises ``KeyError`` naming a card no row holds.
    """
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    for card, column, value in cells:
        col = header.index(column)
        row = next((r for r in rows[1:] if r and row_key(header, r, by) == card), None)
        if row is None:
            raise KeyError(card)
        row.extend([""] * (col + 1 - len(row)))
        row[col] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()
