"""Packed records declared once: an ordered list of slot names gives every index and the size.

A packed record is the head of an int64 array (an encounter's parameters, a
fight's result) whose slot ``k`` holds the value named ``k``-th in its
declaration (issue 28, section 1, "Records"). A :class:`Record` is that
declaration: the index constants and the size are generated from the order
of the names, so no index is written by hand, left unused or given twice.

Numba reads a module's integers as compile-time constants; a record is
therefore a module object, its slots its attributes (``FIGHT.R_OUTCOME``
compiles to the constant 0, as ``layout.P_HEALTH`` does), and the declaring
module also binds them as its own globals (``globals().update(RECORD.constants)``)
so that ``layout.P_HEALTH`` and ``combat.R_OUTCOME`` keep their names. The
compile step fills a record by name through :meth:`Record.pack`, the one
packing helper.

A record may begin after another (``start``: the campaign's count columns
follow the end codes) and a slot may be wider than one column (a
``(name, width)`` pair: one column per seat); its name is then the index of
its first column.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

import numpy as np

_SCALARS = (int, np.integer)
"""Types :meth:`Record.pack` writes as one value without asking numpy (``np.ndim``)."""


class Record(ModuleType):
    """One packed record: slot names in order, each bound to its index, and the size.

    Parameters
    ----------
    title : str
        What the record holds, for messages ("combat parameters").
    size : str
        Name of the size constant (``P_SIZE``): the number of slots, where the
        next record or the artefact records begin.
    slots : sequence of str or (str, int)
        The slot names in order, each one column wide or a ``(name, width)``
        pair: slot ``k`` begins where slot ``k - 1`` ends.
    start : int, optional
        Index of the first slot (0): where the record begins in its array.
    """

    def __init__(self, title: str, size: str, slots: Sequence[str | tuple[str, int]],
                 start: int = 0) -> None:
        named = [(slot, 1) if isinstance(slot, str) else slot for slot in slots]
        names = [name for name, _ in named]
        super().__init__(f"record {size}", f"{title}: {', '.join(names)}")
        if len(set(names)) != len(names) or size in names:
            raise ValueError(f"{title}: a slot name is declared twice in {names}")
        if any(width < 1 for _, width in named):
            raise ValueError(f"{title}: a slot narrower than one column in {list(slots)}")
        self.title = title
        self.size_name = size
        self.slots = tuple(names)
        self.start = start
        self.index = {}
        self.width = dict(named)
        for name, width in named:
            self.index[name] = start
            start += width
        self.end = start
        for name, value in self.constants.items():
            setattr(self, name, value)

    @property
    def size(self) -> int:
        """Where the record ends: ``start`` plus the width of every slot."""
        return self.end

    @property
    def constants(self) -> dict[str, int]:
        """Every slot's index by name, and the size under its own name."""
        return {**self.index, self.size_name: self.size}

    def pack(self, base: np.ndarray | None = None, /, **values: int) -> np.ndarray:
        """An int64 array holding ``values`` in the slots they name.

        Parameters
        ----------
        base : ndarray of int64, optional
            A packed array to copy (its slots beyond this record, such as
            artefact records, are kept); without it the array has ``size``
            columns, each 0 unless named.
        **values : int or sequence of int
            The slots to write, by name (``P_HEALTH=spec.health``); a wide slot
            takes a sequence, written from its first column on (columns left
            over stay as they were).

        Raises
        ------
        ValueError
            A name that is not a slot of this record, or a sequence wider than
            its slot.
        """
        unknown = sorted(values.keys() - self.index.keys())
        if unknown:
            raise ValueError(f"{self.title} have no slot {', '.join(unknown)} "
                             f"(slots: {', '.join(self.slots)})")
        out = np.zeros(self.size, dtype=np.int64) if base is None else base.copy()
        for name, value in values.items():
            column = self.index[name]
            if isinstance(value, _SCALARS) or np.ndim(value) == 0:
                out[column] = value  # a scalar (tested cheapest first: packs run per fight)
                continue
            if len(value) > self.width[name]:
                raise ValueError(f"{self.title}: {len(value)} values for {name}, "
                                 f"{self.width[name]} columns wide")
            out[column:column + len(value)] = value
        return out
